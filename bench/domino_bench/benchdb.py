"""Measure match-log appends: ``python -m domino_bench.benchdb [URL] [MATCHES] [ENTRIES]``.

Each of MATCHES simulated matches appends ENTRIES entries one at a time, all
concurrently (each with the fencing token of its claim, as a serving node does),
against a fresh SQLite file (or the database URL given); prints
appends per second and the latency percentiles a match waits per entry.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path

from domino.server.storage.db import Database


async def bench(url: str, matches: int, entries: int) -> str:
    """Run the measurement; return the result line."""
    prefix = f"b{uuid.uuid4().hex[:8]}_" if not url.startswith("sqlite") else ""
    db = Database(url, prefix)
    await db.create()
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    fences = []
    for m in range(matches):
        await db.create_match(f"m{m}", None, {}, seats, "s", 1.0, [{"v": 1}])
        fences.append(await db.claim(f"m{m}", "bench"))
    waits: list[float] = []

    async def play(m: int) -> None:
        for v in range(2, entries + 2):
            entry = {"v": v, "t": 1.0, "seat": 0, "kind": "bot", "payload": {"move": "6|2 L"}}
            t = time.perf_counter()
            await db.append(f"m{m}", v - 1, [entry], fences[m])
            waits.append(time.perf_counter() - t)

    t0 = time.perf_counter()
    await asyncio.gather(*(play(m) for m in range(matches)))
    elapsed = time.perf_counter() - t0
    if prefix:
        await db.drop()
    await db.close()
    waits.sort()
    n = len(waits)
    return (
        f"{matches} matches x {entries} appends: {n / elapsed:.0f} appends/s, "
        f"p50 {waits[n // 2] * 1000:.1f} ms, p99 {waits[int(n * 0.99)] * 1000:.1f} ms"
    )


def main(argv: list[str]) -> None:
    """Command-line entry point."""
    url = argv[0] if argv else ""
    matches = int(argv[1]) if len(argv) > 1 else 50
    entries = int(argv[2]) if len(argv) > 2 else 40
    with tempfile.TemporaryDirectory() as tmp:
        url = url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite'}"
        print(asyncio.run(bench(url, matches, entries)))


if __name__ == "__main__":
    main(sys.argv[1:])
