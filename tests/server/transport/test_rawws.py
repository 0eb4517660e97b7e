"""The lean WebSocket transport (server/transport/rawws.py) over real sockets on 127.0.0.1.

A real server (create_app on uvicorn with server.run's choices) runs in a thread;
edge cases of RFC 6455 are sent byte by byte through a plain socket, normal
traffic through the websockets client. The ASGI route (Starlette's test client)
refuses binary frames the same way.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from domino.server.transport.rawws import (
    OP_BINARY,
    OP_CLOSE,
    OP_CONT,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    Keepalive,
    SocketProtocol,
    accept_key,
    frame,
    text_frame,
)

from ..harness import Closed, harness

if TYPE_CHECKING:
    from live import LiveServers

TIMEOUT = 10.0  # a bound on a dead server, never a timing assertion


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory, module_live_server: LiveServers) -> str:
    settings = module_live_server.settings(data_dir=tmp_path_factory.mktemp("rawws"))
    return module_live_server(settings).removeprefix("http://")


def _token(base: str) -> str:
    r = httpx.post(f"http://{base}/api/guest", json={"name": "Rita"}, timeout=TIMEOUT)
    r.raise_for_status()
    return str(r.json()["token"])


# -- a raw client ------------------------------------------------------------------------
def _handshake(base: str, path: str = "/ws", **headers: str) -> tuple[socket.socket, bytes]:
    host, port = base.split(":")
    sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    key = base64.b64encode(os.urandom(16)).decode()
    fields = {
        "Host": base,
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": key,
        "Sec-WebSocket-Version": "13",
        **headers,
    }
    request = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items())
    sock.sendall((request + "\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    if head.startswith(b"HTTP/1.1 101"):
        assert f"Sec-WebSocket-Accept: {accept_key(key)}".encode() in head
    return sock, head


def _frame(opcode: int, payload: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", b0 | 0, (0x80 if mask else 0) | n)
    elif n < 65536:
        head = struct.pack("!BBH", b0, (0x80 if mask else 0) | 126, n)
    else:
        head = struct.pack("!BBQ", b0, (0x80 if mask else 0) | 127, n)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def _read_frame(sock: socket.socket) -> tuple[int, bytes]:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    b0, b1 = exactly(2)
    assert not b1 & 0x80, "server frames are not masked"
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", exactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", exactly(8))[0]
    return b0 & 0x0F, exactly(n)


def _messages_until_close(sock: socket.socket) -> tuple[list[dict[str, Any]], int | None]:
    out: list[dict[str, Any]] = []
    for _ in range(50):
        op, payload = _read_frame(sock)
        if op == OP_CLOSE:
            return out, struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
        if op == OP_TEXT:
            out.append(json.loads(payload))
    raise AssertionError("no close frame")


def _hello(sock: socket.socket, token: str) -> dict[str, Any]:
    sock.sendall(_frame(OP_TEXT, json.dumps({"type": "hello", "token": token}).encode()))
    op, payload = _read_frame(sock)
    assert op == OP_TEXT
    msg: dict[str, Any] = json.loads(payload)
    return msg


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_the_text_frames_built_here_are_the_librarys(size: int) -> None:
    text = ("ä" * size)[: size // 2] + "x" * (size - size // 2)  # multi-byte UTF-8 too
    assert text_frame(text) == frame(OP_TEXT, text.encode("utf-8"))


# -- the handshake -----------------------------------------------------------------------
def test_other_paths_and_bad_upgrades_get_http_errors(base: str) -> None:
    assert _handshake(base, "/elsewhere")[1].startswith(b"HTTP/1.1 404")
    assert _handshake(base, **{"Sec-WebSocket-Version": "8"})[1].startswith(b"HTTP/1.1 426")
    assert _handshake(base, **{"Sec-WebSocket-Key": "short"})[1].startswith(b"HTTP/1.1 400")
    assert _handshake(base, Origin="http://evil.example")[1].startswith(b"HTTP/1.1 403")
    # The page's own origin (the Host the browser opened, here a LAN address) is accepted.
    lan = {"Host": "192.168.1.20:8000", "Origin": "http://192.168.1.20:8000"}
    assert _handshake(base, **lan)[1].startswith(b"HTTP/1.1 101")
    lan["Origin"] = "http://evil.example"
    assert _handshake(base, **lan)[1].startswith(b"HTTP/1.1 403")


def test_a_whole_conversation_through_the_websockets_client(base: str) -> None:
    token = _token(base)
    with connect(f"ws://{base}/ws", compression=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "welcome"
        # A message in three fragments is one message (each alone is not JSON).
        ws.send(iter(['{"type":', '"ping",', '"ref":"frag"}']))
        assert json.loads(ws.recv(timeout=TIMEOUT)) == {"type": "pong"}
        ws.ping(b"are you there").wait(TIMEOUT)  # a ping is answered with its pong
        ws.send(json.dumps({"type": "create_lobby", "seats": 2}))
        msg = json.loads(ws.recv(timeout=TIMEOUT))
        assert msg["type"] == "lobby" and msg["lobby"]["seats"][0]["name"] == "Rita"


def test_text_that_is_not_utf8_closes_1007(base: str) -> None:
    token = _token(base)
    sock, head = _handshake(base)
    assert head.startswith(b"HTTP/1.1 101")
    assert _hello(sock, token)["type"] == "welcome"
    sock.sendall(_frame(OP_TEXT, b"\xff\xfe"))
    assert _messages_until_close(sock)[1] == 1007
    sock.close()


def test_binary_frames_are_refused_with_1003(base: str) -> None:
    token = _token(base)
    # Whole, even when it would be good JSON in UTF-8 ...
    sock, _ = _handshake(base)
    assert _hello(sock, token)["type"] == "welcome"
    sock.sendall(_frame(OP_BINARY, b'{"type":"ping"}'))
    assert _messages_until_close(sock) == ([], 1003)
    sock.close()
    # ... or its first fragment.
    sock, _ = _handshake(base)
    assert _hello(sock, token)["type"] == "welcome"
    sock.sendall(_frame(OP_BINARY, b'{"type":', fin=False))
    sock.sendall(_frame(OP_CONT, b'"ping"}'))
    assert _messages_until_close(sock) == ([], 1003)
    sock.close()
    # A conforming client gets a clean closing handshake.
    with connect(f"ws://{base}/ws", compression=None) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "welcome"
        ws.send(b'{"type":"ping"}')
        with pytest.raises(ConnectionClosed) as err:
            ws.recv(timeout=TIMEOUT)
    assert err.value.rcvd is not None and err.value.rcvd.code == 1003


def test_the_asgi_route_refuses_binary_frames_with_1003_too(tmp_path: Path) -> None:
    with harness(tmp_path) as h:
        c = h.person("Anna")
        c.ws.send_bytes(b'{"type":"ping"}')
        with pytest.raises(Closed) as err:
            c.recv()
        assert err.value.code == 1003
        # The rest of the server is unharmed.
        assert h.person("Berta").request({"type": "ping"}, "pong")


def test_unmasked_client_frames_are_a_protocol_error(base: str) -> None:
    sock, _ = _handshake(base)
    sock.sendall(_frame(OP_TEXT, b'{"type":"ping"}', mask=False))
    assert _messages_until_close(sock)[1] == 1002
    sock.close()


def test_a_frame_over_the_limit_is_refused_with_a_reason_and_1009(base: str) -> None:
    token = _token(base)
    sock, _ = _handshake(base)
    assert _hello(sock, token)["type"] == "welcome"
    sock.sendall(_frame(OP_TEXT, b"x" * 9000))
    messages, code = _messages_until_close(sock)
    assert code == 1009
    assert messages and messages[-1]["code"] == "frame_too_big"
    sock.close()


def test_the_peer_closing_gets_its_close_echoed(base: str) -> None:
    token = _token(base)
    sock, _ = _handshake(base)
    assert _hello(sock, token)["type"] == "welcome"
    sock.sendall(_frame(OP_PING, b"p"))
    assert _read_frame(sock) == (OP_PONG, b"p")
    sock.sendall(_frame(OP_CLOSE, struct.pack("!H", 1000)))
    assert _messages_until_close(sock)[1] == 1000
    sock.close()


def test_a_closed_socket_is_gone_for_the_websockets_client_too(base: str) -> None:
    with connect(f"ws://{base}/ws", compression=None) as ws:
        ws.send(json.dumps({"type": "ping"}))  # not hello: refused and closed
        with pytest.raises(ConnectionClosed) as err:
            for _ in range(5):
                ws.recv(timeout=TIMEOUT)
    assert err.value.rcvd is not None and err.value.rcvd.code == 1008


# -- keep-alive, with the time handed in (no sleeping) -------------------------------------
class _Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.aborted

    def abort(self) -> None:
        self.aborted = True


class _State:
    def __init__(self) -> None:
        self.connections: set[Any] = set()
        self.tasks: set[Any] = set()


class _Config:
    ws_max_size = 8192


def test_a_silent_socket_is_pinged_then_dropped_and_an_answer_keeps_it(tmp_path: Path) -> None:
    proto = SocketProtocol(_Config(), _State(), service=None, keepalive=Keepalive())
    t = _Transport()
    proto.transport = t  # type: ignore[assignment]
    proto.handshaken = proto.upgraded = True
    proto.last_seen = 100.0
    proto.keepalive(110.0)  # 10 s of silence: nothing yet
    assert t.written == []
    proto.keepalive(121.0)  # 21 s: a ping
    assert t.written == [bytes([0x80 | OP_PING, 0])]
    proto.keepalive(135.0)  # the ping waits for an answer
    assert not t.aborted
    proto.keepalive(142.0)  # 21 s without any answer: dropped
    assert t.aborted

    again = SocketProtocol(_Config(), _State(), service=None, keepalive=Keepalive())
    t2 = _Transport()
    again.transport = t2  # type: ignore[assignment]
    again.handshaken = again.upgraded = True
    again.last_seen = 0.0
    again.keepalive(21.0)
    again.ping_sent, again.last_seen = None, 30.0  # what data_received does on the pong
    again.keepalive(45.0)
    assert not t2.aborted and len(t2.written) == 1
