"""What the fencing token costs an append: the store of a git revision before the fence
against the current one, side by side in one run.

Usage: ``python -m domino_bench.benchfence [REV] [ROUNDS] [MATCHES] [ENTRIES] [URL]``
(defaults: ``363fa66``, the last commit without a fence; 3 rounds; 50 matches; 40
entries; a fresh SQLite file per run). Each round runs the same workload as
``python -m domino_bench.benchdb`` (MATCHES matches appending ENTRIES entries one
at a time, concurrently) once with each store, alternating, and prints appends per
second and the latency percentiles of both. With a PostgreSQL URL each run uses
its own table prefix and drops its tables.
"""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

from . import CHECKOUT

ROOT = CHECKOUT


#: Where the store was at a revision: storage/ since the server's split into folders.
DB_PATHS = ("src/domino/server/storage/db.py", "src/domino/server/db.py")


def _old_db(rev: str, tmp: Path) -> ModuleType:
    for where in DB_PATHS:
        shown = subprocess.run(
            ["git", "show", f"{rev}:{where}"], cwd=ROOT, capture_output=True, text=True
        )
        if shown.returncode == 0:
            break
    shown.check_returncode()
    text = shown.stdout
    path = tmp / "old_db.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("old_db", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["old_db"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


async def _run(
    db_class: Any, url: str, matches: int, entries: int
) -> tuple[float, float, list[float]]:
    prefix = "" if url.startswith("sqlite") else f"f{uuid.uuid4().hex[:8]}_"
    db = db_class(url, prefix)
    await db.create()
    seats = [{"kind": "bot", "name": "B", "level": "profi", "player_id": None}]
    fenced = hasattr(db, "claim")
    fences = []
    for m in range(matches):
        await db.create_match(f"m{m}", None, {}, seats, "s", 1.0, [{"v": 1}])
        fences.append(await db.claim(f"m{m}", "bench") if fenced else 0)
    waits: list[float] = []

    async def play(m: int) -> None:
        for v in range(2, entries + 2):
            entry = {"v": v, "t": 1.0, "seat": 0, "kind": "bot", "payload": {"move": "6|2 L"}}
            t = time.perf_counter()
            if fenced:
                await db.append(f"m{m}", v - 1, [entry], fences[m])
            else:
                await db.append(f"m{m}", v - 1, [entry])
            waits.append(time.perf_counter() - t)

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(play(m) for m in range(matches)))
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if prefix:
        await db.drop()
    await db.close()
    return len(waits) / elapsed, cpu / len(waits), sorted(waits)


def main(argv: list[str]) -> None:
    """Command-line entry point."""
    rev = argv[0] if argv else "363fa66"
    rounds = int(argv[1]) if len(argv) > 1 else 3
    matches = int(argv[2]) if len(argv) > 2 else 50
    entries = int(argv[3]) if len(argv) > 3 else 40
    given = argv[4] if len(argv) > 4 else None
    sys.path.insert(0, str(ROOT / "src"))
    from domino.server.storage.db import Database

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        stores = {f"before ({rev})": _old_db(rev, tmp).Database, "fenced": Database}
        results: dict[str, list[tuple[float, float, list[float]]]] = {k: [] for k in stores}
        for r in range(rounds):
            for name, cls in stores.items():
                url = given or f"sqlite+aiosqlite:///{tmp / f'{r}-{name[:6]}.sqlite'}"
                results[name].append(asyncio.run(_run(cls, url, matches, entries)))
        for name, runs in results.items():
            rates = ", ".join(f"{rate:.0f}" for rate, _, _ in runs)
            cpu = sorted(c for _, c, _ in runs)[len(runs) // 2]
            waits = sorted(w for _, _, ws in runs for w in ws)
            p50, p99 = waits[len(waits) // 2], waits[int(len(waits) * 0.99)]
            print(
                f"{name:>18}: appends/s per round {rates}; median CPU {cpu * 1e6:.1f} µs per "
                f"append; p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
