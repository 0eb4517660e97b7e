"""Browser tests: the real server on an ephemeral port, Debian's chromium driven by Playwright.

Never `playwright install`: the browser is /usr/bin/chromium (`make test` installs it).
Bots move after 50-120 ms and the round-end reveal lasts 4 s, so whole matches stay fast
while every screen can still be seen and photographed.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is missing (make test installs it)")
    uvicorn = pytest.importorskip("uvicorn")
    from domino.server import create_app
    from domino.server.run import uvicorn_config
    from domino.server.settings import Settings
    from domino.table import Timing

    port = _free_port()
    settings = Settings(
        host="127.0.0.1",
        port=port,
        data_dir=tmp_path_factory.mktemp("domino-data"),
        signin_burst=float("inf"),  # every browser of the session signs in from 127.0.0.1
        timing=Timing(
            bot_delay=(0.05, 0.12),
            bot_step_delay=(0.03, 0.06),
            round_pause=4.0,
            grace=1.0,
        ),
    )
    app = create_app(settings)
    # The same uvicorn choices as `domino serve` (the lean WebSocket transport included).
    config = uvicorn_config(app, settings, log_level="warning", lifespan="on")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    # Waiting for start-up (not an assertion): uvicorn flips `started` once it listens.
    for _ in range(400):
        if srv.started:
            break
        time.sleep(0.025)
    else:
        pytest.fail("the test server did not start")
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
