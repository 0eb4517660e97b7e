"""The examples in the table package's docstrings run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import domino.table.model
import domino.table.table
import domino.table.xp


@pytest.mark.parametrize(
    "module", [domino.table.model, domino.table.table, domino.table.xp], ids=lambda m: m.__name__
)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
