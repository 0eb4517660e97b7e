# The oracle of test_kernel_differential.py: a FROZEN copy of src/domino/rules/sample.py as it was
# before the one rules kernel (issue 14). Never edit it to make a test pass.
"""Hypothetical rounds for search bots: a seat's view plus a guess of the hidden tiles.

A search bot (Meister) guesses where the tiles it cannot see lie — a
:class:`Hypothesis` — and plays the round out from the moment of its view.
:func:`determinize` builds a full :class:`RoundState` from view and guess
(for tests and tools); :func:`playout` plays on from there far faster, over
bitmasks with a fixed greedy policy (:func:`greedy`), and returns each side's
points for the rest of the round. ``tests/rules/test_sample.py`` checks that
:func:`playout` reaches the same result as the engine playing the same moves.

The guess must agree with the view (own hand, hand sizes, Lager size, tiles on
the table); :func:`check` says whether it does. Nothing here looks at a real
hidden state: this module only ever sees what the caller hands it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from oracle_round import RoundState, round_to_fives

from domino.rules.audience import SeatView
from domino.rules.config import Rules
from domino.rules.moves import DRAW_MOVE, MOVES, PASS_MOVE, Move
from domino.rules.tiles import ALL_MASK, TILES, WITH, pips_of

#: Index of a draw / a pass among the integer moves (``Move.index``).
DRAW_I = DRAW_MOVE.index
PASS_I = PASS_MOVE.index

# The greedy policy's weights (pips units): shed heavy tiles, keep a follow-up,
# shed doubles early, take Fünferpunkte. A light cousin of Fortgeschritten.
_KEEP_FIT = 6
_DOUBLE = 3
_FIVES = 2


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


def determinize(view: SeatView, hyp: Hypothesis) -> RoundState:
    """The :class:`RoundState` that ``view`` would be a view of if ``hyp`` were true.

    The log stays empty (the history is the view's); everything a move needs is set.
    """
    check(view, hyp)
    assert view.turn is not None
    r = RoundState.__new__(RoundState)
    r.rules = view.rules
    r.n = view.rules.seats
    r.hands = list(hyp.hands)
    held = 0
    for h in hyp.hands:
        held |= h
    r.held = held
    r.lager = list(hyp.lager)
    r.out = hyp.out
    r.left, r.right = view.left, view.right
    r.left_double, r.right_double = view.left_double, view.right_double
    r.line = deque(view.line)
    r.turn = view.turn
    r.drew = view.drew
    r.drawn_fit = _drawn_fit(view)
    r.log = []
    r.side_fives = _side_fives(view)
    r.result = None
    r.opener = view.opener
    return r


def greedy(hand: int, left: int, right: int, ld: bool, rd: bool, fives: bool) -> int:
    """The playout policy's play (a ``Move.index``) for a hand holding a fitting tile."""
    best = -1
    best_score = -1
    m = hand & (WITH[left] | WITH[right])
    while m:
        low = m & -m
        m ^= low
        t = TILES[low.bit_length() - 1]
        rest = hand & ~low
        base = t.pips + (_DOUBLE if t.is_double else 0)
        for end_right in (False, True):
            at = right if end_right else left
            if t.low != at and t.high != at:
                continue
            new = t.high if t.low == at else t.low
            nl, nr = (left, new) if end_right else (new, right)
            score = base
            if rest & (WITH[nl] | WITH[nr]):
                score += _KEEP_FIT
            if fives:
                nld, nrd = (ld, t.is_double) if end_right else (t.is_double, rd)
                c = nl * (2 if nld else 1) + nr * (2 if nrd else 1)
                if c and c % 5 == 0:
                    score += _FIVES * c
            if score > best_score:
                best, best_score = t.index * 2 + end_right, score
    return best


def playout(view: SeatView, hyp: Hypothesis, first: Move) -> tuple[int, ...]:
    """Play ``first`` for the seat to move, then :func:`greedy` for everyone to the round's end.

    Returns per side the points still to come this round: the round-end points of §7
    (rounded under Fünferpunkte) plus the Fünferpunkte scored from now on. A seat plays
    whenever it can (it never passes on a drawn fitting tile) and draws when it must.
    ``hyp`` is trusted to agree with ``view`` (see :func:`check`); ``first`` to be legal.
    """
    rules = view.rules
    n = rules.seats
    pairs = rules.pairs
    fives_on = rules.fives
    draws = rules.draws
    hands = list(hyp.hands)
    lager = list(hyp.lager)
    held = 0
    for h in hands:
        held |= h
    left, right = view.left, view.right
    ld, rd = view.left_double, view.right_double
    turn = view.turn
    assert turn is not None
    fives = [0] * rules.sides
    # The greedy policy never passes on a drawn fitting tile, so unlike
    # RoundState the playout needs no drawn_fit flag.
    mv = first.index
    while True:
        fit = WITH[left] | WITH[right]
        hand = hands[turn]
        if mv < 0:
            if hand & fit:
                mv = greedy(hand, left, right, ld, rd, fives_on)
            elif draws and lager:
                mv = DRAW_I
            else:
                mv = PASS_I
        if mv == DRAW_I:
            t = TILES[lager.pop()]
            hands[turn] = hand | t.mask
            held |= t.mask
            if not t.mask & fit and not lager and not held & fit:
                return _totals(rules, False, turn, hands, fives, pairs, n)
            mv = -1
            continue
        if mv == PASS_I:
            turn = (turn + 1) % n
            mv = -1
            continue
        t = TILES[mv >> 1]
        if mv & 1:
            right = t.high if t.low == right else t.low
            rd = t.is_double
        else:
            left = t.high if t.low == left else t.low
            ld = t.is_double
        hand &= ~t.mask
        hands[turn] = hand
        held &= ~t.mask
        if fives_on:
            c = left * (2 if ld else 1) + right * (2 if rd else 1)
            if c and c % 5 == 0:
                fives[turn % 2 if pairs else turn] += c
        if not hand:
            return _totals(rules, True, turn, hands, fives, pairs, n)
        if not (draws and lager) and not held & (WITH[left] | WITH[right]):
            return _totals(rules, False, turn, hands, fives, pairs, n)
        turn = (turn + 1) % n
        mv = -1


def _totals(
    rules: Rules, domino: bool, turn: int, hands: list[int], fives: list[int], pairs: bool, n: int
) -> tuple[int, ...]:
    # The scoring of RoundState._finish_* (§7), written for bitmasks.
    pips = [pips_of(h) for h in hands]
    points = [0] * rules.sides
    if pairs:
        team = (pips[0] + pips[2], pips[1] + pips[3])
        if team[0] != team[1]:
            w = 0 if team[0] < team[1] else 1
            points[w] = team[1 - w]
    elif domino:
        points[turn] = sum(pips)
    else:
        low = min(pips)
        if pips.count(low) == 1:
            w = pips.index(low)
            points[w] = sum(p - low for p in pips)
    if rules.fives:
        points = [round_to_fives(p) for p in points]
    return tuple(p + f for p, f in zip(points, fives, strict=True))


__all__ = ["DRAW_I", "MOVES", "PASS_I", "Hypothesis", "check", "determinize", "greedy", "playout"]
