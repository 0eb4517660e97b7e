"""``domino bench cluster``: the human-pace load of ``domino bench server`` over 1, 2
and 3 nodes behind HAProxy, side by side in one run with the single process.

Configurations (``--configs``, run one after another, ``--rounds`` times, so each
sees the machine as the others do):

- ``single``: the embedded default, as ``domino bench server`` runs it — one
  process (:mod:`.serve`), SQLite in a temporary folder, no Redis, no HAProxy;
- ``pg``: one real ``domino serve`` node on PostgreSQL without Redis behind HAProxy
  (not a cluster: it tells the database's share from Redis's);
- ``1``, ``2``, ``3`` …: that many real ``domino serve`` nodes (:class:`.cluster.Cluster`)
  on PostgreSQL (a table prefix of their own, dropped afterwards) and Redis, behind
  HAProxy with the repository's ``deploy/haproxy.cfg``. Redis is a private
  ``redis-server`` started for the run (:class:`.infra.PrivateRedis`) unless
  ``--redis URL`` names one: then its figures include whatever else uses it.

The load is :mod:`.load`'s: each simulated person signs up as a guest, opens one
socket and plays at human pace (``--delay``). Every table is one person's:
``--seats 4 --bots 3`` by default — the person creates a lobby on its one socket
and fills it with bots, which works on whatever node HAProxy gave it (lobbies do
not span nodes yet). Per configuration and step (connected clients): commands per
second, command→event latency p50/p95/p99 (measured by the clients), and CPU:

- ``nodes``: the server processes' CPU (every node's, summed), per acknowledged
  command — what ``domino bench server`` reports as CPU ms per command;
- ``haproxy``, ``redis``, ``pg``: HAProxy's process, the Redis server's, and the
  PostgreSQL backends serving the nodes' connections (``/proc``), per command; the
  single process has none of them (its SQLite work is in its own CPU);
- ``all``: the sum;
- Redis commands (and ``PUBLISH`` among them) per command, from Redis's
  ``INFO commandstats``.

An acknowledged command is a person's move seen answered (a newer ``state``); the
bots' moves in between are not counted as commands, their cost is in the CPU. The
knee of a configuration is its largest step with p99 under 100 ms and no errors
(as ``domino bench server``). The ratio to the single process is taken per step,
at the same load, from the medians over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from . import child_env
from .bench import KNEE_P99_MS, Loader, _wait_ready, machine_load, percentile
from .cluster import Cluster
from .infra import (
    PrivateRedis,
    cpu_between,
    cpu_seconds,
    pg_backends,
    pids_named,
    redis_counts,
)
from .launcher import ServerProcess
from .procstat import raise_nofile

#: The target of the issue: CPU per command within this factor of the single process.
CPU_TARGET_RATIO = 1.25
#: A sign-in budget the nodes get for the run (every simulated person signs up from
#: 127.0.0.1, which HAProxy names in X-Forwarded-For).
SIGNIN_BUDGET = "1000000,1000"


@dataclass
class Row:
    """One configuration at one step."""

    config: str
    round: int
    step: int  # clients asked for
    clients: int
    matches: int
    cmds_per_s: float
    p50: float | None
    p95: float | None
    p99: float | None
    nodes_cpu: float  # % of one core, every node summed
    errors: int
    error_kinds: dict[str, int] = field(default_factory=dict)
    nodes_ms: float | None = None  # CPU ms per acknowledged command
    haproxy_ms: float | None = None
    redis_ms: float | None = None
    pg_ms: float | None = None
    all_ms: float | None = None
    redis_cmds: float | None = None  # Redis commands per acknowledged command
    redis_publish: float | None = None
    loader_cpu: float = 0.0
    loadavg: float | None = None


class Target:
    """What the load is pointed at: the single process or a cluster."""

    name: str = ""
    url: str = ""
    redis_url: str | None = None

    def node_pids(self) -> list[int]:
        """The server processes (their CPU is ``nodes``)."""
        raise NotImplementedError

    def infra_pids(self) -> dict[str, list[int]]:
        """HAProxy's and Redis's processes (PostgreSQL's are found per window)."""
        return {}

    def uses_postgres(self) -> bool:
        """Whether PostgreSQL backends serve it."""
        return False

    def close(self) -> None:
        """Stop everything it started."""


class SingleTarget(Target):
    """``domino bench server``'s server: one process, SQLite, no Redis."""

    def __init__(self, folder: Path) -> None:
        self.name = "single"
        self.server = ServerProcess(folder / "data", log=folder / "server.log")
        self.server.start()
        self.url = self.server.url

    def node_pids(self) -> list[int]:
        return [self.server.pid] if self.server.alive() else []

    def close(self) -> None:
        self.server.stop()


class BenchCluster(Cluster):
    """A :class:`Cluster` whose HAProxy takes ``maxconn`` connections (the tests' 2,000
    would cap a large step)."""

    maxconn: int = 8000

    def environment(self) -> dict[str, str]:
        env = super().environment()
        env["DOMINO_MAXCONN"] = str(self.maxconn)
        return env


class ClusterTarget(Target):
    """``n`` ``domino serve`` nodes on PostgreSQL and Redis behind HAProxy."""

    def __init__(
        self,
        n: int,
        pg_url: str,
        redis_url: str | None,
        redis_pid: int | None,
        folder: Path,
        check_inter: str = "2s",
    ) -> None:
        self.name = config_name(str(n)) if redis_url else "pg"
        self.redis_url = redis_url
        self._redis_pid = redis_pid
        tag = os.urandom(3).hex()
        self.cluster = BenchCluster(
            pg_url,
            n,
            redis_url=redis_url,
            extra=["--signin-budget", SIGNIN_BUDGET, "--log-level", "warning"],
            # Names of their own: on a shared Redis, other runs' "node1" is not ours.
            node_extra=lambda k: ["--node", f"bench{tag}-{k}"],
            folder=folder,
            check_inter=check_inter,
        )
        self.cluster.start()
        self.url = self.cluster.url

    def node_pids(self) -> list[int]:
        return [n.proc.pid for n in self.cluster.nodes if n.proc is not None and n.alive()]

    def infra_pids(self) -> dict[str, list[int]]:
        h = self.cluster.haproxy
        out = {"haproxy": [h.pid] if h is not None and h.poll() is None else []}
        if self.redis_url:
            out["redis"] = [self._redis_pid] if self._redis_pid else pids_named("redis-server")
        return out

    def uses_postgres(self) -> bool:
        return True

    def close(self) -> None:
        self.cluster.close()


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench cluster``."""
    p = what.add_parser(
        "cluster",
        help="the server load over 1-3 nodes behind HAProxy, side by side with one process",
    )
    p.add_argument(
        "--configs",
        default="single,1,2,3",
        help="single (one process, SQLite), pg (one node on PostgreSQL, no Redis) and/or "
        "node counts",
    )
    p.add_argument("--steps", default="60,200", help="connected clients per step")
    p.add_argument("--rounds", type=int, default=1, help="repeats of every configuration")
    p.add_argument("--delay", type=float, default=1.0, help="seconds before each move")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--bots", type=int, default=3, help="bot seats per table (default: all but one)")
    p.add_argument("--loaders", type=int, default=1, help="load processes")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--window", type=float, default=12.0)
    p.add_argument(
        "--db",
        default=os.environ.get("DOMINO_TEST_POSTGRES"),
        help="PostgreSQL URL of the nodes (default: $DOMINO_TEST_POSTGRES)",
    )
    p.add_argument(
        "--redis",
        default=None,
        help="Redis URL of the nodes (default: a private redis-server for the run)",
    )
    p.add_argument(
        "--check-inter",
        default="2s",
        help="HAProxy's health-check interval (deploy/haproxy.cfg's default: 2s; each check "
        "is a request every node answers)",
    )
    p.add_argument("--json", type=Path, default=None, help="write the rows here")
    p.set_defaults(func=run_cluster_bench)


def parse_configs(text: str) -> list[str]:
    """``single,1,2,3`` → ``["single", "1", "2", "3"]``; bad items raise ``ValueError``."""
    out = []
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        if item not in ("single", "pg") and not (item.isdigit() and 1 <= int(item) <= 9):
            raise ValueError(f"a configuration is 'single', 'pg' or a node count 1-9, not {item!r}")
        out.append(item)
    if not out:
        raise ValueError("no configuration given")
    return out


def run_cluster_bench(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench cluster``."""
    try:
        configs = parse_configs(args.configs)
        steps = [int(x) for x in str(args.steps).split(",") if x.strip()]
    except ValueError as exc:
        print(f"domino bench cluster: {exc}", file=sys.stderr)
        return 2
    if any(c != "single" for c in configs) and not args.db:
        print(
            "domino bench cluster: the nodes need PostgreSQL: --db postgresql+asyncpg://... "
            "(or DOMINO_TEST_POSTGRES)",
            file=sys.stderr,
        )
        return 2
    raise_nofile()
    rows = asyncio.run(bench(args, configs, steps))
    summary = summarize(rows, configs, steps)
    print()
    print("\n".join(summary_lines(summary)))
    if args.json is not None:
        meta = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
        meta.pop("func", None)
        doc = {"args": meta, "rows": [asdict(r) for r in rows], "summary": summary}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


async def bench(args: argparse.Namespace, configs: list[str], steps: list[int]) -> list[Row]:
    """Every configuration, ``rounds`` times; the rows of every step."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="domino-bench-cluster-") as tmp:
        redis: PrivateRedis | None = None
        redis_url = args.redis
        try:
            if redis_url is None and any(c not in ("single", "pg") for c in configs):
                redis = PrivateRedis(Path(tmp) / "redis")
                await asyncio.to_thread(redis.start)
                redis_url = redis.url
            print(_header(), flush=True)
            for rnd in range(max(1, args.rounds)):
                for config in configs:
                    folder = Path(tmp) / f"{config}-{rnd}"
                    folder.mkdir()
                    target = await asyncio.to_thread(
                        _make_target, config, args.db, redis_url, redis, folder, args.check_inter
                    )
                    try:
                        rows += await _ramp(args, target, steps, rnd)
                    finally:
                        await asyncio.to_thread(target.close)
        finally:
            if redis is not None:
                redis.stop()
    return rows


def _make_target(
    config: str,
    db: str | None,
    redis_url: str | None,
    redis: PrivateRedis | None,
    folder: Path,
    check_inter: str,
) -> Target:
    if config == "single":
        return SingleTarget(folder)
    assert db is not None
    if config == "pg":
        return ClusterTarget(1, db, None, None, folder, check_inter)
    assert redis_url is not None
    return ClusterTarget(
        int(config), db, redis_url, redis.pid if redis else None, folder, check_inter
    )


async def _ramp(args: argparse.Namespace, target: Target, steps: list[int], rnd: int) -> list[Row]:
    per_group = args.seats - args.bots
    loaders: list[Loader] = []
    readers = []
    for i in range(max(1, args.loaders)):
        cmd = [sys.executable, "-m", "domino_bench.load", "--url", target.url]
        cmd += ["--delay", str(args.delay), "--seats", str(args.seats), "--bots", str(args.bots)]
        cmd += ["--seed", str(i + 1), "--gid-base", str(i * 1_000_000)]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=child_env()
        )
        loaders.append(Loader(proc))
        readers.append(asyncio.create_task(loaders[-1].read()))
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
            ready = await _wait_ready(loaders, groups * per_group, groups, timeout=60 + n * 0.1)
            if not ready:
                print(f"  ({target.name}, {n} clients: not all connected and seated in time)")
            await asyncio.sleep(args.warmup)
            row = await measure(loaders, target, args.window, rnd, n)
            rows.append(row)
            print(_line(row), flush=True)
            if row.p99 is None or not target.node_pids():
                print(f"  ({target.name}: no moves or no server; next configuration)")
                break
    finally:
        for ld in loaders:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await ld.send("stop")
        for ld in loaders:
            try:
                await asyncio.wait_for(ld.proc.wait(), 30)
            except TimeoutError:
                ld.proc.kill()
                await ld.proc.wait()
        for r in readers:
            r.cancel()
    return rows


async def measure(loaders: list[Loader], target: Target, window: float, rnd: int, step: int) -> Row:
    """One window: the clients' figures and every process's CPU."""
    for ld in loaders:
        ld.reset()
    nodes = target.node_pids()
    infra = target.infra_pids()
    pg_all = pids_named("postgres") if target.uses_postgres() else []
    r0 = await asyncio.to_thread(redis_counts, target.redis_url) if target.redis_url else None
    c0 = cpu_seconds(nodes)
    i0 = {k: cpu_seconds(v) for k, v in infra.items()}
    p0 = cpu_seconds(pg_all)
    l0 = sum(ld.last.get("cpu") or 0.0 for ld in loaders)
    t0 = time.monotonic()
    await asyncio.sleep(window)
    c1 = cpu_seconds(nodes)
    i1 = {k: cpu_seconds(v) for k, v in infra.items()}
    ours = await asyncio.to_thread(pg_backends, nodes) if target.uses_postgres() else []
    p1 = cpu_seconds(ours)
    dt = time.monotonic() - t0
    r1 = await asyncio.to_thread(redis_counts, target.redis_url) if target.redis_url else None
    l1 = sum(ld.last.get("cpu") or 0.0 for ld in loaders)
    lat = [x for ld in loaders for x in ld.lat]
    errors: dict[str, int] = {}
    for ld in loaders:
        for k, n in ld.errors.items():
            errors[k] = errors.get(k, 0) + n
        for k, n in ld.closes.items():
            errors[f"close {k}"] = errors.get(f"close {k}", 0) + n
    acked = sum(ld.acked for ld in loaders)
    node_cpu = cpu_between(c0, c1)

    def per(seconds: float) -> float | None:
        return 1000 * seconds / acked if acked else None

    row = Row(
        config=target.name,
        round=rnd,
        step=step,
        clients=sum(ld.last.get("connected", 0) for ld in loaders),
        matches=sum(ld.last.get("matches_live", 0) for ld in loaders),
        cmds_per_s=acked / dt,
        p50=percentile(lat, 0.50),
        p95=percentile(lat, 0.95),
        p99=percentile(lat, 0.99),
        nodes_cpu=100 * node_cpu / dt,
        errors=sum(errors.values()),
        error_kinds=errors,
        nodes_ms=per(node_cpu),
        loader_cpu=100 * (l1 - l0) / dt,
        loadavg=machine_load(),
    )
    total = node_cpu
    if "haproxy" in infra:
        cpu = cpu_between(i0["haproxy"], i1["haproxy"])
        row.haproxy_ms, total = per(cpu), total + cpu
    if "redis" in infra:
        cpu = cpu_between(i0["redis"], i1["redis"])
        row.redis_ms, total = per(cpu), total + cpu
    if target.uses_postgres():
        # Backends that started during the window count from zero (they were not in p0).
        cpu = sum(v - p0.get(pid, 0.0) for pid, v in p1.items())
        row.pg_ms, total = per(cpu), total + cpu
    row.all_ms = per(total)
    if r0 is not None and r1 is not None and acked:
        row.redis_cmds = (r1[0] - r0[0]) / acked
        row.redis_publish = (r1[1] - r0[1]) / acked
    return row


def config_name(config: str) -> str:
    """``single`` → ``single``, ``2`` → ``2 nodes``."""
    if config in ("single", "pg"):
        return config
    return f"{config} node{'s' if int(config) > 1 else ''}"


def knee(rows: list[Row]) -> Row | None:
    """The largest step with p99 under 100 ms and no errors."""
    good = [r for r in rows if r.p99 is not None and r.p99 < KNEE_P99_MS and r.errors == 0]
    return max(good, key=lambda r: r.clients) if good else None


def _median(values: list[float | None]) -> float | None:
    vs = [v for v in values if v is not None]
    return statistics.median(vs) if vs else None


def summarize(rows: list[Row], configs: list[str], steps: list[int]) -> dict[str, Any]:
    """Medians over the rounds per configuration and step, the ratios to the single
    process at the same step, and each configuration's knee (over all rounds: the
    largest step that was clean in every round)."""
    names = [config_name(c) for c in configs]
    out: dict[str, Any] = {"configs": {}, "target_ratio": CPU_TARGET_RATIO}
    for name in names:
        mine = [r for r in rows if r.config == name]
        per_step: list[dict[str, Any]] = []
        for n in steps:
            at = [r for r in mine if r.step == n]
            if not at:
                continue
            per_step.append(
                {
                    "step": n,
                    "rounds": len(at),
                    "clients": _median([float(r.clients) for r in at]),
                    "cmds_per_s": _median([r.cmds_per_s for r in at]),
                    "p50": _median([r.p50 for r in at]),
                    "p99": _median([r.p99 for r in at]),
                    "nodes_ms": _median([r.nodes_ms for r in at]),
                    "haproxy_ms": _median([r.haproxy_ms for r in at]),
                    "redis_ms": _median([r.redis_ms for r in at]),
                    "pg_ms": _median([r.pg_ms for r in at]),
                    "all_ms": _median([r.all_ms for r in at]),
                    "redis_cmds": _median([r.redis_cmds for r in at]),
                    "redis_publish": _median([r.redis_publish for r in at]),
                    "errors": sum(r.errors for r in at),
                    "clean": all(
                        r.p99 is not None and r.p99 < KNEE_P99_MS and r.errors == 0 for r in at
                    ),
                }
            )
        clean = [int(s["step"]) for s in per_step if s["clean"]]
        out["configs"][name] = {"steps": per_step, "knee": max(clean) if clean else None}
    single = out["configs"].get("single")
    if single is not None:
        base = {s["step"]: s for s in single["steps"]}
        for conf in out["configs"].values():
            for s in conf["steps"]:
                b = base.get(s["step"])
                for key in ("nodes_ms", "all_ms"):
                    ratio = None
                    if b is not None and s[key] is not None and b["nodes_ms"]:
                        ratio = s[key] / b["nodes_ms"]
                    s[f"{key}_ratio"] = ratio
                s["within_target"] = (
                    s["nodes_ms_ratio"] is not None and s["nodes_ms_ratio"] <= CPU_TARGET_RATIO
                )
    return out


def _f(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _header() -> str:
    return (
        f"{'config':<8} {'clients':>7} {'matches':>7} {'cmd/s':>6} {'p50':>6} {'p99 ms':>7}"
        f" {'nodes%':>6} {'nodes':>6} {'hapx':>5} {'redis':>5} {'pg':>5} {'all':>6}"
        f" {'R cmd':>6} {'R pub':>6} {'load':>5} errors   (CPU in ms per command)"
    )


def _line(r: Row) -> str:
    errs = f"{r.errors}" + (f" {r.error_kinds}" if r.errors else "")
    return (
        f"{r.config:<8} {r.clients:>7} {r.matches:>7} {r.cmds_per_s:>6.0f} {_f(r.p50, 1):>6}"
        f" {_f(r.p99, 1):>7} {r.nodes_cpu:>6.0f} {_f(r.nodes_ms):>6} {_f(r.haproxy_ms):>5}"
        f" {_f(r.redis_ms):>5} {_f(r.pg_ms):>5} {_f(r.all_ms):>6} {_f(r.redis_cmds):>6}"
        f" {_f(r.redis_publish):>6} {_f(r.loadavg, 1):>5} {errs}"
    )


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """The summary as printed: medians per step, ratios, knees."""
    out = [
        "Medians over the rounds; CPU ms per acknowledged command; ratio = this "
        "configuration's CPU per command / the single process's at the same step",
        f"{'config':<8} {'step':>5} {'p99 ms':>7} {'nodes':>6} {'ratio':>6} {'all':>6}"
        f" {'ratio':>6} {'R cmd':>6} {'R pub':>6}  within {CPU_TARGET_RATIO}x",
    ]
    for name, conf in summary["configs"].items():
        for s in conf["steps"]:
            within = s.get("within_target")
            out.append(
                f"{name:<8} {s['step']:>5} {_f(s['p99'], 1):>7} {_f(s['nodes_ms']):>6}"
                f" {_f(s.get('nodes_ms_ratio')):>6} {_f(s['all_ms']):>6}"
                f" {_f(s.get('all_ms_ratio')):>6} {_f(s['redis_cmds']):>6}"
                f" {_f(s['redis_publish']):>6}  {'-' if within is None else within}"
            )
    for name, conf in summary["configs"].items():
        k = conf["knee"]
        out.append(
            f"knee {name}: "
            + (f"{k} clients" if k is not None else "no step with p99 < 100 ms and 0 errors")
        )
    return out
