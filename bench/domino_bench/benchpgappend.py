"""What PostgreSQL's append path costs the node: asyncpg spoken directly (the server's
path, ``Database._commit_fenced``) against the same statements through SQLAlchemy,
side by side in one run, alternating.

Usage: ``python -m domino_bench.benchpgappend [ROUNDS] [MATCHES] [URL]`` (defaults: 5
rounds, 1 match; the machine's ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``).
MATCHES matches each append 60 entries one at a time, concurrently (1 match: every
append commits alone, as at a human pace; 100: group commits carry many). Prints
the node's CPU time per append (``time.process_time``) and appends per second,
medians over the rounds. Each run uses its own table prefix and drops its tables.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid
from typing import Any

from domino.server.desks.doors import StaleFence
from domino.server.storage.db import Database
from domino.server.storage.matchlog import _Append

URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


class ThroughSqlAlchemy(Database):
    """The store with its fenced commit through SQLAlchemy instead of asyncpg."""

    async def _commit_fenced(self, batch: list[_Append]) -> dict[int, StaleFence]:
        async with self._write() as conn:
            return await self._insert_fenced(conn, batch)


async def run(direct: bool, matches: int, url: str, entries: int = 60) -> tuple[float, float]:
    db = (Database if direct else ThroughSqlAlchemy)(url, "pb" + uuid.uuid4().hex[:6] + "_")
    await db.create()
    try:
        mids = [f"m{i}" for i in range(matches)]
        for m in mids:
            await db.create_match(m, None, {}, [], "s", 1.0, [])
        fences = {m: await db.claim(m, "bench") for m in mids}

        async def one(m: str) -> None:
            for i in range(entries):
                await db.append(m, i, [{"v": i, "move": "6|6L"}], fences[m])

        c0, w0 = time.process_time(), time.perf_counter()
        await asyncio.gather(*(one(m) for m in mids))
        c1, w1 = time.process_time(), time.perf_counter()
        n = matches * entries
        return (c1 - c0) / n * 1e6, n / (w1 - w0)
    finally:
        await db.drop()
        await db.close()


async def main(argv: list[str]) -> None:
    rounds = int(argv[0]) if argv else 5
    matches = int(argv[1]) if len(argv) > 1 else 1
    url = argv[2] if len(argv) > 2 else URL
    res: dict[bool, list[Any]] = {True: [], False: []}
    for _ in range(rounds):
        for direct in (False, True):
            res[direct].append(await run(direct, matches, url))
    for direct in (False, True):
        cpu = statistics.median(x[0] for x in res[direct])
        rate = statistics.median(x[1] for x in res[direct])
        name = "asyncpg direct" if direct else "SQLAlchemy"
        print(f"{name:15} CPU per append {cpu:7.1f} us   appends/s {rate:7.0f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
