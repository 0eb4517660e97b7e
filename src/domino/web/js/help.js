// The help overlay: the rules in short and the controls for every input method.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export function helpOverlay(close) {
  return h(
    "div.overlay.help",
    { role: "dialog", "aria-modal": "true", "aria-labelledby": "help-title", onclick: (ev) => ev.target === ev.currentTarget && close() },
    h(
      "div.panel",
      {},
      h("div.panel-head", {}, h("h2", { id: "help-title" }, t("help.title")), h("button.icon-btn", { type: "button", onclick: close, "aria-label": t("ui.close") }, "×")),
      h("p", {}, t("help.rules")),
      h("p.row", {}, h("a.button", { href: "#/lesson", "data-testid": "help-lesson", onclick: close }, t("lesson.title")), h("a.button", { href: "#/lesson/tips", onclick: close }, t("lesson.tips_title"))),
      h("h3", {}, t("help.controls")),
      h("ul.help-list", {}, ["help.mouse", "help.keys", "help.touch", "help.pad"].map((k) => h("li", {}, t(k)))),
      h("button.primary", { type: "button", onclick: close }, t("ui.close")),
    ),
  );
}
