"""Issue 23, *Mit Menschen spielen*: two strangers meet at one table from the start page, in
at most three taps each; the waiting view counts the others and can be cancelled."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from webplay import TABLE, assert_no_js_errors, new_page

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}


def match_of(page: Any) -> str:
    page.locator(TABLE).wait_for()
    page.wait_for_function("location.hash.startsWith('#/match/')")
    return str(page.evaluate("decodeURIComponent(location.hash.split('/')[2])"))


def test_two_strangers_meet_at_one_table_in_at_most_three_taps_each(
    server: str, browser: Any, shots: Path
) -> None:
    phone = new_page(browser, **PHONE)
    desk = new_page(browser, **DESKTOP)
    taps = {"phone": 0, "desk": 0}

    def tap(who: str, page: Any, testid: str) -> None:
        loc = page.get_by_test_id(testid)
        if who == "phone":
            loc.tap()
        else:
            loc.click()
        taps[who] += 1

    for who, page in (("desk", desk), ("phone", phone)):
        page.goto(server + "/")
        tap(who, page, "mm-start")  # signs in under the proposed name, shows the choice
        tap(who, page, "mm-go")  # 2 players, Klassisch, 1 minute: what is chosen already
        if who == "desk":  # waits alone: the phone's join pairs them at once
            desk.get_by_test_id("mm-others").wait_for()
            assert desk.get_by_test_id("mm-others").inner_text().endswith(": 0")
            desk.screenshot(path=str(shots / "desktop-mm-waiting.png"))
    mids = {match_of(phone), match_of(desk)}
    assert len(mids) == 1, mids
    assert max(taps.values()) <= 3, taps
    for page in (phone, desk):
        page.wait_for_function("document.querySelector('.table-screen')?.dataset.phase")
        assert page.locator(".opponents .seat").count() == 1
        assert page.locator(".opponents .badge", has_text="Bot").count() == 0
        assert_no_js_errors(page)
    # The toast said so in the tab (the title blinks for a tab in the background).
    phone.screenshot(path=str(shots / "phone-mm-found.png"))
    desk.screenshot(path=str(shots / "desktop-mm-found.png"))


def test_the_waiting_view_counts_the_others_and_cancels(
    server: str, browser: Any, shots: Path
) -> None:
    page = new_page(browser, **PHONE)
    page.goto(server + "/")
    page.get_by_test_id("mm-start").tap()
    # The choice is in view at once, its button focused (keyboard and controller go on).
    go = page.get_by_test_id("mm-go")
    go.wait_for()
    page.wait_for_function("document.activeElement?.dataset.testid === 'mm-go'")
    box = go.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= 740, box
    page.screenshot(path=str(shots / "phone-mm-choice.png"))
    page.get_by_test_id("mm-seats-paare").tap()
    page.get_by_test_id("mm-wait-0").tap()
    page.get_by_test_id("mm-go").tap()
    others = page.get_by_test_id("mm-others")
    others.wait_for()
    assert others.inner_text().endswith(": 0")
    assert "4 als Paare" in page.get_by_test_id("mm").inner_text()
    assert "nur Menschen" in page.get_by_test_id("mm").inner_text()
    page.wait_for_function(
        "document.querySelector('[data-testid=mm-time]')?.textContent.includes('0:01')"
    )
    page.get_by_test_id("mm-cancel").tap()
    page.get_by_test_id("mm-go").wait_for()
    # The choice is remembered in this browser.
    assert page.get_by_test_id("mm-seats-paare").get_attribute("aria-checked") == "true"
    assert_no_js_errors(page)


def test_a_table_whose_announcement_was_lost_ends_the_wait(server: str, browser: Any) -> None:
    """The node that formed the table died before its `queue_left` and `match_started` went
    out (tests/cluster/test_queue_kill.py): the seat's `state` from the node that took the
    match over ends the wait all the same, with the signs of a match found."""
    lost = new_page(browser, **DESKTOP)

    def drop_announcements(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if '"type":"queue_left"' in text or '"type":"match_started"' in text:
                return
            ws.send(message)

        server_side.on_message(from_server)

    lost.route_web_socket(re.compile(r".*/ws$"), drop_announcements)
    other = new_page(browser, **DESKTOP)
    for page in (lost, other):
        page.goto(server + "/")
        page.get_by_test_id("mm-start").click()
        page.get_by_test_id("mm-go").click()
        if page is lost:  # waits alone; the other's join pairs them at once
            page.get_by_test_id("mm-others").wait_for()
    assert match_of(lost) == match_of(other)
    lost.locator("#toast", has_text="Mitspieler gefunden").wait_for()
    # Back on the start page the card offers a new game instead of a wait that is over.
    lost.evaluate("location.hash = '#/'")
    lost.locator("[data-testid=mm-start], [data-testid=mm-go]").first.wait_for()
    assert lost.get_by_test_id("mm-others").count() == 0
    assert_no_js_errors(lost)
