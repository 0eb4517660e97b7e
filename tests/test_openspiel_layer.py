"""``domino.openspiel`` sits beside the bots: it imports only ``domino.rules`` of this
project, and the game runs without ``open_spiel`` (no other module imports it at load)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "domino"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(("." * node.level) + node.module)
    return out


def test_openspiel_imports_only_the_rules() -> None:
    mods = _imports(SRC / "openspiel.py")
    ours = {m for m in mods if m.startswith(("domino", "."))}
    assert ours and all(m == "domino.rules" or m.startswith("domino.rules.") for m in ours), ours


def test_only_the_arena_names_it_and_nothing_loads_pyspiel() -> None:
    users = [
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if p.name != "openspiel.py" and any("openspiel" in m for m in _imports(p))
    ]
    assert users == ["cli/arena.py"]
    code = (
        "import sys, domino.cli, domino.cli.arena, domino.server.app, domino.bots;"
        "bad = [m for m in sys.modules if m.startswith(('pyspiel', 'open_spiel'))];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
