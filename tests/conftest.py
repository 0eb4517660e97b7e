"""Fixtures every test folder sees: real servers on 127.0.0.1 (:class:`live.LiveServers`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from live import LiveServers


def _live_servers() -> Iterator[LiveServers]:
    servers = LiveServers()
    try:
        yield servers
    finally:
        servers.close()


#: One test's servers; :data:`module_live_server` and :data:`session_live_server` are the
#: same for the fixtures of a module or of the session.
live_server = pytest.fixture(_live_servers, name="live_server")
module_live_server = pytest.fixture(_live_servers, scope="module", name="module_live_server")
session_live_server = pytest.fixture(_live_servers, scope="session", name="session_live_server")
