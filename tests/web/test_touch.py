"""A whole match on a phone (360x740, touch): taps and one finger drag. Photographs the screens
at phone size."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webplay import (
    MATCH_END,
    assert_no_js_errors,
    new_page,
    play_match,
    playable,
    set_rule,
    start_match,
)

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}


def finger_drag(page: Any, index: int, end: str) -> None:
    """Drag a hand tile onto an end with one finger (raw touch events through the DevTools
    protocol: Playwright's touchscreen only taps)."""
    tile = page.locator(".hand .tile-btn").nth(index).bounding_box()
    target = page.locator(f".end[data-end={end}]").bounding_box()
    x0, y0 = tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2
    x1, y1 = target["x"] + target["width"] / 2, target["y"] + target["height"] / 2
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", x0, y0)
    for k in range(1, 11):
        touch("touchMove", x0 + (x1 - x0) * k / 10, y0 + (y1 - y0) * k / 10)
    touch("touchEnd", x1, y1)
    cdp.detach()


def test_whole_match_by_touch_on_a_phone(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.locator("#guest-name").wait_for()
    page.screenshot(path=str(shots / "phone-start.png"))
    page.locator("#guest-name").tap()
    page.locator("#guest-name").fill("Lena")
    page.get_by_role("button", name="Als Gast spielen").tap()
    page.locator("#new-seats").select_option("2")
    page.get_by_test_id("create-lobby").tap()
    page.locator(".lobby-seats").wait_for()
    set_rule(page, "mode", "Blitz")
    # The longest clock: on a loaded machine the server must never have to move for the test.
    set_rule(page, "turn_seconds", "30 s")
    # Up to 50 points: enough turns for a drag, taps and the Lager before the match ends.
    set_rule(page, "target", "50")
    for seat, level in ((1, "profi"),):
        row = page.locator(f".lobby-seat[data-seat='{seat}']")
        row.locator("select").select_option(level)
        row.get_by_role("button", name="Bot hinzufügen").tap()
        row.locator(".badge").first.wait_for()
    page.screenshot(path=str(shots / "phone-lobby.png"))
    start_match(page)

    used = {"lager": 0, "both": 0, "shot": 0, "drag": 0}

    def act(p: Any) -> None:
        tiles = playable(p)
        if tiles:
            i, _tile, fits = tiles[0]
            if not used["drag"]:
                finger_drag(p, i, fits.split()[0])
                used["drag"] += 1
                return
            p.locator(".hand .tile-btn").nth(i).tap()
            if fits == "L R":
                used["both"] += 1
                p.locator(".end.glow").first.tap()
            return
        lager = p.locator("button.lager")
        if lager.count() and lager.is_enabled():
            # Tapping the Lager draws, like the Ziehen button.
            lager.tap()
            used["lager"] += 1
        else:
            p.get_by_role("button", name="Passen", exact=True).tap()

    def on_turn(p: Any, moves: int) -> None:
        # A first picture at once, a better one when the line has grown (mid-round).
        tiles = p.locator(".line-svg > g").count()
        if used["shot"] == 0 or (used["shot"] == 1 and tiles >= 6):
            p.screenshot(path=str(shots / "phone-table.png"))
            used["shot"] += 1

    moves = play_match(page, act, on_turn=on_turn)
    assert moves > 2
    assert used["drag"] == 1
    page.locator(MATCH_END).wait_for()
    page.screenshot(path=str(shots / "phone-match-end.png"))
    # Everything fits the phone's width: nothing scrolls sideways.
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert_no_js_errors(page)
