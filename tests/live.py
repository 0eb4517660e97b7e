"""A real server on 127.0.0.1 for a test: what the ``live_server`` fixtures
(tests/conftest.py) hand out.

The server is imported when a test starts one: the rules and bot tests never load it."""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domino.server import Settings


class LiveServers:
    """Real servers (uvicorn in a background thread, as ``domino serve`` runs it), each on
    a free port of 127.0.0.1; all stopped when the fixture ends, or one by :meth:`stop`.

    ``servers(servers.settings(data_dir=...))`` starts one and returns its base URL.
    """

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._running: dict[str, ExitStack] = {}

    @staticmethod
    def settings(**fields: Any) -> Settings:
        """The settings of a server on 127.0.0.1 and a free port (``fields`` add to them),
        for a test that wants them before the server starts."""
        from domino.server import Settings
        from domino.server.run import free_port

        return Settings(**{"host": "127.0.0.1", "port": free_port(), **fields})

    def __call__(self, settings: Settings, **uvicorn: Any) -> str:
        """Serve ``create_app(settings)``; the base URL once it listens. ``uvicorn``: more
        of :func:`domino.server.run.uvicorn_config`'s options (``log_level`` is
        ``"warning"`` unless given)."""
        from domino.server import create_app
        from domino.server.run import serving_in_thread

        uvicorn.setdefault("log_level", "warning")
        own = ExitStack()
        url = own.enter_context(serving_in_thread(create_app(settings), settings, **uvicorn))
        self._running[url] = own
        self._stack.callback(self.stop, url)
        return url

    def stop(self, url: str) -> None:
        """Stop the server at ``url`` now (nothing if it stopped already)."""
        own = self._running.pop(url, None)
        if own is not None:
            own.close()

    def close(self) -> None:
        self._stack.close()
