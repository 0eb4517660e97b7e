"""Fixtures of the server tests (see harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import Harness, harness


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with harness(tmp_path) as hh:
        yield hh
