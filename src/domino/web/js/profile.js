// The profile: the name (and a new one), level and XP, a guest's way to an account, and the
// finished matches a page at a time, each with its replay and record.

import { h, clear } from "./dom.js";
import { t, lang } from "./i18n.js";
import { me, rename as renameProfile, makeAccount, moreMatches } from "./api.js";
import { app } from "./state.js";
import { render } from "./router.js";
import { nameProblem, passwordProblem, fieldError, signedIn, logout } from "./account.js";
import { toast, errorText } from "./frame.js";
import { ratingsCard } from "./ratings.js";

export async function profileScreen() {
  const main = h("main.screen.profile", {}, h("p", {}, t("ui.loading")));
  try {
    const res = await me();
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
      app.profile = await renameProfile(name);
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
        ? h("form.row", { novalidate: true, onsubmit: async (ev) => { ev.preventDefault(); if (!fieldError(pwErr, pw, passwordProblem(pw.value))) return; try { const r = await makeAccount(p.name, pw.value); signedIn(r); toast(t("profile.account_made")); } catch (e) { fieldError(pwErr, pw, errorText(e)); } } },
            pw, h("button", { type: "submit" }, t("profile.make_account")))
        : null,
      p.kind === "guest" ? pwErr : null,
      h("div.row", {}, h("a.button", { href: "#/" }, t("ui.back")), h("button", { type: "button", onclick: logout }, t("start.logout"))),
    ),
    await ratingsCard(p),
    recentCard(),
    playersSlot(),
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
      const res = await moreMatches(app.recentNext);
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

/** *Zuletzt gespielt mit* (rematch.js, loaded on demand): recent opponents to invite. */
function playersSlot() {
  const slot = h("div.players-slot");
  import("./rematch.js").then((m) => slot.replaceWith(m.playersCard()));
  return slot;
}
