"""*Revanche* across nodes (issue 23, item 4): the match's owner dies at the end, the
players and a spectator are on other nodes, the proposal and the acceptances travel
between them and the second match starts on the node of the last acceptance.

Two or three nodes in one process share PostgreSQL and Redis, as in
test_end_across_nodes.py; waiting for a frame that crosses nodes is bounded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..harness import lobby_with_bots, start
from .nodes import crash, recv_within, sweep
from .test_end_across_nodes import dies_at_the_end, got, play_idle_to_end

if TYPE_CHECKING:
    from .conftest import StartNode

RULES = {"target": 30}


def rematch_is(state: str) -> Any:
    return lambda m: m["type"] == "rematch_state" and m["state"] == state


def test_a_rematch_after_the_owner_died_starts_across_nodes(start_node: StartNode) -> None:
    # The match runs on node a, which dies right after storing its end. Anna plays from
    # node c (her window on a dies with it), Ben from node b, Carl watches from node c.
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    anna = a.person("Anna")
    ben = b.person("Ben")
    lobby = lobby_with_bots(anna, 3, ["anfaenger"], RULES, joiners=(ben,))
    mid = start(anna)["match_id"]
    recv_within(ben, lambda m: m["type"] == "state")
    far = c.connect(anna.token, "Anna")
    recv_within(far, lambda m: m["type"] == "state")
    carl = c.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    died = dies_at_the_end(a, after_storing=True)
    play_idle_to_end(a, [ben, far, carl], stop=lambda: bool(died))
    anna.close()
    crash(a, mid)
    # Node b takes the match over, tells its end and opens the lobby again.
    assert sweep(b) == [mid]
    for who in (far, ben):
        recv_within(who, lambda m: m["type"] == "lobby" and m["lobby"]["status"] == "open")
    carl.send({"type": "rematch_follow", "match": mid})
    c.settle()

    # Ben proposes on node b: Anna (node c) and Carl (node c) see who accepted.
    ben.send({"type": "rematch", "match": mid})
    for who in (far, carl, ben):
        m = recv_within(who, rematch_is("open"))
        assert m["by"] == "Ben" and m["lobby"] == lobby["code"]
        assert [s["accepted"] for s in m["seats"]] == [False, True, True]
    # Anna accepts on node c: the second match starts there, for everyone.
    far.send({"type": "rematch", "match": mid})
    started = recv_within(far, lambda m: m["type"] == "match_started")
    new = started["match"]
    assert new != mid and started["seat"] == 0
    assert recv_within(ben, lambda m: m["type"] == "match_started")["match"] == new
    for who in (far, carl, ben):
        assert recv_within(who, rematch_is("started"))["next"] == new
    assert new in c.service.runners
    st = got(ben, lambda m: m["type"] == "state" and m["match_id"] == new)
    assert st["you"] == 1 and st["phase"] == "playing"
    # Stored as a lobby's start: the lobby plays the new match.
    doc = c.tc.portal.call(c.service.db.lobby_doc, lobby["code"])
    assert doc["status"] == "playing" and doc["match"] == new and doc["rematch"] is None


def test_an_invitation_reaches_a_recent_opponent_on_another_node(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna = a.person("Anna")
    ben = b.person("Ben")
    lobby = lobby_with_bots(anna, 3, ["anfaenger"], RULES, joiners=(ben,))
    start(anna)
    recv_within(ben, lambda m: m["type"] == "state")
    play_idle_to_end(a, [ben])
    got(ben, lambda m: m["type"] == "lobby" and m["lobby"]["status"] == "open")
    ben.request({"type": "leave_lobby"}, "lobby_left")
    # Node a knows Ben is online on node b, and the toast travels on his own channel.
    listed = a.tc.get("/api/me/players", headers={"authorization": f"Bearer {anna.token}"})
    assert [(p["name"], p["online"]) for p in listed.json()["players"]] == [("Ben", True)]
    anna.send({"type": "invite", "profile": ben.profile["id"]})
    assert recv_within(anna, lambda m: m["type"] in ("invite_sent", "error"))["type"] == (
        "invite_sent"
    )
    got_it = recv_within(ben, lambda m: m["type"] == "invited")
    assert got_it["lobby"] == lobby["code"] and got_it["by"] == "Anna"
