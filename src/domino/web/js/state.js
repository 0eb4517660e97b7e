// What the page knows between screens, and the live connection that keeps it current.
// One plain object: the message handler (messages.js) and the screens read and write it; nothing
// here draws. `send` goes through the one socket (net.js Live).

import { Live } from "./net.js";

export const app = {
  root: document.getElementById("app"),
  profile: null,
  recent: [], // the profile's finished matches shown so far, newest first
  recentNext: null, // the cursor of the next page of them (null: no more)
  lobby: null, // the newest {lobby, you}
  list: { open: [], running: [] },
  matchId: null,
  table: null, // TableView while a match is shown
  replay: null, // ReplayView while a finished match is replayed (#/replay/ID/ROUND/MOVE)
  lastState: null,
  status: "closed",
  rematch: null, // rules and bots to set up again after "Nochmal"
  listTimer: null,
  newSeats: 2, // the seat count chosen on the home screen
  leftMatch: null, // the match this player left for good
  joining: null, // the lobby code a join_lobby was sent for
  leftNotice: false, // say on the next screens that the player left a match, and offer the way on
  guestName: null, // the name proposed to a first-time visitor (kept across re-renders)
  queueWaiting: false, // this page waits in the matchmaking queue (queue.js)
};

let handlers = { message: () => {}, status: () => {} };

/** The live connection; its messages and status go to the handlers given to `listen`. */
export const live = new Live(
  (msg) => handlers.message(msg),
  (status, detail) => handlers.status(status, detail),
);

/** Where the connection's messages and status changes go (set once, at the start). */
export function listen(message, status) {
  handlers = { message, status };
}

export function send(msg) {
  live.send(msg);
}

export const LEVELS = ["anfaenger", "fortgeschritten", "profi", "meister"];

/** The bot level of *Schnelles Spiel* and *Mit Bots auffüllen*, remembered in this browser. */
export function botLevel() {
  try {
    const v = localStorage.getItem("domino.botLevel");
    if (LEVELS.includes(v)) return v;
  } catch {
    /* ignore */
  }
  return "fortgeschritten";
}

export function setBotLevel(level) {
  try {
    localStorage.setItem("domino.botLevel", level);
  } catch {
    /* ignore */
  }
}
