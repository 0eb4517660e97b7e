"""``domino arena``: matches between bot levels, measured.

Seats rotate between the levels from match to match, and every deal is
played twice with the levels' seats swapped (duplicate format), so no level
profits from its position or from luck of the deal. Everything except the
decision times is reproducible from ``--seed``.

Ties: a match whose first place is shared by both levels counts half a win
for each (the tie count is printed separately).

Besides the bot levels, ``openspiel-ismcts`` seats OpenSpiel's IS-MCTS on the game
``python_domino`` (:mod:`domino.openspiel`; needs the extra ``.[openspiel]``) with
``--simulations`` searches per decision.

Decision times are taken twice around each ``choose`` call: wall clock (what a
player waits, inflated when the machine is busy) and the thread's CPU time
(the work the decision takes, nearly independent of other load).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from domino.bots import LEVELS, Bot, make_bot
from domino.rules import MatchState, Mode, Rules, view


@dataclass
class LevelStats:
    """What the arena counts for one level."""

    level: str
    wins: float = 0.0  # ties count 0.5
    ties: int = 0
    points: float = 0.0  # sum over matches of the level's mean points per side
    rounds_won: int = 0
    times_ns: list[int] = field(default_factory=list)  # wall clock per decision
    cpu_ns: list[int] = field(default_factory=list)  # CPU time of this thread per decision


@dataclass
class ArenaResult:
    """The outcome of :func:`play_arena`."""

    rules: Rules
    levels: tuple[str, str]
    matches: int
    rounds: int
    stats: dict[str, LevelStats]

    def summary(self) -> dict[str, Any]:
        """JSON-ready figures per level."""
        out: dict[str, Any] = {
            "rules": self.rules.to_dict(),
            "levels": list(self.levels),
            "matches": self.matches,
            "rounds": self.rounds,
            "per_level": {},
        }
        for lv, st in self.stats.items():
            lo, hi = wilson(st.wins, self.matches)
            out["per_level"][lv] = {
                "win_rate": st.wins / self.matches if self.matches else 0.0,
                "ci95": [lo, hi],
                "wins": st.wins,
                "ties": st.ties,
                "avg_points": st.points / self.matches if self.matches else 0.0,
                "rounds_won": st.rounds_won,
                "decisions": len(st.times_ns),
                "time_median_ms": percentile(st.times_ns, 50) / 1e6,
                "time_p99_ms": percentile(st.times_ns, 99) / 1e6,
                "cpu_median_ms": percentile(st.cpu_ns, 50) / 1e6,
                "cpu_p99_ms": percentile(st.cpu_ns, 99) / 1e6,
            }
        return out


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% for ``z`` = 1.96).

    >>> [round(x, 3) for x in wilson(60, 100)]
    [0.502, 0.691]
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[int], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of ``values``; 0 when empty."""
    if not values:
        return 0.0
    s = sorted(values)
    k = max(0, math.ceil(q / 100 * len(s)) - 1)
    return float(s[k])


def seat_levels(rules: Rules, levels: tuple[str, str], i: int) -> list[str]:
    """The level at each seat in match ``i``: rotated so each level sits everywhere equally.

    Matches ``2j`` and ``2j+1`` share a deal and swap the levels' seats.
    """
    n = rules.seats
    if n == 3:
        # Six arrangements: the level with two seats alternates, the odd one rotates.
        cycle = (i // 2) % 3
        major = levels[(i // 6) % 2]
        minor = levels[1 - (i // 6) % 2]
        seats = [major] * 3
        seats[cycle] = minor
        if i % 2:
            seats = [minor if x == major else major for x in seats]
        return seats
    return [levels[(s + i) % 2] for s in range(n)]


#: The OpenSpiel player (``domino.openspiel``, only imported when it plays).
OPENSPIEL_ISMCTS = "openspiel-ismcts"
PLAYERS = (*LEVELS, OPENSPIEL_ISMCTS)


def make_player(level: str, seed: str, rules: Rules, simulations: int = 100) -> Bot:
    """A bot level of :func:`domino.bots.make_bot`, or OpenSpiel's IS-MCTS."""
    if level == OPENSPIEL_ISMCTS:
        try:
            from domino.openspiel import OpenSpielISMCTS
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise SystemExit(
                f"{OPENSPIEL_ISMCTS} needs open_spiel: pip install -e '.[openspiel]' ({exc})"
            ) from exc
        return OpenSpielISMCTS(rules, seed, simulations)
    return make_bot(level, seed=seed)


def play_arena(
    rules: Rules,
    levels: tuple[str, str],
    matches: int,
    seed: str,
    progress: Any = None,
    checkpoint: Any = None,
    every: int = 20,
    simulations: int = 100,
) -> ArenaResult:
    """Play ``matches`` matches and count; ``progress(done, total)`` is called after each.

    ``checkpoint(result_so_far)`` is called after every ``every`` matches (an even number,
    so twin deals stay together). Match ``i`` does not depend on ``matches``, so the first
    ``k`` matches of a long run are exactly a run with ``--matches k``.
    """
    stats = {lv: LevelStats(lv) for lv in dict.fromkeys(levels)}
    rounds = 0
    for i in range(matches):
        at = seat_levels(rules, levels, i)
        bots: list[Bot] = [
            make_player(lv, f"{seed}/{i}/{s}", rules, simulations) for s, lv in enumerate(at)
        ]
        match = MatchState(rules, seed=f"{seed}/deal/{i // 2}")
        while True:
            rnd = match.round
            while not rnd.over:
                seat = rnd.turn
                v = view(match, seat)
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                move = bots[seat].choose(v)
                t1 = time.perf_counter_ns()
                st = stats[at[seat]]
                st.times_ns.append(t1 - t0)
                st.cpu_ns.append(time.thread_time_ns() - c0)
                match.apply(move, seat)
            res = rnd.result
            assert res is not None
            rounds += 1
            if res.winner is not None:
                stats[_level_of_side(rules, at, res.winner)].rounds_won += 1
            if match.over:
                break
            match.start_round()
        _count_match(rules, at, match, stats)
        if progress is not None:
            progress(i + 1, matches)
        if checkpoint is not None and (i + 1) % every == 0 and i + 1 < matches:
            checkpoint(ArenaResult(rules, levels, i + 1, rounds, stats))
    return ArenaResult(rules, levels, matches, rounds, stats)


def _level_of_side(rules: Rules, at: list[str], side: int) -> str:
    # With Paare the side is a team; its seats (side, side + 2) share a level.
    return at[side]


def _count_match(
    rules: Rules, at: list[str], match: MatchState, stats: dict[str, LevelStats]
) -> None:
    scores = match.scores
    sides_of: dict[str, list[int]] = {}
    for side in range(rules.sides):
        sides_of.setdefault(_level_of_side(rules, at, side), []).append(side)
    best = max(scores)
    top = {_level_of_side(rules, at, s) for s in range(rules.sides) if scores[s] == best}
    for lv, sides in sides_of.items():
        st = stats[lv]
        st.points += sum(scores[s] for s in sides) / len(sides)
        if lv in top:
            if len(top) > 1:
                st.wins += 0.5
                st.ties += 1
            else:
                st.wins += 1


class Bar:
    """A progress bar on stderr, redrawn at most once per percent."""

    def __init__(self, stream: Any = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.last = -1
        self.t0 = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        pct = done * 100 // total
        if pct == self.last and done != total:
            return
        self.last = pct
        filled = self.width * done // total
        elapsed = time.monotonic() - self.t0
        eta = elapsed / done * (total - done) if done else 0.0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} "
            f"{elapsed:6.0f}s, ~{eta:5.0f}s left"
        )
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("arena", help="play matches between bot levels and measure them")
    p.add_argument("a", choices=PLAYERS, help="first level")
    p.add_argument("b", choices=PLAYERS, help="second level")
    p.add_argument("--seats", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--paare", action="store_true", help="partnership (4 seats)")
    p.add_argument("--mode", default="klassisch", choices=[m.value for m in Mode])
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", default="1", help="seed of deals and bots (default 1)")
    p.add_argument(
        "--json", default=None, help="also write the figures to this JSON file (updated as it goes)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--simulations",
        type=int,
        default=100,
        help=f"IS-MCTS simulations per decision of {OPENSPIEL_ISMCTS} (default 100)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.paare and args.seats != 4:
        print("--paare needs --seats 4", file=sys.stderr)
        return 2
    if args.matches < 1:
        print("--matches must be at least 1", file=sys.stderr)
        return 2
    if args.simulations < 1:
        print("--simulations must be at least 1", file=sys.stderr)
        return 2
    rules = Rules.preset(args.mode, args.seats, args.paare)
    levels = (args.a, args.b)
    command = " ".join(["domino", *sys.argv[1:]]) if sys.argv else ""

    def save(result: ArenaResult, partial: bool) -> dict[str, Any]:
        summary = result.summary()
        summary["command"] = command
        summary["partial"] = partial
        if args.json:
            # A long run leaves a usable prefix behind if it has to be stopped.
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump(summary, fh, indent=2)
        return summary

    result = play_arena(
        rules,
        levels,
        args.matches,
        str(args.seed),
        None if args.quiet else Bar(),
        (lambda r: save(r, True)) if args.json else None,
        simulations=args.simulations,
    )
    summary = save(result, False)
    print(
        f"{args.matches} matches, {result.rounds} rounds: {rules.mode.value}, "
        f"{rules.seats} seats{', Paare' if rules.pairs else ''}, target {rules.target_points}, "
        f"seed {args.seed}"
    )
    print(
        f"{'level':<16}{'win rate':>9}  {'95% CI':<15}{'ties':>6}{'pts/match':>10}"
        f"{'rounds won':>11}{'median ms':>10}{'p99 ms':>9}{'cpu p99 ms':>11}"
    )
    for lv, d in summary["per_level"].items():
        lo, hi = d["ci95"]
        print(
            f"{lv:<16}{d['win_rate']:>9.3f}  [{lo:.3f}, {hi:.3f}] {d['ties']:>6}"
            f"{d['avg_points']:>10.1f}{d['rounds_won']:>11}"
            f"{d['time_median_ms']:>10.3f}{d['time_p99_ms']:>9.3f}{d['cpu_p99_ms']:>11.3f}"
        )
    return 0
