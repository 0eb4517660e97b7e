// The REST calls under /api (docs/protocol.md), each by its name, and the one request helper
// they share. The screens ask these; none of them builds an address or a request itself.

import { getToken } from "./net.js";

/** How often a running analysis is asked again (ms). */
const POLL_MS = 1000;

/** One REST call. Resolves to the JSON body; rejects with {code, message} (German). */
async function api(path, { method = "GET", body } = {}) {
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

const post = (path, body) => api(path, { method: "POST", body });
const match = (id) => `/matches/${encodeURIComponent(id)}`;

/** Sign in as a guest under `name`: resolves to {token, profile}. */
export const signInGuest = (name) => post("/guest", { name });

/** Sign in to an account: resolves to {token, profile}. */
export const logIn = (name, password) => post("/login", { name, password });

/** Make an account (from a guest too, keeping its profile): resolves to {token, profile}. */
export const makeAccount = (name, password) => post("/account", { name, password });

/** Sign out: the server drops the token. */
export const logOut = () => post("/logout");

/** The signed-in profile and its newest finished matches: {profile, recent, next}. */
export const me = () => api("/me");

/** The finished matches before the cursor `next` of an earlier page: {recent, next}. */
export const moreMatches = (next) => api(`/me?before=${encodeURIComponent(next)}`);

/** *Zuletzt gespielt mit*: {players: [{id, name, online, last_played}]}. */
export const recentPlayers = () => api("/me/players");

/** A new name for the signed-in profile: resolves to the profile. */
export const rename = (name) => post("/me/name", { name });

/** A profile's ratings, their history and statistics. */
export const profileRatings = (id) => api(`/profiles/${encodeURIComponent(id)}/ratings`);

/** A page of a pool's leaderboard (`after`: the cursor). */
export const leaderboard = (pool, after) => api(`/leaderboard/${encodeURIComponent(pool)}${after ? `?after=${encodeURIComponent(after)}` : ""}`);

/** A finished match move by move (every frame of every round, the score sheet). */
export const replay = (matchId) => api(`${match(matchId)}/replay`);

/**
 * Follow a match's analysis: `on({res})` hears every answer (`res.status === "running"` while
 * it is being computed, asked again every POLL_MS until it is done), `on({error})` a refusal.
 * Returns a function that stops following (an answer still on its way is then dropped).
 */
export function followAnalysis(matchId, on) {
  let stopped = false;
  let timer = null;
  const ask = async () => {
    let res;
    try {
      res = await api(`${match(matchId)}/analysis`);
    } catch (error) {
      if (!stopped) on({ error });
      return;
    }
    if (stopped) return;
    on({ res });
    if (!stopped && res && res.status === "running") timer = setTimeout(ask, POLL_MS);
  };
  ask();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// Puzzles (docs/puzzles.md).
const pz = (id) => `/puzzles/${encodeURIComponent(id)}`;
export const puzzleGet = (id) => api(pz(id));
export const puzzleAnswer = (id, move) => post(`${pz(id)}/answer`, { move });
