"""The reason sentence of a hint or a puzzle (domino.analysis.reasons): true to the seat's
own knowledge, one catalogue key, every key rendered."""

from __future__ import annotations

import random
from json import loads
from pathlib import Path

from domino.analysis.reasons import CLOSE, KEYS, reason
from domino.analysis.review import positions
from domino.bots.base import ends_after
from domino.bots.knowledge import infer
from domino.bots.meister import candidates
from domino.i18n import tr
from domino.rules import MatchState, Mode, Move, Rules, view

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
RULES = [
    Rules.preset(Mode.KLASSISCH, 2),
    Rules.preset(Mode.KLASSISCH, 3),
    Rules.preset(Mode.FUENFERFIEBER, 3),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
]


def _views(rules: Rules, seed: int, count: int) -> list:
    """Seat views at random moments of seeded rounds (random legal play), each with two
    or more candidates."""
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < count:
        k += 1
        m = MatchState(rules, seed=f"r{seed}/{k}")
        while not m.round.over:
            v = view(m, m.round.turn)
            if len(candidates(v)) >= 2 and rng.random() < 0.3:
                out.append(v)
            m.apply(rng.choice(v.legal), m.round.turn)
    return out


def _options(v, rng: random.Random) -> list[tuple[Move, float]]:
    return [(c, rng.uniform(-20, 20)) for c in candidates(v)]


def test_the_scripted_double_names_the_seat_that_could_not_play_its_number() -> None:
    # docs/examples/double-first.json: Anna holds 5|3 and 5|5, the ends show 6 and 5, and Ben
    # has just passed on 6 and 5. 5|5 keeps the 5 open, which Ben could not play.
    record = loads((EXAMPLES / "double-first.json").read_text(encoding="utf-8"))
    pos = next(p for p in positions(record) if (p.round_no, p.move_no) == (1, 12))
    best = Move.parse("5|5 R")
    key, params = reason(pos.view, best, [(best, 15.4), (Move.parse("5|3 R"), -6.0)], ["A", "Ben"])
    assert key == "reason.heavy_blocked_R"  # 5|5 is also the heavier of the two
    assert params == {"tile": "5|5", "number": 5, "player": "Ben", "seat": 1}
    assert tr("de", key, **params) == (
        "Leg 5|5 rechts: dein schwerster Stein, und Ben konnte vorhin keine 5 legen."
    )


def test_close_options_are_called_close_and_a_forced_move_forced() -> None:
    rng = random.Random(1)
    seen_close = False
    for v in _views(RULES[1], 3, 40):
        cands = candidates(v)
        if len(cands) != 2 or len(v.hand or ()) == 1:
            continue
        best, other = cands
        key, _ = reason(v, best, [(best, 3.0), (other, 3.0 - CLOSE / 2)])
        assert key == "reason.close"
        key, _ = reason(v, best, [(best, 3.0), (other, 3.0 - CLOSE * 3)])
        assert key != "reason.close"
        seen_close = True
    assert seen_close
    m = MatchState(RULES[0], seed=9)
    while not m.round.over:
        v = view(m, m.round.turn)
        if len(candidates(v)) == 1:
            key, _ = reason(v, candidates(v)[0], [])
            assert key.startswith(
                ("reason.forced_play", "reason.forced_draw", "reason.forced_pass")
            )
        m.apply(rng.choice(v.legal), m.round.turn)


def test_every_reason_is_true_in_the_seat_s_own_view() -> None:
    # Over many positions: each sentence says only what the seat's view supports.
    rng = random.Random(7)
    keys: set[str] = set()
    for i, rules in enumerate(RULES):
        for v in _views(rules, i, 120):
            options = _options(v, rng)
            best = max(options, key=lambda o: o[1])[0]
            key, params = reason(v, best, options)
            assert key in KEYS
            keys.add(key.removesuffix("_L").removesuffix("_R"))
            text = tr("de", key, **params)
            assert "{" not in text and text != key, text
            if not best.is_play:
                continue
            assert best.tile is not None and v.hand is not None
            assert params.get("tile") in (None, str(best.tile))
            if "blocked" in key:
                seat = params["seat"]
                assert isinstance(seat, int) and seat != v.seat
                assert rules.side_of(seat) != rules.side_of(v.seat)
                left, right, _, _ = ends_after(v, best)
                assert params["number"] == (left if best.end == "L" else right)
                assert infer(v).lacks(seat) >> params["number"] & 1
                assert any(
                    e.seat == seat and e.kind in ("draw", "pass") and params["number"] in e.ends
                    for e in v.history
                )
            if "heavy" in key:
                assert all(best.tile.pips >= t.pips for t in v.hand)
            if "fives" in key:
                assert rules.fives and params["points"] in (5, 10, 15, 20, 25, 30, 35, 40)
            if key.startswith("reason.out"):
                assert len(v.hand) == 1
    # The random positions reach the common reasons.
    assert {"reason.blocked", "reason.heavy", "reason.margin", "reason.close"} <= keys, keys
