"""Draw docs/bots.png from JSON files written by ``domino arena ... --json FILE``.

Usage: ``python tools/plot_bots.py OUT.png RESULT.json [RESULT.json ...]``;
``python tools/plot_bots.py --table RESULT.json ...`` prints the Markdown table
of docs/bots.md instead.

Left: the first-named level's match win rate with its 95% Wilson interval, one
bar per pairing, grouped by table (2 seats Klassisch, 4 seats Paare). Right:
decision time per level (median and p99, log scale) against the targets.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

NAMES = {
    "anfaenger": "Anfänger",
    "fortgeschritten": "Fortgeschr.",
    "profi": "Profi",
    "meister": "Meister",
}
ORDER = ("anfaenger", "fortgeschritten", "profi", "meister")


def _label(data: dict[str, Any]) -> str:
    a, b = data["levels"]
    return f"{NAMES[a]}\nvs {NAMES[b]}"


def _table(data: dict[str, Any]) -> str:
    r = data["rules"]
    return f"{r['seats']} seats{' Paare' if r['pairs'] else ''}, {r['mode']}"


def table(results: list[dict[str, Any]]) -> str:
    """Markdown rows: one per run, figures of the first-named level first."""
    rows = [
        "| table | A vs B | matches | A wins (ties ½) | 95% CI | pts/match A : B "
        "| rounds won A : B | median / p99 ms A | median / p99 ms B | command |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for d in results:
        a, b = d["levels"]
        pa, pb = d["per_level"][a], d["per_level"][b]
        lo, hi = pa["ci95"]

        def t(p: dict[str, Any]) -> str:
            s = f"{p['time_median_ms']:.3g} / {p['time_p99_ms']:.3g}"
            if "cpu_p99_ms" in p:
                s += f" (CPU p99 {p['cpu_p99_ms']:.3g})"
            return s

        rows.append(
            f"| {_table(d)} | {NAMES[a]} vs {NAMES[b]} | {d['matches']}"
            f"{' (prefix)' if d.get('partial') else ''} | {pa['win_rate']:.1%} ({pa['ties']} ties)"
            f" | [{lo:.1%}, {hi:.1%}] | {pa['avg_points']:.1f} : {pb['avg_points']:.1f}"
            f" | {pa['rounds_won']} : {pb['rounds_won']} | {t(pa)} | {t(pb)}"
            f" | `{d.get('command', '')}` |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[0] == "--table":
        print(table([json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:]]))
        return 0
    out = Path(argv[0])
    results = [json.loads(Path(p).read_text(encoding="utf-8")) for p in argv[1:]]
    tables: dict[str, list[dict[str, Any]]] = {}
    for d in results:
        tables.setdefault(_table(d), []).append(d)

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [3, 2]})
    x = 0.0
    ticks, labels = [], []
    colours = ["#3b6ea5", "#c8553d", "#5a9367", "#8e6c8a"]
    for k, (name, rows) in enumerate(tables.items()):
        for d in rows:
            first = d["levels"][0]
            per = d["per_level"][first]
            lo, hi = per["ci95"]
            rate = per["win_rate"]
            ax.bar(
                x,
                rate,
                color=colours[k % len(colours)],
                width=0.8,
                label=name if d is rows[0] else None,
            )
            ax.errorbar(x, rate, yerr=[[rate - lo], [hi - rate]], color="black", capsize=4)
            ax.text(x, hi + 0.01, f"{rate:.0%}", ha="center", fontsize=8)
            ticks.append(x)
            labels.append(_label(d) + f"\n(n={d['matches']})")
            x += 1
        x += 0.6
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
    ax.axhline(0.7, color="grey", linestyle=":", linewidth=1)
    ax.set_xticks(ticks, labels, fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("matches won by the first level (95% CI)")
    ax.set_title("Head-to-head (dashed 50%, dotted 70%)")
    ax.legend(fontsize=8, loc="lower right")

    # Decision times: the largest sample per level (all pairings pooled would mix tables).
    times: dict[str, tuple[float, float, int]] = {}
    cpu: dict[str, float] = {}
    for d in results:
        for lv, per in d["per_level"].items():
            n = per["decisions"]
            if lv not in times or n > times[lv][2]:
                times[lv] = (per["time_median_ms"], per["time_p99_ms"], n)
            if "cpu_p99_ms" in per:
                cpu[lv] = max(cpu.get(lv, 0.0), per["cpu_p99_ms"])
    lvs = [lv for lv in ORDER if lv in times]
    xs = range(len(lvs))
    w = 0.27
    bx.bar([i - w for i in xs], [times[lv][0] for lv in lvs], width=w, label="median (wall)")
    bx.bar(list(xs), [times[lv][1] for lv in lvs], width=w, label="p99 (wall, busy machine)")
    bx.bar([i + w for i in xs], [cpu.get(lv, 0.0) for lv in lvs], width=w, label="p99 (CPU)")
    bx.axhline(5, color="grey", linestyle="--", linewidth=1)
    bx.axhline(300, color="grey", linestyle=":", linewidth=1)
    bx.set_yscale("log")
    bx.set_xticks(list(xs), [NAMES[lv] for lv in lvs])
    bx.set_ylabel("ms per decision (log)")
    bx.set_title("Decision time (dashed 5 ms, dotted 300 ms)")
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
