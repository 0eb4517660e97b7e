// A seat around the table: name, online state, points, hand size as tile backs, clock, and its
// state (bot level, stand-in, left, team). A seat a bot plays shows a thinking indicator on its
// turn instead of a clock (a bot has no clock; a full bar would look stuck).

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { tileSvg } from "./tiles.js";
import { teamBadge, botBadge } from "./shared.js";

/** Whether a bot moves for `info`'s seat now (a bot seat, a stand-in, a player who left). */
export function botPlays(info) {
  return info.kind === "bot" || !!info.standin || !!info.left;
}

export function seatCard(view, seat, { compact = false } = {}) {
  const s = view.state;
  const info = s.seats?.[seat] || {};
  const v = s.view || {};
  const count = v.hand_counts?.[seat] ?? 0;
  const side = info.side ?? seat;
  const standing = (s.standings || []).find((x) => x.side === side);
  const points = standing ? standing.points : v.scores?.[side] ?? 0;
  const turn = v.turn === seat;
  const badges = [];
  if (info.kind === "bot") {
    // The phone's slim row leaves it out: a bot's name says "Bot n (Level)" already.
    badges.push(botBadge(info.level));
  }
  if (info.standin) badges.push(h("span.badge.warn", {}, t("table.represented")));
  if (info.left) badges.push(h("span.badge.warn", {}, t("table.left_match")));
  if (s.rules?.pairs) badges.push(teamBadge(side));
  // Online: bots always; a human while a client of theirs is connected (seats[].connected).
  const online = info.kind === "bot" || (!info.left && info.connected !== false);
  const presenceText = t(online ? "table.online" : "table.offline");
  // A dot before the name, and the word among the badges (the phone's slim row: offline only).
  const presence = h(`span.dot.${online ? "on" : "off"}`, { title: presenceText, "aria-hidden": "true" });
  if (seat !== view.me) badges.unshift(h(`span.badge.presence.${online ? "on" : "off.warn"}`, {}, presenceText));
  const clock = view.clockText(seat);
  const byBot = botPlays(info);
  const backs = [];
  if (!compact || seat !== view.me) {
    const shown = Math.min(count, 10);
    for (let i = 0; i < shown; i++) backs.push(h("span.back-mini", { html: tileSvg(0, 0, { back: true }) }));
  }
  let timer = null;
  if (turn && byBot && !clock) {
    timer = h("div.thinking", { role: "status" }, h("span.think-dots", { "aria-hidden": "true" }, h("i"), h("i"), h("i")), h("span.think-text", {}, t("table.thinking")));
  } else if (turn) {
    timer = h(
      "div.clock",
      { dataset: { clockSeat: String(seat) }, style: { "--left": String(clock ? clock.frac : 1) } },
      h("span.clock-bar"),
      h("span.clock-num", {}, clock ? t("val.seconds", { n: clock.secs }) : ""),
    );
  }
  const name = seat === view.me ? `${info.name ?? ""} (${t("table.you")})` : info.name ?? "?";
  return h(
    `div.seat${turn ? ".turn" : ""}${online ? "" : ".offline"}`,
    { dataset: { seat: String(seat), online: String(online), bot: String(byBot) }, "aria-label": `${view.name(seat)}: ${presenceText}, ${tn("table.tiles", count)}, ${tn("table.points", points)}` },
    h("div.seat-id", {}, seat === view.me ? null : presence, h("span.seat-name", {}, name)),
    // The phone's slim rows say "12 Pkt." (the card's label has the whole word).
    h("span.points", {}, h("span.pts-long", {}, tn("table.points", points)), h("span.pts-short", { "aria-hidden": "true" }, t("table.points_short", { n: points }))),
    h("div.seat-badges", {}, badges),
    seat === view.me ? null : h("div.backs", { title: tn("table.tiles", count) }, backs, h("span.count", {}, tn("table.tiles", count)), h("span.count-num", { "aria-hidden": "true" }, String(count))),
    timer,
  );
}
