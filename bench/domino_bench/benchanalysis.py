"""``domino bench analysis``: what a post-match analysis costs (docs/performance.md).

Two figures, in one run:

1. **CPU per match.** ``--matches`` whole 4-seat matches to 100 points (Profi bots,
   seeded), every seat counted as human so every move is judged (the worst case);
   each analysed in this process with the server's settings (``--samples``
   sampled deals per decision, hindsight on). CPU seconds per match
   (``time.process_time``), median and maximum.
2. **Latency it adds to live matches.** The real server (as ``domino bench
   server`` starts it, SQLite in a temporary folder) with those matches stored as
   finished, and load processes playing ``--clients`` at human pace. Before the
   load starts, one analysis starts the server's worker process (once per
   process), and two more measure the server process's own CPU per analysed
   match (the judging itself runs in the worker). Windows of
   ``--window`` seconds alternate: *off* (no analysis) and *on* (a client keeps
   ``--concurrent`` analyses running through ``GET /api/matches/{id}/analysis``,
   asking for the next match as soon as one is stored). Command→event p50/p99 of
   each kind of window are printed side by side, with the analyses done.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from domino.analysis import review
from domino.bots import make_bot
from domino.rules import MatchState, Rules, view
from domino.rules.record import record_of

from . import child_env
from .bench import Loader, _measure, _wait_ready, percentile
from .launcher import ServerProcess
from .procstat import raise_nofile


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench analysis``."""
    p = what.add_parser("analysis", help="CPU per analysed match, live latency beside analyses")
    p.add_argument("--matches", type=int, default=8, help="4-seat matches to 100 points")
    p.add_argument("--samples", type=int, default=200, help="sampled deals per decision")
    p.add_argument("--clients", type=int, default=400, help="live clients (4 per table)")
    p.add_argument("--delay", type=float, default=1.0, help="seconds before each live move")
    p.add_argument("--warmup", type=float, default=10.0)
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--pairs", type=int, default=2, help="off/on window pairs")
    p.add_argument("--concurrent", type=int, default=1, help="analyses kept running")
    p.add_argument("--cpu-only", action="store_true", help="only the CPU figure")
    p.add_argument(
        "--duty",
        type=float,
        default=None,
        help="the server's analysis_duty (the share of a core a worker may use; "
        "default: the server's own)",
    )
    p.set_defaults(func=run)


def bot_record(seed: str) -> dict[str, Any]:
    """A whole 4-seat match to 100 points of Profi bots, every seat recorded as human."""
    rules = Rules(seats=4, target=100)
    m = MatchState(rules, seed=seed)
    bots = [make_bot("profi", f"{seed}/{i}") for i in range(4)]
    while not m.over:
        if m.round.over:
            m.start_round()
            continue
        s = m.round.turn
        m.apply(bots[s].choose(view(m, s)), s)
    return record_of(m, seats=[{"name": f"P{i}", "kind": "human"} for i in range(4)])


def run(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench analysis``."""
    records = [bot_record(f"bench-analysis-{i}") for i in range(args.matches)]
    cpu, judged, moves = [], [], []
    for rec in records:
        t0 = time.process_time()
        out = review(rec, samples=args.samples, seed="bench")
        cpu.append(time.process_time() - t0)
        judged.append(sum(1 for m in out["moves"] if not m["forced"]))
        moves.append(len(out["moves"]))
    print(
        f"analysis CPU per 4-seat match to 100 ({args.matches} matches, {args.samples} "
        f"samples, hindsight on): median {statistics.median(cpu):.2f} s, max {max(cpu):.2f} s; "
        f"moves per match median {statistics.median(moves):.0f}, judged (not forced) "
        f"{statistics.median(judged):.0f}"
    )
    if args.cpu_only:
        return 0
    raise_nofile()
    with tempfile.TemporaryDirectory(prefix="domino-bench-analysis-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        ids = asyncio.run(_store(data, records))
        extra = [] if args.duty is None else ["--analysis-duty", str(args.duty)]
        server = ServerProcess(data, log=Path(tmp) / "server.log", extra=extra)
        server.start()
        try:
            rows = asyncio.run(_windows(args, server, ids))
        finally:
            server.stop()
    _report(rows)
    return 0


async def _store(data: Path, records: list[dict[str, Any]]) -> list[str]:
    """The records as finished matches in the server's database; their ids."""
    from domino.server.storage.db import Database

    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    await db.create()
    ids = []
    try:
        for i, rec in enumerate(records):
            mid = f"m_bench{i:04d}"
            await db.create_match(mid, None, rec["rules"], rec["seats"], "s", 0.0, [])
            await db.finish_match(mid, 1.0, {"standings": []}, rec, [])
            ids.append(mid)
    finally:
        await db.close()
    return ids


async def _analyse(url: str, ids: list[str], concurrent: int, done: list[str]) -> None:
    """Keep ``concurrent`` analyses going until cancelled (each match once)."""
    queue = list(ids)

    async def one(client: httpx.AsyncClient) -> None:
        while queue:
            mid = queue.pop(0)
            while True:
                r = await client.get(f"/api/matches/{mid}/analysis")
                if r.status_code == 200:
                    done.append(mid)
                    break
                if r.status_code not in (202, 503):
                    raise RuntimeError(f"analysis of {mid}: {r.status_code} {r.text}")
                await asyncio.sleep(0.5)  # twice as often as the viewer (replay.js)

    async with httpx.AsyncClient(base_url=url, timeout=30.0) as client:
        await asyncio.gather(*(one(client) for _ in range(concurrent)))


async def _windows(
    args: argparse.Namespace, server: ServerProcess, ids: list[str]
) -> list[tuple[str, Any, int]]:
    # One analysis starts the server's worker process (once per process), then the
    # server's own CPU per analysed match (claim, progress, result, a viewer's polls)
    # is measured with nothing else on it; the judging's CPU is the worker's.
    await _analyse(server.url, ids[-1:], 1, [])
    quiet = ids[-3:-1] if len(ids) >= 3 else []
    if quiet:
        s0 = server.sample()
        await _analyse(server.url, quiet, 1, [])
        s1 = server.sample()
        if s0 and s1:
            ms = 1000 * (s1.cpu - s0.cpu) / len(quiet)
            print(f"server process CPU per analysed match (no live load): {ms:.0f} ms")
    ids = [m for m in ids if m not in quiet and m != ids[-1]] or ids
    cmd = [sys.executable, "-m", "domino_bench.load", "--url", server.url]
    cmd += ["--delay", str(args.delay), "--seats", "4", "--seed", "1"]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=child_env()
    )
    loader = Loader(proc)
    reader = asyncio.create_task(loader.read())
    rows: list[tuple[str, Any, int]] = []
    base = server.sample()
    assert base is not None
    try:
        groups = -(-args.clients // 4)
        await loader.send(f"groups {groups}")
        if not await _wait_ready([loader], groups * 4, groups, timeout=60 + args.clients * 0.05):
            print(f"  ({args.clients} clients: not all connected and seated in time)")
        await asyncio.sleep(args.warmup)
        pending = list(ids)
        pooled: dict[str, list[float]] = {"off": [], "on": []}  # every latency, by kind

        async def on() -> tuple[str, Any, int]:
            done: list[str] = []
            task = asyncio.create_task(_analyse(server.url, pending, args.concurrent, done))
            row = await _measure([loader], server, base.rss, args.window)
            pooled["on"] += loader.lat
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            pending[:] = [m for m in pending if m not in done]
            return ("on", row, len(done))

        async def off() -> tuple[str, Any, int]:
            row = await _measure([loader], server, base.rss, args.window)
            pooled["off"] += loader.lat
            return ("off", row, 0)

        for i in range(args.pairs):
            # off-on, on-off, off-on ...: a latency that drifts over the run (the
            # database grows, a neighbour gets busy) favours neither kind of window.
            pair = [await off(), await on()] if i % 2 == 0 else [await on(), await off()]
            rows += pair
            print("  " + "; ".join(f"{k}: p99 {r.p99} ms" for k, r, _ in pair), flush=True)
            if not pending:
                print("  (every stored match is analysed: raise --matches)")
                break
        off_p99, on_p99 = percentile(pooled["off"], 0.99), percentile(pooled["on"], 0.99)
        if off_p99 and on_p99:
            print(
                f"p99 of every command in the kind's windows: off {off_p99:.2f} ms "
                f"({len(pooled['off'])} commands), on {on_p99:.2f} ms "
                f"({len(pooled['on'])}): {100 * (on_p99 / off_p99 - 1):+.1f} %"
            )
    finally:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await loader.send("stop")
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
        reader.cancel()
    return rows


def _report(rows: list[tuple[str, Any, int]]) -> None:
    print(
        f"{'window':>7} {'clients':>8} {'cmd/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'srv CPU%':>8} {'CPU ms/cmd':>10} {'analysed':>8} {'loadavg':>7} errors"
    )
    for kind, r, n in rows:
        print(
            f"{kind:>7} {r.clients:>8} {r.cmds_per_s:>7.0f} {_ms(r.p50):>7} {_ms(r.p99):>7} "
            f"{r.server_cpu:>8.0f} {_ms(r.cpu_ms_per_cmd):>10} {n if kind == 'on' else '-':>8} "
            f"{r.loadavg if r.loadavg is not None else '-':>7} {r.errors}"
        )
    for name, attr in (("p99", "p99"), ("server CPU ms/cmd", "cpu_ms_per_cmd")):
        off = [getattr(r, attr) for k, r, _ in rows if k == "off" and getattr(r, attr)]
        on = [getattr(r, attr) for k, r, _ in rows if k == "on" and getattr(r, attr)]
        if off and on:
            a, b = statistics.median(off), statistics.median(on)
            print(f"{name} median: off {a:.2f}, on {b:.2f} ({100 * (b - a) / a:+.1f} %)")
        ratios = paired_ratios(rows, attr)
        if ratios:
            r = statistics.median(ratios)
            print(
                f"{name} on/off per pair: median {r:.3f} ({100 * (r - 1):+.1f} %), "
                f"{len(ratios)} pairs"
            )


def paired_ratios(rows: list[tuple[str, Any, int]], attr: str) -> list[float]:
    """``on / off`` of ``attr`` for each pair of windows that ran side by side (in
    either order), skipping a pair where either window has no figure."""
    out = []
    for first, second in zip(rows[0::2], rows[1::2], strict=False):
        by = {first[0]: getattr(first[1], attr), second[0]: getattr(second[1], attr)}
        if by.get("off") and by.get("on"):
            out.append(by["on"] / by["off"])
    return out


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


__all__ = ["bot_record", "paired_ratios", "percentile", "register", "run"]
