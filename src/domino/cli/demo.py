"""``domino demo``: a visible match of bots in the terminal."""

from __future__ import annotations

import argparse
import random
import sys
import time

from domino.bots import LEVEL_NAMES, LEVELS, make_bot
from domino.rules import DOMINO, MatchState, Mode, Rules, view


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="watch bots play a whole match in the terminal")
    p.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--mode", default="klassisch", choices=[m.value for m in Mode])
    p.add_argument("--paare", action="store_true", help="partnership (4 seats)")
    p.add_argument("--seed", default=None, help="deal seed (random if omitted)")
    p.add_argument("--delay", type=float, default=0.15, help="seconds between moves")
    p.add_argument(
        "--levels",
        default="profi,fortgeschritten,anfaenger,meister",
        help="bot levels by seat, comma-separated (cycled)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = Rules.preset(args.mode, args.seats, args.paare)
    seed = args.seed if args.seed is not None else random.randrange(1 << 62)
    match = MatchState(rules, seed=seed)
    levels = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    for lv in levels:
        if lv not in LEVELS:
            print(f"unknown level {lv!r}; choose from {', '.join(LEVELS)}", file=sys.stderr)
            return 2
    seat_levels = [levels[i % len(levels)] for i in range(rules.seats)]
    bots = [make_bot(lv, f"demo/{seed}/{i}") for i, lv in enumerate(seat_levels)]
    out = sys.stdout
    names = [f"{LEVEL_NAMES[lv]} {i + 1}" for i, lv in enumerate(seat_levels)]
    print(f"Domino — {rules.mode.value}, {rules.seats} seats, target {rules.target_points}")
    while True:
        rnd = match.round
        first = rnd.log[0]
        print(f"\nRound {match.round_no}: {names[first.seat]} opens with {first.tile}")
        while not rnd.over:
            seat = rnd.turn
            move = bots[seat].choose(view(match, seat))
            ev = match.apply(move, seat)
            what = {"play": f"plays {ev.tile} {ev.end}", "draw": "draws", "pass": "passes"}
            line = f"  {names[seat]:<18} {what[ev.kind]:<12} {rnd.line_text()}"
            if ev.fives:
                line += f"   +{ev.fives} (Fünferpunkte)"
            print(line, file=out, flush=True)
            if args.delay:
                time.sleep(args.delay)
        res = rnd.result
        assert res is not None
        how = "Domino!" if res.reason == DOMINO else "Blockiert"
        print(f"  {how} points {list(res.totals)}; match {list(match.scores)}")
        if match.over:
            break
        match.start_round()
    print("\nStandings:")
    for s in match.standings():
        label = f"Team {'AB'[s.side]}" if rules.pairs else names[s.side]
        print(f"  {s.place}. {label}: {s.points}")
    return 0
