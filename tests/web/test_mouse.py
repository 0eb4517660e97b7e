"""A whole match against a bot with the mouse only (clicks and drags), at desktop size.

Also photographs the start, lobby, table and match-end screens for docs/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from webplay import (
    MATCH_END,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    play_match,
    playable,
    sign_in_as_guest,
    start_match,
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}


def drag_to_end(page: Any, index: int, end: str) -> None:
    tile = page.locator(".hand .tile-btn").nth(index).bounding_box()
    target = page.locator(f".end[data-end={end}]").bounding_box()
    page.mouse.move(tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=12)
    page.mouse.up()


def test_whole_match_with_mouse_clicks_and_drags(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    page.locator("#guest-name").wait_for()
    page.screenshot(path=str(shots / "desktop-start.png"))
    sign_in_as_guest(page, server, "Mara")
    open_lobby_with_bots(page, ["profi"])
    page.screenshot(path=str(shots / "desktop-lobby.png"))
    start_match(page)

    used = {"drag": 0, "both": 0, "shot": 0}

    def act(p: Any) -> None:
        tiles = playable(p)
        if tiles:
            i, _tile, fits = tiles[0]
            if used["drag"] == 0:
                drag_to_end(p, i, fits.split()[0])
                used["drag"] += 1
                return
            p.locator(".hand .tile-btn").nth(i).click()
            if fits == "L R":
                # Both ends glow; a click on one of them plays the tile there.
                used["both"] += 1
                p.locator(".end.glow").first.click()
            return
        draw = p.get_by_role("button", name="Ziehen", exact=True)
        if draw.is_enabled():
            draw.click()
        else:
            p.get_by_role("button", name="Passen", exact=True).click()

    def on_turn(p: Any, moves: int) -> None:
        # A first picture at once, a better one when the line has grown (mid-round).
        tiles = p.locator(".line-svg > g").count()
        if used["shot"] == 0 or (used["shot"] == 1 and tiles >= 6):
            p.screenshot(path=str(shots / "desktop-table.png"))
            used["shot"] += 1

    moves = play_match(page, act, on_turn=on_turn)
    assert moves > 3
    assert used["drag"] == 1
    end = page.locator(MATCH_END)
    end.wait_for()
    assert end.locator(".standing").count() == 2
    assert end.get_by_text("XP").count() >= 1
    page.get_by_test_id("again").wait_for()
    page.screenshot(path=str(shots / "desktop-match-end.png"))
    # Nochmal: back to the lobby, the bot still seated, ready to start again.
    page.get_by_test_id("again").click()
    page.locator(".lobby-seat[data-seat='1']", has_text="Profi").wait_for()
    page.get_by_test_id("start").wait_for()
    assert page.get_by_test_id("start").is_enabled()
    assert_no_js_errors(page)
