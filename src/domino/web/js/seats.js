// A seat around the table: name, points, hand size as tile backs, clock, and its state
// (bot level, stand-in, disconnected, left, team).

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { tileSvg } from "./tiles.js";

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
  if (info.kind === "bot") badges.push(h("span.badge", {}, t("lobby.bot", { level: t(`level.${info.level}`) })));
  if (info.standin) badges.push(h("span.badge.warn", {}, t("table.represented")));
  if (info.left) badges.push(h("span.badge.warn", {}, t("table.left_match")));
  else if (info.kind === "human" && info.connected === false) badges.push(h("span.badge.warn", {}, t("table.disconnected")));
  if (s.rules?.pairs) badges.push(h("span.badge", {}, t("table.team", { name: side === 0 ? "A" : "B" })));
  const clock = view.clockText(seat);
  const backs = [];
  if (!compact || seat !== view.me) {
    const shown = Math.min(count, 10);
    for (let i = 0; i < shown; i++) backs.push(h("span.back-mini", { html: tileSvg(0, 0, { back: true }) }));
  }
  return h(
    `div.seat${turn ? ".turn" : ""}`,
    { dataset: { seat: String(seat) }, "aria-label": `${view.name(seat)}: ${tn("table.tiles", count)}, ${tn("table.points", points)}` },
    h("div.seat-head", {}, h("span.seat-name", {}, seat === view.me ? `${info.name ?? ""} (${t("table.you")})` : info.name ?? "?"), h("span.points", {}, tn("table.points", points))),
    h("div.seat-badges", {}, badges),
    seat === view.me ? null : h("div.backs", { title: tn("table.tiles", count) }, backs, h("span.count", {}, tn("table.tiles", count))),
    turn
      ? h("div.clock", { dataset: { clockSeat: String(seat) }, style: { "--left": String(clock ? clock.frac : 1) } },
          h("span.clock-bar"), h("span.clock-num", {}, clock ? t("val.seconds", { n: clock.secs }) : t("table.thinking")))
      : null,
  );
}
