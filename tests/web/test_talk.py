"""Table talk in Chromium: two browser contexts in one lobby, then at one table.

A message reaches the other context as plain text (markup stays text), a reaction
reaches the other context at the sender's seat, and once blocked, a player's messages
and reactions no longer reach the blocker (docs/protocol.md "Table talk")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_people import host_lobby, join_by_link
from webplay import TABLE, assert_no_js_errors, start_match

PHONE = {"width": 360, "height": 740}


def say(page: Any, text: str) -> None:
    page.get_by_test_id("talk-input").fill(text)
    page.get_by_test_id("talk-send").click()
    # Seen by its sender too: the server took it.
    page.locator(".talk-log .talk-text", has_text=text).last.wait_for()


def log_texts(page: Any) -> list[str]:
    return [str(x) for x in page.locator(".talk-log .talk-text").all_text_contents()]


def test_talk_reaches_the_other_context_until_blocked(
    server: str, browser: Any, shots: Path
) -> None:
    hanna, link = host_lobby(browser, server, "Hanna")
    gero = join_by_link(browser, link, "Gero", viewport=PHONE)
    gero.locator(".talk-box[open]").wait_for()
    # The lobby's chat: markup arrives as text, never as elements.
    say(hanna, "Hallo <b>Gero</b>")
    line = gero.locator(".talk-log .talk-text", has_text="Hallo <b>Gero</b>")
    line.wait_for()
    assert line.locator("b").count() == 0
    gero.screenshot(path=str(shots / "talk-lobby-phone.png"))

    # At the table: a reaction of Hanna's shows on Gero's screen, at her seat.
    start_match(hanna)
    gero.locator(TABLE).wait_for()
    # Folded, the talk's buttons sit in the board's corner above the line's box, so they
    # cover no end on a phone or a desktop (they once floated over the board's corner).
    for page in (hanna, gero):
        page.locator(".board > [data-testid=talk]").wait_for()
        talk = page.get_by_test_id("talk").bounding_box()
        line_box = page.locator(".board > .ends").bounding_box()
        assert talk and line_box and talk["y"] + talk["height"] <= line_box["y"], (talk, line_box)
    hanna.get_by_test_id("reactions-open").click()
    hanna.get_by_test_id("react-danke").click()
    bubble = gero.get_by_test_id("reaction").filter(has_text="Danke!")
    bubble.wait_for()
    assert "Hanna" in bubble.inner_text()
    gero.screenshot(path=str(shots / "talk-reaction-phone.png"))

    # The match's chat (no Paare: players and spectators share it); then Gero blocks Hanna.
    gero.get_by_test_id("talk-open").click()
    hanna.get_by_test_id("talk-open").click()
    say(hanna, "Viel Glück!")
    gero.locator(".talk-log .talk-text", has_text="Viel Glück!").wait_for()
    hanna_id = gero.locator(".talk-log .talk-msg").last.get_attribute("data-sender")
    gero.get_by_test_id(f"block-{hanna_id}").click()
    gero.locator(".talk-log .talk-text", has_text="Viel Glück!").wait_for(state="detached")
    say(hanna, "Bist du noch da?")
    hanna.wait_for_timeout(2100)  # the next reaction is allowed 2 s after the last
    hanna.get_by_test_id("react-hallo").click()
    hanna.get_by_test_id("reaction").filter(has_text="Hallo!").wait_for()
    # Gero's own message comes back after anything the server sent him before it.
    say(gero, "Hallo?")
    assert "Bist du noch da?" not in log_texts(gero)
    assert gero.get_by_test_id("reaction").filter(has_text="Hallo!").count() == 0
    # Both ways: Hanna does not hear Gero either.
    hanna.get_by_test_id("react-daumen").wait_for()
    assert "Hallo?" not in log_texts(hanna)
    assert_no_js_errors(hanna)
    assert_no_js_errors(gero)
