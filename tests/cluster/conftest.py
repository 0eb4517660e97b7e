"""The cluster under test: three ``domino serve`` nodes behind HAProxy on 127.0.0.1.

They run against the machine's PostgreSQL (DOMINO_TEST_POSTGRES, each cluster on a
table prefix of its own, dropped afterwards) and Redis (DOMINO_TEST_REDIS); without
either, or without ``haproxy`` (``make test`` installs Debian's), the tests skip.
One cluster serves the whole module (starting one takes seconds); a test that
stops a node brings it back before it ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from domino.loadtest.cluster import Cluster, haproxy_binary

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


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    assert PG_URL is not None
    # The folder stays under pytest's temporary root: node and HAProxy logs to read.
    with Cluster(PG_URL, 3, redis_url=REDIS_URL, folder=tmp_path_factory.mktemp("cluster")) as c:
        yield c
