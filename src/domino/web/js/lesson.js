// "So geht's": the guided first round (#/lesson) and the Tipps (#/lesson/tips).
//
// The lessons are data built by the engine (domino.lessons, served as /lessons.json): each
// frame is seat 0's view before one scripted move, so nothing here decides a rule. The round
// offers exactly the frame's legal moves and goes on only with the scripted one; the bots'
// moves play themselves. Drawn with the table's board (board.js) and tiles; driven by touch,
// mouse, keys and the controller (input.js calls selectIndex, playAt, draw, pass, cancel and
// moveFocus, as on the table).

import { h, clear } from "./dom.js";
import { t, lang, fill } from "./i18n.js";
import { Board, handsElement } from "./board.js";
import { tileSvg } from "./tiles.js";
import { UNIT } from "./snake.js";

const SEEN = "domino.lesson";
const BOT_PLAY_MS = 650;
const BOT_DRAW_MS = 260;

// The lessons' sentences come with the lessons (domino.i18n.LESSON_PREFIXES), not with the
// catalogue every page loads; `say` reads them, other keys from the catalogue.
let texts = {}; // by language
const say = (key, params = {}) => {
  const mine = texts[lang()] || texts.de || {};
  return key in mine ? fill(mine[key], params) : t(key, params);
};

let dataPromise = null;
function lessons() {
  dataPromise ??= fetch("/lessons.json").then((r) => {
    if (!r.ok) throw new Error(String(r.status));
    return r.json().then((d) => ((texts = d.texts), d));
  });
  dataPromise.catch(() => (dataPromise = null));
  return dataPromise;
}

/** Remember that the lesson was offered and taken or declined (the start page asks once). */
export function markSeen() {
  try {
    localStorage.setItem(SEEN, "1");
  } catch {
    /* private mode: the offer comes again */
  }
}

const pips = (tiles) => tiles.reduce((s, tl) => s + tl.split("|").map(Number).reduce((a, b) => a + b, 0), 0);
const moveText = (m) => t(`lesson.move_${m.slice(-1)}`, { tile: m.split(" ")[0] });

class BoardPart {
  constructor(onEnd) {
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "line-svg");
    this.svg.setAttribute("aria-hidden", "true");
    this.board = new Board(this.svg);
    this.endsEl = h("div.ends");
    this.el = h("section.board.lesson-board", { "aria-label": t("table.line") }, this.svg, this.endsEl);
    this.onEnd = onEnd;
  }

  render(v, glow = []) {
    const lay = this.board.render(v, this.endsEl.clientWidth || 300, this.endsEl.clientHeight || 200);
    clear(this.endsEl);
    if (!lay.ends || v.result) return;
    const [, , vw] = lay.viewBox;
    const unitPx = (this.endsEl.clientWidth || 300) / (vw / UNIT);
    for (const end of ["L", "R"]) {
      const e = lay.ends[end];
      const [px, py] = this.board.toPct(e.x, e.y);
      const vertical = Math.abs(Math.round(e.angle / 90)) % 2 === 1;
      const num = v.ends[end === "L" ? 0 : 1];
      this.endsEl.append(
        h(
          `button.end${glow.includes(end) ? ".glow" : ""}${vertical ? ".vertical" : ""}`,
          // Without a hand to play (the Tipps) the ends are only labels.
          { type: "button", disabled: !this.onEnd, tabindex: this.onEnd ? null : "-1", "aria-label": t(`table.end_${end}`, { n: num }), dataset: { end, testid: `lesson-end-${end}` }, style: { left: `${px}%`, top: `${py}%`, "--u": `${unitPx}px` }, onclick: () => this.onEnd?.(end) },
          h("span.end-side", {}, end),
          h("span.end-num", {}, String(num)),
        ),
      );
    }
  }
}

/** The guided first round. hooks: home() */
export class LessonView {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.idx = 0;
    this.selected = null;
    this.timer = 0;
    this.inputs = 0; // the player's taps, clicks, keys and buttons on the lesson (the tests read it)
    this.startedAt = performance.now();
    this.sheet = null;
    this.part = new BoardPart((end) => (this.inputs++, this.onEnd(end)));
    this.sayEl = h("p.lesson-say", { role: "status", "data-testid": "lesson-say" });
    this.noteEl = h("p.lesson-note.muted");
    this.seatsEl = h("div.lesson-seats");
    this.handEl = h("div.hand", { role: "group", "aria-label": t("lesson.hand") });
    this.actionsEl = h("div.actions");
    const skip = h("button.lesson-skip", { type: "button", "data-testid": "lesson-skip", onclick: () => this.close() }, t("lesson.skip"));
    clear(root).append(
      h("div.lesson-top", {}, h("h1", {}, t("lesson.title")), skip),
      this.seatsEl,
      h("div.lesson-talk", {}, this.noteEl, this.sayEl),
      this.part.el,
      h("section.dock.lesson-dock", {}, this.handEl, this.actionsEl),
      h("p.lesson-controls.muted", {}, t("lesson.controls")),
    );
    this.resizeObs = new ResizeObserver(() => this.renderBoard());
    this.resizeObs.observe(this.part.endsEl);
    lessons().then(
      (d) => {
        this.data = d.first;
        this.show();
      },
      () => (this.sayEl.textContent = t("ui.loading")),
    );
  }

  destroy() {
    clearTimeout(this.timer);
    this.resizeObs.disconnect();
    this.gone = true;
  }

  close() {
    markSeen();
    this.hooks.home();
  }

  get frame() {
    return this.data?.frames[this.idx] ?? null;
  }

  get view() {
    return this.frame ? this.frame.view : this.data?.last;
  }

  get myTurn() {
    return !!this.frame && this.frame.seat === 0;
  }

  show() {
    if (this.gone) return;
    const f = this.frame;
    this.selected = null;
    this.root.dataset.step = String(this.idx); // read by the browser tests
    if (f?.say) this.sayEl.textContent = say(f.say);
    this.noteEl.textContent = this.idx === 0 ? say(this.data.opening) : "";
    this.render();
    if (!f) return this.finish();
    if (f.seat !== 0) {
      const ms = f.move === "D" ? BOT_DRAW_MS : BOT_PLAY_MS;
      this.timer = setTimeout(() => this.advance(), ms);
    } else {
      this.root.querySelector(".hand .tile-btn.playable, .actions button:not([disabled])")?.focus({ preventScroll: true });
    }
  }

  advance() {
    this.idx += 1;
    this.show();
  }

  render() {
    const v = this.view;
    clear(this.seatsEl);
    const counts = v.hand_counts || [];
    this.seatsEl.append(
      h("span.chip", {}, `${t("lesson.bot", { n: 1 })} · ${t("lesson.tiles", { n: counts[1] })}`),
      h("span.chip", {}, `${t("lesson.bot", { n: 2 })} · ${t("lesson.tiles", { n: counts[2] })}`),
      h("span.chip", { "data-testid": "lesson-lager" }, t("lesson.lager", { n: v.lager })),
    );
    this.renderBoard();
    this.renderDock();
  }

  renderBoard() {
    if (!this.data) return;
    const glow = this.selected ? this.fits(this.selected) : [];
    this.part.render(this.view, glow);
  }

  legal() {
    return this.myTurn ? this.frame.view.legal : [];
  }

  fits(tile) {
    return this.legal().filter((m) => m.startsWith(`${tile} `)).map((m) => m.slice(-1));
  }

  renderDock() {
    const v = this.view;
    clear(this.handEl);
    clear(this.actionsEl);
    (v.hand || []).forEach((tile, i) => {
      const [a, b] = tile.split("|").map(Number);
      const ends = this.fits(tile);
      // The tile the sentence asks for is marked, for a reader who looks before reading.
      const asked = this.myTurn && this.frame.move.startsWith(`${tile} `);
      const cls = ["tile-btn", ends.length ? "playable" : "", this.myTurn && !ends.length ? "dim" : "", this.selected === tile ? "selected" : "", asked ? "hint" : ""].filter(Boolean).join(".");
      this.handEl.append(
        h(
          `button.${cls}`,
          { type: "button", "aria-label": t("table.tile", { tile }), "aria-pressed": this.selected === tile ? "true" : "false", dataset: { tile, testid: `lesson-tile-${tile}` }, onclick: () => (this.inputs++, this.activate(tile)) },
          h("span.tile-art", { html: tileSvg(a, b) }),
          h("span.key-hint", { "aria-hidden": "true" }, i < 9 ? String(i + 1) : ""),
        ),
      );
    });
    const can = (m) => this.legal().includes(m);
    this.actionsEl.append(
      h(`button.action.draw${this.myTurn && this.frame.move === "D" ? ".hint" : ""}`, { type: "button", disabled: !can("D"), "data-testid": "lesson-draw", onclick: () => this.draw(), "aria-keyshortcuts": "D" }, t("lesson.draw")),
      h(`button.action.pass${this.myTurn && this.frame.move === "P" ? ".hint" : ""}`, { type: "button", disabled: !can("P"), "data-testid": "lesson-pass", onclick: () => this.pass(), "aria-keyshortcuts": "P" }, t("lesson.pass")),
    );
  }

  /** The player's move: the scripted one goes on, another legal one is explained. */
  tryMove(move) {
    if (!this.myTurn) return false;
    if (!this.legal().includes(move)) {
      this.sayEl.textContent = `${say(this.frame.say)} ${t("table.not_fitting_end")}`;
      return false;
    }
    if (move !== this.frame.move) {
      this.selected = null;
      this.sayEl.textContent = `${say(this.frame.say)} ${t("lesson.wrong")}`;
      this.renderBoard();
      this.renderDock();
      return false;
    }
    this.advance();
    return true;
  }

  activate(tile) {
    if (!this.myTurn) return;
    const ends = this.fits(tile);
    if (ends.length === 1) return this.tryMove(`${tile} ${ends[0]}`);
    if (!ends.length) return void (this.sayEl.textContent = `${say(this.frame.say)} ${t("table.not_fitting")}`);
    this.selected = tile;
    this.renderBoard();
    this.renderDock();
    this.part.endsEl.querySelector(".end.glow")?.focus({ preventScroll: true });
  }

  onEnd(end) {
    if (!this.myTurn) return;
    if (this.selected) return this.tryMove(`${this.selected} ${end}`);
    const tiles = [...new Set(this.legal().filter((m) => m.endsWith(` ${end}`)).map((m) => m.split(" ")[0]))];
    if (tiles.length === 1) this.tryMove(`${tiles[0]} ${end}`);
  }

  // ---- what input.js calls (keys and the controller) ----

  selectIndex(i) {
    const tile = (this.view?.hand || [])[i];
    if (tile) {
      this.inputs += 1;
      this.activate(tile);
    }
  }

  playAt(end) {
    this.inputs += 1;
    if (this.selected) return this.tryMove(`${this.selected} ${end}`);
    const focused = document.activeElement?.dataset?.tile;
    if (focused) return this.tryMove(`${focused} ${end}`);
    this.onEnd(end);
  }

  draw() {
    this.inputs += 1;
    if (this.legal().includes("D")) this.tryMove("D");
  }

  pass() {
    this.inputs += 1;
    if (this.legal().includes("P")) this.tryMove("P");
  }

  cancel() {
    if (!this.selected) return false;
    this.selected = null;
    this.renderBoard();
    this.renderDock();
    return true;
  }

  moveFocus(dx, dy) {
    const els = [...this.root.querySelectorAll(".lesson-board .end, .hand .tile-btn, .actions button:not([disabled]), .lesson-end button")];
    if (!els.length) return;
    const i = els.indexOf(document.activeElement);
    const step = dx || dy;
    const next = i < 0 ? 0 : (i + step + els.length) % els.length;
    els[next].focus({ preventScroll: true });
  }

  finish() {
    markSeen();
    const r = this.view.result;
    const [a, b] = [pips(r.hands[1]), pips(r.hands[2])];
    this.sayEl.textContent = say(this.data.end, { a, b, points: r.points[0] });
    this.root.dataset.done = "1";
    this.root.dataset.inputs = String(this.inputs);
    this.root.dataset.ms = String(Math.round(performance.now() - this.startedAt));
    clear(this.handEl).append(
      h("div.lesson-reveal", {}, h("span", {}, t("lesson.bot", { n: 1 })), handsElement(r.hands[1])),
      h("div.lesson-reveal", {}, h("span", {}, t("lesson.bot", { n: 2 })), handsElement(r.hands[2])),
    );
    clear(this.actionsEl).append(
      h(
        "div.lesson-end.row",
        { "data-testid": "lesson-end" },
        h("a.button.primary", { href: "#/lesson/tips", "data-testid": "lesson-to-tips" }, t("lesson.to_tips")),
        h("button", { type: "button", onclick: () => this.restart() }, t("lesson.again")),
        h("button", { type: "button", "data-testid": "lesson-home", onclick: () => this.close() }, t("lesson.home")),
      ),
    );
    this.actionsEl.querySelector("a")?.focus({ preventScroll: true });
  }

  restart() {
    delete this.root.dataset.done;
    this.idx = 0;
    this.inputs = 0;
    this.startedAt = performance.now();
    this.show();
  }
}

/** The Tipps: a position, a question, the player's pick, then Meister's answer and reason. */
export class TipsView {
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.i = 0;
    this.sheet = null;
    clear(root).append(h("p", {}, t("ui.loading")));
    lessons().then((d) => {
      this.tips = d.tips;
      this.show();
    });
  }

  destroy() {
    this.gone = true;
  }

  show() {
    if (this.gone) return;
    const tip = this.tips[this.i];
    const v = tip.view;
    const part = new BoardPart(null);
    this.answerEl = h("div.tip-answer", { "aria-live": "polite", "data-testid": "tip-answer" });
    this.choicesEl = h(
      "div.tip-choices.row",
      { role: "group", "aria-label": t("lesson.tip_pick") },
      v.legal.map((m) => h("button", { type: "button", dataset: { move: m, testid: `tip-move-${m.replace(" ", "-")}` }, onclick: () => this.pick(m) }, moveText(m))),
    );
    const counts = v.hand_counts;
    clear(this.root).append(
      h("div.lesson-top", {}, h("h1", {}, t("lesson.tips_title")), h("button.lesson-skip", { type: "button", onclick: () => this.hooks.home() }, t("lesson.home"))),
      h("p.muted", {}, t("lesson.tip_of", { i: this.i + 1, n: this.tips.length })),
      h("h2", {}, say(`lesson.tip.${tip.key}.title`)),
      h(
        "div.lesson-seats",
        {},
        h("span.chip", {}, `${t("lesson.bot", { n: 1 })} · ${t("lesson.tiles", { n: counts[(v.seat + 1) % 3] })}`),
        h("span.chip", {}, `${t("lesson.bot", { n: 2 })} · ${t("lesson.tiles", { n: counts[(v.seat + 2) % 3] })}`),
        h("span.chip", {}, t("lesson.lager", { n: v.lager })),
      ),
      part.el,
      h("div.lesson-reveal", {}, h("span", {}, t("lesson.hand")), handsElement(v.hand)),
      h("p.lesson-say", { "data-testid": "tip-question" }, say(`lesson.tip.${tip.key}.question`)),
      this.choicesEl,
      this.answerEl,
    );
    requestAnimationFrame(() => part.render(v));
    this.choicesEl.querySelector("button")?.focus({ preventScroll: true });
  }

  pick(move) {
    const tip = this.tips[this.i];
    for (const b of this.choicesEl.querySelectorAll("button")) {
      b.disabled = true;
      b.classList.toggle("best", b.dataset.move === tip.answer);
      b.classList.toggle("picked", b.dataset.move === move);
    }
    const last = this.i + 1 >= this.tips.length;
    const next = last
      ? h("button.primary", { type: "button", "data-testid": "tip-next", onclick: () => this.hooks.home() }, t("lesson.home"))
      : h("button.primary", { type: "button", "data-testid": "tip-next", onclick: () => ((this.i += 1), this.show()) }, t("lesson.tip_next"));
    clear(this.answerEl).append(
      h("p", {}, h("strong", {}, move === tip.answer ? t("lesson.tip_right") : t("lesson.tip_other")), " ", t("lesson.tip_answer", { move: moveText(tip.answer) })),
      h("p", {}, say(`lesson.tip.${tip.key}.reason`)),
      h("p.muted", {}, t("lesson.tip_values")),
      h("ul.tip-values", {}, tip.options.map(([m, value]) => h("li", {}, `${moveText(m)}: ${value.toLocaleString(lang(), { minimumFractionDigits: 1, maximumFractionDigits: 1, signDisplay: "exceptZero" })}`))),
      next,
    );
    next.focus({ preventScroll: true });
  }

  // input.js: the controller's d-pad and A move over and press the buttons.
  moveFocus(dx, dy) {
    const els = [...this.root.querySelectorAll("button:not([disabled]), a[href]")];
    const i = els.indexOf(document.activeElement);
    const next = i < 0 ? 0 : (i + (dx || dy) + els.length) % els.length;
    els[next]?.focus({ preventScroll: true });
  }
  selectIndex(i) {
    this.choicesEl?.querySelectorAll("button:not([disabled])")[i]?.click();
  }
  playAt() {}
  draw() {}
  pass() {}
  cancel() {
    return false;
  }
}
