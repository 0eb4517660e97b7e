"""Players and spectators of one match on different nodes (the Redis router).

Two nodes in one process share PostgreSQL (DOMINO_TEST_POSTGRES) and Redis
(DOMINO_TEST_REDIS). A match runs on node a; sockets on node b play and watch
it through Redis. Every frame a socket gets is checked against what its
audience may see: a seat its own hand only, a spectator no hand at all.
Waiting for a frame that crosses nodes is bounded (a dead path fails the test
instead of hanging it); nothing is timed.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

import anyio

from ..harness import Client, Harness
from .nodes import (
    BOUND,
    crash,
    match_on,
    recv_within,
    redis_call,
    stored_log,
    sweep,
    until_turn,
)

if TYPE_CHECKING:
    from .conftest import StartNode


def hands_seen(frames: list[str]) -> list[tuple[int | None, list[str] | None]]:
    out = []
    for raw in frames:
        m = json.loads(raw)
        if m.get("type") == "state":
            out.append((m.get("you"), m.get("view", {}).get("hand")))
    return out


def test_a_player_and_a_spectator_on_another_node(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    anna, st = match_on(a)
    mid = st["match_id"]
    runner = a.service.runners[mid]
    hand = runner.table.snapshot(0, a.clock.now())["view"]["hand"]

    # Anna opens a second window that lands on node b: the welcome names her seat, and
    # the owner (node a) sends that socket her seat's snapshot.
    far = b.connect(anna.token, "Anna")
    welcome = [m for m in map(json.loads, far.frames) if m["type"] == "welcome"]
    assert welcome and welcome[0]["match"] == {"match": mid, "seat": 0}
    snap = recv_within(far, lambda m: m["type"] == "state")
    assert snap["you"] == 0 and snap["view"]["hand"] == hand

    # Carl watches from node b: the spectators' view (no hand), through Redis.
    carl = b.person("Carl")
    seen = carl.request({"type": "watch", "match": mid}, "state")
    assert seen["you"] is None and seen["view"].get("hand") is None

    until_turn(a, mid, 0)  # then Anna moves from node b
    v = runner.table.version
    legal = runner.table.snapshot(0, a.clock.now())["view"]["legal"]
    far.send({"type": "move", "match": mid, "move": legal[0], "v": v, "ref": "far"})
    after = recv_within(far, lambda m: m["type"] == "state" and m["v"] > v)
    assert after["you"] == 0
    assert runner.table.version > v  # played on node a
    # Her window on node a sees the same move; Carl on node b sees it as a spectator.
    recv_within(anna, lambda m: m["type"] == "state" and m["v"] > v)
    watched = recv_within(carl, lambda m: m["type"] == "state" and m["v"] > v)
    assert watched["you"] is None

    # A refused command from node b is answered on that socket only, with its ref.
    far.send({"type": "move", "match": mid, "move": legal[0], "v": v, "ref": "old"})
    err = recv_within(far, lambda m: m["type"] == "error")
    assert (err["code"], err.get("ref")) == ("stale_version", "old")

    # The earlier rounds (none yet) are answered on node b from the stored log, to
    # Anna's seat and to Carl, who watches; not to a stranger.
    ask = {"type": "history", "match": mid}
    for c in (far, carl):
        c.send(ask)
        past = recv_within(c, lambda m: m["type"] in ("earlier_rounds", "error"))
        assert past["type"] == "earlier_rounds" and past["rounds"] == [], past
        assert past["v"] > v  # her move is stored before anyone hears of it
    b.person("Dora").expect_error(ask, "not_watching")

    # What every socket got: Anna's sockets her own hand only (never a tile the bot
    # holds), Carl no hand at all.
    bot_hand = set(runner.table.snapshot(1, a.clock.now())["view"]["hand"])
    for you, shown in hands_seen(far.frames) + hands_seen(anna.frames):
        assert you == 0 and shown is not None and not set(shown) & bot_hand
    for you, shown in hands_seen(carl.frames):
        assert you is None and shown is None


def test_after_failover_a_socket_on_a_third_node_plays_on(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    anna, st = match_on(a)
    mid = st["match_id"]
    runner_a = a.service.runners[mid]
    until_turn(a, mid, 0)
    v = runner_a.table.version
    crash(a, mid)
    assert sweep(b) == [mid]
    # Anna's browser reconnects through the balancer and lands on node c.
    back = c.connect(anna.token, "Anna")
    snap = recv_within(back, lambda m: m["type"] == "state")
    assert snap["you"] == 0 and snap["view"]["turn"] == 0
    legal = snap["view"]["legal"]
    vb = b.service.runners[mid].table.version
    assert vb >= v
    back.send({"type": "move", "match": mid, "move": legal[0], "v": snap["v"]})
    after = recv_within(
        back, lambda m: m["type"] == "error" or (m["type"] == "state" and m["v"] > snap["v"])
    )
    assert after["type"] == "state"
    assert b.service.runners[mid].table.version > vb


def test_after_failover_the_new_owner_tells_sockets_that_stayed_on_other_nodes(
    start_node: StartNode,
) -> None:
    # Anna plays from node c and Carl watches from node c; the match runs on node a,
    # which dies. Neither socket closes, and what they sent node a last is lost with it:
    # node b, taking the match over, sends every audience the table as it is (Anna's
    # seat online, as she is), or they would wait for a change that may never come.
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    anna, st = match_on(a)
    mid = st["match_id"]
    until_turn(a, mid, 0)  # the match waits for Anna: nothing changes by itself
    v = a.service.runners[mid].table.version
    stays = c.connect(anna.token, "Anna")
    recv_within(stays, lambda m: m["type"] == "state")
    carl = c.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")
    anna.close()  # (her socket on the dead node goes with it)
    crash(a, mid)
    assert sweep(b) == [mid]
    told = recv_within(stays, lambda m: m["type"] == "state")
    assert told["v"] == v and told["you"] == 0 and told["view"]["legal"]
    assert told["seats"][0]["connected"] is True
    watched = recv_within(carl, lambda m: m["type"] == "state")
    assert watched["v"] == v and watched["you"] is None
    assert watched["view"].get("hand") is None


def test_a_match_nobody_holds_is_taken_over_by_the_node_a_socket_asks(
    start_node: StartNode,
) -> None:
    # Node a gave the match up (a SIGTERM) or died, and no sweeper has taken it yet: a
    # spectator's watch and a reconnecting player on node c are served, not refused with
    # match_not_found; node c takes the match over there and then.
    a = start_node("a")
    c = start_node("c")
    anna, st = match_on(a)
    mid = st["match_id"]
    until_turn(a, mid, 0)
    v = a.service.runners[mid].table.version
    anna.close()
    crash(a, mid)
    assert mid not in c.service.runners
    carl = c.person("Carl")
    seen = carl.request({"type": "watch", "match": mid}, "state")
    assert seen["v"] == v and seen["you"] is None
    assert c.service.runners[mid].fence > a.service.runners[mid].fence
    back = c.connect(anna.token, "Anna")
    snap = recv_within(back, lambda m: m["type"] == "state")
    assert snap["v"] == v and snap["you"] == 0 and snap["view"]["legal"]
    # A watch of a match that is not running is still refused (and claims nothing).
    err = carl.expect_error({"type": "watch", "match": "m_nothere"}, "match_not_found")
    assert err["code"] == "match_not_found"


def test_with_redis_away_a_command_from_another_node_is_refused_not_failed(
    start_node: StartNode,
) -> None:
    # Node b cannot ask Redis which node drives the match: a move is refused as not
    # stored (nothing accepted, try again), a watch as unreachable; nothing fails.
    from redis.exceptions import ConnectionError as RedisConnectionError

    a = start_node("a")
    b = start_node("b")
    anna, st = match_on(a)
    mid = st["match_id"]
    runner = a.service.runners[mid]
    until_turn(a, mid, 0)
    v = runner.table.version
    far = b.connect(anna.token, "Anna")
    snap = recv_within(far, lambda m: m["type"] == "state")
    carl = b.person("Carl")
    leases = b.service.ownership.leases
    assert leases is not None

    async def away(mid: str) -> str | None:
        raise RedisConnectionError("Error 111 connecting to Redis. Connection refused.")

    leases.holder = away  # type: ignore[method-assign]
    move = snap["view"]["legal"][0]
    far.send({"type": "move", "match": mid, "move": move, "v": v, "ref": "r1"})
    err = recv_within(far, lambda m: m["type"] == "error")
    assert (err["code"], err["ref"]) == ("not_stored", "r1")
    assert "nicht gespeichert" in err["message"]
    err = carl.expect_error({"type": "watch", "match": mid}, "match_unavailable")
    assert "nicht erreichbar" in err["message"]
    assert runner.table.version == v  # nothing was accepted


def test_a_request_reaching_a_node_in_the_middle_of_its_takeover_waits_for_it(
    start_node: StartNode,
) -> None:
    # Node b holds the lease already but is still loading the log (the runner is not
    # there yet); a watch from node c reaches it then: it is served once the takeover is
    # done, not refused with match_not_found.
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    anna, st = match_on(a)
    mid = st["match_id"]
    v = a.service.runners[mid].table.version
    anna.close()
    crash(a, mid)
    desk = b.service.ownership
    leases = desk.leases
    assert leases is not None

    async def begin() -> None:
        await desk._taking.acquire()
        assert await leases.acquire(mid)

    async def end() -> None:
        try:
            # The forwarded watch has reached node b (bounded wait, polled).
            with anyio.fail_after(BOUND):
                while not desk._remote_tasks:
                    await anyio.sleep(0.01)
            await desk._take(mid)
        finally:
            desk._taking.release()

    b.tc.portal.call(begin)
    carl = c.person("Carl")
    carl.send({"type": "watch", "match": mid})
    b.tc.portal.call(end)
    seen = recv_within(carl, lambda m: m["type"] in ("state", "error"))
    assert seen["type"] == "state" and seen["v"] >= v and seen["you"] is None, seen


def anna_and_her_window(a: Harness, b: Harness) -> tuple[Client, str, int, Client, dict[str, Any]]:
    """Anna against a bot on node ``a``, at her turn, and her second window on node ``b``
    with its first snapshot: ``(anna, match, version, window, snapshot)``."""
    anna, st = match_on(a)
    mid = st["match_id"]
    until_turn(a, mid, 0)
    v = a.service.runners[mid].table.version
    far = b.connect(anna.token, "Anna")
    snap = recv_within(far, lambda m: m["type"] == "state")
    return anna, mid, v, far, snap


def answered_by_a_state(far: Client, v: int) -> None:
    """``far``'s next answer is the state after its move at ``v`` (not an error)."""
    seen = recv_within(far, lambda m: m["type"] == "error" or m.get("v", 0) > v)
    assert seen["type"] == "state" and seen["you"] == 0, seen


def test_a_move_reaching_the_old_owner_while_it_takes_the_match_back_waits_for_it(
    start_node: StartNode,
) -> None:
    # Node a lost the match's lease (Redis was away) and keeps its stopped copy. As it
    # takes the match back (the lease names node a again, the log is still loading), a
    # move from Anna's window on node b reaches it: served once the takeover is done,
    # not refused with match_moved.
    a = start_node("a")
    b = start_node("b")
    _, mid, v, far, snap = anna_and_her_window(a, b)
    desk = a.service.ownership
    leases = desk.leases
    assert leases is not None

    async def lose() -> None:
        a.service.match_desk.abandon(mid)

    a.tc.portal.call(lose)
    redis_call(a, "delete", leases.key(mid))
    assert a.service.runners[mid].moved

    async def begin() -> None:
        await desk._taking.acquire()
        assert await leases.acquire(mid)

    async def end() -> None:
        try:
            with anyio.fail_after(BOUND):  # the forwarded move has reached node a
                while not desk._remote_tasks:
                    await anyio.sleep(0.01)
            await desk._take(mid)
        finally:
            desk._taking.release()

    a.tc.portal.call(begin)
    move = snap["view"]["legal"][0]
    far.send({"type": "move", "match": mid, "move": move, "v": v, "ref": "back"})
    a.tc.portal.call(end)
    answered_by_a_state(far, v)
    assert a.service.runners[mid].table.version == v + 1


def test_a_move_reaching_a_node_after_it_gave_the_match_up_goes_on_to_the_new_owner(
    start_node: StartNode,
) -> None:
    # Node b forwarded Anna's move to node a just as node a lost the match (or it was
    # held up while Redis was away), and node b has taken the match over since: node a
    # passes the move on to node b, which plays it and answers Anna's socket; she never
    # hears match_moved for a move the cluster can still play.
    a = start_node("a")
    b = start_node("b")
    _, mid, v, far, snap = anna_and_her_window(a, b)
    crash(a, mid)

    async def lose() -> None:
        a.service.match_desk.abandon(mid)

    a.tc.portal.call(lose)
    assert sweep(b) == [mid]
    recv_within(far, lambda m: m["type"] == "state")  # the new owner's snapshot
    pid = far.profile["id"]
    conn = next(iter(b.service.router.sockets_of(pid)))

    async def stale() -> None:
        b.service.router.send_to_node(
            "a",
            {
                "kind": "command",
                "match": mid,
                "profile": pid,
                "node": "b",
                "conn": conn.id,
                "cmd": {"type": "move", "match": mid, "move": snap["view"]["legal"][0], "v": v},
                "ref": "late",
            },
        )

    b.tc.portal.call(stale)
    answered_by_a_state(far, v)
    assert b.service.runners[mid].table.version == v + 1


def test_sockets_of_a_node_whose_subscriber_was_away_get_a_fresh_snapshot_when_it_is_back(
    start_node: StartNode,
) -> None:
    # Node b's subscriber loses Redis for a moment. Meanwhile node a, which drives the
    # match, applies a move: that frame never reaches b (Redis pub/sub keeps nothing for
    # a subscriber that is away). Once b is subscribed again it asks a for fresh
    # snapshots, so Anna's window and Carl on node b see the table as it is now instead
    # of waiting, perhaps for good (the frame lost may be the match's end).
    a = start_node("a")
    b = start_node("b")
    anna, mid, v, far, _ = anna_and_her_window(a, b)
    runner = a.service.runners[mid]
    carl = b.person("Carl")
    carl.request({"type": "watch", "match": mid}, "state")

    router: Any = b.service.router
    gate: asyncio.Event = b.tc.portal.call(_new_event)
    connect = router._connect_raw

    async def held(role: str) -> Any:
        if role == "sub":
            await gate.wait()
        return await connect(role)

    async def cut() -> None:
        router._connect_raw = held
        router._writer.close()  # the subscriber's connection is gone
        while router.healthy:
            await asyncio.sleep(0.01)

    b.tc.portal.call(cut)
    legal = runner.table.snapshot(0, a.clock.now())["view"]["legal"]
    anna.send({"type": "move", "match": mid, "move": legal[0], "v": v, "ref": "m"})
    recv_within(anna, lambda m: m["type"] == "state" and m["v"] > v)
    a.tc.portal.call(a.service.router.settle)  # published while b was away
    assert runner.table.version == v + 1

    b.tc.portal.call(gate.set)
    for c in (far, carl):
        now = recv_within(c, lambda m: m["type"] == "state" and m["v"] == v + 1)
        assert now["you"] == (0 if c is far else None)


async def _new_event() -> asyncio.Event:
    return asyncio.Event()


def silence(h: Harness, mid: str) -> None:
    """Node ``h`` dies between a forwarded command and its answer (a ``kill -9``): its
    tasks end and it hears and publishes nothing more, but its lease stays until it
    expires (the test deletes it, as Redis does when it does)."""

    async def halt() -> None:
        for task in h.service.ownership._tasks:
            task.cancel()
        runner = h.service.runners[mid]
        if runner.task is not None:
            runner.task.cancel()
        await h.service.router.stop(clean=False)

    h.tc.portal.call(halt)


def handled(client: Client) -> None:
    """Everything ``client`` sent before has been handled by its node: a socket's
    messages are handled in order, so the answer to a ping comes after them."""
    assert client.request({"type": "ping"}, "pong")


def recheck(h: Harness) -> None:
    """One look of ``h``'s sweeper at the commands it forwarded (``recheck_forwarded``)."""
    h.tc.portal.call(h.service.ownership.recheck_forwarded)


def test_a_move_forwarded_to_an_owner_that_dies_before_answering_is_sent_to_the_next(
    start_node: StartNode,
) -> None:
    # Anna's window is on node b; node a drives the match and is killed right after node
    # b forwarded her move to it: neither stored nor refused, and node a's lease still
    # names it. Once the lease expires and node c takes the match over, node b's next
    # sweep sends the move to node c, which plays it: Anna gets her answer without
    # sending anything again (before, she waited for her turn clock to play for her).
    a = start_node("a")
    b = start_node("b")
    c = start_node("c")
    _, mid, v, far, snap = anna_and_her_window(a, b)
    move = snap["view"]["legal"][0]
    leases = b.service.ownership.leases
    assert leases is not None
    silence(a, mid)
    far.send({"type": "move", "match": mid, "move": move, "v": v, "ref": "lost"})
    handled(far)  # node b took the move (settle alone may look before it arrives)
    b.settle()
    flying = b.service.ownership.in_flight
    assert [(p.match, p.owner, p.ref) for p in flying.open.values()] == [(mid, "a", "lost")]
    recheck(b)  # node a still holds the lease: nothing to do yet
    assert len(flying.open) == 1
    entries = len(stored_log(c, mid))

    redis_call(b, "delete", leases.key(mid))  # node a's lease expires
    assert sweep(c) == [mid]
    b.clock.advance(1.0)  # the next sweep of node b, a moment later
    recheck(b)
    answered_by_a_state(far, v)
    runner = c.service.runners[mid]
    assert runner.table.version >= v + 1
    played = [e for e in stored_log(c, mid)[entries:] if e.get("seat") == 0]
    assert [(e["kind"], e.get("payload", {}).get("move")) for e in played][:1] == [
        ("move", move)
    ], played
    b.settle()
    c.settle()
    assert flying.open == {}  # node c said it handled the move


def test_a_move_whose_owner_dies_and_nobody_took_over_yet_is_served_by_the_forwarder(
    start_node: StartNode,
) -> None:
    # As above, but no other node has taken the match over when node b looks: node b
    # takes it over itself and plays the move.
    a = start_node("a")
    b = start_node("b")
    _, mid, v, far, snap = anna_and_her_window(a, b)
    leases = b.service.ownership.leases
    assert leases is not None
    silence(a, mid)
    far.send({"type": "move", "match": mid, "move": snap["view"]["legal"][0], "v": v})
    handled(far)  # node b took the move (settle alone may look before it arrives)
    b.settle()
    redis_call(b, "delete", leases.key(mid))
    b.clock.advance(1.0)
    recheck(b)
    answered_by_a_state(far, v)
    assert b.service.runners[mid].table.version >= v + 1
    assert b.service.ownership.in_flight.open == {}


def test_a_forwarded_move_without_an_answer_while_the_owner_holds_on_hears_match_moved(
    start_node: StartNode,
) -> None:
    # The move never reached node a (lost on the way) and node a keeps its lease: after
    # FORWARD_TIMEOUT node b answers match_moved with the move's ref, which the browser
    # answers by reconnecting and sending the move again.
    from domino.server.cluster.forwarding import FORWARD_TIMEOUT

    a = start_node("a")
    b = start_node("b")
    _, mid, v, far, snap = anna_and_her_window(a, b)
    silence(a, mid)
    far.send({"type": "move", "match": mid, "move": snap["view"]["legal"][0], "v": v, "ref": "m1"})
    handled(far)  # node b took the move (settle alone may look before it arrives)
    b.settle()
    b.clock.advance(FORWARD_TIMEOUT / 2)
    recheck(b)
    assert len(b.service.ownership.in_flight.open) == 1
    b.clock.advance(FORWARD_TIMEOUT / 2)
    recheck(b)
    err = recv_within(far, lambda m: m["type"] == "error")
    assert (err["code"], err["ref"], err["match"]) == ("match_moved", "m1", mid)
    assert b.service.ownership.in_flight.open == {}
