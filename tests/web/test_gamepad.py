"""A whole match against a bot with a (stubbed) controller only: D-pad, A, LB/RB, X, Y, B.

navigator.getGamepads is replaced before the page loads by a standard-mapping pad whose
buttons the test presses; each press is seen by exactly one poll, then released, so the
client's edge detection sees one press per call.
"""

from __future__ import annotations

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

PAD_STUB = """
(() => {
  const queue = [];
  let held = -1;
  let seen = 0;
  window.__padPress = (i) => queue.push(i);
  window.__padIdle = () => queue.length === 0 && held < 0;
  const pad = (pressed) => ({
    id: "Test pad (STANDARD GAMEPAD)", index: 0, connected: true, mapping: "standard",
    timestamp: performance.now(), axes: [0, 0, 0, 0],
    buttons: Array.from({ length: 17 }, (_, i) => (
      { pressed: i === pressed, touched: i === pressed, value: i === pressed ? 1 : 0 })),
  });
  navigator.getGamepads = () => {
    // One poll sees the button down, the next sees it up, then the next press starts.
    if (held >= 0) { held = -1; return [pad(-1)]; }
    if (queue.length) { held = queue.shift(); return [pad(held)]; }
    return [pad(-1)];
  };
})();
"""

A, B, X, Y, LB, RB, UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3, 4, 5, 12, 13, 14, 15


def press(page: Any, *buttons: int) -> None:
    for b in buttons:
        page.evaluate("b => window.__padPress(b)", b)
    page.wait_for_function("window.__padIdle()")


def test_whole_match_with_a_controller(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 1280, "height": 800})
    page.add_init_script(PAD_STUB)
    sign_in_as_guest(page, server, "Pia")
    open_lobby_with_bots(page, ["anfaenger"])
    # Off the table the D-pad walks the page's controls and A presses: open the help, B closes.
    press(page, RIGHT)
    for _ in range(10):
        if page.evaluate("document.activeElement?.getAttribute('aria-label')") == "Hilfe":
            break
        press(page, RIGHT)
    press(page, A)
    page.locator(".overlay.help").wait_for()
    press(page, B)
    page.locator(".overlay.help").wait_for(state="detached")
    start_match(page)

    used = {"b": False, "lb_rb": 0, "a": 0}

    def focus_tile(p: Any, index: int) -> None:
        # Into the hand (the focus stays there after a play; up from the actions, down from
        # the ends or from nowhere), all the way left, then right to the tile.
        where = p.evaluate(
            "(() => { const a = document.activeElement;"
            " return a?.dataset?.tile ? 'hand' : a?.closest('.actions') ? 'actions' : 'other'; })()"
        )
        if where == "actions":
            press(p, UP)
        elif where == "other":
            press(p, DOWN)
            if p.evaluate("!document.activeElement?.dataset?.tile"):
                press(p, DOWN)
        hand = p.locator(".hand .tile-btn").count()
        press(p, *([LEFT] * hand), *([RIGHT] * index))

    def act(p: Any) -> None:
        tiles = playable(p)
        if not tiles:
            press(p, X if p.locator(".action.draw").is_enabled() else Y)
            return
        i, tile, fits = tiles[0]
        focus_tile(p, i)
        assert p.evaluate("document.activeElement.dataset.tile") == tile
        if not used["b"] and fits == "L R":
            # A on a tile that fits both ends selects it; B drops the selection again.
            press(p, A)
            p.locator(".tile-btn.selected").wait_for()
            press(p, B)
            p.locator(".tile-btn.selected").wait_for(state="detached")
            used["b"] = True
            focus_tile(p, i)
        if fits == "L R" or used["a"] > used["lb_rb"]:
            press(p, LB if fits.split()[0] == "L" else RB)
            used["lb_rb"] += 1
        else:
            press(p, A)
            used["a"] += 1

    moves = play_match(page, act)
    assert moves > 3
    assert used["a"] >= 1 and used["lb_rb"] >= 1
    page.locator(MATCH_END).wait_for()
    # The standings take the focus: A presses "Nochmal" and the lobby is back.
    page.wait_for_function("document.activeElement?.dataset?.testid === 'again'")
    press(page, A)
    page.get_by_test_id("start").wait_for()
    assert_no_js_errors(page)
