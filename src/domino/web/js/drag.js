// Dragging a hand tile onto an open end, with a mouse or a finger (pointer events).
// A press that travels less than DRAG_THRESHOLD stays a click; a drag ends in the table's
// tryPlay, the same door the clicks and keys use.

import { h } from "./dom.js";
import { tileSvg } from "./tiles.js";

const DRAG_THRESHOLD = 8; // px a pointer must travel before a press becomes a drag

export class TileDrag {
  constructor(view) {
    this.view = view; // the TableView: its endsEl, renderEnds() and tryPlay()
    this.d = null; // {tile, x0, y0, id, started, ghost, cleanup}
    this.swallow = false; // the click that follows a drag is not a tap
  }

  /** The tile being dragged (the ends glow for it), or null. */
  get tile() {
    return this.d?.started ? this.d.tile : null;
  }

  start(ev, tile) {
    this.view.trace?.(`down ${tile} ${ev.pointerType} button=${ev.button} id=${ev.pointerId}`);
    if (ev.button !== undefined && ev.button !== 0) return;
    this.stop();
    const d = { tile, x0: ev.clientX, y0: ev.clientY, id: ev.pointerId, started: false, ghost: null };
    const move = (e) => this.move(e);
    const up = (e) => this.up(e);
    d.cleanup = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
    this.d = d;
  }

  move(ev) {
    const d = this.d;
    if (!d || ev.pointerId !== d.id) return;
    if (!d.started) {
      if (Math.hypot(ev.clientX - d.x0, ev.clientY - d.y0) < DRAG_THRESHOLD) return;
      d.started = true;
      const [a, b] = d.tile.split("|").map(Number);
      d.ghost = h("div.drag-ghost", { html: tileSvg(a, b), "aria-hidden": "true" });
      document.body.append(d.ghost);
      this.view.renderEnds();
    }
    d.ghost.style.left = `${ev.clientX}px`;
    d.ghost.style.top = `${ev.clientY}px`;
    const over = this.endAt(ev.clientX, ev.clientY);
    for (const b of this.view.endsEl.querySelectorAll("button")) b.classList.toggle("hover", b.dataset.end === over);
  }

  up(ev) {
    const d = this.d;
    if (!d || ev.pointerId !== d.id) return;
    const end = d.started ? this.endAt(ev.clientX, ev.clientY) : null;
    this.view.trace?.(`${ev.type} ${d.tile} started=${d.started} end=${end}`);
    this.stop();
    if (!d.started) {
      // A plain press (a tap, a click) acts here, not in the click that follows: a redraw
      // between press and release (a snapshot, the clock) replaces the button under the
      // pointer, and the browser then sends no click at all. Pointer clicks on tiles are
      // therefore ignored (TableView.onTileClick); keyboard and controller clicks still act.
      // The click the browser does send may land on whatever the redraw put under the
      // pointer: TableView swallows it (shieldClick).
      if (ev.type === "pointerup") {
        this.view.shieldClick();
        this.view.activateTile(d.tile);
      }
      return;
    }
    this.swallow = true;
    setTimeout(() => (this.swallow = false), 0);
    if (end) this.view.tryPlay(d.tile, end);
    else this.view.renderEnds();
  }

  stop() {
    if (!this.d) return;
    this.d.cleanup();
    this.d.ghost?.remove();
    this.d = null;
  }

  /** True once for the click event a finished drag leaves behind. */
  consumeClick() {
    const was = this.swallow;
    this.swallow = false;
    return was;
  }

  /** The end whose button is under (or near) the point, with a margin for fingers. */
  endAt(x, y) {
    let best = null;
    let bestDist = Infinity;
    for (const b of this.view.endsEl.querySelectorAll("button")) {
      const r = b.getBoundingClientRect();
      const margin = Math.max(24, r.width / 2);
      const dx = Math.max(r.left - x, 0, x - r.right);
      const dy = Math.max(r.top - y, 0, y - r.bottom);
      const dist = Math.hypot(dx, dy);
      if (dist <= margin && dist < bestDist) {
        best = b.dataset.end;
        bestDist = dist;
      }
    }
    return best;
  }
}
