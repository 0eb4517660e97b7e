// The home screen of a signed-in player: a quick game, a new lobby or one joined by its code,
// the open lobbies and the running matches (asked for again every few seconds by app.js).

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { app, send } from "./state.js";
import { go } from "./router.js";
import { fieldError } from "./account.js";
import { quickCard } from "./quick.js";
import { leftNotice } from "./after.js";

export function updateLists() {
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

export function homeScreen() {
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
    mmCard(),
    h(
      "section.card.welcome",
      {},
      h("h1", {}, t("home.hello", { name: p?.name ?? "" })),
      h("p.row", {}, h("a.button", { href: "#/lesson", "data-testid": "home-lesson" }, t("lesson.title")), h("a.button", { href: "#/lesson/tips" }, t("lesson.tips_title"))),
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
      h("p.puzzle-link", {}, h("a.button", { href: "#/puzzles", "data-testid": "home-puzzles" }, t("start.puzzles")), " ", h("span.muted", {}, t("start.puzzles_hint"))),
    ),
    h("section.card", {}, h("h2", {}, t("home.open_lobbies")), h("ul.list", { id: "open-list" }, openList)),
    h("section.card", {}, h("h2", {}, t("home.running")), h("ul.list", { id: "running-list" }, running)),
    h("p.board-link", {}, h("a.button", { href: "#/rangliste/2", "data-testid": "board-link" }, t("board.link"))),
  );
}

/** *Mit Menschen spielen* (queue.js, loaded when the home screen shows). */
function mmCard() {
  const slot = h("div.mm-slot");
  import("./queue.js").then((m) => slot.isConnected && slot.replaceWith(m.queueCard()));
  return slot;
}

function watch(matchId) {
  app.matchId = matchId;
  app.lastState = null;
  send({ type: "watch", match: matchId });
  go(`#/match/${encodeURIComponent(matchId)}`);
}
