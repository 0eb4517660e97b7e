"""Run the real server in this process for the load and crash tests.

``python -m domino_bench.serve --port P --data DIR [--pace fast] [--profile OUT]``

It is ``create_app(Settings(...))`` on uvicorn with the same protocol choices
as ``domino serve`` (``server/run.py``: uvloop, httptools, the lean WebSocket
transport; frames limited to ``Settings.max_frame``), with what a benchmark needs
on top: a raised file-descriptor limit, optionally fast table timing (the
crash test plays whole matches in seconds), a per-connection message budget
that can be widened, and an optional cProfile of the whole run, written when
the server stops (SIGTERM or SIGINT).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvloop

from domino.server.storage.db import Database
from domino.table import Timing

from .procstat import raise_nofile

#: Table timing for the crash test: bots and round pauses in tens of milliseconds.
FAST = Timing(bot_delay=(0.02, 0.05), bot_step_delay=(0.01, 0.02), round_pause=0.2, grace=10.0)


def parser() -> argparse.ArgumentParser:
    """The command line of the server process."""
    p = argparse.ArgumentParser(prog="python -m domino_bench.serve")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--data", type=Path, required=True, help="folder of the SQLite database")
    p.add_argument("--pace", choices=("human", "fast"), default="human")
    p.add_argument("--burst", type=float, default=None, help="message budget: burst")
    p.add_argument("--rate", type=float, default=None, help="message budget: refill per second")
    p.add_argument("--profile", type=Path, default=None, help="write a cProfile here at exit")
    p.add_argument("--backlog", type=int, default=4096)
    p.add_argument(
        "--skip-log-writes",
        action="store_true",
        help="experiment: do not store match entries (measures the database's share)",
    )
    p.add_argument("--lag", type=Path, default=None, help="append event-loop lag per second here")
    p.add_argument("--analysis-duty", type=float, default=None, help="Settings.analysis_duty (0-1]")
    p.add_argument(
        "--gc",
        choices=("policy", "defaults"),
        default="policy",
        help="the collector: the serving policy of domino serve (server/gcpolicy.py), or "
        "the interpreter's defaults (to measure the difference)",
    )
    p.add_argument(
        "--ws",
        choices=("lean", "websockets-sansio"),  # server.run.TRANSPORTS
        default="lean",
        help="the WebSocket transport: domino's lean one (transport/rawws.py, as domino serve) "
        "or uvicorn's websockets-sansio protocol with the ASGI route (to compare)",
    )
    p.add_argument(
        "--gc-thresholds",
        default=None,
        metavar="YOUNG,MIDDLE,OLD",
        help="experiment: the policy with these collection thresholds",
    )
    p.add_argument(
        "--gc-freeze-every",
        type=float,
        default=None,
        metavar="SECONDS",
        help="experiment: the policy freezing what is alive this often",
    )
    p.add_argument(
        "--gc-sweep-every",
        type=float,
        default=None,
        metavar="SECONDS",
        help="experiment: the policy collecting everything (frozen included) this often",
    )

    return p


async def watch_lag(path: Path, commands: Callable[[], int], period: float = 0.05) -> None:
    """Append one JSON line per second: the event loop's worst and mean lateness (ms).

    A timer that fires late means the loop was busy (or the process was not
    scheduled): the part of a command's latency the server adds by waiting.
    ``commands`` counts the commands handled so far (a move counts once it is stored):
    each line also gives those of the second and the most of one ``period``, which shows
    whether they are answered evenly or in bursts.
    """
    loop = asyncio.get_running_loop()
    gc_pauses: list[float] = []
    gc_start = [0.0]
    gc_full = [0]
    tick = [0]

    # [generation, ms, *gc.get_count() at its start] of each collection over 10 ms
    long_pauses: list[list[float]] = []
    gc_counts = [(0, 0, 0)]
    gc_collected = [0]  # objects found unreachable (cyclic garbage) this second

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            gc_counts[0] = gc.get_count()
            gc_start[0] = time.perf_counter()
        else:
            took = time.perf_counter() - gc_start[0]
            gc_pauses.append(took)
            if took > 0.010:
                gen = info.get("generation", -1)
                long_pauses.append([gen, round(took * 1000, 1), *gc_counts[0]])
            if info.get("generation") == 2:
                gc_full[0] += 1
            gc_collected[0] += info.get("collected", 0)

    gc.callbacks.append(on_gc)
    last_cpu = [time.process_time()]
    with path.open("a") as out:
        while True:
            worst, total, n = 0.0, 0.0, 0
            first = last = commands()
            most = 0
            start = loop.time()
            while loop.time() - start < 1.0:
                t = loop.time()
                await asyncio.sleep(period)
                late = loop.time() - t - period
                worst, total, n = max(worst, late), total + late, n + 1
                now = commands()
                most, last = max(most, now - last), now
            line: dict[str, Any] = {"t": round(time.time(), 1), "max_ms": round(worst * 1000, 1)}
            line["mean_ms"] = round(total / max(n, 1) * 1000, 2)
            line["commands"] = last - first
            line["commands_max_tick"] = most
            line["gc_max_ms"] = round(max(gc_pauses, default=0.0) * 1000, 1)
            line["gc_ms"] = round(sum(gc_pauses) * 1000, 1)
            gc_pauses.clear()
            line["gc_collected"], gc_collected[0] = gc_collected[0], 0
            if long_pauses:
                line["gc_long"] = list(long_pauses)
                long_pauses.clear()
            line["gc_full"], gc_full[0] = gc_full[0], 0
            tick[0] += 1
            if tick[0] % 5 == 0:  # counting is not free: every fifth second
                line["objects"] = len(gc.get_objects())
            cpu = time.process_time()
            line["cpu_s"] = round(cpu - last_cpu[0], 3)
            last_cpu[0] = cpu
            out.write(json.dumps(line) + "\n")
            out.flush()


class NoLogWrites(Database):
    """Experiment: accepted entries are not written at all (:meth:`append` returns).

    Only to measure how much of a command's latency the database is; a server
    run like this loses every match on a crash. The server gets it through
    ``Settings.database``.
    """

    async def append(
        self, mid: str, start: int, entries: list[dict[str, Any]], fence: int = 0
    ) -> None:
        return None


async def serve(server: Any, lag: Path | None) -> None:
    """Run uvicorn's server, with the lag watcher beside it if asked."""
    helpers = []
    if lag is not None:
        metrics = server.config.app.state.service.metrics

        def commands() -> int:
            return sum(metrics.command_seconds.counts)

        helpers.append(asyncio.create_task(watch_lag(lag, commands)))
    try:
        await server.serve()
    finally:
        for h in helpers:
            h.cancel()


def gc_policy(args: argparse.Namespace) -> Any:
    """The collector policy the command line asks for (``None``: interpreter defaults)."""
    from domino.server import GcPolicy

    if args.gc != "policy":
        return None
    policy = GcPolicy()
    if args.gc_thresholds:
        young, middle, old = (int(x) for x in args.gc_thresholds.split(","))
        policy = dataclasses.replace(policy, young=young, middle=middle, old=old)
    if args.gc_freeze_every is not None:
        policy = dataclasses.replace(policy, freeze_every=args.gc_freeze_every)
    if args.gc_sweep_every is not None:
        policy = dataclasses.replace(policy, sweep_every=args.gc_sweep_every)
    return policy


def main(argv: list[str] | None = None) -> int:
    """Start the server and serve until SIGTERM/SIGINT."""
    import uvicorn

    from domino.server import Settings, create_app
    from domino.server.run import uvicorn_config

    args = parser().parse_args(argv)
    raise_nofile()

    extra: dict[str, float] = {}
    if args.burst is not None:
        extra["bucket_burst"] = args.burst
    if args.rate is not None:
        extra["bucket_rate"] = args.rate
    if args.analysis_duty is not None:
        extra["analysis_duty"] = args.analysis_duty
    settings = Settings(
        host="127.0.0.1",
        port=args.port,
        data_dir=args.data,
        timing=FAST if args.pace == "fast" else None,
        gc_policy=gc_policy(args),
        # Every simulated person signs up from 127.0.0.1: no sign-in budget per address.
        signin_burst=float("inf"),
        database=NoLogWrites if args.skip_log_writes else None,
        **extra,  # type: ignore[arg-type]
    )
    config = uvicorn_config(
        create_app(settings),
        settings,
        ws=args.ws,
        log_level="warning",
        backlog=args.backlog,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)

    def run() -> None:
        uvloop.run(serve(server, args.lag))

    if args.profile is None:
        run()
        return 0
    prof = cProfile.Profile()
    try:
        prof.runcall(run)
    finally:
        prof.dump_stats(str(args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
