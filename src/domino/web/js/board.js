// The board component: the line of play (a snake, see snake.js) and, if wanted, revealed hands,
// drawn from a plain state object. It knows nothing of sockets, turns or input, so the table
// and a replay viewer can share it:
//
//   const board = new Board(svgElement);
//   board.render({ line, history }, widthPx, heightPx);   // -> the layout (ends, viewBox)
//   handsElement(["6|2", "5|3"]);                           // a row of small face-up tiles
//
// `line` is the snapshot's view.line ([[tile, left, right], ...]) and `history` its
// view.history (used to find the opener and the tile laid last).

import { h } from "./dom.js";
import { layout, UNIT } from "./snake.js";
import { tileFace, tileSvg } from "./tiles.js";

/** Where the opening tile lies in `line`: tiles laid left after the opening push it right. */
export function openerIndex(v) {
  const hist = v.history || [];
  const line = v.line || [];
  const lefts = hist.filter((e) => e.kind === "play" && e.end === "L").length;
  if (hist.some((e) => e.kind === "open")) return Math.min(lefts, line.length - 1);
  return Math.floor(line.length / 2);
}

/** The index in `line` of the tile laid last (-1 if none). */
export function lastPlayedIndex(v) {
  const hist = v.history || [];
  const lastEv = [...hist].reverse().find((e) => e.kind === "play" || e.kind === "open");
  if (!lastEv) return -1;
  return (v.line || []).findIndex((l) => l[0] === lastEv.tile);
}

export class Board {
  /** `svg`: an <svg> element the board draws into (it sets viewBox and content). */
  constructor(svg) {
    this.svg = svg;
    this.lay = null;
  }

  /** Draw `v` ({line, history}) for a box of width x height pixels; returns the layout. */
  render(v, width, height) {
    const line = v.line || [];
    const lay = layout(line, openerIndex(v), width, height, { maxUnitPx: width < 500 ? 30 : 54 });
    this.lay = lay;
    const last = lastPlayedIndex(v);
    let markup = "";
    for (const tl of lay.tiles) {
      const tr = `translate(${tl.x * UNIT} ${tl.y * UNIT}) rotate(${tl.angle}) translate(-100 -50)`;
      markup += `<g transform="${tr}">${tileFace(tl.a, tl.b, tl.index === last ? "last" : "")}</g>`;
    }
    this.svg.setAttribute("viewBox", lay.viewBox.join(" "));
    this.svg.innerHTML = markup;
    return lay;
  }

  /** A point in units as percentages of the drawn box (for positioned buttons over it). */
  toPct(x, y) {
    const [vx, vy, vw, vh] = this.lay.viewBox;
    return [((x * UNIT - vx) / vw) * 100, ((y * UNIT - vy) / vh) * 100];
  }
}

/** A revealed hand: small face-up tiles in a row (round end, replays). */
export function handsElement(tiles, tileLabel) {
  return h(
    "div.reveal-tiles",
    {},
    tiles.map((tl) => {
      const [a, b] = tl.split("|").map(Number);
      return h("span.mini-tile", { html: tileSvg(a, b, { upright: false }), title: tl, "aria-label": tileLabel ? tileLabel(tl) : tl, role: "img" });
    }),
  );
}
