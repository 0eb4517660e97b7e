// What happened, in words: one German sentence per public event (for the log and for the
// aria-live announcements). The own moves use the "du" forms.

import { t } from "./i18n.js";

/** The sentence for `ev` (docs/match-state.md events), or null for events not told. */
export function describeEvent(ev, nameOf, me) {
  const name = ev.seat !== undefined && ev.seat !== null ? nameOf(ev.seat) : "";
  // German conjugates for "du": the own moves have their own sentences.
  const you = ev.seat === me ? "_you" : "";
  switch (ev.kind) {
    case "open":
      return t(`log.open${you}`, { name, tile: ev.tile });
    case "play":
      return t(`log.play_${ev.end === "L" ? "L" : "R"}${you}`, { name, tile: ev.tile });
    case "draw":
      return (ev.count || 1) > 1 ? t(`log.draw_n${you}`, { name, n: ev.count }) : t(`log.draw${you}`, { name });
    case "pass":
      return t(`log.pass${you}`, { name });
    case "timeout":
      return t("log.timeout", { name });
    case "standin":
      return t("log.standin", { name });
    case "back":
      return t("log.back", { name });
    case "leave":
      return t("log.leave", { name });
    case "disconnected":
      return t("log.disconnected", { name });
    case "connected":
      return t("log.connected", { name });
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
