"""RULES.md §10 on a fake clock: timeouts, stand-ins, leaving, disconnecting."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from table_support import Driver, bot, human, make_table

from domino.bots import auto_move
from domino.i18n import t as tr
from domino.rules import WITH, Mode, view
from domino.table import BACK_COMMAND, LEAVE_COMMAND, MoveCommand, SeatSpec, Table


def find_table(
    pred: Callable[[Table], bool], seats: list[SeatSpec], prefix: str, **kw: Any
) -> Table:
    """The first seeded table (seed ``prefix-i``) for which ``pred`` holds at the start."""
    for i in range(2000):
        table = make_table(seats, seed=f"{prefix}-{i}", **kw)
        if pred(table):
            return table
    raise AssertionError("no seed found")


def turn_legal(table: Table) -> list[str]:
    m = table.match
    assert m is not None
    return [str(mv) for mv in m.round.legal_moves()]


def lager_fits(table: Table) -> bool:
    m = table.match
    assert m is not None
    r = m.round
    ends = WITH[r.left] | WITH[r.right]
    return any((1 << i) & ends for i in r.lager)


def expire(table: Table) -> dict[str, Any]:
    """Let the running human clock run out; return the timeout entry."""
    wake = table.next_wakeup()
    assert wake is not None and table.remaining(wake - 0.001) is not None
    out = table.advance(wake)
    [entry] = [e for e in out.entries if e["kind"] == "timeout"]
    return entry


def test_timeout_plays_fortgeschrittens_choice() -> None:
    table = find_table(
        lambda t: any(m != "D" for m in turn_legal(t)), [human("A"), human("B")], "to-play"
    )
    m = table.match
    assert m is not None
    s = m.round.turn
    expected = str(auto_move(view(m, s)))
    # Nothing happens a moment before the end of the turn.
    assert table.advance(table.rules.turn_seconds - 0.01).entries == []
    out = table.advance(100.0)
    entry = out.entries[0]
    assert entry["kind"] == "timeout" and entry["seat"] == s
    assert entry["t"] == table.rules.turn_seconds  # fired at the deadline, not at "now"
    assert entry["payload"] == {"moves": [expected], "standin": False}
    events = dict(out.messages)[None]["events"]
    assert events[0] == {"kind": "timeout", "seat": s}
    assert events[1]["kind"] == "play" and events[1]["seat"] == s


def test_timeout_draws_until_a_tile_fits_then_plays() -> None:
    table = find_table(
        lambda t: turn_legal(t) == ["D"] and lager_fits(t), [human("A"), human("B")], "to-draw"
    )
    m = table.match
    assert m is not None
    s = m.round.turn
    entry = expire(table)
    moves = entry["payload"]["moves"]
    assert len(moves) >= 2 and set(moves[:-1]) == {"D"} and moves[-1] not in ("D", "P")
    assert m.round.turn != s  # the whole turn was taken
    snap = table.snapshot(None, entry["t"])
    drawn = len(moves) - 1
    history = snap["view"]["history"]
    # The server moved for the human: the history says so ("auto"), as do the events.
    assert history[-drawn - 1 : -1] == [{"seat": s, "kind": "draw", "auto": True}] * drawn
    assert history[-1]["kind"] == "play" and history[-1]["auto"] is True


def test_timeout_draws_the_lager_empty_then_passes() -> None:
    def stuck(t: Table) -> bool:
        m = t.match
        assert m is not None
        r = m.round
        ends = WITH[r.left] | WITH[r.right]
        others = any(r.hands[i] & ends for i in range(r.n) if i != r.turn)
        return turn_legal(t) == ["D"] and not lager_fits(t) and others

    for i in range(200):
        table = make_table([human("A"), human("B")], seed=f"to-drawpass-{i}")
        entry: dict[str, Any] | None = None

        def act(seat: int, t: Table, now: float) -> str | None:
            if stuck(t):
                return None  # let this turn run out
            legal = t.snapshot(seat, now)["view"]["legal"]
            return str(legal[0])

        driver = Driver(table, act=act)
        while not table.finished:
            out = driver.step()
            timeouts = [e for e in out.entries if e["kind"] == "timeout"]
            if timeouts:
                entry = timeouts[0]
                break
        if entry is not None:
            moves = entry["payload"]["moves"]
            assert moves[-1] == "P" and set(moves[:-1]) == {"D"} and len(moves) >= 2
            m = table.match
            assert m is not None and m.round.lager == []
            return
    raise AssertionError("no draw-then-pass situation found")


def test_timeout_passes_when_nothing_fits_and_nothing_can_be_drawn() -> None:
    table = find_table(
        lambda t: turn_legal(t) == ["P"],
        [human("A"), human("B"), human("C")],
        "to-pass",
        mode=Mode.ZUGEMAUERT,
    )
    entry = expire(table)
    assert entry["payload"]["moves"] == ["P"]


def never_acts(seat: int) -> Callable[[int, Table, float], str | None]:
    def act(s: int, t: Table, now: float) -> str | None:
        if s == seat:
            return None
        return str(t.snapshot(s, now)["view"]["legal"][0])

    return act


def my_turn(seat: int) -> Callable[[Table], bool]:
    def cond(t: Table) -> bool:
        return t.phase == "playing" and t.match is not None and t.match.round.turn == seat

    return cond


def run_until_kind(driver: Driver, kind: str, seat: int) -> dict[str, Any]:
    while True:
        out = driver.step()
        for e in out.entries:
            if e["kind"] == kind and e["seat"] == seat:
                return e


def test_two_expired_turns_in_a_row_bring_a_standin_and_back_ends_it() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="standin")
    driver = Driver(table, act=never_acts(0))
    first = run_until_kind(driver, "timeout", 0)
    assert first["payload"]["standin"] is False and not table.seats[0].standin
    second = run_until_kind(driver, "timeout", 0)
    assert second["payload"]["standin"] is True and table.seats[0].standin
    msg = dict(driver.outcomes[-1].messages)[1]
    assert msg["seats"][0]["standin"] is True
    assert {"kind": "standin", "seat": 0} in msg["events"]
    kinds = [e["kind"] for e in msg["events"]]
    moved = [i for i, k in enumerate(kinds) if k in ("draw", "play", "pass")]
    assert kinds[0] == "timeout" and moved and moved[-1] < kinds.index("standin")
    assert all(msg["events"][i].get("auto") is True for i in moved)
    # From now on a bot (Fortgeschritten) plays seat 0, after a natural delay; its
    # moves are marked as made for the human ("auto"), Ben's own are not.
    entry = run_until_kind(driver, "bot", 0)
    bot_events = [
        e for _, m in driver.outcomes[-1].messages for e in m["events"] if e.get("seat") == 0
    ]
    assert bot_events and all(e.get("auto") is True for e in bot_events)
    own = [
        e
        for o in driver.outcomes
        for _, m in o.messages
        for e in m["events"]
        if e.get("seat") == 1 and e["kind"] in ("play", "draw", "pass")
    ]
    assert own and not any(e.get("auto") for e in own)
    m = table.match
    assert m is not None
    # "Ich bin wieder da": the bot stands down, the seat's clock runs again.
    now = driver.now + 0.1
    out = table.command(0, BACK_COMMAND, now)
    assert [e["kind"] for e in out.entries] == ["back"] and out.error is None
    assert not table.seats[0].standin
    assert dict(out.messages)[0]["seats"][0]["standin"] is False
    assert entry["t"] < now
    # The next turn of seat 0 is the human's again: a clock, no bot.
    driver.now = now
    driver.act = None
    driver.run_until(my_turn(0))
    assert table.remaining(driver.now) is not None


def test_a_move_makes_the_standin_stand_down() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="standin-move")
    driver = Driver(table, act=never_acts(0))
    run_until_kind(driver, "timeout", 0)
    run_until_kind(driver, "timeout", 0)
    assert table.seats[0].standin
    # Wait until seat 0 is to move again; the stand-in bot is about to play.
    driver.run_until(my_turn(0))
    assert table.remaining(driver.now) is None  # no human clock while the bot stands in
    due = table.next_wakeup()
    assert due is not None
    legal = table.snapshot(0, driver.now)["view"]["legal"]
    out = table.command(0, MoveCommand(legal[0], table.version), due - 0.01)
    assert out.error is None
    assert [e["kind"] for e in out.entries] == ["back", "move"]
    assert not table.seats[0].standin and table.seats[0].expired == 0


def test_a_refused_move_still_ends_the_standin() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="standin-stale")
    driver = Driver(table, act=never_acts(0))
    run_until_kind(driver, "timeout", 0)
    run_until_kind(driver, "timeout", 0)
    out = table.command(0, MoveCommand("D", 1), driver.now)
    assert [e["kind"] for e in out.entries] == ["back"]
    assert out.error is not None and out.error.code == "stale_version"
    assert not table.seats[0].standin


def test_expiries_must_be_consecutive() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="consecutive")
    count = {"turns": 0}

    def act(s: int, t: Table, now: float) -> str | None:
        if s == 0:
            count["turns"] += 1
            if count["turns"] % 2 == 1:
                return None  # every other turn of seat 0 runs out
        return str(t.snapshot(s, now)["view"]["legal"][0])

    driver = Driver(table, act=act)
    driver.run()
    timeouts = [e for e in table.log if e["kind"] == "timeout"]
    assert len(timeouts) >= 2
    assert not any(e["payload"]["standin"] for e in timeouts)
    assert not any(e["kind"] == "bot" for e in table.log)


def test_leaving_hands_the_seat_to_a_bot_for_good() -> None:
    table = make_table([human("Anna"), human("Ben"), bot()], seed="leave")
    driver = Driver(table)
    for _ in range(5):
        driver.step()
    out = table.command(0, LEAVE_COMMAND, driver.now)
    assert [e["kind"] for e in out.entries] == ["leave"]
    assert table.seats[0].left and not table.finished
    msg = dict(out.messages)[1]
    assert msg["seats"][0] == {
        "seat": 0,
        "name": "Anna",
        "kind": "human",
        "level": None,
        "side": 0,
        "connected": True,
        "standin": False,
        "left": True,
    }
    back = table.command(0, BACK_COMMAND, driver.now)
    assert back.error is not None and back.error.code == "left_match"
    assert back.error.message == tr("left_match")
    driver.run()
    assert any(e["kind"] == "bot" and e["seat"] == 0 for e in table.log)
    assert table.xp is not None and table.xp[0] is None and table.xp[1] is not None
    # The points stay in the standings under the player's name.
    final = dict(driver.outcomes[-1].messages)[None]
    assert final["seats"][0]["name"] == "Anna"
    assert 0 in [s for st in final["standings"] for s in st["seats"]]


def test_leaving_on_the_own_turn_lets_the_bot_move_after_a_delay() -> None:
    table = find_table(lambda t: True, [human("Anna"), human("Ben")], "leave-turn")
    m = table.match
    assert m is not None
    s = m.round.turn
    out = table.command(s, LEAVE_COMMAND, 3.0)
    assert out.entries[0]["kind"] == "leave"
    due = table.next_wakeup()
    lo, hi = table.timing.bot_delay
    assert due is not None and 3.0 + lo <= due <= 3.0 + hi
    out = table.advance(due)
    assert out.entries[0]["kind"] == "bot" and out.entries[0]["seat"] == s


def test_when_every_human_left_the_match_ends_at_once() -> None:
    table = make_table([human("Anna"), bot(), human("Cleo")], seed="all-left")
    driver = Driver(table)
    for _ in range(4):
        driver.step()
    assert [e["kind"] for e in table.command(0, LEAVE_COMMAND, driver.now).entries] == ["leave"]
    out = table.command(2, LEAVE_COMMAND, driver.now)
    assert [e["kind"] for e in out.entries] == ["leave", "end"]
    assert out.finished and table.finished and table.finished_reason == "abandoned"
    assert table.xp == [None, None, None]
    assert table.next_wakeup() is None
    for _audience, msg in out.messages:
        assert msg["phase"] == "match_over" and msg["view"]["legal"] == []
        assert msg["clock"]["seat"] is None
    late = table.command(0, MoveCommand("D", table.version), driver.now)
    assert late.error is not None and late.error.code == "match_over"
    assert table.advance(driver.now + 100).entries == []


def test_a_disconnected_player_keeps_the_seat_and_the_clock_runs() -> None:
    table = make_table([human("Anna"), human("Ben")], seed="disconnect")
    m = table.match
    assert m is not None
    s = m.round.turn
    v = table.version
    out = table.set_connected(s, False, 1.0)
    assert out.entries == [] and table.version == v
    msg = dict(out.messages)[None]
    assert msg["seats"][s]["connected"] is False
    assert msg["events"] == [{"kind": "disconnected", "seat": s}]
    assert table.set_connected(s, False, 1.5).messages == []  # no change, no message
    entry = expire(table)
    assert entry["seat"] == s
    out = table.set_connected(s, True, 30.0)
    assert dict(out.messages)[s]["events"] == [{"kind": "connected", "seat": s}]


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_match_nobody_plays_ends_by_timeouts_and_standins(seats: int) -> None:
    table = make_table([human(f"H{i}") for i in range(seats)], seed=f"idle-{seats}")
    driver = Driver(table, act=lambda s, t, now: None)
    driver.run()
    assert table.finished_reason in ("target", "rounds")
    # Each seat ran out twice, then bots stood in for the rest.
    for s in range(seats):
        assert len([e for e in table.log if e["kind"] == "timeout" and e["seat"] == s]) == 2
        assert table.seats[s].standin
    # Players who never came back still finished the match: they get XP.
    assert table.xp is not None and all(x is not None and x >= 10 for x in table.xp)
