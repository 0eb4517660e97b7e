"""The rules kernel against the engine as it was before it (issue 14), in every variant.

The oracle is a frozen copy of the old implementations, kept only here:
``oracle_round.py`` (RoundState.apply with its own inlined rules),
``oracle_playout.py`` (the benchmark's random_round) and ``oracle_sample.py``
(Meister's playouts), plus the old Lehmer decoding of the shuffle below.
Thousands of seeded rounds in every variant must agree move by move: the
legal moves, every logged event, every refusal (error class, code, message),
the line, the ends, the Fünferpunkte and the result; and Meister's playouts
must score every candidate move alike.
"""

from __future__ import annotations

import random
from dataclasses import astuple, replace
from typing import Any

import oracle_playout
import oracle_round
import oracle_sample
import pytest
from rules_support import VARIANTS

from domino.bots.sample import playout
from domino.bots.values import greedy
from domino.rules import MOVES, MatchState, RoundState, Rules, RulesError, shuffled_deal, view
from domino.rules.deal import _PERMUTATIONS, random_permutation
from domino.rules.hypothesis import Hypothesis, determinize
from domino.rules.playout import pick, random_round
from domino.rules.tiles import WITH

ROUNDS_PER_VARIANT = 250  # 16 variants: 4,000 rounds, each played by both engines


def _old_permutation(rng: random.Random) -> list[int]:
    # deal.random_permutation before the kernel: all 28 digits by divmod.
    n = rng.randrange(_PERMUTATIONS)
    pool = list(range(28))
    out = []
    for k in range(28, 0, -1):
        n, i = divmod(n, k)
        out.append(pool.pop(i))
    return out


def _id(rules: Rules) -> str:
    return f"{rules.mode.value}-{rules.seats}{'-paare' if rules.pairs else ''}" + (
        f"-lager{int(rules.lager)}-fives{int(rules.fives)}"
    )


def _state(r: Any) -> tuple[object, ...]:
    return (
        tuple(r.hands),
        tuple(r.lager),
        r.out,
        r.left,
        r.right,
        r.left_double,
        r.right_double,
        r.turn,
        r.drew,
        r.drawn_fit,
        tuple(r.side_fives),
        r.opener,
        r.line_text(),
        tuple(r.line),
        r.can_draw,
        r.over,
    )


def _refusal(r: Any, move: Any, seat: int | None) -> tuple[str, str, str] | None:
    try:
        r.verify(move, seat)
    except RulesError as exc:
        return (type(exc).__name__, exc.code, str(exc))
    return None


def test_the_shuffle_is_the_old_one() -> None:
    a, b = random.Random(77), random.Random(77)
    for _ in range(20_000):
        assert random_permutation(a) == _old_permutation(b)


@pytest.mark.parametrize("rules", VARIANTS, ids=_id)
def test_roundstate_plays_exactly_as_before(rules: Rules) -> None:
    for seed in range(ROUNDS_PER_VARIANT):
        deal = shuffled_deal(rules, seed=f"diff/{seed}")
        new = RoundState.start(rules, deal)
        old = oracle_round.RoundState.start(rules, deal)
        assert tuple(new.log) == tuple(old.log)
        rng = random.Random(seed)
        steps = 0
        while True:
            assert _state(new) == _state(old), (seed, new.line_text())
            if steps % 8 == 0:  # what every audience sees, as objects and as JSON
                for audience in (None, *range(new.n)):
                    v, w = view(new, audience), view(old, audience)  # type: ignore[arg-type]
                    # (the oracle has its own RoundResult class: compared as values)
                    assert replace(v, result=None) == replace(w, result=None)
                    assert v.to_dict() == w.to_dict()
            steps += 1
            legal = new.legal_moves()
            assert legal == old.legal_moves()
            # a random move (often illegal) and a wrong seat: the same refusal, or none
            probe = MOVES[rng.randrange(len(MOVES))]
            for seat in (None, (new.turn + 1) % new.n):
                assert _refusal(new, probe, seat) == _refusal(old, probe, seat)
                assert new.can(probe, seat) == old.can(probe, seat)
            if new.result is not None:
                break
            if probe not in legal:
                with pytest.raises(RulesError):
                    new.apply(probe)
                assert _state(new) == _state(old)
            move = pick(legal, rng)
            ev_new, ev_old = new.apply(move, new.turn), old.apply(move, old.turn)
            assert tuple(ev_new) == tuple(ev_old)
            assert ev_new.move is ev_old.move
        assert old.result is not None
        assert astuple(new.result) == astuple(old.result)
        assert new.result.totals == old.result.totals
        assert tuple(new.log) == tuple(old.log)


@pytest.mark.parametrize("rules", VARIANTS, ids=_id)
def test_random_round_plays_exactly_as_before(rules: Rules) -> None:
    for seed in range(ROUNDS_PER_VARIANT):
        a, b = random.Random(seed), random.Random(seed)
        assert astuple(random_round(rules, a)) == astuple(oracle_playout.random_round(rules, b))
        assert a.random() == b.random()  # the same draws were taken from the generator
        deal = shuffled_deal(rules, seed=seed)
        a, b = random.Random(seed), random.Random(seed)
        new = random_round(rules, a, deal)
        assert astuple(new) == astuple(oracle_playout.random_round(rules, b, deal))


def _positions(rules: Rules, seed: int, count: int):  # type: ignore[no-untyped-def]
    """(round, view of the seat to move) at random moments of random rounds."""
    rng = random.Random(seed)
    for k in range(count):
        r = MatchState(rules, seed=f"kernel-diff/{seed}/{k}").round
        stop = rng.randrange(0, 24)
        while not r.over and stop:
            r.apply(rng.choice(r.legal_moves()))
            stop -= 1
        if not r.over:
            yield r, view(r, r.turn)


@pytest.mark.parametrize("rules", VARIANTS, ids=_id)
def test_meisters_playouts_score_exactly_as_before(rules: Rules) -> None:
    n = 0
    for r, v in _positions(rules, VARIANTS.index(rules), 60):
        hyp = Hypothesis(tuple(r.hands), tuple(r.lager), r.out)
        old_hyp = oracle_sample.Hypothesis(tuple(r.hands), tuple(r.lager), r.out)
        for first in v.legal:
            assert playout(v, hyp, first) == oracle_sample.playout(v, old_hyp, first)
            n += 1
        hand = r.hands[r.turn]
        if hand & (WITH[r.left] | WITH[r.right]):
            args = (hand, r.left, r.right, r.left_double, r.right_double, rules.fives)
            assert greedy(*args) == oracle_sample.greedy(*args)
        assert view(determinize(v, hyp), v.seat) == view(
            oracle_sample.determinize(v, old_hyp),  # type: ignore[arg-type]
            v.seat,
        )
    assert n > 40
