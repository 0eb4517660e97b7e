"""How a serving process runs the app on uvicorn (``domino serve``, the benchmark, tests).

One place for the choices: httptools for HTTP, the lean WebSocket transport of
:mod:`.rawws` for ``/ws`` (websockets' sans-I/O ``ServerProtocol`` in a small
shell; ``ws="websockets-sansio"`` serves ``/ws`` with uvicorn's protocol class
of that name and the ASGI route instead, to compare), no permessage-deflate
(each compressing socket holds zlib state of tens of KB and spends CPU per
frame, for state messages of 2–3 KB), frames limited to ``Settings.max_frame``.
"""

from __future__ import annotations

import asyncio
import logging
import random
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from fastapi import FastAPI

from domino.server.service import HAND_OVER_WAIT, STOP_WAIT, Service
from domino.server.settings import Settings
from domino.server.transport.rawws import protocol_factory

#: The WebSocket transports :func:`uvicorn_config` can serve ``/ws`` with.
TRANSPORTS = ("lean", "websockets-sansio")


def uvicorn_config(app: FastAPI, settings: Settings, *, ws: str = "lean", **extra: Any) -> Any:
    """A ``uvicorn.Config`` for ``app`` (made by ``create_app(settings)``).

    ``ws``: ``"lean"`` (:mod:`.rawws`, what ``domino serve`` uses) or
    ``"websockets-sansio"`` (uvicorn's ``WebSocketsSansIOProtocol`` under the ASGI
    route :func:`.ws.websocket_endpoint`; not uvicorn's default, which is ``"auto"``).
    """
    if ws not in TRANSPORTS:
        raise ValueError(f"ws must be one of {TRANSPORTS}, not {ws!r}")
    protocol: Any = protocol_factory(app.state.service) if ws == "lean" else ws
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "http": "httptools",
        "ws": protocol,
        "ws_max_size": settings.max_frame,
        "ws_per_message_deflate": False,
        "proxy_headers": False,
    }
    options.update(extra)
    return uvicorn.Config(app, **options)


log = logging.getLogger("domino.server")


#: The longest a drain waits for its hand-over (:meth:`Service.drain`: the releases,
#: then at most ``HAND_OVER_WAIT`` for other nodes to take the matches), counted from
#: the SIGTERM; past it the node shuts down all the same (the sweepers of the other
#: nodes take what is left once its leases expire).
HAND_OVER_BOUND = HAND_OVER_WAIT + 2.0
#: How long the shutdown waits for open HTTP requests once the sockets are closed
#: (uvicorn's ``timeout_graceful_shutdown``); then the service stops (``STOP_WAIT``).
SHUTDOWN_WAIT = 5.0


def stop_bound(drain_grace: float) -> float:
    """The longest a SIGTERM takes to end the process, in seconds, give or take the
    closing of the database and Redis: the drain (the grace and the bounded hand-over
    run side by side from the SIGTERM), then the open requests, then the handlers.
    systemd's ``TimeoutStopSec`` should be above it (deploy/domino@.service)."""
    return max(drain_grace, HAND_OVER_BOUND) + SHUTDOWN_WAIT + STOP_WAIT


class NodeServer(uvicorn.Server):
    """uvicorn's server with a drain on SIGTERM (``domino serve``; docs/deploy.md).

    The first SIGTERM starts :meth:`Service.drain` (``/api/health`` answers 503, no
    new lobbies or matches; in a cluster the hand-over of the node's matches) and
    the ``drain_grace`` at the same moment, so that the balancer's health checks see
    the node and send new players elsewhere while the matches move. It shuts down
    when both are over, the hand-over bounded by :data:`HAND_OVER_BOUND`: at most
    ``max(drain_grace, HAND_OVER_BOUND)`` after the SIGTERM (times on the service's
    clock). Then it shuts down as uvicorn does: the listener closes and the lean
    transport closes every socket with 1012 (service restart), so clients reconnect
    through the balancer at once. SIGINT (Ctrl-C), or a second SIGTERM during the
    drain, shuts down at once. :func:`stop_bound` is the whole stop's bound.
    """

    def __init__(self, config: Any, service: Service, drain_grace: float = 0.0) -> None:
        super().__init__(config)
        self.service = service
        self.drain_grace = drain_grace
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain: asyncio.Task[None] | None = None
        self.draining = False  # a SIGTERM came: the next one shuts down at once

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if sig != signal.SIGTERM or self.should_exit or self._loop is None or self.draining:
            super().handle_exit(sig, frame)
            return
        self.draining = True
        self._captured_signals.append(sig)  # re-raised after shutdown, as uvicorn does
        # A signal handler runs between two bytecodes of the loop's own thread: hand the
        # work to the loop rather than start it here.
        self._loop.call_soon_threadsafe(self._start_drain)

    def _start_drain(self) -> None:
        if self._drain is None:
            self._drain = asyncio.get_running_loop().create_task(self._drain_then_exit())

    async def _drain_then_exit(self) -> None:
        clock = self.service.clock
        started = clock.now()
        if self.drain_grace > 0:
            log.info(
                "draining for %.1f s, then shutting down",
                self.drain_grace,
                extra={"event": "drain_grace", "seconds": self.drain_grace},
            )
        handing = asyncio.ensure_future(self.service.drain())
        handed = asyncio.Event()
        handing.add_done_callback(lambda _task: handed.set())
        await clock.wait_until(started + HAND_OVER_BOUND, handed)
        if not handing.done():
            handing.cancel()
            log.warning(
                "draining: hand-over not done after %.1f s; shutting down all the same",
                HAND_OVER_BOUND,
                extra={"event": "hand_over_cut", "seconds": HAND_OVER_BOUND},
            )
        elif not handing.cancelled() and handing.exception() is not None:
            log.error(
                "draining: the hand-over failed",
                exc_info=handing.exception(),
                extra={"event": "hand_over_failed"},
            )
        await clock.wait_until(started + self.drain_grace, asyncio.Event())
        self.should_exit = True


#: The kernel's range of ephemeral ports where /proc does not say (Linux's default).
_EPHEMERAL_DEFAULT = (32768, 60999)


def _ephemeral_ports() -> tuple[int, int]:
    try:
        lo, hi = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(lo), int(hi)
    except (OSError, ValueError):
        return _EPHEMERAL_DEFAULT


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now, for a listener started later.

    It lies outside the kernel's range of ephemeral ports: a port from that range can be
    taken by any outgoing connection made before the listener binds it (a node's
    connections to PostgreSQL and Redis), which once kept HAProxy from starting in a
    test ("Address already in use"). Falls back to a port the kernel picks."""
    lo, hi = _ephemeral_ports()
    spans = [(r0, r1) for r0, r1 in ((10000, lo - 1), (hi + 1, 65535)) if r1 - r0 >= 1000]
    rng = random.SystemRandom()
    for _ in range(200 if spans else 0):
        r0, r1 = rng.choice(spans)
        port = rng.randint(r0, r1)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving_in_thread(app: FastAPI, settings: Settings, **extra: Any) -> Iterator[str]:
    """Serve ``app`` as :func:`uvicorn_config` says, in a background thread, while inside.

    Yields the base URL once uvicorn listens (tests that drive a real server from the
    same process: the browser tests, the transport tests).
    """
    server = uvicorn.Server(uvicorn_config(app, settings, **extra))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10.0
    while not server.started:  # uvicorn flips `started` once it listens
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.025)
    try:
        yield f"http://{settings.host}:{settings.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


__all__ = [
    "HAND_OVER_BOUND",
    "SHUTDOWN_WAIT",
    "TRANSPORTS",
    "NodeServer",
    "free_port",
    "serving_in_thread",
    "stop_bound",
    "uvicorn_config",
]
