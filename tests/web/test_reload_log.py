"""The table's log after a reload, and what the screen reader hears.

A player reloads the page in the middle of round 2: the log must show the whole match as
it did before (round 1 from the server's ``history`` answer, round 2 rebuilt from the
snapshot), not only "Du bist wieder verbunden.". And every part the aria-live region reads
is a sentence of its own: "Runde 2." then "Bot 2 (Fortgeschritten) eröffnet mit 6|6.",
never "Runde 2 Bot 2 ...".
"""

from __future__ import annotations

import re
from typing import Any

from webplay import (
    MY_TURN,
    SEEDS,
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
    wait_for_turn_or_end,
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}

# Every announcement the page makes (the aria-live region), in order; kept over a reload.
RECORD_SPEECH = """
(() => {
  const start = () => {
    window.__said = [];
    const el = document.getElementById("announcer");
    new MutationObserver(() => {
      if (el.textContent) window.__said.push(el.textContent);
    }).observe(el, { childList: true, characterData: true, subtree: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
"""
LOG_LINES = (
    "() => [...document.querySelectorAll('.table-screen ol.log li')].map((li) => li.textContent)"
)
CONNECTION = re.compile(r"verbunden|Verbindung")
# Known deals (Klassisch, two seats, Lager off; docs/rules.md §5): in the first, round 1 has
# moves of both seats; in the second, its opening blocks round 1 at once, before any turn
# (about 1 deal in 40 does: with a random deal the first test failed now and then).
MOVES_IN_ROUND_ONE = "reload-0"
BLOCKED_AT_THE_OPENING = "reload-18"


def act(p: Any) -> None:
    """One move: the first playable tile (its left end if both fit), else pass."""
    tiles = playable(p)
    if tiles:
        i, _tile, fits = tiles[0]
        p.locator(".hand .tile-btn").nth(i).click()
        if fits == "L R":
            p.locator(".end.glow").first.click()
        return
    p.get_by_role("button", name="Passen", exact=True).click()


def play_into_round_two(page: Any, moves_in_round_two: int, seed: str | None = None) -> None:
    """Klassisch without a Lager against one bot, to 150 points: play until round 2 runs and
    the player has made ``moves_in_round_two`` moves in it; returns on the player's turn."""
    open_lobby_with_bots(page, ["fortgeschritten"], mode="Klassisch")
    set_rule(page, "target", "150")
    set_rule(page, "lager", "Aus")  # no draws: a reload's log equals the live one line for line
    if seed is not None:
        SEEDS.append(seed)
    start_match(page)
    round_two = page.locator(f"{TABLE} .topbar .chip", has_text=re.compile(r"^Runde 2$"))
    made = 0
    while True:
        assert wait_for_turn_or_end(page) == "turn", "the match ended before round 2"
        if round_two.count():
            if made == moves_in_round_two:
                return
            made += 1
        before = version(page)
        act(page)
        wait_after(page, before)


def test_every_announced_part_is_a_sentence(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    page.add_init_script(RECORD_SPEECH)
    sign_in_as_guest(page, server, "Sina")
    play_into_round_two(page, 1, MOVES_IN_ROUND_ONE)
    said = page.evaluate("window.__said")
    text = " ".join(said)
    # The round's start is read as a sentence of its own, and so is the turn.
    assert re.search(r"Runde 2\. ", text), said
    assert "Runde 1 ist vorbei." in text, said
    assert "Du bist dran." in text, said
    # No title runs into the next part: "Runde 2 Bot ...", "Du bist dran Bot ...".
    runs = re.compile(r"(?:Runde \d+|ist vorbei|Du bist dran|Spielende) (?!ist vorbei)\S")
    assert not [x for x in said if runs.search(x)], said
    # Every announcement ends as a sentence ends.
    assert not [x for x in said if not re.search(r"[.!?…]$", x.strip())], said
    assert_no_js_errors(page)


def test_a_round_blocked_at_its_opening_is_still_told(server: str, browser: Any) -> None:
    """Round 1 ends with the opening, before the page had a turn to tell: the table starts on
    the round's end, and the screen reader hears it as the screen shows it."""
    page = new_page(browser, **DESKTOP)
    page.add_init_script(RECORD_SPEECH)
    sign_in_as_guest(page, server, "Enno")
    play_into_round_two(page, 0, BLOCKED_AT_THE_OPENING)
    # The turn shows before the page has read it out: wait for the round's announcement.
    page.wait_for_function("() => window.__said.join(' ').includes('Runde 2.')")
    said = page.evaluate("window.__said")
    text = " ".join(said)
    assert "Runde 1 ist vorbei." in text, said
    assert text.index("Runde 1 ist vorbei.") < text.index("Runde 2."), said
    log = page.evaluate(LOG_LINES)
    assert "Runde 1 ist vorbei" in log, log
    assert log.index("Runde 1 ist vorbei") < log.index("Runde 2"), log
    assert_no_js_errors(page)


def test_a_reload_in_round_two_keeps_the_whole_log(server: str, browser: Any) -> None:
    page = new_page(browser, **DESKTOP)
    sign_in_as_guest(page, server, "Rike")
    # A known deal whose round 2 gives the player three turns (with a random one, round 2
    # was now and then over after two, and the match ran to its end).
    play_into_round_two(page, 2, MOVES_IN_ROUND_ONE)
    before = page.evaluate(LOG_LINES)
    assert "Runde 1 ist vorbei" in before and "Runde 2" in before, before
    # The reload comes on the player's own turn: the bot waits for her, nothing happens.
    page.reload()
    page.locator(MY_TURN).wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.table-screen ol.log li')]"
        ".some((li) => li.textContent === 'Runde 1 ist vorbei')"
    )
    after = page.evaluate(LOG_LINES)
    # The same lines, round 1 included, in the same order (connection news aside).
    kept = [x for x in after if not CONNECTION.search(x)]
    assert kept == [x for x in before if not CONNECTION.search(x)], (before, after)
    assert_no_js_errors(page)
