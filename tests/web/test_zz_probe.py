from __future__ import annotations
from typing import Any
import json
from webplay import new_page, open_lobby_with_bots, sign_in_as_guest, start_match, playable, play_match

HIT = """() => [...document.querySelectorAll('.end')].map(e => { const r = e.getBoundingClientRect();
  const x = r.left + r.width/2, y = r.top + r.height/2; const at = document.elementFromPoint(x, y);
  return {end: e.dataset.end, glow: e.classList.contains('glow'), ok: !!at && e.contains(at), at: at ? (at.className?.baseVal ?? at.className) + '/' + at.tagName : null, r: [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)], vw: innerWidth, vh: innerHeight, scroll: document.querySelector('.table-screen').scrollTop}; })"""

bad: list[Any] = []

def run(server: str, browser: Any, vp: dict[str, int], k: int) -> None:
    page = new_page(browser, viewport=vp)
    sign_in_as_guest(page, server, f"Pro{k}")
    open_lobby_with_bots(page, ["anfaenger"], mode="Klassisch")
    start_match(page)
    def act(p: Any) -> None:
        tiles = playable(p)
        if tiles:
            i, _t, fits = tiles[-1]
            p.locator(".hand .tile-btn").nth(i).click()
            for h in p.evaluate(HIT):
                if not h["ok"]:
                    bad.append((vp, len(p.locator('.hand .tile-btn').all()), h))
                    p.screenshot(path=f"/tmp/probe-{k}-{len(bad)}.png")
            if fits == "L R":
                p.locator(".end.glow").first.click(timeout=5000)
        elif p.locator(".action.draw").is_enabled():
            p.locator(".action.draw").click()
        else:
            p.locator(".action.pass").click()
    play_match(page, act)
    page.close()

def test_probe(server: str, browser: Any) -> None:
    k = 0
    for _ in range(3):
        for vp in ({"width": 1280, "height": 800}, {"width": 360, "height": 740}, {"width": 800, "height": 600}):
            k += 1
            try:
                run(server, browser, vp, k)
            except Exception as e:  # noqa: BLE001
                bad.append((vp, "EXC", str(e)[:600]))
    print(json.dumps(bad, indent=1)[:6000])
    assert not bad
