// Ratings (issue 23): a rated match's change on its final panel; the profile's card. Lazy.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { profileRatings } from "./api.js";

export const POOLS = ["2", "3", "4", "paare"];
const changes = new Map(); // match id -> its `rating` frame

export const poolName = (pool) => t(`rating.pool.${pool}`);
/** A rating as shown: "?" while provisional. */
export const shown = (r, provisional) => `${r}${provisional ? "?" : ""}`;
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

/** The line about the receiver's change in a rated match, or null. */
export function ratingLine(matchId) {
  const c = changes.get(matchId);
  if (!c) return null;
  const kind = c.change > 0 ? ".up" : c.change < 0 ? ".down" : "";
  return h(`p.rating-change${kind}`, { "data-testid": "rating-change", role: "status" },
    t("rating.change", { pool: poolName(c.pool), after: shown(c.after, c.provisional), change: signed(c.change) }));
}

/** A `rating` frame: kept, and shown on the final panel. */
export function gotChange(msg) {
  changes.set(msg.match, msg);
  const panel = document.querySelector('[data-testid="match-end"] .panel');
  if (!panel) return;
  panel.querySelector(".rating-change")?.remove();
  panel.querySelector("ol.standings")?.after(ratingLine(msg.match));
}

function svg(tag, attrs) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A pool's history as a line (drawn here: no chart service). */
export function chart(history, label) {
  const [W, H, P] = [320, 120, 8];
  const vs = [1500, ...history.map((x) => x.rating)]; // from the start
  const lo = Math.min(...vs);
  const span = Math.max(20, Math.max(...vs) - lo);
  const x = (i) => P + (i * (W - 2 * P)) / (vs.length - 1);
  const y = (v) => H - P - ((v - lo) * (H - 2 * P)) / span;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-chart", role: "img", "aria-label": label, preserveAspectRatio: "none" });
  root.append(svg("line", { x1: P, x2: W - P, y1: y(1500), y2: y(1500) }), svg("polyline", { points: vs.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
  return root;
}

/** The profile's card. */
export async function ratingsCard(profile) {
  const card = h("section.card.ratings", { "data-testid": "ratings" }, h("h2", {}, t("rating.title")));
  const link = h("p", {}, h("a.button", { href: "#/rangliste/2", "data-testid": "board-link" }, t("board.link")));
  let data = { pools: {}, modes: {} };
  if (profile.kind === "guest") return (card.append(h("p.muted", {}, t("rating.guest")), link), card);
  try {
    data = await profileRatings(profile.id);
  } catch {
    /* the profile shows without */
  }
  const pools = POOLS.filter((pl) => data.pools[pl]);
  if (!pools.length) card.append(h("p.muted", {}, t("rating.none")));
  for (const pl of pools) {
    const r = data.pools[pl];
    card.append(
      h("div.pool-head", {}, h("strong", {}, poolName(pl)), h("span.rating-value", { "data-testid": `rating-${pl}` }, shown(r.rating, r.provisional)),
        h("span.muted", {}, `${t("rating.stats.matches")}: ${r.matches} · ${t("rating.stats.wins")}: ${r.wins}`)),
      r.history.length ? chart(r.history, t("rating.chart", { pool: poolName(pl) })) : "",
    );
  }
  if (pools.some((pl) => data.pools[pl].provisional)) card.append(h("p.muted", {}, t("rating.provisional_hint")));
  const modes = Object.entries(data.modes);
  if (modes.length) {
    const head = ["rating.stats.mode", "rating.stats.matches", "rating.stats.wins", "rating.stats.place"];
    card.append(h("h3", {}, t("rating.stats")), h("table.mode-stats", {},
      h("tr", {}, head.map((k) => h("th", {}, t(k)))),
      modes.map(([m, s]) => h("tr", {}, h("th", {}, t(`mode.${m}`)), h("td", {}, String(s.matches)), h("td", {}, String(s.wins)), h("td", {}, s.average_place.toFixed(1))))));
  }
  card.append(link);
  return card;
}
