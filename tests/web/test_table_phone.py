"""Four players on a phone (360x740, touch): the opponents' rows, the round's reveal, the whole
log as a sheet, the score sheet during the match, and bots' turns that do not look stuck."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from webplay import (
    MATCH_END,
    MY_TURN,
    ROUND_END,
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

PHONE = {
    "viewport": {"width": 360, "height": 740},
    "device_scale_factor": 2,
    "has_touch": True,
    "is_mobile": True,
}
W, H = 360, 740

# Every moment a seat played by a bot is on turn, what its card shows (a MutationObserver
# sees every render, also the short ones between two quick bot moves).
BOT_TURNS = """
(() => {
  window.__botTurns = [];
  const look = () => {
    for (const el of document.querySelectorAll('.opponents .seat.turn[data-bot=true]')) {
      window.__botTurns.push({
        bar: !!el.querySelector('.clock, .clock-bar'),
        thinking: !!el.querySelector('.thinking .think-dots') && !!el.querySelector('.thinking'),
        text: el.querySelector('.thinking')?.textContent || '',
      });
    }
  };
  new MutationObserver(look).observe(document, {childList: true, subtree: true});
})();
"""

# Geometry of the opponents' cards: each card's box, the boxes of what is drawn inside it, and
# whether its name is cut (an ellipsis shows when the text is wider than its box).
CARDS = """() => [...document.querySelectorAll('.opponents .seat')].map((el) => {
  const box = (x) => {
    const r = x.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const name = el.querySelector('.seat-name');
  const drawn = '.badge, .seat-name, .dot, .points, .backs, .clock, .thinking';
  const parts = [...el.querySelectorAll(drawn)]
    .filter((x) => x.getClientRects().length > 0)
    .map((x) => [x.className, ...box(x)]);
  const cut = name.scrollWidth > name.clientWidth + 1;
  return {box: box(el), name: name.textContent, cut, parts};
})"""

REVEAL = """() => {
  const panel = document.querySelector('[data-testid=round-end] .panel');
  const box = (x) => {
    const r = x.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const oneLine = (x) =>
    x.getBoundingClientRect().height < 1.5 * parseFloat(getComputedStyle(x).lineHeight);
  return {
    scrolls: panel.scrollHeight > panel.clientHeight + 1
      || getComputedStyle(panel).overflowY === 'scroll',
    panel: box(panel),
    rows: document.querySelectorAll('.reveal-row').length,
    tiles: [...document.querySelectorAll('.reveal .mini-tile')].map((x) => [x.title, ...box(x)]),
    heads: [...document.querySelectorAll('.reveal-head > *')]
      .map((x) => [x.textContent, oneLine(x)]),
    scored: document.querySelector('.round-end .scored')?.textContent || '',
  };
}"""


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def inside(inner: list[float], outer: list[float]) -> bool:
    return (
        inner[0] >= outer[0] - 0.5
        and inner[1] >= outer[1] - 0.5
        and inner[2] <= outer[2] + 0.5
        and inner[3] <= outer[3] + 0.5
    )


def check_opponents(page: Any) -> None:
    cards = page.evaluate(CARDS)
    assert len(cards) == 3, cards
    for i, a in enumerate(cards):
        assert not a["cut"], f"name cut: {a}"
        assert inside(a["box"], [0, 0, W, H]), a
        for part in a["parts"]:
            assert inside(part[1:], a["box"]), (a["name"], part)
        for b in cards[i + 1 :]:
            assert not overlap(a["box"], b["box"]), (a, b)
    # The bots' names are whole, level included.
    assert all(re.fullmatch(r"Bot \d \(Fortgeschritten\)", c["name"]) for c in cards), cards
    # Bots are always online: a green dot on each card.
    assert page.locator(".opponents .seat[data-online=true] .dot.on").count() == 3


def tap_a_move(page: Any) -> None:
    tiles = playable(page)
    if tiles:
        i, _tile, fits = tiles[0]
        page.locator(".hand .tile-btn").nth(i).tap()
        if fits == "L R":
            page.locator(".end.glow").first.tap()
    elif page.locator(".action.draw").is_enabled():
        page.locator(".action.draw").tap()
    else:
        page.locator(".action.pass").tap()


def test_four_players_on_a_phone(server: str, browser: Any, shots: Path) -> None:
    page = new_page(browser, **PHONE)
    page.add_init_script(BOT_TURNS)
    sign_in_as_guest(page, server, "Lena")
    open_lobby_with_bots(page, ["fortgeschritten"] * 3, mode="Blitz")
    # No round reaches 150: the first round ends in a reveal, and the match goes on.
    set_rule(page, "target", "150")
    start_match(page)
    page.locator(".opponents .seat").nth(2).wait_for()
    check_opponents(page)
    # A player's top bar is one line: mode, round, target, score sheet, leave, help.
    assert page.locator(".topbar").bounding_box()["height"] < 48
    page.screenshot(path=str(shots / "phone-table-4p.png"))

    log_checked = False
    while not page.locator(f"{ROUND_END}, {MATCH_END}").count():
        page.wait_for_selector(f"{MY_TURN}, {ROUND_END}, {MATCH_END}")
        if page.locator(f"{ROUND_END}, {MATCH_END}").count():
            break
        # My own turn: the clock bar runs on my card.
        assert page.locator(".me-card .seat.turn .clock-bar").count() == 1
        lines = page.locator(".log li").count()
        if not log_checked and lines >= 5:
            log_checked = True
            check_log_sheet(page, shots)
            page.wait_for_selector(f"{MY_TURN}, {ROUND_END}, {MATCH_END}")
            if page.locator(f"{ROUND_END}, {MATCH_END}").count():
                break
        check_opponents(page)
        before = version(page)
        tap_a_move(page)
        wait_after(page, before)
    assert page.locator(MATCH_END).count() == 0, "target 150 cannot end the match in round 1"

    # The reveal: every hand in view, no scrolling inside the panel, heads on one line.
    reveal = page.evaluate(REVEAL)
    page.screenshot(path=str(shots / "phone-round-end-4p.png"))
    assert reveal["rows"] == 4
    assert not reveal["scrolls"], reveal
    assert inside(reveal["panel"], [0, 0, W, H]), reveal
    assert reveal["tiles"], "somebody still holds tiles after a round"
    for tile in reveal["tiles"]:
        assert inside(tile[1:], [0, 0, W, H]), tile
    for text, one_line in reveal["heads"]:
        assert one_line, f"wraps: {text}"

    # Bots' turns showed the thinking dots, never a clock bar.
    turns = page.evaluate("window.__botTurns")
    assert turns, "no bot turn was seen"
    assert all(t["thinking"] and not t["bar"] for t in turns), turns[:5]
    assert all("überlegt" in t["text"] for t in turns)

    # The score sheet during the match, from the top bar: round 1's points.
    page.locator(ROUND_END).wait_for(state="detached")
    check_score_sheet_after_round_one(page, reveal["scored"], shots)
    assert_no_js_errors(page)


def check_log_sheet(page: Any, shots: Path) -> None:
    """Only the newest line shows at the board's foot; a tap opens the whole log."""
    inline = page.locator(".log li").all_inner_texts()
    visible = [li for li in page.locator(".log li").all() if li.is_visible()]
    assert len(visible) == 1
    page.locator(".log-box .log-open").tap()
    sheet = page.get_by_test_id("sheet-log")
    sheet.wait_for()
    full = sheet.locator("li").all_inner_texts()
    # Every line so far (more may have come meanwhile), from the opening on.
    assert full[: len(inline)] == inline
    assert re.search(r"eröffne(s)?t mit", full[0]), full[0]
    box = sheet.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= H
    # The sheet's body scrolls to its first line when it is long.
    body = sheet.locator(".sheet-body")
    body.evaluate("el => { el.scrollTop = 0; }")
    first = sheet.locator("li").first.bounding_box()
    assert first["y"] >= box["y"] and first["y"] + first["height"] <= box["y"] + box["height"]
    page.screenshot(path=str(shots / "phone-log.png"))
    sheet.locator(".sheet-close").tap()
    sheet.wait_for(state="detached")


def check_score_sheet_after_round_one(page: Any, scored: str, shots: Path) -> None:
    page.locator(".topbar .score-btn").tap()
    sheet = page.get_by_test_id("sheet-score")
    sheet.wait_for()
    heads = sheet.locator("thead th").all_inner_texts()
    assert heads[0] == "Runde"
    row = sheet.locator("tbody tr[data-round='1'] td").all_inner_texts()
    assert len(row) == 4
    points = [int(x) for x in row]
    won = re.search(r"(\d+) Punkt", scored)
    if won:
        assert int(won.group(1)) in points, (scored, points)
    else:
        assert points == [0, 0, 0, 0]
    # The heads fit their columns (a bot's name without its level on a phone), nothing overflows.
    fits = sheet.locator(".score-sheet").evaluate(
        """el => [...el.querySelectorAll('th')].every((th) => th.scrollWidth <= th.clientWidth + 1)
                 && el.querySelector('table').scrollWidth <= el.clientWidth + 1"""
    )
    assert fits
    assert heads[1:] == ["Du", "Bot 2", "Bot 3", "Bot 4"]
    totals = [int(x) for x in sheet.locator("tfoot td").all_inner_texts()]
    assert totals == points  # Blitz has no Fünferpunkte: after one round, the sheet is its row
    box = sheet.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= W and box["y"] + box["height"] <= H
    page.screenshot(path=str(shots / "phone-score-sheet.png"))
    sheet.locator(".sheet-close").tap()
    sheet.wait_for(state="detached")
    # With points on the cards (one bot scored), the rows still hold whole names.
    check_opponents(page)
