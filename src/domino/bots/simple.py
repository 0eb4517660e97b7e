"""Anfänger and Fortgeschritten (RULES.md §11): memoryless policies.

Fortgeschritten's evaluation of a single play (:func:`play_score`) is also the
base of Profi's and the server's automatic move (:func:`auto_move`).
"""

from __future__ import annotations

import random

from domino.rules import Move, SeatView

from .base import hand_mask, tile_of, view_es
from .values import play_value


def play_score(view: SeatView, move: Move) -> float:
    """Fortgeschritten's value of a play: heavy tiles out, follow-ups kept, fives taken
    (:func:`.values.play_value`)."""
    tile_of(move)
    return play_value(hand_mask(view), move.index, view_es(view), view.rules.fives)


def auto_move(view: SeatView) -> Move:
    """Fortgeschritten's choice: stateless and deterministic (the server's timeout move).

    Draws and passes only when it must; among plays the best :func:`play_score`,
    ties broken by the lower move index so the result never depends on chance.
    """
    plays = [m for m in view.legal if m.is_play]
    if not plays:
        return view.legal[0]
    return max(plays, key=lambda m: (play_score(view, m), -m.index))


class Anfaenger:
    """Any legal move, uniformly at random."""

    level: str = "anfaenger"

    def __init__(self, seed: object = None) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: SeatView) -> Move:
        """A uniformly random legal move."""
        return self.rng.choice(view.legal)


class Fortgeschritten:
    """Heavy tiles first, keeps tiles that fit the open ends; see :func:`auto_move`."""

    level: str = "fortgeschritten"

    def __init__(self, seed: object = None) -> None:
        self.rng = random.Random(str(seed))

    def choose(self, view: SeatView) -> Move:
        """The same move as :func:`auto_move` (deterministic; the generator is unused)."""
        return auto_move(view)
