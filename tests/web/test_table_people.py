"""What people around a table see: a spectator sees the Lager's size (never its tiles), each
opponent's card says whether that player is online, and a reconnect ends with "Verbunden"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_people import SOCKET_SPY, host_lobby, join_by_link
from webplay import (
    MY_TURN,
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
READ_LAGER = """() => {
  const info = document.querySelector('[data-testid=lager-info]');
  return [document.querySelector('.table-screen').dataset.v,
          info.querySelector('.lager-count').textContent, info.getAttribute('aria-label')];
}"""


def test_a_spectator_sees_the_lager_count(server: str, browser: Any, shots: Path) -> None:
    sara = new_page(browser, **DESKTOP)
    sign_in_as_guest(sara, server, "Sara")
    open_lobby_with_bots(sara, ["anfaenger"], mode="Klassisch")
    start_match(sara)
    # Tom finds the match in the list of running matches and watches it on his phone.
    tom = new_page(browser, viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    frames: list[dict[str, Any]] = []
    tom.on("websocket", lambda ws: ws.on("framereceived", lambda d: frames.append(json.loads(d))))
    sign_in_as_guest(tom, server, "Tom")
    tom.locator("#running-list li", has_text="Sara").get_by_role("button", name="Zuschauen").tap()
    tom.get_by_test_id("spectator-label").wait_for()
    info = tom.get_by_test_id("lager-info")
    seen: set[int] = set()
    for _ in range(6):
        sara.wait_for_selector(MY_TURN)
        before = version(sara)
        tiles = playable(sara)
        # Draw whenever allowed, so the count changes.
        if sara.locator(".action.draw").is_enabled():
            sara.locator(".action.draw").click()
        elif tiles:
            i, _tile, fits = tiles[0]
            sara.locator(".hand .tile-btn").nth(i).click()
            if fits == "L R":
                sara.locator(".end.glow").first.click()
        else:
            sara.locator(".action.pass").click()
        wait_after(sara, before)
        target = int(version(sara))
        tom.wait_for_function(
            "v => Number(document.querySelector('.table-screen').dataset.v) >= v"
            " || !!document.querySelector('[data-testid=round-end], [data-testid=match-end]')",
            arg=target,
        )
        if tom.locator("[data-testid=round-end], [data-testid=match-end]").count():
            break
        # What Tom's page shows is what his newest snapshot says (and what Sara's Lager shows).
        # Read at one moment: a bot may move on meanwhile.
        v, shown, label = tom.evaluate(READ_LAGER)
        state = [f for f in frames if f.get("type") == "state" and str(f["v"]) == v][-1]
        n = state["view"]["lager"]
        assert shown == str(n)
        assert label == f"Lager: {n} Steine"
        sv, count = sara.evaluate(
            "() => [document.querySelector('.table-screen').dataset.v,"
            " document.querySelector('button.lager .lager-count').textContent]"
        )
        if sv == v:
            assert count == str(n)
        seen.add(n)
        assert tom.locator(".hand .tile-btn").count() == 0
        assert state["view"]["hand"] is None
    assert 14 in seen or len(seen) > 1  # 2 seats, Lager An: 14 at the start
    assert info.is_visible()
    # Everything of the spectator's bar is on the phone's screen: nothing sticks out sideways.
    assert tom.evaluate("document.documentElement.scrollWidth") <= 360
    # Measured in one go: every snapshot draws the bar anew (a bot moving meanwhile would
    # detach a button between finding it and measuring it).
    boxes = tom.evaluate(
        "() => [...document.querySelectorAll('.topbar button')]"
        ".map(b => { const r = b.getBoundingClientRect(); return [r.left, r.right, r.width]; })"
    )
    assert len(boxes) >= 3  # Zurück, the score sheet, help
    for left, right, width in boxes:
        assert width > 0 and left >= 0 and right <= 360
    tom.screenshot(path=str(shots / "phone-spectator.png"))
    for page in (sara, tom):
        assert_no_js_errors(page)


def test_connection_state_verbunden_and_opponents_online(server: str, browser: Any) -> None:
    anna, link = host_lobby(browser, server, "Anna")
    set_rule(anna, "turn_seconds", "30 s")
    ben = join_by_link(browser, link, "Ben")
    ben.add_init_script(SOCKET_SPY)
    ben.reload()  # the spy is in place from here on
    ben.locator(".lobby-seats").wait_for()
    # The lobby names the host in German, for both.
    for page in (anna, ben):
        assert page.locator(".lobby-seat[data-seat='0'] .badge.host").inner_text() == "Gastgeber"
    anna.get_by_test_id("start").click()
    for page in (anna, ben):
        page.locator(TABLE).wait_for()
    ben_card = anna.locator(".opponents .seat[data-seat='1']")
    ben_card.locator(".dot.on").wait_for()
    assert ben_card.get_attribute("data-online") == "true"
    assert ben_card.locator(".badge.presence").inner_text() == "verbunden"

    # Ben's line drops: Anna sees him offline, Ben sees the red bar ...
    conn = ben.locator("#conn")
    ben.context.set_offline(True)
    ben.evaluate("window.__sockets.at(-1).close()")
    conn.wait_for(state="visible")
    assert conn.inner_text() == "Verbindung wird wiederhergestellt …"
    anna.locator(".opponents .seat[data-seat='1'][data-online=false]").wait_for()
    assert ben_card.locator(".badge.presence").inner_text() == "getrennt"
    assert ben_card.locator(".dot.off").count() == 1

    # ... and when it is back, Ben reads "Verbunden" (then the bar goes), Anna sees him online.
    ben.context.set_offline(False)
    ben.locator("#conn.ok", has_text="Verbunden").wait_for()
    anna.locator(".opponents .seat[data-seat='1'][data-online=true]").wait_for()
    conn.wait_for(state="hidden")
    # Ben sees Anna online too.
    anna_badge = ben.locator(".opponents .seat[data-seat='0'] .badge.presence")
    assert anna_badge.inner_text() == "verbunden"
    for page in (anna, ben):
        assert_no_js_errors(page)


def test_bots_are_always_online(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Olga")
    open_lobby_with_bots(page, ["profi", "meister"], mode="Klassisch")
    start_match(page)
    cards = page.locator(".opponents .seat")
    cards.nth(1).wait_for()
    for i in range(2):
        assert cards.nth(i).get_attribute("data-online") == "true"
        assert cards.nth(i).locator(".badge.presence.on").inner_text() == "verbunden"
    assert_no_js_errors(page)


SIDE_SEATS = """() => [...document.querySelectorAll('.opponents .seat:is(.pos-left, .pos-right)')]
  .map((el) => {
    const box = (x) => {
      const r = x.getBoundingClientRect();
      return [r.left, r.top, r.right, r.bottom];
    };
    const parts = [...el.querySelectorAll('.badge, .points, .seat-name, .back-mini, .count')]
      .filter((x) => x.getClientRects().length > 0)
      .map((x) => [x.className, x.textContent, ...box(x)]);
    return {box: box(el), parts};
  })"""


def test_a_desktop_spectator_sees_points_clear_of_the_bot_badges(
    server: str, browser: Any, shots: Path
) -> None:
    """Issue 21: on the side seats "0 Punkte" lay over the badge "Bot · Fortgeschritten"."""
    sara = new_page(browser, **DESKTOP)
    sign_in_as_guest(sara, server, "Hertha Seiten")
    open_lobby_with_bots(sara, ["fortgeschritten"] * 3, mode="Klassisch")
    start_match(sara)
    tom = new_page(browser, **DESKTOP)
    sign_in_as_guest(tom, server, "Tom")
    tom.locator("#running-list li", has_text="Hertha Seiten").get_by_role(
        "button", name="Zuschauen"
    ).click()
    tom.get_by_test_id("spectator-label").wait_for()
    tom.locator(".opponents .seat").nth(2).wait_for()
    for page in (tom, sara):
        seats = page.evaluate(SIDE_SEATS)
        assert len(seats) == 2, seats
        for seat in seats:
            parts = seat["parts"]
            assert any("bot" in p[0] for p in parts), parts
            for i, a in enumerate(parts):
                assert a[2] >= seat["box"][0] - 0.5 and a[4] <= seat["box"][2] + 0.5, (a, seat)
                for b in parts[i + 1 :]:
                    apart = (
                        a[4] <= b[2] + 0.5
                        or b[4] <= a[2] + 0.5
                        or a[5] <= b[3] + 0.5
                        or b[5] <= a[3] + 0.5
                    )
                    assert apart, f"{a} overlaps {b}"
    tom.screenshot(path=str(shots / "desktop-spectator-side-seats.png"))
    for page in (sara, tom):
        assert_no_js_errors(page)
