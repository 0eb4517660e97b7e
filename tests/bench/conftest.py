"""A real server process on 127.0.0.1 for the hostile-client and REST fuzz tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from domino_bench.launcher import ServerProcess


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server as its own process (SQLite in a temporary folder), stopped afterwards."""
    tmp = tmp_path_factory.mktemp("server")
    proc = ServerProcess(tmp / "data", log=tmp / "server.log")
    proc.start()
    try:
        yield proc
    finally:
        code = proc.stop()
        log = (tmp / "server.log").read_text(errors="replace")
        # A clean stop (uvicorn re-raises the SIGTERM it handled), and nothing in the
        # log that looks like an unhandled failure.
        assert code in (0, -15), log[-3000:]
        assert "Traceback" not in log, log[-3000:]
