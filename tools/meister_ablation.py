"""Meister with non-default settings against another level: the ablations of docs/bots.md.

Usage: ``python tools/meister_ablation.py SEATS [--paare] --matches N --seed S 'JSON'``
where JSON holds keyword arguments of :class:`domino.bots.meister.Meister` (for example
``'{"tau": null}'`` for uniform guesses, ``'{"match_weight": 0}'`` for the plain margin).
It plays ``domino arena meister profi`` (same seating, deals and seeds; ``--against``
names another level) with that Meister and prints one line of figures.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import domino.cli.arena as arena
from domino.bots import Bot
from domino.bots.meister import Meister
from domino.rules import Rules


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("seats", type=int, choices=(2, 3, 4))
    p.add_argument("settings", help="Meister keyword arguments as JSON")
    p.add_argument("--paare", action="store_true")
    p.add_argument("--mode", default="klassisch")
    p.add_argument("--matches", type=int, default=120)
    p.add_argument("--seed", default="x1")
    p.add_argument("--against", default="profi")
    args = p.parse_args()
    kwargs: dict[str, Any] = json.loads(args.settings)
    plain = arena.make_player

    def make_player(level: str, seed: str, rules: Rules, simulations: int = 100) -> Bot:
        if level == "meister":
            return Meister(seed, **kwargs)
        return plain(level, seed, rules, simulations)

    arena.make_player = make_player  # the arena builds its players through this
    rules = Rules.preset(args.mode, args.seats, args.paare)
    t0 = time.monotonic()
    result = arena.play_arena(rules, ("meister", args.against), args.matches, str(args.seed))
    s = result.summary()["per_level"]
    m, o = s["meister"], s[args.against]
    lo, hi = m["ci95"]
    print(
        f"{args.seats} seats{' Paare' if args.paare else ''} {kwargs}: {args.matches} matches, "
        f"Meister wins {m['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], pts/match "
        f"{m['avg_points']:.1f} : {o['avg_points']:.1f}, rounds won {m['rounds_won']} : "
        f"{o['rounds_won']}, CPU median/p99 {m['cpu_median_ms']:.1f}/{m['cpu_p99_ms']:.1f} ms, "
        f"{time.monotonic() - t0:.0f} s"
    )


if __name__ == "__main__":
    main()
