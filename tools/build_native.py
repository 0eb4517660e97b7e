"""Compile the rules kernel with mypyc, or fall back to pure Python with one line.

Run by ``make .venv/.installed`` (so by ``make run`` and ``make test``) with the venv's
Python: ``.venv/bin/python tools/build_native.py``. It compiles the modules that
``domino.rules.native.COMPILED`` names into extension modules beside their sources
(``src/domino/rules/*.so``, gitignored), checks that they load and play a round, and
writes ``domino.rules.native.STAMP``. Any failure (no compiler, no headers, mypyc
refusing the code, a smoke test failing) removes what was built and prints one line:
the engine then runs as pure Python, which is always correct, only slower. The build's
own output goes to ``build/native/build.log``. ``--clean`` only removes the build.

Exit status 0 either way (a missing compiler must not stop ``make run``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "src" / "domino" / "rules"
BUILD = ROOT / "build" / "native"
LOG = BUILD / "build.log"


def _native() -> ModuleType:
    # domino.rules.native by its path: importing domino.rules would load the modules.
    spec = importlib.util.spec_from_file_location("_domino_native", RULES / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _artifacts(native: ModuleType) -> list[Path]:
    group = str(native.GROUP).rpartition(".")[2] + "__mypyc"
    names = [*native.COMPILED, group]
    return [
        RULES / f"{name}{suffix}"
        for name in names
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
        if (RULES / f"{name}{suffix}").exists()
    ]


def clean(native: ModuleType) -> None:
    for path in _artifacts(native):
        path.unlink()
    Path(native.STAMP).unlink(missing_ok=True)


def _compile(native: ModuleType) -> None:
    """The child process: mypyc + setuptools ``build_ext --inplace`` (output to the log)."""
    from mypyc.build import mypycify
    from setuptools import setup

    # Outside the project: setuptools would read its pyproject.toml, mypy its settings
    # (``mypy`` itself checks the sources, strictly, in ``make types``).
    os.chdir(BUILD)
    paths = [str(RULES / f"{m}.py") for m in native.COMPILED]
    setup(
        name="domino-rules-native",
        package_dir={"": str(ROOT / "src")},
        ext_modules=mypycify(paths, group_name=native.GROUP, target_dir=str(BUILD / "c")),
        script_args=["build_ext", "--inplace", "--build-temp", str(BUILD / "temp")],
    )


# A round through the compiled modules, and the proof that they are the ones loaded.
_SMOKE = """
import random
from domino.rules import RoundState, Rules, native, shuffled_deal
from domino.rules.playout import pick, random_round
assert native.compiled(), "the compiled modules were not loaded"
rules = Rules(seats=4, pairs=True)
rng = random.Random(1)
r = RoundState.start(rules, shuffled_deal(rules, rng=rng))
while r.result is None:
    r.apply(pick(r.legal_moves(), rng))
random_round(rules, rng)
"""


def build() -> str | None:
    """Build; ``None`` on success, else why not (one line)."""
    native = _native()
    clean(native)
    BUILD.mkdir(parents=True, exist_ok=True)
    stamp = native.stamp_text()  # the sources as compiled (a later edit makes it stale)
    with LOG.open("w") as log:
        done = subprocess.run(
            [sys.executable, __file__, "--compile"],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
            cwd=BUILD,
        )
    if done.returncode != 0:
        return f"mypyc failed (exit {done.returncode})"
    if len(_artifacts(native)) != len(native.COMPILED) + 1:
        return "mypyc did not produce every module"
    Path(native.STAMP).write_text(stamp)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    env.pop(native.ENV, None)
    with LOG.open("a") as log:
        smoke = subprocess.run(
            [sys.executable, "-c", _SMOKE],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
            cwd=ROOT,
            env=env,
        )
    if smoke.returncode != 0:
        return "the compiled modules failed their smoke test"
    return None


def main() -> int:
    if sys.argv[1:] == ["--compile"]:
        _compile(_native())
        return 0
    if sys.argv[1:] == ["--clean"]:
        clean(_native())
        return 0
    try:
        why = build()
    except Exception as exc:  # anything at all: fall back, never fail the install
        why = f"{type(exc).__name__}: {exc}"
    if why is not None:
        clean(_native())
        print(
            f"warning: the rules kernel is not compiled ({why}; see {LOG.relative_to(ROOT)}); "
            "running pure Python",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
