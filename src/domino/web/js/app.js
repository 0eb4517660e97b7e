// The application's entry: which screen each route shows, and the start. The state and the
// message handler (state.js, messages.js), the screens (start, home, lobby, profile, table,
// replay) and the REST calls (api.js) are modules of their own; the screens after signing in
// are loaded then (screens.js), the table's and the replay's when first shown.

import { h, clear, refocus } from "./dom.js";
import { t, loadCatalogue } from "./i18n.js";
import { getToken } from "./net.js";
import { bindKeys, startGamepad } from "./input.js";
import { app, live, listen, send, botLevel } from "./state.js";
import { route, go, setRenderer } from "./router.js";
import { onMessage, onStatus } from "./messages.js";
import { header, announce, toast, errorText, openHelp, closeHelp } from "./frame.js";
import { startScreen } from "./start.js";
import { closeConfirm } from "./quick.js";
import { loadScreens } from "./screens.js";

/** Escape and the controller's back button: the question first, then the help. */
function closeOverlay() {
  return closeConfirm() || closeHelp();
}

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

/** Puzzles (#/puzzles..., #/puzzle/ID): for anyone, loaded on demand. */
async function renderPuzzles(r) {
  app.puzzles?.destroy();
  let mod;
  try {
    mod = await import("./puzzles.js");
  } catch (e) {
    return toast(errorText(e));
  }
  if (route().name !== r.name) return; // another render came first
  const host = h("main.screen.puzzles", { "data-testid": "puzzles" });
  clear(app.root).append(header(), host);
  app.puzzles = new mod.PuzzleView(host, r, { toast, errorText });
}

let lessonModule = null;
/** "So geht's" and the Tipps (#/lesson, #/lesson/tips): for anyone, loaded when first shown. */
async function renderLesson(r) {
  lessonModule ??= import("./lesson.js").catch((err) => ((lessonModule = null), Promise.reject(err)));
  const mod = await lessonModule.catch((e) => toast(errorText(e)));
  const kind = r.arg === "tips" ? "tips" : "first";
  if (!mod || route().name !== "lesson" || (app.lesson && app.lessonKind === kind)) return;
  app.lesson?.destroy();
  app.lessonKind = kind;
  const host = h("main.screen.lesson", { "data-testid": r.arg === "tips" ? "tips" : "lesson" });
  clear(app.root).append(header(), host);
  const View = r.arg === "tips" ? mod.TipsView : mod.LessonView;
  app.lesson = new View(host, { home: () => go("#/") });
}

let tableModule = null;
function loadTable() {
  tableModule ??= import("./table.js").catch((err) => {
    tableModule = null; // offline for a moment: the next render tries again
    throw err;
  });
  return tableModule;
}

let renders = 0; // the newest render's number: one that waited for code and is older stops

async function render() {
  const r = route();
  const nr = ++renders;
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
  if (r.name !== "lesson" && app.lesson) {
    app.lesson.destroy();
    app.lesson = null;
  }
  if (r.name === "lesson") {
    await renderLesson(r);
    return;
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
  if (r.name === "puzzles" || r.name === "puzzle") {
    await renderPuzzles(r);
    return;
  }
  app.puzzles?.destroy();
  app.puzzles = null;
  if (r.name === "rangliste") {
    // Open to anyone (leaderboard.js).
    const { leaderboardScreen } = await import("./leaderboard.js");
    const screen = await leaderboardScreen(r.arg, app.profile?.id);
    if (nr === renders) clear(app.root).append(header(), screen);
    return;
  }
  if (!getToken()) {
    clear(app.root).append(header(), startScreen());
    return;
  }
  // The table's code (table, board, drag, results ...) is not needed before one plays, nor are
  // the other screens of a signed-in player: they are loaded once signed in
  // (server/transport/assets.py keeps them out of the first visit's preloads).
  const tableCode = loadTable();
  const { homeScreen, lobbyScreen, profileScreen, again, leaveTable, leftNotice } = await loadScreens();
  if (nr !== renders) return; // another render came meanwhile
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
    followTalk();
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
    if (nr !== renders) return; // its answer came late: a newer screen is shown
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
  // A new screen starts at its top (a tall home screen scrolled to its buttons before).
  if (`${r.name}/${r.arg}` !== shownRoute) window.scrollTo(0, 0);
  shownRoute = `${r.name}/${r.arg}`;
  if (focusKey) refocus(app.root, focusKey);
  else if (focusId) document.getElementById(focusId)?.focus();
  followTalk();
}

/** Table talk follows the screen (web/js/talk.js, loaded on demand). */
function followTalk() {
  import("./talk.js").then((m) => m.follow(route()));
}

let shownRoute = null; // the route the last screen drawn showed

// ---- start ------------------------------------------------------------------------------------

listen(onMessage, onStatus);
setRenderer(render);

async function main() {
  let wanted = "de";
  try {
    wanted = localStorage.getItem("domino.lang") || "de";
  } catch {
    /* ignore */
  }
  await loadCatalogue(wanted);
  window.addEventListener("hashchange", () => render());
  bindKeys(() => app.table || app.lesson, closeOverlay, () => app.replay);
  startGamepad(() => app.table || app.lesson, closeOverlay, () => app.replay);
  if (getToken()) live.start();
  render();
  document.body.classList.add("ready");
}

main();
