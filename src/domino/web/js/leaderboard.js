// *Rangliste* (#/rangliste/POOL): a pool's top 100, paged, and one's own place. Lazy.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { leaderboard } from "./api.js";
import { POOLS, poolName, shown } from "./ratings.js";

const HEAD = ["board.place", "board.name", "board.rating", "board.matches"];

function table(entries, me, testid) {
  const row = (e) => h(`tr${e.profile === me ? ".mine" : ""}`, {}, [e.place, e.name, shown(e.rating, e.provisional), e.matches].map((x) => h("td", {}, String(x))));
  const body = h("tbody", {}, entries.map(row));
  return Object.assign(h("table.board", { "data-testid": testid }, h("thead", {}, h("tr", {}, HEAD.map((k) => h("th", { scope: "col" }, t(k))))), body), { add: (es) => body.append(...es.map(row)) });
}

export async function leaderboardScreen(pool, me) {
  const pl = POOLS.includes(pool) ? pool : "2";
  const tabs = h("nav.pool-tabs", {}, POOLS.map((x) => h(`a.button${x === pl ? ".primary" : ""}`, { href: `#/rangliste/${x}`, "aria-current": x === pl ? "page" : null }, poolName(x))));
  const card = h("section.card", {}, h("h1", {}, t("board.title")), tabs);
  const main = h("main.screen.leaderboard", { "data-testid": "leaderboard" }, card);
  let res;
  try {
    res = await leaderboard(pl);
  } catch (e) {
    card.append(h("p.error", { role: "alert" }, e.message || t("error.generic")));
    return main;
  }
  const list = res.entries.length ? table(res.entries, me, "board") : h("p.muted", {}, t("board.empty", { matches: res.min_matches }));
  let next = res.next;
  const more = h("button.more", { type: "button", hidden: !next }, t("board.more"));
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const page = await leaderboard(pl, next);
      list.add(page.entries);
      next = page.next;
    } catch (e) {
      more.after(h("p.error", { role: "alert" }, e.message || t("error.generic")));
    }
    more.disabled = false;
    more.hidden = !next;
  });
  card.append(h("p.muted", {}, t("board.rules", { matches: res.min_matches, days: res.active_days })), list, h("div.row", {}, more));
  if (res.me) main.append(h("section.card", {}, h("h2", {}, t("board.me")), table(res.me, me, "board-me")));
  main.append(h("div.row", {}, h("a.button", { href: "#/" }, t("ui.back"))));
  return main;
}
