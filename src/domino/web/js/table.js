// The table screen: the snake, the seats, the own hand, the Lager and the actions.
//
// Like chessground, this view knows no rules. It renders the newest `state` snapshot
// (docs/match-state.md) and offers exactly the moves in `view.legal`; the player's choice goes
// back through `send`. Click-click, drag and keys all end in one function, `tryPlay`.

import { h, clear, refocus, keepFocus } from "./dom.js";
import { t, sentence } from "./i18n.js";
import { UNIT } from "./snake.js";
import { Board } from "./board.js";
import { tileSvg } from "./tiles.js";
import { roundOverlay, matchOverlay, scoreSheet } from "./results.js";
import { TileDrag } from "./drag.js";
import { seatCard } from "./seats.js";
import { describeEvent, fivesLine } from "./events.js";
import { seatName, hasLager, lagerStack } from "./shared.js";

const TRACE_MAX = 200;
const CLICK_SHIELD_MS = 1000;
const LOG_MAX = 400;
// Events a (re)loaded table's log rebuilds from its first snapshot's view: not told again.
const REBUILT = new Set(["open", "play", "draw", "pass", "round_start", "round_end", "match_end"]);

export class TableView {
  /**
   * hooks: send(msg), announce(text), toast(text), help(), again(state), home(), left(matchId)
   */
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.state = null;
    this.selected = null; // tile text chosen by the player, waiting for an end
    this.pending = false; // a move is on its way; wait for the next snapshot
    this.dragger = new TileDrag(this);
    this.receivedAt = 0;
    this.seenLog = [];
    this.told = new Set(); // "v|event" keys already logged and announced
    this.profile = null;
    // The last things the table did, newest last: read by the browser tests when one fails.
    this.traceLog = [];
    window.__dominoTrace = this.traceLog;
    this.build();
    this.clockTimer = setInterval(() => this.tickClock(), 250);
    // A tap on a hand tile acts at pointerup (TileDrag.up) and redraws the dock. On a touch
    // screen the browser then sends its click to whatever lies under the finger *after* the
    // redraw, which can be another button that moved there (Passen!). That one click is
    // swallowed: from the tile's pointerup until the click, or the next press, or a second.
    this.clickShield = 0;
    this.onShieldClick = (ev) => {
      if (!this.clickShield) return;
      const live = performance.now() < this.clickShield;
      this.clickShield = 0;
      if (live && ev.detail > 0) {
        ev.preventDefault();
        ev.stopImmediatePropagation();
        this.trace(`click after a tile tap swallowed (${ev.target?.className || ev.target?.tagName})`);
      }
    };
    this.onShieldDown = () => (this.clickShield = 0);
    document.addEventListener("click", this.onShieldClick, true);
    document.addEventListener("pointerdown", this.onShieldDown, true);
    this.resizeObs = new ResizeObserver(() => this.renderBoard());
    this.resizeObs.observe(this.boardEl);
    // The line's box changes without the board when the talk's strip comes or goes (app.css).
    this.resizeObs.observe(this.endsEl);
    // The log box's lines wrap anew when its width changes (the grid settles, a scroll bar comes):
    // its height must then end on a whole line again.
    this.logWidth = 0;
    this.logObs = new ResizeObserver(() => {
      const w = this.logEl.clientWidth;
      if (w === this.logWidth) return;
      this.logWidth = w;
      this.fitLog();
      if (this.logPinned) this.logEl.scrollTop = this.logEl.scrollHeight;
    });
    this.logObs.observe(this.logEl);
  }

  trace(what) {
    this.traceLog.push(`${Math.round(performance.now())} ${what}`);
    if (this.traceLog.length > TRACE_MAX) this.traceLog.splice(0, this.traceLog.length - TRACE_MAX);
  }

  destroy() {
    document.title = t("ui.title");
    clearInterval(this.clockTimer);
    document.removeEventListener("click", this.onShieldClick, true);
    document.removeEventListener("pointerdown", this.onShieldDown, true);
    this.resizeObs.disconnect();
    this.logObs.disconnect();
    this.dragger.stop();
  }

  build() {
    clear(this.root);
    this.topEl = h("header.topbar");
    this.seatsEl = h("div.opponents");
    this.boardSvg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.boardSvg.setAttribute("class", "line-svg");
    this.boardSvg.setAttribute("aria-hidden", "true");
    this.board = new Board(this.boardSvg);
    this.endsEl = h("div.ends");
    this.floatEl = h("div.floaters", { "aria-hidden": "true" });
    this.lineText = h("p.sr-only"); // the drawing is hidden from screen readers; this reads it
    this.boardEl = h("section.board", { "aria-label": t("table.line") }, this.lineText, this.boardSvg, this.endsEl, this.floatEl);
    this.meEl = h("div.me-card");
    this.handEl = h("div.hand", { role: "group", "aria-label": t("table.hand") });
    this.actionsEl = h("div.actions");
    this.messageEl = h("p.message", { role: "status" });
    this.dockEl = h("section.dock", {}, this.meEl, this.handEl, this.actionsEl, this.messageEl);
    this.logEl = h("ol.log", { "aria-label": t("table.log"), tabindex: "0" });
    this.logEl.addEventListener("scroll", () => {
      // Reading older lines: new ones do not pull the view down until the reader is back.
      this.logPinned = this.logEl.scrollTop + this.logEl.clientHeight >= this.logEl.scrollHeight - 4;
    });
    this.logPinned = true;
    const logOpen = h("button.log-open", { type: "button", dataset: { focusKey: "b:log" }, onclick: () => this.openSheet("log"), "aria-label": t("table.log_open") }, h("span.log-open-text", {}, t("table.log_open")), h("span.log-open-icon", { "aria-hidden": "true" }, "▴"));
    this.overlayEl = h("div.overlay-host");
    this.sheetEl = h("div.sheet-host");
    this.sheet = null; // "score" | "log" while a sheet is open
    this.root.append(
      h("div.table-grid", {}, this.topEl, this.seatsEl, this.boardEl, this.dockEl, h("aside.log-box", {}, this.logEl, logOpen)),
      this.overlayEl,
      this.sheetEl,
    );
  }

  // ---- the snapshot -------------------------------------------------------------------------

  update(state) {
    const prev = this.state;
    this.trace(`state v${state.v} turn=${state.view?.turn} legal=${(state.view?.legal || []).length} sel=${this.selected}`);
    this.state = state;
    this.pending = false;
    this.receivedAt = performance.now();
    // A hint or refusal belongs to the moment it was given: a new version clears it.
    if (prev && prev.v !== state.v) this.messageEl.textContent = "";
    const v = state.view || {};
    // Public facts on the root, for styling and for the browser tests to wait on.
    Object.assign(this.root.dataset, { v: String(state.v), phase: state.phase || "", you: String(state.you) });
    // A selection survives a snapshot only if the tile is still playable.
    if (this.selected && !this.fits(this.selected).length) this.selected = null;
    const matchOf = (x) => x?.match || x?.match_id;
    const restart = !prev || matchOf(prev) !== matchOf(state);
    // The same snapshot may arrive twice (a repeat after a reconnect or from another socket of
    // the same profile): an event is told once per version.
    const fresh = (state.events || []).filter((ev) => {
      const key = `${state.v}|${JSON.stringify(ev)}`;
      if (this.told.has(key)) return false;
      this.told.add(key);
      return true;
    });
    if (this.told.size > 500) this.told = new Set([...this.told].slice(-200));
    this.handleEvents(restart ? this.restartLog(fresh) : fresh);
    if (this.myTurn && (!prev || prev.view?.turn !== this.me || prev.view?.round !== v.round)) {
      this.hooks.announce(t("table.your_turn"));
    }
    const focusKey = document.activeElement?.dataset?.focusKey;
    // Tiles that just came into the hand (drawn, or a new deal) are marked for a moment.
    const before = new Set(prev?.view?.round === v.round ? prev.view.hand || [] : []);
    this.fresh = new Set(prev && prev.view?.round === v.round ? (v.hand || []).filter((x) => !before.has(x)) : []);
    document.title = this.myTurn ? `▶ ${t("table.your_turn")} · ${t("ui.title")}` : t("ui.title");
    this.renderTop();
    this.renderSeats();
    this.renderBoard();
    this.renderDock();
    this.renderLog();
    this.renderOverlay();
    this.renderSheet();
    this.fresh = null; // marked once; later re-renders (a selection) do not replay it
    if (!refocus(this.root, focusKey) && focusKey?.startsWith("t:")) {
      // The focused tile was played: keep the keyboard in the hand.
      this.handEl.querySelector("button")?.focus({ preventScroll: true });
    }
  }

  setProfile(profile) {
    this.profile = profile;
    if (this.state?.phase === "match_over") this.renderOverlay();
  }

  get me() {
    return this.state ? this.state.you : null;
  }

  get myTurn() {
    const v = this.state?.view;
    return !!v && this.me !== null && v.turn === this.me && (v.legal || []).length > 0;
  }

  /** The ends ("L"/"R") where `tile` may be played now, from the server's legal list. */
  fits(tile) {
    const legal = this.state?.view?.legal || [];
    const out = [];
    for (const m of legal) {
      const [tl, end] = m.split(" ");
      if (tl === tile && end) out.push(end);
    }
    return out;
  }

  can(move) {
    return (this.state?.view?.legal || []).includes(move);
  }

  name(seat) {
    return seatName(this.state?.seats, seat, this.me);
  }

  // ---- actions (every input method ends here) -----------------------------------------------

  say(text) {
    this.messageEl.textContent = text;
    this.hooks.announce(text);
  }

  send(move) {
    this.trace(`send ${move} pending=${this.pending}`);
    if (this.pending) return;
    this.pending = true;
    this.selected = null;
    this.hooks.send({ type: "move", match: this.state.match || this.state.match_id, move, v: this.state.v });
  }

  /** The click that follows a tap on a tile acts nowhere (see the constructor). */
  shieldClick() {
    this.clickShield = performance.now() + CLICK_SHIELD_MS;
  }

  /** Click / tap / A on a hand tile. */
  activateTile(tile) {
    this.trace(`activate ${tile} mine=${this.myTurn} fits=${this.fits(tile).join("")}`);
    if (this.me === null) return;
    if (!this.myTurn) return this.say(t("table.not_your_turn"));
    const ends = this.fits(tile);
    if (!ends.length) {
      this.selected = null;
      this.renderDock();
      this.renderEnds();
      return this.say(t("table.not_fitting"));
    }
    if (ends.length === 1) return this.tryPlay(tile, ends[0]);
    this.selected = tile;
    this.renderDock();
    this.renderEnds();
    this.say(t("table.choose_end", { tile }));
    refocus(this.root, `t:${tile}`);
  }

  /** Tipp (button, T, the controller's View button): hint.js, loaded on demand. */
  askHint() {
    import("./hint.js").then((m) => m.askHint(this));
  }

  /** The tile of the hint given on this version, or null. */
  get hintedTile() {
    const hint = this.hint;
    return hint && hint.v === this.state?.v ? hint.move.split(" ")[0] : null;
  }

  /** Select the i-th tile from the left (keys 1-9) without playing it. */
  selectIndex(i) {
    const hand = this.state?.view?.hand || [];
    if (i >= hand.length) return;
    const tile = hand[i];
    this.selected = tile;
    this.renderDock();
    this.renderEnds();
    refocus(this.root, `t:${tile}`);
    const ends = this.fits(tile);
    this.say(`${t("table.tile", { tile })}, ${this.fitText(ends)}`);
  }

  /** Play the selected (or focused) tile at `end`: keys L/R, LB/RB, a click on a glowing end. */
  playAt(end) {
    const focused = document.activeElement?.dataset?.tile;
    const tile = this.selected || focused;
    if (!tile) return;
    this.tryPlay(tile, end);
  }

  tryPlay(tile, end) {
    if (!this.myTurn) return this.say(t("table.not_your_turn"));
    if (!this.fits(tile).includes(end)) {
      return this.say(this.fits(tile).length ? t("table.not_fitting_end") : t("table.not_fitting"));
    }
    this.send(`${tile} ${end}`);
    this.renderDock();
    this.renderEnds();
  }

  /** Leave the match for good (a bot plays on); asks first, since it cannot be undone. */
  leave() {
    if (!window.confirm(t("table.leave_confirm"))) return;
    this.hooks.send({ type: "leave_match", match: this.state.match || this.state.match_id });
    this.hooks.left(this.state.match || this.state.match_id);
    this.hooks.home();
  }

  draw() {
    if (this.me === null) return;
    if (!this.can("D")) return this.say(this.myTurn ? t("table.cannot_draw") : t("table.not_your_turn"));
    this.send("D");
  }

  pass() {
    if (this.me === null) return;
    if (!this.can("P")) return this.say(this.myTurn ? t("table.cannot_pass") : t("table.not_your_turn"));
    this.send("P");
  }

  cancel() {
    if (this.closeSheet()) return true;
    if (!this.selected) return false;
    this.trace(`cancel ${this.selected}`);
    this.selected = null;
    this.renderDock();
    this.renderEnds();
    return true;
  }

  /** Arrow keys and the D-pad: rows are ends (top), hand, actions (bottom). */
  moveFocus(dx, dy) {
    const rows = [
      [...this.endsEl.querySelectorAll("button")],
      [...this.handEl.querySelectorAll("button")],
      [...this.actionsEl.querySelectorAll("button:not([disabled])")],
    ].filter((r) => r.length);
    if (!rows.length) return;
    const active = document.activeElement;
    let r = rows.findIndex((row) => row.includes(active));
    if (r < 0) {
      const hand = rows.findIndex((row) => row[0].parentElement === this.handEl);
      rows[hand >= 0 ? hand : 0][0].focus();
      return;
    }
    let c = rows[r].indexOf(active);
    if (dy) {
      const frac = rows[r].length > 1 ? c / (rows[r].length - 1) : 0;
      r = Math.max(0, Math.min(rows.length - 1, r + dy));
      c = Math.round(frac * (rows[r].length - 1));
    } else {
      c = Math.max(0, Math.min(rows[r].length - 1, c + dx));
      // Walking along the hand drops a selection: L/R then act on the focused tile.
      if (rows[r][0].parentElement === this.handEl && this.selected) {
        const key = rows[r][c].dataset.focusKey;
        this.cancel(); // re-renders the hand
        refocus(this.root, key);
        return;
      }
    }
    rows[r][c].focus();
  }

  fitText(ends) {
    if (!this.myTurn) return "";
    if (ends.length === 2) return t("table.fits_both");
    if (ends.length === 1) return t(ends[0] === "L" ? "table.fits_L" : "table.fits_R");
    return t("table.fits_none");
  }

  // ---- events, log, announcements ---------------------------------------------------------

  describe(ev) {
    return describeEvent(ev, (seat) => this.name(seat), this.me);
  }

  /** The log lines of one event: its sentence and, if it scored, the Fünferpunkte. */
  eventLines(ev) {
    const text = this.describe(ev);
    const out = text ? [text] : [];
    if (ev.fives) out.push(fivesLine(ev.fives, this.name(ev.seat), ev.seat === this.me, false));
    return out;
  }

  /**
   * A table that comes (back) to a match, a reload or a spectator's first look: the log starts
   * with the current round, rebuilt from the snapshot's history (a seat's draws in a row as one
   * line), and the rounds before it are asked for (`history`, docs/protocol.md). Returns the
   * snapshot's events that the history does not hold (someone connected, a timeout ...).
   */
  restartLog(events) {
    const s = this.state;
    const v = s.view || {};
    const round = v.round || 1;
    const lines = round > 1 ? [t("table.round", { n: round })] : [];
    const merged = [];
    for (const ev of v.history || []) {
      const last = merged.at(-1);
      if (ev.kind === "draw" && last?.kind === "draw" && last.seat === ev.seat && !!last.auto === !!ev.auto) last.count += 1;
      else merged.push(ev.kind === "draw" ? { ...ev, count: 1 } : ev);
    }
    for (const ev of merged) lines.push(...this.eventLines(ev));
    // A round or match that is over is read out even on a first look: the page shows its end
    // (the reveal, the results), and a round can end at its opening, before any turn.
    const ended = [];
    if (v.result) ended.push(...this.eventLines({ kind: "round_end", round }));
    if (s.phase === "match_over") ended.push(...this.eventLines({ kind: "match_end" }));
    lines.push(...ended);
    if (ended.length) this.hooks.announce(ended.map(sentence).join(" "));
    this.seenLog = lines;
    this.pastFor = null;
    if (round > 1) {
      this.pastFor = round;
      this.hooks.send({ type: "history", match: s.match || s.match_id });
    }
    return events.filter((ev) => !REBUILT.has(ev.kind));
  }

  /** The answer to `history`: the rounds before the one the log started from go first. */
  earlierRounds(msg) {
    const s = this.state;
    if (!s || this.pastFor === null || this.pastFor === undefined || msg.match !== (s.match || s.match_id)) return;
    const before = [];
    for (const r of msg.rounds || []) {
      if (r.round >= this.pastFor) continue;
      for (const ev of r.events || []) before.push(...this.eventLines(ev));
    }
    this.pastFor = null;
    this.seenLog = [...before, ...this.seenLog].slice(-LOG_MAX);
    this.renderLog();
    if (this.sheet === "log") this.renderSheet();
  }

  handleEvents(events) {
    const spoken = [];
    for (const ev of events) {
      const text = this.describe(ev);
      if (text) {
        this.seenLog.push(text);
        // The player's own moves are not read back; what the server did for them is.
        if (ev.seat !== this.me || ev.auto || ev.kind === "timeout" || ev.kind === "standin") spoken.push(sentence(text));
      }
      if (ev.fives) {
        const fv = fivesLine(ev.fives, this.name(ev.seat), ev.seat === this.me, false);
        this.seenLog.push(fv);
        spoken.push(sentence(fv));
        this.pendingFives = { tile: ev.tile, n: ev.fives, seat: ev.seat };
      }
    }
    // The whole match as this page saw it (a reload asks for the rounds before its first one).
    if (this.seenLog.length > LOG_MAX) this.seenLog = this.seenLog.slice(-LOG_MAX);
    // Each part a sentence of its own ("Runde 2." then "Bot 3 eröffnet mit 6|6.").
    if (spoken.length) this.hooks.announce(spoken.join(" "));
  }

  renderLog() {
    clear(this.logEl);
    for (const line of this.seenLog) this.logEl.append(h("li", {}, line));
    this.fitLog();
    if (this.logPinned) this.logEl.scrollTop = this.logEl.scrollHeight;
  }

  /**
   * The desktop's log box ends on a line: as tall as the newest lines that fit whole (within its
   * max-height), so no line is cut at its top edge; the older ones are a scroll (or the sheet)
   * away. The phone shows only the newest line.
   */
  fitLog() {
    const el = this.logEl;
    el.style.height = "";
    if (window.matchMedia("(max-width: 760px)").matches || el.scrollHeight <= el.clientHeight) return;
    const css = getComputedStyle(el);
    const max = parseFloat(css.maxHeight);
    let height = parseFloat(css.paddingTop) + parseFloat(css.paddingBottom);
    for (const li of [...el.children].reverse()) {
      const lh = li.getBoundingClientRect().height;
      if (height + lh > max) break;
      height += lh;
    }
    el.style.height = `${height}px`;
  }

  // ---- sheets over the table: the score sheet and the whole log ------------------------------

  openSheet(kind) {
    this.sheetOpener = document.activeElement;
    this.sheet = kind;
    this.renderSheet();
    this.sheetEl.querySelector(".sheet-close")?.focus();
  }

  closeSheet() {
    if (!this.sheet) return false;
    this.sheet = null;
    this.renderSheet();
    if (this.sheetOpener?.isConnected) this.sheetOpener.focus();
    else this.topEl.querySelector(".score-btn")?.focus();
    return true;
  }

  renderSheet() {
    const scrolled = this.sheetEl.querySelector(".sheet-body")?.scrollTop;
    const key = this.sheetEl.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    clear(this.sheetEl);
    if (!this.sheet || !this.state) return;
    const title = this.sheet === "score" ? t("table.score_sheet") : t("table.log_title");
    let body;
    if (this.sheet === "score") body = scoreSheet(this, this.state);
    else body = h("ol.log-full", {}, this.seenLog.map((line) => h("li", {}, line)));
    const sheet = h(
      `div.overlay.sheet.sheet-${this.sheet}`,
      { onclick: (ev) => ev.target === ev.currentTarget && this.closeSheet() },
      h(
        "div.panel",
        { role: "dialog", "aria-modal": "true", "aria-labelledby": "sheet-title", "data-testid": `sheet-${this.sheet}` },
        h("div.panel-head", {}, h("h2", { id: "sheet-title" }, title), h("button.icon-btn.sheet-close", { type: "button", onclick: () => this.closeSheet(), "aria-label": t("ui.close"), dataset: { focusKey: "s:close" } }, "×")),
        h("div.sheet-body", { tabindex: "0" }, body),
      ),
    );
    this.sheetEl.append(sheet);
    const bodyEl = sheet.querySelector(".sheet-body");
    // The log opens at its newest line; a reader's position survives a new snapshot.
    bodyEl.scrollTop = scrolled ?? (this.sheet === "log" ? bodyEl.scrollHeight : 0);
    if (key) refocus(this.sheetEl, key);
  }

  // ---- top bar and seats --------------------------------------------------------------------

  renderTop() {
    const s = this.state;
    const v = s.view || {};
    const rules = s.rules || {};
    const target = rules.target_points ?? rules.target ?? "";
    clear(this.topEl);
    this.topEl.append(
      ...[
      h("span.chip.mode", { title: t(`mode.${rules.mode || "klassisch"}`) }, t(`mode.${rules.mode || "klassisch"}`)),
      h("span.chip", {}, t("table.round", { n: v.round || 1 })),
      // A narrow phone shows "bis 150"; screen readers always get "Ziel: 150".
      h("span.chip.target", {}, h("span.long", {}, t("table.target", { n: target })), h("span.short", { "aria-hidden": "true" }, t("table.target_short", { n: target }))),
      h("span.spacer"),
      h("button.link.score-btn", { type: "button", dataset: { focusKey: "b:score" }, onclick: () => this.openSheet("score"), "aria-label": t("table.score_sheet"), "aria-haspopup": "dialog" },
        h("span.score-icon", { "aria-hidden": "true" }, "☰"), h("span.long", {}, t("table.score_sheet"))),
      this.me !== null && this.state.phase !== "match_over"
        ? h("button.link.leave", { type: "button", dataset: { focusKey: "b:leave" }, onclick: () => this.leave(), "aria-label": t("table.leave") },
            h("span.long", {}, t("table.leave")), h("span.short", { "aria-hidden": "true" }, t("lobby.leave")))
        : null,
      this.me === null
        ? h("button.link.back", { type: "button", dataset: { focusKey: "b:home" }, onclick: () => this.hooks.home(), "aria-label": t("ui.back") },
            h("span.long", {}, t("ui.back")), h("span.short", { "aria-hidden": "true" }, "←"))
        : null,
      h("button.icon-btn", { type: "button", dataset: { focusKey: "b:help" }, onclick: () => this.hooks.help(), "aria-label": t("ui.help") }, "?"),
      ].filter(Boolean),
    );
  }

  clockText(seat) {
    const c = this.state?.clock;
    if (!c || c.seat !== seat || c.remaining_ms === null || c.remaining_ms === undefined) return null;
    const left = Math.max(0, c.remaining_ms - (performance.now() - this.receivedAt));
    return { secs: Math.ceil(left / 1000), frac: left / (1000 * (c.turn_seconds || 20)) };
  }

  tickClock() {
    for (const el of this.root.querySelectorAll("[data-clock-seat]")) {
      const c = this.clockText(Number(el.dataset.clockSeat));
      if (!c) continue;
      el.querySelector(".clock-num").textContent = t("val.seconds", { n: c.secs });
      el.style.setProperty("--left", String(Math.max(0, Math.min(1, c.frac))));
      el.classList.toggle("low", c.secs <= 5);
    }
  }

  seatCard(seat, opts) {
    return seatCard(this, seat, opts);
  }

  renderSeats() {
    const s = this.state;
    const n = s.seats?.length || s.rules?.seats || 2;
    const base = this.me ?? 0;
    const places = n === 2 ? ["top"] : n === 3 ? ["left", "right"] : ["left", "top", "right"];
    clear(this.seatsEl);
    this.seatsEl.className = `opponents n${n}`;
    for (let rel = 1; rel < n; rel++) {
      const seat = (base + rel) % n;
      const card = this.seatCard(seat);
      card.classList.add(`pos-${places[rel - 1]}`);
      this.seatsEl.append(card);
    }
  }

  // ---- the line -------------------------------------------------------------------------------

  renderBoard() {
    if (!this.state) return;
    const v = this.state.view || {};
    const line = v.line || [];
    // The board component (board.js) draws from the plain view; the table adds the ends. Both
    // fill the ends' box, which a phone keeps a little inside the board (app.css).
    const lay = this.board.render(v, this.endsEl.clientWidth || 300, this.endsEl.clientHeight || 200);
    this.lay = lay;
    this.lineText.textContent = `${t("table.line")}: ${line.map((l) => `${l[1]}|${l[2]}`).join(", ")}`;
    this.renderEnds();
    if (this.pendingFives) {
      const f = this.pendingFives;
      this.pendingFives = null;
      const idx = line.findIndex((l) => l[0] === f.tile);
      const pos = lay.tiles.find((x) => x.index === idx) || { x: 0, y: 0 };
      const [px, py] = this.toPct(pos.x, pos.y);
      const pop = h("div.fives-pop", { style: { left: `${px}%`, top: `${py}%` } }, `+${f.n}`);
      this.floatEl.append(pop);
      setTimeout(() => pop.remove(), 2600);
    }
  }

  toPct(x, y) {
    return this.board.toPct(x, y);
  }

  renderEnds() {
    keepFocus(this.endsEl, () => this.drawEnds());
  }

  drawEnds() {
    clear(this.endsEl);
    const v = this.state?.view;
    if (!v || !this.lay?.ends || !(v.line || []).length || v.result) {
      if (this.selected) this.trace(`no ends drawn: lay=${!!this.lay?.ends} line=${(v?.line || []).length}`);
      return;
    }
    const tile = this.dragger.tile || this.selected;
    const fit = tile ? this.fits(tile) : [];
    if (tile) this.trace(`ends for ${tile}: ${fit.join("")}`);
    const [, , vw] = this.lay.viewBox;
    const unitPx = (this.endsEl.clientWidth || 300) / (vw / UNIT);
    for (const end of ["L", "R"]) {
      const e = this.lay.ends[end];
      const [px, py] = this.toPct(e.x, e.y);
      const num = v.ends[end === "L" ? 0 : 1];
      const glow = fit.includes(end);
      const vertical = Math.abs(Math.round(e.angle / 90)) % 2 === 1;
      const label = t(`table.end_${end}`, { n: num }) + (glow ? `. ${t("table.play_at", { end: "" }).replace(/[:\s]+$/, "")}` : "");
      this.endsEl.append(
        h(
          `button.end${glow ? ".glow" : ""}${vertical ? ".vertical" : ""}`,
          {
            type: "button",
            "aria-label": label,
            dataset: { end, focusKey: `e:${end}` },
            style: { left: `${px}%`, top: `${py}%`, "--u": `${unitPx}px` },
            onclick: () => this.onEndClick(end),
          },
          h("span.end-side", {}, end),
          h("span.end-num", {}, String(num)),
        ),
      );
    }
  }

  onEndClick(end) {
    if (this.selected) return this.tryPlay(this.selected, end);
    if (!this.myTurn) return this.say(t("table.not_your_turn"));
    // Without a selection an end plays the only tile that fits it, if there is exactly one.
    const tiles = [...new Set((this.state.view.legal || []).filter((m) => m.endsWith(` ${end}`)).map((m) => m.split(" ")[0]))];
    if (tiles.length === 1) return this.tryPlay(tiles[0], end);
    this.say(t("table.pick_tile"));
  }

  // ---- the dock: own card, hand, actions ------------------------------------------------------

  renderDock() {
    keepFocus(this.dockEl, () => this.drawDock());
  }

  drawDock() {
    const s = this.state;
    if (!s) return;
    const v = s.view || {};
    clear(this.meEl);
    clear(this.handEl);
    clear(this.actionsEl);
    const lagerOn = hasLager(s.rules);
    if (this.me === null) {
      // Spectators: no hand at all, only seat 0's public card (the others sit around).
      this.dockEl.classList.add("spectating");
      // The label sits here, not in the top bar: that stays one line on a phone.
      this.meEl.append(h("span.chip.spectator", { "data-testid": "spectator-label" }, t("table.spectator")), this.seatCard(0));
      if (lagerOn) this.meEl.append(this.lagerInfo(v.lager ?? 0));
      return;
    }
    this.dockEl.classList.remove("spectating");
    this.meEl.append(this.seatCard(this.me, { compact: true }));
    const hand = v.hand || [];
    const mine = this.myTurn;
    hand.forEach((tile, i) => {
      const [a, b] = tile.split("|").map(Number);
      const ends = mine ? this.fits(tile) : [];
      const playable = ends.length > 0;
      const label = `${t("table.tile", { tile })}${mine ? `, ${this.fitText(ends)}` : ""}`;
      const cls = ["tile-btn", playable ? "playable" : "", mine && !playable ? "dim" : "", this.selected === tile ? "selected" : "", this.fresh?.has(tile) ? "fresh" : "", this.hintedTile === tile ? "hinted" : ""].filter(Boolean).join(".");
      const btn = h(
        `button.${cls}`,
        {
          type: "button",
          "aria-label": label,
          "aria-pressed": this.selected === tile ? "true" : "false",
          dataset: { tile, focusKey: `t:${tile}`, index: String(i + 1) },
          onclick: (ev) => this.onTileClick(ev, tile),
          onpointerdown: (ev) => this.dragger.start(ev, tile),
        },
        h("span.tile-art", { html: tileSvg(a, b) }),
        h("span.key-hint", { "aria-hidden": "true" }, i < 9 ? String(i + 1) : ""),
        playable ? h("span.fit-mark", { "aria-hidden": "true" }, ends.join(" ")) : null,
      );
      this.handEl.append(btn);
    });
    if (lagerOn) {
      this.actionsEl.append(
        h(
          `button.lager${this.can("D") ? ".can" : ""}`,
          { type: "button", "aria-label": t("table.lager_count", { n: v.lager ?? 0 }), disabled: !this.can("D"), dataset: { focusKey: "a:lager" }, onclick: () => this.draw() },
          lagerStack(),
          h("span.lager-count", {}, String(v.lager ?? 0)),
        ),
      );
    }
    this.actionsEl.append(
      h("button.action.draw", { type: "button", disabled: !this.can("D"), dataset: { focusKey: "a:draw" }, onclick: () => this.draw(), "aria-keyshortcuts": "D" }, t("table.draw")),
      h("button.action.pass", { type: "button", disabled: !this.can("P"), dataset: { focusKey: "a:pass" }, onclick: () => this.pass(), "aria-keyshortcuts": "P" }, t("table.pass")),
    );
    if (!this.hintsRefused && (s.seats || []).some((x) => x.kind === "bot")) {
      const out = this.hint?.round === v.round && this.hint.left === 0;
      this.actionsEl.append(h("button.action.hint", { type: "button", disabled: !mine || out, dataset: { focusKey: "a:hint" }, onclick: () => this.askHint(), "aria-keyshortcuts": "T", title: `${t("hint.title")} (T)` }, t("hint.button")));
    }
    const info = s.seats?.[this.me] || {};
    if (info.standin) {
      this.actionsEl.append(h("button.action.back", { type: "button", dataset: { focusKey: "a:back" }, onclick: () => this.hooks.send({ type: "back", match: s.match || s.match_id }) }, t("table.im_back")));
    }
    this.dockEl.classList.toggle("my-turn", mine);
  }

  /** The Lager's size for spectators (RULES.md §13): the stack and its count, not a button. */
  lagerInfo(n) {
    return h(
      "div.lager.lager-info",
      { role: "img", "aria-label": t("table.lager_count", { n }), "data-testid": "lager-info" },
      lagerStack(),
      h("span.lager-count", {}, String(n)),
    );
  }

  onTileClick(ev, tile) {
    // A click made by a pointer was already acted on at pointerup (TileDrag.up); only a click
    // without one (Enter or Space on the focused tile, the controller's A) acts here.
    if (this.dragger.consumeClick() || ev.detail > 0) return;
    this.activateTile(tile);
  }

  // ---- round end and match end ----------------------------------------------------------------

  renderOverlay() {
    const key = this.overlayEl.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
    clear(this.overlayEl);
    const s = this.state;
    if (s.phase === "match_over") {
      this.overlayEl.append(matchOverlay(this, s));
      // The standings are a dialog: keys and the controller land on its first button.
      if (!refocus(this.overlayEl, key)) this.overlayEl.querySelector(".panel button, .panel a")?.focus();
    } else if (s.phase === "round_over" || s.view?.result) {
      this.overlayEl.append(roundOverlay(this, s));
    }
  }
}
