// What surrounds every screen: the header (brand, own profile, language, help), the help
// overlay, the toast and the screen reader's announcements.

import { h } from "./dom.js";
import { t, loadCatalogue, lang, sentence } from "./i18n.js";
import { helpOverlay } from "./help.js";
import { tileSvg } from "./tiles.js";
import { app } from "./state.js";
import { render } from "./router.js";

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

/** A failed REST call in words: the server's message, or why there was none. */
export function errorText(err) {
  return err?.message || t(err?.code === "offline" ? "ui.offline" : "error.generic");
}

export function header() {
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

export function openHelp() {
  closeHelp();
  const el = helpOverlay(closeHelp);
  document.body.append(el);
  el.querySelector("button")?.focus();
}

export function closeHelp() {
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
