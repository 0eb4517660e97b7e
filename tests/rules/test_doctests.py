"""The ``>>>`` examples in the engine's docstrings run.

``doctest`` finds none in modules compiled with mypyc: test_native.py runs this file
on the pure-Python sources too.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import domino.rules

MODULES = [
    importlib.import_module(f"domino.rules.{m.name}")
    for m in pkgutil.iter_modules(domino.rules.__path__)
    if not m.name.endswith("__mypyc")  # the compiled modules' shared library
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
