// Talking to the server: the sign-in token and the one WebSocket at /ws (docs/protocol.md);
// the REST calls under /api are api.js's.
// The socket reconnects by itself with a growing pause and says so (online/reconnecting), as
// lichess's socket does; the server answers every hello with the current lobby and snapshot,
// so a reconnect needs no bookkeeping here.
//
// A node that restarts (a deploy, docs/protocol.md) closes its sockets with 1012, and one that
// cannot serve a message (the match moved to another node, the node is draining) refuses it
// with `match_moved` or `node_draining`. None of that is the player's business: the socket
// reconnects at once and quietly (the balancer picks a node that serves), and a refused message
// goes out again once. Only if that quiet attempt fails too does the usual path take over.
//
// A node that cannot reach its database refuses the hello with `database_unavailable` and closes
// with 1013 (try again later): the connection bar says so, in the server's words, and the socket
// tries again with the usual growing pause until a node serves.

import { t } from "./i18n.js";

const TOKEN_KEY = "domino.token";
const CONNECTED_SHOWN_MS = 2500;
const RESTART = 1012; // WebSocket close code "service restart"
const TRY_AGAIN = 1013; // WebSocket close code "try again later": the server cannot serve now
// A hello refused with these says why the socket will close with TRY_AGAIN: the bar shows it.
const UNAVAILABLE = new Set(["database_unavailable"]);
// Errors that mean "another node serves this": reconnect and send the message again.
const ELSEWHERE = new Set(["match_moved", "node_draining"]);
// Messages the server may refuse that way, sent with a ref so the refusal names them.
const RETRIED = new Set(["create_lobby", "quick_game", "start", "move", "back", "leave_match"]);
const ASKED_MAX = 20;
const TRACE_MAX = 100;

export function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* private mode: the token lives only as long as the page */
  }
}

/**
 * The live connection. `onMessage(msg)` gets every server message; `onStatus(status)` gets
 * "connecting" | "online" | "reconnecting" | "closed".
 */
export class Live {
  constructor(onMessage, onStatus) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.queue = [];
    this.retry = 0;
    this.stopped = true;
    this.timer = null; // the pending reconnect after a pause (set while the socket waits)
    this.ready = false;
    this.quiet = false; // a reconnect the player need not see is under way
    this.refusal = null; // why the server refused the last hello (its German message)
    this.refs = 0;
    this.asked = new Map(); // ref -> {msg, again}: messages a node might refuse (RETRIED)
    // What the connection did, newest last (the browser tests read it, as window.__dominoNet).
    this.log = [];
    window.__dominoNet = this.log;
  }

  trace(what) {
    this.log.push(`${Math.round(performance.now())} ${what}`);
    if (this.log.length > TRACE_MAX) this.log.splice(0, this.log.length - TRACE_MAX);
  }

  start() {
    this.stopped = false;
    if (!this.ws) this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.ready = false;
    this.onStatus("closed");
  }

  open() {
    // One socket at a time: a reconnect still waiting for its pause is this one.
    clearTimeout(this.timer);
    this.timer = null;
    const token = getToken();
    if (!token) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    this.ready = false;
    this.onStatus(this.retry && !this.quiet ? "reconnecting" : "connecting", this.refusal);
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token, protocol: 1 }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "error" && this.elsewhere(msg)) return;
      if (msg.type === "error" && !this.ready && UNAVAILABLE.has(msg.code)) {
        // The hello is refused for now; the close (1013) follows and the bar shows this.
        this.refusal = msg.message || t("error.generic");
        this.trace(`hello refused: ${msg.code}`);
        return;
      }
      if (msg.type === "welcome") {
        this.trace(`welcome${this.quiet ? " (quiet reconnect)" : ""}`);
        this.retry = 0;
        this.quiet = false;
        this.refusal = null;
        this.ready = true;
        this.onStatus("online");
        const pending = this.queue.splice(0);
        for (const m of pending) ws.send(JSON.stringify(m));
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      if (this.stopped) return;
      if (ev.code === 1008 && this.retry > 3) {
        // Refused again and again (bad token): stop hammering the server.
        this.trace(`close ${ev.code}: given up`);
        this.onStatus("closed");
        return;
      }
      if (ev.code === RESTART && !this.quiet) {
        // The node restarts: another one serves at once. One quiet attempt, no pause.
        this.trace(`close ${ev.code}: reconnect in 0 ms (quiet)`);
        this.quiet = true;
        this.open();
        return;
      }
      this.quiet = false;
      if (ev.code !== TRY_AGAIN) this.refusal = null;
      this.onStatus("reconnecting", this.refusal);
      const pause = Math.min(8000, 300 * 2 ** this.retry);
      this.trace(`close ${ev.code}: reconnect in ${pause} ms`);
      this.retry += 1;
      this.timer = setTimeout(() => {
        this.timer = null;
        this.open();
      }, pause);
    };
  }

  /**
   * A message this node cannot serve (ELSEWHERE): reconnect at once and quietly, and send the
   * refused message again once signed in. True if handled here; a message refused so a second
   * time, or a refusal no message of ours is known for, goes to the app like any error.
   */
  elsewhere(msg) {
    if (!ELSEWHERE.has(msg.code) || this.stopped) return false;
    const asked = msg.ref ? this.asked.get(msg.ref) : undefined;
    if (!asked || asked.again) return false;
    asked.again = true;
    this.queue.push(asked.msg);
    this.trace(`${msg.code} for ${asked.msg.type}: reconnect in 0 ms (quiet)`);
    const ws = this.ws;
    this.ws = null;
    this.ready = false;
    this.quiet = true;
    if (ws) {
      ws.onclose = null;
      ws.close(1000);
    }
    this.open();
    return true;
  }

  /** Send a message now, or as soon as the socket is signed in again. */
  send(msg) {
    if (RETRIED.has(msg.type) && msg.ref === undefined) {
      this.refs += 1;
      msg = { ...msg, ref: `n${this.refs}` };
      this.asked.set(msg.ref, { msg, again: false });
      if (this.asked.size > ASKED_MAX) this.asked.delete(this.asked.keys().next().value);
    }
    if (this.ws && this.ready && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
    } else {
      this.queue.push(msg);
      // No socket and no reconnect waiting (not signed in yet, or given up): open one now.
      // During a reconnect's pause the message waits for it: opening here would skip the pause
      // and, with the pending reconnect, open a second socket.
      if (!this.stopped && !this.ws && !this.timer) this.open();
    }
  }
}

/**
 * The connection bar (#conn): red "Verbindung wird wiederhergestellt …" while a visible reconnect
 * runs, then green "Verbunden" for a moment when it succeeds. A quiet reconnect (a node restart,
 * see above) shows nothing, so nothing is confirmed either.
 */
export class ConnectionBar {
  constructor(el) {
    this.el = el;
    this.lost = false;
    this.timer = null;
  }

  /** `detail`: why the server cannot serve now (its German message), shown instead of the
   * usual text while the socket keeps trying (short enough for a phone's bar). */
  show(status, detail = null) {
    const el = this.el;
    clearTimeout(this.timer);
    if (status === "reconnecting") {
      this.lost = true;
      el.classList.remove("ok");
      el.textContent = detail || t("ui.reconnecting");
      el.hidden = false;
    } else if (status === "online" && this.lost) {
      this.lost = false;
      el.classList.add("ok");
      el.textContent = t("ui.connected");
      el.hidden = false;
      this.timer = setTimeout(() => {
        el.hidden = true;
        el.classList.remove("ok");
      }, CONNECTED_SHOWN_MS);
    } else if (status === "connecting" && this.lost && detail) {
      el.textContent = detail;
    } else if (status !== "connecting" || !this.lost) {
      // "connecting" during a visible reconnect keeps the red bar; anything else hides it.
      el.hidden = true;
      el.classList.remove("ok");
      if (status === "closed") this.lost = false;
    }
    return this.lost;
  }
}
