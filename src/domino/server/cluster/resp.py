"""Just enough RESP (the Redis protocol) for the router's two connections.

The router publishes in batches (one write, then one reply per command) and reads
pushes on its subscribed connection; redis-py, even with its hiredis parser, costs
1.3–1.4 times the CPU per message on that path (``domino bench router``,
docs/performance.md). The connection
settings (host and port or a Unix socket, user and password, database, TLS) come
from a ``redis.asyncio.Redis`` client's pool, so both sides reach the same server and
the same database.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Iterable
from typing import Any


async def connect(redis: Any, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A new connection to ``redis``'s server, authenticated (``AUTH [user] password``),
    on ``redis``'s database (``SELECT``, the URL's ``/db``) and named ``name``
    (``CLIENT LIST`` shows it). Refused credentials or database raise
    :class:`ConnectionError` naming the server, the user and the database (never
    the password)."""
    kw = redis.connection_pool.connection_kwargs
    timeout = kw.get("socket_connect_timeout") or 5.0
    if kw.get("path"):
        where = str(kw["path"])
        opened = asyncio.open_unix_connection(kw["path"])
    else:
        tls = None
        if "ssl" in redis.connection_pool.connection_class.__name__.lower():
            tls = ssl.create_default_context()
        host, port = kw.get("host", "localhost"), kw.get("port", 6379)
        where = f"{host}:{port}"
        opened = asyncio.open_connection(host, port, ssl=tls)
    async with asyncio.timeout(timeout):
        reader, writer = await opened
    try:
        password = kw.get("password")
        user = kw.get("username")
        if password:
            writer.write(pack(("AUTH", user, password) if user else ("AUTH", password)))
            async with asyncio.timeout(timeout):
                reply = await read(reader)
            if isinstance(reply, Exception):
                raise ConnectionError(
                    f"Redis at {where} refused the password of user {user or 'default'!r}: {reply}"
                )
        db = int(kw.get("db") or 0)
        if db:
            writer.write(pack(("SELECT", str(db))))
            async with asyncio.timeout(timeout):
                reply = await read(reader)
            if isinstance(reply, Exception):
                raise ConnectionError(f"Redis at {where} refused database {db}: {reply}")
        writer.write(pack(("CLIENT", "SETNAME", name)))
        async with asyncio.timeout(timeout):
            await read(reader)  # an error reply here does not matter
    except BaseException:
        writer.close()
        raise
    return reader, writer


def pack(args: Iterable[str]) -> bytes:
    """A command in RESP: an array of bulk strings."""
    parts = [arg.encode() for arg in args]
    out = [b"*%d\r\n" % len(parts)]
    for b in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


async def read(reader: asyncio.StreamReader) -> Any:
    """One RESP2 reply: bytes, int, list, ``None``, or an Exception for an error reply."""
    line = await reader.readuntil(b"\r\n")
    t, body = line[:1], line[1:-2]
    if t == b"$":
        n = int(body)
        if n < 0:
            return None
        return (await reader.readexactly(n + 2))[:-2]
    if t == b"*":
        n = int(body)
        if n < 0:
            return None
        return [await read(reader) for _ in range(n)]
    if t == b":":
        return int(body)
    if t == b"+":
        return body
    if t == b"-":
        return ConnectionError(body.decode(errors="replace"))
    raise ConnectionError(f"unexpected reply from Redis: {line[:40]!r}")


__all__ = ["connect", "pack", "read"]
