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


def test_the_click_after_a_tile_tap_acts_nowhere(server: str, browser: Any) -> None:
    """A tap on a hand tile acts at pointerup and redraws the dock; the click the browser
    sends afterwards is hit-tested where the finger was, and may find another button that the
    redraw moved there. Seen in a real run: a tile tapped, the Passen button under the finger,
    the turn passed. That click must act nowhere."""
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.locator("#guest-name").fill("Mia")
    page.get_by_role("button", name="Als Gast spielen").tap()
    page.locator("#new-seats").select_option("2")
    page.get_by_test_id("create-lobby").tap()
    page.locator(".lobby-seats").wait_for()
    set_rule(page, "turn_seconds", "30 s")
    page.locator(".lobby-seat[data-seat='1']").get_by_role("button", name="Bot hinzufügen").tap()
    page.locator(".lobby-seat[data-seat='1'] .badge").first.wait_for()
    start_match(page)
    page.wait_for_selector(".dock.my-turn .hand .tile-btn.playable")
    v = page.locator(".table-screen").get_attribute("data-v")
    # The finger goes down and up on a playable tile (as the browser reports a tap) ...
    page.evaluate(
        """() => {
            const tile = document.querySelector('.hand .tile-btn.playable');
            const r = tile.getBoundingClientRect();
            const at = { bubbles: true, cancelable: true, pointerId: 77, pointerType: 'touch',
                         isPrimary: true, button: 0, clientX: r.x + 4, clientY: r.y + 4 };
            tile.dispatchEvent(new PointerEvent('pointerdown', at));
            tile.dispatchEvent(new PointerEvent('pointerup', at));
            // ... and the browser's click finds another button under the finger: the help.
            const help = document.querySelector('.topbar .icon-btn');
            const click = { bubbles: true, cancelable: true, detail: 1 };
            help.dispatchEvent(new MouseEvent('click', click));
        }"""
    )
    # The tap itself acted (a tile that fits one end is played; one that fits both is chosen) ...
    page.wait_for_function(
        "v => document.querySelector('.table-screen').dataset.v !== v"
        " || !!document.querySelector('.tile-btn.selected')",
        arg=v,
    )
    # ... and the click after it did nothing.
    assert page.locator(".overlay.help").count() == 0
    assert any("swallowed" in line for line in page.evaluate("window.__dominoTrace"))
    # A real tap on the help button afterwards is a new press: it opens the help.
    page.locator(".topbar .icon-btn").tap()
    page.locator(".overlay.help").wait_for()
    assert_no_js_errors(page)
