"""Bots see only what their seat sees (RULES.md §11).

Pairs of rounds that look identical from one seat but differ in the hidden
tiles (two tiles swapped between other hands or the Lager): every level,
seeded alike, chooses the same moves in both. And the package imports
nothing that would give it the state.
"""

import ast
import pathlib
import random

import pytest

import domino.bots
from domino.bots import LEVELS, make_bot
from domino.rules import Deal, Mode, Move, RoundState, Rules, Tile, shuffled_deal, view

CONFIGS = [
    Rules.preset(Mode.KLASSISCH, 2),
    Rules.preset(Mode.BLITZ, 3),
    Rules.preset(Mode.FUENFERFIEBER, 4),
    Rules.preset(Mode.KLASSISCH, 4, pairs=True),
]


def _replay(rules: Rules, deal: Deal, moves: list[Move]) -> RoundState | None:
    r = RoundState.start(rules, deal)
    for m in moves:
        if r.over or not r.can(m):
            return None
        r.apply(m)
    return r


def _swapped(deal: Deal, a: Tile, b: Tile) -> Deal:
    def sw(t: Tile) -> Tile:
        return b if t is a else a if t is b else t

    return Deal(
        tuple(tuple(sw(t) for t in h) for h in deal.hands),
        tuple(sw(t) for t in deal.lager),
        tuple(sw(t) for t in deal.out),
    )


def _twins(rules: Rules, seed: int, want: int) -> list[tuple[int, Deal, Deal, list[Move]]]:
    """(seat, deal, twin deal, moves): after ``moves`` the seat's views agree, hidden differ."""
    rng = random.Random(seed)
    out = []
    tries = 0
    while len(out) < want and tries < 4000:
        tries += 1
        deal = shuffled_deal(rules, seed=f"{seed}/{tries}")
        r = RoundState.start(rules, deal)
        moves: list[Move] = []
        for _ in range(rng.randrange(0, 25)):
            if r.over:
                break
            m = rng.choice(r.legal_moves())
            r.apply(m)
            moves.append(m)
        if r.over:
            continue
        seat = r.turn
        hidden = [t for s in range(rules.seats) if s != seat for t in r.hand(s)]
        lager_left = list(deal.lager[: len(r.lager)]) if rules.draws else []
        # swap a tile still held by another seat with one of another seat or the undrawn Lager
        pool = hidden + [t for t in lager_left if t not in hidden]
        if len(pool) < 2:
            continue
        a, b = rng.sample(pool, 2)
        if any(a in h and b in h for h in deal.hands) or (a in lager_left and b in lager_left):
            continue
        twin = _swapped(deal, a, b)
        r2 = _replay(rules, twin, moves)
        if r2 is None or r2.hands == r.hands:
            continue
        if view(r, seat) != view(r2, seat):
            continue
        out.append((seat, deal, twin, moves))
    return out


@pytest.mark.parametrize("k", range(len(CONFIGS)))
def test_every_level_chooses_the_same_in_rounds_that_look_the_same(k: int) -> None:
    rules = CONFIGS[k]
    twins = _twins(rules, k, 6)
    assert len(twins) >= 4
    for seat, deal, twin, moves in twins:
        for level in LEVELS:
            bot1 = make_bot(level, seed=("twin", k))
            bot2 = make_bot(level, seed=("twin", k))
            r1 = RoundState.start(rules, deal)
            r2 = RoundState.start(rules, twin)
            # Both bots watch the whole round: memory must not leak hidden tiles either.
            for m in moves:
                if r1.turn == seat:
                    assert bot1.choose(view(r1, seat)) == bot2.choose(view(r2, seat))
                r1.apply(m)
                r2.apply(m)
            assert r1.hands != r2.hands
            assert bot1.choose(view(r1, seat)) == bot2.choose(view(r2, seat))


FORBIDDEN_NAMES = {
    "RoundState",
    "MatchState",
    "Event",
    "Deal",
    "shuffled_deal",
    "view",
    "determinize",
}
FORBIDDEN_MODULES = {
    "time",
    "datetime",
    "os",
    "sys",
    "socket",
    "secrets",
    "logging",
    "domino.rules.round",
    "domino.rules.match",
    "domino.rules.deal",
    "domino.table",
    "domino.server",
}


def _bot_sources() -> list[pathlib.Path]:
    root = pathlib.Path(domino.bots.__file__).parent
    return sorted(p for p in root.glob("*.py") if p.name != "plot.py")


def test_bots_import_nothing_that_gives_them_the_state_or_a_clock() -> None:
    files = _bot_sources()
    assert len(files) >= 5
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name not in FORBIDDEN_MODULES, (path.name, alias.name)
            elif isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                assert mod not in FORBIDDEN_MODULES, (path.name, mod)
                for alias in node.names:
                    assert alias.name not in FORBIDDEN_NAMES, (path.name, alias.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                # the global generator is off limits: only random.Random(seed)
                assert node.attr == "Random", (path.name, node.attr)
