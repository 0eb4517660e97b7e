"""Puzzles in Chromium (docs/puzzles.md): from the start page to the puzzle of the day,
solved by keys on a desktop and by touch on a phone; the answer shows Meister's expected
points per option and links the moment in the replay.

The server's database holds one finished, analysed match (docs/examples/double-first.json:
Anna should lay 5|5 before 5|3) and its puzzles, built as `domino puzzles build` does.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_gamepad import PAD_STUB, RIGHT, A, press
from webplay import assert_no_js_errors, new_page

from domino.analysis import review
from domino.rules.record import loads
from domino.server.desks.puzzles import build_in_worker, build_match
from domino.server.storage.db import Database

if TYPE_CHECKING:
    from live import LiveServers

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "double-first.json"
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
PUZZLE = "[data-testid=puzzle]"
VERDICT = "[data-testid=puzzle-result] .puzzle-verdict"


async def _seed(data: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{data / 'domino.sqlite'}")
    await db.create()
    try:
        record = loads(EXAMPLE.read_text(encoding="utf-8"))
        mid = "m_puzzle1"
        seats = [{"name": "Anna", "kind": "human", "player_id": "p_anna"}, {"name": "Ben"}]
        await db.create_match(mid, None, record["rules"], seats, "s", 1.0, [])
        player = {"seat": 0, "profile_id": "p_anna", "place": 1, "xp": 1, "won": True}
        await db.finish_match(mid, 2.0, {"standings": []}, record, [{**player, "finished": True}])
        analysis = review(record, samples=200, seed=mid, hindsight=False)
        await db.claim_analysis(mid, "n", 3.0, 1, 200, 0.0)
        await db.finish_analysis(mid, "n", 4.0, json.dumps(analysis))

        async def here(*args: Any) -> str:
            return build_in_worker(*args)

        built = await build_match(db, mid, lambda: 5.0, here)
        assert built is not None and built.passed == 1, built
    finally:
        await db.close()


@pytest.fixture(scope="module")
def puzzle_server(
    tmp_path_factory: pytest.TempPathFactory, module_live_server: LiveServers, server: str
) -> str:
    data = tmp_path_factory.mktemp("puzzle-data")
    # Its own thread: Playwright's sync API keeps an event loop running in this one.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _seed(data)).result()
    return module_live_server(module_live_server.settings(data_dir=data, analysis_workers=0))


def test_the_start_page_leads_to_the_daily_puzzle_solved_by_keys(
    puzzle_server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(puzzle_server + "/")
    page.get_by_test_id("start-puzzles").click()
    page.locator(PUZZLE).wait_for()
    assert page.locator(".puzzle-task").inner_text().startswith("Du sitzt auf dem Platz von Anna")
    assert page.locator(".puzzle-tile").count() == 2
    # By keys alone: Tab to 5|5, Enter.
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement?.dataset?.tile") == "5|5":
            break
    else:
        pytest.fail("5|5 never got the keyboard focus")
    page.keyboard.press("Enter")
    page.locator(VERDICT).wait_for()
    assert page.locator(VERDICT).inner_text() == "Richtig! Das ist Meisters Zug."
    rows = page.locator("[data-testid=puzzle-options] li")
    assert rows.count() == 2
    best = rows.nth(0).inner_text()
    assert best.startswith("5|5 Rechts: +") and "Meisters Wahl" in best and "deine Antwort" in best
    assert "in der Partie gespielt" in rows.nth(1).inner_text()
    assert page.get_by_text("Mit einem Konto bekommst du").count() == 1
    text = page.locator("[data-testid=puzzles]").inner_text()
    assert not re.search(r"\b(null|undefined|NaN)\b|\{\w*\}", text), text
    page.screenshot(path=str(shots / "puzzle-desktop.png"))
    # The link opens the moment in the replay: round 1, before move 12.
    page.get_by_test_id("puzzle-replay").click()
    page.wait_for_url("**/#/replay/m_puzzle1/1/11")
    page.locator("[data-testid=replay]").wait_for()
    assert_no_js_errors(page)


def test_a_phone_solves_the_puzzle_by_touch(puzzle_server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, **PHONE)
    page.goto(puzzle_server + "/#/puzzles")
    page.locator(PUZZLE).wait_for()
    page.locator("[data-tile='5|3']").tap()
    page.locator(VERDICT).wait_for()
    assert page.locator(VERDICT).inner_text() == "Nicht ganz. Meister wählt 5|5 Rechts."
    assert page.locator("[data-testid=puzzle-options] li.best").inner_text().startswith("5|5")
    # Answered: the tiles take no second answer.
    assert page.locator("[data-tile='5|5']").is_disabled()
    text = page.locator("[data-testid=puzzles]").inner_text()
    assert not re.search(r"\b(null|undefined|NaN)\b|\{\w*\}", text), text
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the puzzle is wider than the phone: {width}px"
    page.screenshot(path=str(shots / "puzzle-phone.png"), full_page=True)
    # "Deine Fehler" asks a signed-out visitor to sign in.
    page.locator("a[href='#/puzzles/mine']").tap()
    page.get_by_test_id("puzzles-error").wait_for()
    assert "Melde dich an" in page.get_by_test_id("puzzles-error").inner_text()
    assert_no_js_errors(page)


def test_a_controller_solves_the_puzzle(puzzle_server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.add_init_script(PAD_STUB)
    page.goto(puzzle_server + "/#/puzzles")
    page.locator(PUZZLE).wait_for()
    # The D-pad walks the page's controls to 5|5, A answers.
    for _ in range(30):
        press(page, RIGHT)
        if page.evaluate("document.activeElement?.dataset?.tile") == "5|5":
            break
    else:
        pytest.fail("the D-pad never reached 5|5")
    press(page, A)
    page.locator(VERDICT).wait_for()
    assert page.locator(VERDICT).inner_text() == "Richtig! Das ist Meisters Zug."
    # The focus moved to the replay link: A follows it.
    assert page.evaluate("document.activeElement?.dataset?.testid") == "puzzle-replay"
    press(page, A)
    page.wait_for_url("**/#/replay/m_puzzle1/1/11")
    assert_no_js_errors(page)
