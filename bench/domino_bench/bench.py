"""``domino bench server``: how many people one server process carries.

The driver starts the real server (:mod:`.serve`, SQLite in a temporary
folder) and one or more load processes (:mod:`.load`), then ramps the number
of connected clients through ``--steps``. Per step it waits until every
client is connected and seated, lets the tables warm up, and measures for
``--window`` seconds: connected clients, live matches, commands per second,
command→event latency (p50/p95/p99, measured by the clients: from sending a
move to the first ``state`` with a newer version), the server's CPU and RSS
(``/proc``), errors, and memory per match beyond the server's base. The knee
is the largest step with p99 under 100 ms and no errors. With ``--flood`` the
last step is measured once more with one flooding client, which the server
must close with 1008 while the others keep their latency.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import child_env
from .launcher import ServerProcess
from .procstat import raise_nofile

KNEE_P99_MS = 100.0


@dataclass
class Loader:
    """One load process and the figures it reported since the last reset."""

    proc: asyncio.subprocess.Process
    last: dict[str, Any] = field(default_factory=dict)
    lat: list[float] = field(default_factory=list)
    sent: int = 0
    acked: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    closes: dict[str, int] = field(default_factory=dict)
    flood: dict[str, Any] = field(default_factory=dict)

    def reset(self) -> None:
        """Start a new measurement window."""
        self.lat, self.sent, self.acked = [], 0, 0
        self.errors, self.closes = {}, {}

    def take(self, rep: dict[str, Any]) -> None:
        """Fold one report line in."""
        self.last = rep
        self.lat.extend(rep["lat"])
        self.sent += rep["sent"]
        self.acked += rep["acked"]
        for k, n in rep["errors"].items():
            self.errors[k] = self.errors.get(k, 0) + n
        for k, n in rep["closes"].items():
            self.closes[k] = self.closes.get(k, 0) + n
        if "flood_close" in rep:
            self.flood = {k: v for k, v in rep.items() if k.startswith("flood")}

    async def send(self, line: str) -> None:
        """A command to the load process."""
        assert self.proc.stdin is not None
        self.proc.stdin.write((line + "\n").encode())
        await self.proc.stdin.drain()

    async def read(self) -> None:
        """Collect report lines until the process ends."""
        assert self.proc.stdout is not None
        while line := await self.proc.stdout.readline():
            try:
                self.take(json.loads(line))
            except (ValueError, KeyError):
                continue


@dataclass
class Row:
    """One step of the ramp."""

    clients: int
    matches: int
    cmds_per_s: float
    p50: float | None
    p95: float | None
    p99: float | None
    server_cpu: float
    server_rss_mb: float
    errors: int
    kb_per_match: float | None
    loader_cpu: float
    cpu_ms_per_cmd: float | None = None
    loadavg: float | None = None
    error_kinds: dict[str, int] = field(default_factory=dict)
    flood: dict[str, Any] = field(default_factory=dict)
    #: Tables that have started a match (``matches``: those in one when measured).
    seated: int = 0


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-quantile (0..1) by nearest rank, or ``None`` without values."""
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench server``."""
    p = what.add_parser("server", help="load benchmark of one server process over real sockets")
    p.add_argument("--steps", default="100,400,1000,2000,4000", help="connected clients per step")
    p.add_argument("--delay", type=float, default=1.0, help="seconds before each move (0: flat)")
    p.add_argument("--jitter", type=float, default=0.0, help="extra random delay per move")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--bots", type=int, default=0, help="bot seats per table")
    p.add_argument("--spectators", type=int, default=0, help="watchers per table")
    p.add_argument("--loaders", type=int, default=1, help="load processes")
    p.add_argument("--warmup", type=float, default=10.0)
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--flood", action="store_true", help="re-measure the last step with a flooder")
    p.add_argument("--stop-p99", type=float, default=2000.0, help="stop the ramp above this p99")
    p.add_argument("--data", type=Path, default=None, help="database folder (default: temporary)")
    p.add_argument("--profile", type=Path, default=None, help="cProfile of the server to this file")
    p.add_argument("--lag", type=Path, default=None, help="server event-loop lag log (JSON lines)")
    p.add_argument(
        "--spy",
        type=Path,
        default=None,
        help="py-spy profile (raw) of the server over each window, to FILE.N (py-spy installed)",
    )
    p.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="extra argument for the server process (python -m domino_bench.serve --help)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the rows here")
    p.add_argument("--plot", type=Path, default=None, help="write a PNG of the curve here")
    p.set_defaults(func=run_server_bench)


def run_server_bench(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench server``."""
    raise_nofile()
    steps = [int(x) for x in str(args.steps).split(",") if x.strip()]
    with tempfile.TemporaryDirectory(prefix="domino-bench-") as tmp:
        data = args.data or Path(tmp) / "data"
        server = ServerProcess(
            data,
            profile=args.profile,
            log=Path(tmp) / "server.log",
            lag=args.lag,
            extra=args.server_arg,
        )
        server.start()
        try:
            rows = asyncio.run(_ramp(args, server, steps))
        finally:
            server.stop()
            if server.log is not None and server.log.exists():
                tail = server.log.read_text(errors="replace").strip().splitlines()[-20:]
                errors = [t for t in tail if "Error" in t or "Traceback" in t]
                if errors:
                    print("server log (tail):", *tail, sep="\n  ")
    report(rows, args)
    return 0


async def _ramp(args: argparse.Namespace, server: ServerProcess, steps: list[int]) -> list[Row]:
    per_group = args.seats - args.bots + args.spectators
    loaders: list[Loader] = []
    readers = []
    for i in range(max(1, args.loaders)):
        cmd = [sys.executable, "-m", "domino_bench.load", "--url", server.url]
        cmd += ["--delay", str(args.delay), "--jitter", str(args.jitter)]
        cmd += ["--seats", str(args.seats), "--bots", str(args.bots)]
        cmd += ["--spectators", str(args.spectators), "--seed", str(i + 1)]
        cmd += ["--gid-base", str(i * 1_000_000)]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=child_env()
        )
        loaders.append(Loader(proc))
        readers.append(asyncio.create_task(loaders[-1].read()))
    await asyncio.sleep(1.0)
    base = server.sample()
    assert base is not None
    print(f"server pid {server.pid}, base RSS {base.rss / 2**20:.1f} MB; steps {steps}")
    print(_header())
    rows: list[Row] = []
    try:
        for n in steps:
            groups = math.ceil(n / per_group)
            share = [
                groups // len(loaders) + (i < groups % len(loaders)) for i in range(len(loaders))
            ]
            for ld, g in zip(loaders, share, strict=True):
                ld.reset()
                await ld.send(f"groups {g}")
            ready = await _wait_ready(loaders, groups * per_group, groups, timeout=60 + n * 0.05)
            if not ready:
                print(
                    f"  ({n} clients: not all connected and seated in time:"
                    f" {_total(loaders, 'connected')} connected,"
                    f" {_total(loaders, 'tables_seated')} tables seated,"
                    f" errors {_error_kinds(loaders)})"
                )
            await asyncio.sleep(args.warmup)
            spy = await _spy(args.spy, server, args.window, len(rows))
            row = await _measure(loaders, server, base.rss, args.window)
            if spy is not None:
                await spy.wait()
            rows.append(row)
            print(_line(row), flush=True)
            if row.p99 is None or row.p99 > args.stop_p99 or not server.alive():
                print("  (stopping the ramp: p99 over the limit or no moves)")
                break
        if args.flood and rows and server.alive():
            await loaders[0].send("flood")
            row = await _measure(loaders, server, base.rss, args.window)
            for _ in range(60):  # the flooder reports once the server closed it
                if loaders[0].flood:
                    break
                await asyncio.sleep(0.5)
            row.flood = dict(loaders[0].flood) or {"flood_close": "no report"}
            rows.append(row)
            print(_line(row) + f"  with one flooder: {row.flood}", flush=True)
    finally:
        for ld in loaders:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await ld.send("stop")
        for ld in loaders:
            try:
                await asyncio.wait_for(ld.proc.wait(), 30)
            except TimeoutError:
                ld.proc.kill()
        for r in readers:
            r.cancel()
    return rows


async def _spy(
    out: Path | None, server: ServerProcess, window: float, n: int
) -> asyncio.subprocess.Process | None:
    # py-spy samples the server over the window (100 Hz, the GIL holder, native frames)
    # into FILE.N; ``python -m domino_bench.spy FILE.N`` summarises. Sampling costs CPU.
    if out is None:
        return None
    exe = Path(sys.executable).with_name("py-spy")
    cmd = [str(exe), "record", "-p", str(server.pid), "-r", "100", "-d", str(round(window))]
    cmd += ["-f", "raw", "--gil", "--native", "-o", f"{out}.{n}"]
    return await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.DEVNULL)


async def _wait_ready(loaders: list[Loader], clients: int, groups: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # Seated, not live: a table between two matches is seated all the same.
        if _total(loaders, "connected") >= clients and _total(loaders, "tables_seated") >= groups:
            return True
        await asyncio.sleep(0.5)
    return False


def _total(loaders: list[Loader], key: str) -> int:
    """The sum of one count of the loaders' latest reports."""
    return sum(int(ld.last.get(key, 0)) for ld in loaders)


def _error_kinds(loaders: list[Loader]) -> dict[str, int]:
    """The loaders' errors and closes since their last reset, by kind."""
    kinds = Counter[str]()
    for ld in loaders:
        kinds.update(ld.errors)
        kinds.update({f"close {k}": n for k, n in ld.closes.items()})
    return dict(kinds)


async def _measure(
    loaders: list[Loader], server: ServerProcess, base_rss: int, window: float
) -> Row:
    for ld in loaders:
        ld.reset()
    s0 = server.sample()
    l0 = sum(ld.last.get("cpu") or 0.0 for ld in loaders)
    t0 = time.monotonic()
    await asyncio.sleep(window)
    s1 = server.sample()
    dt = time.monotonic() - t0
    l1 = sum(ld.last.get("cpu") or 0.0 for ld in loaders)
    lat = [x for ld in loaders for x in ld.lat]
    errors = _error_kinds(loaders)
    matches = _total(loaders, "matches_live")
    seated = _total(loaders, "tables_seated")
    rss = s1.rss if s1 else 0
    acked = sum(ld.acked for ld in loaders)
    cpu = s1.cpu - s0.cpu if s0 and s1 else float("nan")
    return Row(
        clients=_total(loaders, "connected"),
        matches=matches,
        seated=seated,
        cmds_per_s=acked / dt,
        p50=percentile(lat, 0.50),
        p95=percentile(lat, 0.95),
        p99=percentile(lat, 0.99),
        server_cpu=100 * cpu / dt,
        server_rss_mb=rss / 2**20,
        errors=sum(errors.values()),
        kb_per_match=(rss - base_rss) / 1024 / matches if matches else None,
        loader_cpu=100 * (l1 - l0) / dt,
        error_kinds=errors,
        # Server CPU per acknowledged command (everything the server did, divided): the
        # figure that stays meaningful when other processes take the CPU away.
        cpu_ms_per_cmd=1000 * cpu / acked if acked else None,
        loadavg=machine_load(),
    )


def machine_load() -> float | None:
    """The machine's 1-minute load average (other processes compete for the 2 cores)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _header() -> str:
    return (
        f"{'clients':>8} {'matches':>8} {'cmd/s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7}"
        f" {'srv CPU%':>8} {'CPU ms/cmd':>10} {'RSS MB':>7} {'KB/match':>8} {'load CPU%':>9}"
        f" {'loadavg':>7} errors"
    )


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


def _line(r: Row) -> str:
    kb = "-" if r.kb_per_match is None else f"{r.kb_per_match:.0f}"
    errs = f"{r.errors}" + (f" {r.error_kinds}" if r.errors else "")
    per = "-" if r.cpu_ms_per_cmd is None else f"{r.cpu_ms_per_cmd:.2f}"
    return (
        f"{r.clients:>8} {r.matches:>8} {r.cmds_per_s:>7.0f} {_ms(r.p50):>7} {_ms(r.p95):>7}"
        f" {_ms(r.p99):>7} {r.server_cpu:>8.0f} {per:>10} {r.server_rss_mb:>7.0f} {kb:>8}"
        f" {r.loader_cpu:>9.0f} {_ms(r.loadavg):>7} {errs}"
    )


def knee(rows: list[Row]) -> Row | None:
    """The largest step with p99 under 100 ms and no errors (flood rows excluded)."""
    good = [
        r
        for r in rows
        if not r.flood and r.p99 is not None and r.p99 < KNEE_P99_MS and r.errors == 0
    ]
    return max(good, key=lambda r: r.clients) if good else None


def report(rows: list[Row], args: argparse.Namespace) -> None:
    """Print the knee; write the JSON and the plot if asked."""
    k = knee(rows)
    if k is None:
        print("knee: no step had p99 < 100 ms without errors")
    else:
        print(f"knee: {k.clients} clients in {k.matches} matches (p99 {k.p99:.1f} ms, 0 errors)")
    if args.json is not None:
        meta = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        meta.pop("func", None)
        args.json.write_text(
            json.dumps({"args": meta, "rows": [asdict(r) for r in rows]}, indent=1) + "\n"
        )
    if args.plot is not None:
        loads = [r.loadavg for r in rows if r.loadavg is not None]
        busy = f", machine load avg {min(loads):.0f}-{max(loads):.0f} on 2 cores" if loads else ""
        plot(rows, args.plot, f"delay {args.delay} s, {args.seats} seats, {args.bots} bots{busy}")


def plot(rows: list[Row], path: Path, subtitle: str) -> None:
    """Latency percentiles and server CPU against connected clients, as a PNG."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: pip install -e '.[bench]' for the plot)")
        return
    ramp = [r for r in rows if not r.flood and r.p99 is not None]
    if not ramp:
        return
    x = [r.clients for r in ramp]
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=110)
    for name, style in (("p50", "-o"), ("p95", "-s"), ("p99", "-^")):
        ax.plot(x, [getattr(r, name) for r in ramp], style, label=f"{name} latency")
    ax.axhline(KNEE_P99_MS, color="grey", ls="--", lw=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("connected clients")
    ax.set_ylabel("command → event latency (ms)")
    ax2 = ax.twinx()
    ax2.plot(x, [r.server_cpu for r in ramp], ":", color="black", label="server CPU %")
    ax2.set_ylabel("server CPU (% of one core)")
    ax2.set_ylim(0, max(100.0, *(r.server_cpu for r in ramp)))
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", fontsize=8)
    ax.set_title(f"domino bench server ({subtitle})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
