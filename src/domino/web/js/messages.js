// The message handler: every message of the live connection (docs/protocol.md) updates the
// state (state.js) and, where the player should see it, the address or the screen.

import { t } from "./i18n.js";
import { ConnectionBar } from "./net.js";
import { app, send } from "./state.js";
import { route, go, render, OWN_PAGES } from "./router.js";
import { header, toast } from "./frame.js";
import { signedOut } from "./account.js";
import { screens } from "./screens.js";

const connBar = new ConnectionBar(document.getElementById("conn"));

export function onStatus(status, detail) {
  app.status = status;
  // The red bar while reconnecting (with the server's reason when it refused us, e.g. its
  // database is away), "Verbunden" once back (net.js ConnectionBar).
  document.body.classList.toggle("offline", connBar.show(status, detail));
}

export function onMessage(msg) {
  switch (msg.type) {
    case "welcome": {
      app.profile = msg.profile;
      // Already a member: the server sends that lobby next, no join needed.
      if (msg.lobby) app.joining = msg.lobby;
      const r = route();
      if (msg.match && msg.match.match !== app.leftMatch) {
        app.matchId = msg.match.match;
        go(`#/match/${encodeURIComponent(app.matchId)}`);
      } else if (r.name === "match" && r.arg) {
        app.matchId = r.arg;
        send({ type: "watch", match: r.arg });
      } else if (r.name === "lobby" && r.arg && msg.lobby !== r.arg) {
        if (msg.lobby) send({ type: "leave_lobby" });
        app.joining = r.arg;
        send({ type: "join_lobby", code: r.arg });
      } else if (msg.lobby && !["lobby", ...OWN_PAGES].includes(r.name)) {
        go(`#/lobby/${msg.lobby}`);
      } else {
        render();
      }
      break;
    }
    case "lobby":
      app.lobby = { lobby: msg.lobby, you: msg.you };
      maybeRematch();
      // While a match is on screen (also its final standings) the lobby waits in the background;
      // "Nochmal" goes back to it.
      // So does it behind the profile and a replay (pages asked for by their address).
      if (route().name === "match" || OWN_PAGES.includes(route().name)) break;
      if (route().name !== "lobby" || route().arg !== msg.lobby.code) go(`#/lobby/${msg.lobby.code}`);
      else render();
      break;
    case "lobby_left":
      app.lobby = null;
      if (route().name === "lobby") go("#/");
      if (msg.reason === "closed" && route().name === "lobby") toast(t("lobby_closed"));
      break;
    case "lobby_list":
      app.list = { open: msg.open || [], running: msg.running || [] };
      if (route().name === "home") screens()?.updateLists();
      break;
    case "match_started":
      app.leftNotice = false;
      if (app.table && app.matchId !== msg.match) (app.table.destroy(), (app.table = null)); // a Revanche: a new table

      app.matchId = msg.match;
      app.lastState = null;
      go(`#/match/${encodeURIComponent(msg.match)}`);
      break;
    case "state":
      if (app.matchId && (msg.match || msg.match_id) !== app.matchId) break;
      // After "Spiel verlassen" the bot plays on; its snapshots must not pull us back.
      if ((msg.match || msg.match_id) === app.leftMatch) break;
      app.matchId = msg.match || msg.match_id;
      // A snapshot older than the one shown (a late frame) is ignored.
      if (app.lastState && msg.v < app.lastState.v && msg.view?.round === app.lastState.view?.round) break;
      app.lastState = msg;
      // In a seat while waiting: the table was formed (its queue_left may have been lost).
      if (app.queueWaiting && msg.you !== null && msg.you !== undefined) import("./queue.js").then((m) => m.seatedWhileWaiting());
      // A replay on screen stays there (the match's last snapshots may still come).
      if (route().name === "replay") break;
      if (route().name !== "match") go(`#/match/${encodeURIComponent(app.matchId)}`);
      else if (!app.table) render();
      else app.table.update(msg);
      break;
    case "rating":
      // A rated match's change (ratings.js).
      import("./ratings.js").then((m) => m.gotChange(msg), () => {});
      break;
    case "queue":
    case "queue_left":
      import("./queue.js").then((m) => m.onQueue(msg));
      break;
    case "earlier_rounds":
      // The rounds before the one a (re)loaded table started from, for its log.
      app.table?.earlierRounds(msg);
      break;
    case "profile":
      // The end of a match (XP, level) or a new name, given in this window or another.
      app.profile = msg.profile;
      app.table?.setProfile(msg.profile);
      app.root.querySelector("header.app-head")?.replaceWith(header());
      const hello = app.root.querySelector(".screen.home .welcome h1");
      if (hello) hello.textContent = t("home.hello", { name: msg.profile.name });
      break;
    case "rematch_state":
    case "invited":
    case "invite_sent":
      import("./rematch.js").then((m) => m.onMessage(msg));
      break;
    case "hint_answer":
      if (app.table) import("./hint.js").then((m) => m.showHint(app.table, msg));
      break;
    case "error":
      if (app.table) app.table.pending = false;
      if (app.table && msg.code?.startsWith("hint_")) import("./hint.js").then((m) => m.hintRefused(app.table, msg));
      if (["match_not_found", "match_over"].includes(msg.code) && route().name === "match" && !app.lastState) {
        // An old match link: nothing to show here any more.
        app.matchId = null;
        go("#/");
      }
      if (msg.code === "bad_token") {
        signedOut();
      }
      toast(msg.message || t("error.generic"));
      break;
    case "chat":
    case "chat_log":
    case "reaction":
    case "blocks":
    case "reported":
      import("./talk.js").then((m) => m.onTalk(msg)); // table talk, loaded on demand
      break;
    default:
      break;
  }
}

/** A new lobby of this host's after *Nochmal* (after.js): set it up as the match before was. */
function maybeRematch() {
  const rm = app.rematch;
  if (!rm || !app.lobby?.you?.host) return;
  app.rematch = null;
  const { target_points: _drop, ...rules } = rm.rules || {};
  send({ type: "set_rules", rules });
  for (const b of rm.bots) if (b.seat !== app.lobby.you.seat) send({ type: "add_bot", seat: b.seat, level: b.level });
}
