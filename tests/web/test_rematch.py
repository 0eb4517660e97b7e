"""*Revanche*: two people finish a match; one tap proposes, the other sees who accepted and
accepts, and the same table starts a second match. *Zuletzt gespielt mit*: the profile lists
the other player, and an invitation reaches them as a toast with *Beitreten*."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_people import host_lobby, join_by_link
from webplay import (
    MATCH_END,
    TABLE,
    assert_no_js_errors,
    new_page,
    playable,
    set_rule,
    sign_in_as_guest,
)

PHONE = {"width": 360, "height": 740}

STATUS = """() => document.querySelector('[data-testid=match-end]') ? 'end'
  : document.querySelector('.dock.my-turn') ? 'turn' : 'wait'"""


def act(p: Any) -> None:
    """One move: the first playable tile (on its first end), else draw, else pass."""
    tiles = playable(p)
    if tiles:
        i, _tile, fits = tiles[0]
        p.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":
            p.locator(".end.glow").first.click()
        return
    draw = p.get_by_role("button", name="Ziehen", exact=True)
    if draw.is_enabled():
        draw.click()
    else:
        p.get_by_role("button", name="Passen", exact=True).click()


def play_both(pages: list[Any]) -> None:
    """Both people play their turns until the match is over on both pages."""
    for _ in range(2000):
        states = [p.evaluate(STATUS) for p in pages]
        if states == ["end", "end"]:
            return
        if "turn" in states:
            p = pages[states.index("turn")]
            before = str(p.locator(TABLE).get_attribute("data-v"))
            act(p)
            p.wait_for_function(
                "v => document.querySelector('.table-screen')?.dataset.v !== v"
                " || !!document.querySelector('[data-testid=match-end]')",
                arg=before,
            )
            continue
        # A bot-free table: the other page's turn, a round's pause, or a frame on its way.
        # Wait (bounded) for the next state on either page.
        versions = [str(p.locator(TABLE).get_attribute("data-v")) for p in pages]
        pages[0].wait_for_function(
            """([v0]) => document.querySelector('.table-screen')?.dataset.v !== v0
               || !!document.querySelector('.dock.my-turn, [data-testid=match-end]')""",
            arg=versions[:1],
            timeout=45_000,
        ) if states[0] == "wait" and states[1] != "wait" else pages[1].wait_for_function(
            """([v1]) => document.querySelector('.table-screen')?.dataset.v !== v1
               || !!document.querySelector('.dock.my-turn, [data-testid=match-end]')""",
            arg=versions[1:],
            timeout=45_000,
        )
    raise AssertionError("the match does not end")


def test_revanche_starts_a_second_match_and_invites_reach_a_recent_player(
    server: str, browser: Any, shots: Path
) -> None:
    host, link = host_lobby(browser, server, "Henrietta")
    guest = join_by_link(browser, link, "Gero", viewport=PHONE)
    host.locator(".lobby-seat[data-seat='1']", has_text="Gero").wait_for()
    set_rule(host, "mode", "Blitz")
    set_rule(host, "turn_seconds", "30 s")
    host.get_by_test_id("start").click()
    for p in (host, guest):
        p.locator(TABLE).wait_for()
    first = host.evaluate("location.hash")
    # Someone watches from the list of running matches (not a member of the lobby).
    dora = new_page(browser, viewport={"width": 1280, "height": 800})
    sign_in_as_guest(dora, server, "Dora")
    dora.locator("#running-list li", has_text="Henrietta").get_by_role(
        "button", name="Zuschauen"
    ).click()
    dora.get_by_test_id("spectator-label").wait_for()
    play_both([host, guest])

    # One tap proposes; both see who accepted (the proposer at once) and the time left.
    host.locator(MATCH_END).get_by_test_id("rematch").click()
    box = guest.locator(MATCH_END).get_by_test_id("rematch-box")
    box.get_by_text("Revanche von Henrietta").wait_for()
    watching = dora.locator(MATCH_END).get_by_test_id("rematch-box")
    watching.get_by_text("Revanche von Henrietta").wait_for()
    assert watching.get_by_role("button").count() == 0  # a spectator only sees it
    assert box.locator("li.yes", has_text="Henrietta").count() == 1
    assert box.locator("li:not(.yes)", has_text="Gero").count() == 1
    host.locator(MATCH_END).get_by_test_id("rematch-status").wait_for()
    guest.screenshot(path=str(shots / "rematch-phone.png"))
    # The other accepts: a second match starts at the same table, for both.
    box.get_by_role("button", name="Revanche annehmen").click()
    for p in (host, guest):
        p.wait_for_function(
            "h => location.hash.startsWith('#/match/') && location.hash !== h", arg=first
        )
        p.locator(TABLE).wait_for()
        p.wait_for_function(
            "() => !document.querySelector('[data-testid=match-end]')"
            " && document.querySelector('.table-screen')?.dataset.phase === 'playing'"
        )
    assert host.evaluate("location.hash") == guest.evaluate("location.hash") != first
    # The spectator follows the table to its second match.
    dora.wait_for_function("h => location.hash === h", arg=host.evaluate("location.hash"))
    dora.get_by_test_id("spectator-label").wait_for()
    dora.wait_for_function("() => !document.querySelector('[data-testid=match-end]')")
    host.screenshot(path=str(shots / "rematch-second-match.png"))

    # Zuletzt gespielt mit: both leave that table; Henrietta opens a new lobby and invites Gero
    # from her profile.
    for p in (host, guest):
        p.on("dialog", lambda d: d.accept())
        p.get_by_role("button", name="Spiel verlassen").click()
        p.get_by_test_id("left-home").click()
        p.get_by_test_id("create-lobby").wait_for()
    host.get_by_test_id("create-lobby").click()
    host.locator(".lobby-seats").wait_for()
    host.goto(server + "/#/profile")
    players = host.get_by_test_id("players-list")
    players.locator("li.player", has_text="Gero").wait_for()
    players.get_by_role("button", name="Einladen: Gero").click()
    host.locator("#toast", has_text="Einladung an Gero verschickt").wait_for()
    toast = guest.get_by_test_id("invite-toast")
    toast.get_by_text("Henrietta lädt dich in die Lobby ein").wait_for()
    guest.screenshot(path=str(shots / "invite-toast-phone.png"))
    toast.get_by_role("button", name="Beitreten").click()
    guest.locator(".lobby-seats").wait_for()
    for p in (host, guest, dora):
        assert_no_js_errors(p)
