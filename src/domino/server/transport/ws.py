"""The WebSocket endpoint ``/ws``: handshake checks, limits, and the read/write loops.

Limits (docs/protocol.md): Origin allowlist before the upgrade; ``hello``
with the token first; frames over ``max_frame`` bytes refused (close 1009);
a token bucket per connection (over budget: close 1008); malformed or unknown
messages answered with an error, and the connection closed (1008) after
``max_bad_messages`` of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from domino.server import protocol as p
from domino.server.clock import Clock
from domino.server.service import Service
from domino.server.storage.outage import DATABASE_UNAVAILABLE, database_away
from domino.server.transport.conn import Conn

log = logging.getLogger("domino.server")

CLOSE_UNSUPPORTED = 1003  # a binary message: the protocol is text only
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_AGAIN = 1013  # the database is away: the client tries again after a pause


class TokenBucket:
    """``burst`` messages at once, refilled at ``rate`` per second of the service clock."""

    def __init__(self, clock: Clock, burst: float, rate: float) -> None:
        self.clock = clock
        self.burst = burst
        self.rate = rate
        self.tokens = burst
        self.last = clock.now()

    def take(self) -> bool:
        """Spend one message; ``False`` when the budget is exhausted."""
        now = self.clock.now()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def error_text(code: str, ref: str | None = None, /, **params: Any) -> str:
    """The JSON text of an ``error`` message."""
    return p.error(code, ref, **params).model_dump_json()


class Socket(Protocol):
    """What the endpoint needs of a WebSocket: two transports provide it.

    :class:`AsgiSocket` (any ASGI server, Starlette's test client) and
    :class:`domino.server.transport.rawws.RawSocket` (the lean transport ``domino serve``
    plugs into uvicorn).
    """

    origin: str | None
    #: The Host header of the upgrade request: the address the browser opened.
    host: str | None

    @property
    def is_open(self) -> bool:
        """Accepted and not closed yet."""
        ...

    async def accept(self) -> None:
        """Complete the upgrade."""

    async def receive(self) -> str:
        """The next text message; raises :class:`Closed` when the peer is gone, and
        after closing the socket with 1003 when the peer sends a binary message."""
        ...

    async def send_text(self, text: str) -> None:
        """Send one text message."""

    def send_now(self, text: str) -> bool:
        """Write one text message at once if that needs no waiting; ``False`` (nothing
        written) otherwise, and :meth:`send_text` is the way."""
        ...

    async def close(self, code: int) -> None:
        """Close (before :meth:`accept`: refuse the upgrade with HTTP 403)."""


class Closed(Exception):
    """The peer went away or the server closed the connection."""


class AsgiSocket:
    """:class:`Socket` over Starlette's ASGI WebSocket."""

    __slots__ = ("host", "origin", "ws")

    def __init__(self, ws: WebSocket) -> None:
        self.ws = ws
        self.origin = ws.headers.get("origin")
        self.host = ws.headers.get("host")

    @property
    def is_open(self) -> bool:
        return self.ws.application_state == WebSocketState.CONNECTED

    async def accept(self) -> None:
        await self.ws.accept()

    async def receive(self) -> str:
        try:
            message = await self.ws.receive()
        except WebSocketDisconnect as exc:
            raise Closed from exc
        if message["type"] == "websocket.disconnect":
            raise Closed
        if message.get("text") is not None:
            return str(message["text"])
        # A binary message: refused, as the lean transport does (docs/protocol.md).
        with contextlib.suppress(Exception):
            await self.ws.close(code=CLOSE_UNSUPPORTED)
        raise Closed

    async def send_text(self, text: str) -> None:
        await self.ws.send_text(text)

    def send_now(self, text: str) -> bool:
        return False  # Starlette's socket only sends by awaiting

    async def close(self, code: int) -> None:
        if self.ws.application_state == WebSocketState.DISCONNECTED:
            return  # closed already (a refused binary message)
        await self.ws.close(code=code)


async def websocket_endpoint(ws: WebSocket) -> None:
    """Serve one ASGI socket from handshake to close."""
    await serve_socket(ws.app.state.service, AsgiSocket(ws))


def origin_allowed(origin: str, host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a socket whose upgrade carried ``Origin: origin`` and ``Host: host`` may
    connect: an origin of the allowlist, or the page's own origin as the browser reports
    it (the Origin names the host and port the request came to), so that a server on
    0.0.0.0 serves friends on the LAN without ``--origins``. A page of another site
    carries its own Origin and is refused. (A DNS-rebound name passes, but the socket
    gets nothing without a token, which such a page cannot read.)"""
    origin = origin.rstrip("/")
    if origin in allowed:
        return True
    if host is None:
        return False
    scheme, sep, netloc = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and netloc.lower() == host.lower()


async def serve_socket(service: Service, ws: Socket) -> None:
    """Serve one socket from handshake to close."""
    s = service.settings
    if ws.origin is not None and not origin_allowed(ws.origin, ws.host, s.allowed_origins):
        # Closing before accept() refuses the upgrade with HTTP 403.
        await ws.close(CLOSE_POLICY)
        return
    await ws.accept()
    bucket = TokenBucket(service.clock, s.bucket_burst, s.bucket_rate)
    conn: Conn | None = None
    writer: asyncio.Task[None] | None = None
    bad = 0
    try:
        while True:
            if conn is None:
                # A socket that never says who it is would hold a slot for nothing.
                try:
                    raw = await asyncio.wait_for(ws.receive(), s.hello_timeout)
                except TimeoutError:
                    await _refuse(ws, None, "hello_first", CLOSE_POLICY)
                    break
            else:
                raw = await ws.receive()
            # At most 4 bytes per code point: only a long text needs encoding to tell.
            if (
                len(raw) * 4 > s.max_frame
                and len(raw.encode("utf-8", "surrogatepass")) > s.max_frame
            ):
                await _refuse(ws, conn, "frame_too_big", CLOSE_TOO_BIG, limit=s.max_frame)
                break
            if not bucket.take():
                await _refuse(ws, conn, "rate_limited", CLOSE_POLICY)
                break
            try:
                msg = p.parse_client(raw)
            except p.ProtocolError as exc:
                if conn is None:
                    code = exc.code if exc.code != "unknown_type" else "hello_first"
                    await _refuse(ws, None, code, CLOSE_POLICY, **exc.params)
                    break
                bad += 1
                if bad >= s.max_bad_messages:
                    await _refuse(ws, conn, "too_many_errors", CLOSE_POLICY)
                    break
                service.error(conn, exc.code, exc.ref, **exc.params)
                continue
            if conn is None:
                conn = await _hello(ws, service, msg)
                if conn is None:
                    break
                writer = asyncio.create_task(_write(ws, conn))
                conn.direct = ws.send_now
                try:
                    await service.connect(conn)
                except Exception as exc:
                    if not database_away(exc):
                        raise
                    log.warning("welcome: database away: %r", exc, extra={"event": "database_away"})
                    await _refuse(ws, conn, DATABASE_UNAVAILABLE, CLOSE_TRY_AGAIN)
                    break
                continue
            try:
                await service.handle(conn, msg)
            except Exception as exc:
                ref = getattr(msg, "ref", None)
                if database_away(exc):
                    log.warning("handling %s: database away: %r", type(msg).__name__, exc)
                    service.error(conn, DATABASE_UNAVAILABLE, ref)
                else:
                    log.exception("handling %s", type(msg).__name__)
                    service.error(conn, "internal_error", ref)
            if conn.closed:
                break
    except Closed:
        pass
    finally:
        if conn is not None:
            conn.close(conn.close_code or 1000)
            await service.disconnect(conn)
        if writer is not None:
            with contextlib.suppress(Exception):
                await writer
        elif ws.is_open:
            with contextlib.suppress(Exception):
                await ws.close(1000)


async def _refuse(ws: Socket, conn: Conn | None, code: str, close: int, /, **params: Any) -> None:
    if conn is not None:
        conn.send(p.error(code, **params))
        conn.close(close)
        return
    with contextlib.suppress(Exception):
        await ws.send_text(error_text(code, **params))
        await ws.close(close)


async def _hello(ws: Socket, service: Service, msg: Any) -> Conn | None:
    if not isinstance(msg, p.Hello):
        await _refuse(ws, None, "hello_first", CLOSE_POLICY)
        return None
    if msg.protocol != p.PROTOCOL_VERSION:
        await _refuse(ws, None, "bad_protocol_version", CLOSE_POLICY, version=msg.protocol)
        return None
    try:
        pid = await service.people.resolve(msg.token)
        row = await service.db.profile(pid) if pid else None
    except Exception as exc:
        if not database_away(exc):
            raise
        # Nobody can be welcomed now: say so, and close with "try again later".
        log.warning("hello: database away: %r", exc, extra={"event": "database_away"})
        await _refuse(ws, None, DATABASE_UNAVAILABLE, CLOSE_TRY_AGAIN)
        return None
    if row is None or pid is None:
        await _refuse(ws, None, "bad_token", CLOSE_POLICY)
        return None
    return Conn(pid, row["name"])


async def _write(ws: Socket, conn: Conn) -> None:
    """Drain the outbox onto the socket; close it when asked."""
    try:
        while True:
            text = await conn.outbox.get()
            try:
                if text is None:
                    await ws.close(conn.close_code or 1000)
                    return
                await ws.send_text(text)
            finally:
                conn.outbox.task_done()
    except Exception:
        conn.closed = True
    finally:
        # Nobody will send what is left; let Service.settle() stop waiting for it.
        while not conn.outbox.empty():
            conn.outbox.get_nowait()
            conn.outbox.task_done()
