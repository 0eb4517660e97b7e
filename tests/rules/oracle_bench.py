"""Before and after the rules kernel, side by side in one process (not a test).

Run from the worktree: ``.venv/bin/python tests/rules/oracle_bench.py``. The
anchor workload of ``domino bench engine`` (4 seats, Paare, dealing
included) through the public RoundState API of today and of the frozen
pre-kernel engine (``oracle_round.py``), plus today's kernel path and PyPI
``dominoes``; CPU time per round (``time.process_time``, so time spent
descheduled on a shared machine does not count), median of 5 interleaved
repeats after warming up every cache.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import oracle_round

from domino.cli.bench import dominoes_rounds
from domino.rules import RoundState, Rules, shuffled_deal
from domino.rules.playout import pick, random_round

RULES = Rules(seats=4, pairs=True)


def _api(
    cls: type[RoundState] | type[oracle_round.RoundState],
) -> Callable[[int, random.Random], None]:
    def work(n: int, rng: random.Random) -> None:
        for _ in range(n):
            r = cls.start(RULES, shuffled_deal(RULES, rng=rng), validate=False)
            while r.result is None:
                r.apply(pick(r.legal_moves(), rng))

    return work


def _kernel(n: int, rng: random.Random) -> None:
    for _ in range(n):
        random_round(RULES, rng)


def main() -> None:
    works: dict[str, Callable[[int, random.Random], None]] = {
        "api (kernel)": _api(RoundState),
        "api (before)": _api(oracle_round.RoundState),
        "kernel": _kernel,
    }
    d = dominoes_rounds()
    if d is not None:
        works["dominoes"] = d
    rng = random.Random(1)
    for w in works.values():
        w(2000, rng)  # warm up
    size = {"dominoes": 800}
    rates: dict[str, list[float]] = {k: [] for k in works}
    for _ in range(5):
        for k, w in works.items():
            n = size.get(k, 3000)
            t = time.process_time()
            w(n, rng)
            rates[k].append((time.process_time() - t) / n * 1e6)
    med = {k: statistics.median(v) for k, v in rates.items()}
    for k, v in med.items():
        print(f"  {k:<14} {v:7.1f} µs CPU per round")
    print(f"  api: before / kernel = {med['api (before)'] / med['api (kernel)']:.2f}x")
    if "dominoes" in med:
        for k in ("api (kernel)", "api (before)", "kernel"):
            print(f"  {k} / dominoes = {med['dominoes'] / med[k]:.2f}x")


if __name__ == "__main__":
    main()
