"""One load process: many simulated people on one event loop.

``python -m domino_bench.load --url http://127.0.0.1:P [--delay 1] [--seats 4] ...``

It reads commands from stdin, one per line, and writes one JSON line of
figures to stdout every ``--interval`` seconds (see :meth:`Stats.drain`):

- ``groups N``: grow to N tables (groups are only added, never removed);
- ``flood``: one more client that sends ``ping`` as fast as it can; its close
  code is reported as ``flood_close`` (the server must close it with 1008);
- ``stop``: close every socket and exit.

The driver (:mod:`.bench`) runs several of these when one core's worth of
clients is not enough.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from domino.server.gcpolicy import GcPolicy

from .client import ClientConfig, Group, Stats, TableSpec
from .procstat import raise_nofile, sample

#: The most sign-ups and handshakes in flight at once (the server's accept queue).
HANDSHAKES = 32
#: A flooder stops by itself after this many messages or seconds.
FLOOD_MAX = 100_000
FLOOD_SECONDS = 20.0


async def flood(url: str, http: httpx.AsyncClient, report: dict[str, Any]) -> None:
    """Sign up, then send pings without waiting until the server closes the socket."""
    r = await http.post(url + "/api/guest", json={"name": "Flut"})
    token = r.json()["token"]
    ws_url = url.replace("http://", "ws://", 1) + "/ws"
    t0 = time.perf_counter()
    sent = 0
    async with connect(ws_url, compression=None, ping_interval=None, close_timeout=2) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        try:
            while sent < FLOOD_MAX and time.perf_counter() - t0 < FLOOD_SECONDS:
                await ws.send('{"type":"ping"}')
                sent += 1
                if sent % 64 == 0:
                    await asyncio.sleep(0)  # let the reader see the close
            await ws.wait_closed()
        except ConnectionClosed:
            pass
        report["flood_close"] = ws.close_code
        report["flood_sent"] = sent
        report["flood_seconds"] = round(time.perf_counter() - t0, 3)


async def run(args: argparse.Namespace) -> None:
    """Serve the driver's commands until ``stop`` or end of input."""
    raise_nofile()
    # The clients are the measuring instrument: their own full collections would show
    # up as server latency, so they run under the server's collector policy too.
    keeper = asyncio.get_running_loop().create_task(GcPolicy().keep())
    stats = Stats()
    cfg = ClientConfig(args.url, delay=args.delay, jitter=args.jitter)
    spec = TableSpec(
        seats=args.seats, bots=args.bots, bot_level=args.bot_level, spectators=args.spectators
    )
    rng = random.Random(args.seed)
    groups: list[Group] = []
    tasks: set[asyncio.Task[Any]] = set()
    extra: dict[str, Any] = {}
    gate = asyncio.Semaphore(HANDSHAKES)
    limits = httpx.Limits(max_connections=HANDSHAKES, max_keepalive_connections=HANDSHAKES)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def start_group(g: Group) -> None:
        try:
            await g.connect(http, gate)
            await g.play()
        except Exception as exc:  # one table failing must not stop the others
            stats.error(f"group:{type(exc).__name__}")

    async def report() -> None:
        me = time.perf_counter()
        while True:
            await asyncio.sleep(args.interval)
            out = stats.drain()
            out["groups"] = len(groups)
            s = sample(os.getpid())
            out["cpu"] = s.cpu if s else None
            out["t"] = round(time.perf_counter() - me, 3)
            out.update(extra)
            extra.clear()
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()

    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        reporter = asyncio.create_task(report())
        while True:
            line = (await reader.readline()).decode().strip()
            if not line or line == "stop":
                break
            cmd, _, arg = line.partition(" ")
            if cmd == "groups":
                while len(groups) < int(arg):
                    g = Group(len(groups) + args.gid_base, spec, cfg, stats, rng)
                    groups.append(g)
                    t = asyncio.create_task(start_group(g))
                    tasks.add(t)
                    t.add_done_callback(tasks.discard)
            elif cmd == "flood":
                t = asyncio.create_task(flood(args.url, http, extra))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
        for g in groups:
            g.stopping = True
        await asyncio.gather(*(g.close() for g in groups), return_exceptions=True)
        for t in tasks:
            t.cancel()
        reporter.cancel()
        keeper.cancel()


def parser() -> argparse.ArgumentParser:
    """The load process's command line."""
    p = argparse.ArgumentParser(prog="python -m domino_bench.load")
    p.add_argument("--url", required=True)
    p.add_argument("--delay", type=float, default=1.0, help="seconds before each move")
    p.add_argument("--jitter", type=float, default=0.0, help="extra random delay, seconds")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--bots", type=int, default=0)
    p.add_argument("--bot-level", default="anfaenger")
    p.add_argument("--spectators", type=int, default=0)
    p.add_argument("--interval", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--gid-base", type=int, default=0)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the load process."""
    args = parser().parse_args(argv)
    try:
        import uvloop

        uvloop.run(run(args))
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
