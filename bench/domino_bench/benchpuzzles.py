"""``domino bench puzzles``: how many puzzles one batch of analysed matches gives
(docs/puzzles.md, docs/performance.md).

``--matches`` whole matches to 100 points (2, 3 and 4 seats in turn; the seats played by
Anfänger, Fortgeschritten, Anfänger and Profi bots, seeded, every seat recorded as human
so every move is judged), each analysed as the server does (``--samples`` sampled deals
per decision) and then put through the puzzles' selection
(:func:`domino.analysis.puzzles.select`, the server's thresholds). Printed: judged
moves, candidates (Patzer) and puzzles per match, why the others were rejected, and the
CPU of the selection per candidate and per match (``time.process_time``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from domino.analysis import review
from domino.analysis.puzzles import MIN_LEAD, MIN_SHARE, RESCORE_SAMPLES, RESCORES, select
from domino.bots import make_bot
from domino.rules import MatchState, Rules, view
from domino.rules.record import record_of

LEVELS = ("anfaenger", "fortgeschritten", "anfaenger", "profi")


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench puzzles``."""
    p = what.add_parser("puzzles", help="puzzles built per analysed match")
    p.add_argument("--matches", type=int, default=12, help="matches to 100 points")
    p.add_argument("--samples", type=int, default=200, help="the analysis' samples")
    p.set_defaults(func=run)


def match_record(seats: int, seed: str) -> dict[str, Any]:
    """A whole match to 100 points of mixed bots, every seat recorded as human."""
    m = MatchState(Rules(seats=seats, target=100), seed=seed)
    bots = [make_bot(LEVELS[i], f"{seed}/{i}") for i in range(seats)]
    while not m.over:
        if m.round.over:
            m.start_round()
            continue
        s = m.round.turn
        m.apply(bots[s].choose(view(m, s)), s)
    return record_of(m, seats=[{"name": f"P{i}", "kind": "human"} for i in range(seats)])


def run(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench puzzles``."""
    judged: list[int] = []
    cands: list[int] = []
    passed: list[int] = []
    cpu: list[float] = []
    rejected: dict[str, int] = {}
    by_seats: dict[int, list[int]] = {}
    for i in range(args.matches):
        seats = (2, 3, 4)[i % 3]
        mid = f"bench-puzzles-{i}"
        record = match_record(seats, mid)
        analysis = review(record, samples=args.samples, seed=mid, hindsight=False)
        t0 = time.process_time()
        out = select(mid, record, analysis)
        cpu.append(time.process_time() - t0)
        judged.append(sum(1 for m in analysis["moves"] if not m["forced"]))
        cands.append(out.candidates)
        passed.append(len(out.puzzles))
        row = by_seats.setdefault(seats, [0, 0, 0])
        row[0] += 1
        row[1] += out.candidates
        row[2] += len(out.puzzles)
        for why, n in out.rejected.items():
            rejected[why] = rejected.get(why, 0) + n
    total_c, total_p = sum(cands), sum(passed)
    print(
        f"puzzles from {args.matches} analysed matches to 100 ({args.samples} samples; "
        f"re-scored {RESCORES} x {RESCORE_SAMPLES}, lead >= {MIN_LEAD}, share >= {MIN_SHARE}):"
    )
    print(
        f"  judged moves {sum(judged)}, candidates (Patzer) {total_c}, puzzles {total_p} "
        f"({100 * total_p / max(1, total_c):.0f} % pass); per match: candidates median "
        f"{statistics.median(cands):.0f}, puzzles median {statistics.median(passed):.0f}, "
        f"mean {total_p / max(1, args.matches):.1f}"
    )
    print("  rejected: " + ", ".join(f"{k} {v}" for k, v in sorted(rejected.items())))
    for seats, (n, c, p) in sorted(by_seats.items()):
        print(f"  {seats} seats: {n} matches, {c} candidates, {p} puzzles")
    print(
        f"  selection CPU: {sum(cpu) / max(1, total_c) * 1000:.0f} ms per candidate, "
        f"median {statistics.median(cpu):.2f} s per match"
    )
    return 0
