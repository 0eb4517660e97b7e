"""``domino bench engine``: random rounds per second, side by side with the anchors.

The anchor workload (the issue's): 4 seats, partnership, all 28 tiles dealt,
no draw, uniformly random legal plays, dealing included. It runs in this
process, interleaved repeat by repeat, for

- ``api``: :class:`RoundState` through its public API (verified moves, event log);
- ``kernel``: :func:`domino.rules.playout.random_round`: the same rules kernel
  (:mod:`domino.rules.kernel`) that RoundState and Meister's playouts run on,
  driven with move ints, without the log;
- ``dominoes``: PyPI ``dominoes`` (``Game.new()`` + ``make_move``), if installed;
- ``openspiel``: OpenSpiel's ``python_team_dominoes``, if installed.

The rules modules run compiled with mypyc when the build could compile them
(setup.py: ``make``, ``pip install``, the wheel; :mod:`domino.rules.native`),
else as pure Python; the output's second line says which, naming the compiled
modules loaded and where from.

Every workload picks among legal options with the same primitive
(:func:`domino.rules.playout.pick`, one ``rng.random()`` per real choice), so
no side gains from a cheaper random source. Medians of the repeats are
printed with the ratios.

The other benchmarks (``server``, ``analysis``, ``cluster``, ``failover``, ``router``,
``crash``, ``leaks``) are not part of the installed package: they live in the source
checkout's ``bench/`` (the package ``domino_bench``), and ``domino bench`` is their
door. Run from a checkout, it finds them there; from a wheel, each of them says in one
German line where to get them (:func:`register`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from domino.rules import Mode, RoundState, Rules, native, shuffled_deal
from domino.rules.playout import pick, random_round

Workload = Callable[[int, random.Random], None]

#: The source checkout's benchmarks, beside ``src/`` (absent in an installed wheel).
CHECKOUT_BENCH = Path(__file__).resolve().parents[3] / "bench"
#: The subcommands :mod:`domino_bench.commands` adds (a wheel install names them too).
ELSEWHERE = (
    "server",
    "analysis",
    "leaderboard",
    "cluster",
    "failover",
    "router",
    "crash",
    "leaks",
    "matchmaking",
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("bench", help="benchmarks: engine, server load, crash test, leak audit")
    what = p.add_subparsers(dest="what", required=True)
    e = what.add_parser("engine", help="random rounds per second, with the anchors if installed")
    e.add_argument("--seconds", type=float, default=0.6, help="time per measurement")
    e.add_argument("--repeats", type=int, default=7)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--skip-modes", action="store_true", help="only the anchor workload")
    e.set_defaults(func=run_engine)
    commands = bench_commands()
    if commands is not None:
        commands.register(what)
        return
    for name in ELSEWHERE:
        # Any arguments are taken (no option is known here), so that the answer is the line
        # below and not an argparse complaint about the flags of the real subcommand.
        stub = what.add_parser(name, help="(source checkout only)", prefix_chars="\0")
        stub.add_argument("rest", nargs="*")
        stub.set_defaults(func=elsewhere)


def bench_commands() -> ModuleType | None:
    """:mod:`domino_bench.commands`, importable or found in the source checkout."""
    if importlib.util.find_spec("domino_bench") is None:
        if not (CHECKOUT_BENCH / "domino_bench").is_dir():
            return None
        sys.path.insert(0, str(CHECKOUT_BENCH))
    return importlib.import_module("domino_bench.commands")


def elsewhere(args: argparse.Namespace) -> int:
    """A benchmark this install does not have: where it is, in one line."""
    from domino.i18n import t

    print(t("bench_elsewhere", command=args.what), file=sys.stderr)
    return 2


def rules_line() -> str:
    """Which rules modules run compiled: the bench's proof of the build it measures."""
    from domino.rules import playout  # noqa: F401  (loaded, like the others, when benched)

    found = native.loaded_compiled()
    if not found:
        return "rules modules: pure Python, not compiled"
    missing = [m for m in native.COMPILED if m not in found]
    line = f"rules modules: compiled with mypyc, loaded: {', '.join(found)} ({native.library()})"
    return line + (f"; pure Python: {', '.join(missing)}" if missing else "")


def api_rounds(rules: Rules) -> Workload:
    def work(n: int, rng: random.Random) -> None:
        for _ in range(n):
            rnd = RoundState.start(rules, shuffled_deal(rules, rng=rng), validate=False)
            while rnd.result is None:
                rnd.apply(pick(rnd.legal_moves(), rng))

    return work


def kernel_rounds(rules: Rules) -> Workload:
    def work(n: int, rng: random.Random) -> None:
        for _ in range(n):
            random_round(rules, rng)

    return work


def dominoes_rounds() -> Workload | None:
    try:
        import dominoes
    except ImportError:
        return None

    def work(n: int, rng: random.Random) -> None:
        for _ in range(n):
            game = dominoes.Game.new()
            while game.result is None:
                game.make_move(*pick(game.valid_moves, rng))

    return work


def openspiel_rounds() -> Workload | None:
    try:
        import pyspiel
        from open_spiel.python.games import team_dominoes  # noqa: F401  (registers the game)
    except ImportError:
        return None
    game = pyspiel.load_game("python_team_dominoes")

    def work(n: int, rng: random.Random) -> None:
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(pick(state.chance_outcomes(), rng)[0])
                else:
                    state.apply_action(pick(state.legal_actions(), rng))

    return work


def measure(
    works: dict[str, Workload], seconds: float, repeats: int, seed: int
) -> dict[str, float]:
    """Median rounds/s of each workload; repeats interleave so load hits all alike."""
    rng = random.Random(seed)
    batch = {}
    for name, work in works.items():  # calibrate a batch to about `seconds`
        n = 1
        while True:
            t = time.perf_counter()
            work(n, rng)
            dt = time.perf_counter() - t
            if dt > seconds / 4:
                break
            n *= 2
        batch[name] = max(1, int(n * seconds / dt))
    rates: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(repeats):
        for name, work in works.items():
            t = time.perf_counter()
            work(batch[name], rng)
            rates[name].append(batch[name] / (time.perf_counter() - t))
    return {name: statistics.median(r) for name, r in rates.items()}


def run_engine(args: argparse.Namespace) -> int:
    anchor = Rules(seats=4, pairs=True)  # Klassisch + Paare: 7 each, no Lager
    works: dict[str, Workload] = {
        "domino api": api_rounds(anchor),
        "domino kernel": kernel_rounds(anchor),
    }
    anchors = (
        ("dominoes", "dominoes", dominoes_rounds),
        ("openspiel", "open_spiel", openspiel_rounds),
    )
    for name, package, factory in anchors:
        w = factory()
        if w is None:
            print(f"({name} not installed: pip install {package}, or the bench extra, to compare)")
        else:
            works[name] = w
    print("Anchor workload: 4 seats, partnership, 28 tiles dealt, no draw, random legal plays")
    print(f"({rules_line()})")
    res = measure(works, args.seconds, args.repeats, args.seed)
    for name, rate in res.items():
        print(f"  {name:<14} {rate:>10,.0f} rounds/s")
    for ours in ("domino api", "domino kernel"):
        for other in ("dominoes", "openspiel"):
            if other in res:
                print(f"  {ours} / {other}: {res[ours] / res[other]:.1f}x")
    if args.skip_modes:
        return 0
    print("\nEvery mode (median rounds/s; api / kernel):")
    for mode in Mode:
        for seats in (2, 3, 4):
            for pairs in (False, True) if seats == 4 else (False,):
                rules = Rules.preset(mode, seats, pairs)
                r = measure(
                    {"api": api_rounds(rules), "kernel": kernel_rounds(rules)},
                    args.seconds / 3,
                    max(3, args.repeats // 2),
                    args.seed,
                )
                label = f"{mode.value} {seats}{' Paare' if pairs else ''}"
                print(f"  {label:<22} {r['api']:>9,.0f} / {r['kernel']:>9,.0f}")
    return 0
