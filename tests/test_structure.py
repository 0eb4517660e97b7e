"""The package's shape (issue "The server in rooms"): no import cycle anywhere in
``domino`` (imports made only for types count: a cycle of types is still a cycle of
knowledge), and no server module longer than a reader can hold."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import domino

SRC = Path(domino.__file__).resolve().parent
#: The longest module the server may have (lines). A file above it holds two concerns.
SERVER_MODULE_LINES = 500


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in SRC.rglob("*.py") if "migrations" not in p.parts}


def imported(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The modules of ``domino`` that ``name`` imports (the module itself when
    ``from package import module``, else the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in known else base
                if target in known and target != name:
                    yield target
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in known and a.name != name)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycles_finds_a_cycle_of_two_and_of_three() -> None:
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"a"}}
    assert sorted(cycles(graph)) == [["a", "b"], ["c", "d", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_of_the_package_imports_itself_round_a_cycle() -> None:
    known = modules()
    graph = {name: set(imported(name, path, known)) for name, path in known.items()}
    assert cycles(graph) == []


def test_no_server_module_is_longer_than_a_reader_can_hold() -> None:
    long = {
        str(path.relative_to(SRC)): lines
        for path in (SRC / "server").rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > SERVER_MODULE_LINES
    }
    assert long == {}
