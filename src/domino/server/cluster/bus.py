"""The bus between nodes: one publisher queue and one subscribed connection to Redis.

:class:`Bus` is the half of :class:`~domino.server.cluster.redisrouter.RedisRouter`
that speaks to Redis (a base class: the router's state is set in its constructor).
Publishing never blocks the caller: operations are queued (``("pub", channel,
payload, match, heard)``, ``("cmd", *args)`` or ``("sync",)``) and the publisher task sends
them in order, in batches, on its own connection; the queue is bounded (the oldest
go first, ``dropped`` counts them). The subscriber keeps one connection subscribed
to what the node needs, reconnects with backoff, and hands each message to the
router: a player's or the spectators' frames to the sockets, presence and node
messages to their handlers.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from domino.server.cluster import resp
from domino.server.cluster.router import deliver, deliver_body
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.redisrouter")

_BATCH = 512  # operations per pipeline round trip

#: Seconds a match's spectators' channel stays switched off (nobody listened) before
#: its owner publishes a frame there again to see whether someone does now: a bound on
#: how stale a remote spectator can be if the snapshot request that switches it back
#: on was lost (sent while the owner's subscriber was away from Redis, say).
UNHEARD_PROBE = 3.0


class Bus:
    """Publishing and subscribing for one node (see the module's docstring)."""

    # Set by the router's constructor.
    redis: Any
    node: str
    prefix: str
    alive_ttl: float
    queue_limit: int
    backoff: tuple[float, float]
    conns: dict[str, set[Conn]]
    spectators: dict[str, set[Conn]]
    dropped: int
    published: int
    received: int
    owns: Callable[[str], bool] | None
    _node_ch: str
    _presence_ch: str
    _head: bytes
    _wanted: dict[str, tuple[str, str]]
    _forgotten: set[str]
    _unheard: dict[str, float]
    _heard: int
    _now: Callable[[], float]
    _out: deque[tuple[str, ...]]
    _in_flight: int
    _wake: asyncio.Event | None
    _drained: asyncio.Event | None
    _ready: asyncio.Event | None
    _first_beat: asyncio.Event | None
    _pub: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None
    _writer: asyncio.StreamWriter | None
    _pongs: deque[asyncio.Future[None] | str]
    _markers: dict[str, asyncio.Future[None]]
    _marker_ids: itertools.count[int]
    _subscribed_once: bool
    _sub_ok: bool
    _pub_ok: bool
    _stopping: bool
    _needs_sync: bool
    _read_frame: Callable[[asyncio.StreamReader], Awaitable[Any]]

    if TYPE_CHECKING:  # the router's

        def _key(self, kind: str, name: str) -> str: ...
        async def _load_presence(self, node: str | None = None) -> None: ...
        async def _presence_message(self, sender: str, body: str) -> None: ...
        def _node_message(self, sender: str, body: str) -> None: ...
        def _tell_back(self) -> None: ...

    # -- publishing --------------------------------------------------------------------
    def _publish(self, ch: str, body: str, match: str = "") -> None:
        if match and match in self._forgotten:
            return
        self._enqueue(("pub", ch, self.node + "\n" + body, match, ""))

    def _publish_if_heard(self, ch: str, body: str, match: str) -> None:
        """Publish a frame of ``match`` for its spectators while some node may listen.

        A spectators' channel nobody subscribes to (Redis answers a ``PUBLISH`` with the
        number of subscribers that got it) is not published to again until a node asks
        for a snapshot of the match (:meth:`hear_spectators`): a node subscribes first,
        then asks, so every frame after the snapshot is published again. The frame is
        tagged with the generation of that word, so the count of a frame sent before a
        later snapshot request cannot switch the channel off again. Every
        :data:`UNHEARD_PROBE` seconds a frame goes out all the same."""
        if match in self._forgotten:
            return
        since = self._unheard.get(match)
        if since is not None:
            if self._now() - since < UNHEARD_PROBE:
                return
            del self._unheard[match]
        self._enqueue(("pub", ch, self.node + "\n" + body, match, str(self._heard)))

    def hear_spectators(self, match: str) -> None:
        """A node asked for a snapshot of ``match``: publish its frames again."""
        self._heard += 1
        self._unheard.pop(match, None)

    def forget_frames(self, match: str) -> None:
        """Drop the frames of ``match`` not yet published (this node stopped acting for
        it: lease lost or handed over). Frames queued while Redis was away would
        otherwise reach the sockets after the new owner's newer ones; its snapshot to
        every audience covers them. Until :meth:`keep_frames`, none are queued."""
        self._forgotten.add(match)
        self._unheard.pop(match, None)
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
        # Per command: the frame whose count of listeners may switch its channel off
        # (match, generation), or None.
        gated: list[tuple[str, str] | None] = []
        published = 0
        for op in batch:
            if self._is_forgotten(op):
                continue
            if op[0] == "pub":
                parts.append(resp.pack(("PUBLISH", op[1], op[2])))
                gated.append((op[3], op[4]) if op[4] else None)
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
            gated.extend([None] * (len(parts) - len(gated)))  # one per command
        try:
            writer.write(b"".join(parts))
            async with asyncio.timeout(self.alive_ttl):
                for tag in gated:
                    reply = await resp.read(reader)
                    if isinstance(reply, Exception):
                        log.warning("router %s: Redis refused a command: %s", self.node, reply)
                    elif reply == 0 and tag is not None:
                        self._nobody_heard(*tag)
        except BaseException:
            writer.close()
            self._pub = None
            raise
        self.published += published

    def _nobody_heard(self, match: str, gen: str) -> None:
        # No node listened to a frame of ``match``: stop publishing its frames, unless
        # a node asked for a snapshot since it was queued, or it is no longer ours.
        if gen == str(self._heard) and match not in self._forgotten:
            self._unheard.setdefault(match, self._now())

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
                    # A table-talk frame may name profiles it skips (router.filtered).
                    mid = ch[len(prefix_spect) :].decode()
                    deliver_body(self.spectators.get(mid), body.decode())
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
                        # Redis may have restarted: every node subscribes again now, so
                        # every channel switched off is tried again.
                        self._unheard.clear()
                        self._heard += 1
                        self._tell_back()
                    self._subscribed_once = True
                elif isinstance(waiter, asyncio.Future) and not waiter.done():
                    waiter.set_result(None)


__all__ = ["Bus"]
