"""The node's CPU per match-log append at a human pace on PostgreSQL: one match, one
append at a time (each commits alone), through ``Database.append`` of the tree on the
path.

Usage: ``python -m domino_bench.benchappendcpu [APPENDS] [URL]`` (defaults: 500 appends
per round, five rounds after 200 to warm up; the machine's
``postgresql+asyncpg://postgres@127.0.0.1:5432/test``). Prints each round and the
median CPU per append (``time.process_time``). To compare two trees side by side,
alternate runs with ``PYTHONPATH=TREE/src`` (docs/performance.md, "Storage"). Uses its
own table prefix and drops its tables.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
import uuid

from domino.server.storage.db import Database

URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


async def main(n: int, url: str) -> None:
    db = Database(url, "pa" + uuid.uuid4().hex[:6] + "_")
    await db.create()
    try:
        await db.create_match("m1", None, {}, [], "s", 1.0, [{"v": 0}])
        fence = await db.claim("m1", "bench")
        idx = 1
        for _ in range(200):  # warm up: the pool, the prepared statement
            await db.append("m1", idx, [{"v": idx}], fence)
            idx += 1
        cpus = []
        for r in range(5):
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(n):
                await db.append("m1", idx, [{"v": idx, "move": "6|6L"}], fence)
                idx += 1
            cpus.append((time.process_time() - c0) / n * 1e6)
            rate = n / (time.perf_counter() - w0)
            print(f"round {r}: {cpus[-1]:.0f} us CPU per append, {rate:.0f} appends/s")
        print(f"median {statistics.median(cpus):.0f} us CPU per append")
    finally:
        await db.drop()
        await db.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    asyncio.run(main(int(args[0]) if args else 500, args[1] if len(args) > 1 else URL))
