"""Meister's decision CPU per playout budget: ``python tools/meister_budget_cpu.py N``.

``N`` seat views with two or more candidates at random moments of seeded rounds (half 3
seats, half 4 seats *Paare*; ``domino_bench.benchhint.views``), each decided by Meister
with 600, 1,200 and 2,400 playouts; prints the CPU (``time.process_time``) p50, p99 and
maximum per budget (docs/bots.md, "Meister's budget").
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from domino.bots.meister import Meister
from domino_bench.benchhint import views


def main() -> None:
    vs = views(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
    for n in (600, 1200, 2400):
        ms = []
        for i, v in enumerate(vs):
            t0 = time.process_time()
            Meister(f"b/{i}", playouts=n).choose(v)
            ms.append(1000 * (time.process_time() - t0))
        ms.sort()

        def q(p: float, ms: list[float] = ms) -> float:
            return ms[min(len(ms) - 1, max(0, math.ceil(p * len(ms)) - 1))]

        print(
            f"playouts {n}: {len(ms)} views, CPU p50 {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, "
            f"max {ms[-1]:.1f} ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
