"""The router's own Redis connections (``server/cluster/resp.py``) against the real Redis
(DOMINO_TEST_REDIS): they honour the URL's database, user and password as redis-py's
own connections do (a node whose writes landed in database 0 while its reads went to
the URL's database knew no other node's players)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import pytest

from domino.server.cluster import resp
from domino_bench.infra import url_as

from ..redis_keys import NO_REDIS, REDIS_ADMIN


@pytest.fixture
async def admin() -> AsyncIterator[object]:
    if not REDIS_ADMIN:
        pytest.skip(NO_REDIS)
    import redis.asyncio as aioredis

    r = aioredis.from_url(REDIS_ADMIN, decode_responses=True)
    yield r
    await r.aclose()


@pytest.fixture
async def acl_user(admin: object) -> AsyncIterator[tuple[str, str]]:
    """(name, password) of an ACL user made for this test, deleted after it."""
    name, password = f"domino_resp_{secrets.token_hex(4)}", secrets.token_hex(12)
    r: object = admin
    await r.execute_command(  # type: ignore[attr-defined]
        "ACL", "SETUSER", name, "on", f">{password}", "~*", "&*", "+@all"
    )
    yield name, password
    await r.execute_command("ACL", "DELUSER", name)  # type: ignore[attr-defined]


async def roundtrip(url: str, *command: str) -> object:
    """Open a router connection for ``url`` (as the router does: from a redis-py client's
    settings), send one command, return its reply."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(url, decode_responses=True)
    try:
        reader, writer = await resp.connect(client, "domino-test-resp")
        try:
            writer.write(resp.pack(command))
            return await resp.read(reader)
        finally:
            writer.close()
    finally:
        await client.aclose()


async def test_a_write_lands_in_the_urls_database_and_not_in_0(
    admin: object, acl_user: tuple[str, str]
) -> None:
    import redis.asyncio as aioredis

    key = f"test-resp-{secrets.token_hex(4)}"
    base = str(REDIS_ADMIN)
    for db in (13, 7):
        url = url_as(base, *acl_user, db)
        assert await roundtrip(url, "SET", key, f"in {db}") == b"OK"
        there = aioredis.from_url(url, decode_responses=True)
        zero = aioredis.from_url(url_as(base, *acl_user, 0), decode_responses=True)
        try:
            assert await there.get(key) == f"in {db}"
            assert await zero.get(key) is None
            await there.delete(key)
        finally:
            await there.aclose()
            await zero.aclose()
    # Without credentials in the URL, the database is still the URL's.
    plain = urlunsplit(urlsplit(base)._replace(path="/14"))
    assert await roundtrip(plain, "SET", key, "in 14") == b"OK"
    fourteen = aioredis.from_url(plain, decode_responses=True)
    try:
        assert await fourteen.get(key) == "in 14"
        await fourteen.delete(key)
    finally:
        await fourteen.aclose()


async def test_an_acl_user_is_authenticated_and_a_wrong_password_is_named(
    acl_user: tuple[str, str],
) -> None:
    name, password = acl_user
    url = url_as(str(REDIS_ADMIN), name, password, 13)
    assert await roundtrip(url, "ACL", "WHOAMI") == name.encode()
    with pytest.raises(ConnectionError) as refused:
        await roundtrip(url_as(str(REDIS_ADMIN), name, "not-" + password, 13), "PING")
    text = str(refused.value)
    assert name in text and "WRONGPASS" in text and password not in text
    # A database the server does not have is refused by name, not ignored.
    with pytest.raises(ConnectionError, match="database 99"):
        await roundtrip(url_as(str(REDIS_ADMIN), name, password, 99), "PING")
