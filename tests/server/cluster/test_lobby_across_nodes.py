"""Lobbies on every node: one lobby, its members' sockets on different nodes.

Two nodes in one process share PostgreSQL (DOMINO_TEST_POSTGRES) and Redis
(DOMINO_TEST_REDIS), as in test_cross_node.py. The lobby lives in the
database; any node may change it, and every member hears of each change on
whichever node their sockets are. Waiting for a frame that crosses nodes is
bounded (a dead path fails the test instead of hanging it); nothing is timed.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from domino.server.desks.lobby import Lobby
from domino.server.storage.db import Database
from domino.server.storage.lobbies import InOtherLobby, LobbyConflict

from ..harness import Client
from .nodes import (
    PG_URL,
    recv_within,
    until_turn,
)

if TYPE_CHECKING:
    from .conftest import StartNode


def lobby_where(c: Client, pred: Any) -> dict[str, Any]:
    """The next lobby message on ``c`` whose lobby satisfies ``pred``."""
    return recv_within(c, lambda m: m["type"] == "lobby" and pred(m["lobby"]))["lobby"]


def seat_of(lobby: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((s for s in lobby["seats"] if s.get("name") == name), None)


def test_a_lobby_is_the_same_on_every_node(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    lobby = anna.request({"type": "create_lobby", "seats": 3}, "lobby")["lobby"]
    code = lobby["code"]

    # The lobby list and the lobby's page on node b know it (Anna is online on a).
    listed = b.tc.get("/api/lobbies").json()["open"]
    assert [x["code"] for x in listed] == [code]
    assert b.tc.get(f"/api/lobbies/{code}").json()["host"] == anna.profile["id"]

    # Ben joins by code on node b: both see him, online, on their own node.
    ben = b.person("Ben")
    joined = ben.request({"type": "join_lobby", "code": code.lower()}, "lobby")
    assert joined["you"]["player"] == ben.profile["id"]
    seen = lobby_where(anna, lambda lb: seat_of(lb, "Ben") is not None)
    assert seat_of(seen, "Ben")["online"] is True  # type: ignore[index]

    # Host actions from node a reach Ben on node b; Ben's from b reach Anna on a.
    anna.send({"type": "add_bot", "seat": 2, "level": "profi"})
    lobby_where(ben, lambda lb: lb["seats"][2]["kind"] == "bot")
    anna.send({"type": "set_rules", "rules": {"target": 50}})
    lobby_where(ben, lambda lb: lb["target_points"] == 50)
    ben.send({"type": "leave_seat"})
    lobby_where(anna, lambda lb: seat_of(lb, "Ben") is None)
    ben.send({"type": "take_seat", "seat": 1})
    lobby_where(anna, lambda lb: lb["seats"][1].get("name") == "Ben")
    # Ben is not the host, on whichever node he asks.
    ben.expect_error({"type": "add_bot", "seat": 2, "level": "meister"}, "not_host")

    # Carl watches the lobby from node b.
    carl = b.person("Carl")
    carl.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    lobby_where(anna, lambda lb: [w["name"] for w in lb["watchers"]] == ["Carl"])

    # Nobody is in two lobbies, whichever node they ask.
    dora = a.person("Dora")
    other = dora.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]
    ben.expect_error({"type": "join_lobby", "code": other["code"]}, "already_in_lobby")
    ben.expect_error({"type": "create_lobby", "seats": 2}, "already_in_lobby")

    # Anna starts on node a: Ben on node b gets his seat and his own hand, Carl the
    # spectators' view; Ben's move from node b is played on node a.
    anna.send({"type": "start"})
    started = recv_within(ben, lambda m: m["type"] == "match_started")
    mid = started["match"]
    assert started["seat"] == 1 and mid in a.service.runners
    runner = a.service.runners[mid]
    state = recv_within(ben, lambda m: m["type"] == "state")
    assert state["you"] == 1
    assert state["view"]["hand"] == runner.table.snapshot(1, a.clock.now())["view"]["hand"]
    watched = recv_within(carl, lambda m: m["type"] == "match_started")
    assert watched["seat"] is None
    spect = recv_within(carl, lambda m: m["type"] == "state")
    assert spect["you"] is None and spect["view"].get("hand") is None
    # Before its start, Ben had the lobby playing that match.
    frames = [json.loads(raw) for raw in ben.frames]
    first = next(i for i, m in enumerate(frames) if m["type"] == "match_started")
    lobbies = [m["lobby"] for m in frames[:first] if m["type"] == "lobby"]
    assert (lobbies[-1]["status"], lobbies[-1]["match"]) == ("playing", mid)

    # The running match is in node b's lobby list, with Carl as its spectator.
    running = b.tc.get("/api/lobbies").json()["running"]
    assert [r["match"] for r in running] == [mid]
    assert running[0]["spectators"] == 1
    # Node a counts him too: node b's count is in Redis, in the URL's database.
    b.settle()
    running = a.tc.get("/api/lobbies").json()["running"]
    assert [(r["match"], r["spectators"]) for r in running] == [(mid, 1)]

    until_turn(a, mid, 1)
    v = runner.table.version
    legal = runner.table.snapshot(1, a.clock.now())["view"]["legal"]
    ben.send({"type": "move", "match": mid, "move": legal[0], "v": v, "ref": "b1"})
    recv_within(ben, lambda m: m["type"] == "state" and m["v"] > v)
    assert runner.table.version > v

    # A late member joins from node b while the match runs on a: they watch it.
    eva = b.person("Eva")
    eva.request({"type": "join_lobby", "code": code, "watch": True}, "lobby")
    late = recv_within(eva, lambda m: m["type"] == "match_started")
    assert late["match"] == mid and late["seat"] is None
    snap = recv_within(eva, lambda m: m["type"] == "state")
    assert snap["you"] is None and snap["view"].get("hand") is None

    # No frame to a spectator ever showed a hand.
    for c in (carl, eva):
        for raw in c.frames:
            m = json.loads(raw)
            if m["type"] == "state":
                assert m["you"] is None and m["view"].get("hand") is None


def test_presence_in_a_lobby_crosses_nodes(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    code = anna.request({"type": "create_lobby", "seats": 2}, "lobby")["lobby"]["code"]
    ben_token = b.guest("Ben")
    ben = b.connect(ben_token, "Ben")
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    lobby_where(anna, lambda lb: (seat_of(lb, "Ben") or {}).get("online") is True)

    # Ben's only socket (on node b) closes: Anna, on node a, sees him offline.
    ben.close()
    lobby_where(anna, lambda lb: (seat_of(lb, "Ben") or {}).get("online") is False)

    # He comes back on node a: the welcome names his lobby, Anna sees him online.
    again = a.connect(ben_token, "Ben")
    welcome = next(m for m in map(json.loads, again.frames) if m["type"] == "welcome")
    assert welcome["lobby"] == code
    lobby_where(anna, lambda lb: (seat_of(lb, "Ben") or {}).get("online") is True)

    # He leaves the lobby from node a; a window of his on node b hears so too.
    window = b.connect(ben_token, "Ben")
    again.send({"type": "leave_lobby"})
    left = recv_within(window, lambda m: m["type"] == "lobby_left")
    assert left["code"] == code
    lobby_where(anna, lambda lb: seat_of(lb, "Ben") is None)


def test_a_quick_game_is_stored_playing_and_seen_from_another_node(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    anna.send({"type": "quick_game", "seats": 4, "level": "profi"})
    lobby = recv_within(anna, lambda m: m["type"] == "lobby")["lobby"]
    assert lobby["status"] == "playing" and lobby["match"]
    assert [s["kind"] for s in lobby["seats"]] == ["human", "bot", "bot", "bot"]
    started = recv_within(anna, lambda m: m["type"] == "match_started")
    assert started["seat"] == 0
    # Node b reads the same lobby from PostgreSQL; Ben joins it and watches the match.
    assert b.tc.get(f"/api/lobbies/{lobby['code']}").json()["status"] == "playing"
    ben = b.person("Ben")
    ben.send({"type": "join_lobby", "code": lobby["code"]})
    watching = recv_within(ben, lambda m: m["type"] == "match_started")
    assert watching["seat"] is None and watching["match"] == lobby["match"]
    # Anna is in that lobby now: a second quick game from node b is refused.
    again = b.connect(anna.token, "Anna")
    again.expect_error({"type": "quick_game", "seats": 2}, "already_in_lobby")


def test_two_nodes_changing_one_lobby_at_once_lose_nothing(prefix: str) -> None:
    """Two nodes apply a change to the same stored version: the second write is refused,
    so its node reads again; and a profile added to two lobbies at once gets only one."""

    async def run() -> None:
        db = Database(str(PG_URL), prefix)
        await db.create()
        try:
            lobby = Lobby.create("RACE2222", "p1", "Anna", 3, 1.0)
            v = await db.save_lobby("RACE2222", "open", lobby.to_dict(), 1.0, joined=["p1"])
            other = Lobby.create("RACE3333", "p9", "Zoe", 2, 1.0)
            w = await db.save_lobby("RACE3333", "open", other.to_dict(), 1.0, joined=["p9"])

            async def seat(pid: str, name: str, at: int) -> str:
                mine = Lobby.create("RACE2222", "p1", "Anna", 3, 1.0)
                mine.join(pid, name, False)
                try:
                    await db.save_lobby("RACE2222", "open", mine.to_dict(), 2.0, v, joined=[pid])
                except LobbyConflict:
                    return "conflict"
                return "stored"

            results = await asyncio.gather(seat("p2", "Ben", 1), seat("p3", "Carl", 1))
            assert sorted(results) == ["conflict", "stored"]
            row = await db.lobby_row("RACE2222")
            assert row is not None and row.version == v + 1
            winner = "p2" if results[0] == "stored" else "p3"
            assert await db.lobby_of(winner) == "RACE2222"

            # The same profile into two lobbies at once: one of the two writes fails.
            async def add(code: str, version: int) -> str:
                try:
                    await db.save_lobby(code, "open", {}, 3.0, version, joined=["p7"])
                except InOtherLobby:
                    return "refused"
                return "stored"

            both = await asyncio.gather(add("RACE2222", v + 1), add("RACE3333", w))
            assert sorted(both) == ["refused", "stored"]
        finally:
            await db.drop()
            await db.close()

    asyncio.run(run())
