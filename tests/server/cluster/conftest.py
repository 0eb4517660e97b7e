"""Fixtures of the cluster tests: a cluster's own prefix (:func:`prefix`) and its nodes
in this process (:func:`start_node`); the helpers that drive them are in nodes.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ..harness import Harness
from ..redis_keys import REDIS_ADMIN
from .nodes import NEEDS, PG_URL, cluster_prefix, node

#: ``start_node("a")``: node a of the test's cluster, started.
StartNode = Callable[[str], Harness]


@pytest.fixture
def prefix() -> Iterator[str]:
    """The test's table prefix on DOMINO_TEST_POSTGRES (its nodes' Redis keys under it):
    tables and keys go when the test ends. Skips without PostgreSQL and Redis."""
    if not (PG_URL and REDIS_ADMIN):
        pytest.skip(NEEDS)
    with cluster_prefix("fo") as name:
        yield name


@pytest.fixture
def start_node(tmp_path: Path, prefix: str) -> Iterator[StartNode]:
    """Starts nodes of one cluster (:func:`nodes.node`, each in a folder of ``tmp_path``
    named after it); every node started is closed when the test ends, in the order they
    were started (one the test closed itself stays closed)."""
    started: list[Harness] = []

    def start(name: str) -> Harness:
        h = node(tmp_path, prefix, name)
        started.append(h)
        return h

    try:
        yield start
    finally:
        for h in started:
            h.close()
