"""Meister: guesses agree with the view, decisions are reproducible and anytime
(a time budget on an injected clock cuts the search, never a real clock)."""

import random

import pytest

from domino.bots import make_bot
from domino.bots.knowledge import infer
from domino.bots.meister import (
    DEFAULT_PLAYOUTS,
    HALVING,
    Meister,
    candidates,
    guess,
    schedule,
)
from domino.bots.profi import profi_score
from domino.bots.sample import check, playout
from domino.rules import WITH, MatchState, Mode, Move, RoundState, Rules, SeatView, view


def _busy_positions(rules: Rules, count: int) -> list[tuple[RoundState, int]]:
    rng = random.Random(3)
    out = []
    k = 0
    while len(out) < count:
        k += 1
        r = MatchState(rules, seed=f"meister/{k}").round
        for _ in range(rng.randrange(2, 12)):
            if r.over:
                break
            r.apply(rng.choice(r.legal_moves()))
        if not r.over and len(candidates(view(r, r.turn))) > 1:
            out.append((r, r.turn))
    return out


def test_guesses_agree_with_the_view_and_the_inferred_facts() -> None:
    rng = random.Random(1)
    for rules in (
        Rules(seats=2),
        Rules.preset(Mode.ZUGEMAUERT, 3),
        Rules.preset(Mode.KLASSISCH, 4, pairs=True),
    ):
        for r, seat in _busy_positions(rules, 10):
            v = view(r, seat)
            know = infer(v)
            for _ in range(5):
                hyp = guess(know, v, rng)
                check(v, hyp)
                for s in range(rules.seats):
                    if s != seat:
                        # a seat never gets a number it is known to lack
                        for n in range(7):
                            if know.lacks(s) >> n & 1:
                                assert not hyp.hands[s] & WITH[n]


def test_same_seed_same_choice() -> None:
    for r, seat in _busy_positions(Rules(seats=2), 5):
        v = view(r, seat)
        assert Meister("s", playouts=60).choose(v) == Meister("s", playouts=60).choose(v)


def test_an_injected_deadline_stops_the_search_early() -> None:
    r, seat = _busy_positions(Rules.preset(Mode.KLASSISCH, 4, pairs=True), 1)[0]
    calls = []

    def deadline() -> bool:
        calls.append(1)
        return len(calls) >= 2

    move = Meister("d", playouts=10_000, deadline=deadline).choose(view(r, seat))
    assert move in view(r, seat).legal
    assert len(calls) == 2


class StepClock:
    """A fake monotonic clock: every reading is ``step`` seconds after the previous one."""

    def __init__(self, step: float = 1.0) -> None:
        self.step = step
        self.t = 0.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.t += self.step
        return self.t


def _best_over(seed: str, v: SeatView, n_guesses: int) -> Move:
    """What Meister's search plays after exactly ``n_guesses`` guesses (written out again;
    within the first phase of the search every candidate meets every guess)."""
    bot = Meister(seed)
    cands = candidates(v)
    assert n_guesses <= schedule(len(cands), bot.playouts, bot.halving)[0]
    know = infer(v)
    assert v.seat is not None
    side, others = v.rules.side_of(v.seat), v.rules.sides - 1
    plays = bot._evidence(v, know)
    value = bot._valuer(v, side, others)
    totals = [0.0] * len(cands)
    for _ in range(n_guesses):
        hyp = bot._guess(know, v, plays)
        for k, m in enumerate(cands):
            totals[k] += value(playout(v, hyp, m, block=bot.block))
    best = max(
        range(len(cands)),
        key=lambda k: (
            totals[k],
            profi_score(v, know, cands[k]) if cands[k].is_play else -1e9,
            -cands[k].index,
        ),
    )
    return cands[best]


def test_a_time_budget_on_an_injected_clock_stops_with_the_best_move_so_far() -> None:
    positions = _busy_positions(Rules.preset(Mode.KLASSISCH, 4, pairs=True), 4)
    positions += _busy_positions(Rules(seats=2), 4)
    for r, seat in positions:
        v = view(r, seat)
        clock = StepClock(1.0)
        # One reading when the decision starts, one after every guess: 5 s pass in 5 guesses.
        move = Meister("b", budget=5.0, clock=clock).choose(v)
        assert clock.reads == 1 + 5
        assert move in v.legal
        assert move == _best_over("b", v, 5)
        # Reproducible: the same fake clock gives the same choice.
        assert Meister("b", budget=5.0, clock=StepClock(1.0)).choose(v) == move


def test_a_budget_of_zero_still_searches_one_guess() -> None:
    r, seat = _busy_positions(Rules(seats=2), 1)[0]
    v = view(r, seat)
    clock = StepClock(0.001)
    move = Meister("z", budget=0.0, clock=clock).choose(v)
    assert clock.reads == 2 and move == _best_over("z", v, 1)


def test_an_unlimited_or_unspent_budget_plays_as_the_full_search() -> None:
    for r, seat in _busy_positions(Rules(seats=2), 4):
        v = view(r, seat)
        full = Meister("u").choose(v)
        assert Meister("u", budget=None, clock=StepClock()).choose(v) == full
        # A clock that hardly moves: the whole search fits in the budget.
        clock = StepClock(1e-9)
        assert Meister("u", budget=1.0, clock=clock).choose(v) == full
        # It looked after every guess, and did them all.
        assert clock.reads == 1 + sum(schedule(len(candidates(v)), DEFAULT_PLAYOUTS, HALVING))


def test_make_bot_hands_the_budget_to_meister_only() -> None:
    clock = StepClock()
    m = make_bot("meister", "s", budget=0.15, clock=clock)
    assert isinstance(m, Meister) and m.budget == 0.15 and m.clock is clock
    for level in ("anfaenger", "fortgeschritten", "profi"):
        make_bot(level, "s", budget=0.15, clock=clock)  # accepted, nothing to cut
    assert clock.reads == 0
    with pytest.raises(ValueError):
        make_bot("meister", "s", budget=0.15)  # a budget needs a clock
    with pytest.raises(ValueError):
        Meister("s", budget=-1.0, clock=clock)


def test_the_halving_schedule_spends_about_the_budget_and_keeps_two() -> None:
    for count in range(2, 16):
        plan = schedule(count, DEFAULT_PLAYOUTS, True)
        alive, spent = count, 0
        for g in plan:
            spent += g * alive
            alive = max(2, (alive + 1) // 2) if alive > 2 else alive
        assert alive == 2
        assert spent <= DEFAULT_PLAYOUTS + 24 * count  # the first phase's minimum at most
    assert schedule(5, 600, False) == [120]


def test_a_halving_search_is_reproducible_and_legal() -> None:
    for r, seat in _busy_positions(Rules.preset(Mode.KLASSISCH, 3), 4):
        v = view(r, seat)
        a = Meister("h", playouts=120, halving=True).choose(v)
        assert a == Meister("h", playouts=120, halving=True).choose(v)
        assert a in v.legal


def test_the_plain_value_is_the_margin_and_lead_one_half_changes_nothing() -> None:
    for r, seat in _busy_positions(Rules.preset(Mode.KLASSISCH, 3), 3):
        v = view(r, seat)
        side, others = v.rules.side_of(seat), v.rules.sides - 1
        plain = Meister("v")._valuer(v, side, others)
        half = Meister("v", lead=0.5)._valuer(v, side, others)
        for pts in ((0, 0, 0), (12, 0, 0), (0, 7, 0), (0, 0, 30)):
            assert plain(pts) == pts[side] - (sum(pts) - pts[side]) / 2
            assert half(pts) == plain(pts)
        assert Meister("v").choose(v) == Meister("v", lead=0.5).choose(v)


def test_the_match_weight_rewards_a_playout_that_wins_the_match() -> None:
    r, seat = _busy_positions(Rules(seats=2), 1)[0]
    v = view(r, seat)
    side = v.rules.side_of(seat)
    value = Meister("w", match_weight=40.0)._valuer(v, side, 1)
    target = v.rules.target_points
    win = tuple(target if s == side else 0 for s in range(2))
    lose = tuple(0 if s == side else target for s in range(2))
    assert value(win) == target + 40.0
    assert value(lose) == -target - 40.0
