"""Hints (*Tipp*) on the server: the lobby's limit, rated games refused, and Meister's
search in a worker process, off the event loop (docs/protocol.md, "Hints").

The hint itself is :func:`domino.analysis.hints.hint` (pure, from the seat's view only).
Here:

- **Who may ask.** The lobby's setting ``hints`` (0..3 per round, default 3; 0 switches
  them off) and ``rated`` (another feature's lobby setting; read defensively, absent is
  unrated: a rated game never gives hints). Both are read from the lobby's stored document,
  so every node of a cluster reads the same. A match with at least one bot seat
  only (hints are for games against bots).
- **Off the event loop.** A pool of ``hint_workers`` processes (``forkserver``, started
  from a thread as the analysis's are; ``nice`` +``hint_nice``, 10 by default: live
  matches go first; not the idle class, which on a busy machine would never run a hint
  while a player waits for it). A node computes at most ``hint_workers + hint_queue`` hints
  at a time; one more is refused with ``hint_busy``. Each search has Meister's playouts
  (:data:`domino.bots.meister.DEFAULT_PLAYOUTS`) and stops after ``hint_budget`` seconds of
  the worker's CPU at the latest.
- **What travels.** The worker gets the seat's :class:`~domino.rules.SeatView` (pickled),
  a seed and the seats' names; nothing else of the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from domino.analysis.hints import hint
from domino.rules import SeatView
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.table.model import MAX_HINTS

log = logging.getLogger("domino.server.desks.hints")


class HintRefused(Exception):
    """A hint this node does not give now: ``code`` is a catalogue key."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def lobby_hint_rules(doc: dict[str, Any] | None) -> tuple[int, bool]:
    """``(hints per round, rated)`` from a lobby's stored document, defensively: a missing
    or malformed ``hints`` is the default (:data:`MAX_HINTS`), a missing ``rated`` false.

    >>> lobby_hint_rules({"rules": {"hints": 1}}), lobby_hint_rules(None)
    ((1, False), (3, False))
    >>> lobby_hint_rules({"rules": {"rated": True}, "rated": False})
    (3, True)
    """
    rules = doc.get("rules") if isinstance(doc, dict) else None
    rules = rules if isinstance(rules, dict) else {}
    hints = rules.get("hints", MAX_HINTS)
    if type(hints) is not int or not 0 <= hints <= MAX_HINTS:
        hints = MAX_HINTS
    rated = rules.get("rated") is True or (isinstance(doc, dict) and doc.get("rated") is True)
    return hints, rated


def compute_hint(
    view: SeatView, seed: str, names: list[str], budget: float
) -> dict[str, Any]:  # pragma: no cover - runs in the worker process
    """In a worker: the hint, its search cut after ``budget`` seconds of this process's CPU."""
    return hint(view, seed, names=names, budget=budget, clock=time.process_time)


def _worker_start(nice: int) -> None:  # pragma: no cover - in the worker
    with contextlib.suppress(OSError):
        os.nice(nice)


def _ready() -> None:  # pragma: no cover - in the worker
    """Nothing: submitted once per worker so that the pool starts its processes."""


class HintDesk:
    """This node's hints: the lobby's rules and the worker processes."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        self._pool: ProcessPoolExecutor | None = None
        self._starting: asyncio.Task[None] | None = None
        self.running = 0  # hints being computed or waiting for a worker

    async def limits(self, lobby: str | None) -> tuple[int, bool]:
        """``(hints per round, rated)`` of the match's lobby (a match without a lobby:
        the defaults)."""
        doc = await self.db.lobby_doc(lobby) if lobby is not None else None
        return lobby_hint_rules(doc)

    def _ensure_started(self) -> None:
        if self._pool is not None:
            return
        workers = self.settings.hint_workers
        self._pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("forkserver"),
            initializer=_worker_start,
            initargs=(self.settings.hint_nice,),
        )
        pool = self._pool

        def start() -> None:
            for _ in range(workers):
                pool.submit(_ready)

        # Starting processes from the event loop would hold up every live match meanwhile.
        self._starting = asyncio.get_running_loop().create_task(asyncio.to_thread(start))

    async def compute(self, view: SeatView, seed: str, names: list[str]) -> dict[str, Any]:
        """The hint for ``view`` (see :func:`domino.analysis.hints.hint`), computed in a
        worker process; :class:`HintRefused` when hints are off on this node or it is busy."""
        s = self.settings
        if s.hint_workers < 1:
            raise HintRefused("hint_off")
        if self.running >= s.hint_workers + s.hint_queue:
            raise HintRefused("hint_busy")
        self.running += 1
        try:
            self._ensure_started()
            if self._starting is not None:
                await asyncio.shield(self._starting)
            assert self._pool is not None
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(
                self._pool, compute_hint, view, seed, names, s.hint_budget
            )
        except HintRefused:
            raise
        except Exception as exc:
            log.warning("hint failed", exc_info=True)
            if self._pool is not None and getattr(self._pool, "_broken", False):
                self._close()
            raise HintRefused("hint_failed") from exc
        finally:
            self.running -= 1

    def _close(self) -> None:
        pool, self._pool, self._starting = self._pool, None, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            with contextlib.suppress(Exception):
                proc.kill()

    async def stop(self) -> None:
        """Kill the workers (a hint in flight is refused; the player may ask again)."""
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(BaseException):
                await self._starting
        self._close()
