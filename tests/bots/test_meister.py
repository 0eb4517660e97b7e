"""Meister: guesses agree with the view, decisions are reproducible and anytime."""

import random

from domino.bots.knowledge import infer
from domino.bots.meister import Meister, candidates, guess
from domino.rules import WITH, MatchState, Mode, RoundState, Rules, view
from domino.rules.sample import check


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
    for rules in (Rules(seats=2), Rules.preset(Mode.ZUGEMAUERT, 3),
                  Rules.preset(Mode.KLASSISCH, 4, pairs=True)):
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
