"""``domino bench hint``: what a hint (*Tipp*) costs (docs/performance.md).

Two figures, in one run:

1. **CPU per hint.** ``--positions`` seat views at random moments of seeded rounds
   (3 seats and 4 seats *Paare*, each view with two or more candidates), each hint
   computed in this process as the server's worker does (:func:`domino.analysis.hints.hint`,
   Meister's playouts): CPU seconds (``time.process_time``), p50 and p99.
2. **Latency it adds to live matches.** The real server (as ``domino bench server``
   starts it) with load processes playing ``--clients`` at human pace; windows of
   ``--window`` seconds alternate *off* and *on*. Beside them ``--askers`` players play
   quick games against a bot all the time; in *on* windows each asks for a hint on every
   turn it may (the lobby's three a round) and plays the hinted move after ``--delay``
   seconds, in *off* windows it plays on its own. So the two kinds of window differ only
   by the hints.
   Command→event p50/p99 of the live clients in each kind of window are printed side by
   side, with the hints answered and refused.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from domino.analysis.hints import hint
from domino.bots.meister import candidates
from domino.rules import MatchState, Mode, Rules, SeatView, view

from . import child_env
from .bench import Loader, _measure, _wait_ready, percentile
from .launcher import ServerProcess
from .procstat import raise_nofile


def register(what: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``domino bench hint``."""
    p = what.add_parser("hint", help="CPU per hint, live latency beside hint-askers")
    p.add_argument("--positions", type=int, default=200, help="views hinted for the CPU figure")
    p.add_argument("--clients", type=int, default=400, help="live clients (4 per table)")
    p.add_argument("--askers", type=int, default=50, help="players asking for hints")
    p.add_argument("--delay", type=float, default=1.0, help="seconds before each move")
    p.add_argument("--warmup", type=float, default=10.0)
    p.add_argument("--window", type=float, default=20.0)
    p.add_argument("--pairs", type=int, default=2, help="off/on window pairs")
    p.add_argument("--cpu-only", action="store_true", help="only the CPU figure")
    p.set_defaults(func=run)


def views(count: int, seed: str = "bench-hint") -> list[SeatView]:
    """``count`` seat views with a choice, from seeded rounds of random legal play (half
    3 seats, half 4 seats *Paare*)."""
    rng = random.Random(seed)
    presets = [Rules.preset(Mode.KLASSISCH, 3), Rules.preset(Mode.KLASSISCH, 4, pairs=True)]
    out: list[SeatView] = []
    k = 0
    while len(out) < count:
        k += 1
        m = MatchState(presets[k % 2], seed=f"{seed}/{k}")
        while not m.round.over and len(out) < count:
            v = view(m, m.round.turn)
            if len(candidates(v)) >= 2 and rng.random() < 0.25:
                out.append(v)
            m.apply(rng.choice(v.legal), m.round.turn)
    return out


def run(args: argparse.Namespace) -> int:
    """Entry point of ``domino bench hint``."""
    cpu = []
    for i, v in enumerate(views(args.positions)):
        t0 = time.process_time()
        hint(v, f"bench/{i}")
        cpu.append(time.process_time() - t0)
    ms = sorted(1000 * c for c in cpu)
    p50, p99 = percentile(ms, 0.5) or 0.0, percentile(ms, 0.99) or 0.0
    print(
        f"hint CPU ({args.positions} views, 3 seats and Paare, Meister's playouts): "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {ms[-1]:.1f} ms"
    )
    if args.cpu_only:
        return 0
    raise_nofile()
    with tempfile.TemporaryDirectory(prefix="domino-bench-hint-") as tmp:
        data = Path(tmp) / "data"
        server = ServerProcess(data, log=Path(tmp) / "server.log")
        server.start()
        try:
            asyncio.run(_windows(args, server))
        finally:
            server.stop()
    return 0


#: The longest wait for the first hint answered, before the windows (seconds).
HINT_START_WAIT = 120.0

#: Whether the askers ask now (the *on* windows); they play in both kinds of window.
ASKING = [False]


async def asker(
    url: str, ws_url: str, i: int, counts: Counter[str], *, always: bool = False
) -> None:
    """One player: quick games against a bot; in *on* windows (``always``: in any) a hint
    on every turn it may (then the hinted move), else its own move."""
    async with httpx.AsyncClient(base_url=url, timeout=30.0) as http:
        r = await http.post("/api/guest", json={"name": f"Tipp {i}"})
        r.raise_for_status()
        token = r.json()["token"]
    rng = random.Random(i)
    async with connect(ws_url, origin=url, max_size=None) as ws:  # type: ignore[arg-type]
        await ws.send(json.dumps({"type": "hello", "token": token}))
        # By (match, version): versions start at 1 again in every new game.
        asked: set[tuple[str, int]] = set()
        moved: set[tuple[str, int]] = set()
        started = False
        # A hint asked and not yet answered: the state it brings (the log's "hint used"
        # entry, one version on) is not a new turn to ask about again.
        hinting = False
        last: dict[str, Any] = {}
        async for raw in ws:
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "welcome" or (kind == "state" and msg["phase"] == "match_over"):
                hinting = False
                if kind == "welcome" or started:
                    started = True
                    quick = {"type": "quick_game", "seats": 2, "level": "fortgeschritten"}
                    await ws.send(json.dumps({**quick, "leave": True}))
                continue
            if kind == "hint_answer":
                hinting = False
                counts["answered"] += 1
                await asyncio.sleep(args_delay(i))
                if (msg["match"], msg["v"]) not in moved:
                    moved.add((msg["match"], msg["v"]))
                    await ws.send(
                        json.dumps(
                            {
                                "type": "move",
                                "match": msg["match"],
                                "move": msg["move"],
                                "v": msg["v"],
                            }
                        )
                    )
                continue
            if kind == "error":
                hinting = False
                counts[msg["code"]] += 1
                st = last.get("state")
                if (
                    msg["code"].startswith("hint_")
                    and st
                    and (st["match_id"], st["v"]) not in moved
                ):
                    # No hint this time: the player moves on its own.
                    moved.add((st["match_id"], st["v"]))
                    await asyncio.sleep(args_delay(i))
                    move = rng.choice(st["view"]["legal"])
                    await ws.send(
                        json.dumps(
                            {"type": "move", "match": st["match_id"], "move": move, "v": st["v"]}
                        )
                    )
                continue
            if kind != "state" or msg["phase"] != "playing":
                continue
            v = msg["view"]
            if v["turn"] != msg["you"] or not v["legal"]:
                continue
            last["state"] = msg
            if hinting:
                continue
            here = (msg["match_id"], msg["v"])
            if len(v["legal"]) > 1 and here not in asked and (ASKING[0] or always):
                asked.add(here)
                hinting = True
                counts["asked"] += 1
                await ws.send(json.dumps({"type": "hint", "match": msg["match_id"], "v": msg["v"]}))
                continue
            if here in moved:
                continue
            moved.add(here)
            await asyncio.sleep(args_delay(i))
            await ws.send(
                json.dumps(
                    {
                        "type": "move",
                        "match": msg["match_id"],
                        "move": rng.choice(v["legal"]),
                        "v": msg["v"],
                    }
                )
            )


_DELAY = [1.0]


def args_delay(_: int) -> float:
    return _DELAY[0]


async def _windows(args: argparse.Namespace, server: ServerProcess) -> None:
    _DELAY[0] = args.delay
    cmd = [sys.executable, "-m", "domino_bench.load", "--url", server.url]
    cmd += ["--delay", str(args.delay), "--seats", "4", "--seed", "1"]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=child_env()
    )
    loader = Loader(proc)
    reader = asyncio.create_task(loader.read())
    base = server.sample()
    assert base is not None
    pooled: dict[str, list[float]] = {"off": [], "on": []}
    rows: list[tuple[str, Any, Counter[str]]] = []
    tasks: list[asyncio.Task[None]] = []
    try:
        groups = -(-args.clients // 4)
        await loader.send(f"groups {groups}")
        if not await _wait_ready([loader], groups * 4, groups, timeout=60 + args.clients * 0.05):
            print(f"  ({args.clients} clients: not all connected and seated in time)")
        await asyncio.sleep(args.warmup)

        counts: Counter[str] = Counter()
        tasks += [
            asyncio.create_task(asker(server.url, server.ws_url, i, counts))
            for i in range(args.askers)
        ]
        await asyncio.sleep(args.warmup)  # the askers sign in and start their games
        # The server starts its hint workers at the first hint asked (processes that
        # import the engine: seconds on a busy machine). One more player, in a game of
        # its own, asks until one is answered, so no window pays for that start and the
        # askers' hints per round are untouched; bounded, as hints may be off.
        started: Counter[str] = Counter()
        starter = asyncio.create_task(
            asker(server.url, server.ws_url, args.askers, started, always=True)
        )
        deadline = time.monotonic() + HINT_START_WAIT
        while not started["answered"] and time.monotonic() < deadline and not starter.done():
            await asyncio.sleep(0.1)
        starter.cancel()
        await asyncio.gather(starter, return_exceptions=True)

        async def on() -> tuple[str, Any, Counter[str]]:
            before = Counter(counts)
            ASKING[0] = True
            row = await _measure([loader], server, base.rss, args.window)
            ASKING[0] = False
            pooled["on"] += loader.lat
            return ("on", row, counts - before)

        async def off() -> tuple[str, Any, Counter[str]]:
            row = await _measure([loader], server, base.rss, args.window)
            pooled["off"] += loader.lat
            return ("off", row, Counter())

        for i in range(args.pairs):
            pair = [await off(), await on()] if i % 2 == 0 else [await on(), await off()]
            rows += pair
            print(
                "  " + "; ".join(f"{k}: p99 {r.p99} ms {dict(c) if c else ''}" for k, r, c in pair),
                flush=True,
            )
        off_p99 = percentile(pooled["off"], 0.99) or 0.0
        on_p99 = percentile(pooled["on"], 0.99) or 0.0
        off_p50 = percentile(pooled["off"], 0.5) or 0.0
        on_p50 = percentile(pooled["on"], 0.5) or 0.0
        if off_p99 and on_p99:
            print(
                f"live p50/p99 of every command in the kind's windows: off {off_p50:.2f}/"
                f"{off_p99:.2f} ms ({len(pooled['off'])} commands), on {on_p50:.2f}/"
                f"{on_p99:.2f} ms ({len(pooled['on'])}): p99 {100 * (on_p99 / off_p99 - 1):+.1f} %"
            )
        total: Counter[str] = Counter()
        for _, _, c in rows:
            total.update(c)
        print(f"hints with {args.askers} askers: {dict(total)}")
        for kind, r, _ in rows:
            print(
                f"  {kind}: server CPU {r.server_cpu:.0f} %, loadavg {r.loadavg}, errors {r.errors}"
            )
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await loader.send("stop")
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
        reader.cancel()
