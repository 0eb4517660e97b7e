"""The ``>>>`` examples in the bots' docstrings run."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import domino.bots

MODULES = [
    importlib.import_module(f"domino.bots.{m.name}")
    for m in pkgutil.iter_modules(domino.bots.__path__)
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.failed == 0
