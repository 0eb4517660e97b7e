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
the socket's first forwarded command (a snapshot request, say). Likewise the owner's
frames for a match's spectators stop being published once Redis answers that no node
listens to that channel: a node subscribes to it before it asks the owner for a
snapshot, and the request switches publishing on again.

Presence (which profiles have sockets on which live node, the heartbeat) is
:mod:`~domino.server.cluster.presence`; the publisher queue and the subscriber are
:mod:`~domino.server.cluster.bus`.

Redis away: publishing never blocks the caller; the queue holds up to
``queue_limit`` messages, then the oldest are dropped (``dropped`` counts them, a
warning is logged). The subscriber reconnects with backoff and subscribes again
to everything it needs, then reloads presence. After an outage this node writes
its presence again (its set may have been dropped as dead meanwhile).
Messages published while a subscriber was away are lost (Redis pub/sub keeps
nothing): once it is subscribed again, the :meth:`RedisRouter.on_back` callbacks
run, and the node's ownership (:mod:`~domino.server.cluster.forwarder`) asks each
match's owner for a fresh snapshot for this node's sockets that follow it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Set
from typing import Any

import orjson
from pydantic import BaseModel

from domino.server.cluster import resp
from domino.server.cluster.bus import Bus
from domino.server.cluster.presence import BEAT, LOAD, Presence, PresenceCallback
from domino.server.cluster.router import InProcessRouter, deliver, deliver_except, filtered
from domino.server.desks.doors import channel
from domino.server.transport.conn import Conn, encode

log = logging.getLogger("domino.redisrouter")

NodeCallback = Callable[[str, dict[str, Any]], None]


class RedisRouter(Presence, Bus, InProcessRouter):
    """A node's router: its own sockets, and Redis channels to and from the others.

    The sockets are the in-process router's registry (inherited); the bus
    (:class:`~domino.server.cluster.bus.Bus`) carries what other nodes must hear, and
    :class:`~domino.server.cluster.presence.Presence` (first: its :meth:`online` asks
    every node) knows the other nodes' profiles.

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
        # Matches whose spectators' channel nobody listened to (their frames are not
        # published until a node asks for a snapshot), and how often one was asked.
        self._unheard: dict[str, float] = {}  # match -> when (self._now) it was seen
        self._heard = 0
        self._now: Callable[[], float] = time.monotonic
        # The queue: ("pub", channel, payload, match, heard) or ("cmd", *args) or
        # ("sync",); ``match`` names the match a frame is of ("" for any other message),
        # ``heard`` the generation of a spectators' frame that may be switched off.
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

    def to_spectators(self, match_id: str, msg: dict[str, Any], *, frame: bool = False) -> None:
        """Every socket watching ``match_id`` on every node gets ``msg``. A ``frame`` of
        the match's owner is published only while another node may listen
        (:meth:`~domino.server.cluster.bus.Bus.hear_spectators`)."""
        text = encode(msg)
        deliver(self.spectators.get(match_id), text)
        ch = self._ch("spectators", match_id)
        if frame:
            self._publish_if_heard(ch, text, match_id)
        else:
            self._publish(ch, text, match_id)

    def to_spectators_except(
        self, match_id: str, msg: dict[str, Any] | BaseModel, exclude: Set[str]
    ) -> None:
        """Every socket watching ``match_id`` on every node gets ``msg``, but those of the
        profiles in ``exclude`` (each node leaves its own out). Not a frame of the match's
        owner: any node sends it, whoever drives the match."""
        text = encode(msg)
        deliver_except(self.spectators.get(match_id), text, exclude)
        self._publish(self._ch("spectators", match_id), filtered(text, exclude))

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
        self._unheard.pop(match_id, None)
        if gone:
            self._unwant(self._ch("spectators", match_id))
            self._count_watchers(match_id)
        return gone

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
