"""``kill -9`` of the pairing node while 100 wait (issue 23): nobody is lost from the
queue, nobody is paired twice. Real processes: three ``domino serve`` nodes behind
HAProxy on the machine's PostgreSQL and Redis (a cluster of this test's own).

100 guests connect over real websockets, a quarter on each node's own port and a
quarter through HAProxy, and wait for the same choice (two seats, *nur Menschen*: no
bot ever fills a seat). While they join, the test itself holds the ``queue-pairer``
lease, so no node pairs before all 100 wait; then it lets go, and the node that takes
the lease meets all of them in one pass of 50 tables. At the first ``queue_left`` or
``match_started`` any client hears, that pass has stored one table and has 49 to go:
the test reads the lease's holder from Redis and sends it SIGKILL. The clients whose
socket was on it reconnect through HAProxy, as the browser does. A surviving node
takes the lease when it expires and pairs the rest; the dead node's matches are taken
over by the others.

Then, from the database: the queue is empty, each of the 100 sits in exactly one
stored match and is a member of exactly that match's lobby, every match seats two of
them. From the frames: each client heard of its own match (``queue_left``,
``match_started``, the welcome of a reconnect or the table's ``state``) and of no
other, and nobody was left told that they still wait. Whether the kill landed in the
middle of the pass (some tables stored by the dead node, not all) is recorded
(``record_property``, and printed). Every wait is bounded; nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis
import sqlalchemy as sa

from domino.server.desks.queue import PAIRER
from domino.server.storage.db import Database
from domino_bench.cluster import Cluster
from domino_bench.site import SiteClient, until_any

from .conftest import PG_URL, new_cluster

#: Waiting players, and the tables a complete pass forms of them.
PLAYERS = 100
TABLES = PLAYERS // 2
#: What everyone waits for: two seats, Klassisch, *nur Menschen* (no bots, ever).
JOIN = {"type": "queue_join", "seats": "2", "mode": "klassisch", "wait": 0}
#: The name under which the test holds the pairing lease while the players join.
HOLDER = "test-holds-the-pairing"
#: Bound of each phase's wait (seconds): a liveness bound, not a timing.
PHASE = 30.0
#: Sign-ups and joins in flight at once (the nodes share PostgreSQL's connections with
#: every other test run on the machine: a few each).
GATE = 4


@pytest.fixture
def own(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    # A cluster of its own: one node of it is killed and not brought back. Everyone
    # signs up from 127.0.0.1: a sign-in budget for 100 guests.
    with new_cluster(tmp_path_factory, extra=["--signin-budget", "1000,100"]) as c:
        yield c


def test_a_kill_of_the_pairing_node_while_100_wait_loses_nobody_and_pairs_nobody_twice(
    own: Cluster, record_property: Callable[[str, object], None]
) -> None:
    facts = asyncio.run(_scene(own))
    for key, value in facts.items():
        record_property(key, value)
    print(f"QUEUE KILL {json.dumps(facts)}")


class Scene:
    """The cluster, its Redis and its database as the test sees them."""

    def __init__(self, c: Cluster) -> None:
        assert c.redis_url is not None and PG_URL is not None
        self.c = c
        self.redis = aioredis.from_url(c.redis_url, decode_responses=True)
        self.db = Database(PG_URL, c.prefix)
        self.lease = f"{c.redis_prefix}lease:{PAIRER}"
        self.clients: list[SiteClient] = []

    async def close(self) -> None:
        await asyncio.gather(*(p.close() for p in self.clients), return_exceptions=True)
        await self.redis.aclose()
        await self.db.close()

    async def waiting(self) -> int:
        """Rows in the queue table."""
        return len(await self.db.queue_rows())

    async def matches(self) -> list[dict[str, Any]]:
        """Every stored match: its id, lobby, start (the pairing node's clock) and the
        profiles of its seats."""
        m = self.db.t.matches
        async with self.db.engine.connect() as conn:
            rows = await conn.execute(sa.select(m.c.id, m.c.lobby, m.c.started_at, m.c.seats))
            return [
                {
                    "id": r.id,
                    "lobby": r.lobby,
                    "started_at": r.started_at,
                    "players": [s.get("player_id") for s in json.loads(r.seats)],
                }
                for r in rows
            ]

    async def members(self) -> dict[str, str]:
        """profile -> the lobby it is a member of."""
        lm = self.db.t.members
        async with self.db.engine.connect() as conn:
            rows = await conn.execute(sa.select(lm.c.profile_id, lm.c.code))
            return {r.profile_id: r.code for r in rows}

    async def until(
        self, ready: Callable[[], Awaitable[bool]], what: str, detail: Callable[[], str]
    ) -> None:
        """Wait until ``await ready()`` is true, asked again whenever a client hears
        something and at least every 0.2 s; an assertion after :data:`PHASE`."""
        deadline = time.monotonic() + PHASE
        while not await ready():
            if time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what} after {PHASE} s: {detail()}")
            await _next_frame(self.clients)


async def _next_frame(clients: list[SiteClient]) -> None:
    """Return at the next frame any client receives, or after 0.2 s."""
    for c in clients:
        c._changed.clear()
    waits = [asyncio.ensure_future(c._changed.wait()) for c in clients]
    try:
        await asyncio.wait(waits, timeout=0.2, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


def heard(c: SiteClient) -> set[str]:
    """The matches a client was told it plays in: a ``queue_left`` (matched), a
    ``match_started``, a welcome's seat, a ``state`` of its own seat."""
    out: set[str] = set()
    for f in c.frames:
        m, kind = f.msg, f.msg.get("type")
        if kind == "queue_left" and m.get("reason") == "matched":
            out.add(str(m.get("match")))
        elif kind == "match_started":
            out.add(str(m["match"]))
        elif kind == "welcome" and m.get("match"):
            out.add(str(m["match"]["match"]))
        elif kind == "state" and m.get("you") is not None:
            out.add(str(m["match_id"]))
    return out


def still_told_to_wait(c: SiteClient) -> bool:
    """Whether the client's last word about the queue on its current socket is
    ``queue`` (it believes it still waits)."""
    said = [
        f.msg["type"]
        for f in c.frames
        if f.gen == c.gen and f.msg.get("type") in ("queue", "queue_left")
    ]
    return bool(said) and said[-1] == "queue"


def queue_words(c: SiteClient) -> str:
    return str([(f.gen, f.msg.get("type"), f.msg.get("reason")) for f in c.frames][-8:])


async def _scene(c: Cluster) -> dict[str, object]:
    s = Scene(c)
    try:
        return await _play(s)
    finally:
        await s.close()


async def _play(s: Scene) -> dict[str, object]:
    c = s.c
    # 1. The test holds the pairing lease: nobody is paired before all 100 wait (a node
    #    that held it finds it taken at its next pass, and pairs no more).
    await s.redis.set(s.lease, HOLDER, px=round(PHASE * 4000))
    places = [c.node_url(1), c.node_url(2), c.node_url(3), c.url]
    gate = asyncio.Semaphore(GATE)

    async def arrive(i: int, http: httpx.AsyncClient) -> SiteClient:
        p = SiteClient(f"Q{i}", c.url, delay=0.0)
        p.play = False  # nobody moves: the matches only have to exist
        async with gate:
            await p.signup(http)
            await p.open(places[i % len(places)])
            s.clients.append(p)
            await p.send(JOIN)
            await p.until(
                lambda: any(f.msg["type"] == "queue" for f in p.frames), f"{p.name} waits"
            )
        return p

    async with httpx.AsyncClient(timeout=PHASE) as http:
        people = await asyncio.gather(*(arrive(i, http) for i in range(PLAYERS)))
    assert await s.waiting() == PLAYERS
    assert not announced(people), "paired while the test held the pairing lease"

    # 2. Let go: a node takes the lease and pairs all 100 in one pass. Once the players
    #    of ``kill_after`` of its tables heard of them, kill that node.
    kill_after = random.randint(1, TABLES // 2)
    await s.redis.delete(s.lease)
    await until_any(
        people,
        lambda: len(announced(people)) >= kill_after,
        f"the word of {kill_after} tables",
        PHASE,
    )
    holder = await s.redis.get(s.lease)
    assert holder is not None and holder.startswith("node"), holder
    k = int(holder.removeprefix("node"))
    proc = c.node(k).proc
    assert proc is not None
    killed_at = time.time()
    os.kill(proc.pid, signal.SIGKILL)
    await asyncio.to_thread(proc.wait, 10)
    # Its sockets closed; their clients reconnect through HAProxy (SiteClient.route).

    # 3. A surviving node takes the lease over and pairs the rest; everyone hears of a
    #    match.
    async def everyone_seated() -> bool:
        return (
            all(p.connected and heard(p) for p in people)
            and await s.waiting() == 0
            and len(await s.matches()) >= TABLES
        )

    def lagging() -> str:
        late = [p for p in people if not (p.connected and heard(p))]
        return f"{len(late)} not told: " + "; ".join(f"{p.name} {queue_words(p)}" for p in late[:5])

    await s.until(everyone_seated, "everyone seated after the kill", lagging)

    # A surviving node holds the pairing lease once the dead one's expires. Read after
    # waiting, not at once: when the dead node had stored every table before the kill
    # landed (a loaded machine reacts late), nobody needed a survivor to pair, and its
    # lease may not have expired yet when everyone is seated.
    async def taken_over() -> bool:
        return await s.redis.get(s.lease) not in (None, holder)

    await s.until(
        taken_over, "a surviving node holds the pairing lease", lambda: f"killed {holder}"
    )
    survivor = await s.redis.get(s.lease)

    # 4. The database: nobody waits, everyone in one match and in its lobby.
    assert await s.waiting() == 0
    matches = await s.matches()
    seated = Counter(pid for m in matches for pid in m["players"])
    pids = {p.pid for p in people}
    assert set(seated) == pids, set(seated) ^ pids
    twice = {pid: n for pid, n in seated.items() if n != 1}
    assert not twice, f"seated more than once: {twice}"
    assert len(matches) == TABLES and all(len(m["players"]) == 2 for m in matches)
    match_of = {pid: m["id"] for m in matches for pid in m["players"]}
    lobby_of = {m["id"]: m["lobby"] for m in matches}
    members = await s.members()
    wrong = {pid for pid in pids if members.get(pid) != lobby_of[match_of[pid]]}
    assert not wrong, f"not a member of their match's lobby: {sorted(wrong)[:5]}"

    # 5. The frames: each heard of its own match and of no other, was told "matched" at
    #    most once, and is not left believing it waits.
    before_kill = {m["id"] for m in matches if m["started_at"] <= killed_at}
    unannounced = []
    for p in people:
        mine = match_of[p.pid]
        assert heard(p) == {mine}, (p.name, heard(p), mine)
        left = [f.msg for f in p.frames if f.msg.get("type") == "queue_left"]
        assert all(m["reason"] == "matched" and m["match"] == mine for m in left), (p.name, left)
        assert len(left) <= 1, (p.name, left)
        started = {f.msg["match"] for f in p.frames if f.msg.get("type") == "match_started"}
        assert started <= {mine}, (p.name, started, mine)
        if still_told_to_wait(p):
            # Only one who was never told: the dead node stored the table and was killed
            # before its announcement left it (the player's socket on another node hears
            # the table's state after the takeover, and no ``queue_left``: a gap left
            # open, docs/architecture.md, "Matchmaking").
            assert mine in before_kill and not left and not started, (
                f"{p.name} still told it waits: {queue_words(p)}"
            )
            unannounced.append(p.name)
    # The killed node's sockets were each on a new socket afterwards.
    moved = [p for p in people if len(p.sockets) > 1]
    assert moved and all(not p.reconnect_failed for p in people)
    assert survivor not in (None, holder), (holder, survivor)
    assert len(before_kill) >= kill_after  # a word comes after its table was stored
    return {
        "kill_after_tables_heard": kill_after,
        "killed": holder,
        "took_over": survivor,
        "tables_before_kill": len(before_kill),
        "tables_after_kill": TABLES - len(before_kill),
        "kill_mid_pass": 0 < len(before_kill) < TABLES,
        "reconnected": len(moved),
        "unannounced": len(unannounced),
    }


def announced(people: list[SiteClient]) -> set[str]:
    """The matches whose start some client heard of (``queue_left``, ``match_started``)."""
    return {
        str(f.msg.get("match"))
        for p in people
        for f in p.frames
        if f.msg.get("type") in ("queue_left", "match_started")
    }
