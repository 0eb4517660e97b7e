"""Meister's reading of the other seats' past plays: the hands it reconstructs are the
hands they held, Fortgeschritten's own plays are fully plausible, and weighed guesses
still agree with the view."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domino.bots import auto_move
from domino.bots.knowledge import infer
from domino.bots.meister import Meister, past_plays, plausibility
from domino.rules import WITH, MatchState, Mode, RoundState, Rules, view
from domino.rules.sample import Hypothesis, check

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

RULES = [
    Rules(seats=2),
    Rules.preset(Mode.KLASSISCH, 3),
    Rules.preset(Mode.ZUGEMAUERT, 3),
    Rules.preset(Mode.FUENFERFIEBER, 4),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
]

rules_st = st.sampled_from(RULES)
seeds = st.integers(min_value=0, max_value=10**9)


def _play(
    rules: Rules, seed: int, steps: int, policy: str
) -> tuple[RoundState, dict[int, tuple[int, int]]]:
    """A round after up to ``steps`` moves (random or Fortgeschritten's); per play made,
    by move index: the hand its seat held and the ends state before it."""
    rng = random.Random(seed)
    r = MatchState(rules, seed=f"inference/{seed}").round
    before: dict[int, tuple[int, int]] = {}
    for _ in range(steps):
        if r.over:
            break
        move = rng.choice(r.legal_moves()) if policy == "random" else auto_move(view(r, r.turn))
        if move.is_play:
            before[move.index] = (r.hands[r.turn], r.es)
        r.apply(move)
    return r, before


def _truth(r: RoundState) -> Hypothesis:
    return Hypothesis(tuple(r.hands), tuple(r.lager), r.out)


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_past_plays_rebuild_the_hand_each_seat_held(rules: Rules, seed: int, steps: int) -> None:
    r, before = _play(rules, seed, steps, "random")
    if r.over:
        return
    me = r.turn
    v = view(r, me)
    for s, es, mv, after in past_plays(v):
        assert s != me
        hand, es_then = before[mv]
        assert es == es_then
        # The hand of now plus the tiles played since (this one too) is the hand of then.
        assert r.hands[s] | after == hand


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_fortgeschritten_plays_are_fully_plausible_in_the_true_deal(
    rules: Rules, seed: int, steps: int
) -> None:
    r, _ = _play(rules, seed, steps, "fortgeschritten")
    if r.over:
        return
    v = view(r, r.turn)
    assert plausibility(past_plays(v), _truth(r), rules.fives, 3.0) == 1.0


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_plausibility_is_a_probability_and_random_play_is_less_plausible(
    rules: Rules, seed: int, steps: int
) -> None:
    r, _ = _play(rules, seed, steps, "random")
    if r.over:
        return
    v = view(r, r.turn)
    plays = past_plays(v)
    w = plausibility(plays, _truth(r), rules.fives, 3.0)
    assert 0.0 < w <= 1.0
    # A colder temperature never makes a deal more plausible.
    assert plausibility(plays, _truth(r), rules.fives, 1.0) <= w


@SETTINGS
@given(rules=rules_st, seed=seeds, steps=st.integers(min_value=0, max_value=40))
def test_weighed_guesses_agree_with_the_view(rules: Rules, seed: int, steps: int) -> None:
    r, _ = _play(rules, seed, steps, "fortgeschritten")
    if r.over:
        return
    me = r.turn
    v = view(r, me)
    know = infer(v)
    plays = past_plays(v)
    bot = Meister(seed, tau=2.0, tries=4)
    for _ in range(5):
        hyp = bot._guess(know, v, plays)
        check(v, hyp)
        for s in range(rules.seats):
            if s != me:
                for n in range(7):
                    if know.lacks(s) >> n & 1:
                        assert not hyp.hands[s] & WITH[n]
