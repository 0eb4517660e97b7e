// The ways on from a match: *Nochmal* (the same lobby again, or a new one with the same rules
// and bots: messages.js sets it up once the server sends it), going home from the table, and
// the notice after *Spiel verlassen*.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { app, send, botLevel } from "./state.js";
import { go } from "./router.js";

/** After *Spiel verlassen*: what happened, and the way on (a new game, the start page). */
export function leftNotice() {
  // The lobby opens again when the match is over: without other people it ended at once.
  const over = app.lobby?.lobby?.status === "open";
  return h(
    "section.card.left-notice",
    { role: "status", "data-testid": "left-notice" },
    h("p", {}, t(over ? "left.match_over" : "left_match")),
    h("div.row", {},
      h("button.primary", { type: "button", "data-testid": "left-new-game", onclick: newGameAfterLeaving }, t("left.new_game")),
      h("button", { type: "button", "data-testid": "left-home", onclick: homeAfterLeaving }, t("left.home"))),
  );
}

function newGameAfterLeaving() {
  const seats = app.lobby?.lobby?.rules?.seats || 2;
  homeAfterLeaving();
  send({ type: "quick_game", seats, level: botLevel() });
}

function homeAfterLeaving() {
  app.leftNotice = false;
  if (app.lobby) {
    send({ type: "leave_lobby" });
    app.lobby = null;
  }
  go("#/");
}

/** The table's way home. */
export function leaveTable() {
  // A spectator stops watching; a player's leave_match was sent by the table itself.
  if (app.lastState && app.lastState.you === null && app.lastState.phase !== "match_over") {
    send({ type: "unwatch", match: app.matchId });
  }
  // The lobby reopens after a match; going home instead of "Nochmal" leaves it.
  if (app.lastState?.phase === "match_over" && app.lobby) {
    send({ type: "leave_lobby" });
    app.lobby = null;
  }
  app.matchId = null;
  app.lastState = null;
  go("#/");
}

/** *Nochmal* after the match `state`. */
export function again(state) {
  app.matchId = null;
  app.lastState = null;
  if (app.lobby && app.lobby.lobby.status === "open") {
    // The server reopens the match's lobby with the same seats and rules: back to it.
    go(`#/lobby/${app.lobby.lobby.code}`);
    return;
  }
  // Otherwise open a new lobby with the same rules and bots.
  app.rematch = { rules: state.rules, bots: (state.seats || []).filter((s) => s.kind === "bot").map((s) => ({ seat: s.seat, level: s.level })) };
  app.matchId = null;
  app.lastState = null;
  send({ type: "create_lobby", seats: state.rules?.seats || 2 });
}
