"""Whole matches on a real cluster, every frame remembered and checked (tests/cluster/test_site.py).

A :class:`SiteClient` is one person with a token and one socket at a time, on
a node of its choosing (a node's own port, or the site's address through
HAProxy). It keeps every frame each of its sockets received, in order, with
the socket's number (``gen``), and what it did:

- a seated client plays: on a ``state`` of its match that offers its seat
  ``legal`` moves it sends one of them (after ``delay`` seconds) with the
  version it saw and a ``ref`` of its own;
- a move counts as *acknowledged* when the first ``state`` with a newer
  version shows the seat's own move among its events (a ``timeout`` of the
  seat, or a snapshot without events, acknowledges nothing);
- when its socket closes without being asked to (a killed or restarting
  node), it connects again with the same token through ``route()`` (HAProxy
  by default); after the first snapshot there it re-sends the move it had not
  seen answered, unchanged (same ``v``, same ``ref``): the server refuses it
  with ``stale_version`` if it was applied already. The same happens on a
  snapshot without events at the version the move was made on (another node
  took the match over and sent everyone the table as it is: the move went to
  the old owner and may be lost);
- ``match_moved`` (the node it spoke to lost the match) makes it reconnect;
  ``not_stored`` makes it ask for a fresh snapshot (``sync``) and decide again;
- a spectator says ``watch`` again after each reconnect.

Then :func:`audit` checks every frame against the stored log (replayed with
:meth:`domino.table.Table.restore` up to the frame's version, and
:func:`domino_bench.audit.check_frame`): a seat's socket sees exactly its
hand and only legal moves at that version, a spectator no hand; no tile of
another seat, of the Lager or the leftovers, no seed. Versions never go back
on a socket, a reconnect's first snapshot is not older than what the client
saw before, and no frame is newer than the stored log. :func:`check_moves`
compares the moves with the stored logs: every acknowledged move is stored
where it was made, every stored human move was sent for exactly that version.

Every wait polls the received frames under a bound (:meth:`SiteClient.until`);
nothing sleeps as synchronisation.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import ssl
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from domino.rules import Rules
from domino.table import SeatSpec, Table

from .audit import QUOTED_TILE, check_frame

#: Bounds of the waits (seconds): generous, they are liveness bounds, not timings.
WAIT = 30.0
#: How many times a client tries to connect again before it gives up.
RECONNECT_TRIES = 300
#: Engine events by which a seat's own move shows in a snapshot.
MOVE_EVENTS = frozenset({"play", "draw", "pass"})

_refs = itertools.count(1)


class SiteError(AssertionError):
    """A wait ran out, or a client saw what it must not."""


@dataclass
class Frame:
    """One message as one socket of a client received it."""

    gen: int
    msg: dict[str, Any]
    at: float


@dataclass
class Move:
    """One move as sent: the match, the seat, the version it was made on."""

    ref: str
    match: str
    seat: int
    v: int
    move: str
    acked: bool = False
    resent: int = 0
    answer: str | None = None  # the error code that refused it, if any


@dataclass
class Socket:
    """One connection of a client: where it went and how it ended."""

    gen: int
    url: str
    opened: float
    close_code: int | None = None
    asked: bool = False  # closed by the client itself


class SiteClient:
    """One person of the site: a guest profile, one socket at a time, its frames."""

    def __init__(
        self,
        name: str,
        site: str,
        *,
        origin: str | None = None,
        delay: float = 0.05,
        rng: random.Random | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.name = name
        self.tls = tls  # for a site on https: the context its certificate is trusted in
        self.site = site.rstrip("/")
        self.origin = origin or self.site
        self.delay = delay
        self.rng = rng or random.Random(name)
        #: where the next automatic reconnect goes (an HTTP base; default: the site)
        self.route: Callable[[], str] = lambda: self.site
        self.token = ""
        self.pid = ""
        self.frames: list[Frame] = []
        self.sockets: list[Socket] = []
        self.moves: list[Move] = []
        self.errors: list[dict[str, Any]] = []
        self.match: str | None = None
        self.seat: int | None = None
        self.watching = False  # a spectator of ``match``
        self.play = True  # a seated client moves by itself
        #: moves it may still make (``None``: any number; see :meth:`allow`)
        self.budget: int | None = None
        self._offer: dict[str, Any] | None = None  # the last state offering moves
        self.v = 0  # the newest version seen on any socket
        self.pending: Move | None = None
        self.over = False
        self.reconnect_failed = False
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._resync = False
        self._welcome_match: str | None = None  # the match the last welcome seated us in
        self._changed = asyncio.Event()
        self._stopping = False
        self._opening = False

    # -- connection ----------------------------------------------------------------------
    async def signup(self, http: httpx.AsyncClient) -> None:
        """``POST /api/guest`` on the site."""
        r = await http.post(self.site + "/api/guest", json={"name": self.name})
        if r.status_code != 201:
            raise SiteError(f"{self.name}: guest sign-up answered {r.status_code}: {r.text}")
        body = r.json()
        self.token, self.pid = body["token"], body["profile"]["id"]

    @property
    def connected(self) -> bool:
        return self._ws is not None

    @property
    def gen(self) -> int:
        """The number of the current (or last) socket."""
        return len(self.sockets) - 1

    async def open(self, base: str | None = None) -> None:
        """Connect to ``base`` (an HTTP address; default: the site), say hello, wait for
        the welcome; the socket is then read in the background."""
        url = (base or self.site).rstrip("/") + "/ws"
        url = "ws" + url.removeprefix("http")  # http -> ws, https -> wss
        tls: dict[str, Any] = {"ssl": self.tls} if url.startswith("wss:") and self.tls else {}
        ws = await connect(
            url,
            compression=None,
            max_size=2**20,
            ping_interval=None,
            open_timeout=WAIT,
            close_timeout=2,
            additional_headers={"Origin": self.origin},
            **tls,
        )
        sock = Socket(len(self.sockets), url, time.monotonic())
        self.sockets.append(sock)
        self._ws = ws
        mark = len(self.frames)
        await ws.send(json.dumps({"type": "hello", "token": self.token, "protocol": 1}))
        self._reader = asyncio.create_task(self._read(ws, sock))
        await self.until(
            lambda: any(f.msg.get("type") == "welcome" for f in self.frames[mark:]),
            f"{self.name}: welcome on {url}",
        )
        if self.watching and self.match is not None and not self.over:
            await self.send({"type": "watch", "match": self.match})
        elif self.match is not None and not self.over and self._welcome_match != self.match:
            # The welcome names no seat in the match this client plays (it ended while
            # the client was away, or Redis is away): ask for it, as the browser does. A
            # match that is over answers with its last state.
            await self.send({"type": "sync", "match": self.match})

    async def move_to(self, base: str) -> None:
        """Close the socket (asked for: no automatic reconnect) and connect to ``base``."""
        await self._close_socket()
        self._resync = True
        await self.open(base)

    async def _close_socket(self) -> None:
        ws, reader = self._ws, self._reader
        if ws is None:
            return
        self.sockets[-1].asked = True
        with contextlib.suppress(Exception):
            await ws.close()
        if reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(reader, WAIT)

    async def close(self) -> None:
        """Stop acting and close the socket."""
        self._stopping = True
        for task in list(self._tasks):
            task.cancel()
        await self._close_socket()

    async def send(self, msg: dict[str, Any]) -> None:
        """Send one message (dropped while disconnected: the reconnect makes up for it)."""
        ws = self._ws
        if ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await ws.send(json.dumps(msg, separators=(",", ":")))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _read(self, ws: ClientConnection, sock: Socket) -> None:
        try:
            async for raw in ws:
                msg = json.loads(raw)
                self.frames.append(Frame(sock.gen, msg, time.monotonic()))
                self._on(msg)
                self._changed.set()
        except ConnectionClosed:
            pass
        finally:
            sock.close_code = ws.close_code
            if self._ws is ws:
                self._ws = None
            self._changed.set()
            if not sock.asked and not self._stopping:
                self._spawn(self._reconnect())

    async def _reconnect(self) -> None:
        if self._opening:
            return
        self._opening = True
        try:
            for attempt in range(RECONNECT_TRIES):
                if self._stopping or self._ws is not None:
                    return
                # Backoff between failed attempts only (a refused connection); the
                # first attempt goes at once, as the protocol asks of clients.
                if attempt:
                    await asyncio.sleep(min(0.05 * attempt, 0.5))
                try:
                    self._resync = True
                    await self.open(self.route())
                    return
                except (OSError, InvalidHandshake, InvalidStatus, TimeoutError, SiteError):
                    continue
            self.reconnect_failed = True
        finally:
            self._opening = False

    # -- what arrives ----------------------------------------------------------------------
    def _on(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            ref = msg.get("match")
            self._welcome_match = ref["match"] if ref else None
            if ref and self.match in (None, ref["match"]):
                self.match, self.seat = ref["match"], ref["seat"]
        elif kind == "match_started":
            self.match, self.seat = msg["match"], msg["seat"]
            self.watching = msg["seat"] is None
        elif kind == "state":
            self._on_state(msg)
        elif kind == "error":
            self._on_error(msg)

    def _on_state(self, msg: dict[str, Any]) -> None:
        if msg.get("match_id") != self.match:
            return
        v = int(msg["v"])
        events = msg.get("events") or []
        pending = self.pending
        if pending is not None:
            if self._resync or v == pending.v:
                # A first snapshot after a reconnect, or the table as it is (a new owner
                # took the match over, a seat came or went): the move may never have
                # reached the match. Send it again, unchanged; if it was applied, the
                # server refuses the copy (stale_version).
                pending.resent += 1
                self._spawn(self._send_move(pending))
            elif v > pending.v:
                self.pending = None
                own = [e for e in events if e.get("seat") == pending.seat]
                pending.acked = bool(own) and own[0].get("kind") in MOVE_EVENTS
        self._resync = False
        self.v = max(self.v, v)
        if msg.get("phase") == "match_over":
            self.over = True
            return
        legal = (msg.get("view") or {}).get("legal") or []
        mine = bool(legal) and msg.get("you") == self.seat
        self._offer = msg if mine else None
        if mine and self.pending is None and self.play:
            self._spawn(self._act(msg["match_id"], v, list(legal)))

    def allow(self, moves: int | None) -> None:
        """Let the client make ``moves`` more moves (``None``: as many as it likes)."""
        self.budget = None if moves is None else (self.budget or 0) + moves
        offer = self._offer
        if offer is not None and self.pending is None and int(offer["v"]) == self.v:
            self._spawn(self._act(offer["match_id"], self.v, list(offer["view"]["legal"])))

    def _on_error(self, msg: dict[str, Any]) -> None:
        self.errors.append(msg)
        code = str(msg.get("code"))
        pending = self.pending
        if pending is not None and msg.get("ref") == pending.ref:
            pending.answer = code
            self.pending = None
            if code == "match_moved":
                # The node this socket is on stopped acting for the match: reconnect.
                self._spawn(self._bounce())
            elif code != "stale_version":  # stale_version comes with a fresh state
                self._spawn(self.send({"type": "sync", "match": pending.match}))

    async def _bounce(self) -> None:
        await self._close_socket()
        self._resync = True
        await self._reconnect()

    async def _act(self, match: str, v: int, legal: list[str]) -> None:
        if self.delay:
            await asyncio.sleep(self.delay * (0.5 + self.rng.random()))
        if self._stopping or not self.play or self.pending is not None or v != self.v:
            return
        if match != self.match or self.seat is None or self.over:
            return
        if self.budget is not None:
            if self.budget <= 0:
                return
            self.budget -= 1
        mv = Move(f"s{next(_refs)}", match, self.seat, v, self.rng.choice(legal))
        self.moves.append(mv)
        self.pending = mv
        await self._send_move(mv)

    async def _send_move(self, mv: Move) -> None:
        await self.send(
            {"type": "move", "match": mv.match, "move": mv.move, "v": mv.v, "ref": mv.ref}
        )

    # -- waiting ---------------------------------------------------------------------------
    async def until(self, ready: Callable[[], Any], what: str, timeout: float = WAIT) -> None:
        """Wait until ``ready()`` is true, re-checked on every frame; :class:`SiteError`
        after ``timeout`` seconds."""
        await until_any([self], ready, what, timeout)

    def states(self, gen: int | None = None) -> list[dict[str, Any]]:
        """The ``state`` frames of this client's match (of socket ``gen``, or all)."""
        return [
            f.msg
            for f in self.frames
            if f.msg.get("type") == "state"
            and f.msg.get("match_id") == self.match
            and (gen is None or f.gen == gen)
        ]

    def acked(self) -> int:
        return sum(1 for m in self.moves if m.acked)

    def describe(self, frames: int = 3) -> str:
        """Where the client is and what it got last (for failure messages)."""
        last = [
            {k: f.msg.get(k) for k in ("type", "v", "code", "phase", "events") if k in f.msg}
            for f in self.frames[-frames:]
        ]
        where = self.sockets[-1].url if self.sockets else None
        return (
            f"{self.name} (seat {self.seat}, v{self.v}, {len(self.sockets)} sockets, now "
            f"{where if self.connected else 'disconnected'}, pending "
            f"{self.pending and (self.pending.v, self.pending.resent)}, budget {self.budget}, "
            f"last {last})"
        )


async def until_any(
    clients: Iterable[SiteClient],
    ready: Callable[[], Any],
    what: str,
    timeout: float = WAIT,
    detail: Callable[[], str] | None = None,
) -> None:
    """Wait until ``ready()`` holds, re-checked whenever any of ``clients`` receives a
    frame (and at least every 0.2 s); :class:`SiteError` after ``timeout`` (with
    ``detail()`` in its message)."""
    clients = list(clients)
    deadline = time.monotonic() + timeout
    while not ready():
        left = deadline - time.monotonic()
        if left <= 0:
            more = f": {detail()}" if detail is not None else ""
            raise SiteError(f"gave up waiting for {what} after {timeout} s{more}")
        for c in clients:
            c._changed.clear()
        waits = [asyncio.ensure_future(c._changed.wait()) for c in clients]
        try:
            await asyncio.wait(waits, timeout=min(left, 0.2), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()


# -- forming a table ---------------------------------------------------------------------


@dataclass
class Party:
    """The people of one table: the host, the other players, the watchers."""

    host: SiteClient
    players: list[SiteClient]
    watchers: list[SiteClient] = field(default_factory=list)
    match: str = ""
    lobby: str = ""

    @property
    def everyone(self) -> list[SiteClient]:
        return [self.host, *self.players, *self.watchers]

    @property
    def seated(self) -> list[SiteClient]:
        return [self.host, *self.players]


async def form(
    party: Party,
    node: str,
    *,
    seats: int,
    bots: int = 0,
    level: str = "anfaenger",
    rules: dict[str, Any] | None = None,
) -> str:
    """Open a lobby from the host's socket (on ``node``, an HTTP address, for the
    messages), seat everyone, add ``bots`` bots on the last seats, start; the match id.

    Each client acts on the socket it has (lobbies live in the database: any node)."""
    host = party.host
    mark = len(host.frames)

    def lobby_of(c: SiteClient, since: int) -> dict[str, Any] | None:
        for f in reversed(c.frames[since:]):
            if f.msg.get("type") == "lobby":
                lobby: dict[str, Any] = f.msg["lobby"]
                return lobby
        return None

    await host.send({"type": "create_lobby", "seats": seats})
    await host.until(lambda: lobby_of(host, mark) is not None, f"{host.name}: the new lobby")
    lobby = lobby_of(host, mark)
    assert lobby is not None
    code = lobby["code"]
    if rules:
        await host.send({"type": "set_rules", "rules": rules})
    for i in range(bots):
        await host.send({"type": "add_bot", "seat": seats - bots + i, "level": level})
    for c in party.players:
        await c.send({"type": "join_lobby", "code": code})
    for c in party.watchers:
        await c.send({"type": "join_lobby", "code": code, "watch": True})

    def full() -> bool:
        lb = lobby_of(host, mark)
        people = 1 + len(party.players) + len(party.watchers)
        return (
            lb is not None
            and bool(lb["can_start"])
            and len(lb["watchers"]) + sum(1 for s in lb["seats"] if s["kind"]) >= people + bots
        )

    await host.until(full, f"{host.name}: lobby {code} full on {node}")
    await host.send({"type": "start"})
    everyone = party.everyone
    await until_any(
        everyone,
        lambda: all(c.match is not None and c.states() for c in everyone),
        f"match of lobby {code} started for everyone",
    )
    party.match, party.lobby = str(host.match), code
    return party.match


# -- what was stored ---------------------------------------------------------------------


@dataclass
class Stored:
    """One match as the database holds it."""

    id: str
    status: str
    rules: dict[str, Any]
    seats: list[dict[str, Any]]
    seed: str
    fence: int
    owner: str | None
    result: dict[str, Any] | None
    log: list[dict[str, Any]]


async def load_matches(db_url: str, prefix: str, ids: Iterable[str]) -> dict[str, Stored]:
    """The stored matches ``ids`` with their logs."""
    from domino.server.storage.db import Database

    db = Database(db_url, prefix)
    out: dict[str, Stored] = {}
    try:
        for mid in ids:
            row = await db.match(mid)
            if row is None:
                raise SiteError(f"match {mid} is not stored")
            out[mid] = Stored(
                mid,
                row["status"],
                row["rules"],
                row["seats"],
                row["seed"],
                int(row["fence"]),
                row["owner"],
                row["result"],
                await db.match_log(mid),
            )
    finally:
        await db.close()
    return out


# -- the checks ----------------------------------------------------------------------------


class Replay:
    """A stored match replayed up to any version (cached; the audit's truth)."""

    def __init__(self, stored: Stored) -> None:
        self.stored = stored
        self.rules = Rules.from_dict(stored.rules)
        self.specs = [SeatSpec.from_dict(d) for d in stored.seats]
        self._at: dict[int, Table] = {}

    def at(self, v: int) -> Table:
        table = self._at.get(v)
        if table is None:
            s = self.stored
            table = Table.restore(s.id, self.rules, self.specs, s.seed, s.log[:v], 0.0)
            self._at[v] = table
        return table


def audit(
    clients: Iterable[SiteClient], stored: dict[str, Stored], audience: dict[str, int | None]
) -> tuple[int, list[str]]:
    """Check every frame of every client (see the module docstring); the number of
    frames checked and the problems found. ``audience``: profile id -> the seat that
    profile plays (``None``: a spectator)."""
    replays = {mid: Replay(s) for mid, s in stored.items()}
    problems: list[str] = []
    checked = 0
    for c in clients:
        want = audience[c.pid]
        last_v = 0  # the newest version this client saw before the current socket
        gen_v: dict[int, int] = {}
        table: Table | None = None
        for f in c.frames:
            msg = f.msg
            where = f"{c.name} socket {f.gen} ({c.sockets[f.gen].url})"
            if msg.get("type") == "state":
                mid = msg.get("match_id")
                if mid not in replays:
                    problems.append(f"{where}: a state of a match it has nothing to do with")
                    continue
                rp = replays[mid]
                v = int(msg["v"])
                if v > len(rp.stored.log):
                    problems.append(f"{where}: v{v} is newer than the stored log")
                    continue
                if msg.get("you") != want:
                    problems.append(f"{where}: a state for {msg.get('you')}, not {want}")
                if f.gen in gen_v:
                    if v < gen_v[f.gen]:
                        problems.append(f"{where}: v{v} after v{gen_v[f.gen]} on one socket")
                elif v < last_v:
                    problems.append(f"{where}: the first state is v{v}, the client had v{last_v}")
                gen_v[f.gen] = max(gen_v.get(f.gen, 0), v)
                last_v = max(last_v, v)
                table = rp.at(v)
            if table is None:
                text = json.dumps(msg, ensure_ascii=False)
                if QUOTED_TILE.search(text):
                    problems.append(f"{where}: a {msg.get('type')} before any state: {text[:200]}")
                continue
            checked += 1
            for p in check_frame(table, want, msg):
                problems.append(f"{where} v{msg.get('v')}: {p}")
    return checked, problems


@dataclass
class MoveReport:
    """What :func:`check_moves` found."""

    sent: int = 0
    acknowledged: int = 0
    resent: int = 0
    logged: int = 0
    lost: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    broken_logs: list[str] = field(default_factory=list)


def check_moves(clients: Iterable[SiteClient], stored: dict[str, Stored]) -> MoveReport:
    """Every acknowledged move is stored where it was made; every stored human move was
    sent for exactly that version; every log is continuous (v = 1, 2, ...)."""
    rep = MoveReport()
    sent: dict[tuple[str, int, int, str], int] = {}
    for c in clients:
        for m in c.moves:
            rep.sent += 1
            rep.resent += 1 if m.resent else 0
            key = (m.match, m.seat, m.v, m.move)
            sent[key] = sent.get(key, 0) + 1
            if not m.acked:
                continue
            rep.acknowledged += 1
            log = stored[m.match].log if m.match in stored else []
            e = log[m.v] if m.v < len(log) else None
            ok = (
                e is not None
                and e.get("kind") == "move"
                and e.get("seat") == m.seat
                and e.get("payload", {}).get("move") == m.move
            )
            if not ok:
                rep.lost.append(f"{c.name} {m.match} v{m.v} {m.move}: stored {e}")
    for mid, s in stored.items():
        if any(e.get("v") != i + 1 for i, e in enumerate(s.log)):
            rep.broken_logs.append(f"{mid}: versions are not 1, 2, 3, ...")
        for e in s.log:
            if e.get("kind") != "move":
                continue
            rep.logged += 1
            if sent.get((mid, e["seat"], e["v"] - 1, e["payload"]["move"]), 0) < 1:
                rep.unexplained.append(f"{mid} v{e['v']}: {e}")
    return rep


# -- the nodes' logs -----------------------------------------------------------------------


def node_events(log: Path, event: str | None = None) -> list[dict[str, Any]]:
    """The JSON lines of a node's log (``event``: only those)."""
    out: list[dict[str, Any]] = []
    if not log.exists():
        return out
    for line in log.read_text(errors="replace").splitlines():
        if not line.startswith("{"):
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if event is None or rec.get("event") == event:
            out.append(rec)
    return out


__all__ = [
    "Frame",
    "Move",
    "MoveReport",
    "Party",
    "Replay",
    "SiteClient",
    "SiteError",
    "Stored",
    "audit",
    "check_moves",
    "form",
    "load_matches",
    "node_events",
    "until_any",
]
