"""``make``'s in-place build of the rules kernel, through the one build definition (setup.py).

Run by ``make .venv/.installed`` (so by ``make run`` and ``make test``) with the venv's
Python: ``.venv/bin/python tools/build_native.py``. ``pip install -e '.[dev]'`` (make's
step before) already compiles the modules that ``domino.rules.native.COMPILED`` names
beside their sources and stamps them; this script builds again only when that build is
missing or stale (a rules source changed since): ``setup.py build_ext --inplace``, the
same compile, smoke round and stamp as every wheel. Its output goes to
``build/native/build.log``; when the build falls back to pure Python, the one line it
printed is printed here too (pip keeps a build's output to itself). ``--clean`` only
removes the build.

Exit status 0 either way (a missing compiler must not stop ``make run``).
"""

from __future__ import annotations

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
REPORT = BUILD / "fallback.txt"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _native() -> ModuleType:
    # domino.rules.native by its path: importing domino.rules would load the modules.
    return _load("_domino_native", RULES / "native.py")


def clean() -> None:
    for path in RULES.iterdir():
        if path.name == "native.stamp" or (
            path.suffix in (".so", ".pyd") and path.name.split(".")[0] in _names()
        ):
            path.unlink()


def _names() -> set[str]:
    native = _native()
    return {*native.COMPILED, str(native.GROUP).rpartition(".")[2] + "__mypyc"}


def build() -> str | None:
    """Build in place unless the build there is current; ``None``, or the fallback line."""
    native = _native()
    if native.built() and native.current():
        return None
    BUILD.mkdir(parents=True, exist_ok=True)
    REPORT.unlink(missing_ok=True)
    env = {**os.environ, "DOMINO_BUILD_REPORT": str(REPORT)}
    with LOG.open("w") as log:
        done = subprocess.run(
            [sys.executable, str(ROOT / "setup.py"), "build_ext", "--inplace"],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
            cwd=ROOT,
            env=env,
        )
    if REPORT.exists():
        return REPORT.read_text(encoding="utf-8").strip()
    if done.returncode != 0 or not (native.built() and native.current()):
        clean()
        return str(native.message("native_fallback", why=f"setup.py exit {done.returncode}"))
    return None


def main() -> int:
    if sys.argv[1:] == ["--clean"]:
        clean()
        return 0
    try:
        line = build()
    except Exception as exc:  # anything at all: fall back, never fail the install
        clean()
        line = _native().message("native_fallback", why=f"{type(exc).__name__}: {exc}")
    if line is not None:
        print(f"{line} [{LOG.relative_to(ROOT)}]", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
