"""Which rules modules may run compiled, and whether the compiled ones are current.

Building the package (setup.py: ``pip install .``, a wheel, ``pip install -e .``
and ``make``'s in-place rebuild, ``tools/build_native.py``) compiles
:data:`COMPILED` with mypyc into extension modules beside their sources (in a
source tree: gitignored build artifacts) and writes :data:`STAMP`: the SHA-256
of each source it compiled.
The ``.py`` files stay the source of truth: :func:`guard` (run when
``domino.rules`` imports this module, before any other) loads the pure-Python
modules instead of the compiled ones when

- a source changed since it was compiled (the stamp does not match; a one-line
  warning says so), or
- the environment sets ``DOMINO_PURE_PYTHON=1`` (the test comparing both ways).

Without compiled modules (no compiler, or never built) Python imports the
sources anyway. This module imports nothing of ``domino`` and is never compiled;
setup.py and tools/build_native.py load it by its path. Its two operator lines
(the stale build here, the build's fallback to pure Python there) are German
from the catalogue like every other line, read by :func:`message` without
:mod:`domino.i18n` (which loads babel and every message file).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from itertools import takewhile
from pathlib import Path
from types import ModuleType
from typing import Final

HERE: Final = Path(__file__).parent
#: The modules of ``domino.rules`` compiled together (one mypyc group).
COMPILED: Final = ("kernel", "round", "playout", "deal", "tiles", "moves")
#: The mypyc group: its shared library is the extension ``domino.rules.native__mypyc``.
GROUP: Final = "domino.rules.native"
STAMP: Final = HERE / "native.stamp"
ENV: Final = "DOMINO_PURE_PYTHON"
#: The German message file (package data), read by :func:`message`.
CATALOGUE: Final = HERE.parent / "locale" / "de" / "LC_MESSAGES" / "domino.po"
#: What :func:`message` says if the catalogue cannot be read (a broken install).
_ENGLISH: Final = {
    "native_stale": "domino: the compiled rules modules do not match their sources; running "
    "pure Python (`make .venv/.installed` compiles them again)",
    "native_fallback": "domino: the rules kernel is not compiled ({why}); it runs as pure "
    "Python, only slower",
}


def _unquote(text: str) -> str:
    """A quoted string of a message file (gettext's C escapes)."""
    body = text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            i += 1
            c = {"n": "\n", "t": "\t", "r": "\r"}.get(body[i], body[i])
        out.append(c)
        i += 1
    return "".join(out)


def message(key: str, **params: object) -> str:
    """The German text of ``key`` from the catalogue, formatted: the same text as
    ``domino.i18n.t(key, ...)``, read with nothing but the standard library."""
    try:
        lines = [line.strip() for line in CATALOGUE.read_text(encoding="utf-8").splitlines()]
    except OSError:
        lines = []
    text = ""
    if f'msgid "{key}"' in lines:
        rest = lines[lines.index(f'msgid "{key}"') + 1 :]
        if rest and rest[0].startswith("msgstr "):
            parts = [rest[0].removeprefix("msgstr "), *takewhile(_quoted, rest[1:])]
            text = "".join(_unquote(p) for p in parts)
    text = text or _ENGLISH.get(key, key)
    if not params:
        return text
    try:
        return text.format(**params)
    except (KeyError, IndexError, ValueError):
        return text


def _quoted(line: str) -> bool:
    return line.startswith('"')


def digests() -> dict[str, str]:
    """The SHA-256 of each compiled module's source as it is now."""
    return {m: hashlib.sha256((HERE / f"{m}.py").read_bytes()).hexdigest() for m in COMPILED}


def stamp_text() -> str:
    """What :data:`STAMP` holds after a build of the sources as they are now."""
    return json.dumps({"cache_tag": sys.implementation.cache_tag, "sources": digests()})


def built() -> bool:
    """Whether a compiled module for this interpreter lies beside the sources."""
    return any(
        (HERE / f"{m}{suffix}").exists()
        for m in COMPILED
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


def current() -> bool:
    """Whether the stamp matches the sources (the compiled modules are theirs)."""
    try:
        return STAMP.read_text() == stamp_text()
    except OSError:
        return False


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` source of the modules in :data:`COMPILED`, never the extension."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __package__ or name not in COMPILED:
            return None
        return importlib.util.spec_from_file_location(fullname, HERE / f"{name}.py")


def pure() -> bool:
    """Whether the rules run as pure Python (no compiled module is, or will be, loaded)."""
    return any(isinstance(f, _SourceFinder) for f in sys.meta_path) or not built()


def guard() -> None:
    """Make ``domino.rules`` import its sources when the compiled modules must not be used."""
    if pure() or any(f"{__package__}.{m}" in sys.modules for m in COMPILED):
        return
    if os.environ.get(ENV, "") in ("", "0"):
        if current():
            return
        print(message("native_stale"), file=sys.stderr)
    sys.meta_path.insert(0, _SourceFinder())


def compiled() -> bool:
    """Whether the loaded rules kernel is the compiled one."""
    return "kernel" in loaded_compiled()


def loaded_compiled() -> list[str]:
    """The modules of :data:`COMPILED` that are loaded, as extension modules."""
    found = []
    for name in COMPILED:
        module = sys.modules.get(f"{__package__}.{name}")
        path = str(getattr(module, "__file__", "") or "")
        if module is not None and path and not path.endswith(".py"):
            found.append(name)
    return found


def library() -> str | None:
    """The file of the loaded mypyc group's shared library (the compiled code), if any."""
    module = sys.modules.get(f"{GROUP}__mypyc")
    return str(getattr(module, "__file__", "") or "") or None


if __package__ == "domino.rules":  # not when setup.py or tools/build_native.py load it by path
    guard()
