"""Post-match analyses on the server: claimed once in the database, computed in worker
processes, stored, and served with their progress (docs/analysis.md).

The analysis itself is :mod:`domino.analysis` (pure). Here:

- **Off the event loop.** The judging runs in a pool of worker processes (a
  ``forkserver`` pool of ``analysis_workers``, each moved by its initializer to
  Linux's idle scheduling class, which runs it only on a CPU nothing else wants,
  and to ``nice`` +10 where that class is missing), one whole match per task:
  the record goes to the worker once and the finished document (JSON text) comes
  back. The worker publishes its progress after each round in shared memory; the
  loop reads it and writes it to the database at most once a second. A worker
  rests so that it uses at most ``analysis_duty`` of a core (:class:`Pacer`).
  Live matches keep their core, and the serving process does little per analysis.
- **Bounded.** At most ``analysis_workers + analysis_queue`` matches are being
  analysed or waiting on a node; one more is refused (503 ``analysis_busy``)
  before anything is claimed.
- **Once per match, in a cluster too.** The ``match_analysis`` row is the claim:
  whichever node inserts it first does the work; every node reads the progress
  (``done``/``total`` moves) and the result from it. A claim whose owner has not
  reported for ``analysis_stale`` seconds (a node that died; a live owner writes
  at least every quarter of that) is taken over by a conditional update that only
  one node can make.
- **Which moves.** The moves of human seats that the humans made themselves: the
  table log tells them apart from the moves the server made for a seat (timeouts,
  a stand-in bot, a player who left).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from domino.analysis.review import MoveRef, assemble_text, human_moves, plan, review_round
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.table.entries import log_moves
from domino.table.model import MOVE

log = logging.getLogger("domino.server.desks.analysis")

#: How often the loop looks at the workers' progress (seconds) and, when it moved,
#: writes it to the database: the browser's viewer polls once a second.
PROGRESS_EVERY = 1.0

#: In a worker process: the pool's board (set by :func:`_worker_start`). Slot ``i``
#: holds the judged moves done by the match of the desk's worker ``i``; slot
#: ``workers + i`` is set to ask that match to stop (its claim went to another node).
_BOARD: Any = None


def _worker_start(nice: int, board: Any) -> None:  # pragma: no cover - in the worker
    global _BOARD
    _BOARD = board
    _lower_priority(nice)


class Pacer:
    """Holds a worker to ``duty`` of a core: after each ``burst`` seconds of CPU it rests
    so long that its CPU time stays ``duty`` of the time passed.

    The idle scheduling class already gives a live match the CPU the moment it wants
    it; what it cannot give back is the caches, the memory bus and, on a virtual
    machine, the host's cores that a busy neighbour shares: a worker at a whole core
    measurably slowed live commands (docs/performance.md). Resting most of the time
    leaves them to live matches most of the time."""

    def __init__(
        self,
        duty: float,
        burst: float = 0.02,
        cpu: Callable[[], float] = time.process_time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.duty = duty
        self.burst = burst
        self.cpu = cpu
        self.sleep = sleep
        self.mark = cpu()

    def __call__(self) -> None:
        if self.duty >= 1.0:
            return
        used = self.cpu() - self.mark
        if used < self.burst:
            return
        self.sleep(used * (1.0 - self.duty) / self.duty)
        self.mark = self.cpu()


def analyse_match(
    record: Mapping[str, Any],
    judged: Collection[MoveRef],
    samples: int,
    seed: str,
    hindsight: bool,
    slot: int,
    workers: int,
    duty: float = 1.0,
) -> str | None:  # pragma: no cover - runs in the worker process
    """In a worker: the whole analysis as JSON text, round by round, publishing the
    moves done in ``slot`` of the board; ``None`` when asked to stop. ``duty``: see
    :class:`Pacer`."""
    moves: list[dict[str, Any]] = []
    done = 0
    pace = Pacer(duty)
    for round_no, n in plan(judged).items():
        if _BOARD is not None and _BOARD[workers + slot]:
            return None
        moves += review_round(record, round_no, judged, samples, seed, hindsight, pace)
        done += n
        if _BOARD is not None:
            _BOARD[slot] = done
    # The document is built and serialized here too: for a whole match that is tens of
    # milliseconds, which on the event loop would hold up live commands.
    return assemble_text(record, moves, samples, seed, hindsight)


def _lower_priority(nice: int) -> None:  # pragma: no cover - runs in the worker process
    """Make this worker yield to everything else: Linux's idle scheduling class (it runs
    only on a CPU nothing else wants), else ``nice``; and make it end with the server.

    A pool's worker waits for work forever once its server is killed (``kill -9``), and
    it holds the forkserver's liveness pipe open, so the forkserver stays too: each killed
    server would leave both behind. So the worker lets go of that pipe (it starts no
    processes itself): the forkserver ends when the server does, and the worker is killed
    when its parent, the forkserver, ends (Linux's parent-death signal)."""
    with contextlib.suppress(Exception):
        from multiprocessing import forkserver

        server: Any = forkserver._forkserver
        alive = getattr(server, "_forkserver_alive_fd", None)
        if alive is not None:
            os.close(alive)
            server._forkserver_alive_fd = None
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() == 1:  # the forkserver ended already
            os._exit(0)
    with contextlib.suppress(OSError):
        os.nice(nice)
    idle = getattr(os, "SCHED_IDLE", None)
    if idle is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, idle, os.sched_param(0))


def _ready() -> None:  # pragma: no cover - runs in the worker process
    """Nothing: submitted once per worker so that the pool starts its processes."""


def _close(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down and kill its workers. They run only on idle CPU: on a busy
    machine they might never get to read the request to stop, and the interpreter's exit
    waits for them. They hold nothing that matters: a claim goes stale and is taken over."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.kill()


def judged_moves(record: Mapping[str, Any], entries: list[dict[str, Any]]) -> frozenset[MoveRef]:
    """The moves (round, move number) the humans made themselves, from the table log.

    A ``move`` entry is a human's own; ``bot`` and ``timeout`` entries are the
    server's (a bot seat, a stand-in, an expired clock). Falls back to the record's
    human seats if the log does not account for the record's moves.
    """
    out = {(m.round, m.number) for m in log_moves(entries) if m.kind == MOVE}
    rounds = record.get("rounds", [])
    made = sum(len(r.get("moves", [])) for r in rounds)
    logged = _count_moves(entries)
    if made != logged:
        if logged:  # a match stored without its table log (imported) has no say
            log.warning("analysis: log and record disagree (%d vs %d moves)", logged, made)
        return human_moves(record)
    return frozenset(out)


def server_moves(record: Mapping[str, Any], entries: list[dict[str, Any]]) -> frozenset[MoveRef]:
    """The moves (round, move number) the server made for a human seat: an expired clock,
    a stand-in, the bot of a seat whose player left. The replay marks them ``auto``, as
    the live table did; none if the log does not account for the record's moves."""
    return human_moves(record) - judged_moves(record, entries)


def _count_moves(entries: list[dict[str, Any]]) -> int:
    return sum(1 for _ in log_moves(entries))


@dataclass
class Job:
    """One match waiting for (or in) a worker on this node."""

    mid: str
    record: dict[str, Any]
    judged: frozenset[MoveRef]
    done: asyncio.Event = field(default_factory=asyncio.Event)
    progress: int = 0  # judged moves done, as last read from the board


class AnalysisError(Exception):
    """A refused request: ``code`` is a catalogue key, ``status`` the HTTP status."""

    def __init__(self, code: str, status: int) -> None:
        super().__init__(code)
        self.code = code
        self.status = status


class AnalysisDesk:
    """This node's side of the analyses: the claim, the queue, the workers."""

    def __init__(self, settings: Settings, db: Database, node: str) -> None:
        self.settings = settings
        self.db = db
        self.node = node
        self.clock = settings.clock
        self.jobs: dict[str, Job] = {}  # this node's claimed analyses, waiting or running
        self.queue: asyncio.Queue[Job] = asyncio.Queue()
        # Cleared, the workers take no job from the queue (tests fill the queue with it).
        self.gate = asyncio.Event()
        self.gate.set()
        self._pool: ProcessPoolExecutor | None = None
        self._board: Any = None  # the pool's shared progress (see analyse_match)
        self._workers: list[asyncio.Task[None]] = []
        self._claiming = 0  # requests between the capacity check and their claim
        self._starting: asyncio.Task[None] | None = None
        # Called with (match id, record, analysis as JSON text) once this node stored an
        # analysis (the puzzles are built from it: desks/puzzles.py).
        self.stored: Callable[[str, dict[str, Any], str], Awaitable[None]] | None = None

    @property
    def capacity(self) -> int:
        """Matches this node takes at once (running and waiting)."""
        return self.settings.analysis_workers + self.settings.analysis_queue

    def _new_pool(self) -> ProcessPoolExecutor:
        ctx = multiprocessing.get_context("forkserver")
        workers = self.settings.analysis_workers
        # Shared memory handed to the workers as they start (it cannot travel with a task).
        self._board = ctx.RawArray("q", 2 * workers)
        return ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_worker_start,
            initargs=(self.settings.analysis_nice, self._board),
        )

    def _ensure_started(self) -> None:
        if self._workers:
            return
        self._pool = self._new_pool()
        loop = asyncio.get_running_loop()
        self._starting = loop.create_task(self._start_processes(self._pool))
        self._workers = [
            loop.create_task(self._work(slot)) for slot in range(self.settings.analysis_workers)
        ]

    async def _start_processes(self, pool: ProcessPoolExecutor) -> None:
        # Submitting to a process pool starts its missing processes in the submitting
        # thread, and a forkserver answers only once it has imported the code: done on the
        # event loop, that would hold up every live match meanwhile. So one task per worker
        # is submitted from a thread (not waited for: the workers run only on idle CPU),
        # and the analyses are submitted after it.
        def start() -> None:
            for _ in range(self.settings.analysis_workers):
                pool.submit(_ready)

        try:
            await asyncio.to_thread(start)
        except Exception:
            log.warning("analysis workers did not start", exc_info=True)

    async def stop(self) -> None:
        """Stop the workers; claims left running are taken over once stale."""
        tasks = [*self._workers, *([self._starting] if self._starting else [])]
        for w in tasks:
            w.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._starting = None
        self._workers = []
        if self._pool is not None:
            _close(self._pool)
            self._pool = None

    async def idle(self) -> None:
        """Wait until every analysis this node took is stored (tests)."""
        while self.jobs:
            job = next(iter(self.jobs.values()))
            await job.done.wait()

    # -- the request -------------------------------------------------------------------
    async def get(self, mid: str) -> tuple[int, dict[str, Any] | str]:
        """``(200, analysis as JSON text)`` when stored, ``(202, progress)`` while it is
        worked on (claimed now if nobody has it); :class:`AnalysisError` otherwise."""
        job = self.jobs.get(mid)
        if job is not None:  # this node's, waiting or running: answered without a query
            return 202, _running(job.progress, len(job.judged))
        now = self.clock.now()
        stale_before = now - self.settings.analysis_stale
        # The analysis row first: a viewer polls while it runs, and only a row that is
        # missing (or stale) needs the match's record.
        stored = await self.db.analysis(mid, decode=False)
        if stored is not None:
            if stored["status"] == "done":
                return 200, stored["result"]
            if stored["status"] == "failed":
                raise AnalysisError("analysis_failed", 500)
            if stored["updated_at"] >= stale_before:
                return 202, _progress(stored)
        row = await self.db.match(mid)
        if row is None:
            raise AnalysisError("match_not_found", 404)
        if row["status"] != "finished":
            raise AnalysisError("analysis_match_running", 409)
        record = row["record"]
        if not isinstance(record, dict) or record.get("format") != "domino-record":
            raise AnalysisError("analysis_no_record", 409)
        if self.settings.analysis_workers < 1:
            raise AnalysisError("analysis_off", 503)
        if len(self.jobs) + self._claiming >= self.capacity:
            raise AnalysisError("analysis_busy", 503)
        self._claiming += 1  # a place held while the claim is on its way
        try:
            judged = judged_moves(record, await self.db.match_log(mid))
            total = len(judged)
            samples = self.settings.analysis_samples
            claimed = await self.db.claim_analysis(
                mid, self.node, now, total, samples, stale_before
            )
        finally:
            self._claiming -= 1
        if not claimed:
            stored = await self.db.analysis(mid, decode=False)
            assert stored is not None
            if stored["status"] == "done":
                return 200, stored["result"]
            return 202, _progress(stored)
        self._ensure_started()
        job = Job(mid, record, judged)
        self.jobs[mid] = job
        self.queue.put_nowait(job)
        return 202, {"status": "running", "done": 0, "total": total}

    # -- the workers -------------------------------------------------------------------
    async def _work(self, slot: int) -> None:
        while True:
            await self.gate.wait()
            job = await self.queue.get()
            try:
                await self._run(job, slot)
            except asyncio.CancelledError:
                raise
            except BrokenProcessPool:
                # A worker process died (killed, out of memory): not the match's fault.
                # A fresh pool; the claim is left to go stale and be taken again.
                log.warning("analysis of %s: the worker process died", job.mid)
                if self._pool is not None:
                    _close(self._pool)
                self._pool = self._new_pool()
                self._starting = asyncio.get_running_loop().create_task(
                    self._start_processes(self._pool)
                )
            except Exception:
                log.exception("analysis of %s failed", job.mid)
                with contextlib.suppress(Exception):
                    await self.db.finish_analysis(job.mid, self.node, self.clock.now(), None)
            finally:
                self.jobs.pop(job.mid, None)
                job.done.set()

    async def _run(self, job: Job, slot: int) -> None:
        if self._starting is not None:
            await asyncio.shield(self._starting)  # the processes are there (or failed)
        assert self._pool is not None
        board, workers = self._board, self.settings.analysis_workers
        board[slot] = board[workers + slot] = 0
        s = self.settings
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(
            self._pool,
            analyse_match,
            job.record,
            job.judged,
            s.analysis_samples,
            job.mid,  # the seed: public, and fixes the samples (the analysis can be redone)
            s.analysis_hindsight,
            slot,
            workers,
            s.analysis_duty,
        )
        beat = asyncio.create_task(self._watch(job, board, slot, workers))
        try:
            result = await work
        finally:
            beat.cancel()
            await asyncio.gather(beat, return_exceptions=True)
        if result is None:
            return  # stopped: the claim went to another node
        if not await self.db.finish_analysis(job.mid, self.node, self.clock.now(), result):
            log.warning("analysis of %s: the claim went to another node", job.mid)
        elif self.stored is not None:
            await self.stored(job.mid, job.record, result)

    async def in_worker(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` in one of the analysis workers (other CPU work on finished
        matches, off the event loop and in the idle class like the analyses)."""
        if self.settings.analysis_workers < 1:
            raise AnalysisError("analysis_off", 503)
        self._ensure_started()
        if self._starting is not None:
            await asyncio.shield(self._starting)
        assert self._pool is not None
        return await asyncio.get_running_loop().run_in_executor(self._pool, fn, *args)

    async def _watch(self, job: Job, board: Any, slot: int, workers: int) -> None:
        """Read the worker's progress once a second and write it when it moved; also keep
        the claim fresh while a long round is judged (the workers run only on idle CPU, so
        a round may take long on a busy machine): other nodes must not take over a claim
        whose owner is alive. A lost claim stops the worker."""
        loop = asyncio.get_running_loop()
        written = loop.time()
        while True:
            await asyncio.sleep(PROGRESS_EVERY)
            done = int(board[slot])
            if done == job.progress and loop.time() - written < self.settings.analysis_stale / 4:
                continue
            job.progress = done
            written = loop.time()
            if not await self.db.analysis_progress(job.mid, self.node, done, self.clock.now()):
                log.warning("analysis of %s: the claim went to another node", job.mid)
                board[workers + slot] = 1
                return


def _running(done: int, total: int) -> dict[str, Any]:
    return {"status": "running", "done": done, "total": total}


def _progress(row: Mapping[str, Any]) -> dict[str, Any]:
    return _running(int(row["done"]), int(row["total"]))
