// Layout of the line of play as a two-armed snake that always fits its box.
//
// The opening tile sits in the middle. The right arm runs to the right, turns down at the row
// limit and runs back, and so on; the left arm is the same shape turned by 180 degrees (it runs
// left and turns up). Placed tiles therefore never move when new ones are added: only the
// overall scale changes. Doubles lie crosswise. Units: a tile is 2 x 1 units; the drawing uses
// 100 SVG units per unit, so a tile face (200 x 100) needs no scaling.
//
// Pure functions, no DOM: the table view turns the result into SVG and positioned buttons.

const U = 100;

/**
 * Lay out one arm going outwards from the opener.
 * `tiles`: [{inner, outer, double, index}] in outward order. Returns placements and the slot
 * where the next (non-double) tile would go, both in units, before any mirroring.
 */
function layArm(tiles, start, limit) {
  const out = [];
  let x = start; // cursor: the open edge of the arm, on the current row's centre line
  let y = 0;
  let h = 1; // heading along the row: +1 right, -1 left
  let afterCorner = null; // the corner tile just placed (a double may tuck under it)

  const place = (t, len, cx, cy, angle) => {
    out.push({ ...t, x: cx, y: cy, angle, len });
  };

  const step = (t, dryRun) => {
    const len = t.double ? 1 : 2;
    const far = x + h * len;
    if (afterCorner && t.double) {
      // A double right after a corner lies crosswise under the corner tile.
      const cx = afterCorner.x;
      const cy = afterCorner.y + 1.5;
      if (!dryRun) place(t, 1, cx, cy, 0);
      x = cx + h * 1;
      y = cy;
      afterCorner = null;
      return { x: cx, y: cy, angle: 0 };
    }
    afterCorner = null;
    if (!t.double && Math.abs(far) > limit && (out.length > 0 || dryRun)) {
      // Turn: a tile standing upright beyond the row's end, inner half up.
      const cx = x + h * 0.5;
      const cy = y + 0.5;
      if (!dryRun) place(t, 2, cx, cy, 90);
      const corner = { x: cx, y: cy };
      // The next row runs back under the corner, one row lower.
      x = x + h * 1;
      y = y + 2;
      h = -h;
      afterCorner = corner;
      return { x: cx, y: cy, angle: 90 };
    }
    const cx = x + h * (len / 2);
    const angle = t.double ? 90 : h > 0 ? 0 : 180;
    if (!dryRun) place(t, len, cx, y, angle);
    x = far;
    return { x: cx, y, angle };
  };

  for (const t of tiles) step(t, false);
  // The slot for the next tile: where a plain tile would land.
  const slot = step({ double: false }, true);
  return { placed: out, slot };
}

/**
 * Compute the snake for `line` (engine form: [[tile, leftHalf, rightHalf], ...]) with the
 * opener at `openerIndex`, for a box of `width` x `height` pixels.
 * Returns {tiles: [{a, b, x, y, angle, double, index}], ends: {L, R}, viewBox: [x, y, w, h]}
 * where a/b are the halves in drawing order (a at the tile box's left before rotation).
 */
export function layout(line, openerIndex, width, height, { maxUnitPx = 40 } = {}) {
  const aspect = Math.max(0.3, width / Math.max(1, height));
  if (!line.length) {
    return { tiles: [], ends: null, viewBox: fitBox([-3, -2, 6, 4], aspect, width, maxUnitPx) };
  }
  const op = Math.min(Math.max(0, openerIndex), line.length - 1);
  const [, oa, ob] = line[op];
  const opDouble = oa === ob;
  const half = opDouble ? 0.5 : 1;
  const right = [];
  for (let i = op + 1; i < line.length; i++) {
    const [, a, b] = line[i];
    right.push({ inner: a, outer: b, double: a === b, index: i });
  }
  const left = [];
  for (let i = op - 1; i >= 0; i--) {
    const [, a, b] = line[i];
    left.push({ inner: b, outer: a, double: a === b, index: i });
  }

  const options = [];
  for (let limit = 3; limit <= 16; limit++) {
    const ra = layArm(right, half, limit);
    const la = layArm(left, half, limit);
    const tiles = [{ a: oa, b: ob, x: 0, y: 0, angle: opDouble ? 90 : 0, double: opDouble, index: op }];
    for (const p of ra.placed) tiles.push({ a: p.inner, b: p.outer, x: p.x, y: p.y, angle: p.angle, double: p.double, index: p.index });
    for (const p of la.placed) {
      // Mirror through the centre: (x, y) -> (-x, -y), heading turned by 180 degrees.
      tiles.push({ a: p.inner, b: p.outer, x: -p.x, y: -p.y, angle: p.angle + 180, double: p.double, index: p.index });
    }
    const ends = {
      R: { x: ra.slot.x, y: ra.slot.y, angle: ra.slot.angle },
      L: { x: -la.slot.x, y: -la.slot.y, angle: la.slot.angle + 180 },
    };
    const bbox = bounds(tiles, ends);
    // Units never grow beyond maxUnitPx, so many row lengths tie at the cap: then the longer
    // rows win (fewer turns read more easily).
    const scale = Math.min(width / bbox[2], height / bbox[3], maxUnitPx);
    options.push({ scale, tiles, ends, bbox });
  }
  const top = Math.max(...options.map((o) => o.scale));
  const best = options.filter((o) => o.scale >= top * 0.98).pop();
  return { tiles: best.tiles, ends: best.ends, viewBox: fitBox(best.bbox, aspect, width, maxUnitPx) };
}

function extent(angle, double) {
  // Half-extents (in units) of a tile box (2 x 1) rotated by `angle` (multiples of 90).
  const vertical = Math.abs(Math.round(angle / 90)) % 2 === 1;
  return vertical ? [0.5, 1] : [1, 0.5];
}

function bounds(tiles, ends) {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  const add = (x, y, ex, ey) => {
    x0 = Math.min(x0, x - ex);
    x1 = Math.max(x1, x + ex);
    y0 = Math.min(y0, y - ey);
    y1 = Math.max(y1, y + ey);
  };
  for (const t of tiles) {
    const [ex, ey] = extent(t.angle, t.double);
    add(t.x, t.y, ex, ey);
  }
  for (const e of Object.values(ends)) {
    const [ex, ey] = extent(e.angle, false);
    add(e.x, e.y, ex, ey);
  }
  const pad = 0.35;
  return [x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad];
}

/** Grow a unit bbox to the box's aspect ratio (centred) and to a minimum size; SVG units. */
function fitBox([bx, by, bw, bh], aspect, widthPx, maxUnitPx) {
  // Never draw a unit larger than maxUnitPx: a short line stays tile-sized, not huge.
  const minW = widthPx / maxUnitPx;
  let w = Math.max(bw, minW, bh * aspect);
  let h = w / aspect;
  if (h < bh) {
    h = bh;
    w = h * aspect;
  }
  const cx = bx + bw / 2;
  const cy = by + bh / 2;
  return [(cx - w / 2) * U, (cy - h / 2) * U, w * U, h * U];
}

export const UNIT = U;
