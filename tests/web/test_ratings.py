"""Issue 23 in Chromium: a rated lobby's match shows each account its rating change at
the end, the profile shows the rating with its chart, and the leaderboard lists the
players (desktop and phone)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from webplay import (
    MATCH_END,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
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


def register(page: Any, base: str, name: str) -> None:
    page.goto(base + "/")
    page.locator("#acc-name").fill(name)
    page.locator("#acc-pw").fill("geheim123")
    page.get_by_role("button", name="Registrieren").click()
    page.get_by_test_id("create-lobby").wait_for()


def one_move(page: Any) -> None:
    """The first tile that fits (its left end if it fits both), else the Lager or Passen."""
    tiles = playable(page)
    if tiles:
        i, _tile, fits = tiles[0]
        page.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":
            page.locator(".end.glow").first.click()
    elif page.locator("button.lager").count() and page.locator("button.lager").is_enabled():
        page.locator("button.lager").click()
    else:
        page.get_by_role("button", name="Passen", exact=True).click()


def server_db(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """The session server's SQLite file (conftest's ``server``: ``domino-data*``): the
    one that knows the account ``name``."""
    for path in tmp_path_factory.getbasetemp().glob("domino-data*/domino.sqlite"):
        with sqlite3.connect(path, timeout=30) as db:
            if db.execute("SELECT 1 FROM profiles WHERE name = ?", (name,)).fetchone():
                return path
    raise AssertionError(f"no server database knows {name}")


def test_the_rating_change_shows_at_the_end_and_the_leaderboard_lists_them(
    server: str, browser: Any, shots: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    stamp = str(int(time.time() * 1000))[-6:]
    anna_name, ben_name = f"Rita{stamp}", f"Rolf{stamp}"
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    register(page, server, anna_name)
    open_lobby_with_bots(page, ["anfaenger"])
    set_rule(page, "target", "30")
    set_rule(page, "rated", "An")
    start_match(page)
    play_match(page, one_move)
    change = page.get_by_test_id("rating-change")
    change.wait_for()
    text = change.inner_text()
    assert text.startswith("Deine Wertung (2 Plätze): ") and "?" in text, text
    assert "(+" in text or "(−" in text, text
    page.screenshot(path=str(shots / "rating-change.png"))
    assert page.locator(MATCH_END).count() == 1

    # The profile: the pool's rating (provisional) with its chart, the mode's statistics.
    page.goto(server + "/#/profile")
    ratings = page.get_by_test_id("ratings")
    ratings.locator(".rating-chart").wait_for()
    points = ratings.locator(".rating-chart polyline").get_attribute("points") or ""
    assert len(points.split()) == 2  # from the start rating to the one match
    shown = ratings.get_by_test_id("rating-2").inner_text()
    assert shown.endswith("?") and shown[:-1] in text
    assert "Blitz" in ratings.locator("table.mode-stats").inner_text()
    page.screenshot(path=str(shots / "profile-ratings.png"), full_page=True)

    # Ben has an account too; both have ten rated matches now (written into the server's
    # database: ten browser matches would only make the test slow).
    r = httpx.post(f"{server}/api/account", json={"name": ben_name, "password": "geheim123"})
    assert r.status_code == 201, r.text
    ben = r.json()["profile"]["id"]
    with sqlite3.connect(server_db(tmp_path_factory, anna_name), timeout=30) as db:
        db.execute(
            "INSERT INTO ratings (profile_id, pool, mu, sigma, rating, matches, wins, last_at)"
            " VALUES (?, '2', 30.0, 3.0, 1800, 10, 8, ?)",
            (ben, time.time()),
        )
        db.execute(
            "UPDATE ratings SET matches = 10"
            " WHERE profile_id = (SELECT id FROM profiles WHERE name = ?)",
            (anna_name,),
        )

    # From the profile to the leaderboard: both listed, Rita's own place marked.
    ratings.get_by_test_id("board-link").click()
    board = page.get_by_test_id("board")
    board.wait_for()
    names = board.locator("td:nth-child(2)").all_inner_texts()
    assert anna_name in names and ben_name in names
    assert names.index(ben_name) < names.index(anna_name)  # 1800 above a first match
    mine = page.get_by_test_id("board-me")
    assert anna_name in mine.locator("tr.mine").inner_text()
    page.screenshot(path=str(shots / "leaderboard-desktop.png"), full_page=True)
    assert_no_js_errors(page)

    # Signed out, on a phone: the start page links to the leaderboard, which lists them.
    phone = new_page(browser, **PHONE)
    phone.goto(server + "/")
    phone.get_by_role("link", name="Rangliste").tap()
    board = phone.get_by_test_id("board")
    board.wait_for()
    assert {anna_name, ben_name} <= set(board.locator("td:nth-child(2)").all_inner_texts())
    assert phone.get_by_test_id("board-me").count() == 0
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, width  # no sideways scrolling on a phone
    phone.screenshot(path=str(shots / "leaderboard-phone.png"), full_page=True)
    assert_no_js_errors(phone)
