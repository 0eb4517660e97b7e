"""Profi (RULES.md §11): Fortgeschritten plus memory and tile counting.

From :mod:`.knowledge` it knows, per other seat, which tiles each held tile
can still be. A play is valued as Fortgeschritten values it, plus how likely
it leaves ends the following seats cannot answer: the next opponent most,
later seats less (with Paare the partner counts against: it should be able
to play).
"""

from __future__ import annotations

import random

from domino.rules import Move, SeatView

from .base import ends_after
from .knowledge import Knowledge, infer
from .simple import play_score
from .values import block_value as _block_value
from .values import block_weights


def block_value(view: SeatView, know: Knowledge, move: Move) -> float:
    """How much ``move`` hampers the following opponents (and helps a partner): the one
    block value (:func:`.values.block_value`) with Profi's estimate of each seat's chance
    to answer the ends left."""
    me = view.seat
    assert me is not None
    left, right, _, _ = ends_after(view, move)
    counts = view.hand_counts
    return _block_value(
        block_weights(view.rules)[me],
        lambda s: 1.0 - know.p_can_play(s, left, right) if counts[s] else 0.0,
    )


def profi_score(view: SeatView, know: Knowledge, move: Move) -> float:
    """Fortgeschritten's value of a play plus :func:`block_value`."""
    return play_score(view, move) + block_value(view, know, move)


class Profi:
    """Reads the history each turn (so it can take over mid-round) and blocks knowingly."""

    level: str = "profi"

    def __init__(self, seed: object = None) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: SeatView) -> Move:
        """The play with the best :func:`profi_score`; draws and passes only when it must."""
        plays = [m for m in view.legal if m.is_play]
        if not plays:
            return view.legal[0]
        if len(plays) == 1:
            return plays[0]
        know = infer(view)
        return max(plays, key=lambda m: (profi_score(view, know, m), -m.index))
