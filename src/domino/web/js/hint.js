// Tipp: Meister's choice for this seat and one sentence why (docs/protocol.md, "Hints").
// Loaded on demand by the table: its button, the T key, the controller's View/Back button.
// The server answers the asking socket alone (`hint_answer`); everyone's log says that a
// hint was used, never what it said.

import { t } from "./i18n.js";

/** Codes after which this match offers no hint any more (the button goes away). */
const FINAL = new Set(["hint_off", "hint_rated", "hint_no_bots"]);

/** Ask the server for a hint for `tv`'s seat; the answer arrives as `hint_answer`. */
export function askHint(tv) {
  const s = tv.state;
  if (!s || tv.me === null || tv.hintsRefused) return;
  if (!tv.myTurn) return tv.say(t("hint_not_your_turn"));
  if (tv.hintAsked === s.v) return;
  tv.hintAsked = s.v;
  tv.say(t("hint.asking"));
  tv.hooks.send({ type: "hint", match: s.match || s.match_id, v: s.v });
}

/** A `hint_answer`: highlight the move (its tile, or Ziehen / Passen), say the sentence. */
export function showHint(tv, msg) {
  const s = tv.state;
  if (!s || (s.match || s.match_id) !== msg.match) return;
  tv.hint = { move: msg.move, text: msg.text, v: msg.v, left: msg.left, round: s.view?.round };
  const [tile] = msg.move.split(" ");
  if (msg.move !== "D" && msg.move !== "P") tv.selected = tile;
  tv.renderDock();
  tv.renderEnds();
  tv.say(msg.text);
}

/** A refused hint: said like every error (the toast); some end the offer for this match. */
export function hintRefused(tv, msg) {
  tv.hintAsked = null;
  if (FINAL.has(msg.code)) {
    tv.hintsRefused = true;
    tv.renderDock();
  }
}

/** The hints left this round as far as the last answer said (null: not known yet). */
export function hintsLeft(tv) {
  const hint = tv.hint;
  return hint && hint.round === tv.state?.view?.round ? hint.left : null;
}
