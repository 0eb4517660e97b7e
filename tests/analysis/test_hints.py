"""A hint (domino.analysis.hints) uses the seat's view only: rounds that look the same
from the seat but hide the tiles elsewhere give the same hint (the bots' boundary test,
tests/bots/test_information_boundary.py, for hints); and it is Meister's choice."""

from __future__ import annotations

import ast
import pathlib
import random

import pytest

import domino.analysis.hints as hints_module
import domino.analysis.reasons as reasons_module
from domino.analysis.hints import hint
from domino.bots.meister import Meister, candidates
from domino.rules import Deal, Mode, Move, RoundState, Rules, Tile, shuffled_deal, view

CONFIGS = [
    Rules.preset(Mode.KLASSISCH, 2),
    Rules.preset(Mode.FUENFERFIEBER, 3),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
]


def _swapped(deal: Deal, a: Tile, b: Tile) -> Deal:
    def sw(t: Tile) -> Tile:
        return b if t is a else a if t is b else t

    return Deal(
        tuple(tuple(sw(t) for t in h) for h in deal.hands),
        tuple(sw(t) for t in deal.lager),
        tuple(sw(t) for t in deal.out),
    )


def _twins(rules: Rules, seed: int, want: int) -> list[tuple[RoundState, RoundState, int]]:
    """Pairs of rounds whose views agree for the seat to move while the hidden tiles
    differ (two hidden tiles swapped between other hands or the Lager)."""
    rng = random.Random(seed)
    out = []
    tries = 0
    while len(out) < want and tries < 4000:
        tries += 1
        deal = shuffled_deal(rules, seed=f"hint{seed}/{tries}")
        r = RoundState.start(rules, deal)
        moves: list[Move] = []
        for _ in range(rng.randrange(2, 20)):
            if r.over:
                break
            m = rng.choice(r.legal_moves())
            r.apply(m)
            moves.append(m)
        if r.over:
            continue
        seat = r.turn
        v = view(r, seat)
        if len(candidates(v)) < 2:
            continue
        hidden = [t for s in range(rules.seats) if s != seat for t in r.hand(s)]
        lager = list(deal.lager[: len(r.lager)]) if rules.draws else []
        pool = hidden + [t for t in lager if t not in hidden]
        if len(pool) < 2:
            continue
        a, b = rng.sample(pool, 2)
        if any(a in h and b in h for h in deal.hands) or (a in lager and b in lager):
            continue
        r2 = RoundState.start(rules, _swapped(deal, a, b))
        try:
            for m in moves:
                r2.apply(m)
        except Exception:
            continue
        if r2.hands == r.hands or view(r2, seat) != v:
            continue
        out.append((r, r2, seat))
    return out


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_a_hint_is_the_same_in_rounds_that_look_the_same_from_the_seat(k: int) -> None:
    twins = _twins(CONFIGS[k], k, 5)
    assert len(twins) >= 4
    for r1, r2, seat in twins:
        assert r1.hands != r2.hands  # the hidden tiles differ ...
        h1 = hint(view(r1, seat), "seed", playouts=240)
        h2 = hint(view(r2, seat), "seed", playouts=240)
        assert h1 == h2  # ... and the hint does not know it


def test_the_hint_is_meister_s_move_with_its_values() -> None:
    m = RoundState.start(CONFIGS[1], shuffled_deal(CONFIGS[1], seed="m1"))
    rng = random.Random(2)
    checked = 0
    while not m.over and checked < 5:
        v = view(m, m.turn)
        if len(candidates(v)) >= 2:
            h = hint(v, f"s{checked}", playouts=240)
            assert h["move"] == str(Meister(f"s{checked}", playouts=240).choose(v))
            values = [o["value"] for o in h["options"]]
            assert values == sorted(values, reverse=True) and h["options"][0]["move"] == h["move"]
            assert {o["move"] for o in h["options"]} == {str(c) for c in candidates(v)}
            checked += 1
        m.apply(rng.choice(m.legal_moves()))
    assert checked == 5


def test_hints_and_reasons_import_nothing_that_gives_them_the_state() -> None:
    forbidden = {"RoundState", "MatchState", "Deal", "view", "shuffled_deal", "Event"}
    for mod in (hints_module, reasons_module):
        tree = ast.parse(pathlib.Path(mod.__file__ or "").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not str(node.module).startswith(("domino.table", "domino.server"))
                assert not {a.name for a in node.names} & forbidden, (mod.__name__, node.module)
            elif isinstance(node, ast.Import):
                assert all(a.name not in ("time", "os") for a in node.names)
