"""The snake layout (web/js/snake.js), run in the browser on many random lines: no two tiles
(or the two open-end slots) overlap, and everything lies inside the drawing's viewBox."""

from __future__ import annotations

from typing import Any

from webplay import new_page

CHECK = """
async () => {
  const { layout, UNIT } = await import("/js/snake.js");
  // A small seeded generator, so a failure can be replayed.
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const box = (t) => {
    const upright = Math.abs(Math.round(t.angle / 90)) % 2 === 1;
    const [ex, ey] = upright ? [0.5, 1] : [1, 0.5];
    return [t.x - ex, t.y - ey, t.x + ex, t.y + ey];
  };
  const sizes = [[340, 300], [780, 430], [1000, 420], [340, 200]];
  let overlaps = 0, outside = 0, count = 0;
  for (let trial = 0; trial < 1500; trial++) {
    const n = 1 + Math.floor(rnd() * 28);
    const line = [];
    let end = Math.floor(rnd() * 7);
    for (let i = 0; i < n; i++) {
      const next = rnd() < 0.25 ? end : Math.floor(rnd() * 7);
      line.push([`${end}|${next}`, end, next]);
      end = next;
    }
    const [w, h] = sizes[trial % sizes.length];
    const lay = layout(line, Math.floor(rnd() * n), w, h);
    const items = [...lay.tiles.map(box), box(lay.ends.L), box(lay.ends.R)];
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = items[i], b = items[j];
        const ox = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
        const oy = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
        if (ox > 1e-6 && oy > 1e-6) overlaps++;
      }
    }
    const [vx, vy, vw, vh] = lay.viewBox.map((x) => x / UNIT);
    for (const [x0, y0, x1, y1] of items) {
      if (x0 < vx - 1e-6 || y0 < vy - 1e-6 || x1 > vx + vw + 1e-6 || y1 > vy + vh + 1e-6) outside++;
    }
    if (lay.tiles.length !== n) overlaps += 1000;
    count++;
  }
  return { count, overlaps, outside };
}
"""


def test_snake_never_overlaps_and_always_fits(server: str, browser: Any) -> None:
    page = new_page(browser, viewport={"width": 800, "height": 600})
    page.goto(server + "/")
    result = page.evaluate(CHECK)
    assert result == {"count": 1500, "overlaps": 0, "outside": 0}
