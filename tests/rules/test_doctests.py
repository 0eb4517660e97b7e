"""The ``>>>`` examples in the engine's docstrings run."""

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
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
