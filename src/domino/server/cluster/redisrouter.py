"""The router between nodes: one Redis channel per audience, presence, node messages.

:class:`RedisRouter` is the :class:`~domino.server.cluster.router.InProcessRouter` of a
node of a cluster: the same local registry (``conns``: profile -> sockets,
``spectators``: match -> sockets), inherited, plus a bus to the other nodes (Redis):

Channels (all under ``prefix``):

- ``player:{profile}``: every frame for that player's seat, and nothing else. A
  node subscribes while it has at least one socket of the profile.
- ``spectators:{match}``: the spectators' frames of a match. A node subscribes
  while one of its sockets watches the match.
- ``node:{node}``: messages for one node (commands forwarded to the owner of a
  match, replies to one socket), :meth:`RedisRouter.send_to_node`.
- ``presence``: each node announces when a profile gets its first socket on it
  (``+``) or loses its last (``-``), or that its whole set changed (``!``).

``to_player`` and ``to_spectators`` are synchronous (the match runner calls
them): the message is encoded once, handed at once to this node's sockets of that
audience, and queued for the publisher task, which publishes the queue in order
on one connection (Redis keeps one publisher's order per channel). A payload is
``{sender}\\n{text}``, so a node skips what it sent itself (delivered locally
already). A player's frame is published only while the presence cache says
another node has a socket of that player: a node announces a profile's first
socket (``+``) before it forwards anything for that socket, and one publisher's
messages arrive in order, so the owner knows of the socket before it handles
the socket's first forwarded command (a snapshot request, say).

Presence: the set ``profiles:{node}`` holds the profiles with a socket on that
node; ``alive:{node}`` is a key with a TTL (``alive_ttl``) the node refreshes every
``beat`` seconds; ``nodes`` is the set of nodes that ever registered. The
heartbeat is one script: it refreshes our key, and forgets every node whose key
expired (a ``kill -9``: its profiles set is deleted) and returns the live nodes.
Each node keeps a cache (profile -> the other nodes where it has sockets), loaded
from Redis when the subscriber (re)connects and kept up to date by the
announcements, so :meth:`RedisRouter.online` is synchronous and cheap.

Redis away: publishing never blocks the caller; the queue holds up to
``queue_limit`` messages, then the oldest are dropped (``dropped`` counts them, a
warning is logged). The subscriber reconnects with backoff and subscribes again
to everything it needs, then reloads presence. After an outage this node writes
its presence again (its set may have been dropped as dead meanwhile).
Messages published while a subscriber was away are lost (Redis pub/sub keeps
nothing): once it is subscribed again, the :meth:`RedisRouter.on_back` callbacks
run, and the match desk asks each match's owner for a fresh snapshot for this
node's sockets that follow it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import BaseModel

from domino.server.cluster import resp
from domino.server.cluster.router import InProcessRouter, deliver
from domino.server.desks.doors import channel
from domino.server.transport.conn import Conn, encode

log = logging.getLogger("domino.redisrouter")

#: The heartbeat: refresh our liveness, drop dead nodes, return [was_alive, live nodes].
BEAT = """
local p, me = ARGV[1], ARGV[2]
local was = redis.call('EXISTS', p .. 'alive:' .. me)
redis.call('SET', p .. 'alive:' .. me, '1', 'PX', ARGV[3])
redis.call('SADD', p .. 'nodes', me)
local live = {}
for _, n in ipairs(redis.call('SMEMBERS', p .. 'nodes')) do
  if redis.call('EXISTS', p .. 'alive:' .. n) == 1 then
    table.insert(live, n)
  else
    redis.call('SREM', p .. 'nodes', n)
    redis.call('DEL', p .. 'profiles:' .. n)
  end
end
return {was, live}
"""

#: Every live node's profiles: [node, {profiles}, node, {profiles}, ...].
LOAD = """
local p = ARGV[1]
local out = {}
for _, n in ipairs(redis.call('SMEMBERS', p .. 'nodes')) do
  if redis.call('EXISTS', p .. 'alive:' .. n) == 1 then
    table.insert(out, n)
    table.insert(out, redis.call('SMEMBERS', p .. 'profiles:' .. n))
  end
end
return out
"""

PresenceCallback = Callable[[str, bool], None]
NodeCallback = Callable[[str, dict[str, Any]], None]

_BATCH = 512  # operations per pipeline round trip


class RedisRouter(InProcessRouter):
    """A node's router: its own sockets, and Redis channels to and from the others.

    ``redis`` is a ``redis.asyncio.Redis`` (``decode_responses=True``); it carries the
    publishing, the heartbeat and the presence reads. The subscriber uses one
    connection of its own to the same server (host, port, credentials and TLS taken
    from ``redis``'s connection pool).
    """

    def __init__(
        self,
        redis: Any,
        node: str,
        *,
        prefix: str = "domino:",
        alive_ttl: float = 3.0,
        beat: float = 1.0,
        queue_limit: int = 10_000,
        backoff: tuple[float, float] = (0.05, 2.0),
    ) -> None:
        if not node or "\n" in node:
            raise ValueError("a node name must be non-empty and on one line")
        if not 0 < beat < alive_ttl:
            raise ValueError("the heartbeat must be shorter than the liveness TTL")
        super().__init__()
        self.redis = redis
        self.node = node
        self.prefix = prefix
        self.alive_ttl = alive_ttl
        self.beat = beat
        self.queue_limit = queue_limit
        self.backoff = backoff
        #: messages dropped because the queue was full (Redis away too long)
        self.dropped = 0
        #: messages published / received from other nodes (for metrics and the bench)
        self.published = 0
        self.received = 0
        self._by_id: dict[int, Conn] = {}
        self._node_ch = self._ch("node", node)
        self._presence_ch = prefix + "presence"
        self._head = (node + "\n").encode()
        # Redis channels wanted beyond the two fixed ones: name -> (kind, key).
        self._wanted: dict[str, tuple[str, str]] = {}
        # Matches this node stopped acting for: their frames are not published.
        self._forgotten: set[str] = set()
        #: Whether this node still drives a match (its lease, by the local deadline);
        #: frames of a match it does not are not published (set by the match desk).
        self.owns: Callable[[str], bool] | None = None
        # The queue: ("pub", channel, payload, match) or ("cmd", *args) or ("sync",);
        # ``match`` names the match a frame is of ("" for any other message).
        self._out: deque[tuple[str, ...]] = deque()
        self._in_flight = 0
        self._wake: asyncio.Event | None = None
        self._drained: asyncio.Event | None = None
        self._ready: asyncio.Event | None = None  # subscribed and presence loaded
        self._first_beat: asyncio.Event | None = None  # the heartbeat has tried once
        # The publisher's and the subscriber's connections (RESP spoken here).
        self._pub: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._pongs: deque[asyncio.Future[None] | str] = deque()
        self._markers: dict[str, asyncio.Future[None]] = {}
        self._marker_ids = itertools.count(1)
        # Presence cache of the other nodes.
        self._where: dict[str, set[str]] = {}  # profile -> other nodes with sockets
        self._of_node: dict[str, set[str]] = {}  # other node -> its profiles
        self._presence_cbs: list[PresenceCallback] = []
        self._node_cbs: list[NodeCallback] = []
        self._back_cbs: list[Callable[[], None]] = []
        self._subscribed_once = False  # a later subscription follows an outage
        self._sub_ok = False
        self._pub_ok = True
        self._beat_ok = False
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._needs_sync = False  # ops were dropped: rewrite our presence first
        self._beat_paused = False  # stopping, or tests: a node that stops its heartbeat
        # Reads one push or reply on the subscribed connection (``domino bench router``
        # puts redis-py's parser here, to compare).
        self._read_frame: Callable[[asyncio.StreamReader], Awaitable[Any]] = resp.read
        self._beat_script = redis.register_script(BEAT)
        self._load_script = redis.register_script(LOAD)

    def _ch(self, kind: str, key: str) -> str:
        return self.prefix + channel(kind, key)

    # -- life --------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the subscriber, the publisher and the heartbeat; this node registers
        as alive and (re)writes its presence. Returns at once, Redis there or not."""
        self._stopping = False
        self._beat_paused = False
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()
        self._drained.set()
        self._ready = asyncio.Event()
        self._first_beat = asyncio.Event()
        self._resync()
        self._tasks = [
            asyncio.create_task(self._subscriber(), name=f"router-sub-{self.node}"),
            asyncio.create_task(self._publisher(), name=f"router-pub-{self.node}"),
            asyncio.create_task(self._heartbeat(), name=f"router-beat-{self.node}"),
        ]

    async def stop(self, *, clean: bool = True) -> None:
        """End the three tasks; with ``clean`` try (briefly) to publish what is queued
        and to leave the cluster's presence (a dying node does not)."""
        if clean and self._tasks:
            self._beat_paused = True  # the heartbeat must not write our key back
            self._enqueue(("cmd", "DEL", self._key("profiles", self.node)))
            self._enqueue(("cmd", "DEL", self._key("watchers", self.node)))
            self._enqueue(("cmd", "DEL", self._key("alive", self.node)))
            self._publish(self._presence_ch, "!")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await self._flush()
        self._stopping = True
        for t in self._tasks:
            # Cancel until done: a cancellation that meets a finishing await can be
            # lost (asyncio.wait_for in Python 3.11), and the loops check _stopping.
            while not t.done():
                t.cancel()
                await asyncio.wait([t], timeout=0.1)
        self._tasks = []
        self._close_sub()
        if self._pub is not None:
            self._pub[1].close()
            self._pub = None
        for fut in list(self._markers.values()) + [
            f for f in self._pongs if not isinstance(f, str)
        ]:
            if not fut.done():
                fut.cancel()

    @property
    def healthy(self) -> bool:
        """Whether Redis is reachable now (subscriber connected, publishing and the
        heartbeat succeeding)."""
        return self._sub_ok and self._pub_ok and self._beat_ok

    @property
    def backlog(self) -> int:
        """Operations queued for Redis and not yet sent."""
        return len(self._out) + self._in_flight

    def _key(self, kind: str, name: str) -> str:
        return f"{self.prefix}{kind}:{name}"

    # -- delivery ----------------------------------------------------------------------
    def to_player(self, profile: str, msg: dict[str, Any] | BaseModel, match: str = "") -> None:
        """Every socket of ``profile`` on every node gets ``msg`` (published on that
        player's channel only, and only while another node has a socket of it)."""
        conns = self.conns.get(profile)
        remote = self._where.get(profile)
        if not conns and not remote:
            return
        text = encode(msg)
        deliver(conns, text)
        if remote:
            self._publish(self._ch("player", profile), text, match)

    def to_spectators(self, match_id: str, msg: dict[str, Any]) -> None:
        """Every socket watching ``match_id`` on every node gets ``msg``."""
        text = encode(msg)
        deliver(self.spectators.get(match_id), text)
        self._publish(self._ch("spectators", match_id), text, match_id)

    def send_to_node(self, node: str, payload: dict[str, Any] | BaseModel) -> None:
        """Queue ``payload`` for ``node``'s :meth:`on_node_message` callbacks (in order
        per sender; this node's own messages too). The callbacks get it as a dict
        (a model: the messages of ``protocol/node.py``, read back with ``parse_node``)."""
        self._publish(self._ch("node", node), "m" + encode(payload))

    def reply(self, node: str, conn_id: int, profile: str, msg: dict[str, Any]) -> None:
        """Send ``msg`` to the one socket ``conn_id`` of ``node`` (an error or a seat's
        snapshot for the socket whose request was forwarded), and only while that socket
        is ``profile``'s: socket ids start again at 1 when a node restarts, so a late
        reply must never reach another player. On this node it is delivered at once."""
        text = encode(msg)
        if node == self.node:
            self._deliver(conn_id, profile, text)
            return
        self._publish(self._ch("node", node), f"r{conn_id} {profile} {text}")

    def _deliver(self, conn_id: int, profile: str, text: str) -> None:
        conn = self._by_id.get(conn_id)
        if conn is not None and conn.profile == profile:
            conn.send_text(text)

    def on_node_message(self, callback: NodeCallback) -> None:
        """``callback(sender, payload)`` for each :meth:`send_to_node` to this node."""
        self._node_cbs.append(callback)

    def on_back(self, callback: Callable[[], None]) -> None:
        """``callback()`` each time the subscriber is subscribed again after it lost
        Redis: what other nodes published meanwhile never reached this node's sockets
        (the match desk then asks for fresh snapshots)."""
        self._back_cbs.append(callback)

    def _tell_back(self) -> None:
        for cb in list(self._back_cbs):
            try:
                cb()
            except Exception:
                log.exception("router callback failed")

    # -- who listens (the registry is the in-process router's) ---------------------------
    def conn(self, conn_id: int) -> Conn | None:
        """This node's socket with that id, if it is open."""
        return self._by_id.get(conn_id)

    def add_socket(self, conn: Conn) -> bool:
        """Register a signed-in socket; ``True`` when it is its profile's first on this
        node (then this node subscribes to the player's channel and announces it)."""
        self._by_id[conn.id] = conn
        if not super().add_socket(conn):
            return False
        was_online = bool(self._where.get(conn.profile))
        self._want(self._ch("player", conn.profile), "player", conn.profile)
        self._enqueue(("cmd", "SADD", self._key("profiles", self.node), conn.profile))
        self._publish(self._presence_ch, "+" + conn.profile)
        if not was_online:
            self._tell_presence(conn.profile, True)
        return True

    def remove_socket(self, conn: Conn) -> bool:
        """Forget a closed socket (and what it watched); ``True`` when its profile has no
        socket left on this node."""
        if self._by_id.get(conn.id) is conn:
            del self._by_id[conn.id]
        had = conn.profile in self.conns  # (else: nothing of it was announced)
        if not super().remove_socket(conn):
            return False
        if not had:
            return True
        self._unwant(self._ch("player", conn.profile))
        self._enqueue(("cmd", "SREM", self._key("profiles", self.node), conn.profile))
        self._publish(self._presence_ch, "-" + conn.profile)
        if not self._where.get(conn.profile):
            self._tell_presence(conn.profile, False)
        return True

    def watch(self, match_id: str, conn: Conn) -> None:
        """``conn`` hears the spectators' messages of ``match_id``."""
        if conn in self.watchers(match_id):
            return
        super().watch(match_id, conn)
        if len(self.spectators[match_id]) == 1:
            self._want(self._ch("spectators", match_id), "spectators", match_id)
        self._count_watchers(match_id)

    def unwatch(self, match_id: str, conn: Conn) -> None:
        """``conn`` stops hearing them."""
        if conn in self.watchers(match_id):
            super().unwatch(match_id, conn)
            if match_id not in self.spectators:
                self._unwant(self._ch("spectators", match_id))
            self._count_watchers(match_id)

    def _count_watchers(self, match_id: str) -> None:
        # How many sockets of this node watch a match, for every node's lobby list.
        n = len(self.spectators.get(match_id, ()))
        key = self._key("watchers", self.node)
        if n:
            self._enqueue(("cmd", "HSET", key, match_id, str(n)))
        else:
            self._enqueue(("cmd", "HDEL", key, match_id))

    async def spectator_count(self, match_id: str) -> int:
        """How many sockets watch ``match_id`` on every live node (this node's own count
        when Redis is away)."""
        here = len(self.spectators.get(match_id, ()))
        others = sorted(self._of_node)
        if not others:
            return here
        try:
            pipe = self.redis.pipeline(transaction=False)
            for n in others:
                pipe.hget(self._key("watchers", n), match_id)
            counts = await pipe.execute()
        except Exception:
            return here
        return here + sum(int(c) for c in counts if c)

    def forget_match(self, match_id: str) -> set[Conn]:
        """Drop a match's spectators on this node (it ended); return who they were."""
        gone = super().forget_match(match_id)
        if gone:
            self._unwant(self._ch("spectators", match_id))
            self._count_watchers(match_id)
        return gone

    # -- presence ----------------------------------------------------------------------
    def online(self, profile: str) -> bool:
        """Whether ``profile`` has a socket on any live node (as far as this node knows)."""
        return bool(self.conns.get(profile)) or bool(self._where.get(profile))

    def nodes_of(self, profile: str) -> set[str]:
        """The live nodes where ``profile`` has sockets (this one included)."""
        nodes = set(self._where.get(profile, ()))
        if self.conns.get(profile):
            nodes.add(self.node)
        return nodes

    def on_presence(self, callback: PresenceCallback) -> None:
        """``callback(profile, online)`` whenever :meth:`online` changes for a profile,
        whatever the cause: a socket on this node or on another, a node that died."""
        self._presence_cbs.append(callback)

    def _tell_presence(self, profile: str, online: bool) -> None:
        for cb in list(self._presence_cbs):
            try:
                cb(profile, online)
            except Exception:
                log.exception("presence callback failed for %s", profile)

    def _set_node(self, node: str, profiles: set[str]) -> None:
        """Replace what we know of ``node``'s profiles, telling the changes."""
        before = self._of_node.get(node, set())
        if profiles:
            self._of_node[node] = profiles
        else:
            self._of_node.pop(node, None)
        for pid in profiles - before:
            self._node_gains(node, pid)
        for pid in before - profiles:
            self._node_loses(node, pid)

    def _node_gains(self, node: str, pid: str) -> None:
        where = self._where.setdefault(pid, set())
        if node in where:
            return
        where.add(node)
        if len(where) == 1 and not self.conns.get(pid):
            self._tell_presence(pid, True)

    def _node_loses(self, node: str, pid: str) -> None:
        where = self._where.get(pid)
        if where is None or node not in where:
            return
        where.discard(node)
        if not where:
            del self._where[pid]
            if not self.conns.get(pid):
                self._tell_presence(pid, False)

    async def _load_presence(self, node: str | None = None) -> None:
        """Reload every live node's profiles (or one node's) from Redis."""
        if node is not None:
            members = await self.redis.smembers(self._key("profiles", node))
            self._set_node(node, {str(m) for m in members})
            return
        flat = await self._load_script(args=[self.prefix])
        found: dict[str, set[str]] = {}
        for i in range(0, len(flat), 2):
            if flat[i] != self.node:
                found[str(flat[i])] = {str(m) for m in flat[i + 1]}
        for n in list(self._of_node):
            if n not in found:
                self._set_node(n, set())
        for n, profiles in found.items():
            self._set_node(n, profiles)

    # -- heartbeat ---------------------------------------------------------------------
    async def _heartbeat_once(self) -> None:
        was, live = await self._beat_script(
            args=[self.prefix, self.node, max(1, round(self.alive_ttl * 1000))]
        )
        self._beat_ok = True
        if not was and self._first_beat is not None and self._first_beat.is_set():
            # Our key had expired: the others dropped our presence as dead; write it again.
            log.warning("node %s was presumed dead; announcing its presence again", self.node)
            self._resync()
        alive = {str(n) for n in live}
        for n in list(self._of_node):
            if n not in alive:
                self._set_node(n, set())

    async def _heartbeat(self) -> None:
        assert self._first_beat is not None
        while not self._stopping:
            if not self._beat_paused:
                try:
                    await self._heartbeat_once()
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    if self._beat_ok or not self._first_beat.is_set():
                        log.warning("router %s: heartbeat failed: %s", self.node, e)
                    self._beat_ok = False
            # The publisher waits for the first try: our liveness key comes before
            # our presence, or the others would drop that presence as a dead node's.
            self._first_beat.set()
            await asyncio.sleep(self.beat)

    # -- publishing --------------------------------------------------------------------
    def _publish(self, ch: str, body: str, match: str = "") -> None:
        if match and match in self._forgotten:
            return
        self._enqueue(("pub", ch, self.node + "\n" + body, match))

    def forget_frames(self, match: str) -> None:
        """Drop the frames of ``match`` not yet published (this node stopped acting for
        it: lease lost or handed over). Frames queued while Redis was away would
        otherwise reach the sockets after the new owner's newer ones; its snapshot to
        every audience covers them. Until :meth:`keep_frames`, none are queued."""
        self._forgotten.add(match)
        kept = [op for op in self._out if not (op[0] == "pub" and op[3] == match)]
        if len(kept) != len(self._out):
            self._out = deque(kept)

    def keep_frames(self, match: str) -> None:
        """Publish the frames of ``match`` again (this node drives it again)."""
        self._forgotten.discard(match)

    def _resync(self) -> None:
        """Queue a rewrite of this node's whole presence (start, after an outage)."""
        self._enqueue(("sync",))

    def _enqueue(self, op: tuple[str, ...]) -> None:
        out = self._out
        if len(out) >= self.queue_limit:
            # Drop the oldest messages first; presence is rewritten after the outage.
            out.popleft()
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning(
                    "router %s: Redis queue full, %d messages dropped so far",
                    self.node,
                    self.dropped,
                )
            self._needs_sync = True
        out.append(op)
        if self._wake is not None:
            self._wake.set()
        if self._drained is not None:
            self._drained.clear()

    async def _publisher(self) -> None:
        assert self._wake is not None and self._drained is not None
        assert self._first_beat is not None
        await self._first_beat.wait()
        delay = self.backoff[0]
        while not self._stopping:
            if not self._out:
                self._drained.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            if self._needs_sync:
                self._needs_sync = False
                self._out.appendleft(("sync",))
            batch = [self._out.popleft() for _ in range(min(_BATCH, len(self._out)))]
            self._in_flight = len(batch)
            try:
                await self._send_batch(batch)
            except asyncio.CancelledError:
                self._out.extendleft(reversed(batch))
                raise
            except Exception as e:
                self._in_flight = 0
                if self._pub_ok:
                    log.warning("router %s: publishing failed: %s", self.node, e)
                self._pub_ok = False
                # Keep the batch (at least once: a batch half sent may repeat), then
                # trim to the bound, oldest first.
                self._out.extendleft(reversed([op for op in batch if not self._is_forgotten(op)]))
                while len(self._out) > self.queue_limit:
                    self._out.popleft()
                    self.dropped += 1
                self._needs_sync = True
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            self._in_flight = 0
            self._pub_ok = True
            delay = self.backoff[0]

    def _is_forgotten(self, op: tuple[str, ...]) -> bool:
        # A frame of a match this node gave up, or whose lease it cannot vouch for now
        # (a node resumed after a pause sends nothing it queued before it knows).
        if op[0] != "pub" or not op[3]:
            return False
        return op[3] in self._forgotten or (self.owns is not None and not self.owns(op[3]))

    async def _send_batch(self, batch: list[tuple[str, ...]]) -> None:
        """Send ``batch`` on the publisher's own connection in one write, then read
        one reply per command (cheaper than redis-py's pipeline: ``domino bench router``)."""
        if self._pub is None:
            self._pub = await self._connect_raw("pub")
        reader, writer = self._pub
        parts: list[bytes] = []
        published = 0
        for op in batch:
            if self._is_forgotten(op):
                continue
            if op[0] == "pub":
                parts.append(resp.pack(("PUBLISH", op[1], op[2])))
                published += 1
            elif op[0] == "cmd":
                parts.append(resp.pack(op[1:]))
            else:  # sync: this node's presence (and spectator counts) as it is now
                key = self._key("profiles", self.node)
                parts.append(resp.pack(("DEL", key)))
                if self.conns:
                    parts.append(resp.pack(("SADD", key, *self.conns)))
                counts = self._key("watchers", self.node)
                parts.append(resp.pack(("DEL", counts)))
                for mid, conns in self.spectators.items():
                    parts.append(resp.pack(("HSET", counts, mid, str(len(conns)))))
                parts.append(resp.pack(("PUBLISH", self._presence_ch, self.node + "\n!")))
        try:
            writer.write(b"".join(parts))
            async with asyncio.timeout(self.alive_ttl):
                for _ in parts:
                    reply = await resp.read(reader)
                    if isinstance(reply, Exception):
                        log.warning("router %s: Redis refused a command: %s", self.node, reply)
        except BaseException:
            writer.close()
            self._pub = None
            raise
        self.published += published

    async def _flush(self) -> None:
        """Wait until everything queued so far is published."""
        assert self._drained is not None
        while self._out or self._in_flight:
            self._drained.clear()
            if self._wake is not None:
                self._wake.set()
            await self._drained.wait()

    async def settle(self) -> None:
        """Wait until this node's subscriptions are in effect, its queue is published,
        and everything published by anyone before that has reached it (tests, and a
        node that wants a snapshot to follow what it already heard). Waits for Redis
        while it is away (callers bound it with ``asyncio.wait_for``)."""
        assert self._ready is not None
        while True:
            await self._ready.wait()
            try:
                await self._settle_once()
                return
            except ConnectionError:
                continue  # the subscriber lost Redis meanwhile: again once it is back

    async def _settle_once(self) -> None:
        loop = asyncio.get_running_loop()
        pong: asyncio.Future[None] = loop.create_future()
        self._pongs.append(pong)
        self._write("PING")
        await pong
        await self._flush()
        mark = str(next(self._marker_ids))
        arrived: asyncio.Future[None] = loop.create_future()
        self._markers[mark] = arrived
        self._publish(self._node_ch, "#" + mark)
        try:
            await arrived
        finally:
            self._markers.pop(mark, None)

    # -- subscribing -------------------------------------------------------------------
    def _want(self, ch: str, kind: str, key: str) -> None:
        self._wanted[ch] = (kind, key)
        if self._writer is not None:
            self._write("SUBSCRIBE", ch)

    def _unwant(self, ch: str) -> None:
        if self._wanted.pop(ch, None) is not None and self._writer is not None:
            self._write("UNSUBSCRIBE", ch)

    def _write(self, *args: str) -> None:
        assert self._writer is not None
        self._writer.write(resp.pack(args))

    def _close_sub(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        self._sub_ok = False
        if self._ready is not None:
            self._ready.clear()
        for mark in self._markers.values():
            if not mark.done():
                mark.set_exception(ConnectionError("the router's subscriber lost Redis"))
        while self._pongs:
            fut = self._pongs.popleft()
            if not isinstance(fut, str) and not fut.done():
                fut.set_exception(ConnectionError("the router's subscriber lost Redis"))

    async def _connect_raw(self, role: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        name = f"{self.prefix}{self.node}:{role}".replace(" ", "_")
        return await resp.connect(self.redis, name)

    async def _subscriber(self) -> None:
        delay = self.backoff[0]
        while not self._stopping:
            try:
                reader, writer = await self._connect_raw("sub")
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if self._sub_ok or delay == self.backoff[0]:
                    log.warning("router %s: cannot reach Redis: %s", self.node, e)
                self._sub_ok = False
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            self._writer = writer
            self._write("SUBSCRIBE", self._node_ch, self._presence_ch, *self._wanted)
            self._pongs.append("load")  # after the subscriptions: reload the presence
            self._write("PING")
            try:
                await self._read_loop(reader)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("router %s: lost Redis: %s", self.node, e)
            self._close_sub()
            self._sub_ok = False
            delay = self.backoff[0]
            await asyncio.sleep(delay)

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        prefix_player = (self.prefix + "player:").encode()
        prefix_spect = (self.prefix + "spectators:").encode()
        node_ch = self._node_ch.encode()
        presence_ch = self._presence_ch.encode()
        head = self._head
        read = self._read_frame
        while True:
            frame = await read(reader)
            if isinstance(frame, Exception):
                log.warning("router %s: Redis says %s", self.node, frame)
                continue
            if frame == b"PONG":
                frame = [b"pong", b""]
            if not isinstance(frame, list) or not frame:
                continue
            kind = frame[0]
            if kind == b"message":
                ch, data = frame[1], frame[2]
                if data.startswith(head) and ch != node_ch:
                    continue  # our own frame: delivered locally already
                sender, _, body = data.partition(b"\n")
                self.received += 1
                if ch.startswith(prefix_player):
                    deliver(self.conns.get(ch[len(prefix_player) :].decode()), body.decode())
                elif ch.startswith(prefix_spect):
                    deliver(self.spectators.get(ch[len(prefix_spect) :].decode()), body.decode())
                elif ch == presence_ch:
                    await self._presence_message(sender.decode(), body.decode())
                elif ch == node_ch:
                    self._node_message(sender.decode(), body.decode())
            elif kind == b"pong":
                waiter = self._pongs.popleft() if self._pongs else None
                if waiter == "load":
                    await self._load_presence()
                    log.info(
                        "router %s: subscribed to %d channels",
                        self.node,
                        len(self._wanted) + 2,
                        extra={"event": "router_subscribed", "channels": len(self._wanted) + 2},
                    )
                    self._sub_ok = True
                    assert self._ready is not None
                    self._ready.set()
                    if self._subscribed_once:
                        self._tell_back()
                    self._subscribed_once = True
                elif isinstance(waiter, asyncio.Future) and not waiter.done():
                    waiter.set_result(None)

    async def _presence_message(self, sender: str, body: str) -> None:
        if sender == self.node or not body:
            return
        op, pid = body[0], body[1:]
        if op == "+":
            self._of_node.setdefault(sender, set()).add(pid)
            self._node_gains(sender, pid)
        elif op == "-":
            profiles = self._of_node.get(sender)
            if profiles is not None:
                profiles.discard(pid)
                if not profiles:
                    del self._of_node[sender]
            self._node_loses(sender, pid)
        elif op == "!":
            await self._load_presence(sender)

    def _node_message(self, sender: str, body: str) -> None:
        if not body:
            return
        tag = body[0]
        if tag == "m":
            payload = orjson.loads(body[1:])
            for cb in list(self._node_cbs):
                try:
                    cb(sender, payload)
                except Exception:
                    log.exception("node message callback failed")
        elif tag == "r":
            ident, _, rest = body[1:].partition(" ")
            profile, _, text = rest.partition(" ")
            self._deliver(int(ident), profile, text)
        elif tag == "#" and sender == self.node:
            fut = self._markers.get(body[1:])
            if fut is not None and not fut.done():
                fut.set_result(None)


__all__ = ["RedisRouter"]
