"""How a serving process runs the app on uvicorn (``domino serve``, the benchmark, tests).

One place for the choices: httptools for HTTP, the lean WebSocket transport of
:mod:`.rawws` for ``/ws`` (websockets' sans-I/O ``ServerProtocol`` in a small
shell; ``ws="websockets-sansio"`` serves ``/ws`` with uvicorn's protocol class
of that name and the ASGI route instead, to compare), no permessage-deflate
(each compressing socket holds zlib state of tens of KB and spends CPU per
frame, for state messages of 2–3 KB), frames limited to ``Settings.max_frame``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI

from .rawws import protocol_factory
from .settings import Settings

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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
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


__all__ = ["TRANSPORTS", "free_port", "serving_in_thread", "uvicorn_config"]
