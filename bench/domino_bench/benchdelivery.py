"""Messages per second and CPU per message: the in-process router against the Redis
router, with the audience on the same node and on another node.

Usage: ``python -m domino_bench.benchdelivery [MESSAGES] [ROUNDS] [REDIS_URL]`` (defaults:
20000 messages, 3 rounds, ``redis://127.0.0.1:6379/0``). Each round sends MESSAGES
state frames (about 600 bytes of JSON each) to one player whose one socket is

- ``inproc``: on the same node, through :class:`InProcessRouter`;
- ``redis-local``: on the same node, through :class:`RedisRouter` (delivered at
  once, and still published: no other node is known to listen);
- ``redis-remote``: on another node (a second :class:`RedisRouter` in the same
  process), through Redis.

A run ends when the socket has every message (and, for ``redis-local``, the
publisher's queue is empty). CPU is this process's (``time.process_time``: the
sender and, for ``redis-remote``, the receiving node too) and, separately, the Redis
server's (``INFO cpu``, which counts whatever else uses that server meanwhile).
Prints the best round of each.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import time
from typing import Any

import redis.asyncio as aioredis

from domino.server.cluster.redisrouter import RedisRouter
from domino.server.cluster.router import InProcessRouter

from .benchrouter import CountingConn, frame


async def redis_cpu(r: Any) -> float:
    info = await r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def run(kind: str, n: int, url: str) -> tuple[float, float, float]:
    """Seconds, process CPU seconds, Redis CPU seconds for ``n`` messages."""
    msgs = [frame(v) for v in range(n)]
    conn = CountingConn("p1")
    conn.want = n
    loop = asyncio.get_running_loop()
    conn.done = loop.create_future()
    if kind == "inproc":
        router = InProcessRouter()
        router.add_socket(conn)
        t0, c0 = time.perf_counter(), time.process_time()
        for m in msgs:
            router.to_player("p1", m)
        return time.perf_counter() - t0, time.process_time() - c0, 0.0
    prefix = f"bench-{secrets.token_hex(4)}:"
    clients = [aioredis.from_url(url, decode_responses=True) for _ in range(2)]
    a = RedisRouter(clients[0], "a", prefix=prefix)
    b = RedisRouter(clients[1], "b", prefix=prefix)
    await a.start()
    await b.start()
    (a if kind == "redis-local" else b).add_socket(conn)
    await b.settle()
    await a.settle()
    r0 = await redis_cpu(clients[0])
    t0, c0 = time.perf_counter(), time.process_time()
    for i, m in enumerate(msgs):
        a.to_player("p1", m)
        if i % 500 == 499:
            await asyncio.sleep(0)  # a match runner yields between commands
            if a.backlog > 5000:
                await a._flush()  # the bench's own brake, below the queue's bound
    if kind == "redis-local":
        await a._flush()
    else:
        await conn.done
    spent = time.perf_counter() - t0, time.process_time() - c0
    redis_spent = await redis_cpu(clients[0]) - r0
    await a.stop()
    await b.stop()
    for c in clients:
        await c.aclose()
    return spent[0], spent[1], redis_spent


async def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    url = sys.argv[3] if len(sys.argv) > 3 else "redis://127.0.0.1:6379/0"
    best: dict[str, tuple[float, float, float]] = {}
    for _ in range(rounds):
        for kind in ("inproc", "redis-local", "redis-remote"):
            got = await run(kind, n, url)
            if kind not in best or got[1] < best[kind][1]:
                best[kind] = got
    print(f"{n} messages, best of {rounds} rounds (by process CPU)")
    print(f"{'router':14} {'msg/s':>10} {'CPU µs/msg':>11} {'Redis CPU µs/msg':>17}")
    for kind, (wall, cpu, rcpu) in best.items():
        print(f"{kind:14} {n / wall:10.0f} {cpu / n * 1e6:11.1f} {rcpu / n * 1e6:17.1f}")


if __name__ == "__main__":
    asyncio.run(main())
