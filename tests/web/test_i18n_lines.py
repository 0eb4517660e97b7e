"""The browser's own sentences: every event kind, the round's end, and a real expired turn.

describeEvent (events.js) and the round-end panel (results.js) compose lines from the
served catalogue; they are rendered here in the page itself for the player ("du"), a
person, a bot and a team, in German and English, and checked against the forbidden
shapes (i18n_shapes). A real match then lets the player's clock run out: the log says
the server played for "dich", not "Du legst …".
"""

from __future__ import annotations

import re
from typing import Any

from i18n_shapes import SUBJECTS, broken
from webplay import (
    MY_TURN,
    TABLE,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    set_rule,
    sign_in_as_guest,
    start_match,
)

#: Every event kind of docs/match-state.md, with and without "auto" where a move can have it.
EVENTS: list[dict[str, Any]] = [
    {"kind": "open", "tile": "6|6"},
    {"kind": "play", "tile": "6|2", "end": "L"},
    {"kind": "play", "tile": "6|2", "end": "R"},
    {"kind": "play", "tile": "6|2", "end": "L", "auto": True},
    {"kind": "play", "tile": "6|2", "end": "R", "auto": True, "fives": 10},
    {"kind": "draw", "count": 1},
    {"kind": "draw", "count": 3},
    {"kind": "draw", "count": 1, "auto": True},
    {"kind": "draw", "count": 2, "auto": True},
    {"kind": "pass"},
    {"kind": "pass", "auto": True},
    {"kind": "timeout"},
    {"kind": "standin"},
    {"kind": "back"},
    {"kind": "leave"},
    {"kind": "connected"},
    {"kind": "disconnected"},
    {"kind": "round_end", "round": 2, "reason": "domino", "winner": 0, "points": [9, 0]},
    {"kind": "round_start", "round": 3},
    {"kind": "match_end", "reason": "target"},
]

RENDER_EVENTS = """
async ([lang, events, names]) => {
  const i18n = await import("/js/i18n.js");
  const { describeEvent, fivesLine } = await import("/js/events.js");
  await i18n.loadCatalogue(lang);
  const nameOf = (seat) => (seat === 0 ? i18n.t("table.you") : names[seat - 1]);
  const out = [];
  for (let seat = 0; seat <= names.length; seat++) {
    for (const ev of events) {
      out.push({ seat, ev, text: describeEvent({ ...ev, seat }, nameOf, 0) });
      if (!ev.fives) continue;
      const text = fivesLine(ev.fives, nameOf(seat), seat === 0, false);
      out.push({ seat, ev, fives: true, text });
    }
  }
  await i18n.loadCatalogue("de");
  return out;
}
"""

RENDER_ROUND_ENDS = """
async ([lang, names]) => {
  const i18n = await import("/js/i18n.js");
  const { roundOverlay } = await import("/js/results.js");
  await i18n.loadCatalogue(lang);
  const out = [];
  const hands = [[], ["0|1"], ["3|4"], ["1|2"]];
  for (const pairs of [false, true]) {
    const seats = [0, 1, 2, 3].map((i) => ({
      name: i ? names[(i - 1) % names.length] : "Mia",
      side: pairs ? i % 2 : i,
    }));
    const sides = pairs ? 2 : 4;
    for (const winner of pairs ? [0, 1, null] : [0, 1, 2, null]) {
      for (const outSeat of [0, 1]) {
        for (const reason of ["domino", "blocked"]) {
          const points = [...Array(sides).keys()].map((i) => (i !== winner ? 0 : outSeat ? 1 : 12));
          const fives = [...Array(sides).keys()].map((i) => [5, 10][i] ?? 0);
          const pips = [0, 1, 7, 3];
          const result = { reason, winner, out_seat: outSeat, points, fives, pips, hands };
          const s = { rules: { pairs }, seats, view: { round: 2, result } };
          const name = (i) => (i === 0 ? i18n.t("table.you") : seats[i].name);
          const el = roundOverlay({ me: 0, state: s, name, hooks: {} }, s);
          const lines = [...el.querySelectorAll("p")].map((p) => p.textContent);
          out.push({ pairs, winner, outSeat, reason, lines });
        }
      }
    }
  }
  await i18n.loadCatalogue("de");
  return out;
}
"""

KEY_SHOWN = re.compile(r"\b(?:log|round|table|match)\.\w+")


def test_every_event_line_reads_well_for_every_subject(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.locator("#guest-name").wait_for()
    for lang in ("de", "en"):
        rows = page.evaluate(RENDER_EVENTS, [lang, EVENTS, list(SUBJECTS.values())])
        assert len(rows) >= len(EVENTS) * (1 + len(SUBJECTS))
        bad = [
            f"{r['seat']} {r['ev']}: {r['text']!r} {broken(r['text'] or '', lang)}"
            for r in rows
            if not r["text"] or broken(r["text"], lang) or KEY_SHOWN.search(r["text"])
        ]
        assert not bad, "\n".join(bad)
        mine = {
            (r["ev"]["kind"], r["ev"].get("auto", False), r["ev"].get("count")): r["text"]
            for r in rows
            if r["seat"] == 0 and not r.get("fives")
        }
        anna = {
            (r["ev"]["kind"], r["ev"].get("auto", False), r["ev"].get("count")): r["text"]
            for r in rows
            if r["seat"] == 1 and not r.get("fives")
        }
        if lang == "de":
            assert mine[("timeout", False, None)] == "Deine Zeit ist abgelaufen."
            assert mine[("standin", False, None)] == "Ein Bot vertritt dich."
            assert mine[("connected", False, None)] == "Du bist wieder verbunden."
            assert mine[("back", False, None)] == "Du bist wieder da."
            assert mine[("draw", True, 2)] == "Der Bot zieht für dich 2 Steine."
            assert mine[("draw", False, 1)] == "Du ziehst einen Stein."
            assert mine[("pass", True, None)] == "Der Bot passt für dich."
            assert anna[("pass", True, None)] == "Für Anna passt der Bot."
            assert anna[("draw", False, 3)] == "Anna zieht 3 Steine."
            auto_mine = [r["text"] for r in rows if r["seat"] == 0 and r["ev"].get("auto")]
            assert all("für dich" in x or "Fünferpunkte" in x for x in auto_mine), auto_mine
            assert "Der Bot legt für dich 6|2 links an." in auto_mine
        else:
            assert mine[("timeout", False, None)] == "Your time ran out."
            assert mine[("play", True, None)].endswith("for you.")
    assert_no_js_errors(page)


def test_every_round_end_line_reads_well_for_every_subject(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.locator("#guest-name").wait_for()
    for lang in ("de", "en"):
        cases = page.evaluate(RENDER_ROUND_ENDS, [lang, list(SUBJECTS.values())])
        assert len(cases) == (4 + 3) * 2 * 2
        bad = [
            f"{c}: {line!r} {broken(line, lang)}"
            for c in cases
            for line in c["lines"]
            if broken(line, lang) or KEY_SHOWN.search(line)
        ]
        assert not bad, "\n".join(bad)
        texts = [" ".join(c["lines"]) for c in cases]
        if lang == "de":
            assert any("Du bekommst 12 Punkte." in x for x in texts)
            assert any("Dein Team bekommt 12 Punkte." in x for x in texts)
            assert any("Team B bekommt 1 Punkt." in x for x in texts)
            assert any("Du bekommst 5 Fünferpunkte." in x for x in texts)
            assert any("Domino! Du bist alle Steine los." in x for x in texts)
    assert_no_js_errors(page)


RECORD_SPEECH = """
() => {
  // Every announcement the page makes (the aria-live region), in order.
  window.__said = [];
  const el = document.getElementById("announcer");
  new MutationObserver(() => {
    if (el.textContent) window.__said.push(el.textContent);
  }).observe(el, { childList: true, characterData: true, subtree: true });
}
"""

TIMEOUT_YOU = "Deine Zeit ist abgelaufen."
FOR_YOU = r"Der Bot (legt|zieht|passt) für dich"


def test_when_the_clock_runs_out_the_log_says_the_server_played_for_you(
    server: str, browser: Any
) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    sign_in_as_guest(page, server, "Mia")
    page.evaluate(RECORD_SPEECH)
    open_lobby_with_bots(page, ["fortgeschritten"], mode="Klassisch")
    set_rule(page, "target", "150")  # no match end before the stand-in has played
    set_rule(page, "turn_seconds", "12 s")  # the shortest clock the rules allow
    start_match(page)
    # The player does nothing on her turn: after 12 s the server moves for her.
    page.locator(MY_TURN).wait_for()
    log = page.locator(f"{TABLE} ol.log")
    log.locator("li", has_text=TIMEOUT_YOU).wait_for(timeout=60_000)
    lines = log.locator("li").all_inner_texts()
    after = lines[lines.index(TIMEOUT_YOU) + 1 :]
    # The automatic moves that follow are the bot's for her, never "Du legst/ziehst/passt".
    assert after and re.match(FOR_YOU, after[0]), lines
    assert not [x for x in after if re.match(r"Du (legst|ziehst|passt)", x)], lines
    # Her next turn runs out too: a bot stands in for her and plays her turns ("auto" bot
    # moves); the screen reader hears it after the stand-in news, not only the timeout's.
    # (Read from the recorded speech: with two bots playing, the log scrolls fast.)
    page.wait_for_function(
        "([re]) => new RegExp('Ein Bot vertritt dich[.].*' + re).test(window.__said.join(' '))",
        arg=[FOR_YOU],
        timeout=60_000,
    )
    said = page.evaluate("window.__said")
    assert not [x for x in said if broken(x, "de")], said
    assert not [x for x in said if re.search(r"Du (legst|ziehst|passt|eröffnest)", x)], said
    # (Her "Ich bin wieder da" line is rendered above; clicking it here would race the two
    # bots, who now play the match at bot speed.)
    assert_no_js_errors(page)
