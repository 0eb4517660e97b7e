// The round-end reveal and the match-end standings, drawn over the table.

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { fivesLine } from "./events.js";
import { isMine, sideName, roundResult, revealedHand } from "./shared.js";
import { ratingLine } from "./ratings.js";

/** All hands revealed, how the round ended, who scored what. */
export function roundOverlay(view, s) {
  if (!s.view?.result) return h("div");
  return h(
    "div.overlay.round-end",
    { role: "dialog", "aria-modal": "false", "aria-labelledby": "round-title", "data-testid": "round-end" },
    h(
      "div.panel",
      {},
      h("h2", { id: "round-title" }, t("round.title", { n: s.view.round })),
      ...roundSummary(view, s),
      h("p.muted", {}, t("round.next")),
    ),
  );
}

/** How the round ended, who scored, and every hand still held (the reveal). */
function roundSummary(view, s) {
  const r = s.view?.result;
  if (!r) return [];
  const [reason, scored] = roundResult(view, r);
  const pairs = Boolean(s.rules?.pairs);
  const rows = (s.seats || []).map((seat, i) =>
    h(
      "li.reveal-row",
      {},
      h("div.reveal-head", {}, h("strong.reveal-name", {}, view.name(i)), h("span.reveal-pips", {}, tn("round.pips", r.pips?.[i] ?? 0))),
      revealedHand(r.hands?.[i] || []),
    ),
  );
  const fives = (r.fives || []).some((x) => x > 0)
    ? h("p.fives-sum", {}, (r.fives || []).map((x, side) => (x ? fivesLine(x, sideName(view, side), isMine(view, side), pairs) : "")).filter(Boolean).join(" "))
    : null;
  return [h("p.reason", {}, reason), h("p.scored", {}, scored), fives, h("ul.reveal", {}, rows)].filter(Boolean);
}

/** The sides of the match in order: [{side, label}] (seats, or teams A and B with Paare). */
function sides(view, s) {
  const n = s.rules?.pairs ? 2 : (s.seats || []).length;
  return Array.from({ length: n }, (_, side) => ({ side, label: s.rules?.pairs ? sideName(view, side) : view.name(side) }));
}

/** A column head: the whole name, and on a phone without a trailing "(…)" ("Bot 2 (Profi)"). */
function columnName(label) {
  const short = label.replace(/\s*\([^()]*\)$/, "");
  if (!short || short === label) return label;
  return [h("span.name-long", {}, label), h("span.name-short", {}, short)];
}

/** The score sheet: points per round for every seat or team, and the totals. */
export function scoreSheet(view, s) {
  const cols = sides(view, s);
  const rounds = s.round_points || [];
  const totals = cols.map(({ side }) => (s.standings || []).find((x) => x.side === side)?.points ?? 0);
  const rows = rounds.map((pts, i) =>
    h("tr", { dataset: { round: String(i + 1) } }, h("th", { scope: "row" }, String(i + 1)), cols.map(({ side }) => h("td", {}, String(pts[side] ?? 0)))),
  );
  // Fünferpunkte of the round in play count already: they show as their own row.
  const done = cols.map(({ side }) => rounds.reduce((sum, pts) => sum + (pts[side] ?? 0), 0));
  const running = totals.map((x, i) => x - done[i]);
  if (!s.view?.result && s.phase === "playing" && running.some((x) => x !== 0)) {
    rows.push(h("tr.running", {}, h("th", { scope: "row" }, t("table.score_running", { n: s.view?.round ?? rounds.length + 1 })), running.map((x) => h("td", {}, String(x)))));
  }
  return h(
    "div.score-sheet",
    { "data-testid": "score-sheet" },
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("table.score_round")), cols.map(({ label }) => h("th", { scope: "col", title: label }, columnName(label))))),
      h("tbody", {}, rows),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row" }, t("table.score_total")), totals.map((x) => h("td", {}, String(x))))),
    ),
    rounds.length ? null : h("p.muted", {}, t("table.score_none")),
  );
}

/** Standings with places, XP, level progress, Nochmal and the record link. */
export function matchOverlay(view, s) {
  const standings = s.standings || [];
  const xp = s.xp || [];
  const me = view.me;
  const rows = standings.map((st) =>
    h(
      `li.standing${st.seats.includes(me) ? ".mine" : ""}`,
      {},
      h("span.place", {}, t("match.place", { place: st.place })),
      h("span.who", {}, s.rules?.pairs ? `${sideName(view, st.side)}: ${st.seats.map((x) => view.name(x)).join(" & ")}` : view.name(st.seats[0])),
      h("span.pts", {}, tn("table.points", st.points)),
      h("span.xp", {}, st.seats.map((x) => (xp[x] ? t("match.xp", { n: xp[x] }) : "")).filter(Boolean).join(" ")),
    ),
  );
  let progress = null;
  const p = view.profile;
  if (me !== null && p && p.next_level_xp) {
    const frac = Math.max(0, Math.min(1, (p.xp - p.level_xp) / Math.max(1, p.next_level_xp - p.level_xp)));
    progress = h(
      "div.level",
      {},
      h("div.level-head", {}, h("strong", {}, t("match.level", { level: p.level })), h("span", {}, t("profile.xp", { xp: p.xp }))),
      h("div.progress", { role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(frac * 100)), "aria-label": t("profile.next_level", { xp: p.next_level_xp - p.xp, level: p.level + 1 }) }, h("span", { style: { width: `${frac * 100}%` } })),
      h("p.muted", {}, t("profile.next_level", { xp: p.next_level_xp - p.xp, level: p.level + 1 })),
    );
  }
  const matchId = s.match || s.match_id;
  return h(
    "div.overlay.match-end",
    { role: "dialog", "aria-modal": "true", "aria-labelledby": "match-title", "data-testid": "match-end" },
    h(
      "div.panel",
      {},
      h("h2", { id: "match-title" }, t("match.title")),
      h("ol.standings", {}, rows),
      ratingLine(matchId),
      progress,
      h(
        "div.row",
        {},
        me !== null ? h("button.primary", { type: "button", onclick: () => view.hooks.again(s), "data-testid": "again", dataset: { focusKey: "m:again" } }, t("match.again")) : null,
        h("a.button", { href: `#/replay/${encodeURIComponent(matchId)}`, "data-testid": "open-replay", dataset: { focusKey: "m:record" } }, t("match.record")),
        h("button", { type: "button", onclick: () => view.hooks.home(), dataset: { focusKey: "m:home" } }, t("match.home")),
      ),
      rematchSlot(view, s),
      // The score sheet below the actions: "Nochmal" stays in view on a phone.
      h("h3.sheet-title", {}, t("table.score_sheet")),
      scoreSheet(view, s),
      s.view?.result ? h("details.last-round", { open: true }, h("summary", {}, t("round.title", { n: s.view.round })), ...roundSummary(view, s)) : null,
    ),
  );
}

/** *Revanche* (rematch.js, loaded on demand): propose, accept, who accepted, the time left. */
function rematchSlot(view, s) {
  const slot = h("div.rematch-slot", { "data-testid": "rematch-box", "aria-live": "polite" });
  import("./rematch.js").then((m) => m.mount(slot, view, s));
  return slot;
}
