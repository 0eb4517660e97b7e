// The replay viewer: a finished match move by move, every hand face up, with its score sheet
// and Meister's analysis (docs/analysis.md). Loaded on demand by app.js (route #/replay/ID/R/M).
// Its keys and the controller's pad reach it through input.js (step, stepRound), its data
// through api.js.
//
// The line is drawn by the same board component as the live table (board.js): each frame of
// GET /api/matches/{id}/replay is the spectators' view of that moment, and the events of the
// round so far are its history (which finds the opener and the tile laid last).

import { h, clear } from "./dom.js";
import { t, tn } from "./i18n.js";
import { replay, followAnalysis } from "./api.js";
import { Board } from "./board.js";
import { describeEvent, fivesLine, subjectKey } from "./events.js";
import { scoreSheet } from "./results.js";
import { seatName, teamBadge, botBadge, roundResult, revealedHand, hasLager } from "./shared.js";

/** One decimal, the page's language ("2,5" in German). */
function num(x, lang) {
  return new Intl.NumberFormat(lang, { maximumFractionDigits: 1, minimumFractionDigits: 0 }).format(x);
}

/** A refused request in words: the catalogue's text for its code, else the server's message. */
function refusal(e) {
  return e?.code && t(e.code) !== e.code ? t(e.code) : e?.message || t("error.generic");
}

export class ReplayView {
  /** hooks: toast(text). `round` (1-based) and `move` (0 = the opening) are where it opens;
   * `profileId` is the signed-in viewer's (its own seat is told as "du"). */
  constructor(root, { matchId, round, move, hooks, profileId = null }) {
    this.root = root;
    this.matchId = matchId;
    this.profileId = profileId;
    this.me = null; // the viewer's own seat in this match, if it played there
    this.hooks = hooks || {};
    this.data = null;
    this.analysis = null; // the 200 answer, once there
    this.judged = new Map(); // "round|move" -> the analysis entry
    this.hindsight = false;
    this.pos = 0;
    this.positions = []; // [{r, k}] for every frame of the match, in order
    this.alive = true;
    this.stopAnalysis = null; // stops following the analysis (api.js followAnalysis)
    clear(root).append(h("p", { role: "status" }, t("ui.loading")));
    this.load(round, move);
  }

  destroy() {
    this.alive = false;
    this.stopAnalysis?.();
    this.resizeObs?.disconnect();
  }

  async load(round, move) {
    try {
      this.data = await replay(this.matchId);
    } catch (e) {
      if (!this.alive) return;
      const text = refusal(e);
      clear(this.root).append(
        h("section.card.replay-error", { "data-testid": "replay-error" }, h("h1", {}, t("replay.title")), h("p", { role: "alert" }, text), h("a.button", { href: "#/" }, t("ui.back"))),
      );
      return;
    }
    if (!this.alive) return;
    const own = (this.data.players || []).findIndex((id) => this.profileId && id === this.profileId);
    this.me = own < 0 ? null : own;
    this.data.rounds.forEach((rnd, r) => rnd.frames.forEach((_, k) => this.positions.push({ r, k })));
    this.matchView = this.sheetView; // {view, state}: what results.js and shared.js read
    this.build();
    this.goto(round, move);
    this.loadAnalysis();
  }

  // ---- names -----------------------------------------------------------------------------

  name(seat) {
    return seatName(this.data?.seats, seat);
  }

  /** The score sheet's view of the match (results.js scoreSheet reads name(), state, me). */
  get sheetView() {
    const sheet = this.data.sheet || {};
    const state = {
      rules: this.data.rules,
      seats: (this.data.seats || []).map((seat, i) => ({ ...seat, side: this.data.rules?.pairs ? i % 2 : i })),
      round_points: (sheet.rounds || []).map((r) => r.points || []),
      standings: sheet.standings || [],
      phase: "match_over",
      view: {},
    };
    return { view: { me: this.me, name: (seat) => this.name(seat), state }, state };
  }

  // ---- building the screen ------------------------------------------------------------------

  build() {
    const rules = this.data.rules || {};
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "line-svg");
    this.svg.setAttribute("aria-hidden", "true");
    this.board = new Board(this.svg);
    this.lineText = h("p.sr-only");
    this.boardEl = h("section.board.replay-board", { "aria-label": t("table.line") }, this.lineText, this.svg);
    // What happened at this position: shown, and read out when one steps (aria-live).
    this.nowEl = h("p.replay-now", { "aria-live": "polite", "aria-atomic": "true", "data-testid": "replay-now" });
    this.whereEl = h("span.replay-where", { "data-testid": "replay-where" });
    const btn = (cls, label, path, fn, key) =>
      h(`button.replay-btn.${cls}`, { type: "button", "aria-label": label, title: label, "aria-keyshortcuts": key, onclick: fn },
        h("span.replay-icon", { "aria-hidden": "true", html: `<svg viewBox="0 0 24 24" width="22" height="22" focusable="false"><path fill="currentColor" d="${path}"/></svg>` }));
    this.firstBtn = btn("first", t("replay.first"), "M5 5h2.5v14H5zM20 5v14L9 12z", () => this.step(-Infinity), "Home");
    this.prevBtn = btn("prev", t("replay.prev"), "M17 5v14L6 12z", () => this.step(-1), "ArrowLeft");
    this.nextBtn = btn("next", t("replay.next"), "M7 5v14l11-7z", () => this.step(1), "ArrowRight");
    this.lastBtn = btn("last", t("replay.last"), "M16.5 5H19v14h-2.5zM4 5v14l11-7z", () => this.step(Infinity), "End");
    const max = this.positions.length - 1;
    this.slider = h("input.replay-slider", { type: "range", min: "0", max: String(max), step: "1", value: "0", "aria-label": t("replay.slider"), "data-testid": "replay-slider" });
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
    // Round boundaries: marks under the slider (the first frame of each round).
    const marks = h("div.replay-marks", { "aria-hidden": "true" });
    this.positions.forEach((p, i) => {
      if (p.k !== 0) return;
      const frac = max > 0 ? i / max : 0;
      marks.append(h("span.replay-mark", { style: { "--at": String(frac) }, dataset: { round: String(p.r + 1) } }, String(p.r + 1)));
    });
    const controls = h(
      "div.replay-controls",
      { role: "group", "aria-label": t("replay.controls") },
      h("div.replay-buttons", {}, this.firstBtn, this.prevBtn, this.whereEl, this.nextBtn, this.lastBtn),
      h("div.replay-track", {}, this.slider, marks),
    );
    this.lagerEl = h("p.replay-lager.muted");
    this.handsEl = h("ul.replay-hands", { "aria-label": t("replay.hands") });
    this.movesEl = h("ol.replay-moves", { "aria-label": t("replay.moves"), tabindex: "0" });
    this.sheetEl = h("div.replay-sheet");
    this.analysisEl = h("section.card.replay-analysis", { "aria-labelledby": "analysis-title", "data-testid": "analysis" });
    const title = h("div.replay-head", {},
      h("h1", {}, t("replay.title")),
      h("span.chip.mode", {}, t(`mode.${rules.mode || "klassisch"}`)),
      h("span.chip", {}, t("table.target", { n: rules.target_points ?? rules.target ?? "" })),
      h("span.spacer"),
      h("a.button.replay-download", { href: `/api/matches/${encodeURIComponent(this.matchId)}/record`, download: `domino-${this.matchId}.json`, "data-testid": "record-download" }, t("replay.download")),
    );
    clear(this.root).append(
      title,
      h("div.replay-grid", {},
        h("div.replay-main", {}, this.boardEl, this.nowEl, controls, this.lagerEl, this.handsEl),
        h("div.replay-side", {},
          h("section.card", {}, h("h2", {}, t("replay.moves")), this.movesEl),
          this.analysisEl,
          h("section.card", {}, h("h2", {}, t("table.score_sheet")), this.sheetEl),
          this.talkEl = h("div"),
        ),
      ),
    );
    // The match's talk, kept with it (talk.js, loaded on demand; nothing when it was silent).
    if ((this.data.chat || []).length) import("./talk.js").then((m) => this.talkEl.append(m.replayTalk(this.data.chat)));
    this.sheetEl.append(scoreSheet(this.matchView.view, this.matchView.state));
    this.resizeObs = new ResizeObserver(() => this.renderBoard());
    this.resizeObs.observe(this.boardEl);
    this.renderAnalysis();
  }

  // ---- moving through the match ---------------------------------------------------------------

  /** Open round `round` (1-based), move `move` (0 = the opening); out of range is clamped. */
  goto(round, move) {
    const rounds = this.data?.rounds || [];
    if (!rounds.length) return;
    const r = Math.max(0, Math.min(rounds.length - 1, (Number.isFinite(round) ? round : 1) - 1));
    const k = Math.max(0, Math.min(rounds[r].frames.length - 1, Number.isFinite(move) ? move : 0));
    const i = this.positions.findIndex((p) => p.r === r && p.k === k);
    this.show(i < 0 ? 0 : i);
  }

  step(delta) {
    const last = this.positions.length - 1;
    const to = delta === -Infinity ? 0 : delta === Infinity ? last : Math.max(0, Math.min(last, this.pos + delta));
    this.show(to);
  }

  /** To the opening of the next round (delta 1; the end after the last round), or back to
   * this round's opening and, from there, the one before (delta -1). */
  stepRound(delta) {
    if (!this.data) return;
    const rounds = this.data.rounds.length;
    let r = this.r;
    if (delta > 0) r += 1;
    else if (this.k === 0) r -= 1;
    if (r >= rounds) return this.step(Infinity);
    this.goto(Math.max(0, r) + 1, 0);
  }

  /** Show position `i` of the whole match. */
  show(i) {
    this.pos = Math.max(0, Math.min(this.positions.length - 1, i));
    const { r, k } = this.positions[this.pos];
    this.rnd = this.data.rounds[r];
    this.frame = this.rnd.frames[k];
    this.r = r;
    this.k = k;
    // The address follows the position; replaceState keeps Back for leaving the viewer.
    const hash = `#/replay/${encodeURIComponent(this.matchId)}/${r + 1}/${k}`;
    if (location.hash !== hash) history.replaceState(history.state, "", hash);
    this.slider.value = String(this.pos);
    const where = this.whereText();
    this.slider.setAttribute("aria-valuetext", `${where}: ${this.eventText(this.frame)}`);
    this.whereEl.textContent = where;
    const focused = document.activeElement;
    this.firstBtn.disabled = this.prevBtn.disabled = this.pos === 0;
    this.nextBtn.disabled = this.lastBtn.disabled = this.pos === this.positions.length - 1;
    // A button that just went grey drops the keyboard focus: the slider takes it (its keys step).
    if (focused?.disabled && focused.classList.contains("replay-btn")) this.slider.focus({ preventScroll: true });
    Object.assign(this.root.dataset, { round: String(r + 1), move: String(k), plays: String(this.frame.line?.length ?? 0) });
    this.renderBoard();
    this.renderNow();
    this.renderHands();
    this.renderMoves();
    this.renderSheetMark();
    this.renderJudgement();
  }

  whereText() {
    const moves = this.rnd.frames.length - 1;
    return this.k === 0
      ? t("replay.opening", { round: this.r + 1 })
      : t("replay.position", { round: this.r + 1, move: this.k, moves });
  }

  /** The event of `frame` in words (events.js, as the table's log says it). */
  eventText(frame) {
    const ev = frame.event;
    if (!ev) return "";
    let text = describeEvent({ ...ev, count: 1 }, (seat) => this.name(seat), this.me) || "";
    if (ev.kind === "draw" && ev.tile) text += ` (${ev.tile})`;
    if (ev.fives) text += ` ${fivesLine(ev.fives, this.name(ev.seat), ev.seat === this.me, false)}`;
    return text;
  }

  /** The round's result in words, on its last frame. */
  resultText(frame) {
    const res = frame.result;
    if (!res) return "";
    const [reason, scored] = roundResult(this.matchView.view, res);
    return `${reason} ${scored}`;
  }

  // ---- drawing ------------------------------------------------------------------------------

  renderBoard() {
    if (!this.frame) return;
    // The board component wants the round's history: the events of the frames so far.
    const history = this.rnd.frames.slice(0, this.k + 1).map((f) => f.event).filter(Boolean);
    this.board.render({ line: this.frame.line, history }, this.boardEl.clientWidth || 300, this.boardEl.clientHeight || 200);
    this.lineText.textContent = `${t("table.line")}: ${(this.frame.line || []).map((l) => `${l[1]}|${l[2]}`).join(", ")}`;
  }

  renderNow() {
    const text = [this.whereText(), this.eventText(this.frame), this.resultText(this.frame)].filter(Boolean).join(": ");
    // The position is on the controls already; here only a screen reader hears it again.
    const parts = [h("span.sr-only", {}, `${this.whereText()}: `), this.eventText(this.frame)];
    const result = this.resultText(this.frame);
    if (result) parts.push(" ", h("span.replay-result", {}, result));
    clear(this.nowEl).append(...parts);
    this.nowEl.dataset.text = text;
  }

  renderHands() {
    const f = this.frame;
    const rules = this.data.rules || {};
    const lagerOn = hasLager(rules);
    this.lagerEl.textContent = lagerOn ? t("table.lager_count", { n: f.lager ?? 0 }) : "";
    this.lagerEl.hidden = !lagerOn;
    const seats = this.data.seats || [];
    clear(this.handsEl);
    seats.forEach((seat, i) => {
      const side = rules.pairs ? i % 2 : i;
      const hand = f.hands?.[i] || [];
      const turn = f.turn === i;
      const mover = f.event?.seat === i;
      this.handsEl.append(
        h(
          `li.replay-seat${turn ? ".turn" : ""}${mover ? ".mover" : ""}`,
          { dataset: { seat: String(i) }, "aria-label": `${this.name(i)}: ${tn("table.tiles", hand.length)}, ${tn("table.points", f.scores?.[side] ?? 0)}` },
          h(
            "div.replay-seat-head",
            {},
            h("strong.seat-name", {}, this.name(i)),
            seat.kind === "bot" && seat.level ? botBadge(seat.level) : null,
            rules.pairs ? teamBadge(side) : null,
            turn ? h("span.badge.you", {}, t("replay.to_move")) : null,
            h("span.spacer"),
            h("span.points", {}, tn("table.points", f.scores?.[side] ?? 0)),
          ),
          revealedHand(hand),
        ),
      );
    });
  }

  renderMoves() {
    const frames = this.rnd.frames;
    const list = this.movesEl;
    const scroll = list.scrollTop;
    const sameRound = list.dataset.round === String(this.r);
    clear(list);
    list.dataset.round = String(this.r);
    frames.forEach((f, k) => {
      const j = this.judged.get(`${this.r + 1}|${k}`);
      const grade = j && !j.forced && j.grade ? j.grade : null;
      const current = k === this.k;
      list.append(
        h(
          `li${current ? ".current" : ""}`,
          { "aria-current": current ? "step" : null },
          h(
            "button.link.replay-move",
            { type: "button", dataset: { k: String(k) }, onclick: () => this.goto(this.r + 1, k) },
            h("span.move-no", {}, k === 0 ? "·" : `${k}.`),
            " ",
            this.eventText(f),
            grade ? h(`span.badge.grade.grade-${grade}`, {}, t(`analysis.grade.${grade}`)) : null,
          ),
        ),
      );
    });
    // Keep the current line in view inside the list (never scrolling the page).
    list.scrollTop = sameRound ? scroll : 0;
    const cur = list.querySelector("li.current");
    if (cur) {
      // Where the line sits in the list's scrolled content, measured on screen (offsetTop would
      // depend on which ancestor is positioned: the list itself is, so it was off by its own).
      const top = cur.getBoundingClientRect().top - list.getBoundingClientRect().top - list.clientTop + list.scrollTop;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + cur.offsetHeight - list.clientHeight;
    }
  }

  renderSheetMark() {
    for (const tr of this.sheetEl.querySelectorAll("tr[data-round]")) {
      const on = tr.dataset.round === String(this.r + 1);
      tr.classList.toggle("current", on);
      if (on) tr.setAttribute("aria-current", "true");
      else tr.removeAttribute("aria-current");
    }
  }

  // ---- analysis -----------------------------------------------------------------------------

  /** Follow the analysis (again, after a refusal): its progress while it runs, then it. */
  loadAnalysis() {
    this.stopAnalysis?.();
    this.stopAnalysis = followAnalysis(this.matchId, ({ res, error }) => {
      if (error) {
        this.analysisState = { error: refusal(error), retry: error?.code === "analysis_busy" || error?.code === "offline" };
        this.renderAnalysis();
        return;
      }
      if (res && res.status === "running") {
        this.analysisState = { running: res };
        this.renderAnalysis();
        return;
      }
      this.analysis = res;
      this.analysisState = null;
      this.judged = new Map((res.moves || []).map((m) => [`${m.round}|${m.move}`, m]));
      this.renderAnalysis();
      this.renderMoves();
    });
  }

  renderAnalysis() {
    const el = this.analysisEl;
    if (!el) return;
    clear(el);
    el.append(h("h2", { id: "analysis-title" }, t("analysis.title")));
    const st = this.analysisState;
    if (!this.analysis) {
      if (st?.error) {
        el.append(h("p", { role: "status" }, st.error));
        if (st.retry) el.append(h("button", { type: "button", onclick: () => this.loadAnalysis() }, t("analysis.retry")));
        return;
      }
      if (!st?.running) {
        el.append(h("p", { role: "status" }, t("ui.loading")));
        return;
      }
      const done = st?.running?.done ?? 0;
      const total = st?.running?.total ?? 0;
      el.dataset.state = "running";
      el.append(
        h("p", { role: "status", "data-testid": "analysis-progress" }, t("analysis.running", { done, total })),
        h("div.progress", { role: "progressbar", "aria-label": t("analysis.title"), "aria-valuemin": "0", "aria-valuemax": String(total || 1), "aria-valuenow": String(done) }, h("span", { style: { width: `${total ? (done / total) * 100 : 0}%` } })),
      );
      return;
    }
    el.dataset.state = "done";
    const a = this.analysis;
    const toggle = h("input", { type: "checkbox", id: "hindsight", checked: this.hindsight });
    toggle.addEventListener("change", () => {
      this.hindsight = toggle.checked;
      this.renderAnalysis();
      document.getElementById("hindsight")?.focus();
    });
    this.judgementEl = h("div.judgement", { "data-testid": "judgement" });
    const summary = h("ul.analysis-summary", { "data-testid": "analysis-summary" });
    const lang = document.documentElement.lang || "de";
    for (const s of a.summary || []) {
      const hs = this.hindsight ? s.hindsight : null;
      const share = Math.round(100 * ((hs ? hs.best_share : s.best_share) ?? 0));
      const loss = num((hs ? hs.avg_loss : s.avg_loss) ?? 0, lang);
      const grades = Object.entries(s.grades || {}).filter(([, n]) => n > 0).map(([g, n]) => `${t(`analysis.grade.${g}`)}: ${n}`);
      summary.append(
        h(
          "li",
          {},
          t(subjectKey(hs ? "analysis.summary_hindsight" : "analysis.summary", s.seat, this.me), { name: this.name(s.seat), share, loss }),
          grades.length && !hs ? h("span.muted", {}, ` (${grades.join(", ")})`) : null,
        ),
      );
    }
    if (!(a.summary || []).length) summary.append(h("li.muted", {}, t("analysis.none")));
    el.append(...[
      h("p.muted.analysis-samples", {}, tn("analysis.samples", a.samples ?? 0)),
      h("label.hindsight-toggle", { for: "hindsight" }, toggle, " ", t("analysis.hindsight")),
      this.hindsight ? h("p.hindsight-note", {}, t("analysis.hindsight_note")) : null,
      this.judgementEl,
      h("h3", {}, t("analysis.summary_title")),
      summary,
    ].filter(Boolean));
    if (this.hindsight) el.classList.add("hindsight");
    else el.classList.remove("hindsight");
    this.renderJudgement();
  }

  /** The judgement of the move on screen: its grade, the best choice and what it was worth. */
  renderJudgement() {
    const el = this.judgementEl;
    if (!el || !this.analysis || !this.frame) return;
    clear(el);
    const lang = document.documentElement.lang || "de";
    const ev = this.frame.event;
    if (this.k === 0 || !ev) {
      el.append(h("p.muted", {}, t("analysis.pick_move")));
      return;
    }
    const j = this.judged.get(`${this.r + 1}|${this.k}`);
    if (!j) {
      const seat = this.data.seats?.[ev.seat];
      el.append(h("p.muted", {}, t(seat?.kind === "bot" ? "analysis.not_judged_bot" : "analysis.not_judged")));
      return;
    }
    if (j.forced) {
      el.append(h("p", {}, t("analysis.forced")));
      return;
    }
    const v = this.hindsight && j.hindsight ? j.hindsight : j;
    const grade = v.grade;
    el.dataset.grade = grade || (v.best_move ? "best" : "ok");
    el.append(
      h(
        "p.judged",
        {},
        grade ? h(`span.badge.grade.grade-${grade}`, {}, t(`analysis.grade.${grade}`)) : v.best_move ? h("span.badge.grade.grade-best", {}, t("analysis.best_move")) : null,
        " ",
        t("analysis.played", { move: j.played, value: num(v.value ?? 0, lang) }),
      ),
    );
    if (!v.best_move) el.append(h("p", {}, t("analysis.best", { move: v.best, value: num(v.best_value ?? 0, lang) })));
    const opts = (v.options || []).slice().sort((x, y) => y.value - x.value);
    if (opts.length) {
      el.append(
        h(
          "table.options",
          {},
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("analysis.choice")), h("th", { scope: "col" }, t("analysis.expected")))),
          h("tbody", {}, opts.map((o) => h(`tr${o.move === j.played ? ".played" : ""}`, {}, h("td", {}, o.move), h("td", {}, num(o.value, lang))))),
        ),
      );
    }
  }
}
