"""The rules modules compiled with mypyc play exactly as their pure-Python sources.

``make`` and every build of the package compile ``domino.rules.native.COMPILED`` (setup.py);
this process then runs the whole suite on the compiled modules. Here the same
seeded work runs in two fresh processes, one on the compiled modules and one
with ``DOMINO_PURE_PYTHON=1`` on the sources, and must come out identical; and
the differential test against the frozen oracle and the doctests (which
``doctest`` cannot find in compiled modules) run on the sources too. Without a
compiled build these tests are skipped: the suite itself runs on the sources.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rules_support import VARIANTS

from domino.rules import native

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent

compiled_only = pytest.mark.skipif(
    not native.compiled(), reason="the rules modules run as pure Python here (not compiled)"
)

# Seeded rounds in every variant through the public API, illegal moves included, pickled and
# copied, the bare kernel's playouts, and the parsers' refusals: everything as plain data.
_WORK = """
import copy, json, pickle, random, sys
sys.path.insert(0, sys.argv[1])
from rules_support import VARIANTS
from domino.rules import MOVES, RoundState, RulesError, Tile, Move, native, shuffled_deal
from domino.rules.playout import pick, random_round


def same(a, b):
    if isinstance(a, RoundState):
        return all(x == y for x, y in zip(state(a), state(b), strict=True))
    return a == b and hash(a) == hash(b)


def state(r):
    return r.log, r.hands, r.lager, r.es, r.turn, r.side_fives, r.result, r.line_text()


out = {"compiled": native.compiled(), "rounds": [], "playouts": [], "parse": []}
rng = random.Random(14)
for rules in VARIANTS:
    for _ in range(40):
        deal = shuffled_deal(rules, rng=rng)
        r = RoundState.start(rules, deal)
        moves = []
        while r.result is None:
            wrong = MOVES[rng.randrange(len(MOVES))]
            try:
                r.verify(wrong, rng.randrange(rules.seats))
                moves.append(("ok", str(wrong)))
            except RulesError as exc:
                moves.append((type(exc).__name__, exc.code, str(exc)))
            legal = r.legal_moves()
            moves.append([str(m) for m in legal])
            ev = r.apply(pick(legal, rng), r.turn)
            moves.append(repr(ev))
        moves.append(r.line_text())
        moves.append(repr(r.result))
        for value in (deal, r.result, r):  # pickled and copied (native classes too)
            for twin in (pickle.loads(pickle.dumps(value)), copy.deepcopy(value), copy.copy(value)):
                moves.append((type(twin).__name__, same(twin, value)))
        out["rounds"].append([deal.to_dict(), moves])
        out["playouts"].append(repr(random_round(rules, rng)))
        out["playouts"].append(repr(random_round(rules, rng, deal)))
for text in ("6|2", " 2 | 6 ", "7|1", "٦|٢", "", None, 5, "6|2 L", "D", "p", "6|2 X"):
    for parse in (Tile.parse, Move.parse):
        try:
            out["parse"].append(repr(parse(text)))
        except RulesError as exc:
            out["parse"].append((type(exc).__name__, exc.code, str(exc)))
print(json.dumps(out))
"""


def _run(pure: bool) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != native.ENV}
    if pure:
        env[native.ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", _WORK, str(HERE)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@compiled_only
def test_compiled_modules_play_as_their_sources() -> None:
    fast, pure = _run(pure=False), _run(pure=True)
    assert fast["compiled"] and not pure["compiled"]
    assert len(fast["rounds"]) == 40 * len(VARIANTS)
    for key in ("rounds", "playouts", "parse"):
        assert fast[key] == pure[key], key


@compiled_only
def test_the_oracle_and_doctests_pass_on_the_sources_too() -> None:
    env = {**os.environ, native.ENV: "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
            str(HERE / "test_kernel_differential.py"),
            str(HERE / "test_playout.py"),
            str(HERE / "test_doctests.py"),
            str(HERE / "test_native.py::test_the_pure_modules_are_the_sources"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=False,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "skipped" not in done.stdout


def test_the_pure_modules_are_the_sources() -> None:
    # Under DOMINO_PURE_PYTHON=1 (above) or without a build: every module is its .py file.
    if native.compiled():
        pytest.skip("compiled here; the test above runs this one on the sources")
    for name in native.COMPILED:
        module = importlib.import_module(f"domino.rules.{name}")
        assert module.__file__ == str(native.HERE / f"{name}.py")


def test_a_compiled_build_is_loaded_only_when_it_matches_the_sources() -> None:
    assert native.compiled() <= native.current()


def test_the_operator_lines_read_the_catalogue_as_i18n_does() -> None:
    # native.message reads the German message file without babel (this module must stay
    # light: it runs first on every import of domino.rules, and setup.py loads it in a
    # build environment); it must give i18n's text for every key.
    from domino.i18n import CATALOGUES, t

    keys = [k for k, text in CATALOGUES["de"].items() if isinstance(text, str)]
    assert "native_stale" in keys and "native_fallback" in keys
    for key in keys:
        assert native.message(key) == t(key), key
    assert native.message("native_fallback", why="X") == t("native_fallback", why="X")
    assert "nicht kompiliert (X)" in native.message("native_fallback", why="X")
    assert native.message("no_such_key") == "no_such_key"


def test_importing_the_rules_loads_no_catalogue() -> None:
    play = (
        "import sys, domino.rules.kernel; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'babel' or m == 'domino.i18n'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", play], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout == "[]\n", done.stdout
