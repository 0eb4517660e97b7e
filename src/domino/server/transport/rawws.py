"""The lean WebSocket transport for ``/ws``: websockets' sans-I/O protocol in a small shell.

uvicorn hands a connection that asks for an upgrade to its websocket protocol
class; :func:`protocol_factory` makes that class ours. Measured under load
(docs/reliability.md, "Memory"), uvicorn's own websocket protocol with the
ASGI stack above it kept ≈ 30 KB of Python objects per open socket (a request
and response with their header objects, a frame parser, a queue, events, six
middleware coroutines) and spent a sixth of the server's time per frame sent.
Here one socket is one :class:`SocketProtocol` with slots around one
:class:`websockets.server.ServerProtocol`, one small inbox and the endpoint's
coroutine (:func:`domino.server.transport.ws.serve_socket`, the same code the ASGI route
runs), and keep-alive pings come from one task for all sockets, not a timer each.

RFC 6455 itself is the library's: it parses and checks the opening request
(method, ``Upgrade``, ``Connection``, the key) and builds the 101 answer; it
parses, unmasks and checks every frame (masking, reserved bits, opcodes,
control frames, fragment order, the size limit) and serializes our control frames
(text frames are built here, :func:`text_frame`); it
answers pings and runs the closing handshake. What this module decides:

- the path (anything but ``/ws``: 404) and the version (anything but 13: 426
  with ``Sec-WebSocket-Version: 13``); the Origin is the endpoint's check
  (403); HTTP refusals carry no body;
- messages: fragments joined, text decoded (not UTF-8: close 1007), **binary
  refused with close 1003** (the protocol is text only, docs/protocol.md);
- a message over ``ws_max_size`` (the library closes with 1009) is announced
  first with the ``frame_too_big`` error the endpoint uses;
- flow: no frame is read before the 101 is sent, reading pauses while
  :data:`INBOX_PAUSE` messages wait, sending waits while the transport's
  buffer is full, the peer has :data:`CLOSE_TIMEOUT` to answer our close.

No extensions are negotiated (no compression), no subprotocol.
"""

from __future__ import annotations

import asyncio
import http
import logging
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, cast

from websockets.exceptions import PayloadTooBig
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import OPEN
from websockets.server import ServerProtocol
from websockets.typing import BytesLike
from websockets.utils import accept_key

from domino.server.transport.ws import Closed, error_text, serve_socket

log = logging.getLogger("domino.server")

MAX_REQUEST = 16 * 1024  # bytes of the opening request
INBOX_PAUSE = 64  # unread messages before we stop reading the socket
PING_INTERVAL = 20.0  # seconds of silence before a ping
PING_TIMEOUT = 20.0  # seconds a ping may wait for any answer
CLOSE_TIMEOUT = 5.0  # seconds the peer has to answer our close frame

OP_CONT, OP_TEXT, OP_BINARY = int(Opcode.CONT), int(Opcode.TEXT), int(Opcode.BINARY)
OP_CLOSE, OP_PING, OP_PONG = int(Opcode.CLOSE), int(Opcode.PING), int(Opcode.PONG)

#: The keep-alive ping (empty payload), serialized by the library once for every socket.
PING_FRAME = Frame(Opcode.PING, b"").serialize(mask=False)


def frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, final frame (what a server sends), serialized by the library."""
    return Frame(Opcode(opcode), payload).serialize(mask=False)


def text_frame(text: str) -> bytes:
    """The final, unmasked text frame of ``text``: the bytes :func:`frame` gives for
    ``OP_TEXT``, built here because every message the server sends is one (RFC 6455
    §5.2: FIN and opcode 1, then the length in 7, 7+16 or 7+64 bits, no mask)."""
    data = text.encode("utf-8")
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big") + data
    return b"\x81\x7f" + n.to_bytes(8, "big") + data


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
        "_close_timer",
        "_fragments",
        "_getter",
        "_inbox",
        "_keepalive",
        "_loop",
        "_paused_reading",
        "_response",
        "_writable",
        "buffer",
        "closed",
        "connections",
        "handshaken",
        "host",
        "last_seen",
        "max_size",
        "origin",
        "ping_sent",
        "service",
        "tasks",
        "transport",
        "upgraded",
        "ws",
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
        self.ws = ServerProtocol(max_size=self.max_size)
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()  # the request, then what arrives before the 101 is sent
        self.handshaken = False  # the request was read
        self.upgraded = False  # 101 sent
        self.closed = False  # the socket is done: no more messages either way
        self.origin: str | None = None
        self.host: str | None = None
        self._response: Response | None = None  # the 101, until the endpoint accepts
        self._inbox: deque[str] = deque()
        self._getter: asyncio.Future[None] | None = None
        self._fragments: list[BytesLike] | None = None  # a text message arriving in pieces
        self._paused_reading = False
        self._writable: asyncio.Future[None] | None = None
        self._close_timer: asyncio.TimerHandle | None = None
        self.last_seen = 0.0
        self.ping_sent: float | None = None

    # -- asyncio.Protocol ------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass
        self._loop = asyncio.get_running_loop()  # once: 3.11's asks getpid() each call
        self.connections.add(self)
        self.last_seen = self._loop.time()

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
        if not self.upgraded:
            if self.closed:
                return  # refused
            # Frames are read only once the 101 is out: hold them until accept().
            self.buffer += data
            if not self.handshaken:
                self._read_request()
            return
        self.last_seen = self._loop.time()
        self.ping_sent = None
        self._receive(data)

    def eof_received(self) -> bool | None:
        if self.upgraded:
            self.ws.receive_eof()
            self._flush()
        return None  # close the transport

    def shutdown(self) -> None:
        """uvicorn is stopping: close with 1012 (service restart)."""
        if self.upgraded and self.ws.state is OPEN:
            self.ws.send_close(CloseCode.SERVICE_RESTART)
            self._flush()
        self.closed = True
        self._wake()
        if self.transport is not None:
            self.transport.close()

    # -- the opening handshake ---------------------------------------------------------------
    def _read_request(self) -> None:
        # uvicorn has parsed the request already and hands it over re-serialized;
        # the library parses it again, up to its blank line only.
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > MAX_REQUEST:
                self._refuse(http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
            return
        head = bytes(self.buffer[: end + 4])
        del self.buffer[: end + 4]
        self.handshaken = True
        self.ws.receive_data(head)
        events = self.ws.events_received()
        request = events[0] if events else None
        if not isinstance(request, Request):
            # Not an HTTP request the library can read: it gives up (EOF).
            self._flush()
            self._finish()
            return
        if request.path.partition("?")[0] != "/ws":
            self._refuse(http.HTTPStatus.NOT_FOUND)
            return
        if request.headers.get_all("Sec-WebSocket-Version") != ["13"]:
            self._refuse(http.HTTPStatus.UPGRADE_REQUIRED, ("Sec-WebSocket-Version", "13"))
            return
        response = self.ws.accept(request)
        if response.status_code != 101:
            self._send_refusal(response)
            return
        self.origin = self.ws.origin
        self.host = request.headers.get("Host")
        self._response = response
        # The library's parser holds on to the request for the socket's lifetime;
        # nothing reads its headers again.
        request.headers.clear()
        task = asyncio.get_running_loop().create_task(serve_socket(self.service, RawSocket(self)))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _refuse(self, status: http.HTTPStatus, *headers: tuple[str, str]) -> None:
        response = self.ws.reject(status, "")
        for name, value in headers:
            response.headers[name] = value
        self._send_refusal(response)

    def _send_refusal(self, response: Response) -> None:
        """An HTTP answer other than 101, without the library's English body."""
        if response.body:
            response.body = b""
            del response.headers["Content-Length"]
            response.headers["Content-Length"] = "0"
        self.handshaken = True
        self.ws.send_response(response)  # queues the answer and the end of the stream
        self._flush()
        self._finish()

    # -- frames -------------------------------------------------------------------------------
    def _receive(self, data: bytes | bytearray) -> None:
        ws = self.ws
        was_open = ws.state is OPEN
        ws.receive_data(data)
        # The library has read every whole frame of ``data`` (and stopped at the first
        # it refused): what came before a refusal still counts, nothing after ours does.
        for event in ws.events_received() if was_open else ():
            if not isinstance(event, Frame):
                continue
            opcode = event.opcode
            if opcode is Opcode.TEXT:
                if not event.fin:
                    self._fragments = [event.data]
                elif not self._message(event.data):
                    break
            elif opcode is Opcode.CONT:
                # The library checks the order of fragments and their total size.
                if self._fragments is not None:
                    self._fragments.append(event.data)
                    if event.fin:
                        parts, self._fragments = self._fragments, None
                        if not self._message(b"".join(parts)):
                            break
            elif opcode is Opcode.BINARY:
                self._close(CloseCode.UNSUPPORTED_DATA)  # the protocol is text only
                break
            # PING was answered by the library, PONG needs nothing, CLOSE was echoed.
        if was_open and isinstance(ws.parser_exc, PayloadTooBig):
            # The library failed the connection with 1009; say why before its close frame,
            # as the endpoint does for a message it finds too long.
            self._write(frame(OP_TEXT, error_text("frame_too_big", limit=self.max_size).encode()))
        self._flush()

    def _message(self, payload: BytesLike) -> bool:
        """Queue one whole message for the endpoint; ``False`` if it failed the socket."""
        try:
            text = str(payload, "utf-8")
        except UnicodeDecodeError:
            self.ws.fail(CloseCode.INVALID_DATA)
            return False
        self._inbox.append(text)
        if len(self._inbox) >= INBOX_PAUSE and not self._paused_reading and self.transport:
            self._paused_reading = True
            self.transport.pause_reading()
        self._wake()
        return True

    def _close(self, code: int) -> None:
        """Start the closing handshake (nothing to do if it has begun)."""
        if self.ws.state is OPEN:
            self.ws.send_close(code)
        self._flush()
        self.closed = True
        self._wake()

    def _flush(self) -> None:
        """Write what the library has queued; its end of stream closes the transport."""
        transport = self.transport
        for data in self.ws.data_to_send():
            if not data:  # SEND_EOF
                self._finish()
            elif transport is not None and not transport.is_closing():
                transport.write(data)
        if (
            self._close_timer is None
            and transport is not None
            and not transport.is_closing()
            and self.ws.close_expected()
        ):
            # Our close frame is out: the peer answers and closes; if it does not, we do.
            self._close_timer = asyncio.get_running_loop().call_later(
                CLOSE_TIMEOUT, transport.close
            )

    def _finish(self) -> None:
        self.closed = True
        self._wake()
        if self.transport is not None:
            self.transport.close()

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
            self._write(PING_FRAME)  # the same bytes as ws.send_ping(b"")

    # -- what RawSocket uses ------------------------------------------------------------
    def accept(self) -> None:
        response, self._response = self._response, None
        if self.closed or response is None:
            return  # the peer left before the upgrade was answered
        self.ws.send_response(response)
        self.upgraded = True
        self._flush()
        self._keepalive.add(self)
        if self.buffer:  # frames sent right behind the request
            data, self.buffer = self.buffer, bytearray()
            self._receive(data)

    async def receive(self) -> str:
        while not self._inbox:
            if self.closed or self.ws.state is not OPEN:
                raise Closed
            self._getter = self._loop.create_future()
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
        while self._writable is not None and not self._writable.done():
            await self._writable
        if not self.send_now(text):  # the transport is writable: only a close stops it
            raise Closed

    def send_now(self, text: str) -> bool:
        """Write ``text`` at once unless the transport asked us to wait (or it is closed)."""
        transport = self.transport
        writable = self._writable
        if (
            self.closed
            or transport is None
            or (writable is not None and not writable.done())
            or self.ws.state is not OPEN
        ):
            return False
        transport.write(text_frame(text))
        return True

    def close(self, code: int) -> None:
        if not self.upgraded:
            self._response = None
            if not self.closed and not self.ws.eof_sent:
                self._refuse(http.HTTPStatus.FORBIDDEN)
            return
        self._close(code)


class RawSocket:
    """:class:`domino.server.transport.ws.Socket` over a :class:`SocketProtocol`."""

    __slots__ = ("host", "origin", "proto")

    def __init__(self, proto: SocketProtocol) -> None:
        self.proto = proto
        self.origin = proto.origin
        self.host = proto.host

    @property
    def is_open(self) -> bool:
        proto = self.proto
        return proto.upgraded and not proto.closed and proto.ws.state is OPEN

    async def accept(self) -> None:
        self.proto.accept()

    def receive(self) -> Coroutine[Any, Any, str]:
        # The protocol's coroutine itself, not one awaiting it: a socket waits here for
        # its next message most of its life, and each wait's objects are the collector's.
        return self.proto.receive()

    async def send_text(self, text: str) -> None:
        await self.proto.send_text(text)

    def send_now(self, text: str) -> bool:
        return self.proto.send_now(text)

    async def close(self, code: int) -> None:
        self.proto.close(code)


def protocol_factory(service: Any) -> Callable[..., SocketProtocol]:
    """The class-like callable uvicorn's ``ws`` setting takes, serving ``service``."""
    keepalive = Keepalive()

    def make(config: Any, server_state: Any, app_state: Any = None) -> SocketProtocol:
        return SocketProtocol(config, server_state, app_state, service=service, keepalive=keepalive)

    return make


__all__ = [
    "OP_BINARY",
    "OP_CLOSE",
    "OP_CONT",
    "OP_PING",
    "OP_PONG",
    "OP_TEXT",
    "RawSocket",
    "SocketProtocol",
    "accept_key",
    "frame",
    "protocol_factory",
    "text_frame",
]
