"""Hostile clients over real sockets (hypothesis): the server never crashes, always
answers with a clear error or closes with a policy code, and other matches stay untouched.

Set-up (once per module, on a real server process): a *victim* match between
two humans who never move, and the *attacker*'s own match against a bot.
Each example opens a fresh socket as the attacker and sends a drawn sequence
of frames: garbage, malformed JSON, non-objects, frames over 8 KiB, unknown
types, lobby actions with wild arguments, moves with random text and stale
or future versions, the same command replayed, commands naming the victim's
match, a second ``hello``. Then a ``ping`` works as a barrier: the server
handles one socket's frames in order, so once the ``pong`` is there every
earlier frame has been answered. Checks per example:

- every frame the server sent is JSON with a ``type``; every ``error`` has a
  ``code`` and a non-empty German ``message``; never ``internal_error``;
- the socket ends only with a policy close (1008, 1009), with 1003 after a
  binary frame (the protocol is text only), or stays open and answers the ping;
- the server process is alive, ``/api/health`` answers, the victims still
  get ``pong``, and the victim match's stored log holds no entry made by a
  command (only the start and what its clocks did).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from domino_bench.launcher import ServerProcess

POLICY_CLOSES = {1008, 1009}
CLOSE_UNSUPPORTED = 1003  # a binary frame
CLOSE_POLICY = 1008
MAX_FRAME = 8192
#: Errors after which the server closes the socket (docs/protocol.md).
ANNOUNCED_CLOSES = {"rate_limited", "too_many_errors", "hello_first", "bad_token", "frame_too_big"}
VICTIM_PING_GAP = 0.12  # seconds between a victim's pings (under the 10/s budget)
READ_TIMEOUT = 15.0  # a bound on a dead server, never a timing assertion


@dataclass
class Person:
    """A signed-up guest with an open socket."""

    pid: str
    token: str
    ws: ClientConnection
    inbox: list[dict[str, Any]]
    last_ping: float = 0.0

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send(json.dumps(msg))

    def ping_paced(self) -> None:
        """``ping`` and read up to its ``pong``, at most ten times a second.

        The victims are well-behaved clients: within the message budget (10 per
        second after a burst of 30) however fast hypothesis runs its examples.
        """
        wait = VICTIM_PING_GAP - (time.monotonic() - self.last_ping)
        if wait > 0:
            time.sleep(wait)  # pacing a well-behaved client, not a timing assertion
        self.last_ping = time.monotonic()
        self.send({"type": "ping"})
        self.until("pong")

    def until(self, kind: str, **match: Any) -> dict[str, Any]:
        """Read until a message of ``kind`` (with the given fields) arrives."""
        for _ in range(200):
            msg: dict[str, Any] = json.loads(self.ws.recv(timeout=READ_TIMEOUT))
            self.inbox.append(msg)
            if msg.get("type") == kind and all(msg.get(k) == v for k, v in match.items()):
                return msg
        raise AssertionError(f"no {kind} among 200 messages")


def sign_up(server: ServerProcess, name: str) -> tuple[str, str]:
    r = httpx.post(server.url + "/api/guest", json={"name": name}, timeout=10)
    r.raise_for_status()
    return r.json()["profile"]["id"], r.json()["token"]


def join(server: ServerProcess, name: str, stack: ExitStack) -> Person:
    pid, token = sign_up(server, name)
    ws = stack.enter_context(
        connect(server.ws_url, compression=None, max_size=2**20, close_timeout=2)
    )
    p = Person(pid, token, ws, [])
    p.send({"type": "hello", "token": token})
    p.until("welcome")
    return p


@dataclass
class Arena:
    """The module's fixtures: the server, the victims' match, the attacker's match."""

    server: ServerProcess
    victims: list[Person]
    victim_match: str
    victim_lobby: str
    attacker_token: str
    attacker_match: str
    lock: threading.Lock


def start_match(host: Person, others: list[Person], bots: int) -> tuple[str, str]:
    host.send({"type": "create_lobby", "seats": 1 + len(others) + bots})
    code = host.until("lobby")["lobby"]["code"]
    host.send({"type": "set_rules", "rules": {"turn_seconds": 30}})
    for i in range(bots):
        host.send({"type": "add_bot", "seat": 1 + len(others) + i, "level": "anfaenger"})
    for o in others:
        o.send({"type": "join_lobby", "code": code})
    for _ in range(50):
        lobby = host.until("lobby")["lobby"]
        if lobby["can_start"]:
            break
    host.send({"type": "start"})
    mid = host.until("match_started")["match"]
    return code, mid


@pytest.fixture(scope="module")
def arena(server: ServerProcess) -> Iterator[Arena]:
    with ExitStack() as stack:
        a, b = join(server, "Opfer A", stack), join(server, "Opfer B", stack)
        code, victim_match = start_match(a, [b], bots=0)
        attacker = join(server, "Angreifer", stack)
        _, attacker_match = start_match(attacker, [], bots=1)
        attacker.ws.close()
        lock = threading.Lock()
        yield Arena(server, [a, b], victim_match, code, attacker.token, attacker_match, lock)


def frames(arena_ids: tuple[str, str, str]) -> st.SearchStrategy[list[str | bytes]]:
    """Sequences of hostile frames (text or binary)."""
    own, victim, code = arena_ids
    matches = st.sampled_from([own, own, victim, victim, "m_0000000000000000", "", "x" * 40])
    ints = st.one_of(st.integers(-3, 400), st.integers(), st.booleans(), st.none(), st.text())
    moves = st.one_of(
        st.sampled_from(["D", "P", "6|6 L", "6|6 R", "0|0 L", "1|0 R", "6|2 X", "", "7|7 L"]),
        st.text(max_size=20),
    )
    objects = st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("move"), "match": matches, "move": moves, "v": ints}
        ),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["back", "leave_match", "watch", "unwatch", "sync"]),
                "match": matches,
            }
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["create_lobby"]), "seats": ints}),
        st.fixed_dictionaries(
            {
                "type": st.just("join_lobby"),
                "code": st.one_of(st.just(code), st.text(max_size=40)),
                "watch": st.booleans(),
            }
        ),
        st.fixed_dictionaries({"type": st.sampled_from(["take_seat", "remove_bot"]), "seat": ints}),
        st.fixed_dictionaries(
            {
                "type": st.just("add_bot"),
                "seat": ints,
                "level": st.one_of(st.just("profi"), st.text(max_size=12)),
            }
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("set_rules"),
                "rules": st.dictionaries(
                    st.sampled_from(
                        [
                            "mode",
                            "seats",
                            "target",
                            "turn_seconds",
                            "lager",
                            "fives",
                            "pairs",
                            "evil",
                        ]
                    ),
                    st.one_of(ints, st.text(max_size=12)),
                    max_size=4,
                ),
            }
        ),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    ["start", "leave_seat", "list_lobbies", "ping", "hello", "nonsense", ""]
                )
            }
        ),
        st.dictionaries(st.text(max_size=8), st.one_of(ints, st.text(max_size=8)), max_size=4),
    )

    def with_ref(d: dict[str, Any], ref: str | None) -> str:
        if ref is not None:
            d = {**d, "ref": ref}
        return json.dumps(d)

    commands = st.builds(with_ref, objects, st.one_of(st.none(), st.text(max_size=60)))
    # Moves on the attacker's own match at plausible versions: stale, future, replayed.
    own_moves = st.builds(
        lambda mv, v: json.dumps({"type": "move", "match": own, "move": mv, "v": v}),
        moves,
        st.integers(0, 80),
    )
    junk = st.one_of(
        st.text(max_size=200),  # mostly not JSON
        st.sampled_from(["{", "[]", "null", "42", '"hello"', '{"type": 1}', "{" * 2000]),
        st.binary(max_size=64),
    )
    oversized = st.one_of(
        st.integers(8193, 20000).map(lambda n: json.dumps({"type": "ping", "pad": "x" * n})),
        st.binary(min_size=9000, max_size=9100),
    )
    # one_of draws its branches evenly: repeating a branch weighs it.
    frame: st.SearchStrategy[str | bytes] = st.one_of(
        commands, commands, commands, own_moves, own_moves, own_moves, junk, oversized
    )
    # Replays: a frame sent twice or more in a row.
    return st.lists(st.tuples(frame, st.integers(1, 3)), min_size=1, max_size=12).map(
        lambda xs: [f for f, n in xs for _ in range(n)]
    )


def sendable(seq: list[str | bytes], hello_first: bool) -> list[str | bytes]:
    """What is worth sending: whatever follows a frame that closes the socket is moot.

    Without ``hello`` the first frame closes the socket; a frame over the limit
    closes it with 1009, a binary one with 1003. Sending after that only races
    the server's close.
    """
    if not hello_first:
        return seq[:1]
    for i, f in enumerate(seq):
        if isinstance(f, bytes) or len(f.encode()) > MAX_FRAME:
            return seq[: i + 1]
    return seq


def victim_entries(server: ServerProcess, match: str) -> list[dict[str, Any]]:
    con = sqlite3.connect(f"file:{server.data / 'domino.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        rows = con.execute(
            "SELECT entry FROM match_log WHERE match_id = ? ORDER BY idx", (match,)
        ).fetchall()
    finally:
        con.close()
    return [json.loads(r[0]) for r in rows]


@pytest.fixture(scope="module")
def ids(arena: Arena) -> tuple[str, str, str]:
    return arena.attacker_match, arena.victim_match, arena.victim_lobby


def test_hostile_frames_get_errors_or_policy_closes(arena: Arena) -> None:
    """The property over drawn frame sequences (see the module docstring)."""
    strategy = frames((arena.attacker_match, arena.victim_match, arena.victim_lobby))

    outcomes: Counter[str] = Counter()
    ping = json.dumps({"type": "ping"})
    stale = json.dumps({"type": "move", "match": arena.attacker_match, "move": "D", "v": 0})

    # Every kind of answer the check below asks for, once for sure: hypothesis does not
    # draw its choices evenly, and a run of 80 drew no socket without hello (2026-12-07).
    @given(seq=strategy, hello_first=st.sampled_from([True, True, True, False]))
    @example(seq=[ping], hello_first=False)  # no hello: closed, 1008
    @example(seq=[json.dumps({"type": "ping", "pad": "x" * MAX_FRAME})], hello_first=True)  # 1009
    @example(seq=["{", stale], hello_first=True)  # bad JSON, a stale move; stays open
    @settings(
        max_examples=80,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def attack(seq: list[str | bytes], hello_first: bool) -> None:
        with arena.lock:
            outcomes.update(run_attack(arena, seq, hello_first))

    attack()
    # The run met every kind of answer: errors, the budget's and the size limit's closes.
    assert outcomes["close 1008"] and outcomes["close 1009"] and outcomes["open"], outcomes
    moves_refused = sum(
        outcomes[f"error {c}"] for c in ("stale_version", "not_your_turn", "bad_move_text")
    )
    assert outcomes["error bad_json"] and moves_refused, outcomes


def run_attack(arena: Arena, seq: list[str | bytes], hello_first: bool) -> list[str]:
    """One hostile socket; returns what happened (for the coverage check)."""
    server = arena.server
    received: list[dict[str, Any]] = []
    closed: int | None = None
    dropped = False
    sent = sendable(seq, hello_first)
    closes = POLICY_CLOSES | ({CLOSE_UNSUPPORTED} if isinstance(sent[-1], bytes) else set())
    with connect(server.ws_url, compression=None, max_size=2**20, close_timeout=2) as ws:
        try:
            if hello_first:
                ws.send(json.dumps({"type": "hello", "token": arena.attacker_token}))
            for f in sent:
                ws.send(f)
            ws.send(json.dumps({"type": "ping", "ref": "barrier"}))
            # Without hello the server answers the first frame and closes the socket.
            for _ in range(2000):
                msg = json.loads(ws.recv(timeout=READ_TIMEOUT))
                received.append(msg)
                if msg.get("type") == "pong" and msg.get("ref", "barrier") == "barrier":
                    break
        except ConnectionClosed as exc:
            closed = exc.rcvd.code if exc.rcvd is not None else None
            dropped = exc.rcvd is None
    if dropped:
        # The socket went down before its close frame was read: this client kept
        # sending after the server had closed (TCP reset). The server must have
        # announced why in its last message.
        assert received and received[-1].get("code") in ANNOUNCED_CLOSES, received[-3:]
        closed = CLOSE_POLICY
    for msg in received:
        assert isinstance(msg.get("type"), str), msg
        if msg["type"] == "error":
            assert msg.get("code") and msg.get("code") != "internal_error", msg
            assert isinstance(msg.get("message"), str) and msg["message"].strip(), msg
    if closed is not None:
        assert closed in closes, (closed, received[-3:])
    else:
        assert hello_first and received and received[-1]["type"] == "pong", received[-3:]
    if not hello_first:
        assert closed in closes, "a socket without hello must be closed"
    # The rest of the server is unharmed.
    assert server.alive()
    assert httpx.get(server.url + "/api/health", timeout=10).status_code == 200
    for v in arena.victims:
        v.ping_paced()
    made = [
        e
        for e in victim_entries(server, arena.victim_match)
        if e["kind"] in ("move", "back", "leave")
    ]
    assert made == [], made
    seen = [f"error {m['code']}" for m in received if m["type"] == "error"]
    return [*seen, "open" if closed is None else f"close {closed}"]
