// The application: routes (hash based), the live connection, and the screens around the table.

import { h, clear, refocus } from "./dom.js";
import { t, loadCatalogue, lang, sentence } from "./i18n.js";
import { api, getToken, setToken, Live, ConnectionBar } from "./net.js";
import { bindKeys, startGamepad } from "./input.js";
import { lobbyScreen } from "./lobby.js";
import { helpOverlay } from "./help.js";
import { tileSvg } from "./tiles.js";

const app = {
  root: document.getElementById("app"),
  profile: null,
  recent: [],
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
};

// The limits the server checks too (Settings.name_max, password_min): the forms say them first,
// in the app's own words (the browser's validation bubble speaks the browser's language).
const NAME_MAX = 24;
const PASSWORD_MIN = 8;
const LEVELS = ["anfaenger", "fortgeschritten", "profi", "meister"];

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

function setBotLevel(level) {
  try {
    localStorage.setItem("domino.botLevel", level);
  } catch {
    /* ignore */
  }
}

/** A catalogue text for a bad name, or null when the name is fine. */
function nameProblem(name) {
  if (!name) return t("name_empty");
  if (name.length > NAME_MAX) return t("name_too_long", { limit: NAME_MAX });
  return null;
}

/** Show `text` in the form's error line and mark `field` (null text: clear both). */
function fieldError(err, field, text) {
  err.textContent = text || "";
  if (field) {
    if (text) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
    if (text) field.focus();
  }
  return !text;
}

const live = new Live(onMessage, onStatus);
const connBar = new ConnectionBar(document.getElementById("conn"));

// ---- helpers ----------------------------------------------------------------------------------

const announcer = document.getElementById("announcer");
let speech = [];
let speechTimer = null;
export function announce(text) {
  // Sentences of one moment are read together; clearing first makes screen readers repeat an
  // identical sentence.
  speech.push(sentence(text));
  clearTimeout(speechTimer);
  announcer.textContent = "";
  speechTimer = setTimeout(() => {
    announcer.textContent = speech.join(" ");
    speech = [];
  }, 50);
}

const toastEl = document.getElementById("toast");
let toastTimer = null;
export function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (toastEl.hidden = true), 4000);
  announce(text);
}

function errorText(err) {
  return err?.message || t(err?.code === "offline" ? "ui.offline" : "error.generic");
}

/** Pages a lobby member may look at without being sent back to the lobby. */
const OWN_PAGES = ["replay", "profile"];

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  return { name: parts[0] || "home", arg: parts[1] ? decodeURIComponent(parts[1]) : null, rest: parts.slice(2) };
}

function go(hash) {
  if (location.hash !== hash) location.hash = hash;
  else render();
}

export function send(msg) {
  live.send(msg);
}

// ---- the live connection ----------------------------------------------------------------------

function onStatus(status, detail) {
  app.status = status;
  // The red bar while reconnecting (with the server's reason when it refused us, e.g. its
  // database is away), "Verbunden" once back (net.js ConnectionBar).
  document.body.classList.toggle("offline", connBar.show(status, detail));
}

function onMessage(msg) {
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
      if (route().name === "home") updateLists();
      break;
    case "match_started":
      app.leftNotice = false;
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
      // A replay on screen stays there (the match's last snapshots may still come).
      if (route().name === "replay") break;
      if (route().name !== "match") go(`#/match/${encodeURIComponent(app.matchId)}`);
      else if (!app.table) render();
      else app.table.update(msg);
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
    case "error":
      if (app.table) app.table.pending = false;
      if (["match_not_found", "match_over"].includes(msg.code) && route().name === "match" && !app.lastState) {
        // An old match link: nothing to show here any more.
        app.matchId = null;
        go("#/");
      }
      if (msg.code === "bad_token") {
        setToken(null);
        live.stop();
        app.profile = null;
        go("#/");
      }
      toast(msg.message || t("error.generic"));
      break;
    default:
      break;
  }
}

// ---- screens ----------------------------------------------------------------------------------

function header() {
  const p = app.profile;
  return h(
    "header.app-head",
    {},
    h("a.brand", { href: "#/" }, h("span.brand-tile", { html: tileSvg(6, 6, { upright: false }) }), t("ui.title")),
    h("span.spacer"),
    p ? h("a.me-chip", { href: "#/profile" }, h("span", {}, p.name), h("span.lvl", {}, t("profile.level", { level: p.level }))) : null,
    h("button.link", { type: "button", onclick: switchLang, lang: lang() === "de" ? "en" : "de" }, t("ui.lang_switch")),
    h("button.icon-btn", { type: "button", onclick: openHelp, "aria-label": t("ui.help") }, "?"),
  );
}

function proposedName() {
  if (!app.guestName) {
    const names = t("quick.guest_names").split("|").filter(Boolean);
    app.guestName = names[Math.floor(Math.random() * names.length)] || "Gast";
  }
  return app.guestName;
}

/** *Schnelles Spiel*: one tap on the number of players starts a Klassisch match against bots.
 * Signed out, `guest` is the start page's sign-in form with the one name field (`nameIn`, a
 * friendly name proposed, editable here and later in the profile); `err` is their error line. */
function quickCard({ guest = null, nameIn = null, err = h("p.error", { role: "alert", id: "quick-error" }) } = {}) {
  const signed = !!getToken();
  const level = h("select", { id: "quick-level", dataset: { focusKey: "quick-level" }, onchange: () => setBotLevel(level.value) },
    LEVELS.map((l) => h("option", { value: l, selected: l === botLevel() }, t(`level.${l}`))));
  const go = async (seats) => {
    const msg = { type: "quick_game", seats, level: level.value };
    if (signed || !nameIn) {
      // A new game is a new lobby: a lobby still held (one waiting, a match left) is left only
      // once the player says so; the server leaves it then (`leave`) and answers `lobby_left`.
      const held = app.lobby?.lobby?.code;
      const play = (leave) => {
        app.leftNotice = false;
        send(leave ? { ...msg, leave: true } : msg);
      };
      if (held) return confirmLeaveForQuick(held, () => play(true));
      return play(false);
    }
    const name = nameIn.value.trim();
    if (!fieldError(err, nameIn, nameProblem(name))) return;
    try {
      const res = await api("/guest", { method: "POST", body: { name } });
      signedIn(res);
      send(msg); // queued until the socket is signed in
    } catch (e) {
      fieldError(err, nameIn, errorText(e));
    }
  };
  return h(
    "section.card.quick",
    { "data-testid": "quick" },
    h("h2", {}, t("quick.title")),
    h("p.muted", {}, t("quick.lead")),
    signed ? null : guest,
    h("div.quick-go", {}, [2, 3, 4].map((n) =>
      h("button.primary.big", { type: "button", "data-testid": `quick-${n}`, dataset: { focusKey: `quick-${n}` }, onclick: () => go(n) }, t("quick.players", { n })))),
    h("div.row.quick-level", {}, h("label", { for: "quick-level" }, t("quick.level")), level),
    err,
  );
}

/** The page's own question before a quick game leaves the lobby `code` (no window.confirm). */
function confirmLeaveForQuick(code, play) {
  closeConfirm();
  const el = h(
    "div.overlay.confirm",
    { role: "dialog", "aria-modal": "true", "aria-labelledby": "confirm-text", "data-testid": "quick-confirm", onclick: (ev) => ev.target === ev.currentTarget && closeConfirm() },
    h(
      "div.panel",
      {},
      h("p", { id: "confirm-text" }, t("quick.leave_lobby", { code })),
      h("div.row.confirm-actions", {},
        h("button", { type: "button", onclick: closeConfirm }, t("ui.cancel")),
        h("button.primary", { type: "button", onclick: () => (closeConfirm(), play()) }, t("quick.leave_and_play"))),
    ),
  );
  document.body.append(el);
  el.querySelector("button")?.focus(); // Abbrechen: leaving stays a choice
}

function closeConfirm() {
  const el = document.querySelector(".overlay.confirm");
  if (!el) return false;
  el.remove();
  return true;
}

/** Escape and the controller's back button: the question first, then the help. */
function closeOverlay() {
  return closeConfirm() || closeHelp();
}

function startScreen() {
  const err = h("p.error", { role: "alert" });
  // One name field for both ways in (a quick game, or signing in as a guest first).
  const nameErr = h("p.error", { role: "alert", id: "quick-error" });
  const nameIn = h("input", { id: "guest-name", name: "name", autocomplete: "nickname", value: proposedName(), "aria-describedby": "quick-name-hint quick-error", oninput: () => (app.guestName = nameIn.value) });
  const guest = h(
    "form.guest.quick-name",
    {
      novalidate: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        const name = nameIn.value.trim();
        if (!fieldError(nameErr, nameIn, nameProblem(name))) return;
        try {
          const res = await api("/guest", { method: "POST", body: { name } });
          signedIn(res);
        } catch (e) {
          fieldError(nameErr, nameIn, errorText(e));
        }
      },
    },
    h("label", { for: "guest-name" }, t("start.name")),
    h("div.row", {}, nameIn, h("button", { type: "submit" }, t("start.guest"))),
    h("p.muted.hint", { id: "quick-name-hint" }, t("quick.name_hint")),
  );
  const accName = h("input", { id: "acc-name", autocomplete: "username", placeholder: t("start.account_name"), "aria-label": t("start.account_name") });
  const accPw = h("input", { id: "acc-pw", type: "password", autocomplete: "current-password", placeholder: t("start.password") });
  const account = async (path) => {
    const name = accName.value.trim();
    if (!fieldError(err, accName, nameProblem(name))) return;
    if (path === "/account" && !fieldError(err, accPw, accPw.value.length < PASSWORD_MIN ? t("password_too_short", { limit: PASSWORD_MIN }) : null)) return;
    try {
      const res = await api(path, { method: "POST", body: { name: accName.value.trim(), password: accPw.value } });
      signedIn(res);
    } catch (e) {
      err.textContent = errorText(e);
    }
  };
  const acc = h(
    "form.card.account",
    { novalidate: true, onsubmit: (ev) => (ev.preventDefault(), account("/login")) },
    h("label", { for: "acc-name" }, t("start.have_account")),
    accName,
    accPw,
    h("div.row", {}, h("button", { type: "submit" }, t("start.login")), h("button", { type: "button", onclick: () => account("/account") }, t("start.register"))),
  );
  const hero = h(
    "div.hero",
    {},
    h("div.hero-tiles", { "aria-hidden": "true", html: [[6, 6], [6, 2], [2, 2], [2, 5]].map(([a, b]) => tileSvg(a, b, { upright: a !== b })).join("") }),
    h("h1", {}, t("ui.title")),
    h("p.tagline", {}, t("ui.tagline")),
    h("ul.facts", {}, h("li", {}, t("start.fact_players")), h("li", {}, t("start.fact_bots")), h("li", {}, t("start.fact_free"))),
  );
  return h("main.screen.start", {}, hero, h("div.forms", {}, quickCard({ guest, nameIn, err: nameErr }), acc, err));
}

function updateLists() {
  // Only the two lists change: the rest of the screen (and the keyboard focus) stays.
  const [openUl, runUl] = listItems();
  document.getElementById("open-list")?.replaceChildren(...openUl);
  document.getElementById("running-list")?.replaceChildren(...runUl);
}

function listItems() {
  const openList = app.list.open.length
    ? app.list.open.map((l) =>
        h("li", {}, h("span.l-name", {}, `${l.host} · ${t(`mode.${l.rules?.mode || "klassisch"}`)}`), h("span.muted", {}, t("home.players", { n: l.taken, seats: l.seats })),
          h("button", { type: "button", onclick: () => send({ type: "join_lobby", code: l.code }) }, t("home.join")),
          h("button", { type: "button", onclick: () => send({ type: "join_lobby", code: l.code, watch: true }) }, t("lobby.watch"))))
    : [h("li.muted", {}, t("home.none_open"))];
  const running = app.list.running.length
    ? app.list.running.map((m) =>
        h("li", {}, h("span.l-name", {}, (m.players || []).join(" · ")), h("span.muted", {}, t(`mode.${m.rules?.mode || "klassisch"}`)),
          h("button", { type: "button", dataset: { match: m.match }, onclick: () => watch(m.match) }, t("lobby.watch"))))
    : [h("li.muted", {}, t("home.none_running"))];
  return [openList, running];
}

function homeScreen() {
  const p = app.profile;
  const seatsSel = h("select", { id: "new-seats", "aria-label": t("lobby.seat_count") }, [2, 3, 4].map((n) => h("option", { value: String(n), selected: n === app.newSeats }, String(n))));
  // A re-render (the welcome after signing in) must not undo the player's choice.
  seatsSel.addEventListener("change", () => (app.newSeats = Number(seatsSel.value)));
  const codeIn = h("input", { id: "join-code", placeholder: t("home.code"), autocomplete: "off", "aria-label": t("home.code"), "aria-describedby": "join-error" });
  const codeErr = h("p.error", { role: "alert", id: "join-error" });
  const [openList, running] = listItems();
  return h(
    "main.screen.home",
    {},
    app.leftNotice ? leftNotice() : null,
    quickCard(),
    h(
      "section.card.welcome",
      {},
      h("h1", {}, t("home.hello", { name: p?.name ?? "" })),
      app.lobby ? h("p", {}, h("a.button.primary", { href: `#/lobby/${app.lobby.lobby.code}` }, t("home.back_to_lobby", { code: app.lobby.lobby.code }))) : null,
      h("div.row", {}, h("label", { for: "new-seats" }, t("lobby.seat_count")), seatsSel,
        h("button.primary", { type: "button", "data-testid": "create-lobby", dataset: { focusKey: "create" }, onclick: () => send({ type: "create_lobby", seats: Number(seatsSel.value) }) }, t("home.create"))),
      h("form.row", { novalidate: true, onsubmit: (ev) => {
        ev.preventDefault();
        const c = codeIn.value.trim().toUpperCase();
        if (fieldError(codeErr, codeIn, c ? null : t("code_empty"))) send({ type: "join_lobby", code: c });
      } },
        codeIn, h("button", { type: "submit" }, t("home.join"))),
      codeErr,
    ),
    h("section.card", {}, h("h2", {}, t("home.open_lobbies")), h("ul.list", { id: "open-list" }, openList)),
    h("section.card", {}, h("h2", {}, t("home.running")), h("ul.list", { id: "running-list" }, running)),
  );
}

/** After *Spiel verlassen*: what happened, and the way on (a new game, the start page). */
function leftNotice() {
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

function watch(matchId) {
  app.matchId = matchId;
  app.lastState = null;
  send({ type: "watch", match: matchId });
  go(`#/match/${encodeURIComponent(matchId)}`);
}

async function profileScreen() {
  const main = h("main.screen.profile", {}, h("p", {}, t("ui.loading")));
  try {
    const res = await api("/me");
    app.profile = res.profile;
    app.recent = res.recent || [];
    app.recentNext = res.next || null;
  } catch (e) {
    toast(errorText(e));
  }
  const p = app.profile || {};
  const frac = p.next_level_xp ? (p.xp - p.level_xp) / Math.max(1, p.next_level_xp - p.level_xp) : 0;
  const pw = h("input", { id: "account-pw", type: "password", autocomplete: "new-password", placeholder: t("start.password"), "aria-label": t("start.password") });
  const pwErr = h("p.error", { role: "alert" });
  const nameIn = h("input", { id: "rename", value: p.name || "", autocomplete: "nickname", "aria-label": t("start.name"), "aria-describedby": "rename-error" });
  const nameErr = h("p.error", { role: "alert", id: "rename-error" });
  const rename = async (ev) => {
    ev.preventDefault();
    const name = nameIn.value.trim();
    if (!fieldError(nameErr, nameIn, nameProblem(name))) return;
    try {
      app.profile = await api("/me/name", { method: "POST", body: { name } });
      toast(t("profile.renamed", { new_name: app.profile.name }));
      render();
    } catch (e) {
      fieldError(nameErr, nameIn, errorText(e));
    }
  };
  clear(main).append(
    h(
      "section.card",
      {},
      h("h1", {}, p.name || ""),
      h("form.row.rename", { novalidate: true, onsubmit: rename }, nameIn, h("button", { type: "submit", "data-testid": "rename" }, t("profile.rename"))),
      nameErr,
      h("p.muted", {}, p.kind === "guest" ? t("profile.guest") : ""),
      h("div.level", {}, h("div.level-head", {}, h("strong", {}, t("profile.level", { level: p.level })), h("span", {}, t("profile.xp", { xp: p.xp }))),
        h("div.progress", { role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100", "aria-valuenow": String(Math.round(frac * 100)) }, h("span", { style: { width: `${frac * 100}%` } })),
        h("p.muted", {}, t("profile.next_level", { xp: (p.next_level_xp || 0) - (p.xp || 0), level: (p.level || 1) + 1 }))),
      h("dl.stats", {}, h("dt", {}, t("profile.played")), h("dd", {}, String(p.played ?? 0)), h("dt", {}, t("profile.won")), h("dd", {}, String(p.won ?? 0))),
      p.kind === "guest"
        ? h("form.row", { novalidate: true, onsubmit: async (ev) => { ev.preventDefault(); if (!fieldError(pwErr, pw, pw.value.length < PASSWORD_MIN ? t("password_too_short", { limit: PASSWORD_MIN }) : null)) return; try { const r = await api("/account", { method: "POST", body: { name: p.name, password: pw.value } }); signedIn(r); toast(t("profile.account_made")); } catch (e) { fieldError(pwErr, pw, errorText(e)); } } },
            pw, h("button", { type: "submit" }, t("profile.make_account")))
        : null,
      p.kind === "guest" ? pwErr : null,
      h("div.row", {}, h("a.button", { href: "#/" }, t("ui.back")), h("button", { type: "button", onclick: logout }, t("start.logout"))),
    ),
    recentCard(),
  );
  return main;
}

/** One finished match in the profile's list: who played, the place, its replay and record. */
function recentItem(r) {
  const id = encodeURIComponent(r.match);
  const when = r.finished_at ? new Date(r.finished_at * 1000).toLocaleDateString(lang(), { day: "numeric", month: "short", year: "numeric" }) : "";
  const about = [(r.players || []).join(" · "), when].filter(Boolean).join(", ");
  return h(
    "li.recent",
    { dataset: { match: r.match } },
    h("span.l-name", {}, (r.players || []).join(" · ")),
    h("span", {}, t("profile.place", { place: r.place })),
    h("span.muted", {}, [when, t("match.xp", { n: r.xp })].filter(Boolean).join(" · ")),
    h("span.recent-actions", {},
      // Many links read alike: a screen reader hears which match each one is.
      h("a.button.replay-link", { href: `#/replay/${id}`, "aria-label": `${t("match.record")}: ${about}` }, t("match.record")),
      h("a.button.download-link", { href: `/api/matches/${id}/record`, download: `domino-${r.match}.json`, "aria-label": `${t("replay.download_short")}: ${about}` }, t("replay.download_short"))),
  );
}

/** The matches newest first, a page at a time ("Weitere laden" asks for the next page). */
function recentCard() {
  const list = h("ul.list.recent-list", { "data-testid": "recent-list" }, app.recent.length ? app.recent.map(recentItem) : [h("li.muted", {}, t("profile.none"))]);
  const more = h("button.more", { type: "button", "data-testid": "more-matches", hidden: !app.recentNext });
  more.textContent = t("profile.more");
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const res = await api(`/me?before=${encodeURIComponent(app.recentNext)}`);
      const page = res.recent || [];
      app.recent.push(...page);
      app.recentNext = res.next || null;
      list.append(...page.map(recentItem));
      // The keyboard goes on at the first new match.
      list.querySelector(`li[data-match="${CSS.escape(page[0]?.match ?? "")}"] a`)?.focus();
    } catch (e) {
      toast(errorText(e));
    }
    more.disabled = false;
    more.hidden = !app.recentNext;
  });
  return h("section.card", {}, h("h2", {}, t("profile.recent")), list, h("div.row.more-row", {}, more));
}

async function logout() {
  try {
    await api("/logout", { method: "POST" });
  } catch {
    /* the token is dropped here anyway */
  }
  setToken(null);
  live.stop();
  app.profile = null;
  go("#/");
}

function signedIn(res) {
  setToken(res.token);
  app.profile = res.profile;
  live.stop();
  live.start();
  const r = route();
  if (r.name === "lobby" && r.arg) render();
  else go("#/");
}

// ---- help and language ------------------------------------------------------------------------

function openHelp() {
  closeHelp();
  const el = helpOverlay(closeHelp);
  document.body.append(el);
  el.querySelector("button")?.focus();
}

function closeHelp() {
  const el = document.querySelector(".overlay.help");
  if (!el) return false;
  el.remove();
  return true;
}

async function switchLang() {
  const next = lang() === "de" ? "en" : "de";
  try {
    localStorage.setItem("domino.lang", next);
  } catch {
    /* ignore */
  }
  await loadCatalogue(next);
  app.table = null;
  app.replay?.destroy();
  app.replay = null;
  render();
}

function leaveTable() {
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

// ---- rematch ("Nochmal") ----------------------------------------------------------------------

function again(state) {
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

function maybeRematch() {
  const rm = app.rematch;
  if (!rm || !app.lobby?.you?.host) return;
  app.rematch = null;
  const { target_points: _drop, ...rules } = rm.rules || {};
  send({ type: "set_rules", rules });
  for (const b of rm.bots) if (b.seat !== app.lobby.you.seat) send({ type: "add_bot", seat: b.seat, level: b.level });
}

// ---- render -----------------------------------------------------------------------------------

let replayModule = null;
function loadReplay() {
  // The viewer is code for few visits: never among the first visit's preloads.
  replayModule ??= import("./replay.js").catch((err) => {
    replayModule = null;
    throw err;
  });
  return replayModule;
}

/** The replay viewer (#/replay/ID/ROUND/MOVE): for anyone, signed in or not. */
async function renderReplay(r) {
  const [round, move] = r.rest.map((x) => Number.parseInt(x, 10));
  if (app.replay && app.replay.matchId === r.arg) {
    // The address was edited by hand: go there in the open viewer.
    if (app.replay.data) app.replay.goto(round, move);
    return;
  }
  app.replay?.destroy();
  app.replay = null;
  let mod;
  try {
    mod = await loadReplay();
  } catch (e) {
    toast(errorText(e));
    return;
  }
  if (app.replay || route().name !== "replay" || route().arg !== r.arg) return; // another render came first
  const host = h("main.screen.replay", { "data-testid": "replay" });
  clear(app.root).append(header(), host);
  // A new page starts at its head, not where the page before it (the profile's list) was read.
  window.scrollTo(0, 0);
  app.replay = new mod.ReplayView(host, { matchId: r.arg, round, move, hooks: { toast }, profileId: app.profile?.id ?? null });
}

let tableModule = null;
function loadTable() {
  tableModule ??= import("./table.js").catch((err) => {
    tableModule = null; // offline for a moment: the next render tries again
    throw err;
  });
  return tableModule;
}

async function render() {
  const r = route();
  clearInterval(app.listTimer);
  if (r.name !== "home") closeConfirm(); // the question belongs to the start page
  if (r.name !== "match" && app.table) {
    app.table.destroy();
    app.table = null;
  }
  if (r.name !== "replay" && app.replay) {
    app.replay.destroy();
    app.replay = null;
  }
  if (r.name === "match" && r.arg && r.rest.length) {
    // A link to a move of a match (#/match/ID/ROUND/MOVE) is the replay's, open to anyone.
    location.replace(`#/replay/${encodeURIComponent(r.arg)}/${r.rest.join("/")}`);
    return;
  }
  if (r.name === "replay" && r.arg) {
    await renderReplay(r);
    return;
  }
  if (!getToken()) {
    clear(app.root).append(header(), startScreen());
    return;
  }
  // The table's code (table, board, drag, results ...) is not needed before one plays: it is
  // loaded once signed in, while the start page already shows (server/transport/assets.py keeps it out of
  // the first visit's preloads).
  const tableCode = loadTable();
  if (r.name === "match") {
    if (!app.table) {
      const { TableView } = await tableCode;
      if (app.table || route().name !== "match") return; // another render came first
      const host = h("main.screen.table-screen");
      clear(app.root).append(host);
      app.table = new TableView(host, { send, announce, toast, help: openHelp, again, home: leaveTable, left: (id) => ((app.leftMatch = id), (app.leftNotice = true)) });
      if (app.profile) app.table.setProfile(app.profile);
    }
    if (app.lastState) app.table.update(app.lastState);
    return;
  }
  let screen;
  if (r.name === "lobby") {
    if (!app.lobby || app.lobby.lobby.code !== r.arg) {
      screen = h("main.screen", {}, h("p", {}, t("ui.loading")));
      if (live.ready && app.joining !== r.arg) {
        app.joining = r.arg;
        if (app.lobby) send({ type: "leave_lobby" });
        send({ type: "join_lobby", code: r.arg });
      }
    } else screen = lobbyScreen(app.lobby, { send, toast, home: () => { app.leftNotice = false; send({ type: "leave_lobby" }); go("#/"); }, level: botLevel(), notice: app.leftNotice ? leftNotice() : null });
  } else if (r.name === "profile") {
    screen = await profileScreen();
  } else {
    screen = homeScreen();
    // The list is asked for on entering the screen and then every few seconds; its answer
    // re-renders without asking again (a request per render would loop).
    send({ type: "list_lobbies" });
    app.listTimer = setInterval(() => send({ type: "list_lobbies" }), 5000);
  }
  // Re-rendering replaces the elements: put the keyboard focus back where it was.
  const active = document.activeElement;
  const focusKey = active?.dataset?.focusKey;
  const focusId = active?.id;
  clear(app.root).append(header(), screen);
  if (focusKey) refocus(app.root, focusKey);
  else if (focusId) document.getElementById(focusId)?.focus();
}

// ---- start ------------------------------------------------------------------------------------

async function main() {
  let wanted = "de";
  try {
    wanted = localStorage.getItem("domino.lang") || "de";
  } catch {
    /* ignore */
  }
  await loadCatalogue(wanted);
  window.addEventListener("hashchange", () => render());
  bindKeys(() => app.table, closeOverlay);
  startGamepad(() => app.table, closeOverlay, () => app.replay);
  if (getToken()) live.start();
  render();
  document.body.classList.add("ready");
}

main();
