"""The one build definition of the compiled rules kernel (metadata: pyproject.toml).

Every way of building the package comes here: ``pip install .``, ``pip install -e .``
(what ``make`` does; the extension modules then land beside their sources),
``python -m build`` (sdist and wheel) and ``make``'s rebuild after a rules source changed
(``tools/build_native.py`` runs ``setup.py build_ext --inplace``). Building compiles the
modules that ``domino.rules.native.COMPILED`` names with mypyc (setuptools' mypyc support,
``mypyc.build.mypycify``; mypy is a build requirement) into one group, checks that they
load and play a round, and writes ``domino.rules.native.STAMP`` beside them (into the
wheel, or into the source tree), the proof ``domino.rules.native.guard`` checks.

When anything of that fails (no C compiler, no Python headers, mypyc refusing the code,
the smoke round failing) the build removes what it made and prints one line (German, from
the catalogue, by ``domino.rules.native.message``): the package is then pure Python,
always correct, only slower. A source distribution carries no generated C; it is
compiled where it is installed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
os.chdir(ROOT)  # the paths below, and those mypyc and setuptools are given, are relative
PACKAGE = "domino.rules"
RULES = Path("src", *PACKAGE.split("."))
#: The generated C (``build/`` is ignored by git and left out of the sdist).
C_DIR = Path("build", "mypyc")
#: If set, the fallback line is also written to this file (``tools/build_native.py``).
REPORT_ENV = "DOMINO_BUILD_REPORT"
#: The commands that build the extension modules; any other (``egg_info``, ``sdist``,
#: ``dist_info``) leaves mypyc alone.
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"}

# A round through the compiled modules, and the proof that they are the ones loaded.
SMOKE = """
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


def native() -> ModuleType:
    """``domino.rules.native`` by its path (importing ``domino.rules`` would load the rules)."""
    spec = importlib.util.spec_from_file_location("_domino_native", ROOT / RULES / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reason(exc: BaseException) -> str:
    """An exception in a few words: a failed compiler command by its program and status."""
    text = " ".join(str(exc).split())
    failed = re.search(r"Command '\[?'?([^',\]]+).*returned non-zero exit status (\d+)", text)
    if failed:
        text = f"{failed[1]} failed, exit status {failed[2]}"
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= 160 else text[:159] + "…"


def report(why: str) -> None:
    line = native().message("native_fallback", why=why)
    print(line, file=sys.stderr, flush=True)
    target = os.environ.get(REPORT_ENV)
    if target:
        Path(target).write_text(line + "\n", encoding="utf-8")


def artifacts(directory: Path) -> list[Path]:
    """The extension modules of the rules kernel (and the stamp) in ``directory``."""
    nat = native()
    names = [*nat.COMPILED, str(nat.GROUP).rpartition(".")[2] + "__mypyc"]
    found = [
        directory / f"{name}{suffix}"
        for name in names
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    ]
    return [p for p in [*found, directory / Path(nat.STAMP).name] if p.exists()]


def extensions() -> list[Extension]:
    """The mypyc group of :data:`domino.rules.native.COMPILED`, or ``[]`` (one line said
    why) when mypyc is missing or refuses the code."""
    nat = native()
    try:
        from mypyc.build import mypycify

        return list(
            mypycify(
                [str(RULES / f"{m}.py") for m in nat.COMPILED],
                group_name=nat.GROUP,
                target_dir=str(C_DIR),
            )
        )
    except (Exception, SystemExit) as exc:  # mypy exits on errors in the code
        report(f"mypyc: {reason(exc)}")
        return []


class BuildPy(build_py):
    """Before anything is built: no extension module or stamp left from an earlier build."""

    def run(self) -> None:
        for path in artifacts(Path(self.build_lib, *PACKAGE.split("."))):
            path.unlink()
        if self.editable_mode:
            for path in artifacts(RULES):
                path.unlink()
        super().run()


class BuildExt(build_ext):
    """Compile, smoke-test and stamp the rules kernel; on any failure, pure Python."""

    def run(self) -> None:
        inplace = bool(self.inplace)
        target = RULES if inplace else Path(self.build_lib, *PACKAGE.split("."))
        for path in artifacts(target):
            path.unlink()
        try:
            super().run()
            why = self.check(target, inplace)
        except Exception as exc:  # the compiler missing or failing: fall back
            why = reason(exc)
        finally:
            self.inplace = inplace
        if why is not None:
            for path in artifacts(target):
                path.unlink()
            report(why)

    def check(self, target: Path, inplace: bool) -> str | None:
        """Stamp the build and play a round on it; ``None``, or why it is not used."""
        nat = native()
        if len(artifacts(target)) != len(nat.COMPILED) + 1:
            return "mypyc did not produce every module"
        (target / Path(nat.STAMP).name).write_text(nat.stamp_text())
        env = {k: v for k, v in os.environ.items() if k != nat.ENV}
        env["PYTHONPATH"] = str(ROOT / "src") if inplace else str(Path(self.build_lib).resolve())
        smoke = subprocess.run(
            [sys.executable, "-c", SMOKE], env=env, capture_output=True, text=True, check=False
        )
        if smoke.returncode != 0:
            print(smoke.stdout + smoke.stderr, file=sys.stderr)
            return "the compiled modules failed their smoke test"
        return None


building = bool(BUILDS.intersection(sys.argv[1:]))
setup(
    ext_modules=extensions() if building else [],
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
)
