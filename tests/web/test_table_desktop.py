"""The table on a desktop with the keyboard: the whole match log (every line readable, none cut
at the top), the score sheet from the top bar during the match and in the final standings."""

from __future__ import annotations

import re
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

INSIDE = """([sel, outerSel]) => {
  const a = document.querySelector(sel).getBoundingClientRect();
  const b = document.querySelector(outerSel).getBoundingClientRect();
  return a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5
    && a.left >= b.left - 0.5 && a.right <= b.right + 0.5;
}"""


# Every line of the log box lies wholly inside it or wholly outside (scrolled away).
WHOLE_LINES = """() => {
  const box = document.querySelector('.log').getBoundingClientRect();
  return [...document.querySelectorAll('.log li')].every((li) => {
    const r = li.getBoundingClientRect();
    const inside = r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
    const outside = r.bottom <= box.top + 0.5 || r.top >= box.bottom - 0.5;
    return inside || outside;
  });
}"""


def test_log_and_score_sheet_on_a_desktop(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    sign_in_as_guest(page, server, "Kai", keyboard=True)
    open_lobby_with_bots(page, ["profi", "anfaenger"], mode="Blitz")
    start_match(page)
    seen = {"sheet": False, "log": False, "reveals": 0}

    def first_turn(p: Any) -> None:
        # The score sheet from the top bar, by keyboard: Enter opens it, Esc closes it.
        p.locator(".topbar .score-btn").focus()
        p.keyboard.press("Enter")
        sheet = p.get_by_test_id("sheet-score")
        sheet.wait_for()
        assert p.evaluate("document.activeElement.classList.contains('sheet-close')")
        assert sheet.locator("thead th").all_inner_texts() == [
            "Runde",
            "Du",
            "Bot 2 (Profi)",
            "Bot 3 (Anfänger)",
        ]
        sheet.get_by_text("Noch ist keine Runde vorbei.").wait_for()
        # The table's keys do nothing behind the sheet (1 would pick the first tile).
        p.keyboard.press("1")
        assert p.locator(".tile-btn.selected").count() == 0
        p.keyboard.press("Escape")
        sheet.wait_for(state="detached")
        assert p.evaluate("document.activeElement.classList.contains('score-btn')")
        seen["sheet"] = True

    def check_log(p: Any) -> None:
        log = p.locator(".log")
        overflows = log.evaluate("el => el.scrollHeight > el.clientHeight")
        if seen["log"] or not overflows:
            return
        seen["log"] = True
        lines = log.locator("li").all_inner_texts()
        assert re.search(r"eröffne(s)?t mit", lines[0]), lines[0]
        # The newest line is whole at the bottom, and no line is cut at the top edge ...
        assert p.evaluate(INSIDE, [".log li:last-child", ".log"])
        assert p.evaluate(WHOLE_LINES), "a line of the log is cut"
        # ... and the wheel brings back the oldest one, whole, at the top.
        log.hover()
        p.mouse.wheel(0, -5000)
        p.wait_for_function("document.querySelector('.log').scrollTop === 0")
        assert p.evaluate(INSIDE, [".log li:first-child", ".log"])
        p.mouse.wheel(0, 5000)
        p.wait_for_function(
            "(() => { const el = document.querySelector('.log');"
            " return el.scrollTop + el.clientHeight >= el.scrollHeight - 1; })()"
        )
        # "Ganzes Protokoll" opens every line in a sheet; Esc closes it.
        p.locator(".log-open").focus()
        p.keyboard.press("Enter")
        sheet = p.get_by_test_id("sheet-log")
        sheet.wait_for()
        assert sheet.locator("li").all_inner_texts()[: len(lines)] == lines
        p.keyboard.press("Escape")
        sheet.wait_for(state="detached")

    def act(p: Any) -> None:
        if not seen["sheet"]:
            first_turn(p)
        check_log(p)
        tiles = playable(p)
        if not tiles:
            p.keyboard.press("D" if p.locator(".action.draw").is_enabled() else "P")
            return
        i, _tile, fits = tiles[0]
        if i >= 9:
            p.locator(".hand .tile-btn").nth(i).click()
            if fits == "L R":
                p.keyboard.press("L")
            return
        p.keyboard.press(str(i + 1))
        p.keyboard.press(fits.split()[0])

    def on_round_end(p: Any) -> None:
        seen["reveals"] += 1

    play_match(page, act, on_round_end=on_round_end)
    assert seen["sheet"] and seen["log"], seen
    # The final standings hold the score sheet: one row per round, totals as the standings.
    end = page.locator(MATCH_END)
    end.wait_for()
    sheet = end.get_by_test_id("score-sheet")
    rows = sheet.locator("tbody tr[data-round]")
    assert rows.count() == seen["reveals"] + 1
    table = [[int(x) for x in r.locator("td").all_inner_texts()] for r in rows.all()]
    totals = [int(x) for x in sheet.locator("tfoot td").all_inner_texts()]
    assert totals == [sum(col) for col in zip(*table, strict=True)]
    standings = [int(x.split()[0]) for x in end.locator(".standing .pts").all_inner_texts()]
    assert sorted(standings, reverse=True) == sorted(totals, reverse=True)
    assert_no_js_errors(page)
