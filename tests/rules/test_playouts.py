"""Random playouts across every variant, checked move by move against the
independent model in ``rules_reference.py`` (RULES.md §4-§8, §11).

Per move: all 28 tiles accounted for; the engine's legal moves equal the
model's; a random illegal move is refused with the error of the clause it
breaks and changes nothing; a move for the wrong seat is refused. Per round:
it ends, and reason, winner, pips, round-end points and Fünferpunkte equal
the model's. Every ``VIEW_EVERY``-th round checks every audience's view (and
its JSON form) at every step, every fourth round at its end: own hand, line
and, after the end, revealed hands only; never another hand, the Lager or the
tiles out of play. About 15 s on an idle 2-core machine, 25 s loaded.
"""

from __future__ import annotations

import os
import random
import time

from rules_reference import RefRound
from rules_support import VARIANTS, accounted, check_views, snapshot

from domino.rules import (
    MOVES,
    IllegalMoveError,
    NotYourTurnError,
    RoundOverError,
    RoundState,
    shuffled_deal,
)

ROUNDS = max(10_000, int(os.environ.get("DOMINO_PLAYOUT_ROUNDS", 0)))  # more for a soak run
VIEW_EVERY = 40
MAX_STEPS = 200  # 27 plays + 14 draws + passes between them stay far below


def test_random_playouts_follow_the_rules_in_every_variant() -> None:
    rng = random.Random(20261202)
    began = time.perf_counter()
    reasons: dict[str, int] = {}
    for i in range(ROUNDS):
        rules = VARIANTS[i % len(VARIANTS)]
        d = shuffled_deal(rules, rng=rng)
        r = RoundState.start(rules, d)
        ref = RefRound(
            rules.seats,
            rules.lager,
            rules.fives,
            rules.pairs,
            [[str(t) for t in h] for h in d.hands],
            [str(t) for t in d.lager],
        )
        assert r.opener == ref.opener
        views = i % VIEW_EVERY == 0
        steps = 0
        while True:
            assert accounted(r)
            assert (r.left, r.right) == ref.ends
            assert r.side_fives == ref.fives
            if views:
                check_views(r, fast=True)
            if r.result is not None:
                break
            assert not ref.over
            assert r.turn == ref.turn
            legal = r.legal_moves()
            names = {str(m) for m in legal}
            assert names == ref.legal(), (r.line_text(), r.hand(r.turn))
            assert len(names) == len(legal)
            if steps % 2 == 0:
                _refuse_an_illegal_move(r, ref, rng, names)
            move = legal[rng.randrange(len(legal))]
            r.apply(move, r.turn)
            ref.apply(str(move))
            steps += 1
            assert steps < MAX_STEPS, "the round does not end"
        res = r.result
        assert ref.over
        assert res.reason == ref.reason
        assert res.winner == ref.winner
        assert list(res.points) == ref.points
        assert list(res.fives) == ref.fives
        assert list(res.pips) == ref.final_pips
        assert [{str(t) for t in h} for h in res.hands] == [
            {f"{a}|{b}" for a, b in h} for h in ref.hands
        ]
        assert r.line_text() == " ".join(f"{a}|{b}" for a, b in ref.line)
        if i % 4 == 0:
            check_views(r, fast=True)
        try:
            r.apply(legal[0])
        except RoundOverError:
            pass
        else:
            raise AssertionError("a move after the round's end was accepted")
        reasons[res.reason] = reasons.get(res.reason, 0) + 1
    # Both endings occur often enough to be tested by this run.
    assert min(reasons.values()) > ROUNDS // 20, reasons
    print(f"{ROUNDS} rounds in {time.perf_counter() - began:.1f} s: {reasons}")


def _refuse_an_illegal_move(
    r: RoundState, ref: RefRound, rng: random.Random, names: set[str]
) -> None:
    before = snapshot(r)
    wrong_seat = (r.turn + 1 + rng.randrange(r.n - 1)) % r.n
    try:
        r.apply(MOVES[rng.randrange(len(MOVES))], wrong_seat)
    except NotYourTurnError:
        pass
    else:
        raise AssertionError("a move for the wrong seat was accepted")
    for _ in range(8):
        bad = MOVES[rng.randrange(len(MOVES))]
        if str(bad) not in names:
            break
    else:
        return
    try:
        r.apply(bad, r.turn)
    except IllegalMoveError as exc:
        assert type(exc) is IllegalMoveError
        assert exc.code == ref.refusal(str(bad)), (str(bad), exc.code, str(exc))
    else:
        raise AssertionError(f"illegal {bad} accepted")
    assert snapshot(r) == before
    assert not r.can(bad)
