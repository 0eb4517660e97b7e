// Puzzles (docs/puzzles.md), loaded on demand for anyone: #/puzzles (the day's),
// #/puzzles/next, #/puzzles/mine ("Deine Fehler"), #/puzzle/ID.

import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";
import { Board } from "./board.js";
import { tileSvg } from "./tiles.js";
import { puzzleGet, puzzleAnswer } from "./api.js";

/** "6|2 Links", "Ziehen", "Passen". */
export function moveText(m) {
  if (m === "D" || m === "P") return t(m === "D" ? "puzzles.draw" : "puzzles.pass");
  const [tile, end] = m.split(" ");
  return `${tile} ${t(end === "L" ? "puzzles.left" : "puzzles.right")}`;
}

const name = (p, s) => p.names?.[s] || `#${s + 1}`;
const where = (p) => t("puzzles.where", { round: p.round, move: p.move, rating: p.rating });
const streak = (me) => tn("puzzles.streak", me.streak, { n: me.streak });
const meLine = (me) => (me ? h("p", { "data-testid": "puzzle-me" }, t("puzzles.rating", { rating: me.rating }), " · ", streak(me)) : h("p.muted", {}, t("puzzles.guest")));
const btn = (text, move, on) => h("button", { type: "button", "data-move": move, onclick: () => on(move) }, text);

export class PuzzleView {
  constructor(host, r, { toast, errorText }) {
    Object.assign(this, { host, toast, errorText, alive: true });
    this.mode = r.name === "puzzle" ? "one" : ["next", "mine"].includes(r.arg) ? r.arg : "daily";
    this.load(r.name === "puzzle" ? r.arg : this.mode);
  }

  destroy() {
    this.alive = false;
    this.obs?.disconnect();
  }

  frame(...kids) {
    const link = (m, key) => h(`a.button${this.mode === m ? ".primary" : ""}`, { href: m === "daily" ? "#/puzzles" : `#/puzzles/${m}` }, t(key));
    clear(this.host).append(h("h1", {}, t("puzzles.title")), h("nav.puzzle-nav", {}, link("daily", "puzzles.daily"), link("next", "puzzles.next"), link("mine", "puzzles.mine")), ...kids);
  }

  async load(arg) {
    this.frame(h("p", {}, t("puzzles.loading")));
    let res;
    try {
      res = await puzzleGet(arg);
    } catch (e) {
      if (this.alive) this.frame(h("p", { role: "alert", "data-testid": "puzzles-error" }, e.code === "auth_required" ? t("puzzles.mine_signin") : this.errorText(e)));
      return;
    }
    if (!this.alive) return;
    if (this.mode === "mine") {
      const li = res.puzzles.map((p) => h("li.puzzle-item", {}, where(p), " ", h("a.button", { href: `#/puzzle/${encodeURIComponent(p.id)}` }, t("puzzles.open"))));
      this.frame(meLine(res.me), li.length ? h("ul.puzzle-list", { "data-testid": "puzzle-list" }, li) : h("p", {}, t("puzzles.mine_none")));
    } else if (this.mode === "daily") {
      if (res.puzzle) this.show(res.puzzle, res.me);
      else this.frame(meLine(res.me), h("p", { "data-testid": "puzzles-none" }, t("puzzles.none")));
    } else this.show(res);
  }

  show(p, me) {
    this.p = p;
    const pos = p.position;
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "board-svg");
    const box = h("div.puzzle-board", { "aria-hidden": "true" }, svg);
    const board = new Board(svg);
    const draw = () => board.render(pos, box.clientWidth || 320, box.clientHeight || 200);
    this.obs?.disconnect();
    this.obs = new ResizeObserver(draw);
    this.obs.observe(box);
    const counts = pos.hand_counts.map((n, s) => h("li", {}, `${name(p, s)}: ${tn("table.tiles", n, { n })}`));
    const tiles = pos.hand.map((tile) => {
      const moves = pos.legal.filter((m) => m.startsWith(`${tile} `));
      const [a, b] = tile.split("|").map(Number);
      return h("button.puzzle-tile", { type: "button", disabled: !moves.length, "aria-label": tile, "data-tile": tile, html: tileSvg(a, b, { upright: true }), onclick: () => this.pick(tile, moves) });
    });
    const other = ["D", "P"].filter((m) => pos.legal.includes(m)).map((m) => btn(moveText(m), m, (x) => this.answer(x)));
    this.choice = h("div.puzzle-choice");
    this.result = h("div", { "aria-live": "polite", "data-testid": "puzzle-result" });
    this.frame(
      me !== undefined ? meLine(me) : null,
      h("section.puzzle", { "data-testid": "puzzle", "data-puzzle": p.id },
        h("p.puzzle-task", {}, t("puzzles.task", { player: name(p, p.seat) })), h("p.muted", {}, where(p)), box,
        h("ul.puzzle-counts", { "aria-label": t("puzzles.counts") }, counts, h("li", {}, t("puzzles.lager", { n: pos.lager }))),
        h("h2", {}, t("puzzles.hand")), h("div.puzzle-hand", {}, tiles, other), this.choice, this.result),
    );
    draw();
  }

  pick(tile, moves) {
    if (moves.length === 1) return this.answer(moves[0]);
    const ends = moves.map((m) => btn(t(m.endsWith("L") ? "puzzles.left" : "puzzles.right"), m, (x) => this.answer(x)));
    clear(this.choice).append(h("p", {}, t("puzzles.pick_end", { tile })), h("div.row", {}, ends));
    ends[0].focus();
  }

  async answer(move) {
    if (this.busy) return;
    this.busy = true;
    let r;
    try {
      r = await puzzleAnswer(this.p.id, move);
    } catch (e) {
      this.busy = false;
      return this.toast(this.errorText(e));
    }
    if (!this.alive) return;
    for (const b of this.host.querySelectorAll(".puzzle button")) b.disabled = true;
    const rows = r.options.map((o) => {
      const marks = [[r.best, "best"], [r.answer, "yours"], [r.played, "played"]].filter(([m]) => m === o.move).map(([, k]) => t(`puzzles.mark_${k}`));
      const v = (o.value > 0 ? "+" : "") + o.value.toFixed(1).replace(".", ",");
      return h(`li${o.move === r.best ? ".best" : ""}`, { "data-move": o.move }, `${moveText(o.move)}: ${t("puzzles.points", { value: v })}`, marks.length ? ` (${marks.join(", ")})` : "");
    });
    const rating = r.rated ? h("p", { "data-testid": "puzzle-rating" }, t("puzzles.rating_change", { before: r.rating_before, after: r.me.rating }), " · ", streak(r.me)) : r.me ? h("p.muted", {}, t("puzzles.again")) : null;
    clear(this.result).append(h("div", {},
      h(`p.puzzle-verdict.${r.correct ? "correct" : "wrong"}`, { role: "status" }, r.correct ? t("puzzles.correct") : t("puzzles.wrong", { best: moveText(r.best) })),
      r.reason ? h("p", {}, t(r.reason.key, r.reason.params || {})) : null,
      h("p.muted", {}, t("puzzles.options", { samples: r.samples })),
      h("ol.puzzle-options", { "data-testid": "puzzle-options" }, rows),
      rating,
      h("p", {}, h("a", { href: r.replay, "data-testid": "puzzle-replay" }, t("puzzles.replay")), " · ", h("a", { href: "#/puzzles/next" }, t("puzzles.next"))),
    ));
    this.result.querySelector("a").focus();
  }
}
