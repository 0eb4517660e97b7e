"""Test harness: a server on Starlette's test client, a fake clock, recording clients.

Nothing here sleeps. Time moves only when a test calls :meth:`Harness.step`
(or the clock directly); :meth:`Harness.settle` waits until every match task
has handled what is due and every queued frame has reached its socket, and
:meth:`Client.drain` then takes every frame that arrived, without blocking.
"""

from __future__ import annotations

import json
import random
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient, WebSocketTestSession

from domino.server import FakeClock, Settings, create_app
from domino.server.service import Service
from domino.table import Timing

FAST = Timing(bot_delay=(1.0, 2.0), bot_step_delay=(0.5, 0.5), round_pause=3.0, grace=5.0)


class Closed(Exception):
    """The server closed the socket; ``code`` is the close code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@dataclass
class Client:
    """One WebSocket of one person; ``frames`` keeps every frame it received (raw text)."""

    h: Harness
    ws: WebSocketTestSession
    token: str
    name: str
    frames: list[str] = field(default_factory=list)
    closed: int | None = None
    profile: dict[str, Any] = field(default_factory=dict)

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(msg))

    def send_raw(self, text: str) -> None:
        self.ws.send_text(text)

    def _take(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["type"] == "websocket.close":
            self.closed = int(message.get("code", 1000))
            raise Closed(self.closed)
        text = message.get("text") or message["bytes"].decode()
        self.frames.append(text)
        parsed: dict[str, Any] = json.loads(text)
        return parsed

    def recv(self) -> dict[str, Any]:
        """The next frame (blocks until the server sends one; it always answers)."""
        return self._take(self.ws.receive())

    def recv_until(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Frames until one matches ``pred`` (the server must be about to send it)."""
        while True:
            m = self.recv()
            if pred(m):
                return m

    def recv_type(self, kind: str) -> dict[str, Any]:
        return self.recv_until(lambda m: m["type"] == kind)

    def drain(self) -> list[dict[str, Any]]:
        """Every frame that has arrived, without waiting for more."""
        out = []
        while self.closed is None:
            try:
                message = self.ws.portal.call(self.ws._send_rx.receive_nowait)
            except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                break
            try:
                out.append(self._take(message))
            except Closed:
                break
        return out

    def request(self, msg: dict[str, Any], kind: str) -> dict[str, Any]:
        """Send and wait for the answer of type ``kind`` (or fail on an error)."""
        self.send(msg)
        m = self.recv_until(lambda m: m["type"] in (kind, "error"))
        assert m["type"] == kind, m
        return m

    def expect_error(self, msg: dict[str, Any], code: str) -> dict[str, Any]:
        """Send and wait for an error; it must carry ``code`` and a German message."""
        self.send(msg)
        m = self.recv_until(lambda m: m["type"] == "error")
        assert m["code"] == code, m
        assert m["message"] and m["message"] != code
        return m

    exited: bool = False

    def close(self) -> None:
        """Close from the client side (also ends the test session's task)."""
        if self.closed is None:
            self.closed = 1000
        if not self.exited:
            self.exited = True
            self.ws.__exit__(None, None, None)

    def last_of(self, kind: str) -> dict[str, Any]:
        """The latest frame of type ``kind`` received so far, or the next one to come."""
        for raw in reversed(self.frames):
            m: dict[str, Any] = json.loads(raw)
            if m["type"] == kind:
                return m
        return self.recv_type(kind)

    def states(self) -> list[dict[str, Any]]:
        return [m for m in map(json.loads, self.frames) if m.get("type") == "state"]


class Harness:
    """A running app (lifespan entered) on a temporary SQLite file and a fake clock."""

    def __init__(self, data_dir: Path, clock: FakeClock | None = None, **settings: Any):
        self.clock = clock or FakeClock()
        settings.setdefault("timing", FAST)
        # Deals from a generator named after the test's folder: a failure replays the same way.
        seeds = random.Random(data_dir.name)
        settings.setdefault("seeds", lambda: f"{seeds.getrandbits(128):032x}")
        self.settings = Settings(data_dir=data_dir, clock=self.clock, **settings)
        self.app = create_app(self.settings)
        self.tc = TestClient(self.app)
        self.tc.__enter__()
        self.clients: list[Client] = []
        self._closed = False

    @property
    def service(self) -> Service:
        service: Service = self.app.state.service
        return service

    def close(self) -> None:
        """Close the sockets, then end the app's lifespan; once (a fixture may close a
        node the test closed already)."""
        if self._closed:
            return
        self._closed = True
        for c in self.clients:
            c.close()
        self.tc.__exit__(None, None, None)

    # -- people ------------------------------------------------------------------------
    def guest(self, name: str) -> str:
        r = self.tc.post("/api/guest", json={"name": name})
        assert r.status_code == 201, r.text
        token: str = r.json()["token"]
        return token

    def connect(self, token: str, name: str = "", headers: dict[str, str] | None = None) -> Client:
        ws = self.tc.websocket_connect("/ws", headers=headers or {})
        ws.__enter__()
        c = Client(self, ws, token, name)
        self.clients.append(c)
        welcome = c.request({"type": "hello", "token": token}, "welcome")
        c.profile = welcome["profile"]
        return c

    def person(self, name: str) -> Client:
        return self.connect(self.guest(name), name)

    # -- time --------------------------------------------------------------------------
    def settle(self) -> None:
        self.tc.portal.call(self.service.settle)

    def step(self) -> bool:
        """Move the clock to the next thing any match has to do; ``False`` if none."""
        self.settle()
        due = self.tc.portal.call(self.service.next_wakeup)
        if due is None:
            return False
        self.clock.advance(max(0.0, due - self.clock.now()))
        self.settle()
        return True


@contextmanager
def harness(data_dir: Path, **kw: Any) -> Iterator[Harness]:
    h = Harness(data_dir, **kw)
    try:
        yield h
    finally:
        h.close()


TILE = re.compile(r"(?<![0-9])([0-6])\|([0-6])(?![0-9])")


def tiles_in(obj: Any) -> set[str]:
    """Every tile named anywhere in ``obj`` (JSON text or data), as ``"high|low"``."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return {f"{max(a, b)}|{min(a, b)}" for a, b in TILE.findall(text)}


def latest_state(c: Client) -> dict[str, Any] | None:
    states = c.states()
    return states[-1] if states else None


def lobby_with_bots(
    host: Client,
    seats: int,
    levels: list[str],
    rules: dict[str, Any] | None = None,
    joiners: tuple[Client, ...] = (),
) -> dict[str, Any]:
    """Create a lobby, seat ``joiners`` (seats 1, 2, ...), fill the rest with bots."""
    lobby = host.request({"type": "create_lobby", "seats": seats}, "lobby")["lobby"]
    if rules:
        lobby = host.request({"type": "set_rules", "rules": rules}, "lobby")["lobby"]
    for j in joiners:
        lobby = j.request({"type": "join_lobby", "code": lobby["code"]}, "lobby")["lobby"]
    free = [s["seat"] for s in lobby["seats"] if s["kind"] is None]
    for i, level in zip(free, levels, strict=False):
        lobby = host.request({"type": "add_bot", "seat": i, "level": level}, "lobby")["lobby"]
    return lobby


def start(host: Client) -> dict[str, Any]:
    """The host starts; returns the host's first state."""
    host.request({"type": "start"}, "match_started")
    return host.recv_type("state")


def answered(v: int) -> Callable[[dict[str, Any]], bool]:
    """The answer to a move made on version ``v``: an error or a newer state."""
    return lambda m: m["type"] == "error" or (m["type"] == "state" and m["v"] > v)


def play_out(
    h: Harness,
    players: list[Client],
    rng: random.Random,
    *,
    idle: set[int] | None = None,
    max_steps: int = 20000,
    stop: Callable[[], bool] | None = None,
) -> None:
    """Drive a match to its end: each client in ``players`` plays a random legal move when it
    is its turn (clients whose seat is in ``idle`` let their clock run out)."""
    idle = idle or set()
    acted: set[tuple[int, int]] = set()
    for _ in range(max_steps):
        h.settle()
        for c in h.clients:
            c.drain()
        if stop is not None and stop():
            return
        moved = False
        for c in players:
            st = latest_state(c)
            if st is None or c.closed is not None or st["phase"] == "match_over":
                continue
            seat = st["you"]
            if seat is None or seat in idle or not st["view"]["legal"]:
                continue
            if (id(c), st["v"]) in acted:
                continue
            acted.add((id(c), st["v"]))
            move = rng.choice(st["view"]["legal"])
            c.send({"type": "move", "match": st["match_id"], "move": move, "v": st["v"]})
            c.recv_until(answered(st["v"]))
            moved = True
        if moved:
            continue
        if not h.step():
            h.settle()
            for c in h.clients:
                c.drain()
            return
    raise AssertionError("the match did not end")
