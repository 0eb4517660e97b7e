"""The database away: telling its connection errors from other failures, and the health probe.

While the database cannot be reached, REST answers 503 ``database_unavailable`` (app.py,
one exception handler), a socket's ``hello`` gets that error and the close 1013 (try
again later, ws.py), and ``/api/health`` answers 503 naming the dependency that is down
(:class:`HealthProbe`), so the balancer takes the node out of its rotation.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from domino.server.clock import Clock
from domino.server.storage.engine import CONNECT_TIMEOUT

log = logging.getLogger("domino.server")

#: The catalogue key of the error a client gets while the database is away.
DATABASE_UNAVAILABLE = "database_unavailable"

#: SQLAlchemy's errors that mean "no connection" (refused, lost, the pool's timeout), not a
#: statement the database refused.
_SA_AWAY = (
    sa_exc.OperationalError,
    sa_exc.InterfaceError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
)


def _asyncpg_away() -> tuple[type[Exception], ...]:
    try:
        import asyncpg
    except ImportError:  # pragma: no cover - installed with the server
        return ()
    e = asyncpg.exceptions
    # Class 08 (connection), 57 (the server shut down, cannot connect now, a query
    # cancelled), and the client's own "connection closed" errors.
    return (e.PostgresConnectionError, e.OperatorInterventionError, e.InterfaceError)


_ASYNCPG_AWAY = _asyncpg_away()

#: The exception types the app's handler is registered for (see :func:`database_away`).
AWAY_TYPES: tuple[type[Exception], ...] = (
    sa_exc.DBAPIError,
    sa_exc.DisconnectionError,
    sa_exc.TimeoutError,
    OSError,  # ConnectionError and TimeoutError too (the pool's connect, asyncio.timeout)
    *_ASYNCPG_AWAY,
)


def database_away(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) says the database cannot be reached now.

    A refused statement (an integrity error, bad SQL) is a bug or a conflict, not an
    outage; a refused, reset or timed-out connection, a database shutting down, or the
    pool unable to connect are.
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, (*_SA_AWAY, *_ASYNCPG_AWAY)):
            return True
        if isinstance(cur, sa_exc.DBAPIError) and cur.connection_invalidated:
            return True
        if isinstance(cur, OSError):  # ConnectionError, TimeoutError, socket errors
            return True
        cur = cur.__cause__
    return False


#: Seconds a probe's ``SELECT 1`` may take before the database counts as away.
PROBE_TIMEOUT = 1.0
#: Seconds a probe's answer is reused (a balancer's checks, many nodes' checks).
PROBE_TTL = 1.0


class HealthProbe:
    """Whether the database answers, asked at most once per ``ttl`` seconds of ``clock``.

    The probe has a connection of its own (an engine with one connection), so a pool
    that is busy serving does not make a node look away. One probe runs at a time
    (concurrent checks share it), in a task of its own that a check waits for at most
    ``timeout`` real seconds: a check never cancels a connection halfway through, and a
    database that does not answer by then counts as away.
    """

    def __init__(
        self,
        url: str,
        clock: Clock,
        *,
        ttl: float = PROBE_TTL,
        timeout: float = PROBE_TIMEOUT,
    ) -> None:
        self.url = url
        self.clock = clock
        self.ttl = ttl
        self.timeout = timeout
        self._engine: AsyncEngine | None = None
        self._ok: bool | None = None
        self._at = 0.0
        self._task: asyncio.Task[bool] | None = None

    async def database_ok(self) -> bool:
        """The database's state, fresh within ``ttl`` seconds."""
        now = self.clock.now()
        if self._ok is not None and now - self._at < self.ttl:
            return self._ok
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._probe())
        try:
            ok = await asyncio.wait_for(asyncio.shield(self._task), self.timeout)
        except TimeoutError:
            ok = False  # the probe goes on; a check after the ttl waits for it again
        self._ok, self._at = ok, now
        return ok

    async def _probe(self) -> bool:
        try:
            if self._engine is None:
                kwargs: dict[str, object] = {"pool_size": 1, "max_overflow": 0}
                if not self.url.startswith("sqlite"):
                    kwargs.update(pool_pre_ping=True, connect_args={"timeout": CONNECT_TIMEOUT})
                self._engine = create_async_engine(self.url, **kwargs)
            async with self._engine.connect() as conn:
                await conn.execute(sa.text("SELECT 1"))
        except Exception as exc:
            if not database_away(exc):  # not a lost connection, yet no answer either
                log.warning("health probe: %r", exc, extra={"event": "health_probe_failed"})
            return False
        return True

    async def stop(self) -> None:
        """Wait for a probe still running (bounded), then close the probe's connection."""
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), self.timeout)
            if not task.done():
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        if self._engine is not None:
            await self._engine.dispose()
            self._engine = None
