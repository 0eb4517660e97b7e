"""Simulated people speaking the public protocol (docs/protocol.md) over real sockets.

A :class:`Player` signs up as a guest over REST, opens one WebSocket, says
``hello`` and then reacts to what the server sends: when a ``state`` gives
its seat a non-empty ``legal`` list, it picks one of those moves after
``delay`` seconds and sends it with the version it saw. The time from
sending a move to the first ``state`` with a newer version is its
command→event latency. A :class:`Group` forms one table: its host opens a
lobby, adds bots, the others join (spectators watch), and the host starts
match after match (the lobby opens again after each one).

With ``reconnect`` a player whose socket drops (the crash test kills the
server) connects again with the same token, gets its seat's snapshot and
re-sends the move it had not seen answered, unchanged (same ``v``, same
``ref``): the server must refuse it if it was applied already. Every move
sent and every one seen acknowledged goes into a :class:`Journal`, which the
crash test checks against the stored log.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

#: Upper bounds so that nothing waits for ever (seconds).
WAIT_LOBBY = 30.0
WAIT_MATCH = 1800.0
RECONNECT_TRIES = 200


@dataclass
class Stats:
    """Counters of one load process; :meth:`drain` hands them over and resets the window."""

    sent: int = 0
    acked: int = 0
    received: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    connected: int = 0
    in_match: int = 0
    matches_live: int = 0
    matches_done: int = 0
    #: Tables that have started a match (a table between two matches is still seated).
    tables_seated: int = 0

    def error(self, what: str) -> None:
        """Count one error of kind ``what``."""
        self.errors[what] += 1

    def drain(self) -> dict[str, Any]:
        """The window's figures as a JSON-ready dict; window counters restart at zero."""
        out = {
            "sent": self.sent,
            "acked": self.acked,
            "received": self.received,
            "lat": [round(x * 1000, 2) for x in self.latencies],
            "errors": dict(self.errors),
            "closes": dict(self.closes),
            "connected": self.connected,
            "in_match": self.in_match,
            "matches_live": self.matches_live,
            "matches_done": self.matches_done,
            "tables_seated": self.tables_seated,
        }
        self.sent = self.acked = self.received = 0
        self.latencies = []
        self.errors = Counter()
        self.closes = Counter()
        return out


@dataclass
class Sent:
    """One move as sent: where, by whom, on which version, and when."""

    ref: str
    match: str
    seat: int
    v: int
    move: str
    at: float
    resent: int = 0


@dataclass
class Journal:
    """Every move sent and every move seen acknowledged (for the crash test's check)."""

    sent: list[Sent] = field(default_factory=list)
    acked: set[str] = field(default_factory=set)
    refused: Counter[str] = field(default_factory=Counter)
    matches: set[str] = field(default_factory=set)
    players: dict[str, str] = field(default_factory=dict)  # profile id -> token


@dataclass(frozen=True)
class ClientConfig:
    """How the simulated people behave."""

    base_url: str
    delay: float = 1.0
    jitter: float = 0.0
    reconnect: bool = False
    origin: str | None = None


_refs = itertools.count(1)


class Player:
    """One person: a guest profile, one socket, and the seat it plays."""

    def __init__(
        self,
        name: str,
        cfg: ClientConfig,
        stats: Stats,
        rng: random.Random,
        journal: Journal | None = None,
    ) -> None:
        self.name = name
        self.cfg = cfg
        self.stats = stats
        self.rng = rng
        self.journal = journal
        self.token = ""
        self.pid = ""
        self.ws: ClientConnection | None = None
        self.match: str | None = None
        self.seat: int | None = None
        self.v = 0
        self.pending: dict[str, Sent] = {}
        self.lobby: dict[str, Any] | None = None
        self.code: asyncio.Future[str] | None = None
        self.can_start = asyncio.Event()
        self.match_over = asyncio.Event()
        self.welcomed = asyncio.Event()
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._resync = False
        self._reader: asyncio.Task[None] | None = None
        self._stop = False

    # -- connection ----------------------------------------------------------------------
    async def signup(self, http: httpx.AsyncClient) -> None:
        """``POST /api/guest``: a guest profile and its token."""
        r = await http.post(self.cfg.base_url + "/api/guest", json={"name": self.name})
        r.raise_for_status()
        body = r.json()
        self.token = body["token"]
        self.pid = body["profile"]["id"]
        if self.journal is not None:
            self.journal.players[self.pid] = self.token

    def ws_url(self) -> str:
        """The socket address derived from the HTTP base."""
        return self.cfg.base_url.replace("http://", "ws://", 1) + "/ws"

    async def open(self) -> None:
        """Connect, say hello, wait for ``welcome``; then read in the background."""
        headers = {"Origin": self.cfg.origin} if self.cfg.origin else None
        self.ws = await connect(
            self.ws_url(),
            compression=None,
            max_size=2**20,
            ping_interval=None,
            open_timeout=60,
            close_timeout=2,
            additional_headers=headers,
        )
        self.welcomed.clear()
        self.closed.clear()
        await self.ws.send(json.dumps({"type": "hello", "token": self.token, "protocol": 1}))
        self._reader = asyncio.create_task(self._read(self.ws))
        await asyncio.wait_for(self.welcomed.wait(), WAIT_LOBBY)
        self.stats.connected += 1

    async def close(self) -> None:
        """Stop acting and close the socket."""
        self._stop = True
        if self._timer is not None:
            self._timer.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._reader, 5)

    async def send(self, msg: dict[str, Any]) -> None:
        """Send one message (dropped silently while disconnected)."""
        ws = self.ws
        if ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(orjson.dumps(msg).decode())

    async def _read(self, ws: ClientConnection) -> None:
        try:
            while True:
                # Bytes as they came (no text decoding) and orjson: the load generators
                # share the machine with the server they measure, so their own CPU counts.
                raw = await ws.recv(decode=False)
                self.stats.received += 1
                self._on(orjson.loads(raw))
        except ConnectionClosed:
            pass
        finally:
            code = ws.close_code
            self.close_code = code
            if self.welcomed.is_set():
                self.stats.connected -= 1
            if not self._stop:
                self.stats.closes[str(code)] += 1
            if self._timer is not None:
                self._timer.cancel()
            self.ws = None
            self.closed.set()
            if self.cfg.reconnect and not self._stop:
                asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        """Connect again with the same token (the crash test's restarts)."""
        for attempt in range(RECONNECT_TRIES):
            if self._stop:
                return
            await asyncio.sleep(min(0.05 * (attempt + 1), 0.5))
            try:
                self._resync = True
                await self.open()
                return
            except (OSError, InvalidHandshake, InvalidStatus, TimeoutError, ConnectionClosed):
                continue
        self.stats.error("reconnect_failed")

    # -- what the server says -------------------------------------------------------------
    def _on(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "state":
            self._on_state(msg)
        elif kind == "welcome":
            ref = msg.get("match")
            if ref:
                self.match, self.seat = ref["match"], ref["seat"]
            elif self.match is not None and not self.match_over.is_set():
                # The match ended while this client was away (a restart finished it).
                self.match_over.set()
            self.welcomed.set()
        elif kind == "lobby":
            self._on_lobby(msg)
        elif kind == "match_started":
            self.match, self.seat, self.v = msg["match"], msg["seat"], 0
            self.match_over.clear()
            self.can_start.clear()
            if self.journal is not None:
                self.journal.matches.add(msg["match"])
        elif kind == "error":
            self._on_error(msg)

    def _on_lobby(self, msg: dict[str, Any]) -> None:
        lobby = msg["lobby"]
        self.lobby = lobby
        if self.code is not None and not self.code.done():
            self.code.set_result(lobby["code"])
        if lobby["status"] == "open" and lobby["can_start"]:
            self.can_start.set()
        else:
            self.can_start.clear()

    def _on_error(self, msg: dict[str, Any]) -> None:
        ref = msg.get("ref")
        code = str(msg.get("code"))
        sent = self.pending.pop(ref, None) if ref else None
        if sent is not None and sent.resent and code == "stale_version":
            # The re-sent move of a crash: refused because it was applied before the
            # crash or overtaken since. Either way not twice; the check decides which.
            if self.journal is not None:
                self.journal.refused["resent_stale"] += 1
            return
        self.stats.error(code)

    def _on_state(self, msg: dict[str, Any]) -> None:
        mid = msg.get("match_id") or msg.get("match")
        if mid is None or mid != self.match:
            return
        v = int(msg["v"])
        now = time.perf_counter()
        if self._resync:
            # The first snapshot after a reconnect: re-send what was not answered,
            # unchanged, and let the server's answer decide (no acknowledgement here).
            self._resync = False
            for s in self.pending.values():
                s.resent += 1
                asyncio.get_running_loop().create_task(self._send_move(s))
        else:
            for ref, s in list(self.pending.items()):
                if v > s.v:
                    del self.pending[ref]
                    self.stats.latencies.append(now - s.at)
                    self.stats.acked += 1
                    if self.journal is not None:
                        self.journal.acked.add(ref)
        self.v = max(self.v, v)
        if msg.get("phase") == "match_over":
            self.match_over.set()
            if self._timer is not None:
                self._timer.cancel()
            return
        legal = msg["view"]["legal"]
        if legal and msg.get("you") == self.seat and not self.pending:
            if self._timer is not None:
                self._timer.cancel()
            delay = self.cfg.delay + (self.rng.random() * self.cfg.jitter if self.cfg.jitter else 0)
            self._timer = asyncio.get_running_loop().call_later(
                delay, self._act, mid, v, list(legal)
            )

    def _act(self, match: str, v: int, legal: list[str]) -> None:
        """Send one of ``legal`` if nothing changed since the state that offered them."""
        if self._stop or match != self.match or v != self.v or self.pending:
            return
        assert self.seat is not None
        sent = Sent(f"m{next(_refs)}", match, self.seat, v, self.rng.choice(legal), 0.0)
        self.pending[sent.ref] = sent
        if self.journal is not None:
            self.journal.sent.append(sent)
        asyncio.get_running_loop().create_task(self._send_move(sent))

    async def _send_move(self, s: Sent) -> None:
        s.at = time.perf_counter()
        if not s.resent:
            self.stats.sent += 1
        await self.send({"type": "move", "match": s.match, "move": s.move, "v": s.v, "ref": s.ref})


@dataclass
class TableSpec:
    """What one group plays: seats, how many are bots, watchers, rules, how many matches."""

    seats: int = 4
    bots: int = 0
    bot_level: str = "anfaenger"
    spectators: int = 0
    rules: dict[str, Any] | None = None
    matches: int | None = None  # None: until stopped

    @property
    def humans(self) -> int:
        """Human seats."""
        return self.seats - self.bots


class Group:
    """The people of one table: the host (``players[0]``), the others, the watchers."""

    def __init__(
        self,
        gid: int,
        spec: TableSpec,
        cfg: ClientConfig,
        stats: Stats,
        rng: random.Random,
        journal: Journal | None = None,
        player_cls: type[Player] | None = None,
    ) -> None:
        self.gid = gid
        self.spec = spec
        self.stats = stats
        cls = player_cls or Player  # a subclass observes more (bench failover)
        make: Callable[[str], Player] = lambda n: cls(  # noqa: E731
            n, cfg, stats, random.Random(rng.random()), journal
        )
        self.players = [make(f"L{gid}-{i}") for i in range(spec.humans)]
        self.watchers = [make(f"W{gid}-{i}") for i in range(spec.spectators)]
        self.stopping = False
        self.played = 0

    @property
    def everyone(self) -> list[Player]:
        """Players and watchers."""
        return self.players + self.watchers

    async def connect(self, http: httpx.AsyncClient, gate: asyncio.Semaphore) -> None:
        """Sign everyone up and open their sockets (``gate`` bounds concurrent handshakes)."""
        for p in self.everyone:
            async with gate:
                await p.signup(http)
                await p.open()

    async def play(self) -> None:
        """Form the lobby and play matches until stopped or ``spec.matches`` are done."""
        host = self.players[0]
        host.code = asyncio.get_running_loop().create_future()
        await host.send({"type": "create_lobby", "seats": self.spec.seats})
        code = await asyncio.wait_for(host.code, WAIT_LOBBY)
        if self.spec.rules:
            await host.send({"type": "set_rules", "rules": self.spec.rules})
        for i in range(self.spec.bots):
            seat = self.spec.humans + i
            await host.send({"type": "add_bot", "seat": seat, "level": self.spec.bot_level})
        for p in self.players[1:]:
            await p.send({"type": "join_lobby", "code": code})
        for w in self.watchers:
            await w.send({"type": "join_lobby", "code": code, "watch": True})
        while not self.stopping:
            if self.spec.matches is not None and self.played >= self.spec.matches:
                break
            try:
                await asyncio.wait_for(host.can_start.wait(), WAIT_LOBBY)
            except TimeoutError:
                self.stats.error("lobby_stuck")
                return
            if self.stopping:
                break
            host.match = None
            await host.send({"type": "start"})
            if self.played == 0:
                self.stats.tables_seated += 1
            self.stats.matches_live += 1
            self.stats.in_match += len(self.players)
            try:
                await self._wait_match_over(host)
            finally:
                self.stats.matches_live -= 1
                self.stats.in_match -= len(self.players)
            self.played += 1
            self.stats.matches_done += 1

    async def _wait_match_over(self, host: Player) -> None:
        deadline = time.monotonic() + WAIT_MATCH
        while not host.match_over.is_set():
            if time.monotonic() > deadline:
                raise TimeoutError("the match did not end in time")
            try:
                await asyncio.wait_for(host.match_over.wait(), 2.0)
            except TimeoutError:
                # After a crash the start may never have reached the database: the
                # lobby is open and full again, so the host starts once more.
                lost = host.match is None and host.can_start.is_set() and host.ws is not None
                if host.cfg.reconnect and lost:
                    await host.send({"type": "start"})
        host.match_over.clear()

    async def close(self) -> None:
        """Close every socket."""
        self.stopping = True
        await asyncio.gather(*(p.close() for p in self.everyone), return_exceptions=True)
