"""The bots' fixed ratings (``domino.ratings.BOT_RATINGS``) from arena runs.

    python tools/calibrate_bots.py fa2.json pf2.json mp2.json [...]

Each file is a ``domino arena A B --json FILE`` summary of two adjacent levels. For each
pair the gap in ``mu`` is the one at which openskill's own ``predict_win`` (the model
``domino.ratings`` rates with, both bots at ``BOT_SIGMA``) gives the stronger level the
win rate the arena measured (ties counted half); several files of one pair are pooled by
their matches. Fortgeschritten (the stand-in's level) is anchored at the start rating,
the others chained from it. Prints the dictionary to paste and one line per pair.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import defaultdict

from domino.ratings import BOT_SIGMA, MODEL, SCALE, START

ORDER = ("anfaenger", "fortgeschritten", "profi", "meister")
ANCHOR = "fortgeschritten"


def gap_for(win_rate: float) -> float:
    """The mu gap at which the library predicts ``win_rate`` for the stronger side."""
    lo, hi = 0.0, 40.0
    for _ in range(80):
        mid = (lo + hi) / 2
        strong = MODEL.rating(25.0 + mid, BOT_SIGMA)
        weak = MODEL.rating(25.0, BOT_SIGMA)
        p = MODEL.predict_win([[strong], [weak]])[0]
        lo, hi = (mid, hi) if p < win_rate else (lo, mid)
    return (lo + hi) / 2


def main(paths: list[str]) -> int:
    wins: dict[tuple[str, str], float] = defaultdict(float)
    games: dict[tuple[str, str], int] = defaultdict(int)
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        a, b = d["levels"]
        weak, strong = sorted((a, b), key=ORDER.index)
        wins[(weak, strong)] += d["per_level"][strong]["wins"]
        games[(weak, strong)] += d["matches"]
    gaps: dict[str, float] = {}  # each level's gap above the level below it
    for weak, strong in itertools.pairwise(ORDER):
        n = games.get((weak, strong), 0)
        if not n:
            print(f"no arena run of {strong} against {weak}", file=sys.stderr)
            return 2
        rate = wins[(weak, strong)] / n
        gaps[strong] = gap_for(rate) * SCALE
        print(f"{strong} vs {weak}: {rate:.3f} over {n} matches -> +{gaps[strong]:.0f}")
    shown = {ORDER[0]: 0.0}
    for weak, strong in itertools.pairwise(ORDER):
        shown[strong] = shown[weak] + gaps[strong]
    shift = START - shown[ANCHOR]
    ratings = {lv: float(round(shown[lv] + shift)) for lv in ORDER}
    print("BOT_RATINGS = " + json.dumps(ratings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
