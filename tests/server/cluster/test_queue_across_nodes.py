"""The matchmaking queue of the whole site, across two nodes on PostgreSQL and Redis.

One node pairs (the holder of the ``queue-pairer`` lease); players wait on any node.
A node killed in the middle of a pairing pass has stored each table completely or not
at all: the other node takes the lease and pairs the rest, and nobody is lost or
paired twice. Nothing sleeps: passes are called directly, and a node that died is a
node whose tasks stopped and whose leases are deleted (what Redis does when they
expire).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
import sqlalchemy as sa

from domino.server.desks.queue import PAIRER

from ..harness import Client, Harness
from ..redis_keys import REDIS_ADMIN, redis_url
from .nodes import NEEDS, PG_URL, node_redis_prefix, recv_within, redis_call

if TYPE_CHECKING:
    from .conftest import StartNode

JOIN = {"type": "queue_join", "seats": "2", "mode": "klassisch", "wait": 60}


def tick(h: Harness) -> None:
    h.tc.portal.call(h.service.queue.tick)


def test_players_queued_on_different_nodes_end_up_at_one_table(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    tick(a)  # node a holds the pairing lease now
    leases = a.service.queue.leases
    assert redis_call(a, "get", leases.key(PAIRER)) == "a"
    anna = a.person("Anna")
    ben = b.person("Ben")
    anna.request(JOIN, "queue")
    ben.request(JOIN, "queue")
    tick(b)  # not the pairing node: pairs nothing
    assert b.service.queue.paired == 0
    assert len(a.tc.portal.call(a.service.db.queue_rows)) == 2
    tick(a)
    assert a.service.queue.paired == 1
    left = [recv_within(c, lambda m: m["type"] == "queue_left") for c in (anna, ben)]
    assert {m["reason"] for m in left} == {"matched"} and left[0]["match"] == left[1]["match"]
    mid = left[0]["match"]
    started = [recv_within(c, lambda m: m["type"] == "match_started") for c in (anna, ben)]
    assert {s["match"] for s in started} == {mid} and {s["seat"] for s in started} == {0, 1}
    # Ben, on the other node, gets his seat's view of the table node a drives.
    st = recv_within(ben, lambda m: m["type"] == "state")
    assert st["you"] == started[1]["seat"] and mid in a.service.runners
    assert a.tc.portal.call(a.service.db.queue_rows) == []


def test_a_player_paired_on_another_node_is_not_told_it_waits_again(
    start_node: StartNode,
) -> None:
    a = start_node("a")
    b = start_node("b")
    tick(a)  # node a pairs
    anna, ben, cem = (b.person(n) for n in ("Anna", "Ben", "Cem"))
    for c in (anna, ben, cem):
        c.request(JOIN, "queue")
    tick(b)  # three wait: node b tells its waiting so (the last to come knew already)
    for c in (anna, ben):
        recv_within(c, lambda m: m["type"] == "queue" and m["others"] == 2)
    tick(a)  # two of them at one table (the clock stands still: any two); one waits
    (left,) = a.tc.portal.call(a.service.db.queue_rows)
    alone = next(c for c in (anna, ben, cem) if c.profile["id"] == left.profile_id)
    paired = [c for c in (anna, ben, cem) if c is not alone]
    for c in paired:
        assert recv_within(c, lambda m: m["type"] == "queue_left")["reason"] == "matched"
        recv_within(c, lambda m: m["type"] == "match_started")
    # Node b sees the count change (3 -> 1): only the one still waiting hears it. The
    # two were told on node a's word; a count now would say they wait again.
    tick(b)
    recv_within(alone, lambda m: m["type"] == "queue" and m["others"] == 0)
    for c in paired:
        c.send({"type": "ping"})  # answered after anything node b queued for the socket
        said = recv_within(c, lambda m: m["type"] in ("queue", "pong"))
        assert said["type"] == "pong", (c.name, said)
    assert b.service.queue.waiting.keys() == {left.profile_id}


@pytest.fixture
def roomy(tmp_path: Path, prefix: str) -> Any:
    """Nodes whose sign-in budget lets one address sign in 100 guests."""
    started: list[Harness] = []

    def start(name: str) -> Harness:
        h = Harness(
            tmp_path / name,
            db_url=PG_URL,
            table_prefix=prefix,
            migrate=True,
            redis_url=redis_url(),
            redis_prefix=node_redis_prefix(prefix),
            node=name,
            lease_ttl=30.0,
            sweep_every=3600.0,
            signin_burst=1000.0,
        )
        started.append(h)
        return h

    if not (PG_URL and REDIS_ADMIN):
        pytest.skip(NEEDS)
    try:
        yield start
    finally:
        for h in started:
            h.close()


def test_a_kill_of_the_pairing_node_while_100_wait_loses_nobody_and_pairs_nobody_twice(
    roomy: Any,
) -> None:
    a: Harness = roomy("a")
    b: Harness = roomy("b")
    tick(a)  # node a pairs
    people: list[Client] = []
    for i in range(100):
        c = b.person(f"P{i}")
        # Two choices, so tables of two and of three are formed in the same pass.
        c.request({**JOIN, "seats": "2" if i % 5 < 2 else "3"}, "queue")  # 40 and 60
        people.append(c)
    assert len(b.tc.portal.call(b.service.db.queue_rows)) == 100

    # Node a pairs, and dies (kill -9) in the middle of its pass: between tables, or in
    # the middle of one's transaction (never committed then).
    async def pass_and_die() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(a.service.queue.pair_once)
            while len(a.service.runners) < 12:
                await anyio.sleep(0.005)
            tg.cancel_scope.cancel()
        for task in a.service.ownership._tasks:
            task.cancel()
        if a.service.queue._task is not None:
            a.service.queue._task.cancel()
        for runner in a.service.runners.values():
            if runner.task is not None:
                runner.task.cancel()

    a.tc.portal.call(pass_and_die)
    waiting = len(b.tc.portal.call(b.service.db.queue_rows))
    assert 0 < waiting <= 100 - 12 * 2  # some tables stored, not all
    # Its leases expire: node b takes the pairing over and pairs everyone left.
    leases = a.service.queue.leases
    redis_call(b, "delete", leases.key(PAIRER))
    for mid in list(a.service.runners):
        redis_call(b, "delete", a.service.ownership.leases.key(mid))
    tick(b)
    assert b.tc.portal.call(b.service.db.queue_rows) == []

    # Everyone is seated once: in exactly one stored match, told once.
    async def seats() -> list[str]:
        db = b.service.db
        async with db.engine.connect() as conn:
            rows = await conn.execute(sa.select(db.t.matches.c.seats))
            return [s["player_id"] for r in rows for s in json.loads(r.seats) if s.get("player_id")]

    counted = Counter(b.tc.portal.call(seats))
    assert set(counted) == {c.profile["id"] for c in people}
    assert set(counted.values()) == {1}
    for c in people:
        m = recv_within(c, lambda m: m["type"] == "queue_left")
        assert m["reason"] == "matched"
    b.settle()
    for c in people:
        assert not [m for m in c.drain() if m["type"] == "queue_left"]


def test_two_tabs_on_two_nodes_wait_once(start_node: StartNode) -> None:
    a = start_node("a")
    b = start_node("b")
    token = a.guest("Cara")
    here, there = a.connect(token, "Cara"), b.connect(token, "Cara")
    here.request({**JOIN, "seats": "4"}, "queue")
    # The other tab, on the other node, sees the same wait, and cannot wait a second time.
    assert recv_within(there, lambda m: m["type"] == "queue")["seats"] == "4"
    there.expect_error(JOIN, "already_queued")
    assert len(a.tc.portal.call(a.service.db.queue_rows)) == 1
    # Cancelled in the other tab: both hear it, nobody waits.
    there.send({"type": "queue_leave"})
    assert recv_within(here, lambda m: m["type"] == "queue_left")["reason"] == "left"
    assert a.tc.portal.call(a.service.db.queue_rows) == []
