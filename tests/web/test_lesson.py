"""Issue 24, item 1: "So geht's" finished by touch on a phone, by keys on a desktop and with a
(stubbed) controller; the taps and the time are counted. The Tipps are walked to the end.

The player's moves come from the lesson's script as the engine plays it
(domino.lessons.build), so the test follows the lesson, not a copy of it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from test_gamepad import LB, PAD_STUB, RB, RIGHT, A, X, Y
from webplay import assert_no_js_errors, new_page, sign_in_as_guest

from domino.i18n import tr
from domino.lessons.build import first_round
from domino.lessons.tips import TIPS

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
FRAMES = first_round()["frames"]
#: The player's steps: (frame index, move, its hand, whether the tile fits both ends).
MINE = [
    (i, f["move"], f["view"]["hand"], sum(m[:4] == f["move"][:4] for m in f["view"]["legal"]) > 1)
    for i, f in enumerate(FRAMES)
    if f["seat"] == 0
]


def at_step(page: Any, i: int) -> None:
    page.wait_for_selector(f"main.lesson[data-step='{i}']")


def finish(page: Any) -> tuple[int, int]:
    page.wait_for_selector("main.lesson[data-done='1']")
    say = page.locator("[data-testid=lesson-say]").inner_text()
    assert say.startswith("Domino!") and "59 Punkte" in say, say
    return int(page.locator("main.lesson").get_attribute("data-inputs")), int(
        page.locator("main.lesson").get_attribute("data-ms")
    )


def test_a_fresh_phone_finishes_so_gehts_by_touch(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    # Offered on the first visit, beside the quick game, which stays where it was.
    offer = page.locator("[data-testid=lesson-offer]")
    offer.wait_for()
    assert page.locator("[data-testid=quick-2]").is_visible()
    taps = 0
    began = time.monotonic()
    offer.get_by_role("link").tap()
    taps += 1
    at_step(page, 0)
    page.screenshot(path=str(shots / "lesson-phone-start.png"))
    # The first sentence says what to do and why, from the catalogue.
    first = page.locator("[data-testid=lesson-say]").inner_text()
    assert first == tr("de", "lesson.first.play_end")
    for i, move, _hand, both in MINE:
        at_step(page, i)
        if move in ("D", "P"):
            page.locator(f"[data-testid=lesson-{'draw' if move == 'D' else 'pass'}]").tap()
            taps += 1
            continue
        tile, end = move.split()
        page.locator(f"[data-testid='lesson-tile-{tile}']").tap()
        taps += 1
        if both:
            page.locator(f"[data-testid=lesson-end-{end}].glow").tap()
            taps += 1
    inputs, ms = finish(page)
    seconds = time.monotonic() - began
    page.screenshot(path=str(shots / "lesson-phone-end.png"))
    print(f"phone by touch: {taps} taps, {seconds:.1f} s (lesson clock {ms / 1000:.1f} s)")
    assert inputs == taps - 1  # every tap in the round acted once (the first opened it)
    assert taps <= 14 and seconds < 120
    # Closing returns to the start page; the offer is not made again.
    page.locator("[data-testid=lesson-home]").tap()
    page.wait_for_selector("[data-testid=lesson-link]")
    assert page.locator("[data-testid=lesson-offer]").count() == 0
    assert_no_js_errors(page)


def test_a_desktop_finishes_so_gehts_by_keys_and_walks_the_tips(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    # Reachable from the help on every page.
    page.get_by_role("button", name="Hilfe").click()
    page.locator("[data-testid=help-lesson]").click()
    at_step(page, 0)
    keys = 0
    began = time.monotonic()
    # Another legal move is explained, and the lesson waits for the scripted one.
    _, _, hand, _ = MINE[0]
    page.keyboard.press(str(hand.index("6|3") + 1))
    page.keyboard.press("l")
    keys += 2
    assert tr("de", "lesson.wrong") in page.locator("[data-testid=lesson-say]").inner_text()
    assert page.locator("main.lesson").get_attribute("data-step") == "0"
    # A tile that fits no end is said to, and nothing moves.
    page.keyboard.press(str(hand.index("2|2") + 1))
    keys += 1
    assert tr("de", "table.not_fitting") in page.locator("[data-testid=lesson-say]").inner_text()
    assert page.locator("main.lesson").get_attribute("data-step") == "0"
    for i, move, hand, both in MINE:
        at_step(page, i)
        if move in ("D", "P"):
            page.keyboard.press(move.lower())
            keys += 1
            continue
        tile, end = move.split()
        page.keyboard.press(str(hand.index(tile) + 1))
        keys += 1
        if both:
            page.keyboard.press(end.lower())
            keys += 1
    inputs, _ms = finish(page)
    print(f"desktop by keys: {keys} keys, {time.monotonic() - began:.1f} s")
    assert inputs == keys
    page.locator("[data-testid=lesson-to-tips]").click()
    for n, tip in enumerate(TIPS):
        question = tr("de", f"lesson.tip.{tip.key}.question")
        page.wait_for_selector("[data-testid=tip-question]")
        assert page.locator("[data-testid=tip-question]").inner_text() == question
        page.locator(f"[data-testid='tip-move-{tip.answer.replace(' ', '-')}']").click()
        answer = page.locator("[data-testid=tip-answer]")
        assert tr("de", f"lesson.tip.{tip.key}.reason") in answer.inner_text()
        assert tr("de", "lesson.tip_right") in answer.inner_text()
        page.locator("[data-testid=tip-next]").click()
        if n + 1 == len(TIPS):
            page.wait_for_selector("[data-testid=quick]")
    assert_no_js_errors(page)


def test_a_controller_finishes_so_gehts(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.add_init_script(PAD_STUB)
    page.goto(server + "/#/lesson")
    presses = 0
    began = time.monotonic()

    def press(b: int) -> None:
        nonlocal presses
        page.evaluate("b => window.__padPress(b)", b)
        page.wait_for_function("window.__padIdle()")
        presses += 1

    for i, move, _hand, both in MINE:
        at_step(page, i)
        if move in ("D", "P"):
            press(X if move == "D" else Y)
            continue
        tile, end = move.split()
        for _ in range(12):
            if page.evaluate("document.activeElement?.dataset?.tile") == tile:
                break
            press(RIGHT)
        assert page.evaluate("document.activeElement?.dataset?.tile") == tile
        if both:
            press(LB if end == "L" else RB)
        else:
            press(A)
    finish(page)
    print(f"controller: {presses} presses, {time.monotonic() - began:.1f} s")
    assert_no_js_errors(page)


def test_the_offer_can_be_declined_and_the_link_stays(server: str, browser: Any) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.locator("[data-testid=lesson-offer]").get_by_role("button").tap()
    page.locator("[data-testid=lesson-link]").wait_for()
    page.reload()
    page.locator("[data-testid=lesson-link]").wait_for()
    assert page.locator("[data-testid=lesson-offer]").count() == 0
    # Skipping the lesson returns to the start page.
    page.locator("[data-testid=lesson-link]").tap()
    at_step(page, 0)
    page.locator("[data-testid=lesson-skip]").tap()
    page.locator("[data-testid=quick-2]").wait_for()
    assert_no_js_errors(page)


def test_the_lesson_speaks_the_page_s_language(server: str, browser: Any) -> None:
    # The lesson's sentences come with lessons.json, in both languages of the catalogue.
    page = new_page(browser, **DESKTOP)
    page.add_init_script("localStorage.setItem('domino.lang', 'en')")
    page.goto(server + "/#/lesson")
    at_step(page, 0)
    say = page.locator("[data-testid=lesson-say]")
    assert say.inner_text() == tr("en", "lesson.first.play_end")
    assert page.locator(".lesson-note").inner_text() == tr("en", "lesson.first.opening")
    assert_no_js_errors(page)


def test_a_signed_in_player_opens_it_from_home_and_it_keeps_its_place(
    server: str, browser: Any
) -> None:
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Lernende")
    page.get_by_test_id("home-lesson").click()
    at_step(page, 0)
    page.keyboard.press(str(MINE[0][2].index("6|2") + 1))
    page.keyboard.press("r")
    # The bots' moves play on; a render of the page (as the live connection's messages ask
    # for) does not start the lesson anew.
    i, _move, _hand, _both = MINE[1]
    at_step(page, i)
    page.evaluate("window.__lessonHost = document.querySelector('main.lesson')")
    page.evaluate("window.dispatchEvent(new HashChangeEvent('hashchange'))")
    page.evaluate("new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)))")
    assert page.evaluate("window.__lessonHost.isConnected")
    assert page.locator("main.lesson").get_attribute("data-step") == str(i)
    assert_no_js_errors(page)
