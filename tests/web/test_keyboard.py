"""A whole match against a bot with the keyboard only: 1-9, L, R, D, P, arrows, Esc."""

from __future__ import annotations

from typing import Any

from webplay import (
    MATCH_END,
    assert_no_js_errors,
    new_page,
    play_match,
    playable,
)


def press_on(page: Any, locator: Any) -> None:
    """Activate a control from the keyboard: focus it, then Enter."""
    locator.focus()
    page.keyboard.press("Enter")


def test_whole_match_with_keyboard_only(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    page.goto(server + "/")
    page.locator("#guest-name").focus()
    page.keyboard.type("Kai")
    page.keyboard.press("Enter")
    press_on(page, page.get_by_test_id("create-lobby"))
    press_on(page, page.locator(".rule[data-rule=mode]").get_by_role("button", name="Blitz"))
    page.locator('.rule[data-rule=mode] button[aria-pressed="true"]', has_text="Blitz").wait_for()
    # The longest clock: on a loaded machine the server must never have to move for the test.
    press_on(page, page.locator(".rule[data-rule=turn_seconds]").get_by_role("button", name="30 s"))
    page.locator(
        '.rule[data-rule=turn_seconds] button[aria-pressed="true"]', has_text="30 s"
    ).wait_for()
    press_on(page, page.get_by_role("button", name="Bot hinzufügen"))
    page.get_by_test_id("start").wait_for(state="visible")
    page.wait_for_function("!document.querySelector('[data-testid=start]').disabled")
    press_on(page, page.get_by_test_id("start"))

    seen = {"esc": False, "arrows": False, "labels": False, "ends": False}
    fit_words = {"L": "passt links", "R": "passt rechts", "L R": "passt links und rechts"}

    def act(p: Any) -> None:
        tiles = playable(p)
        if not seen["labels"]:
            # Screen readers hear whose turn it is, and every tile says where it fits.
            p.locator("#announcer", has_text="Du bist dran").wait_for(state="attached")
            for i, tile, fits in tiles:
                label = p.locator(".hand .tile-btn").nth(i).get_attribute("aria-label")
                assert label == f"Stein {tile}, {fit_words[fits]}"
            seen["labels"] = True
        if not tiles:
            p.keyboard.press("D" if p.locator(".action.draw").is_enabled() else "P")
            return
        i, tile, fits = tiles[0]
        if not seen["ends"] and i < 9:
            # Select, go up to the open ends with the arrows, Enter on the end plays there.
            end = fits.split()[0]
            p.keyboard.press(str(i + 1))
            p.keyboard.press("ArrowUp")
            p.keyboard.press("ArrowLeft" if end == "L" else "ArrowRight")
            assert p.evaluate("document.activeElement.dataset.end") == end
            p.keyboard.press("Enter")
            seen["ends"] = True
            return
        if not seen["esc"] and i < 9:
            # Select, cancel with Esc: nothing is selected any more. (Digits reach the first
            # nine tiles only: a hand of ten or more waits for a tile among them.)
            p.keyboard.press(str(i + 1))
            p.locator(".tile-btn.selected").wait_for()
            p.keyboard.press("Escape")
            p.locator(".tile-btn.selected").wait_for(state="detached")
            seen["esc"] = True
        if not seen["arrows"] and i > 0:
            # Arrow keys walk the hand; L/R act on the focused tile.
            p.keyboard.press("1")
            for _ in range(i):
                p.keyboard.press("ArrowRight")
            assert p.evaluate("document.activeElement.dataset.tile") == tile
            # The keyboard focus is visible (a solid ring), not only a change of colour.
            assert p.evaluate("getComputedStyle(document.activeElement).outlineStyle") == "solid"
            seen["arrows"] = True
        elif i < 9:
            p.keyboard.press(str(i + 1))
        else:
            # Past the ninth tile: 9, then the arrows walk on (they drop the selection, so
            # L/R act on the focused tile).
            p.keyboard.press("9")
            for _ in range(i - 8):
                p.keyboard.press("ArrowRight")
            assert p.evaluate("document.activeElement.dataset.tile") == tile
        p.keyboard.press(fits.split()[0])

    moves = play_match(page, act)
    assert moves > 3
    assert seen["esc"] and seen["ends"]
    page.locator(MATCH_END).wait_for()
    assert_no_js_errors(page)


def test_focus_on_an_end_survives_a_rerender(server: str, browser: Any) -> None:
    """The board redraws itself (a resize, a message line, a snapshot): the focus stays put.

    A keyboard player who walked up to an open end must not lose it when the board is laid out
    again, which happens whenever the dock changes height (the hint line after a selection).
    """
    from webplay import open_lobby_with_bots, sign_in_as_guest, start_match, wait_for_turn_or_end

    page = new_page(browser, viewport={"width": 1280, "height": 800})
    sign_in_as_guest(page, server, "Fokus")
    open_lobby_with_bots(page, ["anfaenger"])
    start_match(page)
    while True:
        assert wait_for_turn_or_end(page) == "turn"
        tiles = playable(page)
        if tiles and tiles[0][0] < 9:
            break
        before = page.locator(".table-screen").get_attribute("data-v")
        page.keyboard.press("D" if page.locator(".action.draw").is_enabled() else "P")
        page.wait_for_function(
            "v => document.querySelector('.table-screen')?.dataset.v !== v", arg=before
        )
    i, _tile, fits = tiles[0]
    end = fits.split()[0]
    page.keyboard.press(str(i + 1))
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowLeft" if end == "L" else "ArrowRight")
    assert page.evaluate("document.activeElement.dataset.end") == end
    # The board is laid out again: a new size, then two animation frames for the observer.
    page.set_viewport_size({"width": 1180, "height": 760})
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert page.evaluate("document.activeElement.dataset.end") == end
    # Enter on the end still plays there.
    before = page.locator(".table-screen").get_attribute("data-v")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "v => document.querySelector('.table-screen')?.dataset.v !== v", arg=before
    )
    # A tile played from the hand with its key leaves the focus in the hand, not on the page.
    while wait_for_turn_or_end(page) == "turn":
        tiles = playable(page)
        before = page.locator(".table-screen").get_attribute("data-v")
        if not tiles or tiles[0][0] >= 9 or page.locator(".hand .tile-btn").count() < 2:
            page.keyboard.press("D" if page.locator(".action.draw").is_enabled() else "P")
            page.wait_for_function(
                "v => document.querySelector('.table-screen')?.dataset.v !== v", arg=before
            )
            continue
        page.keyboard.press(str(tiles[0][0] + 1))
        page.keyboard.press(tiles[0][2].split()[0])
        page.wait_for_function(
            "v => document.querySelector('.table-screen')?.dataset.v !== v", arg=before
        )
        assert page.evaluate("!!document.activeElement?.dataset?.tile")
        break
    assert_no_js_errors(page)
