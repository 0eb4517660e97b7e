"""Clocks: the server reads time only through one of these, so tests never sleep.

:class:`SystemClock` uses wall time (``time.time()``): the stored log keeps
timestamps that must stay meaningful across a restart. :class:`FakeClock`
moves only when a test calls :meth:`FakeClock.advance`; it is thread-safe
because Starlette's test client runs the app's event loop in another thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Protocol


class Clock(Protocol):
    """The time source of the server and every match task."""

    def now(self) -> float:
        """Seconds (any epoch, monotonic within a run)."""
        ...

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None:
        """Return when ``deadline`` has come (never if ``None``) or ``wake`` is set."""
        ...


class SystemClock:
    """Wall-clock time; waiting uses the event loop's timers."""

    def now(self) -> float:
        return time.time()

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None:
        # Every match task waits here between moves, so what a wait allocates lives until
        # the next move: asyncio.timeout adds a timer to the event's wait, where wait_for
        # would also make a task (with its context) and a future for it.
        if wake.is_set():
            return
        if deadline is None:
            await wake.wait()
            return
        timeout = deadline - self.now()
        if timeout <= 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await wake.wait()


class FakeClock:
    """A clock that stands still until :meth:`advance` moves it (tests).

    >>> c = FakeClock(100.0)
    >>> c.advance(2.5); c.now()
    102.5
    """

    def __init__(self, start: float = 1_000_000.0) -> None:
        self._t = start
        self._lock = threading.Lock()
        # waiters: (deadline, loop, event to set when the deadline comes)
        self._waiters: list[tuple[float, asyncio.AbstractEventLoop, asyncio.Event]] = []

    def now(self) -> float:
        with self._lock:
            return self._t

    def advance(self, seconds: float) -> None:
        """Move time forward and wake every waiter whose deadline has come."""
        if seconds < 0:
            raise ValueError("A clock does not run backwards.")
        with self._lock:
            self._t += seconds
            due = [w for w in self._waiters if w[0] <= self._t]
            self._waiters = [w for w in self._waiters if w[0] > self._t]
        for _, loop, ev in due:
            loop.call_soon_threadsafe(ev.set)

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None:
        if deadline is None:
            await wake.wait()
            return
        timer = asyncio.Event()
        entry = (deadline, asyncio.get_running_loop(), timer)
        with self._lock:
            if deadline <= self._t:
                return
            self._waiters.append(entry)
        waits = [asyncio.ensure_future(wake.wait()), asyncio.ensure_future(timer.wait())]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)
