"""Fixtures of the server tests (see harness.py and redis_keys.py)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import Harness, harness
from .redis_keys import REDIS_ADMIN, forget, redis_url


@pytest.fixture
def h(tmp_path: Path) -> Iterator[Harness]:
    with harness(tmp_path) as hh:
        yield hh


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A Redis key prefix of the test's own: its keys are deleted when the test ends
    (where there is a Redis; a test that needs one skips with :data:`redis_keys.NO_REDIS`)."""
    name = f"test-{secrets.token_hex(4)}:"
    yield name
    if REDIS_ADMIN:
        forget(redis_url(), name)
