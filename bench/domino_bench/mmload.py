"""One loader of ``domino bench matchmaking``: a share of the simulated players.

``python -m domino_bench.mmload`` reads its plan from stdin, one JSON line:
``{"players": [[i, url, at, wait, seats, mode], ...]}``. Then, before the clock:

1. it signs every player up as a guest (``/api/guest``, a pooled HTTP client per node,
   at most :data:`HANDSHAKES` in flight), opens its socket and says ``hello``;
2. it writes ``{"ready": n, "failed": k, "cpu": s}`` and waits for ``go T0`` (T0 on
   :func:`time.monotonic`, which is system-wide on Linux);
3. each player sends ``queue_join`` at ``T0 + at`` and measures ``queue_join`` →
   ``queue_left``; once its ``match_started`` came it leaves the match and closes.

Every 5 s a ``{"progress": ...}`` line; at the end ``{"done": [...], "cpu": s}`` with one
row per player: ``[wait, took, error, lag, match]`` (``lag``: how late the loader sent the
``queue_join`` after its planned time, the loader's own delay, not the queue's). It exits
when stdin closes (the driver is gone) or on SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect

from .procstat import raise_nofile

#: The most sign-ups and handshakes in flight at once per loader.
HANDSHAKES = 32


@dataclass
class Player:
    i: int
    url: str
    at: float
    wait: int
    seats: str
    mode: str
    ws: ClientConnection | None = None
    took: float | None = None
    error: str | None = None
    lag: float | None = None
    match: str | None = None

    def row(self) -> list[Any]:
        took = None if self.took is None else round(self.took, 4)
        lag = None if self.lag is None else round(self.lag, 4)
        return [self.wait, took, self.error, lag, self.match]


async def prepare(p: Player, http: httpx.AsyncClient, gate: asyncio.Semaphore) -> None:
    """Sign up and say hello (before the clock)."""
    async with gate:
        try:
            r = await http.post(p.url + "/api/guest", json={"name": f"Q{p.i}"})
            token = r.json()["token"]
            p.ws = await connect(
                p.url.replace("http://", "ws://", 1) + "/ws",
                compression=None,
                ping_interval=None,
                close_timeout=2,
                open_timeout=60,
                max_size=2**22,
            )
            await p.ws.send(json.dumps({"type": "hello", "token": token}))
            async with asyncio.timeout(60):
                while json.loads(await p.ws.recv())["type"] != "welcome":
                    pass
        except Exception as exc:
            p.error = "signup:" + type(exc).__name__


async def play(p: Player, t0: float) -> None:
    """Join at the planned time, wait for the table, leave it."""
    ws = p.ws
    if ws is None:
        return
    try:
        await asyncio.sleep(max(0.0, t0 + p.at - time.monotonic()))
        start = time.monotonic()
        p.lag = start - (t0 + p.at)
        await ws.send(
            json.dumps({"type": "queue_join", "seats": p.seats, "mode": p.mode, "wait": p.wait})
        )
        async with asyncio.timeout(p.wait + 60.0):
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "error":
                    p.error = m["code"]
                    return
                if m["type"] == "queue_left":
                    p.took = time.monotonic() - start
                    if m["reason"] != "matched":
                        p.error = m["reason"]
                        return
                    p.match = m["match"]
                    break
            while True:
                m = json.loads(await ws.recv())
                if m["type"] == "match_started":
                    await ws.send(json.dumps({"type": "leave_match", "match": p.match}))
                    break
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(5.0):
                while json.loads(await ws.recv())["type"] != "state":
                    pass
    except TimeoutError:
        p.error = p.error or "timeout"
    except Exception as exc:  # the run goes on; the report counts it
        p.error = p.error or type(exc).__name__
    finally:
        with contextlib.suppress(Exception):
            await ws.close()


def _out(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def main() -> None:
    raise_nofile(65536)
    loop = asyncio.get_running_loop()
    me = asyncio.current_task()
    if me is not None:
        loop.add_signal_handler(signal.SIGTERM, me.cancel)
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    plan = json.loads(await reader.readline())
    players = [Player(*row) for row in plan["players"]]
    gate = asyncio.Semaphore(HANDSHAKES)
    urls = sorted({p.url for p in players})
    limits = httpx.Limits(max_connections=HANDSHAKES, max_keepalive_connections=HANDSHAKES)
    clients = {u: httpx.AsyncClient(limits=limits, timeout=60.0) for u in urls}
    try:
        await asyncio.gather(*(prepare(p, clients[p.url], gate) for p in players))
    finally:
        for c in clients.values():
            await c.aclose()
    failed = sum(1 for p in players if p.error)
    _out({"ready": len(players) - failed, "failed": failed, "cpu": time.process_time()})
    line = (await reader.readline()).decode().split()
    if len(line) != 2 or line[0] != "go":
        return
    t0 = float(line[1])
    cpu0 = time.process_time()

    async def progress() -> None:
        while True:
            await asyncio.sleep(5.0)
            _out(
                {
                    "progress": {
                        "joined": sum(1 for p in players if p.lag is not None),
                        "paired": sum(1 for p in players if p.match is not None),
                        "failed": sum(1 for p in players if p.error),
                    }
                }
            )

    async def orphan() -> None:
        # The driver gone (stdin closed): stop.
        while await reader.readline():
            pass
        if me is not None:
            me.cancel()

    side = [asyncio.create_task(progress()), asyncio.create_task(orphan())]
    await asyncio.gather(*(play(p, t0) for p in players))
    for t in side:
        t.cancel()
    _out({"done": [p.row() for p in players], "cpu": time.process_time() - cpu0})


if __name__ == "__main__":
    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        asyncio.run(main())
    os._exit(0)
