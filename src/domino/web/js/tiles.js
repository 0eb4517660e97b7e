// SVG domino tiles. A tile is drawn in a 200x100 box (two 100x100 halves, `a` on the left);
// callers rotate it. Pure functions returning SVG markup strings, so the same drawing serves
// the snake (one big <svg>), the hand (one <svg> per button) and the round-end reveal.

const SVG_NS = "http://www.w3.org/2000/svg";

// Pip centres inside one 100x100 half, by number (the classic die-like patterns).
const P = { l: 27, m: 50, h: 73 };
const PIPS = [
  [],
  [[P.m, P.m]],
  [[P.l, P.l], [P.h, P.h]],
  [[P.l, P.l], [P.m, P.m], [P.h, P.h]],
  [[P.l, P.l], [P.h, P.l], [P.l, P.h], [P.h, P.h]],
  [[P.l, P.l], [P.h, P.l], [P.m, P.m], [P.l, P.h], [P.h, P.h]],
  [[P.l, P.l], [P.h, P.l], [P.l, P.m], [P.h, P.m], [P.l, P.h], [P.h, P.h]],
];

/** Parse "6|2" into [6, 2]. */
export function parseTile(text) {
  const [a, b] = String(text).split("|").map(Number);
  return [a, b];
}

/** The canonical text of a tile: higher half first ("6|2"), as the server writes it. */
export function tileText(a, b) {
  return a >= b ? `${a}|${b}` : `${b}|${a}`;
}

function pips(n, dx) {
  return PIPS[n]
    .map(([x, y]) => `<circle cx="${x + dx}" cy="${y}" r="9.5" class="pip"/>`)
    .join("");
}

/**
 * Markup of one tile face in the 200x100 box: `a` on the left half, `b` on the right.
 * `cls` adds classes to the group (e.g. "last" for the tile played last).
 */
export function tileFace(a, b, cls = "") {
  return (
    `<g class="tile ${cls}">` +
    `<rect x="3" y="3" width="194" height="94" rx="14" class="tile-body"/>` +
    `<rect x="8" y="8" width="184" height="84" rx="10" class="tile-face"/>` +
    `<line x1="100" y1="14" x2="100" y2="86" class="tile-bar"/>` +
    `<circle cx="100" cy="50" r="4" class="tile-rivet"/>` +
    pips(a, 0) +
    pips(b, 100) +
    `</g>`
  );
}

/** Markup of a face-down tile in the same box. */
export function tileBack() {
  return (
    `<g class="tile back">` +
    `<rect x="3" y="3" width="194" height="94" rx="14" class="tile-body back-body"/>` +
    `<rect x="14" y="14" width="172" height="72" rx="8" class="back-inlay"/>` +
    `</g>`
  );
}

/**
 * A standalone <svg> string for one tile, upright (vertical, `a` on top) or lying (horizontal).
 */
export function tileSvg(a, b, { upright = true, back = false, cls = "" } = {}) {
  const inner = back ? tileBack() : tileFace(a, b, cls);
  if (upright) {
    return (
      `<svg viewBox="0 0 100 200" class="tile-svg upright" aria-hidden="true" focusable="false">` +
      `<g transform="translate(100 0) rotate(90)">${inner}</g></svg>`
    );
  }
  return (
    `<svg viewBox="0 0 200 100" class="tile-svg lying" aria-hidden="true" focusable="false">` +
    `${inner}</svg>`
  );
}

export { SVG_NS };
