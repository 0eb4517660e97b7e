"""How a serving process runs the app on uvicorn (``domino serve``, the benchmark, tests).

One place for the choices: httptools for HTTP, the lean WebSocket transport of
:mod:`.rawws` for ``/ws`` (``ws="uvicorn"`` keeps uvicorn's own, to compare),
no permessage-deflate (each compressing socket holds zlib state of tens of KB
and spends CPU per frame, for state messages of 2–3 KB), frames limited to
``Settings.max_frame``.
"""

from __future__ import annotations

from typing import Any

import uvicorn
from fastapi import FastAPI

from .rawws import protocol_factory
from .settings import Settings


def uvicorn_config(app: FastAPI, settings: Settings, *, ws: str = "lean", **extra: Any) -> Any:
    """A ``uvicorn.Config`` for ``app`` (made by ``create_app(settings)``)."""
    protocol: Any = protocol_factory(app.state.service) if ws == "lean" else "websockets-sansio"
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


__all__ = ["uvicorn_config"]
