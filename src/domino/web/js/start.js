// The start page of a visitor not signed in: a quick game under a proposed name, signing in
// as a guest, or with an account.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { tileSvg } from "./tiles.js";
import { signInGuest, logIn, makeAccount } from "./api.js";
import { app } from "./state.js";
import { nameProblem, passwordProblem, fieldError, signedIn } from "./account.js";
import { errorText } from "./frame.js";
import { quickCard } from "./quick.js";

function proposedName() {
  if (!app.guestName) {
    const names = t("quick.guest_names").split("|").filter(Boolean);
    app.guestName = names[Math.floor(Math.random() * names.length)] || "Gast";
  }
  return app.guestName;
}

/** "So geht's": offered until taken or declined once (lesson.js marks it seen), then a link. */
function lessonOffer() {
  let seen = true;
  try {
    seen = !!localStorage.getItem("domino.lesson");
  } catch {
    /* no storage: the link only */
  }
  const link = h("a.button.lesson-link", { href: "#/lesson", "data-testid": "lesson-link" }, t("lesson.title"));
  if (seen) return link;
  const offer = h("div.lesson-offer", { role: "note", "data-testid": "lesson-offer" }, h("p", {}, t("lesson.offer")), h("div.row", {}, h("a.button.primary", { href: "#/lesson" }, t("lesson.start")),
    h("button", { type: "button", onclick: () => { try { localStorage.setItem("domino.lesson", "1"); } catch { /* ignore */ } offer.replaceWith(link); } }, t("lesson.offer_no"))));
  return offer;
}

export function startScreen() {
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
          const res = await signInGuest(name);
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
  const account = async (register) => {
    const name = accName.value.trim();
    if (!fieldError(err, accName, nameProblem(name))) return;
    if (register && !fieldError(err, accPw, passwordProblem(accPw.value))) return;
    try {
      const res = await (register ? makeAccount : logIn)(accName.value.trim(), accPw.value);
      signedIn(res);
    } catch (e) {
      err.textContent = errorText(e);
    }
  };
  const acc = h(
    "form.card.account",
    { novalidate: true, onsubmit: (ev) => (ev.preventDefault(), account(false)) },
    h("label", { for: "acc-name" }, t("start.have_account")),
    accName,
    accPw,
    h("div.row", {}, h("button", { type: "submit" }, t("start.login")), h("button", { type: "button", onclick: () => account(true) }, t("start.register"))),
  );
  const hero = h(
    "div.hero",
    {},
    h("div.hero-tiles", { "aria-hidden": "true", html: [[6, 6], [6, 2], [2, 2], [2, 5]].map(([a, b]) => tileSvg(a, b, { upright: a !== b })).join("") }),
    h("h1", {}, t("ui.title")),
    h("p.tagline", {}, t("ui.tagline")),
    h("ul.facts", {}, h("li", {}, t("start.fact_players")), h("li", {}, t("start.fact_bots")), h("li", {}, t("start.fact_free"))),
    h("p.puzzle-link", {}, h("a.button", { href: "#/puzzles", "data-testid": "start-puzzles" }, t("start.puzzles")), " ", h("span.muted", {}, t("start.puzzles_hint"))),
    lessonOffer(),
  );
  // *Mit Menschen spielen*: signs in under the name above; the home screen shows the choice.
  const mm = h("section.card.mm", {}, h("h2", {}, t("mm.title")), h("p.muted", {}, t("mm.lead")),
    h("button.primary.big", { type: "button", "data-testid": "mm-start", onclick: () => ((app.mmFocus = performance.now()), guest.requestSubmit()) }, t("mm.go")));
  return h("main.screen.start", {}, hero, h("div.forms", {}, quickCard({ guest, nameIn, err: nameErr }), mm, acc, err), h("p.board-link", {}, h("a", { href: "#/rangliste/2" }, t("board.link"))));
}
