"""``domino bench router``: the router's Redis client, hand-written RESP against redis-py.

:class:`~domino.server.cluster.redisrouter.RedisRouter` speaks RESP on its own two connections
(``server/cluster/resp.py``): the publisher writes a batch of ``PUBLISH`` commands in one write
and reads one reply per command, the subscriber reads the pushes. This benchmark runs
the same router code with those two connections on redis-py instead
(:class:`LibraryRouter`: the batch through ``pipeline(transaction=False)``, the pushes
read by a redis-py connection's parser, hiredis when it is installed) and compares,
in one run, rounds of each in turn.

Each round: two nodes in this process (``a`` publishes, ``b`` has the player's only
socket), ``--messages`` state frames of about 600 bytes from ``a`` to the player, so
each crosses Redis (``a``'s publisher, ``b``'s subscriber). The round ends when the
socket has every frame. CPU is this process's (``time.process_time``: both nodes,
which is what a message costs the cluster's nodes); the Redis server's CPU is left
out (the same commands either way). The figure is the median over the rounds of
each client; the ratio is the library's CPU per message over the hand-written one's.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from domino.server.cluster.redisrouter import RedisRouter
from domino.server.transport.conn import Conn

#: The clients compared, in the order each round runs them.
CLIENTS = ("resp", "redis-py")


class CountingConn(Conn):
    """A socket that only counts what it is sent."""

    def __init__(self, profile: str) -> None:
        super().__init__(profile, profile)
        self.count = 0
        self.want = 0
        self.done: asyncio.Future[None] | None = None

    def send_text(self, text: str) -> None:
        self.count += 1
        if self.count == self.want and self.done is not None and not self.done.done():
            self.done.set_result(None)


class LibraryRouter(RedisRouter):
    """The router with redis-py on its two connections: the publisher's batch through a
    pipeline of the router's own client, the subscriber's pushes read by a redis-py
    connection's parser (hiredis when installed). Everything else is the router's."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._sub_conn: Any = None
        self._read_frame = self._read_with_library

    async def _connect_raw(self, role: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        conn = self.redis.connection_pool.make_connection()
        await conn.connect()  # AUTH, SELECT, CLIENT SETNAME as redis-py does them
        if role == "sub":
            conn.socket_timeout = None  # pushes come when they come (as on our own)
            self._sub_conn = conn
        return conn._reader, conn._writer

    async def _read_with_library(self, reader: asyncio.StreamReader) -> Any:
        return await self._sub_conn.read_response(disable_decoding=True)

    async def _send_batch(self, batch: list[tuple[str, ...]]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        published = 0
        for op in batch:
            if self._is_forgotten(op):
                continue
            if op[0] == "pub":
                pipe.publish(op[1], op[2])
                published += 1
            elif op[0] == "cmd":
                pipe.execute_command(*op[1:])
            else:  # sync: this node's presence, as the router writes it
                key = self._key("profiles", self.node)
                pipe.delete(key)
                if self.conns:
                    pipe.sadd(key, *self.conns)
                counts = self._key("watchers", self.node)
                pipe.delete(counts)
                for mid, conns in self.spectators.items():
                    pipe.hset(counts, mid, str(len(conns)))
                pipe.publish(self._presence_ch, self.node + "\n!")
        async with asyncio.timeout(self.alive_ttl):
            await pipe.execute(raise_on_error=False)
        self.published += published


def frame(v: int) -> dict[str, Any]:
    """A state frame of about 600 bytes of JSON."""
    return {
        "type": "state",
        "match": "m-bench",
        "v": v,
        "seat": 0,
        "hand": ["6|6", "6|5", "5|5", "4|2", "3|1", "2|0", "1|1"],
        "board": {"left": 6, "right": 3, "tiles": ["6|4", "4|4", "4|3"] * 4},
        "seats": [
            {"name": f"Spieler {i}", "tiles": 7, "score": 12 * i, "connected": True}
            for i in range(4)
        ],
        "legal": [{"tile": "6|6", "end": "L"}, {"tile": "3|1", "end": "R"}],
        "clock": {"seat": 0, "left_ms": 28000, "bank_ms": 120000},
    }


async def one_round(client: str, n: int, url: str) -> tuple[float, float]:
    """(seconds, process CPU seconds) for ``n`` frames from node a to a socket on b."""
    import redis.asyncio as aioredis

    kind = LibraryRouter if client == "redis-py" else RedisRouter
    prefix = f"bench-router-{secrets.token_hex(4)}:"
    # RESP2, as the router's own connections speak (redis-py 8 defaults to RESP3, where
    # pub/sub messages are pushes its connections hand to a push handler).
    clients = [aioredis.from_url(url, decode_responses=True, protocol=2) for _ in range(2)]
    a = kind(clients[0], "a", prefix=prefix)
    b = kind(clients[1], "b", prefix=prefix)
    conn = CountingConn("p1")
    conn.want = n
    conn.done = asyncio.get_running_loop().create_future()
    msgs = [frame(v) for v in range(n)]
    try:
        await a.start()
        await b.start()
        b.add_socket(conn)
        await b.settle()
        await a.settle()
        t0, c0 = time.perf_counter(), time.process_time()
        for i, m in enumerate(msgs):
            a.to_player("p1", m)
            if i % 500 == 499:
                await asyncio.sleep(0)  # a match runner yields between commands
                if a.backlog > 5000:
                    await a._flush()  # the bench's own brake, below the queue's bound
        await conn.done
        return time.perf_counter() - t0, time.process_time() - c0
    finally:
        await a.stop()
        await b.stop()
        for c in clients:
            await c.aclose()


def parser_name(url: str) -> str:
    """The name of the parser redis-py's connections use here (hiredis or not)."""
    import redis.asyncio as aioredis

    pool: Any = aioredis.from_url(url).connection_pool
    return type(pool.make_connection()._parser).__name__


async def compare(n: int, rounds: int, url: str) -> dict[str, list[tuple[float, float]]]:
    """Rounds of each client in turn: client -> [(seconds, CPU seconds), ...]."""
    out: dict[str, list[tuple[float, float]]] = {c: [] for c in CLIENTS}
    await one_round("resp", min(n, 1000), url)  # warm-up (imports, first connections)
    await one_round("redis-py", min(n, 1000), url)
    for _ in range(rounds):
        for client in CLIENTS:
            out[client].append(await one_round(client, n, url))
    return out


def report(n: int, got: dict[str, list[tuple[float, float]]], parser: str) -> str:
    hint = "" if "Hiredis" in parser else " (hiredis is not installed: pip install hiredis)"
    lines = [
        f"{n} frames per round, {len(got['resp'])} rounds of each client in turn; "
        f"redis-py's parser: {parser}{hint}",
        f"{'client':10} {'msg/s':>9} {'CPU µs/msg (median)':>20} {'rounds':>30}",
    ]
    med: dict[str, float] = {}
    for client, runs in got.items():
        cpu = [c / n * 1e6 for _, c in runs]
        med[client] = statistics.median(cpu)
        rate = statistics.median(n / w for w, _ in runs)
        each = ", ".join(f"{x:.1f}" for x in cpu)
        lines.append(f"{client:10} {rate:9.0f} {med[client]:20.1f} {each:>30}")
    lines.append(f"redis-py / resp CPU per message: {med['redis-py'] / med['resp']:.2f}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from .infra import PrivateRedis

    async def go(url: str) -> dict[str, list[tuple[float, float]]]:
        return await compare(args.messages, args.rounds, url)

    if args.redis:
        got = asyncio.run(go(args.redis))
        parser = parser_name(args.redis)
    else:
        with tempfile.TemporaryDirectory(prefix="domino-bench-router-") as tmp:
            redis = PrivateRedis(Path(tmp) / "redis")
            redis.start()
            try:
                got = asyncio.run(go(redis.url))
                parser = parser_name(redis.url)
            finally:
                redis.stop()
    print(report(args.messages, got, parser))
    return 0


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench router``."""
    p = what.add_parser(
        "router", help="the router's Redis client: hand-written RESP against redis-py (CPU)"
    )
    p.add_argument("--messages", type=int, default=20000, help="frames per round")
    p.add_argument("--rounds", type=int, default=5, help="rounds of each client, in turn")
    p.add_argument(
        "--redis", default=None, help="Redis URL (default: a private redis-server for the run)"
    )
    p.set_defaults(func=run)


__all__ = ["CLIENTS", "LibraryRouter", "compare", "register", "report"]
