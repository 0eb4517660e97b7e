"""``domino demo``: a visible match of bots in the terminal."""

from __future__ import annotations

import argparse
import random
import sys
import time

from domino.rules import DOMINO, MatchState, Mode, Move, Rules, SeatView, view


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("demo", help="watch bots play a whole match in the terminal")
    p.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--mode", default="klassisch", choices=[m.value for m in Mode])
    p.add_argument("--paare", action="store_true", help="partnership (4 seats)")
    p.add_argument("--seed", default=None, help="deal seed (random if omitted)")
    p.add_argument("--delay", type=float, default=0.15, help="seconds between moves")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rules = Rules.preset(args.mode, args.seats, args.paare)
    seed = args.seed if args.seed is not None else random.randrange(1 << 62)
    match = MatchState(rules, seed=seed)
    rng = random.Random(f"demo/{seed}")
    out = sys.stdout
    names = [f"Bot {i + 1}" for i in range(rules.seats)]
    print(f"Domino — {rules.mode.value}, {rules.seats} seats, target {rules.target_points}")
    while True:
        rnd = match.round
        first = rnd.log[0]
        print(f"\nRound {match.round_no}: {names[first.seat]} opens with {first.tile}")
        while not rnd.over:
            seat = rnd.turn
            v = view(match, seat)
            move = _choose(v, rng)
            ev = match.apply(move, seat)
            what = {"play": f"plays {ev.tile} {ev.end}", "draw": "draws", "pass": "passes"}
            line = f"  {names[seat]:<6} {what[ev.kind]:<12} {rnd.line_text()}"
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


def _choose(v: SeatView, rng: random.Random) -> Move:
    # Heaviest playable tile first; replaced by the bots package's policy.
    plays = [m for m in v.legal if m.is_play]
    if plays:
        return max(plays, key=lambda m: (m.tile.pips if m.tile else 0, rng.random()))
    return v.legal[0]
