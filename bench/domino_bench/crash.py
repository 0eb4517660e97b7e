"""The crash test: SIGKILL the server under load, restart it, and prove nothing is lost.

``domino bench crash [--kills 5]`` (and ``make crash``) starts the server
(:mod:`.serve` with fast table timing, SQLite in a temporary folder), seats
groups of simulated people at tables of 2, 3 and 4 seats (some with a bot)
playing fast, and kills the server with SIGKILL at random moments. After
each kill it starts the server again on the same database; the clients
reconnect with their tokens, get their seat's snapshot and re-send the move
they had not seen answered, unchanged. After the last kill every table
finishes the match it is in, the server stops, and the stored database is
checked:

1. every move any client saw acknowledged is in the stored log, at the
   version it was made on plus one, by that seat, with that move;
2. every move in the log was sent by a client for exactly that version
   (so nothing was applied twice: a second application would need a second
   version);
3. every match that was started is finished with reason ``target`` or
   ``rounds`` (not abandoned, not left running);
4. replaying each stored log (:meth:`domino.table.Table.restore`) gives the
   stored points and XP, and each profile's XP is the sum of its matches'.

It prints kills survived, commands acknowledged and commands lost (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from domino.rules import Rules
from domino.table import SeatSpec, Table

from .client import ClientConfig, Group, Journal, Stats, TableSpec
from .launcher import ServerProcess
from .procstat import raise_nofile

#: How long the tables get to finish after the last kill (seconds).
FINISH_TIMEOUT = 240.0
#: The rules every crash-test table plays: short matches (Zielpunkte 30).
CRASH_RULES: dict[str, Any] = {"target": 30}


@dataclass
class CrashReport:
    """What the crash test found."""

    kills: int = 0
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)
    replay_mismatch: list[str] = field(default_factory=list)
    xp_mismatch: list[str] = field(default_factory=list)
    matches: int = 0
    moves_logged: int = 0
    sent: int = 0
    resent: int = 0
    resent_refused: int = 0
    client_errors: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Nothing lost, nothing applied twice, everything finished and consistent."""
        return not (
            self.lost
            or self.unexplained
            or self.unfinished
            or self.replay_mismatch
            or self.xp_mismatch
        )

    def lines(self) -> list[str]:
        """The report as printed."""
        out = [
            f"kills survived:          {self.kills}",
            f"matches played:          {self.matches}",
            f"moves sent:              {self.sent} (unanswered at a kill and re-sent: "
            f"{self.resent}, of which refused as already applied or overtaken: "
            f"{self.resent_refused})",
            f"commands acknowledged:   {self.acknowledged}",
            f"commands lost:           {len(self.lost)}",
            f"moves in the log:        {self.moves_logged}",
            f"applied without a command or twice: {len(self.unexplained)}",
            f"matches not finished normally: {len(self.unfinished)}",
            f"replay disagrees (points/XP): {len(self.replay_mismatch)}",
            f"profile XP disagrees:    {len(self.xp_mismatch)}",
        ]
        if self.client_errors:
            out.append(f"errors the clients saw:  {self.client_errors}")
        for name in ("lost", "unexplained", "unfinished", "replay_mismatch", "xp_mismatch"):
            for item in getattr(self, name)[:5]:
                out.append(f"  {name}: {item}")
        out.append("OK" if self.ok else "FAILED")
        return out


def table_specs(groups: int) -> list[TableSpec]:
    """Tables of 2, 3 and 4 seats in turn; every third one has a bot."""
    specs = []
    for i in range(groups):
        seats = (2, 3, 4)[i % 3]
        bots = 1 if i % 3 == 2 else 0
        specs.append(TableSpec(seats=seats, bots=bots, bot_level="anfaenger", rules=CRASH_RULES))
    return specs


async def run_crash(
    *,
    kills: int,
    groups: int,
    delay: float,
    data: Path,
    seed: int,
    gap: tuple[float, float],
    log: Path | None = None,
    say: Any = print,
    server_args: list[str] | None = None,
) -> CrashReport:
    """Play, kill, restart, finish; then check the database (see the module docstring)."""
    raise_nofile()
    rng = random.Random(seed)
    server = ServerProcess(data, pace="fast", log=log, extra=server_args)
    journal = Journal()
    stats = Stats()
    cfg = ClientConfig(server.url, delay=delay, jitter=delay, reconnect=True)
    tables = [
        Group(i, spec, cfg, stats, random.Random(rng.random()), journal)
        for i, spec in enumerate(table_specs(groups))
    ]
    report = CrashReport()
    gate = asyncio.Semaphore(16)
    try:
        await asyncio.to_thread(server.start)
        async with httpx.AsyncClient(timeout=30) as http:
            await asyncio.gather(*(g.connect(http, gate) for g in tables))
        plays = [asyncio.create_task(g.play()) for g in tables]
        for k in range(kills):
            await asyncio.sleep(rng.uniform(*gap))
            server.kill()
            report.kills += 1
            say(f"kill {k + 1}: SIGKILL at {time.strftime('%H:%M:%S')}, {len(journal.sent)} sent")
            await asyncio.to_thread(server.start)
        for g in tables:
            g.stopping = True  # finish the match in progress, start no new one
        done, pending = await asyncio.wait(plays, timeout=FINISH_TIMEOUT)
        for t in pending:
            t.cancel()
            report.unfinished.append("a table did not finish its match in time")
        for t in done:
            if t.exception() is not None:
                report.unfinished.append(f"a table failed: {t.exception()!r}")
    finally:
        await asyncio.gather(*(g.close() for g in tables), return_exceptions=True)
        await asyncio.to_thread(server.stop)
    report.client_errors = dict(stats.errors)
    check(data / "domino.sqlite", journal, report)
    return report


def check(db: Path, journal: Journal, report: CrashReport) -> None:
    """Compare the stored database with what the clients saw (see the module docstring)."""
    con = sqlite3.connect(db)
    try:
        _check(con, journal, report)
    finally:
        con.close()


def _check(con: sqlite3.Connection, journal: Journal, report: CrashReport) -> None:
    logs: dict[str, list[dict[str, Any]]] = {}
    # Every stored match, also one whose start no client heard of before a kill.
    stored_ids = {r[0] for r in con.execute("SELECT id FROM matches")}
    for mid in sorted(journal.matches | stored_ids):
        rows = con.execute(
            "SELECT idx, entry FROM match_log WHERE match_id = ? ORDER BY idx", (mid,)
        ).fetchall()
        entries = [json.loads(e) for _, e in rows]
        if [i for i, _ in rows] != list(range(len(rows))) or any(
            e.get("v") != i + 1 for i, e in enumerate(entries)
        ):
            report.replay_mismatch.append(f"{mid}: the log has gaps or wrong versions")
        logs[mid] = entries
    report.matches = len(logs)
    report.sent = len(journal.sent)
    report.resent = sum(1 for s in journal.sent if s.resent)
    report.resent_refused = journal.refused.get("resent_stale", 0)
    # 1. every acknowledged move is stored where it belongs
    by_key: dict[tuple[str, int, int, str], int] = {}
    for s in journal.sent:
        key = (s.match, s.seat, s.v, s.move)
        by_key[key] = by_key.get(key, 0) + 1
        if s.ref not in journal.acked:
            continue
        report.acknowledged += 1
        log = logs.get(s.match, [])
        e = log[s.v] if s.v < len(log) else None
        ok = (
            e is not None
            and e["kind"] == "move"
            and e["seat"] == s.seat
            and e["payload"].get("move") == s.move
        )
        if not ok:
            report.lost.append(f"{s.match} v{s.v} seat {s.seat} {s.move}: stored {e}")
    # 2. every stored human move answers exactly one command sent for that version
    for mid, log in logs.items():
        for e in log:
            if e["kind"] != "move":
                continue
            report.moves_logged += 1
            if by_key.get((mid, e["seat"], e["v"] - 1, e["payload"]["move"]), 0) < 1:
                report.unexplained.append(f"{mid} v{e['v']}: {e}")
    # 3. and 4. finished normally; replay agrees with the stored result and XP
    xp_of: dict[str, int] = {}
    for mid, log in logs.items():
        row = con.execute(
            "SELECT status, rules, seats, seed, result FROM matches WHERE id = ?", (mid,)
        ).fetchone()
        if row is None:
            report.unfinished.append(f"{mid}: not stored")
            continue
        status, rules, seats, seed, result = row
        result = json.loads(result) if result else None
        normal = result is not None and result.get("reason") in ("target", "rounds")
        if status != "finished" or result is None or not normal:
            report.unfinished.append(f"{mid}: {status}, {result and result.get('reason')}")
            continue
        specs = [SeatSpec.from_dict(d) for d in json.loads(seats)]
        try:
            table = Table.restore(mid, Rules.from_dict(json.loads(rules)), specs, seed, log, 0.0)
        except ValueError as exc:
            report.replay_mismatch.append(f"{mid}: {exc}")
            continue
        snap = table.snapshot(None, 0.0)
        if not table.finished or table.xp != result.get("xp"):
            report.replay_mismatch.append(f"{mid}: xp {table.xp} stored {result.get('xp')}")
        if snap["standings"] != result.get("standings"):
            report.replay_mismatch.append(f"{mid}: standings differ")
        for seat, pid, xp in con.execute(
            "SELECT seat, profile_id, xp FROM match_players WHERE match_id = ?", (mid,)
        ):
            want = (table.xp or [None] * len(specs))[seat] or 0
            if table.seats[seat].left:
                want = 0
            if xp != want:
                report.xp_mismatch.append(f"{mid} seat {seat}: stored {xp}, replay {want}")
            xp_of[pid] = xp_of.get(pid, 0) + want
    for pid in journal.players:
        row = con.execute("SELECT xp FROM profiles WHERE id = ?", (pid,)).fetchone()
        stored = row[0] if row else None
        if stored != xp_of.get(pid, 0):
            report.xp_mismatch.append(f"profile {pid}: {stored} XP, matches sum {xp_of.get(pid)}")


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench crash``."""
    p = what.add_parser("crash", help="SIGKILL the server under load; check nothing is lost")
    p.add_argument("--kills", type=int, default=5)
    p.add_argument("--groups", type=int, default=12, help="tables (2, 3, 4 seats in turn)")
    p.add_argument("--delay", type=float, default=0.03, help="seconds before each move (+jitter)")
    p.add_argument("--gap", default="1.5,4", help="MIN,MAX seconds between kills")
    p.add_argument("--seed", type=int, default=None, help="seed of the kill moments")
    p.add_argument("--data", type=Path, default=None, help="database folder (default: temporary)")
    p.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="extra argument for the server process (python -m domino_bench.serve --help)",
    )
    p.set_defaults(func=run_crash_cli)


def run_crash_cli(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench crash``: 0 when nothing was lost."""
    lo, _, hi = str(args.gap).partition(",")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    print(f"crash test: {args.kills} kills, {args.groups} tables, seed {seed}")
    with tempfile.TemporaryDirectory(prefix="domino-crash-") as tmp:
        data = args.data or Path(tmp) / "data"
        report = asyncio.run(
            run_crash(
                kills=args.kills,
                groups=args.groups,
                delay=args.delay,
                data=data,
                seed=seed,
                gap=(float(lo), float(hi or lo)),
                log=Path(tmp) / "server.log",
                server_args=args.server_arg,
            )
        )
    print("\n".join(report.lines()))
    return 0 if report.ok else 1
