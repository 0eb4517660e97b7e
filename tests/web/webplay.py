"""Shared steps for the browser tests: sign in, set up a lobby, play turn by turn.

Every wait is Playwright's auto-waiting for a page state (a selector, a function of the DOM),
never a sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TABLE = ".table-screen"
MATCH_END = "[data-testid=match-end]"
ROUND_END = "[data-testid=round-end]"
MY_TURN = ".dock.my-turn"

Page = Any  # playwright.sync_api.Page; kept loose so the module imports without playwright

# Seeds for the next matches the session's server starts, taken first to last (conftest's
# `server`); without one a match gets a random seed. A test that needs a known deal (and,
# bots being seeded by the match, a known match) puts one here right before its start.
SEEDS: list[str] = []


def new_page(browser: Any, **context: Any) -> Page:
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    # Generous: the tests wait for page states, and a loaded machine may be slow to reach them.
    page.set_default_timeout(45_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors  # checked by the tests: the client must not throw
    return page


def sign_in_as_guest(page: Page, base: str, name: str, *, keyboard: bool = False) -> None:
    page.goto(base + "/")
    field = page.locator("#guest-name")
    field.fill(name)
    if keyboard:
        field.press("Enter")
    else:
        page.get_by_role("button", name="Als Gast spielen").click()
    page.get_by_test_id("create-lobby").wait_for()


def set_rule(page: Page, rule: str, label: str) -> None:
    """Click a rule's option (host only) and wait until the server's lobby shows it."""
    group = page.locator(f".rule[data-rule={rule}]")
    group.get_by_role("button", name=label, exact=True).click()
    group.locator('button[aria-pressed="true"]', has_text=label).wait_for()


def open_lobby_with_bots(page: Page, levels: list[str], *, mode: str = "Blitz") -> None:
    """Create a lobby with len(levels)+1 seats, pick the mode and seat the bots."""
    seats = len(levels) + 1
    page.locator("#new-seats").select_option(str(seats))
    page.get_by_test_id("create-lobby").click()
    page.locator(".lobby-seats").wait_for()
    set_rule(page, "mode", mode)
    # The longest clock: on a loaded machine the server must never have to move for the test.
    set_rule(page, "turn_seconds", "30 s")
    for i, level in enumerate(levels, start=1):
        seat = page.locator(f".lobby-seat[data-seat='{i}']")
        seat.locator("select").select_option(level)
        seat.get_by_role("button", name="Bot hinzufügen").click()
        seat.locator(".badge").first.wait_for()


def start_match(page: Page) -> None:
    page.get_by_test_id("start").click()
    page.locator(TABLE).wait_for()
    page.wait_for_function("document.querySelector('.table-screen')?.dataset.phase")


def version(page: Page) -> str:
    return str(page.locator(TABLE).get_attribute("data-v"))


def wait_for_turn_or_end(page: Page, on_round_end: Callable[[Page], None] | None = None) -> str:
    """'turn' when the player may act, 'end' when the match is over.

    Passing through a round-end reveal calls `on_round_end` once per reveal.
    """
    while True:
        page.wait_for_selector(f"{MY_TURN}, {MATCH_END}, {ROUND_END}")
        if page.locator(MATCH_END).count():
            return "end"
        if page.locator(ROUND_END).count():
            if on_round_end:
                on_round_end(page)
            page.wait_for_selector(f"{ROUND_END}", state="detached")
            continue
        return "turn"


def wait_after(page: Page, before: str) -> None:
    """Wait until the table moved past version `before` (or the match ended)."""
    page.wait_for_function(
        "v => document.querySelector('.table-screen')?.dataset.v !== v"
        " || !!document.querySelector('[data-testid=match-end]')",
        arg=before,
    )


def playable(page: Page) -> list[tuple[int, str, str]]:
    """(index 0-based, tile, fits like 'L', 'R' or 'L R') of each highlighted hand tile.

    Read in one go inside the page, so a re-render cannot split the answer.
    """
    rows = page.locator(".hand .tile-btn").evaluate_all(
        """els => els.map((el, i) => [i, el.dataset.tile, el.classList.contains("playable"),
                                      el.querySelector(".fit-mark")?.textContent ?? ""])"""
    )
    return [(int(i), str(tile), str(fits)) for i, tile, ok, fits in rows if ok]


def play_match(
    page: Page,
    act: Callable[[Page], None],
    *,
    on_turn: Callable[[Page, int], None] | None = None,
    on_round_end: Callable[[Page], None] | None = None,
) -> int:
    """Play until the match ends; `act` makes exactly one move. Returns the number of moves."""
    moves = 0
    while wait_for_turn_or_end(page, on_round_end) == "turn":
        if on_turn:
            on_turn(page, moves)
        before = version(page)
        act(page)
        wait_after(page, before)
        moves += 1
        assert moves < 400, "the match does not end"
    return moves


def assert_no_js_errors(page: Page) -> None:
    assert page.js_errors == [], page.js_errors
