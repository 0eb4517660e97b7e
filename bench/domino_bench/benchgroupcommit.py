"""The event loop's CPU per match-log entry on SQLite, by the size of the group commit.

Usage: ``python -m domino_bench.benchgroupcommit [ENTRIES] [SIZES]`` (defaults: 4,000
entries per size; sizes ``1,4,16,64,256``). For each size, that many appends of one entry
each (to as many matches) are started together and awaited, so one commit carries them
(``MatchLog``'s group commit), until about ENTRIES entries are stored; prints the CPU per
entry (``time.process_time`` of the process: the appends run on the event loop's thread).
A fresh SQLite database in a temporary folder, through ``Database.append`` of the tree on
the path (docs/performance.md, "8,000 clients on one machine").
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from domino.server.storage.db import Database

ENTRY = {"kind": "move", "seat": 1, "move": "6|2 L", "t": 12.5, "auto": False, "v": 17}
MATCHES = 400


async def run(entries: int, sizes: list[int]) -> list[tuple[int, int, float]]:
    """``(size, commits, µs of CPU per entry)`` for each size."""
    out: list[tuple[int, int, float]] = []
    with tempfile.TemporaryDirectory(prefix="domino-groupcommit-") as tmp:
        db = Database(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite'}")
        await db.create()
        try:
            for i in range(MATCHES):
                await db.create_match(f"m{i}", None, {}, [], "s", 0.0, [{"kind": "start"}])
            idx = [1] * MATCHES
            for size in sizes:
                commits = max(entries // size, 20)
                began = time.process_time()
                for c in range(commits):
                    appends = []
                    for j in range(size):
                        m = (c * size + j) % MATCHES
                        appends.append(db.append(f"m{m}", idx[m], [dict(ENTRY)]))
                        idx[m] += 1
                    await asyncio.gather(*appends)
                cpu = time.process_time() - began
                out.append((size, commits, cpu / (commits * size) * 1e6))
        finally:
            await db.close()
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    entries = int(args[0]) if args else 4000
    sizes = [int(s) for s in args[1].split(",")] if len(args) > 1 else [1, 4, 16, 64, 256]
    for size, commits, us in asyncio.run(run(entries, sizes)):
        print(f"{size:4d} entries per commit: {us:6.1f} µs CPU per entry ({commits} commits)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
