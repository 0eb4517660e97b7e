"""Illegal actions cannot be made: the buttons are disabled, and keys or clicks that try get a
clear German message instead of a move."""

from __future__ import annotations

import json
from typing import Any

from webplay import (
    MY_TURN,
    assert_no_js_errors,
    new_page,
    open_lobby_with_bots,
    playable,
    sign_in_as_guest,
    start_match,
    version,
    wait_after,
    wait_for_turn_or_end,
)

MESSAGES = {
    "pass": "Passen geht nur, wenn nichts passt und du nicht ziehen kannst.",
    "draw": "Ziehen geht gerade nicht",
    "tile": "Dieser Stein passt an kein offenes Ende.",
    "end": "Dieser Stein passt nicht an dieses Ende.",
}


def test_illegal_actions_are_refused_with_a_german_message(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    states: dict[str, dict[str, Any]] = {}

    def record(ws: Any) -> None:
        def frame(data: str) -> None:
            msg = json.loads(data)
            if msg.get("type") == "state":
                states[str(msg["v"])] = msg

        ws.on("framereceived", frame)

    page.on("websocket", record)
    # Someone who asked for less motion gets no animations or transitions.
    page.emulate_media(reduced_motion="reduce")
    sign_in_as_guest(page, server, "Ilse")
    # Klassisch plays to 50: enough turns to meet every refusal before the match could end.
    open_lobby_with_bots(page, ["anfaenger"], mode="Klassisch")
    start_match(page)
    message = page.locator(".dock .message")
    page.locator(".hand .tile-btn").first.wait_for()
    assert page.evaluate(
        "getComputedStyle(document.querySelector('.hand .tile-btn')).transitionDuration"
    ) in ("0s", "0s, 0s")
    seen: set[str] = set()

    def try_illegal(p: Any, _moves: int) -> None:
        p.wait_for_selector(MY_TURN)
        v = version(p)
        tiles = playable(p)
        # The page offers exactly the server's legal moves: no more, no fewer.
        for _ in range(100):
            if v in states:
                break
            p.evaluate("0")  # a round trip lets Playwright deliver the pending frame events
        legal = states[v]["view"]["legal"]
        offered = {f"{tile} {end}" for _i, tile, fits in tiles for end in fits.split()}
        assert offered == {m for m in legal if " " in m}
        assert p.locator(".action.draw").is_enabled() == ("D" in legal)
        assert p.locator(".action.pass").is_enabled() == ("P" in legal)
        # (Passen is legal with a fitting tile only after drawing it: skip such turns.)
        if tiles and "pass" not in seen and "P" not in legal:
            # Holding a fitting tile: Passen is disabled, and P only explains why.
            assert p.locator(".action.pass").is_disabled()
            p.keyboard.press("P")
            message.filter(has_text=MESSAGES["pass"]).wait_for()
            seen.add("pass")
        if tiles and "draw" not in seen and "D" not in legal:
            assert p.locator(".action.draw").is_disabled()
            p.keyboard.press("D")
            message.filter(has_text=MESSAGES["draw"]).wait_for()
            seen.add("draw")
        dim = p.locator(".hand .tile-btn.dim")
        if dim.count() and "tile" not in seen:
            dim.first.click()
            message.filter(has_text=MESSAGES["tile"]).wait_for()
            seen.add("tile")
        one_end = [(i, f) for i, _t, f in tiles if f in ("L", "R") and i < 9]
        if one_end and "end" not in seen:
            i, fits = one_end[0]
            p.keyboard.press(str(i + 1))
            p.keyboard.press("R" if fits == "L" else "L")
            message.filter(has_text=MESSAGES["end"]).wait_for()
            p.keyboard.press("Escape")
            seen.add("end")
        # None of that was a move: the table did not change.
        assert version(p) == v

    def act(p: Any) -> None:
        tiles = playable(p)
        if tiles:
            i, _tile, fits = tiles[0]
            if i < 9:
                p.keyboard.press(str(i + 1))
                p.keyboard.press(fits.split()[0])
            else:
                # Keys reach the first nine tiles; beyond, a click (and the end if it asks).
                p.locator(".hand .tile-btn").nth(i).click()
                if fits == "L R":
                    p.locator(".end.glow").first.click()
        else:
            p.keyboard.press("D" if p.locator(".action.draw").is_enabled() else "P")

    # Play on (legal moves) until every refusal was seen; the match need not end.
    moves = 0
    while not {"pass", "draw", "tile"} <= seen:
        assert wait_for_turn_or_end(page) == "turn", f"match over, seen only {seen}"
        try_illegal(page, moves)
        before = version(page)
        act(page)
        wait_after(page, before)
        moves += 1
    assert_no_js_errors(page)
