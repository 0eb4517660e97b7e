// *Schnelles Spiel*: the card on the start page and the home screen, and the page's own question
// before a quick game leaves a lobby still held.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { getToken } from "./net.js";
import { signInGuest } from "./api.js";
import { app, send, LEVELS, botLevel, setBotLevel } from "./state.js";
import { nameProblem, fieldError, signedIn } from "./account.js";
import { errorText } from "./frame.js";

/** *Schnelles Spiel*: one tap on the number of players starts a Klassisch match against bots.
 * Signed out, `guest` is the start page's sign-in form with the one name field (`nameIn`, a
 * friendly name proposed, editable here and later in the profile); `err` is their error line. */
export function quickCard({ guest = null, nameIn = null, err = h("p.error", { role: "alert", id: "quick-error" }) } = {}) {
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
      const res = await signInGuest(name);
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

/** Close the question, if it is open (true if it was). */
export function closeConfirm() {
  const el = document.querySelector(".overlay.confirm");
  if (!el) return false;
  el.remove();
  return true;
}
