"""The PostgreSQL pool's checkout (storage/engine.py): no ping before every statement, a
ping after an idle spell, and a connection the server closed is replaced, not used."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql.asyncpg import AsyncAdapt_asyncpg_connection

from domino.server.storage import engine as engine_module
from domino.server.storage.engine import PING_AFTER, Core

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not PG_URL, reason="PostgreSQL tests skipped: set DOMINO_TEST_POSTGRES (.ci/run does)"
    ),
]


class Clock:
    """The hook's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
async def core(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Core, Clock, list[int]]]:
    clock = Clock()
    monkeypatch.setattr(engine_module, "time", clock)
    pings: list[int] = []
    ping = AsyncAdapt_asyncpg_connection.ping

    def counted(self: Any) -> None:
        pings.append(1)
        ping(self)

    monkeypatch.setattr(AsyncAdapt_asyncpg_connection, "ping", counted)
    assert PG_URL is not None
    c = Core(PG_URL, f"e{uuid.uuid4().hex[:8]}_")
    try:
        yield c, clock, pings
    finally:
        await c.engine.dispose()


async def _one(c: Core) -> int:
    async with c.engine.connect() as conn:
        return int((await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one())


async def test_a_connection_in_use_a_moment_ago_is_not_pinged(
    core: tuple[Core, Clock, list[int]],
) -> None:
    c, clock, pings = core
    pids = {await _one(c) for _ in range(20)}
    assert len(pids) == 1  # one pooled connection, handed out again and again
    assert len(pings) <= 1  # at most its first checkout (pool_pre_ping: 20)
    before = len(pings)
    clock.now += PING_AFTER + 0.1  # idle for a while: pinged once, then not again
    await _one(c)
    await _one(c)
    assert len(pings) == before + 1


async def test_a_connection_the_server_closed_is_replaced_not_used(
    core: tuple[Core, Clock, list[int]],
) -> None:
    c, _clock, _pings = core
    async with c.engine.connect() as conn:
        pid = int((await conn.execute(sa.text("SELECT pg_backend_pid()"))).scalar_one())
        driver: Any = (await conn.get_raw_connection()).driver_connection
    assert PG_URL is not None
    other = Core(PG_URL)
    try:
        async with other.engine.connect() as conn:
            await conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
    finally:
        await other.engine.dispose()
    # The pooled connection hears of its end on the loop (bounded: a few turns).
    for _ in range(200):
        if driver.is_closed():
            break
        await asyncio.sleep(0.01)
    else:
        pytest.fail("the terminated connection never looked closed")
    # Used a moment ago, so no ping: the closed socket alone gets it replaced, and the
    # statement runs on a new connection instead of failing.
    assert await _one(c) != pid
