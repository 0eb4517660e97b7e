# The oracle of test_kernel_differential.py: a FROZEN copy of src/domino/rules/playout.py as it was
# before the one rules kernel (issue 14). Never edit it to make a test pass.
"""A fast random playout of one round, for search bots and the benchmark.

:func:`random_round` plays the same rules as :class:`RoundState` (§5-§8) with
uniformly random legal moves, in one function over bitmasks and local
variables: no event log, no per-move verification (every move it makes is
drawn from the legal set it computes). It offers the legal moves in the same
order as ``RoundState.legal_moves()`` and picks ``legal[int(rng.random() *
len(legal))]`` whenever there is a choice (:func:`pick`), so, given the same
deal and generator state, a RoundState driven by :func:`pick` reaches the
same result; ``tests/rules/test_playout.py`` checks that over thousands of
rounds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from oracle_round import (
    _LEGAL_CACHE,
    _OPENING_ORDER,
    BLOCKED,
    DOMINO,
    RoundResult,
    _plays,
    round_to_fives,
)

from domino.rules.config import Rules
from domino.rules.deal import Deal, random_permutation
from domino.rules.moves import Move
from domino.rules.tiles import TILES, WITH, pips_of, tiles_of

T = TypeVar("T")


def pick(options: Sequence[T], rng: random.Random) -> T:
    """A uniformly random element of a non-empty sequence, by one ``rng.random()``.

    A single-element sequence costs no draw (the engine's forced moves).
    """
    if len(options) == 1:
        return options[0]
    return options[int(rng.random() * len(options))]


def random_round(rules: Rules, rng: random.Random, deal: Deal | None = None) -> RoundResult:
    """Deal (from ``rng`` unless ``deal`` is given) and play one round at random."""
    n = rules.seats
    size = rules.hand_size
    if deal is None:
        order = random_permutation(rng)
        hands = []
        for s in range(n):
            m = 0
            for i in order[s * size : (s + 1) * size]:
                m |= 1 << i
            hands.append(m)
        # The Lager is drawn from the end of this list, as in RoundState.
        lager = order[n * size :][::-1] if rules.draws else []
    else:
        hands = [sum(t.mask for t in h) for h in deal.hands]
        lager = [t.index for t in reversed(deal.lager)]
    draws = rules.draws
    fives_on = rules.fives
    pairs = rules.pairs
    fives = [0] * rules.sides
    held = 0
    for h in hands:
        held |= h
    best = next(t for t in _OPENING_ORDER if held & t.mask)
    turn = next(i for i, h in enumerate(hands) if h & best.mask)
    hands[turn] &= ~best.mask
    held &= ~best.mask
    left, right = best.low, best.high
    ldbl = rdbl = best.is_double
    if fives_on and best.pips and best.pips % 5 == 0:
        fives[turn % 2 if pairs else turn] += best.pips
    rand = rng.random
    cache = _LEGAL_CACHE
    reason = ""
    drawn_fit = False
    if not held & (WITH[left] | WITH[right]) and not (draws and lager):
        reason = BLOCKED  # the opening itself can leave nobody a move
    turn = (turn + 1) % n
    while not reason:
        fit = WITH[left] | WITH[right]
        hand = hands[turn]
        m = hand & fit
        if m:
            plays: tuple[Move | None, ...] = cache.get((m * 7 + left) * 7 + right) or _plays(
                m, left, right
            )
            if drawn_fit:
                plays = (*plays, None)
            move = plays[int(rand() * len(plays))] if len(plays) > 1 else plays[0]
            drawn_fit = False
            if move is None:  # a pass after drawing a fitting tile
                turn = (turn + 1) % n
                continue
            t = move.tile
            assert t is not None
            if move.end == "R":
                right = t.high if t.low == right else t.low
                rdbl = t.is_double
            else:
                left = t.high if t.low == left else t.low
                ldbl = t.is_double
            hand &= ~t.mask
            hands[turn] = hand
            held &= ~t.mask
            if fives_on:
                c = left * (2 if ldbl else 1) + right * (2 if rdbl else 1)
                if c and c % 5 == 0:
                    fives[turn % 2 if pairs else turn] += c
            if not hand:
                reason = DOMINO
            elif not held & (WITH[left] | WITH[right]) and not (draws and lager):
                reason = BLOCKED
            else:
                turn = (turn + 1) % n
        elif draws and lager:
            t = TILES[lager.pop()]
            hands[turn] = hand | t.mask
            held |= t.mask
            if t.mask & fit:
                drawn_fit = True
            elif not lager and not held & fit:
                reason = BLOCKED
        else:
            turn = (turn + 1) % n
    return _result(rules, reason, turn, hands, fives)


def _result(
    rules: Rules, reason: str, turn: int, hands: list[int], fives: list[int]
) -> RoundResult:
    # The same scoring as RoundState._finish_* (§7), written for bitmasks.
    pips = tuple(pips_of(h) for h in hands)
    points = [0] * rules.sides
    winner: int | None = None
    out_seat = turn if reason == DOMINO else None
    if rules.pairs:
        team = [pips[0] + pips[2], pips[1] + pips[3]]
        if team[0] != team[1]:
            winner = 0 if team[0] < team[1] else 1
            points[winner] = team[1 - winner]
    elif reason == DOMINO:
        winner = turn
        points[turn] = sum(pips)
    else:
        low = min(pips)
        if pips.count(low) == 1:
            winner = pips.index(low)
            points[winner] = sum(p - low for p in pips)
    if rules.fives:
        points = [round_to_fives(p) for p in points]
    return RoundResult(
        reason=reason,
        out_seat=out_seat,
        winner=winner,
        points=tuple(points),
        fives=tuple(fives),
        pips=pips,
        hands=tuple(tiles_of(h) for h in hands),
    )
