// Told and drawn alike on the table, in its round and match overlays (results.js) and in the
// replay viewer: a seat's name, a team and its badge, whose side is whose, how a round ended,
// whether there is a Lager, and its picture.
//
// `view` below is what results.js draws from: {me, name(seat), state}, where `state` has the
// match's `rules` and `seats` (each with its `side`: the seat, or with Paare its team).

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { tileBack } from "./tiles.js";
import { handsElement } from "./board.js";
import { subjectKey } from "./events.js";

/** A seat's name in `seats`; with `me` given, the player's own seat is "du". */
export function seatName(seats, seat, me = undefined) {
  if (me !== undefined && seat === me) return t("table.you");
  return seats?.[seat]?.name ?? "?";
}

/** A team's name (Paare): side 0 is team A, side 1 team B. */
export function teamName(side) {
  return t("table.team", { name: side === 0 ? "A" : "B" });
}

/** The badge that says a seat's team. */
export function teamBadge(side) {
  return h("span.badge", {}, teamName(side));
}

/** The badge that says a seat is a bot, and its level. */
export function botBadge(level) {
  return h("span.badge.bot", {}, t("lobby.bot", { level: t(`level.${level}`) }));
}

/** Whether `side` (a seat, or with Paare a team) is the player's own. */
export function isMine(view, side) {
  const s = view.state;
  if (view.me === null || view.me === undefined) return false;
  return s.rules?.pairs ? s.seats?.[view.me]?.side === side : side === view.me;
}

/** A side's name: the seat's, or with Paare the team's. */
export function sideName(view, side) {
  if (view.state.rules?.pairs) return teamName(side);
  return view.name(side);
}

/** How a round ended (`r`: a view's `result`), as two sentences: why, and who scored what. */
export function roundResult(view, r) {
  const reason = r.reason === "domino" ? t(subjectKey("round.domino", r.out_seat, view.me), { name: view.name(r.out_seat) }) : t("round.blocked");
  const pairs = Boolean(view.state.rules?.pairs);
  const scoredKey = isMine(view, r.winner) ? (pairs ? "round.scores_team_you" : "round.scores_you") : "round.scores";
  const scored =
    r.winner === null || r.winner === undefined
      ? t("round.nobody")
      : tn(scoredKey, r.points[r.winner], { name: sideName(view, r.winner) });
  return [reason, scored];
}

/** A hand shown face up (the round's reveal, the replay's seats). */
export function revealedHand(tiles) {
  return handsElement(tiles, (tile) => t("table.tile", { tile }));
}

/** Whether the rules have a Lager to draw from (switched on, and never with Paare). */
export function hasLager(rules) {
  return (rules?.lager ?? true) && !rules?.pairs;
}

/** The Lager's picture: a stack of three tile backs. */
export function lagerStack() {
  return h("span.lager-stack", { html: `<svg viewBox="0 0 220 120" aria-hidden="true"><g transform="translate(14 14)">${tileBack()}</g><g transform="translate(7 7)">${tileBack()}</g>${tileBack()}</svg>` });
}
