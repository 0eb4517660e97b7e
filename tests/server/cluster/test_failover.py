"""Two nodes of a cluster in one process: a match changes owner, and nothing is lost.

Both nodes share a PostgreSQL database (DOMINO_TEST_POSTGRES) and a Redis
(DOMINO_TEST_REDIS) under a prefix of their own. Nothing sleeps: a node that
died is a node whose tasks stopped and whose lease is deleted (what Redis does
when it expires), and the other node's sweep is called directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from ..harness import answered
from .nodes import (
    BOUND,
    crash,
    match_on,
    play_to_end,
    recv_within,
    redis_call,
    stored_log,
    sweep,
    until_turn,
)

if TYPE_CHECKING:
    from .conftest import StartNode


def test_a_dead_nodes_match_goes_on_on_another_node_at_the_same_version(
    start_node: StartNode,
) -> None:
    a = start_node("a")
    b = start_node("b")
    anna, st = match_on(a)
    mid = st["match_id"]
    leases = a.service.match_desk.leases
    assert leases is not None
    assert redis_call(a, "get", leases.key(mid)) == "a"
    # The other node leaves a held match alone.
    assert sweep(b) == [] and mid not in b.service.runners

    runner_a = a.service.runners[mid]
    until_turn(a, mid, 0)  # the match waits for Anna
    v = runner_a.table.version
    hand = runner_a.table.snapshot(0, a.clock.now())["view"]["hand"]
    entries = len(stored_log(a, mid))

    crash(a, mid)
    assert sweep(b) == [mid]
    runner_b = b.service.runners[mid]
    assert runner_b.fence > runner_a.fence
    assert runner_b.table.version == v
    assert redis_call(b, "get", leases.key(mid)) == "b"
    b.settle()
    assert "domino_lease_takeovers_total 1.0" in b.tc.get("/metrics").text

    # Anna comes back through the other node: her seat, her hand, the same moves.
    again = b.connect(anna.token, "Anna")
    seat = b.service.match_desk.seat_ref(anna.profile["id"])
    assert seat is not None and (seat.match, seat.seat) == (mid, 0)
    b.settle()
    state = [m for m in again.drain() if m["type"] == "state"][-1]
    assert state["view"]["hand"] == hand and state["view"]["turn"] == 0
    # (the version may be newer only by her seat's presence: no move was made)
    assert len(stored_log(b, mid)) >= entries
    before = stored_log(b, mid)

    # The dead node wakes up (SIGCONT). Its clock fires (Anna's time is up there): the
    # fence refuses the timeout's entry, so no clock fires twice, and node a stops.
    a.tc.portal.call(runner_a.start)
    a.clock.advance(3600)
    a.settle()
    assert runner_a.moved
    # A move sent to node a on what node a shows goes to the owner, node b, which
    # refuses it as made on a table that is not the match's: nothing acknowledged.
    legal = runner_b.table.snapshot(0, b.clock.now())["view"]["legal"]
    err = anna.expect_error(
        {"type": "move", "match": mid, "move": legal[0], "v": runner_a.table.version},
        "stale_version",
    )
    assert err["v"] == runner_b.table.version
    assert stored_log(b, mid) == before  # nothing from node a after the takeover
    # A new window of Anna's on node a gets the match as node b has it, not node a's
    # stopped copy (which ran its clocks ahead in memory).
    late = a.connect(anna.token, "Anna")
    fresh = recv_within(late, lambda m: m["type"] == "state")
    assert fresh["v"] == runner_b.table.version != runner_a.table.version

    # The match goes on on node b, to its end; the lobby (made on node a) opens again.
    vb = runner_b.table.version
    again.send({"type": "move", "match": mid, "move": legal[0], "v": vb})
    assert again.recv_until(answered(vb))["type"] == "state"
    assert len(stored_log(b, mid)) == len(before) + 1
    again.request({"type": "leave_match", "match": mid}, "state")
    play_to_end(b, mid)
    code = st["lobby"]
    doc = b.tc.portal.call(b.service.db.lobby_doc, code)
    assert doc is not None and doc["status"] == "open" and doc["match"] is None


def test_a_draining_node_hands_its_matches_over_and_its_sockets_play_on(
    start_node: StartNode,
) -> None:
    a = start_node("a")
    b = start_node("b")
    anna, st = match_on(a)
    mid = st["match_id"]
    until_turn(a, mid, 0)
    runner_a = a.service.runners[mid]
    v = runner_a.table.version
    # SIGTERM: node a drains; it gives the match up and waits for another node.
    done = a.tc.portal.start_task_soon(a.service.drain)
    for _ in range(200):
        if runner_a.moved:
            break
        a.tc.portal.call(anyio.sleep, 0.01)
    assert runner_a.moved and sweep(a) == []  # a draining node takes nothing
    assert sweep(b) == [mid]
    assert done.result(timeout=BOUND) is None
    assert a.tc.get("/api/health").status_code == 503
    # Anna's socket on node a gets the match from node b and plays on through node a.
    fresh = recv_within(anna, lambda m: m["type"] == "state" and m["v"] >= v)
    assert fresh["you"] == 0
    runner_b = b.service.runners[mid]
    vb = runner_b.table.version
    legal = runner_b.table.snapshot(0, b.clock.now())["view"]["legal"]
    anna.send({"type": "move", "match": mid, "move": legal[0], "v": vb, "ref": "d1"})
    recv_within(anna, lambda m: m["type"] == "state" and m["v"] > vb)
    assert runner_b.table.version > vb and runner_a.table.version == v
    assert len(stored_log(b, mid)) > 0


def test_a_node_that_stops_hands_its_matches_over_at_once(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    _anna, st = match_on(a)
    mid = st["match_id"]
    leases = a.service.match_desk.leases
    assert leases is not None
    key = leases.key(mid)
    a.close()  # SIGTERM: the runner stops, then the lease is given up (not left to expire)
    assert redis_call(b, "get", key) is None
    assert sweep(b) == [mid]
    assert b.service.runners[mid].table.version >= 1


def test_a_finished_match_gives_its_lease_up(start_node: StartNode) -> None:
    a = start_node("a")
    anna, st = match_on(a)
    mid = st["match_id"]
    leases = a.service.match_desk.leases
    assert leases is not None
    assert redis_call(a, "get", leases.key(mid)) == "a"
    anna.request({"type": "leave_match", "match": mid}, "state")
    play_to_end(a, mid)  # the bot plays on for her
    assert redis_call(a, "get", leases.key(mid)) is None


def test_a_draining_node_takes_no_match_over(start_node: StartNode) -> None:
    # Node b got SIGTERM (it drains, then stops): taking node a's orphan now would only
    # hand it on again in a moment. Node c, serving on, takes it.
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    _anna, st = match_on(a)
    mid = st["match_id"]
    b.tc.portal.call(b.service.drain)
    crash(a, mid)
    assert sweep(b) == [] and mid not in b.service.runners
    carl = b.person("Carl")  # asked on the draining node: not taken there either
    carl.expect_error({"type": "watch", "match": mid}, "match_not_found")
    assert mid not in b.service.runners
    assert sweep(c) == [mid]


def test_a_player_back_before_the_takeover_gets_the_new_owners_snapshot(
    start_node: StartNode,
) -> None:
    """Her socket reconnected to node b after node a died: node b takes the orphan over
    on her hello and serves her. Then node b dies too while her socket stays on it: the
    node that takes the match over sends her the snapshot without being asked."""
    a = start_node("a")
    b = start_node("b")
    # Started before the match exists, like b: its first sweep (at start) finds nothing.
    c = start_node("c")
    anna, st = match_on(a)
    mid = st["match_id"]
    until_turn(a, mid, 0)
    hand = a.service.runners[mid].table.snapshot(0, a.clock.now())["view"]["hand"]
    crash(a, mid)
    again = b.connect(anna.token, "Anna")
    b.settle()
    assert mid in b.service.runners  # taken over on her hello
    states = [m for m in again.drain() if m["type"] == "state"]
    assert states, "the new owner sent no snapshot"
    last = states[-1]
    assert last["match_id"] == mid and last["view"]["hand"] == hand
    assert last["seats"][0]["connected"] is True
    assert any(e["kind"] == "connected" for m in states for e in m["events"])

    # Node b dies too; her socket stays on b. Node c takes the match over: its log
    # says she is connected already (nothing changes), so c sends her the snapshot.
    crash(b, mid)
    b.settle()
    again.drain()
    assert sweep(c) == [mid]
    c.settle()
    fresh = recv_within(again, lambda m: m["type"] == "state")
    assert fresh["match_id"] == mid and fresh["view"]["hand"] == hand
    assert fresh["v"] == last["v"]  # nothing new stored: a snapshot
