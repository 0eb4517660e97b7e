"""Hypothetical rounds: a seat's view plus a guess of the hidden tiles.

A search bot (Meister) and the analysis guess where the tiles a seat cannot see lie — a
:class:`Hypothesis` — and play the round out from the moment of its view. This module
holds the rules part of that: :func:`check` says whether a guess agrees with the view
(own hand, hand sizes, Lager size, tiles on the table), :func:`determinize` builds the
full :class:`RoundState` (for tests and tools) and :func:`kernel_of` the bare kernel a
playout runs on. How the round is then played out is bot policy
(:func:`domino.bots.sample.playout`). Nothing here looks at a real hidden state: this
module only ever sees what the caller hands it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from .audience import SeatView
from .kernel import Kernel, ends_state
from .round import RoundState
from .tiles import ALL_MASK, TILES, WITH, mask_of


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """Where the hidden tiles lie: every seat's hand (the own one as it is), the Lager in
    drawing order (``lager[-1]`` is drawn next, as in :class:`RoundState`) and the tiles
    out of play (*Lager Aus*)."""

    hands: tuple[int, ...]
    lager: tuple[int, ...]
    out: int = 0


def check(view: SeatView, hyp: Hypothesis) -> None:
    """Raise :class:`ValueError` unless ``hyp`` agrees with everything ``view`` shows."""
    if view.seat is None or view.hand is None:
        raise ValueError("A hypothesis needs a seat's view, not a spectator's.")
    if len(hyp.hands) != view.rules.seats:
        raise ValueError("One hand per seat.")
    if hyp.hands[view.seat] != mask_of(view.hand or ()):
        raise ValueError("The own hand is not the one in the view.")
    for s, h in enumerate(hyp.hands):
        if h.bit_count() != view.hand_counts[s]:
            raise ValueError(f"Seat {s} holds {view.hand_counts[s]} tiles in the view.")
    if len(hyp.lager) != view.lager_count:
        raise ValueError("The Lager size differs from the view.")
    seen = mask_of(t for t, _, _ in view.line)
    parts = [seen, *hyp.hands, *(TILES[i].mask for i in hyp.lager), hyp.out]
    total = 0
    for p in parts:
        if total & p:
            raise ValueError("A tile lies in two places.")
        total |= p
    if total != ALL_MASK:
        raise ValueError("Some tile lies nowhere.")


def _side_fives(view: SeatView) -> list[int]:
    fives = [0] * view.rules.sides
    for ev in view.history:
        if ev.fives:
            fives[view.rules.side_of(ev.seat)] += ev.fives
    return fives


def _drawn_fit(view: SeatView) -> bool:
    # After drawing, a fitting tile in hand can only be the one just drawn.
    return view.drew > 0 and bool(mask_of(view.hand or ()) & (WITH[view.left] | WITH[view.right]))


def _ends(view: SeatView) -> int:
    return ends_state(view.left, view.right, view.left_double, view.right_double)


def determinize(view: SeatView, hyp: Hypothesis) -> RoundState:
    """The :class:`RoundState` that ``view`` would be a view of if ``hyp`` were true.

    The log stays empty (the history is the view's); everything a move needs is set.
    """
    check(view, hyp)
    assert view.turn is not None
    r = RoundState.resume(
        view.rules,
        list(hyp.hands),
        list(hyp.lager),
        _ends(view),
        view.turn,
        opener=view.opener,
        drew=view.drew,
        drawn_fit=_drawn_fit(view),
        side_fives=_side_fives(view),
    )
    r.rules = view.rules
    r.out = hyp.out
    r.log = []
    r._line = deque(view.line)
    r._line_n = 0
    r.result = None
    return r


def kernel_of(view: SeatView, hyp: Hypothesis) -> Kernel:
    """The bare rules kernel (:class:`~domino.rules.kernel.Kernel`, no log) at the moment of
    ``view`` if ``hyp`` were true; ``hyp`` is trusted to agree (see :func:`check`)."""
    assert view.turn is not None
    return Kernel.resume(
        view.rules,
        list(hyp.hands),
        list(hyp.lager),
        _ends(view),
        view.turn,
        drew=view.drew,
        drawn_fit=_drawn_fit(view),
    )


__all__ = ["Hypothesis", "check", "determinize", "kernel_of"]
