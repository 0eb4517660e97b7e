"""The cluster under test: three ``domino serve`` nodes behind HAProxy on 127.0.0.1.

They run against the machine's PostgreSQL (DOMINO_TEST_POSTGRES, each cluster on a
table prefix of its own, dropped afterwards) and Redis (DOMINO_TEST_REDIS: the nodes
connect to its database 13 as an ACL user made for the run, ``cluster_redis_url``); without
either, or without ``haproxy`` (``make test`` installs Debian's), the tests skip.
One cluster serves the whole module (starting one takes seconds); a test that
stops a node brings it back before it ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from domino_bench.cluster import Cluster, haproxy_binary
from domino_bench.infra import shared_test_redis

PG_URL = os.environ.get("DOMINO_TEST_POSTGRES")
REDIS_URL = os.environ.get("DOMINO_TEST_REDIS")


def skip_reason() -> str | None:
    """Why the cluster tests cannot run here, or ``None``."""
    if not PG_URL:
        return "cluster tests need PostgreSQL: set DOMINO_TEST_POSTGRES (.ci/run does)"
    if not REDIS_URL:
        return "cluster tests need Redis: set DOMINO_TEST_REDIS (.ci/run does)"
    if haproxy_binary() is None:
        return "cluster tests need haproxy: make test installs Debian's package"
    return None


def cluster_redis_url() -> str:
    """DOMINO_TEST_REDIS's server on database 13, as this process's ACL user with a
    password (made on first use, deleted at exit): what the nodes connect with."""
    assert REDIS_URL is not None
    return shared_test_redis(REDIS_URL)


def new_cluster(tmp_path_factory: pytest.TempPathFactory, **kw: Any) -> Cluster:
    """A cluster of three nodes on the test database and Redis (not started yet); skips
    where they are missing. ``kw`` overrides :class:`Cluster`'s fields."""
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    assert PG_URL is not None
    # The folder stays under pytest's temporary root: node and HAProxy logs to read.
    if "redis_url" not in kw:
        kw["redis_url"] = cluster_redis_url()
    return Cluster(PG_URL, kw.pop("n", 3), folder=tmp_path_factory.mktemp("cluster"), **kw)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with new_cluster(tmp_path_factory) as c:
        yield c
