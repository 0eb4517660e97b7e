"""A lean WebSocket transport for ``/ws`` (RFC 6455), plugged into uvicorn.

uvicorn hands a connection that asks for an upgrade to its websocket protocol
class; :func:`protocol_factory` makes that class ours. Measured under load
(docs/reliability.md, "Memory"), uvicorn's own websocket protocol with the
ASGI stack above it kept ≈ 30 KB of Python objects per open socket (a request
and response with their header objects, a frame parser, a queue, events, six
middleware coroutines) and spent a sixth of the server's time per frame sent.
Here one socket is one :class:`SocketProtocol` with slots, a byte buffer, one
small inbox and the endpoint's coroutine (:func:`domino.server.ws.serve_socket`,
the same code the ASGI route runs), and keep-alive pings come from one task
for all sockets instead of a timer each.

What it implements: the opening handshake (GET ``/ws``, ``Upgrade: websocket``,
version 13; anything else gets an HTTP error), unmasked server frames, masked
client frames, fragmentation, ping/pong, the closing handshake, the frame size
limit (close 1009), UTF-8 checks of text (close 1007) and protocol errors
(close 1002). No extensions are negotiated (no compression).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import struct
from collections import deque
from collections.abc import Callable
from typing import Any, cast

from .ws import Closed, error_text, serve_socket

log = logging.getLogger("domino.server")

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_REQUEST = 16 * 1024  # bytes of the opening request
INBOX_PAUSE = 64  # unread messages before we stop reading the socket
PING_INTERVAL = 20.0  # seconds of silence before a ping
PING_TIMEOUT = 20.0  # seconds a ping may wait for any answer
CLOSE_TIMEOUT = 5.0  # seconds the peer has to answer our close frame

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


def accept_key(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, final frame (what a server sends)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


def _unmask(payload: bytes, mask: bytes) -> bytes:
    n = len(payload)
    if not n:
        return b""
    repeated = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(repeated, "little")).to_bytes(
        n, "little"
    )


def _http_error(status: str) -> bytes:
    # The status line says it all (a malformed upgrade never comes from our client).
    return f"HTTP/1.1 {status}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".encode()


class _ProtocolError(Exception):
    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


class Keepalive:
    """Pings every socket that was silent for :data:`PING_INTERVAL`; drops those that
    stay silent :data:`PING_TIMEOUT` after it. One task for the whole process."""

    def __init__(self) -> None:
        self.sockets: set[SocketProtocol] = set()
        self.task: asyncio.Task[None] | None = None

    def add(self, sock: SocketProtocol) -> None:
        self.sockets.add(sock)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    def discard(self, sock: SocketProtocol) -> None:
        self.sockets.discard(sock)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.sockets:
            await asyncio.sleep(PING_INTERVAL / 4)
            now = loop.time()
            for sock in list(self.sockets):
                sock.keepalive(now)


class SocketProtocol(asyncio.Protocol):
    """One client's socket from the upgrade request to the close."""

    __slots__ = (
        "_accept_header",
        "_close_timer",
        "_fragments",
        "_fragments_op",
        "_getter",
        "_inbox",
        "_keepalive",
        "_paused_reading",
        "_writable",
        "buffer",
        "close_sent",
        "closed",
        "connections",
        "handshaken",
        "last_seen",
        "max_size",
        "origin",
        "ping_sent",
        "service",
        "tasks",
        "transport",
        "upgraded",
    )

    def __init__(
        self,
        config: Any,
        server_state: Any,
        app_state: Any = None,
        *,
        service: Any,
        keepalive: Keepalive,
    ) -> None:
        self.service = service
        self.max_size: int = config.ws_max_size
        self.connections: set[Any] = server_state.connections
        self.tasks: set[asyncio.Task[None]] = server_state.tasks
        self._keepalive = keepalive
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.handshaken = False  # the request was read
        self.upgraded = False  # 101 sent
        self.closed = False  # no more frames either way
        self.close_sent = False
        self.origin: str | None = None
        self._accept_header = ""
        self._inbox: deque[str] = deque()
        self._getter: asyncio.Future[None] | None = None
        self._fragments: list[bytes] = []
        self._fragments_op = 0
        self._paused_reading = False
        self._writable: asyncio.Future[None] | None = None
        self._close_timer: asyncio.TimerHandle | None = None
        self.last_seen = 0.0
        self.ping_sent: float | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self.connections.add(self)
        self.last_seen = asyncio.get_running_loop().time()

    def connection_lost(self, exc: Exception | None) -> None:
        self.connections.discard(self)
        self._keepalive.discard(self)
        self.closed = True
        if self._close_timer is not None:
            self._close_timer.cancel()
            self._close_timer = None
        self._wake()
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def pause_writing(self) -> None:
        if self._writable is None or self._writable.done():
            self._writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self._writable is not None and not self._writable.done():
            self._writable.set_result(None)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.handshaken:
            self._read_request()
            return
        self.last_seen = asyncio.get_running_loop().time()
        self.ping_sent = None
        try:
            self._read_frames()
        except _ProtocolError as exc:
            self._fail(exc.code)

    def eof_received(self) -> bool | None:
        return None  # close the transport

    def shutdown(self) -> None:
        """uvicorn is stopping: close with 1012 (service restart)."""
        if self.upgraded and not self.closed:
            self._send_close(1012)
            self.closed = True
            self._wake()
        if self.transport is not None:
            self.transport.close()

    # -- the opening handshake ---------------------------------------------------------------
    def _read_request(self) -> None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > MAX_REQUEST:
                self._reject("431 Request Header Fields Too Large")
            return
        head = bytes(self.buffer[:end]).decode("latin-1")
        del self.buffer[: end + 4]
        self.handshaken = True
        lines = head.split("\r\n")
        parts = lines[0].split(" ")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                key = name.strip().lower()
                value = value.strip()
                headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if len(parts) != 3 or parts[0] != "GET":
            self._reject("400 Bad Request")
            return
        if parts[1].partition("?")[0] != "/ws":
            self._reject("404 Not Found")
            return
        upgrade = headers.get("upgrade", "").lower()
        connection = {t.strip() for t in headers.get("connection", "").lower().split(",")}
        key = headers.get("sec-websocket-key", "")
        if upgrade != "websocket" or "upgrade" not in connection or not key:
            self._reject("400 Bad Request")
            return
        try:
            if len(base64.b64decode(key, validate=True)) != 16:
                raise ValueError(key)
        except ValueError:
            self._reject("400 Bad Request")
            return
        if headers.get("sec-websocket-version") != "13":
            self._reject("426 Upgrade Required")
            return
        self.origin = headers.get("origin")
        self._accept_header = accept_key(key)
        task = asyncio.get_running_loop().create_task(serve_socket(self.service, RawSocket(self)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _reject(self, status: str) -> None:
        assert self.transport is not None
        self.handshaken = True
        self.closed = True
        self.transport.write(_http_error(status))
        self.transport.close()

    # -- frames -------------------------------------------------------------------------------
    def _read_frames(self) -> None:
        buf = self.buffer
        while self.transport is not None and not self.transport.is_closing():
            if len(buf) < 2:
                return
            b0, b1 = buf[0], buf[1]
            fin, opcode = b0 & 0x80, b0 & 0x0F
            if b0 & 0x70:
                raise _ProtocolError(1002)  # no extension was agreed
            if not b1 & 0x80:
                raise _ProtocolError(1002)  # clients must mask
            n = b1 & 0x7F
            pos = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n = int.from_bytes(buf[2:4], "big")
                pos = 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n = int.from_bytes(buf[2:10], "big")
                pos = 10
            if opcode >= 8 and (not fin or n > 125):
                raise _ProtocolError(1002)
            if opcode < 8 and n + sum(len(f) for f in self._fragments) > self.max_size:
                raise _ProtocolError(1009)
            if len(buf) < pos + 4 + n:
                return
            mask = bytes(buf[pos : pos + 4])
            payload = _unmask(bytes(buf[pos + 4 : pos + 4 + n]), mask)
            del buf[: pos + 4 + n]
            self._on_frame(fin, opcode, payload)

    def _on_frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if self.close_sent and opcode != OP_CLOSE:
            return  # closing: only the peer's close frame matters now
        if opcode == OP_PING:
            self._write(frame(OP_PONG, payload))
            return
        if opcode == OP_PONG:
            return
        if opcode == OP_CLOSE:
            self._on_close(payload)
            return
        if opcode == OP_CONT:
            if not self._fragments_op:
                raise _ProtocolError(1002)
            self._fragments.append(payload)
            if not fin:
                return
            opcode, payload = self._fragments_op, b"".join(self._fragments)
            self._fragments, self._fragments_op = [], 0
        elif opcode in (OP_TEXT, OP_BINARY):
            if self._fragments_op:
                raise _ProtocolError(1002)  # a new message inside a fragmented one
            if not fin:
                self._fragments, self._fragments_op = [payload], opcode
                return
        else:
            raise _ProtocolError(1002)
        if opcode == OP_TEXT:
            try:
                text = payload.decode("utf-8")
            except UnicodeDecodeError:
                raise _ProtocolError(1007) from None
        else:
            try:
                text = payload.decode("utf-8")
            except UnicodeDecodeError:
                text = "\x00"  # not JSON: answered as bad_json
        self._inbox.append(text)
        if len(self._inbox) >= INBOX_PAUSE and not self._paused_reading and self.transport:
            self._paused_reading = True
            self.transport.pause_reading()
        self._wake()

    def _on_close(self, payload: bytes) -> None:
        code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1000
        if not self.close_sent:
            self._send_close(code if 1000 <= code < 5000 and code not in (1005, 1006) else 1000)
        self.closed = True
        self._wake()
        if self.transport is not None:
            self.transport.close()

    def _fail(self, code: int) -> None:
        if not self.close_sent:
            if code == 1009 and self.upgraded:
                # Say why, as the socket's logic does for a message it finds too long.
                text = error_text("frame_too_big", limit=self.max_size)
                self._write(frame(OP_TEXT, text.encode("utf-8")))
            self._send_close(code)
        self.closed = True
        self._wake()
        if self.transport is not None:
            self.transport.close()

    def _send_close(self, code: int) -> None:
        self.close_sent = True
        self._write(frame(OP_CLOSE, code.to_bytes(2, "big")))

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _wake(self) -> None:
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def keepalive(self, now: float) -> None:
        """Called by :class:`Keepalive`: ping after silence, drop after no answer."""
        if self.closed or self.transport is None:
            return
        if self.ping_sent is not None:
            if now - self.ping_sent > PING_TIMEOUT:
                self.transport.abort()
            return
        if now - self.last_seen > PING_INTERVAL:
            self.ping_sent = now
            self._write(frame(OP_PING, b""))

    # -- what RawSocket uses ------------------------------------------------------------
    def accept(self) -> None:
        self.upgraded = True
        self._write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: " + self._accept_header.encode("ascii") + b"\r\n\r\n"
        )
        if self.closed:
            return  # the peer left before the upgrade was answered
        self._keepalive.add(self)
        if self.buffer:  # frames sent right behind the request
            try:
                self._read_frames()
            except _ProtocolError as exc:
                self._fail(exc.code)

    async def receive(self) -> str:
        while not self._inbox:
            if self.closed:
                raise Closed
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        text = self._inbox.popleft()
        if self._paused_reading and len(self._inbox) < INBOX_PAUSE // 2 and self.transport:
            self._paused_reading = False
            self.transport.resume_reading()
        return text

    async def send_text(self, text: str) -> None:
        if self.closed or self.close_sent:
            raise Closed
        if self._writable is not None and not self._writable.done():
            await self._writable
        self._write(frame(OP_TEXT, text.encode("utf-8")))

    def close(self, code: int) -> None:
        if not self.upgraded:
            self.closed = True
            if self.transport is not None:
                self.transport.write(_http_error("403 Forbidden"))
                self.transport.close()
            return
        if not self.close_sent:
            self._send_close(code)
        self.closed = True
        self._wake()
        if self.transport is not None and self._close_timer is None:
            # The peer answers our close frame and closes; if it does not, we do.
            self._close_timer = asyncio.get_running_loop().call_later(
                CLOSE_TIMEOUT, self.transport.close
            )


class RawSocket:
    """:class:`domino.server.ws.Socket` over a :class:`SocketProtocol`."""

    __slots__ = ("origin", "proto")

    def __init__(self, proto: SocketProtocol) -> None:
        self.proto = proto
        self.origin = proto.origin

    @property
    def is_open(self) -> bool:
        return self.proto.upgraded and not self.proto.close_sent and not self.proto.closed

    async def accept(self) -> None:
        self.proto.accept()

    async def receive(self) -> str:
        return await self.proto.receive()

    async def send_text(self, text: str) -> None:
        await self.proto.send_text(text)

    async def close(self, code: int) -> None:
        self.proto.close(code)


def protocol_factory(service: Any) -> Callable[..., SocketProtocol]:
    """The class-like callable uvicorn's ``ws`` setting takes, serving ``service``."""
    keepalive = Keepalive()

    def make(config: Any, server_state: Any, app_state: Any = None) -> SocketProtocol:
        return SocketProtocol(
            config, server_state, app_state, service=service, keepalive=keepalive
        )

    return make


__all__ = ["RawSocket", "SocketProtocol", "accept_key", "frame", "protocol_factory"]
