"""Nothing lost: a table rebuilt from its log is the same table, its clocks re-armed."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from table_support import Driver, bot, human, make_table

import domino.table.table as table_module
from domino.rules import Mode
from domino.table import LEAVE_COMMAND, MoveCommand, RestoreError, SeatSpec, Table

GAP = 500.0  # how long the server was down


def rebuild(table: Table, now: float) -> Table:
    # Through JSON, as the server stores it.
    log = json.loads(json.dumps(table.log))
    return Table.restore(
        table.match_id,
        table.rules,
        [s.spec for s in table.seats],
        table.seed,
        log,
        now,
        timing=table.timing,
    )


def comparable(msg: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(msg))
    del out["clock"]
    for s in out["seats"]:
        del s["connected"]  # after a restart everybody connects again
    return out


def assert_same_table(orig: Table, rest: Table, now: float) -> None:
    last = orig.log[-1]["t"]
    for a in [*range(orig.rules.seats), None]:
        a_msg, b_msg = orig.snapshot(a, last), rest.snapshot(a, now)
        assert comparable(a_msg) == comparable(b_msg)
        ca, cb = a_msg["clock"], b_msg["clock"]
        assert ca["seat"] == cb["seat"] and ca["turn_seconds"] == cb["turn_seconds"]
        if ca["remaining_ms"] is None:
            assert cb["remaining_ms"] is None
        else:
            # Remaining time plus the grace period.
            grace_ms = round(orig.timing.grace * 1000)
            assert cb["remaining_ms"] == ca["remaining_ms"] + grace_ms
        assert ca["next_round_ms"] == cb["next_round_ms"]
    wo, wr = orig.next_wakeup(), rest.next_wakeup()
    if wo is None:
        assert wr is None
    else:
        assert wr is not None
        extra = orig.timing.grace if orig.remaining(last) is not None else 0.0
        assert wr - now == pytest.approx(wo - last + extra)
    assert rest.version == orig.version and rest.finished == orig.finished
    assert [(s.standin, s.left, s.expired) for s in rest.seats] == [
        (s.standin, s.left, s.expired) for s in orig.seats
    ]


def sometimes_idle(seat: int, t: Table, now: float) -> str | None:
    """Seat 0 lets every third of its turns run out; everyone else plays the first legal move."""
    if seat == 0 and t.version % 3 == 0:
        return None
    return str(t.snapshot(seat, now)["view"]["legal"][0])


def run_in_lockstep(orig: Table, orig_now: float, rest: Table, rest_now: float) -> None:
    """Play on both tables with the same script: the logs must agree entry for entry."""
    a = Driver(orig, now=orig_now, act=sometimes_idle)
    b = Driver(rest, now=rest_now, act=sometimes_idle)
    a.run()
    b.run()
    strip = [{k: e[k] for k in ("v", "seat", "kind", "payload")} for e in orig.log]
    assert strip == [{k: e[k] for k in ("v", "seat", "kind", "payload")} for e in rest.log]
    assert rest.xp == orig.xp and rest.finished_reason == orig.finished_reason


SEATS: list[SeatSpec] = [human("Anna"), bot("profi"), human("Cleo")]


@pytest.mark.parametrize("steps", [0, 1, 7, 23, 40])
def test_restore_mid_match_gives_identical_snapshots_and_rearmed_clocks(steps: int) -> None:
    orig = make_table(SEATS, seed="restore")
    driver = Driver(orig, act=sometimes_idle)
    for _ in range(steps):
        driver.step()
    assert not orig.finished
    now = driver.now + GAP
    rest = rebuild(orig, now)
    assert_same_table(orig, rest, now)
    assert all(not s.connected for s in rest.seats if s.spec.kind == "human")
    run_in_lockstep(orig, driver.now, rest, now)


def test_restore_in_every_phase_and_seat_state() -> None:
    orig = make_table(
        [human("Anna"), human("Ben"), bot("anfaenger"), human("Dora")],
        mode=Mode.FUENFERFIEBER,
        seed="phases",
    )

    def act(seat: int, t: Table, now: float) -> str | None:
        if seat == 0:
            return None  # seat 0 is away: timeouts, then a stand-in
        return str(t.snapshot(seat, now)["view"]["legal"][-1])

    driver = Driver(orig, act=act)
    seen: set[str] = set()
    left = False
    while not orig.finished:
        out = driver.step()
        if out.entries:
            state = orig.phase
            if orig.seats[0].standin:
                state += "+standin"
            if orig.match is not None and orig.match.round.drew and orig.phase == "playing":
                state += "+drew"
            if state not in seen:
                seen.add(state)
                now = driver.now + GAP
                assert_same_table(orig, rebuild(orig, now), now)
        if not left and orig.match is not None and orig.match.round_no == 2:
            orig.command(3, LEAVE_COMMAND, driver.now)
            left = True
    now = driver.now + GAP
    assert_same_table(orig, rebuild(orig, now), now)
    assert {"playing", "playing+standin", "playing+standin+drew"} <= seen
    assert any(state.startswith("round_over") for state in seen)


def test_replaying_never_asks_a_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    orig = make_table([human("Anna"), bot("profi"), bot("anfaenger")], seed="no-bots")
    Driver(orig, act=lambda s, t, now: None).run()
    assert any(e["kind"] == "bot" for e in orig.log)
    assert any(e["kind"] == "timeout" for e in orig.log)

    def refuse(*args: object, **kwargs: object) -> Any:
        raise AssertionError("a bot was asked during the replay")

    monkeypatch.setattr(table_module, "make_bot", refuse)
    monkeypatch.setattr(table_module, "auto_move", refuse)
    rest = rebuild(orig, 10_000.0)
    assert rest.finished and rest.xp == orig.xp


def broken(log: list[dict[str, Any]], change: Callable[[list[dict[str, Any]]], None]) -> None:
    bad = json.loads(json.dumps(log))
    change(bad)
    with pytest.raises(RestoreError):
        Table.restore("m", make_table(SEATS).rules, SEATS, "restore", bad, 0.0)


def test_a_log_that_does_not_fit_is_refused() -> None:
    orig = make_table(SEATS, seed="restore")
    driver = Driver(orig, act=sometimes_idle)
    for _ in range(15):
        driver.step()
    log = orig.log

    def skip_version(b: list[dict[str, Any]]) -> None:
        del b[3]

    assert orig.match is not None
    opening = orig.match.rounds[0].log[0].tile

    def bad_move(b: list[dict[str, Any]]) -> None:
        moves = [e for e in b if e["kind"] in ("move", "bot")]
        moves[0]["payload"]["move"] = f"{opening} L"  # on the table: in nobody's hand

    def no_start(b: list[dict[str, Any]]) -> None:
        b[0]["kind"] = "round"

    def unknown_kind(b: list[dict[str, Any]]) -> None:
        b[-1]["kind"] = "teleport"

    def early_end(b: list[dict[str, Any]]) -> None:
        b.append(
            {
                "v": len(b) + 1,
                "t": 99.0,
                "seat": None,
                "kind": "end",
                "payload": {"reason": "target"},
            }
        )

    def no_seat(b: list[dict[str, Any]]) -> None:
        next(e for e in b if e["kind"] == "move")["seat"] = None

    for change in (skip_version, bad_move, no_start, unknown_kind, early_end, no_seat):
        broken(log, change)
    with pytest.raises(RestoreError):
        Table.restore("m", orig.rules, SEATS, "restore", [], 0.0)


def test_a_log_cut_before_its_end_entry_ends_the_match_on_the_next_wakeup() -> None:
    orig = make_table([human("Anna"), bot()], seed="cut")
    Driver(orig).run()
    assert orig.log[-1]["kind"] == "end"
    cut = json.loads(json.dumps(orig.log[:-1]))
    rest = Table.restore(orig.match_id, orig.rules, [s.spec for s in orig.seats], orig.seed, cut, 0)
    assert not rest.finished
    wake = rest.next_wakeup()
    assert wake is not None
    out = rest.advance(wake)
    assert [e["kind"] for e in out.entries] == ["end"] and out.finished
    assert rest.finished_reason == orig.finished_reason and rest.xp == orig.xp


def test_a_log_cut_after_the_last_human_left_ends_the_match() -> None:
    orig = make_table([human("Anna"), bot()], seed="cut-leave")
    out = orig.command(0, LEAVE_COMMAND, 0.5)
    assert [e["kind"] for e in out.entries] == ["leave", "end"]
    cut = json.loads(json.dumps(orig.log[:-1]))
    rest = Table.restore(orig.match_id, orig.rules, [s.spec for s in orig.seats], orig.seed, cut, 9)
    wake = rest.next_wakeup()
    assert wake is not None
    assert [e["kind"] for e in rest.advance(wake).entries] == ["end"]
    assert rest.finished_reason == "abandoned"


def test_a_clock_that_steps_back_never_writes_entries_out_of_order() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="skew", now=100.0)
    assert table.match is not None
    s = table.match.round.turn
    legal = table.snapshot(s, 100.0)["view"]["legal"]
    out = table.command(s, MoveCommand(legal[0], table.version), 50.0)
    assert out.error is None and out.entries[0]["t"] == 100.0
    times = [e["t"] for e in table.log]
    assert times == sorted(times)
