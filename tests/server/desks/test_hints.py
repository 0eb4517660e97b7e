"""Hints (*Tipp*) over the socket: Meister's move for the seat and one sentence, to that
socket only; the lobby's limit per round; off with 0; refused in rated games, against
humans only, out of turn and to spectators; the log says a hint was used."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from domino.analysis.reasons import KEYS
from domino.server.desks.hints import lobby_hint_rules

from ..harness import Client, Harness, harness, latest_state, lobby_with_bots, play_out


def _my_turn(h: Harness, c: Client) -> dict[str, Any]:
    """Let the bots move until it is ``c``'s turn in a round; that state."""
    for _ in range(200):
        h.settle()
        c.drain()
        st = latest_state(c)
        if st and st["phase"] == "playing" and st["view"]["turn"] == st["you"]:
            return st
        assert h.step(), "the match ended first"
    raise AssertionError("never my turn")


def _ask(c: Client, st: dict[str, Any], v: int | None = None) -> dict[str, Any]:
    c.send({"type": "hint", "match": st["match_id"], "v": st["v"] if v is None else v})
    return c.recv_until(lambda m: m["type"] in ("hint_answer", "error"))


def _start(h: Harness, host: Client, rules: dict[str, Any], watcher: Client | None = None):
    lobby = lobby_with_bots(host, 3, ["fortgeschritten", "fortgeschritten"], rules)
    if watcher is not None:
        watcher.request({"type": "join_lobby", "code": lobby["code"], "watch": True}, "lobby")
    host.request({"type": "start"}, "match_started")
    return lobby, host.recv_type("state")


def test_a_hint_is_meister_s_move_with_a_reason_and_the_limit_holds(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna, zoe = h.person("Anna"), h.person("Zoe")
        lobby, _ = _start(h, anna, {"mode": "klassisch", "hints": 2}, watcher=zoe)
        assert lobby["rules"]["hints"] == 2
        st = _my_turn(h, anna)
        got = []
        v = st["v"]
        for _ in range(2):
            m = _ask(anna, st, v)
            assert m["type"] == "hint_answer", m
            got.append(m)
            v = m["v"]
        first = got[0]
        assert first["move"] in st["view"]["legal"] or first["move"].split()[0] in {
            t for t in st["view"]["hand"]
        }
        assert first["key"] in KEYS and first["text"] and "{" not in first["text"]
        assert [m["left"] for m in got] == [1, 0]
        assert got[0]["v"] == st["v"] + 1  # the hint is logged: one entry
        # The third in the same round is refused, in German, and changes nothing.
        refused = _ask(anna, st, v)
        assert refused["type"] == "error" and refused["code"] == "hint_limit"
        assert "2 Tipps" in refused["message"]
        # Everyone's log says a hint was used; the spectator never sees what it said.
        h.settle()
        zoe.drain()
        frames = [json.loads(f) for f in zoe.frames]
        assert not [f for f in frames if f["type"] == "hint_answer"]
        events = [e for f in frames if f["type"] == "state" for e in f["events"]]
        assert [e for e in events if e["kind"] == "hint"] == [{"kind": "hint", "seat": 0}] * 2
        for f in frames:
            assert first["key"] not in json.dumps(f)
        # A move made on the hint's version is taken (the hint moved the version on).
        anna.drain()
        now = latest_state(anna)
        assert now is not None and now["v"] == v
        anna.send({"type": "move", "match": now["match_id"], "move": first["move"], "v": v})
        h.settle()
        assert not [f for f in anna.drain() if f["type"] == "error"]
        # The next round allows two hints again.
        mid = now["match_id"]
        play_out(
            h,
            [anna],
            random.Random(1),
            stop=lambda: (latest_state(anna) or now)["view"]["round"] >= 2,
        )
        if (latest_state(anna) or now)["phase"] != "match_over":
            st2 = _my_turn(h, anna)
            assert st2["match_id"] == mid and st2["view"]["round"] >= 2
            assert _ask(anna, st2)["type"] == "hint_answer"


def test_hints_are_refused_out_of_turn_off_and_to_spectators(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna, zoe = h.person("Anna"), h.person("Zoe")
        _start(h, anna, {"mode": "klassisch", "hints": 0}, watcher=zoe)
        st = _my_turn(h, anna)
        assert _ask(anna, st)["code"] == "hint_off"
        zoe.drain()
        assert _ask(zoe, st)["code"] == "not_seated"
    with harness(tmp_path / "b") as h:
        anna = h.person("Anna")
        _start(h, anna, {"mode": "klassisch"})
        st = _my_turn(h, anna)
        assert _ask(anna, st, st["v"] - 1)["code"] == "stale_version"
        # Make the move, then ask while a bot is to move.
        anna.send(
            {"type": "move", "match": st["match_id"], "move": st["view"]["legal"][0], "v": st["v"]}
        )
        h.settle()
        anna.drain()
        now = latest_state(anna)
        assert now is not None
        if now["phase"] == "playing" and now["view"]["turn"] != now["you"]:
            assert _ask(anna, now)["code"] == "hint_not_your_turn"


def test_a_rated_game_and_a_game_against_people_give_no_hints(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        lobby, _ = _start(h, anna, {"mode": "klassisch"})
        st = _my_turn(h, anna)

        async def rate() -> None:  # the rated-lobby feature's flag, as it stores it
            db = h.service.db
            row = await db.lobby_row(lobby["code"])
            assert row is not None
            doc = {**row.doc, "rules": {**row.doc["rules"], "rated": True}}
            await db.save_lobby(lobby["code"], doc["status"], doc, 0.0, row.version)

        h.tc.portal.call(rate)
        m = _ask(anna, st)
        assert m["code"] == "hint_rated" and "gewertetes Spiel" in m["message"]
    with harness(tmp_path / "b") as h:
        anna, ben = h.person("Anna"), h.person("Ben")
        lobby = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
        ben.request({"type": "join_lobby", "code": lobby["code"]}, "lobby")
        anna.request({"type": "start"}, "match_started")
        st = anna.recv_type("state")
        ben.drain()
        mover = anna if st["view"]["turn"] == st["you"] else ben
        h.settle()
        mover.drain()
        cur = latest_state(mover)
        assert cur is not None
        assert _ask(mover, cur)["code"] == "hint_no_bots"


def test_the_lobby_setting_is_read_defensively() -> None:
    assert lobby_hint_rules({"rules": {"hints": 2}}) == (2, False)
    assert lobby_hint_rules({"rules": {"hints": "3", "rated": "yes"}}) == (3, False)
    assert lobby_hint_rules({"rules": {"hints": 9, "rated": True}}) == (3, True)
    assert lobby_hint_rules({}) == (3, False)


def test_a_bad_hints_setting_is_refused_in_german(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        anna.request({"type": "create_lobby", "seats": 2}, "lobby")
        m = anna.expect_error({"type": "set_rules", "rules": {"hints": 4}}, "bad_hints")
        assert "0 bis 3" in m["message"]
        lobby = anna.request({"type": "set_rules", "rules": {"hints": 0}}, "lobby")["lobby"]
        assert lobby["rules"]["hints"] == 0


def test_two_windows_asking_at_once_get_one_hint(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        anna = h.person("Anna")
        _start(h, anna, {"mode": "klassisch"})
        st = _my_turn(h, anna)
        second = h.connect(anna.token, "Anna")
        h.settle()
        second.drain()
        for c in (anna, second):
            c.send({"type": "hint", "match": st["match_id"], "v": st["v"]})
        answers = [
            c.recv_until(lambda m: m["type"] in ("hint_answer", "error")) for c in (anna, second)
        ]
        kinds = sorted(m["type"] for m in answers)
        assert kinds == ["error", "hint_answer"], answers
        refused = next(m for m in answers if m["type"] == "error")
        assert refused["code"] in ("hint_pending", "stale_version")
        h.settle()
        log = h.tc.portal.call(h.service.db.match_log, st["match_id"])
        assert sum(1 for e in log if e["kind"] == "hint") == 1
