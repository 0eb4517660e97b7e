"""Hidden information stays hidden (DESIGN.md): every message to every audience, all modes.

Captures every message the table produces over whole matches in every mode
and seat count (humans, bots, stand-ins, leavers, spectators), plus the
snapshots of reconnects and of tables restored from the log, and proves that
none names a tile its receiver may not see: another seat's hand before the
round's reveal, any tile of the Lager (so never its order), the *Lager Aus*
leftovers, and never the seed.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from table_support import (
    CONFIGS,
    FORBIDDEN_KEYS,
    Driver,
    assert_no_leak,
    bot,
    config_id,
    hidden_tiles,
    human,
    keys_of,
    make_table,
    tile_texts,
)

from domino.rules import Mode
from domino.table import BACK_COMMAND, LEAVE_COMMAND, MoveCommand, Outcome, SeatSpec, Table


class Watcher:
    """Checks each outcome, and now and then a reconnect and a restore."""

    def __init__(self) -> None:
        self.messages = 0
        self.revealed = 0
        self.restores = 0
        self.changes = 0
        self.histories = 0
        self.public: dict[int, set[str]] = {}

    def check_all(self, table: Table, msgs: list[tuple[int | None, dict[str, Any]]]) -> None:
        for audience, msg in msgs:
            assert_no_leak(table, audience, msg)
            self.messages += 1
            if msg["view"]["result"] is not None:
                self.revealed += 1
                # What the round made public: its line and its reveal.
                view = msg["view"]
                shown = [view["line"], view["result"]["hands"]]
                self.public[view["round"]] = tile_texts(shown)

    def check_history(self, table: Table) -> None:
        """The earlier rounds' public events name only tiles their round made public."""
        assert table.match is not None
        rounds = table.earlier_rounds()
        assert [r["round"] for r in rounds] == list(range(1, table.match.round_no))
        for r in rounds:
            assert tile_texts(r["events"]) <= self.public[r["round"]], r
            assert not keys_of(r["events"]) & FORBIDDEN_KEYS
            assert all("tile" not in e for e in r["events"] if e["kind"] == "draw")
            assert table.seed not in json.dumps(r)
            self.histories += 1 if r["events"] else 0

    def __call__(self, table: Table, out: Outcome) -> None:
        self.check_all(table, out.messages)
        if out.error is not None:
            assert table.seed not in json.dumps([out.error.message, out.error.params])
        if not out.entries:
            return
        now = out.entries[-1]["t"]
        self.changes += 1
        if self.changes % 5 == 0:
            # A reconnect: the plain snapshot for each audience, and the earlier rounds.
            self.check_all(table, table.snapshots(now))
            self.check_history(table)
        if self.changes % 12 == 0:
            rest = Table.restore(
                table.match_id,
                table.rules,
                [s.spec for s in table.seats],
                table.seed,
                json.loads(json.dumps(table.log)),
                now + 300.0,
                timing=table.timing,
            )
            self.restores += 1
            # Same state as the original table, so the same tiles are allowed.
            self.check_all(table, rest.snapshots(now + 300.0))
            for seat in range(table.rules.seats):
                self.check_all(table, rest.set_connected(seat, True, now + 300.0).messages)


def seats_for(n: int, cfg_no: int) -> list[SeatSpec]:
    seats = [human("Anna")]
    for i in range(1, n):
        seats.append(human(f"H{i}") if (i + cfg_no) % 2 else bot(("profi", "anfaenger")[i % 2]))
    return seats


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_no_message_names_a_tile_its_receiver_may_not_see(cfg: tuple[Mode, int, bool]) -> None:
    mode, n, pairs = cfg
    cfg_no = CONFIGS.index(cfg)
    seed = f"secret-seed-{config_id(cfg)}-8f3a"
    table = make_table(seats_for(n, cfg_no), mode=mode, pairs=pairs, seed=seed)
    rng = random.Random(cfg_no)
    watcher = Watcher()
    leaver = next((i for i in range(1, n) if table.seats[i].spec.kind == "human"), None)

    def act(seat: int, t: Table, now: float) -> str | None:
        if rng.random() < 0.3:
            return None  # let the clock run: timeouts, now and then a stand-in
        if rng.random() < 0.05:
            # A stale command: the error goes to the sender only.
            out = t.command(seat, MoveCommand("0|0 L", t.version - 1), now)
            assert out.error is not None
            watcher(t, out)
        legal = t.snapshot(seat, now)["view"]["legal"]
        return str(rng.choice(legal))

    driver = Driver(table, act=act, on_outcome=watcher)
    while not table.finished:
        assert table.match is not None
        for seat, st in enumerate(table.seats):
            if st.standin and rng.random() < 0.05:
                watcher(table, table.command(seat, BACK_COMMAND, driver.now))
        if leaver is not None and table.match.round_no >= 2 and not table.seats[leaver].left:
            watcher(table, table.command(leaver, LEAVE_COMMAND, driver.now))
        driver.step()
    kinds = {e["kind"] for e in table.log}
    assert {"timeout", "move"} <= kinds
    if leaver is not None and table.match is not None and table.match.round_no >= 2:
        assert "leave" in kinds
    assert watcher.messages > 50 and watcher.revealed > 0 and watcher.restores > 0
    if table.match is not None and table.match.round_no >= 2:
        assert watcher.histories > 0
    # The final snapshots (standings, XP) too.
    watcher.check_all(table, table.snapshots(driver.now))


def test_the_leak_check_itself_catches_leaks() -> None:
    """The checker fails on another seat's tile, the seed, a Lager tile or a secret key."""
    table = make_table([human("Anna"), human("Ben")], seed="checker-seed")
    msg = table.snapshot(0, 0.0)
    assert_no_leak(table, 0, msg)
    other = sorted(hidden_tiles(table, 0))
    for bad in (
        {**msg, "extra": other[0]},
        {**msg, "events": [{"kind": "draw", "seat": 0, "tile": other[-1]}]},
        {**msg, "note": "checker-seed"},
        {**msg, "lager_tiles": []},
    ):
        with pytest.raises(AssertionError):
            assert_no_leak(table, 0, bad)
    # A spectator may not see seat 0's hand either.
    with pytest.raises(AssertionError):
        assert_no_leak(table, None, msg)


def test_lager_aus_leftovers_stay_hidden_after_the_reveal() -> None:
    table = make_table([human("Anna"), bot(), human("Cleo")], mode=Mode.ZUGEMAUERT, seed="aus")
    driver = Driver(table)
    driver.run_until(lambda t: t.phase == "round_over")
    m = table.match
    assert m is not None
    leftovers = {str(t) for t in m.deals[-1].out}
    assert len(leftovers) == 7
    for audience, msg in driver.outcomes[-1].messages:
        assert_no_leak(table, audience, msg)
        text = json.dumps(msg)
        assert not any(t in text for t in leftovers)
