"""Nodes of a cluster in one process, for the tests in this folder (their fixtures are in
conftest.py) and tests/deploy's.

The nodes share a PostgreSQL database (DOMINO_TEST_POSTGRES) and a Redis
(DOMINO_TEST_REDIS) under a prefix of their own (:func:`cluster_prefix`). Nothing
sleeps: a node that died is a node whose tasks stopped and whose lease is deleted
(what Redis does when it expires, :func:`crash`), and the other node's sweep is called
directly (:func:`sweep`).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio

from domino.server.storage.db import Database

from ..harness import Client, Harness, lobby_with_bots, start
from ..redis_keys import forget, redis_url

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
NEEDS = "a cluster needs DOMINO_TEST_POSTGRES and DOMINO_TEST_REDIS (.ci/run gives both)"


def node_redis_prefix(prefix: str) -> str:
    """The nodes' Redis keys (deleted when the test ends) for a table prefix."""
    return f"{prefix}:"


@contextmanager
def cluster_prefix(stem: str) -> Iterator[str]:
    """A table prefix of its own (``stem`` and six hex digits) for the nodes of one test:
    their Redis keys (:func:`node_redis_prefix`) are deleted and their tables dropped at
    the end."""
    name = f"{stem}{secrets.token_hex(3)}_"
    try:
        yield name
    finally:
        forget(redis_url(), node_redis_prefix(name))
        asyncio.run(_drop_tables(name))


async def _drop_tables(prefix: str) -> None:
    db = Database(str(PG_URL), prefix)
    try:
        await db.drop()
    finally:
        await db.close()


def node(tmp_path: Path, prefix: str, name: str) -> Harness:
    return Harness(
        tmp_path / name,
        db_url=PG_URL,
        table_prefix=prefix,
        migrate=True,
        redis_url=redis_url(),
        redis_prefix=node_redis_prefix(prefix),
        node=name,
        lease_ttl=30.0,  # never expires by itself here: the tests end leases themselves
        sweep_every=3600.0,  # the sweeps that matter are called by the tests
    )


def redis_call(h: Harness, method: str, *args: Any) -> Any:
    async def call() -> Any:
        return await getattr(h.service.redis, method)(*args)

    return h.tc.portal.call(call)


def crash(h: Harness, mid: str) -> None:
    """The node stops dead: its tasks end, its lease is gone (expired), nothing released."""

    async def halt() -> None:
        desk = h.service.match_desk
        for task in desk._tasks:
            task.cancel()
        runner = desk.runners[mid]
        if runner.task is not None:
            runner.task.cancel()

    h.tc.portal.call(halt)
    leases = h.service.match_desk.leases
    assert leases is not None
    redis_call(h, "delete", leases.key(mid))


BOUND = 15.0  # seconds a frame may take across nodes before the path counts as dead


def recv_within(c: Client, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The next frame matching ``pred``, waiting at most :data:`BOUND` for each (a bound
    on a dead path across nodes, not a timing assertion)."""

    async def one() -> Any:
        with anyio.fail_after(BOUND):
            return await c.ws._send_rx.receive()

    while True:
        m = c._take(c.ws.portal.call(one))
        if pred(m):
            return m


def match_on(h: Harness) -> tuple[Client, dict[str, Any]]:
    """Anna against a bot on node ``h``: her socket and her first state."""
    anna = h.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    st = start(anna)
    h.settle()
    return anna, st


def until_turn(h: Harness, mid: str, seat: int) -> None:
    """Step ``h``'s clock until it is ``seat``'s turn (the bot may open)."""
    table = h.service.runners[mid].table
    for _ in range(50):
        assert table.match is not None
        if table.match.round.turn == seat:
            return
        h.step()
    raise AssertionError(f"seat {seat} never got the turn")


def play_to_end(h: Harness, mid: str) -> None:
    """Run a match whose humans left to its end on ``h``'s fake clock."""
    for _ in range(5000):
        if mid not in h.service.runners or not h.step():
            break
    assert mid not in h.service.runners


def sweep(h: Harness) -> list[str]:
    return list(h.tc.portal.call(h.service.match_desk.sweep))


def stored_log(h: Harness, mid: str) -> list[dict[str, Any]]:
    return list(h.tc.portal.call(h.service.db.load, mid))
