"""Helpers for the table tests: a fake-clock driver and the leak check.

The clock is a plain float the driver moves forward; nothing sleeps.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from domino.rules import Mode, Rules, Tile, tiles_of
from domino.table import MoveCommand, Outcome, SeatSpec, Table, Timing

TILE_RE = re.compile(r"(?<![0-9|])([0-6])\|([0-6])(?![0-9|])")
FORBIDDEN_KEYS = {"seed", "deal", "deals", "out", "lager_tiles", "hands_hidden", "order"}

# (mode, seats, pairs) for every mode and seat count, plus Paare with every mode.
CONFIGS: list[tuple[Mode, int, bool]] = [
    *((mode, n, False) for mode in Mode for n in (2, 3, 4)),
    *((mode, 4, True) for mode in Mode),
]


def config_id(cfg: tuple[Mode, int, bool]) -> str:
    mode, n, pairs = cfg
    return f"{mode.value}-{n}{'-paare' if pairs else ''}"


def human(name: str) -> SeatSpec:
    return SeatSpec("human", name, player_id=f"p-{name}")


def bot(level: str = "fortgeschritten") -> SeatSpec:
    return SeatSpec("bot", f"Bot ({level})", level=level)


def make_table(
    seats: list[SeatSpec],
    *,
    mode: Mode = Mode.KLASSISCH,
    pairs: bool = False,
    seed: str = "test-seed",
    now: float = 0.0,
    timing: Timing | None = None,
    **changes: Any,
) -> Table:
    rules = Rules.preset(mode, seats=len(seats), pairs=pairs)
    if changes:
        rules = rules.replace(**changes)
    return Table("m-test", rules, seats, seed, now, timing=timing)


def tile_texts(obj: object) -> set[str]:
    """Every tile named anywhere in a JSON-ready object, normalised to ``Tile`` text."""
    text = json.dumps(obj, ensure_ascii=False)
    return {str(Tile.of(int(a), int(b))) for a, b in TILE_RE.findall(text)}


def keys_of(obj: object) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            out |= keys_of(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= keys_of(v)
    return out


def allowed_tiles(table: Table, audience: int | None) -> set[str]:
    """The tiles ``audience`` may know of now: its own hand, the line, a revealed result."""
    m = table.match
    assert m is not None
    rnd = m.round
    allowed = {str(t) for t, _, _ in rnd.line}
    if audience is not None:
        allowed |= {str(t) for t in rnd.hand(audience)}
    if rnd.result is not None:
        for hand in rnd.result.hands:
            allowed |= {str(t) for t in hand}
    return allowed


def hidden_tiles(table: Table, audience: int | None) -> set[str]:
    """Tiles the audience must never see now: others' hands (before reveal), Lager, leftovers."""
    m = table.match
    assert m is not None
    rnd = m.round
    hidden = {str(t) for t in tiles_of(sum(1 << i for i in rnd.lager))}
    hidden |= {str(t) for t in m.deals[-1].out}
    if rnd.result is None:
        for s in range(table.rules.seats):
            if s != audience:
                hidden |= {str(t) for t in rnd.hand(s)}
    return hidden


def assert_no_leak(table: Table, audience: int | None, msg: dict[str, Any]) -> None:
    """Fail if ``msg`` names a tile its receiver may not see, the seed, or a secret key."""
    named = tile_texts(msg)
    allowed = allowed_tiles(table, audience)
    assert named <= allowed, (audience, named - allowed)
    assert not named & hidden_tiles(table, audience)
    assert table.seed not in json.dumps(msg, ensure_ascii=False)
    assert not keys_of(msg) & FORBIDDEN_KEYS


@dataclass
class Driver:
    """Plays a table to its end on a fake clock: humans pick scripted legal moves.

    ``act(seat, table, now)`` decides for a human on its turn: a move text to send
    after ``think`` seconds, or ``None`` to let the clock run. Every outcome goes
    through ``on_outcome`` (and is kept in ``outcomes``).
    """

    table: Table
    now: float = 0.0
    think: float = 1.0
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    act: Callable[[int, Table, float], str | None] | None = None
    on_outcome: Callable[[Table, Outcome], None] | None = None
    outcomes: list[Outcome] = field(default_factory=list)

    def pick(self, seat: int, table: Table, now: float) -> str | None:
        if self.act is not None:
            return self.act(seat, table, now)
        legal = table.snapshot(seat, now)["view"]["legal"]
        return str(self.rng.choice(legal))

    def human_to_move(self) -> int | None:
        t = self.table
        if t.finished or t.phase != "playing":
            return None
        assert t.match is not None
        s = t.match.round.turn
        return s if t.seats[s].bot_level is None else None

    def record(self, out: Outcome) -> Outcome:
        self.outcomes.append(out)
        if self.on_outcome is not None:
            self.on_outcome(self.table, out)
        return out

    def step(self) -> Outcome:
        """One action: a human's move (if it wants to act before its clock runs out) or advance."""
        t = self.table
        s = self.human_to_move()
        if s is not None:
            wake = t.next_wakeup()
            assert wake is not None
            if self.now + self.think < wake:
                text = self.pick(s, t, self.now + self.think)
                if text is not None:
                    self.now += self.think
                    out = t.command(s, MoveCommand(text, t.version), self.now)
                    assert out.error is None, out.error
                    return self.record(out)
        wake = t.next_wakeup()
        assert wake is not None
        self.now = max(self.now, wake)
        return self.record(t.advance(self.now))

    def run(self, max_steps: int = 20_000) -> Table:
        for _ in range(max_steps):
            if self.table.finished:
                return self.table
            self.step()
        raise AssertionError("the match did not end")

    def run_until(self, cond: Callable[[Table], bool], max_steps: int = 20_000) -> Table:
        for _ in range(max_steps):
            if cond(self.table):
                return self.table
            if self.table.finished:
                raise AssertionError("the match ended before the condition held")
            self.step()
        raise AssertionError("the condition never held")
