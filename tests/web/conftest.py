"""Browser tests: the real server on an ephemeral port, Debian's chromium driven by Playwright.

Never `playwright install`: the browser is /usr/bin/chromium (`make test` installs it).
Bots move after 50-120 ms and the round-end reveal lasts 4 s, so whole matches stay fast
while every screen can still be seen and photographed.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from live import LiveServers

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
# Screenshots go to an ignored folder; `make screenshots` sets DOMINO_SCREENSHOTS=docs/screenshots
# to renew the committed ones.
SHOTS = ROOT / os.environ.get("DOMINO_SCREENSHOTS", "test-artifacts/screenshots")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, session_live_server: LiveServers) -> str:
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is missing (make test installs it)")
    from webplay import SEEDS

    from domino.table import Timing

    settings = session_live_server.settings(
        data_dir=tmp_path_factory.mktemp("domino-data"),
        signin_burst=float("inf"),  # every browser of the session signs in from 127.0.0.1
        seeds=lambda: SEEDS.pop(0) if SEEDS else secrets.token_hex(16),
        timing=Timing(
            bot_delay=(0.05, 0.12),
            bot_step_delay=(0.03, 0.06),
            round_pause=4.0,
            grace=1.0,
        ),
    )
    # The same uvicorn choices as `domino serve` (the lean WebSocket transport included).
    return session_live_server(settings)


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


# -- evidence of a failure -------------------------------------------------------------------
FAILURES = ROOT / "test-artifacts" / "failures"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.stash[_FAILED] = report.failed


_FAILED = pytest.StashKey[bool]()


@pytest.fixture(autouse=True)
def close_pages(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's browser contexts are closed when it ends: pages left open kept their
    sockets, clocks and redraws going through every later test of the session. A failed
    test first leaves its evidence (:func:`_evidence`)."""
    yield
    if "browser" not in request.fixturenames:
        return
    b = request.getfixturevalue("browser")
    if request.node.stash.get(_FAILED, False):
        _evidence(b, request.node.name)
    for ctx in list(b.contexts):  # type: ignore[attr-defined]
        ctx.close()


def _evidence(b: object, name: str) -> None:
    """A screenshot, the table's public facts and the visible text of every open page, in
    test-artifacts/failures/ (the flaky-test hunt needs them)."""
    FAILURES.mkdir(parents=True, exist_ok=True)
    for ci, ctx in enumerate(b.contexts):  # type: ignore[attr-defined]
        for pi, page in enumerate(ctx.pages):
            stem = FAILURES / f"{name}-{ci}-{pi}"
            try:
                page.screenshot(path=f"{stem}.png", full_page=True)
                facts = page.evaluate(
                    """() => ({
                        dataset: {...(document.querySelector('.table-screen')?.dataset || {})},
                        focus: document.activeElement?.outerHTML?.slice(0, 300) || null,
                        hand: [...document.querySelectorAll('.hand .tile-btn')].map(
                            (b) => b.className + ' ' + (b.dataset.tile || '')),
                        ends: [...document.querySelectorAll('.end')].map((b) => b.className),
                        text: document.body.innerText,
                        trace: window.__dominoTrace || [],
                        net: window.__dominoNet || [],
                    })"""
                )
                errors = getattr(page, "js_errors", [])
                Path(f"{stem}.txt").write_text(
                    f"url: {page.url}\njs errors: {errors}\n{facts}\n", encoding="utf-8"
                )
            except Exception as exc:  # a closed page: say so, keep going
                Path(f"{stem}.txt").write_text(f"no evidence: {exc}\n", encoding="utf-8")
