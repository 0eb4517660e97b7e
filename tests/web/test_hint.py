"""Tipp in the browser: the button, the T key and the controller's View button each ask
Meister; the hint highlights its tile and says one German sentence; the log says a hint
was used; the third hint of a round is the last (the lobby's default), on a desktop and a
phone."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from test_gamepad import PAD_STUB, press
from webplay import (
    MY_TURN,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    playable,
    set_rule,
    sign_in_as_guest,
    start_match,
    version,
    wait_after,
    wait_for_turn_or_end,
)

REASON = re.compile(r"^(Leg \d\|\d (links|rechts): |Knapp: |Zieh|Pass)")
VIEW = 8


def _hint_turn(page: Any) -> None:
    """Wait for a turn with at least two playable tiles (so Meister has a choice)."""
    while True:
        assert wait_for_turn_or_end(page) == "turn", "the match ended first"
        if len(playable(page)) >= 2:
            return
        before = version(page)
        tiles = playable(page)
        if tiles:
            i, _, fits = tiles[0]
            page.locator(".hand .tile-btn").nth(i).click()
            if " " in fits:
                page.locator(f"[data-end={fits.split()[0]}]").first.click()
        else:
            page.locator(".action.draw:not([disabled]), .action.pass:not([disabled])").first.click()
        wait_after(page, before)


def _got_hint(page: Any, count: int) -> str:
    """Wait for the hint's sentence and the log line; the sentence."""
    page.wait_for_function(
        "n => document.querySelectorAll('.log li').length && [...document.querySelectorAll("
        "'.log li')].filter(li => li.textContent.includes('Du hast einen Tipp genutzt.'))"
        ".length >= n",
        arg=count,
    )
    msg = page.locator(".dock .message")
    page.wait_for_function(
        "() => /^(Leg |Knapp|Zieh|Pass)/.test(document.querySelector('.dock .message')"
        "?.textContent || '')"
    )
    text = msg.text_content() or ""
    assert REASON.match(text), text
    return text


def test_a_hint_by_button_key_and_controller(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    page.add_init_script(PAD_STUB)
    sign_in_as_guest(page, server, "Tia")
    open_lobby_with_bots(page, ["profi"], mode="Klassisch")
    start_match(page)
    _hint_turn(page)
    button = page.locator(".action.hint")
    assert button.is_visible() and button.is_enabled()
    button.click()  # the mouse
    first = _got_hint(page, 1)
    if first.startswith("Leg "):
        tile = first.split()[1]
        page.locator(f".hand .tile-btn.hinted[data-tile='{tile}']").wait_for()
    page.screenshot(path=str(shots / "hint-desktop.png"))
    page.keyboard.press("t")  # the key
    _got_hint(page, 2)
    press(page, VIEW)  # the controller
    _got_hint(page, 3)
    # Three a round is the default: the button is off for the rest of the round.
    page.wait_for_function("document.querySelector('.action.hint')?.disabled === true")
    assert page.locator(MY_TURN).count() == 1
    assert_no_js_errors(page)


def test_the_hint_fits_on_a_phone(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, viewport={"width": 360, "height": 740}, has_touch=True)
    sign_in_as_guest(page, server, "Pia")
    open_lobby_with_bots(page, ["fortgeschritten"], mode="Klassisch")
    set_rule(page, "hints", "1")  # the lobby's setting: one hint a round
    start_match(page)
    _hint_turn(page)
    button = page.locator(".action.hint")
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert box["height"] >= 30
    button.tap()
    _got_hint(page, 1)
    page.wait_for_function("document.querySelector('.action.hint')?.disabled === true")
    page.screenshot(path=str(shots / "hint-phone.png"))
    assert_no_js_errors(page)
