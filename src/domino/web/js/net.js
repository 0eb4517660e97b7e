// Talking to the server: REST under /api and the one WebSocket at /ws (docs/protocol.md).
// The socket reconnects by itself with a growing pause and says so (online/reconnecting), as
// lichess's socket does; the server answers every hello with the current lobby and snapshot,
// so a reconnect needs no bookkeeping here.

const TOKEN_KEY = "domino.token";

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

/** A REST call. Resolves to the JSON body; rejects with {code, message} (German). */
export async function api(path, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(`/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw { code: "offline", message: null };
  }
  if (res.status === 204) return null;
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw { code: err.code || `http_${res.status}`, message: err.message || null };
  }
  return data;
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
    this.timer = null;
    this.ready = false;
  }

  start() {
    this.stopped = false;
    if (!this.ws) this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000);
    this.ws = null;
    this.ready = false;
    this.onStatus("closed");
  }

  open() {
    const token = getToken();
    if (!token) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/ws`);
    this.ws = ws;
    this.ready = false;
    this.onStatus(this.retry ? "reconnecting" : "connecting");
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
      if (msg.type === "welcome") {
        this.retry = 0;
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
        this.onStatus("closed");
        return;
      }
      this.onStatus("reconnecting");
      const pause = Math.min(8000, 300 * 2 ** this.retry);
      this.retry += 1;
      this.timer = setTimeout(() => this.open(), pause);
    };
  }

  /** Send a message now, or as soon as the socket is signed in again. */
  send(msg) {
    if (this.ws && this.ready && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
    } else {
      this.queue.push(msg);
      if (!this.stopped && !this.ws) this.open();
    }
  }
}
