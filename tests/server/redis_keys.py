"""Tests that use the machine's Redis leave nothing behind: their keys go at the end.

They connect as a node of a real site would: ``DOMINO_TEST_REDIS`` names the server
(and credentials that may create users); :func:`redis_url` is that server on database
13 as an ACL user with a password made for this test process
(``domino_bench.infra.shared_test_redis``), so a connection that drops the URL's
database or credentials fails the tests.
"""

from __future__ import annotations

import os

#: The machine's Redis (``None``: the Redis tests skip with :data:`NO_REDIS`).
REDIS_ADMIN = os.environ.get("DOMINO_TEST_REDIS")
NO_REDIS = "no Redis: set DOMINO_TEST_REDIS=redis://127.0.0.1:6379/0 (.ci/run does)"


def redis_url() -> str:
    """The URL the tests connect with: database 13, this process's ACL user."""
    from domino_bench.infra import shared_test_redis

    assert REDIS_ADMIN, NO_REDIS
    return shared_test_redis(REDIS_ADMIN)


def forget(url: str, prefix: str) -> int:
    """Delete every key under ``prefix`` (a test's own, e.g. ``fo1a2b3c_:``) in the Redis at
    ``url``; returns how many went."""
    if not prefix or any(c in prefix for c in "*?[]\\"):
        raise ValueError(f"not a plain key prefix: {prefix!r}")
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        return int(client.delete(*keys)) if keys else 0
    finally:
        client.close()
