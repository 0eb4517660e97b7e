"""The Redis router between nodes, in a real Redis (DOMINO_TEST_REDIS).

Two or three routers (nodes) share one event loop and one Redis, under a prefix of
their own per test. ``settle()`` makes a node's subscriptions effective, publishes
its queue and waits until everything published before has reached it: no sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from domino.server.cluster.bus import UNHEARD_PROBE
from domino.server.cluster.redisrouter import RedisRouter
from domino.server.cluster.router import InProcessRouter
from domino.server.transport.conn import Conn

from ..redis_keys import NO_REDIS, REDIS_ADMIN, redis_url


class FakeConn(Conn):
    """A socket that records what it was sent."""

    def __init__(self, profile: str) -> None:
        super().__init__(profile, profile)
        self.got: list[str] = []

    def send_text(self, text: str) -> None:
        self.got.append(text)


@pytest.fixture
async def nodes(redis_prefix: str) -> AsyncIterator[Callable[..., Any]]:
    """``await make("a")`` starts a router named ``a``; all are stopped at the end."""
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    made: list[tuple[RedisRouter, Any]] = []

    async def make(node: str, **kw: Any) -> RedisRouter:
        client = aioredis.from_url(
            redis_url(), decode_responses=True, client_name=f"{redis_prefix}{node}"
        )
        r = RedisRouter(client, node, prefix=redis_prefix, **kw)
        await r.start()
        made.append((r, client))
        await r.settle()
        return r

    yield make
    for r, client in made:
        await r.stop()
        await client.aclose()


async def settle(*routers: RedisRouter) -> None:
    for r in routers:
        await r.settle()
    for r in routers:  # the second round: what the first round's publishers sent has arrived
        await r.settle()


async def test_a_players_sockets_on_two_nodes_get_each_frame_once_in_order(
    nodes: Callable[..., Any],
) -> None:
    a, b, c = await nodes("a"), await nodes("b"), await nodes("c")
    on_a, on_b = FakeConn("p1"), FakeConn("p1")
    assert a.add_socket(on_a) and b.add_socket(on_b)
    await settle(a, b, c)
    for i in range(50):
        c.to_player("p1", {"type": "state", "v": i})  # the owner is c: no socket of p1
    await settle(c, a, b)
    # Now the owner is a, which has a socket of the player (local at once, b via Redis).
    a.to_player("p1", {"type": "state", "v": 50})
    await settle(c, a, b)
    want = [f'{{"type":"state","v":{i}}}' for i in range(51)]
    assert on_a.got == want and on_b.got == want


async def test_spectators_on_another_node_get_the_spectator_frames(
    nodes: Callable[..., Any],
) -> None:
    a, b = await nodes("a"), await nodes("b")
    viewer, player = FakeConn("v"), FakeConn("p1")
    b.add_socket(viewer)
    b.add_socket(player)
    b.watch("m1", viewer)
    viewer.watching.add("m1")
    await settle(a, b)
    a.to_spectators("m1", {"type": "state", "seat": None})
    a.to_spectators("m2", {"type": "state", "match": "m2"})  # nobody watches m2
    await settle(a, b)
    assert viewer.got == ['{"type":"state","seat":null}']
    assert player.got == []


async def test_no_seat_frame_travels_on_another_audiences_channel(
    nodes: Callable[..., Any], redis_prefix: str
) -> None:
    import redis.asyncio as aioredis

    a, b = await nodes("a"), await nodes("b")
    spy = aioredis.from_url(redis_url(), decode_responses=True)
    pubsub = spy.pubsub()
    await pubsub.psubscribe(redis_prefix + "*")
    while (await pubsub.get_message(timeout=1.0)) is None:  # the psubscribe confirmation
        pass
    for pid in ("p0", "p1"):
        a.add_socket(FakeConn(pid))
        b.add_socket(FakeConn(pid))
    w = FakeConn("w")
    b.add_socket(w)
    b.watch("m1", w)
    await settle(a, b)
    for v in range(20):
        for seat, pid in enumerate(("p0", "p1")):
            a.to_player(pid, {"type": "state", "seat": seat, "for": pid, "v": v})
        a.to_spectators("m1", {"type": "state", "seat": None, "for": "spectators", "v": v})
    await settle(a, b)
    seen = 0
    a.send_to_node("b", {"end": True})
    while True:
        msg = await pubsub.get_message(timeout=2.0)
        assert msg is not None, "the spy missed the end marker"
        if msg["type"] != "pmessage":
            continue
        ch: str = msg["channel"]
        body = msg["data"].partition("\n")[2]
        if ch == redis_prefix + "node:b" and '"end"' in body:
            break
        if '"type":"state"' not in body:
            continue  # presence, settle markers
        seen += 1
        audience = ch.removeprefix(redis_prefix)
        if '"for":"spectators"' in body:
            assert audience == "spectators:m1"
            assert '"seat":null' in body
        else:
            pid = body.split('"for":"')[1].split('"')[0]
            assert audience == f"player:{pid}", (audience, body)
    assert seen == 60
    await pubsub.aclose()
    await spy.aclose()


async def test_a_node_unsubscribes_when_the_last_socket_goes(
    nodes: Callable[..., Any], redis_prefix: str
) -> None:
    a, b = await nodes("a"), await nodes("b")
    s1, s2 = FakeConn("p1"), FakeConn("p1")
    b.add_socket(s1)
    b.add_socket(s2)
    b.watch("m1", s1)
    s1.watching.add("m1")
    await settle(a, b)
    channels = await a.redis.pubsub_channels(redis_prefix + "*")
    assert {redis_prefix + "player:p1", redis_prefix + "spectators:m1"} <= set(channels)
    assert not b.remove_socket(s1)  # p1 still has s2 on b; s1 watched m1 alone
    await settle(a, b)
    channels = set(await a.redis.pubsub_channels(redis_prefix + "*"))
    assert redis_prefix + "player:p1" in channels and redis_prefix + "spectators:m1" not in channels
    assert b.remove_socket(s2)
    await settle(a, b)
    channels = set(await a.redis.pubsub_channels(redis_prefix + "*"))
    assert redis_prefix + "player:p1" not in channels
    a.to_player("p1", {"late": 1})
    await settle(a, b)
    assert s2.got == [] and s1.got == []
    # forget_match drops the subscription too
    s3 = FakeConn("p2")
    b.add_socket(s3)
    b.watch("m2", s3)
    await settle(b)
    assert redis_prefix + "spectators:m2" in set(await a.redis.pubsub_channels(redis_prefix + "*"))
    assert b.forget_match("m2") == {s3}
    await settle(b)
    assert redis_prefix + "spectators:m2" not in set(
        await a.redis.pubsub_channels(redis_prefix + "*")
    )


async def test_presence_across_nodes_and_a_node_that_dies_without_cleaning_up(
    nodes: Callable[..., Any],
) -> None:
    a = await nodes("a")
    b = await nodes("b", alive_ttl=0.3, beat=0.1)
    events: list[tuple[str, bool]] = []
    a.on_presence(lambda pid, up: events.append((pid, up)))
    s = FakeConn("p1")
    b.add_socket(s)
    await settle(b, a)
    assert a.online("p1") and b.online("p1") and not a.online("p2")
    assert a.nodes_of("p1") == {"b"}
    assert events == [("p1", True)]
    # A socket on a too: no change seen from a; then b's goes: still online (on a).
    t = FakeConn("p1")
    a.add_socket(t)
    b.remove_socket(s)
    await settle(b, a)
    assert a.online("p1") and a.nodes_of("p1") == {"a"} and events == [("p1", True)]
    a.remove_socket(t)
    assert not a.online("p1") and events == [("p1", True), ("p1", False)]
    # A new node learns the presence already there when it starts.
    b.add_socket(FakeConn("p3"))
    await settle(b)
    c = await nodes("c")
    assert c.online("p3") and not c.online("p1")
    # b dies (kill -9): no cleanup, its liveness stops being refreshed, the key expires.
    b._beat_paused = True
    for t_ in b._tasks:
        t_.cancel()
    await a.redis.delete(f"{a.prefix}alive:b")  # as if its TTL ran out
    await a._heartbeat_once()
    assert not a.online("p3")
    assert events[-1] == ("p3", False)
    await c._heartbeat_once()
    assert not c.online("p3")
    assert not await a.redis.exists(f"{a.prefix}profiles:b")  # the dead node's set is gone


async def test_the_liveness_key_expires_by_its_ttl(nodes: Callable[..., Any]) -> None:
    a = await nodes("a")
    b = await nodes("b", alive_ttl=0.3, beat=0.1)
    b.add_socket(FakeConn("p1"))
    await settle(b, a)
    assert a.online("p1")
    b._beat_paused = True
    key = f"{a.prefix}alive:b"
    ttl = await a.redis.pttl(key)
    assert 0 < ttl <= 300
    await asyncio.sleep(ttl / 1000 + 0.05)  # the TTL itself, well under a second
    assert not await a.redis.exists(key)
    await a._heartbeat_once()
    assert not a.online("p1")
    # b wakes up: its next beat finds its key gone and announces its presence again.
    b._beat_paused = False
    await b._heartbeat_once()
    await settle(b, a)
    assert a.online("p1")


async def test_node_messages_arrive_in_order_and_replies_reach_one_socket(
    nodes: Callable[..., Any],
) -> None:
    a, b = await nodes("a"), await nodes("b")
    got: list[tuple[str, dict[str, Any]]] = []
    b.on_node_message(lambda sender, payload: got.append((sender, payload)))
    for i in range(100):
        a.send_to_node("b", {"cmd": "move", "seq": i})
    await settle(a, b)
    assert got == [("a", {"cmd": "move", "seq": i}) for i in range(100)]
    one, other = FakeConn("p1"), FakeConn("p1")
    b.add_socket(one)
    b.add_socket(other)
    a.reply("b", one.id, "p1", {"type": "error", "code": "not_your_turn"})
    await settle(a, b)
    assert one.got == ['{"type":"error","code":"not_your_turn"}'] and other.got == []
    b.reply("b", other.id, "p1", {"x": 1})  # on its own node: at once
    assert other.got == ['{"x":1}']
    # A reply meant for another profile's socket of that id (a node that restarted and
    # counts its sockets from 1 again) reaches nobody: it may carry a seat's hand.
    a.reply("b", one.id, "p2", {"hand": ["6|6"]})
    b.reply("b", other.id, "p2", {"hand": ["6|6"]})
    await settle(a, b)
    assert len(one.got) == 1 and other.got == ['{"x":1}']


async def test_redis_unreachable_never_blocks_and_the_queue_is_bounded(redis_prefix: str) -> None:
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    away = aioredis.from_url("redis://127.0.0.1:1/0", decode_responses=True)
    r = RedisRouter(away, "a", prefix=redis_prefix, queue_limit=100, backoff=(0.01, 0.05))
    await r.start()
    s = FakeConn("p1")
    r.add_socket(s)
    r.watch("m1", s)
    for i in range(250):
        r.to_spectators("m1", {"v": i})
    assert len(s.got) == 250  # the local socket still gets everything at once
    assert not r.healthy
    assert len(r._out) <= 100 and r.dropped >= 150
    assert r.online("p1")
    await r.stop()
    await away.aclose()


async def test_the_subscriber_reconnects_and_resubscribes_after_redis_goes(
    nodes: Callable[..., Any], redis_prefix: str
) -> None:
    a, b = await nodes("a"), await nodes("b")
    s, w = FakeConn("p1"), FakeConn("w")
    b.add_socket(s)
    b.add_socket(w)
    b.watch("m1", w)
    await settle(a, b)
    # Every connection of the test's routers is cut, as a Redis restart does.
    admin = a.redis
    killed = 0
    for client in await admin.client_list():
        if client.get("name", "").startswith(redis_prefix):
            await admin.client_kill_filter(_id=client["id"])
            killed += 1
    assert killed >= 4  # the subscribers and the command connections
    # The reconnect happens by itself; settle() again once the subscriber is back.
    for r in (a, b):
        while True:
            try:
                await r.settle()
                break
            except ConnectionError:
                await asyncio.sleep(0.02)
    await settle(a, b)
    assert a.healthy and b.healthy and a.online("p1")
    a.to_player("p1", {"v": "after"})
    a.to_spectators("m1", {"v": "spect"})
    await settle(a, b)
    assert s.got[-1:] == ['{"v":"after"}'] and w.got[-1:] == ['{"v":"spect"}']


async def test_the_same_local_registry_as_the_in_process_router(
    nodes: Callable[..., Any],
) -> None:
    a = await nodes("a")
    plain = InProcessRouter()
    for r in (a, plain):
        c1, c2 = FakeConn("p1"), FakeConn("p1")
        assert r.add_socket(c1) and not r.add_socket(c2)
        r.watch("m1", c1)
        c1.watching.add("m1")
        assert set(r.sockets_of("p1")) == {c1, c2} and set(r.watchers("m1")) == {c1}
        r.to_player("p1", {"a": 1})
        r.to_spectators("m1", {"b": 2})
        assert c1.got == ['{"a":1}', '{"b":2}'] and c2.got == ['{"a":1}']
        assert not r.remove_socket(c1) and not r.watchers("m1") and r.remove_socket(c2)
        assert r.conns == {} and r.spectators == {}


async def test_a_players_frames_stay_off_redis_while_no_other_node_has_a_socket(
    nodes: Callable[..., Any],
) -> None:
    a, b = await nodes("a"), await nodes("b")
    mine = FakeConn("p1")
    a.add_socket(mine)
    await settle(a, b)
    channels: list[str] = []
    publish = a._publish
    a._publish = lambda ch, body, match="": (  # type: ignore[method-assign]
        channels.append(ch),
        publish(ch, body, match),
    )
    a.to_player("p1", {"v": 1})
    a.to_player("nobody", {"v": 2})
    assert mine.got == ['{"v":1}'] and channels == []
    # b gets a socket of p1: its announcement reaches a before b's next message does.
    other = FakeConn("p1")
    b.add_socket(other)
    got: list[dict[str, Any]] = []
    a.on_node_message(lambda sender, payload: (got.append(payload), a.to_player("p1", payload)))
    b.send_to_node("a", {"v": 3})  # e.g. a snapshot request forwarded to the owner
    await settle(b, a, b)
    assert got == [{"v": 3}] and other.got == ['{"v":3}'] and mine.got[-1] == '{"v":3}'
    assert a.prefix + "player:p1" in channels


async def test_a_node_that_stops_cleanly_leaves_the_presence_at_once(
    nodes: Callable[..., Any],
) -> None:
    a, b = await nodes("a"), await nodes("b")
    events: list[tuple[str, bool]] = []
    a.on_presence(lambda pid, up: events.append((pid, up)))
    b.add_socket(FakeConn("p1"))
    await settle(b, a)
    assert a.online("p1")
    await b.stop()
    await a.settle()
    assert not a.online("p1") and events == [("p1", True), ("p1", False)]
    assert not await a.redis.exists(f"{a.prefix}alive:b")


async def test_frames_of_a_match_this_node_gave_up_are_never_published(redis_prefix: str) -> None:
    """Frames queued while Redis is away, of a match the node then stops acting for (its
    lease lost), would reach the sockets after the new owner's newer ones: they go."""
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    away = aioredis.from_url("redis://127.0.0.1:1/0", decode_responses=True)
    r = RedisRouter(away, "a", prefix=redis_prefix, backoff=(0.01, 0.05))
    await r.start()
    r._where["p1"] = {"b"}  # p1 has a socket on node b: its frames go through Redis

    def queued(match: str) -> int:
        return sum(1 for op in r._out if op[0] == "pub" and op[3] == match)

    for i in range(5):
        r.to_spectators("m1", {"v": i})
        r.to_player("p1", {"v": i}, "m1")
        r.to_spectators("m2", {"v": i})
    assert queued("m1") == 10 and queued("m2") == 5
    r.forget_frames("m1")
    assert queued("m1") == 0 and queued("m2") == 5
    r.to_spectators("m1", {"v": 9})  # nothing more of it is queued ...
    r.to_player("p1", {"v": 9}, "m1")
    r.to_player("p1", {"type": "lobby"})  # ... but what is not of the match is
    assert queued("m1") == 0 and queued("") >= 1
    r.keep_frames("m1")  # the node drives it again
    r.to_spectators("m1", {"v": 10})
    assert queued("m1") == 1
    await r.stop(clean=False)
    await away.aclose()


async def test_a_matchs_frames_are_not_published_while_no_node_listens(
    nodes: Callable[..., Any],
) -> None:
    """Redis answers a PUBLISH with the number of subscribers: once no node listens to a
    match's spectators' channel, its owner stops publishing the match's frames, until a
    node asks for a snapshot (it subscribes first, then asks), or a while has passed."""
    a, b = await nodes("a"), await nodes("b")
    now = [0.0]
    a._now = lambda: now[0]

    async def published(*frames: int) -> int:
        # How many of these frames of m1 went to Redis (a's settle publishes one marker).
        before = a.published
        for v in frames:
            a.to_spectators("m1", {"v": v}, frame=True)
        await a.settle()
        return a.published - before - 1

    assert await published(0) == 1  # nobody listens: Redis says 0
    assert await published(1, 2, 3) == 0
    before = a.published
    a.to_spectators("m1", {"talk": 1})  # what is not a frame still goes
    await a.settle()
    assert a.published - before == 2 and "m1" in a._unheard
    now[0] += UNHEARD_PROBE - 0.1
    assert await published(4) == 0
    now[0] += 0.1  # a while later the owner tries again: still nobody
    assert await published(5, 6) == 2
    assert await published(7) == 0
    watcher = FakeConn("w")
    b.add_socket(watcher)
    b.watch("m1", watcher)
    await settle(a, b)
    a.hear_spectators("m1")  # b's snapshot request reached the owner
    assert await published(8, 9) == 2
    await settle(a, b)
    assert watcher.got[-2:] == ['{"v":8}', '{"v":9}']
    # A frame queued before a later snapshot request cannot switch the channel off,
    # even when Redis counts nobody for it.
    b.unwatch("m1", watcher)
    await settle(a, b)
    a.to_spectators("m1", {"v": 10}, frame=True)  # queued: nobody will hear it
    a.hear_spectators("m1")  # ... but a node asked meanwhile
    await a.settle()
    assert "m1" not in a._unheard
    assert await published(11) == 1
    assert "m1" in a._unheard  # that one's count switched it off
    # A match this node stops acting for starts again as heard when it comes back.
    a.forget_frames("m1")
    a.keep_frames("m1")
    assert await published(12) == 1
