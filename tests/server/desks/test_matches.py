"""Whole matches over the socket: humans, bots, spectators, clocks, leaving, reconnecting."""

from __future__ import annotations

import json
import random

from domino.rules.record import replay

from ..harness import Harness, answered, latest_state, lobby_with_bots, play_out, start


def test_two_humans_a_bot_and_a_spectator_play_a_whole_match(h: Harness) -> None:
    anna, ben, zoe = h.person("Anna"), h.person("Ben"), h.person("Zoe")
    lobby = lobby_with_bots(anna, 3, ["profi"], {"target": 30}, joiners=(ben,))
    zoe.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
    first = start(anna)
    assert first["you"] == 0 and first["view"]["hand"]
    assert ben.recv_type("match_started")["seat"] == 1
    assert zoe.recv_type("match_started")["seat"] is None
    play_out(h, [anna, ben], random.Random(1))
    for c in (anna, ben, zoe):
        last = latest_state(c)
        assert last is not None and last["phase"] == "match_over"
    assert latest_state(zoe)["you"] is None  # type: ignore[index]
    # XP stored and told: both humans finished, so both got at least the 10 for taking part.
    for c in (anna, ben):
        prof = c.last_of("profile")
        assert prof["profile"]["played"] == 1 and prof["profile"]["xp"] >= 10
    page = h.tc.get(f"/api/profiles/{anna.profile['id']}").json()
    assert page["profile"]["played"] == 1
    mid = page["recent"][0]["match"]
    summary = h.tc.get(f"/api/matches/{mid}").json()
    assert summary["status"] == "finished" and summary["record"]["format"] == "domino-record"
    final = latest_state(anna)
    assert final is not None
    points = [s["points"] for s in sorted(final["standings"], key=lambda s: s["side"])]
    assert list(replay(summary["record"]).scores) == points  # the record replays the match
    # The lobby opens again for another match with the same seats.
    lob = anna.last_of("lobby")  # settle() waited for the end's bookkeeping
    assert lob["lobby"]["status"] == "open"
    assert lob["lobby"]["can_start"]


def test_an_idle_player_times_out_twice_then_a_bot_stands_in_until_back(h: Harness) -> None:
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    st = start(anna)
    mid = st["match_id"]
    seen: set[str] = set()
    # Let Anna's clock run out until a stand-in appears.
    for _ in range(400):
        assert h.step()
        for m in anna.drain():
            if m["type"] == "state":
                seen.update(e["kind"] for e in m["events"])
        if "standin" in seen:
            break
    assert {"timeout", "standin"} <= seen
    last = latest_state(anna)
    assert last is not None and last["seats"][0]["standin"]
    anna.send({"type": "back", "match": mid})
    back = anna.recv_until(lambda m: m["type"] == "state" and not m["seats"][0]["standin"])
    assert any(e["kind"] == "back" for e in back["events"])


def test_a_player_who_leaves_is_replaced_and_an_all_bot_match_ends(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 3, ["fortgeschritten"], joiners=(ben,))
    st = start(anna)
    mid = st["match_id"]
    anna.send({"type": "leave_match", "match": mid})
    left = anna.recv_until(lambda m: m["type"] == "state" and m["seats"][0]["left"])
    assert left["seats"][0]["left"]
    # Anna no longer has a seat: her commands are refused (she left; the bot plays on).
    anna.expect_error({"type": "move", "match": mid, "move": "D", "v": left["v"]}, "left_match")
    ben.send({"type": "leave_match", "match": mid})
    end = ben.recv_until(lambda m: m["type"] == "state" and m["phase"] == "match_over")
    assert end["finished_reason"] == "abandoned"
    h.settle()
    assert mid not in h.service.runners
    row = h.tc.get(f"/api/profiles/{ben.profile['id']}").json()
    assert row["profile"]["played"] == 0 and row["profile"]["xp"] == 0  # leavers get nothing


def test_reconnect_with_the_same_token_gives_the_seat_at_once(h: Harness) -> None:
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["profi"])
    st = start(anna)
    for _ in range(3):
        h.step()
    before = latest_state(anna) or st
    hand = before["view"]["hand"]
    anna.close()
    h.settle()
    again = h.connect(anna.token, "Anna")
    assert json.loads(again.frames[-1])["match"] == {"match": st["match_id"], "seat": 0}
    snap = again.recv_type("state")
    assert snap["you"] == 0 and snap["v"] >= before["v"]
    if snap["v"] == before["v"]:
        assert snap["view"]["hand"] == hand
    # The very first snapshot already shows the seat connected again (no correction follows).
    assert snap["seats"][0]["connected"]
    h.settle()
    repeats = [m for m in again.drain() if m["type"] == "state" and m["v"] == snap["v"]]
    assert repeats == []


def test_disconnect_is_shown_and_the_clock_keeps_running(h: Harness) -> None:
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 2, [], joiners=(ben,))
    start(anna)
    ben.close()
    gone = anna.recv_until(lambda m: m["type"] == "state" and not m["seats"][1]["connected"])
    assert any(e["kind"] == "disconnected" for e in gone["events"])


def test_stale_and_illegal_moves_get_german_errors_and_change_nothing(h: Harness) -> None:
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    st = start(anna)
    while not (latest_state(anna) or st)["view"]["legal"]:
        assert h.step()
        anna.drain()
    st = latest_state(anna) or st
    mid, v = st["match_id"], st["v"]
    err = anna.expect_error(
        {"type": "move", "match": mid, "move": "P", "v": v - 1}, "stale_version"
    )
    assert err["match"] == mid and err["v"] == v
    fresh = anna.recv_type("state")
    assert fresh["v"] == v
    illegal = next(m for m in ("P", "D", "0|0 L", "6|6 R") if m not in st["view"]["legal"])
    anna.send({"type": "move", "match": mid, "move": illegal, "v": v})
    err = anna.recv_type("error")
    assert err["v"] == v and err["message"]
    anna.expect_error({"type": "move", "match": mid, "move": "7|7 L", "v": v}, "bad_move_text")
    assert h.service.runners[mid].table.version == v


def test_a_spectator_can_watch_from_the_list_and_sync(h: Harness) -> None:
    anna, zoe = h.person("Anna"), h.person("Zoe")
    lobby_with_bots(anna, 2, ["profi"])
    st = start(anna)
    listing = zoe.request({"type": "list_lobbies"}, "lobby_list")
    assert [r["match"] for r in listing["running"]] == [st["match_id"]]
    running = h.tc.get(f"/api/matches/{st['match_id']}").json()
    assert running["status"] == "running" and running["record"] is None  # deals stay secret
    snap = zoe.request({"type": "watch", "match": st["match_id"]}, "state")
    assert snap["you"] is None and snap["view"]["hand"] is None
    assert zoe.request({"type": "sync", "match": st["match_id"]}, "state")["you"] is None
    zoe.send({"type": "unwatch", "match": st["match_id"]})
    zoe.expect_error({"type": "sync", "match": st["match_id"]}, "not_watching")


def test_a_lobby_everyone_left_during_its_match_closes_at_the_end(h: Harness) -> None:
    anna = h.person("Anna")
    code = lobby_with_bots(anna, 2, ["profi"])["code"]
    st = start(anna)
    anna.request({"type": "leave_lobby"}, "lobby_left")
    assert h.tc.get(f"/api/lobbies/{code}").json()["status"] == "playing"
    anna.send({"type": "leave_match", "match": st["match_id"]})
    anna.recv_until(lambda m: m["type"] == "state" and m["phase"] == "match_over")
    h.settle()
    assert h.tc.get(f"/api/lobbies/{code}").status_code == 404
    listing = h.tc.get("/api/lobbies").json()
    assert (listing["open"], listing["running"]) == ([], [])


def test_every_timeout_path_through_the_socket(h: Harness) -> None:
    """A player who only ever says "Ich bin wieder da": the server moves for her each turn.

    Matches follow each other in the same lobby (*Nochmal*), with and without a Lager,
    until the automatic moves have played, drawn and passed.
    """
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    automatic: list[str] = []
    for i in range(6):
        mode = ("blitz", "zugemauert")[i % 2]
        anna.request({"type": "set_rules", "rules": {"mode": mode, "target": 30}}, "lobby")
        st = start(anna)
        mid = st["match_id"]
        while h.step():
            anna.drain()
            last = latest_state(anna)
            if last and last["seats"][0]["standin"] and last["phase"] != "match_over":
                anna.send({"type": "back", "match": mid})
                anna.recv_until(lambda m: m["type"] == "state" and not m["seats"][0]["standin"])
        anna.drain()
        end = latest_state(anna)
        assert end is not None and end["match_id"] == mid and end["phase"] == "match_over"
        assert anna.last_of("profile")["profile"]["xp"] >= 10  # seated at the end: XP (§12)
        log = h.tc.portal.call(h.service.db.match_log, mid)
        automatic += [m for e in log if e["kind"] == "timeout" for m in e["payload"]["moves"]]
        if "D" in automatic and "P" in automatic:
            break
    # Every kind of automatic move happened: plays, draws and passes (RULES.md §10).
    assert any(m[0].isdigit() for m in automatic)
    assert "D" in automatic and "P" in automatic


def test_joining_a_lobby_whose_match_runs_means_watching_it(h: Harness) -> None:
    anna, zoe = h.person("Anna"), h.person("Zoe")
    code = lobby_with_bots(anna, 2, ["profi"])["code"]
    st = start(anna)
    lob = zoe.request({"type": "join_lobby", "code": code}, "lobby")
    assert lob["you"]["seat"] is None and lob["lobby"]["match"] == st["match_id"]
    assert zoe.recv_type("match_started") == {
        "type": "match_started",
        "match": st["match_id"],
        "lobby": code,
        "seat": None,
    }
    snap = zoe.recv_type("state")
    assert snap["you"] is None and snap["view"]["hand"] is None
    zoe.close()
    h.settle()
    again = h.connect(zoe.token, "Zoe")
    assert again.recv_type("state")["you"] is None  # a reconnecting watcher watches again


def test_a_human_move_does_not_wake_the_match_task_yet_the_next_clock_runs_out(
    h: Harness,
) -> None:
    """A move that starts a human's clock leaves the match's task asleep: its wait (the
    previous clock) ends first, and the task then waits for the new clock, which runs
    out on time (RULES.md §10)."""
    anna, ben = h.person("Anna"), h.person("Ben")
    lobby_with_bots(anna, 2, [], joiners=(ben,))
    st = start(anna)
    mid = st["match_id"]
    runner = h.service.runners[mid]
    h.clock.advance(3.0)  # the mover thinks: the next clock starts later than this one
    h.settle()
    woken: list[float] = []
    advance = runner.table.advance
    runner.table.advance = lambda now: (woken.append(now), advance(now))[1]  # type: ignore[method-assign]
    turn = st["view"]["turn"]
    mover = (anna, ben)[turn]
    state = latest_state(mover)
    assert state is not None and state["view"]["legal"]
    mover.send({"type": "move", "match": mid, "move": state["view"]["legal"][0], "v": state["v"]})
    moved = mover.recv_until(answered(state["v"]))
    assert moved["type"] == "state" and moved["view"]["turn"] == 1 - turn
    h.settle()
    assert woken == []  # the move did not wake the task
    assert not runner.wake.is_set() and runner.until < runner.table.next_wakeup()  # type: ignore[operator]
    # The clock of the seat now to move runs out at its own deadline.
    deadline = runner.table.next_wakeup()
    while not any(
        e["kind"] == "timeout" for m in mover.drain() if m["type"] == "state" for e in m["events"]
    ):
        assert h.step()
    assert h.clock.now() == deadline
    assert woken and woken[-1] == deadline
