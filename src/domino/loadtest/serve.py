"""Run the real server in this process for the load and crash tests.

``python -m domino.loadtest.serve --port P --data DIR [--pace fast] [--profile OUT]``

It is ``create_app(Settings(...))`` on uvicorn with the same protocol choices
as ``domino serve`` (uvicorn's defaults: uvloop, httptools, websockets-sansio;
frames limited to ``Settings.max_frame``), with what a benchmark needs
on top: a raised file-descriptor limit, optionally fast table timing (the
crash test plays whole matches in seconds), a per-connection message budget
that can be widened, and an optional cProfile of the whole run, written when
the server stops (SIGTERM or SIGINT).
"""

from __future__ import annotations

import argparse
import cProfile
import socket
from pathlib import Path

from domino.table import Timing

from .procstat import raise_nofile

#: Table timing for the crash test: bots and round pauses in tens of milliseconds.
FAST = Timing(bot_delay=(0.02, 0.05), bot_step_delay=(0.01, 0.02), round_pause=0.2, grace=10.0)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def parser() -> argparse.ArgumentParser:
    """The command line of the server process."""
    p = argparse.ArgumentParser(prog="python -m domino.loadtest.serve")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--data", type=Path, required=True, help="folder of the SQLite database")
    p.add_argument("--pace", choices=("human", "fast"), default="human")
    p.add_argument("--burst", type=float, default=None, help="message budget: burst")
    p.add_argument("--rate", type=float, default=None, help="message budget: refill per second")
    p.add_argument("--profile", type=Path, default=None, help="write a cProfile here at exit")
    p.add_argument("--backlog", type=int, default=4096)
    return p


def main(argv: list[str] | None = None) -> int:
    """Start the server and serve until SIGTERM/SIGINT."""
    import uvicorn

    from domino.server import Settings, create_app

    args = parser().parse_args(argv)
    raise_nofile()
    extra: dict[str, float] = {}
    if args.burst is not None:
        extra["bucket_burst"] = args.burst
    if args.rate is not None:
        extra["bucket_rate"] = args.rate
    settings = Settings(
        host="127.0.0.1",
        port=args.port,
        data_dir=args.data,
        timing=FAST if args.pace == "fast" else None,
        **extra,  # type: ignore[arg-type]
    )
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        ws_max_size=settings.max_frame,
        proxy_headers=False,
        backlog=args.backlog,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    if args.profile is None:
        server.run()
        return 0
    prof = cProfile.Profile()
    try:
        prof.runcall(server.run)
    finally:
        prof.dump_stats(str(args.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
