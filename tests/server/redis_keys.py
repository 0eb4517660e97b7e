"""Tests that use the machine's Redis leave nothing behind: their keys go at the end."""

from __future__ import annotations


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
