"""Hypothetical rounds for search bots: a seat's view plus a guess of the hidden tiles.

A search bot (Meister) guesses where the tiles it cannot see lie — a
:class:`Hypothesis` — and plays the round out from the moment of its view.
:func:`determinize` builds a full :class:`RoundState` from view and guess
(for tests and tools); :func:`playout` plays on from there on the bare rules
kernel (:class:`~domino.rules.kernel.Kernel`, the same one RoundState runs
on, without its log) with a fixed greedy policy (:func:`greedy`), and returns
each side's points for the rest of the round. ``tests/rules/test_sample.py``
checks that :func:`playout` reaches the same result as the engine playing the
same moves.

The guess must agree with the view (own hand, hand sizes, Lager size, tiles on
the table); :func:`check` says whether it does. Nothing here looks at a real
hidden state: this module only ever sees what the caller hands it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cache

from .audience import SeatView
from .config import Rules
from .kernel import DRAW_I, ES_COUNT, FIT, FIVES, PASS_I, PLACE, Kernel, ends_state
from .moves import MOVES, Move
from .round import RoundState
from .tiles import ALL_MASK, TILES, WITH

# The greedy policy's weights (pips units): shed heavy tiles, keep a follow-up,
# shed doubles early, take Fünferpunkte. A light cousin of Fortgeschritten.
_KEEP_FIT = 6
_DOUBLE = 3
_FIVES = 2
# The blocking policy's extra weights (pips units): a play that leaves ends the next seat
# cannot answer earns _BLOCK if that seat is an opponent; the seat after it counts half
# (its sign flipped for a partner), the third a quarter. Profi's idea, with the guessed
# hands in place of Profi's estimate.
_BLOCK = 8


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """Where the hidden tiles lie: every seat's hand (the own one as it is), the Lager in
    drawing order (``lager[-1]`` is drawn next, as in :class:`RoundState`) and the tiles
    out of play (*Lager Aus*)."""

    hands: tuple[int, ...]
    lager: tuple[int, ...]
    out: int = 0


def _own_mask(view: SeatView) -> int:
    m = 0
    for t in view.hand or ():
        m |= t.mask
    return m


def check(view: SeatView, hyp: Hypothesis) -> None:
    """Raise :class:`ValueError` unless ``hyp`` agrees with everything ``view`` shows."""
    if view.seat is None or view.hand is None:
        raise ValueError("A hypothesis needs a seat's view, not a spectator's.")
    if len(hyp.hands) != view.rules.seats:
        raise ValueError("One hand per seat.")
    if hyp.hands[view.seat] != _own_mask(view):
        raise ValueError("The own hand is not the one in the view.")
    for s, h in enumerate(hyp.hands):
        if h.bit_count() != view.hand_counts[s]:
            raise ValueError(f"Seat {s} holds {view.hand_counts[s]} tiles in the view.")
    if len(hyp.lager) != view.lager_count:
        raise ValueError("The Lager size differs from the view.")
    seen = 0
    for t, _, _ in view.line:
        seen |= t.mask
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
    return view.drew > 0 and bool(_own_mask(view) & (WITH[view.left] | WITH[view.right]))


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


def greedy(hand: int, left: int, right: int, ld: bool, rd: bool, fives: bool) -> int:
    """The playout policy's play (a ``Move.index``) for a hand holding a fitting tile."""
    return greedy_es(hand, ends_state(left, right, ld, rd), fives)


def greedy_es(hand: int, es: int, fives: bool) -> int:
    """:func:`greedy` for the kernel's ends state ``es``."""
    best = -1
    best_score = -1
    m = hand & FIT[es]
    while m:
        low = m & -m
        m ^= low
        t = TILES[low.bit_length() - 1]
        rest = hand & ~low
        base = t.pips + (_DOUBLE if t.is_double else 0)
        for mv in (t.index * 2, t.index * 2 + 1):
            new = PLACE[mv * ES_COUNT + es]
            if new < 0:
                continue
            score = base
            if rest & FIT[new]:
                score += _KEEP_FIT
            if fives:
                score += _FIVES * FIVES[new]
            if score > best_score:
                best, best_score = mv, score
    return best


@cache
def block_weights(rules: Rules) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per seat: ``(other seat, weight)`` pairs of :func:`greedy_block_es` (in pips; halved
    per seat further on, negative for a partner)."""
    n = rules.seats
    out = []
    for s in range(n):
        row = []
        w = _BLOCK
        for k in range(1, n):
            o = (s + k) % n
            if o != s:
                sign = -1 if rules.pairs and rules.side_of(o) == rules.side_of(s) else 1
                row.append((o, sign * w))
            w //= 2
        out.append(tuple(row))
    return tuple(out)


def greedy_block_es(
    hands: list[int], seat: int, es: int, fives: bool, weights: tuple[tuple[int, int], ...]
) -> int:
    """:func:`greedy_es` for ``hands[seat]`` plus blocking: each seat in ``weights`` that
    cannot answer the ends a play leaves adds its weight (a ``Move.index``)."""
    hand = hands[seat]
    best = -1
    best_score = -1 << 30
    m = hand & FIT[es]
    while m:
        low = m & -m
        m ^= low
        t = TILES[low.bit_length() - 1]
        rest = hand & ~low
        base = t.pips + (_DOUBLE if t.is_double else 0)
        for mv in (t.index * 2, t.index * 2 + 1):
            new = PLACE[mv * ES_COUNT + es]
            if new < 0:
                continue
            score = base
            fit = FIT[new]
            if rest & fit:
                score += _KEEP_FIT
            if fives:
                score += _FIVES * FIVES[new]
            for o, w in weights:
                if hands[o] and not hands[o] & fit:
                    score += w
            if score > best_score:
                best, best_score = mv, score
    return best


def playout(
    view: SeatView, hyp: Hypothesis, first: Move, *, block: bool = False
) -> tuple[int, ...]:
    """Play ``first`` for the seat to move, then :func:`greedy` for everyone to the round's end.

    Returns per side the points still to come this round: the round-end points of §7
    (rounded under Fünferpunkte) plus the Fünferpunkte scored from now on. A seat plays
    whenever it can (it never passes on a drawn fitting tile) and draws when it must.
    ``hyp`` is trusted to agree with ``view`` (see :func:`check`); ``first`` must be legal.
    With ``block`` every seat plays :func:`greedy_block_es` instead (it sees the guessed
    hands, as the whole playout does).
    """
    assert view.turn is not None
    k = Kernel.resume(
        view.rules,
        list(hyp.hands),
        list(hyp.lager),
        _ends(view),
        view.turn,
        drew=view.drew,
        drawn_fit=_drawn_fit(view),
    )
    fives = view.rules.fives
    step = k.step
    hands = k.hands
    if step(first.index) < 0:
        raise ValueError(f"{first} is not legal in this view.")
    if block:
        weights = block_weights(view.rules)
        while not k.reason:
            s = k.turn
            es = k.es
            if hands[s] & FIT[es]:
                step(greedy_block_es(hands, s, es, fives, weights[s]))
            else:
                step(DRAW_I if k.lager else PASS_I)
        return k.totals()
    while not k.reason:
        hand = hands[k.turn]
        es = k.es
        if hand & FIT[es]:
            step(greedy_es(hand, es, fives))
        else:
            step(DRAW_I if k.lager else PASS_I)
    return k.totals()


__all__ = [
    "DRAW_I",
    "MOVES",
    "PASS_I",
    "Hypothesis",
    "block_weights",
    "check",
    "determinize",
    "greedy",
    "greedy_block_es",
    "greedy_es",
    "playout",
]
