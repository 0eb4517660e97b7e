"""The cluster's seat map in a real Redis (DOMINO_TEST_REDIS): who sits where, for every
node's welcome. A match that ends forgets its players' seats, but only its own: a seat
another node published meanwhile (the player's next match) stays.

One node on SQLite with Redis is enough: the other node is a second Redis client that
writes between the first node's Redis commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..harness import Harness, lobby_with_bots, start
from ..redis_keys import NO_REDIS, REDIS_ADMIN, redis_url


@pytest.fixture
def node(tmp_path: Path, redis_prefix: str) -> Iterator[Harness]:
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    h = Harness(
        tmp_path,
        redis_url=redis_url(),
        redis_prefix=redis_prefix,
        node="a",
        lease_ttl=30.0,
        sweep_every=3600.0,
    )
    try:
        yield h
    finally:
        h.close()


def seats_key(h: Harness) -> str:
    return f"{h.settings.redis_prefix}seats"


def call(h: Harness, method: str, *args: Any) -> Any:
    async def go() -> Any:
        return await getattr(h.service.redis, method)(*args)

    return h.tc.portal.call(go)


def interleave(h: Harness, write: tuple[Any, ...]) -> list[str]:
    """From now on, the node's Redis client lets another client run ``write`` once, right
    after the node's first command has had its answer (what another node can do between
    two round trips). Returns the list of the node's commands, filled as they go."""
    import redis.asyncio as aioredis

    client = h.service.redis
    real = client.execute_command
    other = aioredis.from_url(redis_url(), decode_responses=True)
    seen: list[str] = []

    async def execute_command(*args: Any, **options: Any) -> Any:
        seen.append(str(args[0]))
        try:
            return await real(*args, **options)
        finally:
            if len(seen) == 1:
                await other.execute_command(*write)
                await other.aclose()

    client.execute_command = execute_command
    return seen


def test_a_finished_match_forgets_its_seats_but_not_a_newer_one(node: Harness) -> None:
    anna = node.person("Anna")
    ben = node.person("Ben")
    lobby_with_bots(anna, 3, ["anfaenger"], joiners=(ben,))
    mid = start(anna)["match_id"]
    node.settle()
    runner = node.service.runners[mid]
    pa, pb = anna.profile["id"], ben.profile["id"]
    assert call(node, "hgetall", seats_key(node)) == {pa: f"{mid} 0", pb: f"{mid} 1"}

    # Ben's seat is already in another match on another node: it stays.
    call(node, "hset", seats_key(node), pb, "m_elsewhere 2")

    # Between the node's first command and the next, another node publishes Anna's seat
    # in a new match (she left this one and sat down there).
    seen = interleave(node, ("HSET", seats_key(node), pa, "m_next 0"))
    node.tc.portal.call(node.service.match_desk._unpublish_seats, runner, [pa, pb])
    assert seen, "the seats were not touched at all"
    assert call(node, "hgetall", seats_key(node)) == {pa: "m_next 0", pb: "m_elsewhere 2"}


def test_the_seats_of_a_finished_match_are_forgotten(node: Harness) -> None:
    anna = node.person("Anna")
    lobby_with_bots(anna, 2, ["anfaenger"])
    mid = start(anna)["match_id"]
    node.settle()
    runner = node.service.runners[mid]
    pa = anna.profile["id"]
    assert call(node, "hget", seats_key(node), pa) == f"{mid} 0"
    node.tc.portal.call(node.service.match_desk._unpublish_seats, runner, [pa])
    assert call(node, "hget", seats_key(node), pa) is None
