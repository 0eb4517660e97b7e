"""Several people: invite by link, host-only controls, live rule changes, a spectator who never
sees a hand before the round's end reveal, and a reload that returns to the same seat."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from webplay import (
    MATCH_END,
    MY_TURN,
    ROUND_END,
    TABLE,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    playable,
    set_rule,
    sign_in_as_guest,
    start_match,
    version,
    wait_after,
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"width": 360, "height": 740}


def join_by_link(browser: Any, link: str, name: str, viewport: Any = None) -> Any:
    """A newcomer opens the invitation, signs in as a guest and lands in that lobby."""
    page = new_page(browser, viewport=viewport or DESKTOP["viewport"])
    page.goto(link)
    page.locator("#guest-name").fill(name)
    page.get_by_role("button", name="Als Gast spielen").click()
    page.locator(".lobby-seats").wait_for()
    return page


def host_lobby(browser: Any, server: str, name: str) -> tuple[Any, str]:
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, name)
    page.get_by_test_id("create-lobby").click()
    page.locator(".lobby-seats").wait_for()
    return page, str(page.locator("#lobby-link").input_value())


def test_host_changes_rules_and_the_other_member_sees_them(server: str, browser: Any) -> None:
    host, link = host_lobby(browser, server, "Hanna")
    guest = join_by_link(browser, link, "Gero")
    guest.locator(".lobby-seat[data-seat='1']", has_text="Gero").wait_for()
    # A non-host has no controls: no rule buttons, no bots, no start.
    assert guest.locator(".rules button").count() == 0
    assert guest.get_by_role("button", name="Bot hinzufügen").count() == 0
    assert guest.get_by_test_id("start").count() == 0
    assert guest.get_by_text("Der Gastgeber stellt die Regeln ein").count() == 1
    # The host has them, and every change reaches the other member live.
    set_rule(host, "mode", "Fünferfieber")
    guest.locator(".rule[data-rule=mode] .rule-value", has_text="Fünferfieber").wait_for()
    guest.locator(".rule[data-rule=target] .rule-value", has_text="100").wait_for()
    set_rule(host, "turn_seconds", "30 s")
    guest.locator(".rule[data-rule=turn_seconds] .rule-value", has_text="30 s").wait_for()
    set_rule(host, "seats", "4")
    guest.locator(".rule[data-rule=pairs]").wait_for()
    assert host.get_by_test_id("start").is_disabled()
    # Bots with a level, seen by everyone; the host can take one away again.
    seat = host.locator(".lobby-seat[data-seat='2']")
    seat.locator("select").select_option("meister")
    seat.get_by_role("button", name="Bot hinzufügen").click()
    guest.locator(".lobby-seat[data-seat='2']", has_text="Meister").wait_for()
    host.locator(".lobby-seat[data-seat='2']").get_by_role("button", name="Bot entfernen").click()
    guest.locator(".lobby-seat[data-seat='2']", has_text="Frei").wait_for()
    # The invitation link can be copied; the page confirms it.
    host.get_by_test_id("copy-link").click()
    host.locator("#toast", has_text="Link kopiert").wait_for()
    # The help overlay explains the rules and every control; Esc closes it.
    guest.get_by_role("button", name="Hilfe").click()
    help_box = guest.get_by_role("dialog", name="Hilfe: So spielst du")
    help_box.get_by_text("Controller:").wait_for()
    guest.keyboard.press("Escape")
    help_box.wait_for(state="detached")
    for page in (host, guest):
        assert_no_js_errors(page)


def test_two_players_and_a_spectator_who_sees_no_hand_before_the_reveal(
    server: str, browser: Any, shots: Path
) -> None:
    anna, link = host_lobby(browser, server, "Anna")
    set_rule(anna, "mode", "Blitz")
    # No round can reach 150 points: the first round surely ends in a reveal, not the match.
    set_rule(anna, "target", "150")
    # The longest clock: on a loaded machine the server must never have to move for a player.
    set_rule(anna, "turn_seconds", "30 s")
    # Ben plays on a phone-sized window (with the mouse).
    ben = join_by_link(browser, link, "Ben", viewport=PHONE)
    # The lobby is full: a third visitor of the link becomes a watcher.
    cleo_frames: list[dict[str, Any]] = []
    cleo = new_page(browser, **DESKTOP)

    def record(ws: Any) -> None:
        ws.on("framereceived", lambda data: cleo_frames.append(json.loads(data)))

    cleo.on("websocket", record)
    cleo.goto(link)
    cleo.locator("#guest-name").fill("Cleo")
    cleo.get_by_role("button", name="Als Gast spielen").click()
    cleo.get_by_text("Zuschauer: Cleo").wait_for()
    anna.get_by_test_id("start").click()
    for page in (anna, ben, cleo):
        page.locator(TABLE).wait_for()
    cleo.get_by_test_id("spectator-label").wait_for()
    assert cleo.get_by_test_id("spectator-label").inner_text() == "Zuschauer"
    # Someone else finds the match in the list of running matches and watches it too.
    dora = new_page(browser, **DESKTOP)
    sign_in_as_guest(dora, server, "Dora")
    # "Anna" as a word: the session's other tests run matches of their own ("Hanna" ...).
    running = dora.locator("#running-list li", has_text=re.compile(r"\bAnna\b"))
    running.get_by_role("button", name="Zuschauen").click()
    dora.get_by_test_id("spectator-label").wait_for()
    assert dora.locator(".hand .tile-btn").count() == 0

    players = {0: anna, 1: ben}
    while not cleo.locator(f"{ROUND_END}, {MATCH_END}").count():
        # Before the reveal the spectator's page holds no hand and no face of a held tile.
        assert cleo.locator(".hand .tile-btn").count() == 0
        assert cleo.locator(".mini-tile").count() == 0
        seat = cleo.locator(".seat.turn").first.get_attribute("data-seat")
        if seat is None:
            break
        page = players[int(seat)]
        page.wait_for_selector(MY_TURN)
        before = version(page)
        tiles = playable(page)
        if tiles:
            i, _tile, fits = tiles[0]
            page.locator(".hand .tile-btn").nth(i).click()
            if fits == "L R":
                page.locator(".end.glow").first.click()
        elif page.locator(".action.draw").is_enabled():
            page.locator(".action.draw").click()
        else:
            page.locator(".action.pass").click()
        wait_after(page, before)
        target = int(version(page))
        cleo.wait_for_function(
            "v => Number(document.querySelector('.table-screen').dataset.v) >= v"
            " || !!document.querySelector('[data-testid=round-end], [data-testid=match-end]')",
            arg=target,
        )

    # The reveal shows every hand still held, to the players and to the spectator.
    for page, name in ((anna, "desktop-round-end.png"), (ben, "phone-round-end.png")):
        page.locator(ROUND_END).wait_for()
        page.screenshot(path=str(shots / name))
    cleo.locator(".reveal-row").first.wait_for()
    assert cleo.locator(".reveal-row").count() == 2
    states = [f for f in cleo_frames if f.get("type") == "state"]
    assert states, "the spectator received no snapshot"
    for f in states:
        assert f["you"] is None
        assert f["view"]["hand"] is None
        assert f["view"]["legal"] == []
    for page in (anna, ben, cleo, dora):
        assert_no_js_errors(page)


SOCKET_SPY = """
(() => {
  // Keep a handle on the page's sockets so the test can cut the line like a flaky network.
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();
"""


def test_reload_mid_match_returns_to_the_same_seat_and_state(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.add_init_script(SOCKET_SPY)
    sign_in_as_guest(page, server, "Rosa")
    # open_lobby_with_bots sets the longest clock: the server must not move for Rosa while the
    # test reloads.
    open_lobby_with_bots(page, ["fortgeschritten", "anfaenger"], mode="Klassisch")
    start_match(page)
    page.wait_for_selector(MY_TURN)
    tiles = playable(page)
    if tiles:
        before = version(page)
        i, _tile, fits = tiles[0]
        page.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":
            page.locator(".end.glow").first.click()
        wait_after(page, before)
    page.wait_for_selector(MY_TURN)

    def snapshot() -> dict[str, Any]:
        return {
            "v": version(page),
            "you": page.locator(TABLE).get_attribute("data-you"),
            "hand": page.locator(".hand .tile-btn").evaluate_all(
                "els => els.map(e => e.dataset.tile)"
            ),
            "line": page.locator(".line-svg > g").count(),
            "seats": page.locator(".opponents .seat-name").all_inner_texts(),
        }

    seen = snapshot()
    page.reload()
    page.locator(TABLE).wait_for()
    page.wait_for_selector(MY_TURN)
    assert snapshot() == seen
    assert "#/match/" in page.url

    # A lost connection shows the reconnecting bar; coming back restores the same table.
    conn = page.locator("#conn")
    assert conn.is_hidden()
    page.context.set_offline(True)
    page.evaluate("window.__sockets.at(-1).close()")
    conn.wait_for(state="visible")
    assert conn.inner_text() == "Verbindung wird wiederhergestellt …"
    page.context.set_offline(False)
    conn.wait_for(state="hidden")
    page.wait_for_selector(MY_TURN)
    assert snapshot() == seen
    assert_no_js_errors(page)


def test_register_log_out_and_log_in_again(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.goto(server + "/")
    page.locator("#acc-name").fill("Konrad")
    page.locator("#acc-pw").fill("sehr-geheim-42")
    page.get_by_role("button", name="Registrieren").click()
    page.get_by_text("Hallo, Konrad!").wait_for()
    page.locator(".me-chip").click()
    page.get_by_role("heading", name="Konrad").wait_for()
    page.get_by_text("Letzte Spiele").wait_for()
    page.get_by_role("button", name="Abmelden").click()
    page.locator("#acc-name").fill("Konrad")
    page.locator("#acc-pw").fill("falsch-falsch")
    page.get_by_role("button", name="Anmelden").click()
    page.get_by_role("alert").filter(has_text="Name oder Passwort stimmen nicht.").wait_for()
    page.locator("#acc-pw").fill("sehr-geheim-42")
    page.get_by_role("button", name="Anmelden").click()
    page.get_by_text("Hallo, Konrad!").wait_for()
    assert_no_js_errors(page)


def test_a_new_name_shows_at_once_in_the_other_window(
    server: str, browser: Any, shots: Path
) -> None:
    # Two windows of one person (one browser, one token). A rename in one reaches the
    # other's header and greeting at once (the server's profile message), not at its
    # next page.
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Hanna")
    other = page.context.new_page()
    other.set_default_timeout(45_000)
    other.js_errors = []
    other.on("pageerror", lambda exc: other.js_errors.append(str(exc)))
    other.goto(server + "/")
    other.locator(".me-chip", has_text="Hanna").wait_for()
    page.locator(".me-chip").click()
    page.locator("#rename").fill("Helene")
    page.get_by_test_id("rename").click()
    page.locator(".me-chip", has_text="Helene").wait_for()
    other.locator(".me-chip", has_text="Helene").wait_for()
    other.get_by_role("heading", name="Hallo, Helene!").wait_for()
    assert other.get_by_test_id("create-lobby").count() == 1  # still on its own page
    other.screenshot(path=str(shots / "rename-other-window.png"))
    other.set_viewport_size(PHONE)
    other.screenshot(path=str(shots / "rename-other-window-phone.png"))
    assert_no_js_errors(page)
    assert_no_js_errors(other)
