"""A match's end and a profile's news reach every node (issue 21, items 8, 9 and 11).

Two nodes in one process share PostgreSQL (DOMINO_TEST_POSTGRES) and Redis
(DOMINO_TEST_REDIS), as in test_failover.py. The match runs on node a; the
sockets that matter are on node b. Waiting for a frame that crosses nodes is
bounded (a dead path fails the test instead of hanging it); nothing is timed.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import pytest

from ..harness import Client, Harness, lobby_with_bots, play_out, start
from .nodes import (
    crash,
    recv_within,
    sweep,
)

if TYPE_CHECKING:
    from .conftest import StartNode

RULES = {"target": 30}


def frames(c: Client) -> list[dict[str, Any]]:
    c.drain()
    return [json.loads(raw) for raw in c.frames]


def ends(c: Client) -> list[dict[str, Any]]:
    return [m for m in frames(c) if m["type"] == "state" and m["phase"] == "match_over"]


def profiles(c: Client) -> list[dict[str, Any]]:
    return [m["profile"] for m in frames(c) if m["type"] == "profile"]


def got(c: Client, pred: Any) -> dict[str, Any]:
    """The first frame ``c`` got (or gets next) that matches ``pred``."""
    for m in frames(c):
        if pred(m):
            return m
    return recv_within(c, pred)


def dies_at_the_end(h: Harness, after_storing: bool) -> list[str]:
    """Node ``h`` stops acting at its next match's end, before it tells anyone: right
    after (or just before) its result and XP are stored. Returns the matches it
    stopped at (filled when it happens)."""
    db = h.service.db
    real = db.end_match
    hit: list[str] = []

    async def end_match(mid: str, *args: Any, **kw: Any) -> bool:
        if after_storing:
            await real(mid, *args, **kw)
        hit.append(mid)
        raise RuntimeError("node a dies here")

    db.end_match = end_match  # type: ignore[method-assign]
    return hit


def play_idle_to_end(h: Harness, others: list[Client], stop: Any = None) -> None:
    """Step ``h``'s clock until its match ends (the humans let their clocks run out),
    draining the sockets of other nodes as it goes."""

    def check() -> bool:
        for c in others:
            c.drain()
        return bool(stop and stop())

    play_out(h, [], random.Random(0), stop=check)


def anna_on_a_with_ben_on_b(start_node: StartNode) -> tuple[Harness, Harness, Client, Client, str]:
    """Nodes a and b; Anna's match with a bot runs on node a, Ben plays in it from node b
    (his first state has arrived). Returns ``(a, b, anna, ben, match id)``."""
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    ben = b.person("Ben")
    lobby_with_bots(anna, 3, ["anfaenger"], RULES, joiners=(ben,))
    mid = start(anna)["match_id"]
    recv_within(ben, lambda m: m["type"] == "state")
    return a, b, anna, ben, mid


@pytest.mark.parametrize("after_storing", [True, False], ids=["result-stored", "log-only"])
def test_the_end_is_announced_when_its_owner_dies_before_telling_it(
    after_storing: bool, start_node: StartNode
) -> None:
    # Node a stores the match's last move (and, in one case, its result and XP), then
    # dies before anyone hears of the end. Anna's window and Carl, watching, are on
    # node c: node b, taking the match over, tells them the end (the standings) and
    # Anna her new profile, once; nothing is stored twice.
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    anna = a.person("Anna")
    pid = anna.profile["id"]
    lobby_with_bots(anna, 2, ["anfaenger"], RULES)
    mid = start(anna)["match_id"]
    far = c.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "state")
    carl = c.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    died = dies_at_the_end(a, after_storing)

    play_idle_to_end(a, [far, carl], stop=lambda: bool(died))
    assert died == [mid]
    assert not ends(far) and not ends(carl) and not profiles(far)
    anna.close()  # (her socket on the dead node goes with it)
    crash(a, mid)

    assert sweep(b) == [mid]
    end = recv_within(far, lambda m: m["type"] == "state" and m["phase"] == "match_over")
    assert end["you"] == 0 and end["standings"]
    mine = recv_within(far, lambda m: m["type"] == "profile")["profile"]
    watched = recv_within(carl, lambda m: m["type"] == "state" and m["phase"] == "match_over")
    assert watched["you"] is None and watched["standings"] == end["standings"]
    # The lobby opens again: the last thing node b tells Anna, after all the rest.
    recv_within(far, lambda m: m["type"] == "lobby" and m["lobby"]["status"] == "open")
    b.settle()
    c.settle()

    # Once each, and only to whom it belongs.
    assert len(ends(far)) == 1 and len(ends(carl)) == 1
    assert [x["id"] for x in profiles(far)] == [pid] and profiles(carl) == []
    # The XP is stored once: the profile has exactly the match's XP for seat 0.
    row = b.tc.portal.call(b.service.db.match, mid)
    assert row["status"] == "finished"
    assert mine["xp"] == row["result"]["xp"][0] > 0 and mine["played"] == 1
    assert b.tc.portal.call(b.service.db.profile, pid)["xp"] == mine["xp"]
    assert mid not in b.service.runners
    # A late sync is answered with the end as well.
    far.send({"type": "sync", "match": mid})
    again = recv_within(far, lambda m: m["type"] == "state")
    assert again["phase"] == "match_over" and again["v"] == end["v"]


def test_each_player_gets_their_own_profile_on_every_node(start_node: StartNode) -> None:
    # The match runs on node a. Ben plays from node b, Anna has a second window there
    # and Carl watches from there: at the end each player's sockets, on both nodes, get
    # that player's new profile, nobody gets another's, and Carl gets none.
    a, b, anna, ben, mid = anna_on_a_with_ben_on_b(start_node)
    far = b.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "state")
    carl = b.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")

    play_idle_to_end(a, [ben, far, carl])
    ids = {"anna": anna.profile["id"], "ben": ben.profile["id"]}
    got_ben = got(ben, lambda m: m["type"] == "profile")["profile"]
    got_far = got(far, lambda m: m["type"] == "profile")["profile"]
    assert got_ben["id"] == ids["ben"] and got_ben["played"] == 1
    assert got_far["id"] == ids["anna"] and got_far["played"] == 1
    # Everything node a published has reached node b once its own end did: each
    # match_over arrived on b before the profiles (one publisher, in order).
    assert ends(ben) and ends(far) and ends(carl)
    a.settle()
    b.settle()
    assert [x["id"] for x in profiles(anna)] == [ids["anna"]]
    assert [x["id"] for x in profiles(far)] == [ids["anna"]]
    assert [x["id"] for x in profiles(ben)] == [ids["ben"]]
    assert profiles(carl) == []


def test_nobody_is_seated_in_a_match_once_its_end_is_announced(start_node: StartNode) -> None:
    # Ben plays from node b in Anna's match on node a. When he hears the end he may start
    # the next match at once, through node b: by then the cluster's seat map must no
    # longer seat him (or node b refuses the start with in_match). Node a's first step
    # after announcing the end (the rating changes) reads the seat map.
    a, _b, anna, ben, mid = anna_on_a_with_ben_on_b(start_node)
    pids = [anna.profile["id"], ben.profile["id"]]
    # (Each node's Redis client belongs to that node's event loop: node a reads.)
    seated = a.service.ownership.seated_elsewhere
    assert a.tc.portal.call(seated, pids) == set(pids)
    db = a.service.db
    real = db.rating_changes
    seated_then: list[set[str]] = []

    async def rating_changes(m: str) -> Any:
        seated_then.append(await seated(pids))
        return await real(m)

    db.rating_changes = rating_changes  # type: ignore[method-assign]
    # Both play every turn (an idle player's clock could seat a stand-in and let them go).
    play_out(a, [anna, ben], random.Random(3))
    got(ben, lambda m: m["type"] == "state" and m["phase"] == "match_over" and m["match_id"] == mid)
    assert seated_then == [set()]


def test_a_new_name_reaches_every_node(start_node: StartNode) -> None:
    # Anna renames herself through node a. Her window on node b gets the new profile and
    # takes the name into what it does next; Ben, in her lobby on node b, sees it there.
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    code = anna.request({"type": "create_lobby", "seats": 3}, "lobby")["lobby"]["code"]
    ben = b.person("Ben")
    ben.request({"type": "join_lobby", "code": code}, "lobby")
    far = b.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "lobby")

    auth = {"authorization": f"Bearer {anna.token}"}
    r = a.tc.post("/api/me/name", json={"name": "Lena"}, headers=auth)
    assert r.status_code == 200 and r.json()["name"] == "Lena"

    told = recv_within(far, lambda m: m["type"] == "profile")["profile"]
    assert (told["id"], told["name"]) == (anna.profile["id"], "Lena")
    shown = recv_within(
        ben, lambda m: m["type"] == "lobby" and m["lobby"]["seats"][0]["name"] != "Anna"
    )
    assert [s.get("name") for s in shown["lobby"]["seats"][:2]] == ["Lena", "Ben"]
    assert recv_within(anna, lambda m: m["type"] == "profile")["profile"]["name"] == "Lena"
    # Her socket on node b acts under the new name: she leaves her seat and watches.
    far.send({"type": "leave_seat"})
    after = recv_within(ben, lambda m: m["type"] == "lobby" and m["lobby"]["watchers"])["lobby"]
    assert [w["name"] for w in after["watchers"]] == ["Lena"]
    assert profiles(ben) == []  # Ben's socket never gets Anna's profile


def test_a_new_name_reaches_a_running_match_on_another_node(start_node: StartNode) -> None:
    # Anna plays on node a and renames herself through node b, where Carl watches: the
    # match (on node a) shows her new name to every audience, and stores it with the seats.
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"], RULES)
    mid = start(anna)["match_id"]
    a.settle()
    carl = b.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    v = a.service.runners[mid].table.version

    auth = {"authorization": f"Bearer {anna.token}"}
    r = b.tc.post("/api/me/name", json={"name": "Lena"}, headers=auth)
    assert r.status_code == 200 and r.json()["name"] == "Lena"

    def renamed(m: dict[str, Any]) -> bool:
        return m["type"] == "state" and m["seats"][0]["name"] != "Anna"

    watched = recv_within(carl, renamed)
    assert watched["seats"][0]["name"] == "Lena" and watched["you"] is None
    mine = recv_within(anna, renamed)
    assert mine["seats"][0]["name"] == "Lena" and mine["you"] == 0
    assert mine["v"] == watched["v"] == v  # nothing was played for it
    row = a.tc.portal.call(a.service.db.match, mid)
    assert row["seats"][0]["name"] == "Lena"
    running = b.tc.get("/api/lobbies").json()["running"]
    assert [m["players"][0] for m in running if m["match"] == mid] == ["Lena"]
