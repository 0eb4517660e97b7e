// What happened, in words: one sentence per public event (for the log and for the aria-live
// announcements). Every line about a seat has two catalogue entries: `key` names the seat (a
// person, a bot, a team) and `key_you` speaks to the player, so German never reads "Du ist".
// A move the server made for a human seat (`auto`: stand-in, left seat, expired turn) says so:
// "Der Bot legt für dich 6|2 links an.", "Für Anna legt der Bot 6|2 links an."

import { t, tn } from "./i18n.js";

/** The catalogue key for a line about `seat`: the "du" form when it is the player's. */
export function subjectKey(key, seat, me) {
  return seat !== null && seat !== undefined && seat === me ? `${key}_you` : key;
}

/** The sentence for `ev` (docs/match-state.md events), or null for events not told. */
export function describeEvent(ev, nameOf, me) {
  const name = ev.seat !== undefined && ev.seat !== null ? nameOf(ev.seat) : "";
  const about = (key) => subjectKey(key, ev.seat, me);
  const auto = ev.auto ? "_auto" : "";
  switch (ev.kind) {
    case "open":
      return t(about("log.open"), { name, tile: ev.tile });
    case "play":
      return t(about(`log.play_${ev.end === "L" ? "L" : "R"}${auto}`), { name, tile: ev.tile });
    case "draw":
      return tn(about(`log.draw${auto}`), ev.count || 1, { name });
    case "pass":
      return t(about(`log.pass${auto}`), { name });
    case "timeout":
    case "standin":
    case "back":
    case "leave":
    case "disconnected":
    case "connected":
    case "hint":
      return t(about(`log.${ev.kind}`), { name });
    case "round_end":
      return t("round.title", { n: ev.round });
    case "match_end":
      return t("match.title");
    case "round_start":
      return t("table.round", { n: ev.round });
    default:
      return null;
  }
}

/**
 * The fives line for a move that scored: `side` is the seat, or with Paare the team (0 = A).
 * `mine` is true when that seat or team is the player's.
 */
export function fivesLine(n, name, mine, team) {
  return t(mine ? (team ? "log.fives_team_you" : "log.fives_you") : "log.fives", { name, n });
}
