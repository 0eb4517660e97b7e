"""``domino bench leaderboard``: the *Rangliste* answered from its index (issue 23).

Fills a fresh table prefix of a PostgreSQL database with ``--profiles`` accounts rated
in one pool (ratings around 1500, matches and last activity spread so that some are not
listed), builds the board once (timed apart: it is built at most once a minute per
pool), then asks the leaderboard as the REST endpoint does, one request after the
other: a page of the top 100 and a random listed asker's own place with its neighbours
(:class:`domino.server.desks.board.Board`).
Prints the latency percentiles of a request and the CPU it cost: this process's (the
server's Python) and PostgreSQL's backends' (read from ``/proc`` for the connections of
the pool), per request. The tables are dropped at the end (``--keep`` keeps them).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
import uuid
from typing import Any

import sqlalchemy as sa

from domino.server.desks.board import Board
from domino.server.settings import Settings
from domino.server.storage.db import Database
from domino.server.storage.ratings import ACTIVE_DAYS, BOARD_MIN_MATCHES, DAY
from domino_bench.procstat import sample

BATCH = 5000


async def fill(db: Database, profiles: int, now: float, rng: random.Random) -> list[str]:
    """``profiles`` accounts rated in pool ``2``; returns the ids of the listed ones."""
    listed = []
    async with db.engine.begin() as conn:
        for start in range(0, profiles, BATCH):
            people, ratings = [], []
            for i in range(start, min(profiles, start + BATCH)):
                pid = f"p_{i:07d}"
                matches = rng.randint(1, 80)
                last = now - rng.uniform(0, 2 * ACTIVE_DAYS) * DAY
                people.append(
                    {
                        "id": pid,
                        "name": f"Spieler {i}",
                        "name_key": f"spieler {i}",
                        "kind": "account",
                        "password_hash": None,
                        "xp": 0,
                        "played": matches,
                        "won": 0,
                        "created_at": now,
                    }
                )
                rating = round(rng.gauss(1500, 220))
                ratings.append(
                    {
                        "profile_id": pid,
                        "pool": "2",
                        "mu": rating / 60,
                        "sigma": 2.0,
                        "rating": rating,
                        "matches": matches,
                        "wins": matches // 2,
                        "last_at": last,
                    }
                )
                if matches >= BOARD_MIN_MATCHES and last >= now - ACTIVE_DAYS * DAY:
                    listed.append(pid)
            await conn.execute(db.t.profiles.insert(), people)
            await conn.execute(db.t.ratings.insert(), ratings)
    # What autovacuum does to a table that has changed: statistics, and the visibility map
    # that lets the board's counts read the index alone.
    async with db.engine.connect() as conn:
        auto = await conn.execution_options(isolation_level="AUTOCOMMIT")
        for table in (db.t.ratings, db.t.profiles):
            await auto.execute(sa.text(f'VACUUM ANALYZE "{table.name}"'))
    return listed


async def backends(db: Database, n: int) -> set[int]:
    """The PostgreSQL backend pids of the engine's pool (all ``n`` connections held at
    once, so each is a different one)."""
    pids: set[int] = set()
    hold = asyncio.Event()

    async def one() -> None:
        async with db.engine.connect() as conn:
            pids.add(int(await conn.scalar(sa.text("SELECT pg_backend_pid()")) or 0))
            await hold.wait()

    tasks = [asyncio.create_task(one()) for _ in range(n)]
    while len(pids) < n and not all(t.done() for t in tasks):
        await asyncio.sleep(0.01)
    hold.set()
    await asyncio.gather(*tasks)
    return pids


def cpu(pids: set[int]) -> float:
    return sum(s.cpu for p in pids if (s := sample(p)) is not None)


async def measure(url: str, profiles: int, requests: int, keep: bool, seed: int) -> dict[str, Any]:
    prefix = f"bb{uuid.uuid4().hex[:8]}_"
    db = Database(url, prefix)
    await db.create()
    rng = random.Random(seed)
    try:
        settings = Settings()
        now = settings.clock.now()
        t0 = time.perf_counter()
        listed = await fill(db, profiles, now, rng)
        filled = time.perf_counter() - t0
        board = Board(settings, db)
        b0, c0 = time.perf_counter(), time.process_time()
        await db.build_board("2", now)
        build_s, build_cpu = time.perf_counter() - b0, time.process_time() - c0
        cursors = [None, "50"]  # the two pages of the top 100
        for _ in range(50):  # warm the pool and the caches
            await board.leaderboard("2", rng.choice(cursors), rng.choice(listed))
        pids = await backends(db, 10)
        waits = []
        pg0, me0 = cpu(pids), time.process_time()
        for _ in range(requests):
            after, asker = rng.choice(cursors), rng.choice(listed)
            t = time.perf_counter()
            await board.leaderboard("2", after, asker)
            waits.append(time.perf_counter() - t)
        pg, me = cpu(pids) - pg0, time.process_time() - me0
        waits.sort()
        return {
            "profiles": profiles,
            "listed": len(listed),
            "fill_s": filled,
            "build_ms": build_s * 1000,
            "build_cpu_ms": build_cpu * 1000,
            "requests": requests,
            "p50_ms": statistics.median(waits) * 1000,
            "p99_ms": waits[int(0.99 * (len(waits) - 1))] * 1000,
            "max_ms": waits[-1] * 1000,
            "cpu_python_ms": me / requests * 1000,
            "cpu_postgres_ms": pg / requests * 1000,
        }
    finally:
        if not keep:
            await db.drop()
        await db.close()


def run(args: argparse.Namespace) -> int:
    url = args.db or os.environ.get("DOMINO_TEST_POSTGRES")
    if not url or url.startswith("sqlite"):
        print("domino bench leaderboard needs PostgreSQL: --db postgresql+asyncpg://...")
        return 2
    r = asyncio.run(measure(url, args.profiles, args.requests, args.keep, args.seed))
    print(
        f"leaderboard: {r['profiles']:,} rated profiles ({r['listed']:,} listed), "
        f"{r['requests']:,} requests (a page and the asker's place with neighbours)\n"
        f"  latency p50 {r['p50_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms, max {r['max_ms']:.2f} ms\n"
        f"  CPU per request: {r['cpu_python_ms']:.2f} ms Python, "
        f"{r['cpu_postgres_ms']:.2f} ms PostgreSQL (filled in {r['fill_s']:.0f} s)\n"
        f"  building the board (once a minute per pool at most): {r['build_ms']:.0f} ms"
    )
    return 0 if r["p99_ms"] <= args.target else 1


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench leaderboard``."""
    p = what.add_parser("leaderboard", help="the leaderboard from its index (PostgreSQL)")
    p.add_argument("--db", default=None, help="PostgreSQL URL (default DOMINO_TEST_POSTGRES)")
    p.add_argument("--profiles", type=int, default=100_000)
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--target", type=float, default=20.0, help="p99 bound in ms (exit 1 above)")
    p.add_argument("--keep", action="store_true", help="keep the tables")
    p.set_defaults(func=run)


__all__ = ["measure", "register"]
