"""The matchmaking queue's pass starts its tables concurrently (issue 23's throughput),
and each table is still all or nothing: a table whose transaction fails leaves its
players waiting while the others start; a pass that is cancelled waits for the starts
it began and begins no more.

The queue's own loop is kept from pairing (``accepting``), so each pass here is the
test's; a gate around the database's ``create_match`` holds starts inside their
transaction's call until the test lets them go.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from domino.server.desks import queue as queue_mod

from ..harness import Client, Harness

JOIN = {"type": "queue_join", "seats": "2", "mode": "klassisch", "wait": 60}
#: Bound on any one wait of these tests (a pass that never comes back fails, not hangs).
LIMIT = 10.0


def waiting_ids(h: Harness) -> set[str]:
    return {r.profile_id for r in h.tc.portal.call(h.service.db.queue_rows)}


def queue_tables(h: Harness, modes: list[str]) -> list[tuple[Client, Client]]:
    """Two players waiting for each of ``modes`` (a table of two each), longest first;
    the queue's loop pairs nobody."""
    h.service.queue.accepting = lambda: False
    tables = []
    for i, mode in enumerate(modes):
        h.clock.advance(1.0)  # the pass forms the tables in this order (longest waiting)
        a, b = h.person(f"A{i}"), h.person(f"B{i}")
        a.request({**JOIN, "mode": mode}, "queue")
        b.request({**JOIN, "mode": mode}, "queue")
        tables.append((a, b))
    return tables


def ids(table: tuple[Client, Client]) -> set[str]:
    return {c.profile["id"] for c in table}


def gate_create_match(
    h: Harness, hold: Callable[[set[str]], asyncio.Event | None]
) -> list[set[str]]:
    """Wrap the database's ``create_match``: a start whose queued players ``hold`` gives
    an event for waits for it first. Returns the players of each call, as they come."""
    db = h.service.db
    real = db.create_match
    calls: list[set[str]] = []

    async def create_match(*args: Any, **kw: Any) -> int:
        players = set(kw.get("queued", ()))
        calls.append(players)
        gate = hold(players)
        if gate is not None:
            await gate.wait()
        return await real(*args, **kw)

    db.create_match = create_match  # type: ignore[method-assign]
    return calls


def test_the_tables_of_one_pass_are_in_their_transactions_at_once(h: Harness) -> None:
    tables = queue_tables(h, ["klassisch", "blitz"])
    both = asyncio.Event()
    calls = gate_create_match(h, lambda _p: both)

    async def scenario() -> int:
        task = asyncio.create_task(h.service.queue.pair_once())
        async with asyncio.timeout(LIMIT):  # one at a time: the first never returns
            while len(calls) < 2:
                await asyncio.sleep(0)
        both.set()
        async with asyncio.timeout(LIMIT):
            return await task

    assert h.tc.portal.call(scenario) == 2
    assert [ids(t) for t in tables] == sorted(calls, key=lambda c: c != ids(tables[0]))
    assert waiting_ids(h) == set()
    for table in tables:
        assert {c.recv_type("queue_left")["reason"] for c in table} == {"matched"}


def test_a_table_whose_transaction_fails_leaves_its_players_waiting_and_others_start(
    h: Harness,
) -> None:
    first, second = queue_tables(h, ["klassisch", "blitz"])
    db = h.service.db
    real = db.create_match

    async def create_match(*args: Any, **kw: Any) -> int:
        if set(kw.get("queued", ())) == ids(first):
            raise ConnectionResetError("the database went away in this one's transaction")
        return await real(*args, **kw)

    db.create_match = create_match  # type: ignore[method-assign]
    # The failure is the pass's (its loop logs it), but only after every start is done.
    with pytest.raises(ConnectionResetError):
        h.tc.portal.call(h.service.queue.pair_once)
    assert h.service.queue.paired == 1
    assert waiting_ids(h) == ids(first)
    for c in second:
        assert c.recv_type("queue_left")["reason"] == "matched"
        assert c.recv_type("match_started")["seat"] in (0, 1)
    h.settle()
    for c in first:
        assert not [m for m in c.drain() if m["type"] in ("queue_left", "match_started")]
    # Nothing of the failed table is stored or running: the next pass seats them.
    assert len(h.service.runners) == 1
    db.create_match = real  # type: ignore[method-assign]
    assert h.tc.portal.call(h.service.queue.pair_once) == 1
    assert waiting_ids(h) == set()


def test_a_cancelled_pass_finishes_the_starts_it_began_and_begins_no_more(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_mod, "STARTS_AT_ONCE", 2, raising=False)
    tables = queue_tables(h, ["klassisch", "blitz", "zugemauert"])
    go = asyncio.Event()
    calls = gate_create_match(h, lambda _p: go)

    async def scenario() -> None:
        task = asyncio.create_task(h.service.queue.pair_once())
        async with asyncio.timeout(LIMIT):
            while len(calls) < 2:
                await asyncio.sleep(0)
        task.cancel()  # the node stops while two starts are in their transactions
        for _ in range(20):
            await asyncio.sleep(0)
        assert not task.done()  # it waits for them
        go.set()
        async with asyncio.timeout(LIMIT):
            with pytest.raises(asyncio.CancelledError):
                await task

    h.tc.portal.call(scenario)
    # The two begun starts were stored and run here; the third was never begun.
    assert len(calls) == 2 and h.service.queue.paired == 2
    assert len(h.service.runners) == 2
    begun = [t for t in tables if ids(t) in calls]
    assert len(begun) == 2
    (rest,) = [t for t in tables if ids(t) not in calls]
    assert waiting_ids(h) == ids(rest)
    for table in begun:
        for c in table:
            assert c.recv_type("queue_left")["reason"] == "matched"


def test_a_pairing_node_whose_lease_ran_out_begins_no_further_start(h: Harness) -> None:
    tables = queue_tables(h, ["klassisch", "blitz"])

    class Lapsing:
        """A lease that is valid for the pass's first start only (by the local clock)."""

        def __init__(self) -> None:
            self.asked = 0

        def valid(self, key: str) -> bool:
            assert key == queue_mod.PAIRER
            self.asked += 1
            return self.asked == 1

    h.service.queue.leases = Lapsing()
    try:
        assert h.tc.portal.call(h.service.queue.pair_once) == 1
    finally:
        h.service.queue.leases = None
    assert waiting_ids(h) == ids(tables[1])
