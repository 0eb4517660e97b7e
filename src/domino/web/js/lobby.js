// The lobby: code and share link, seats (people and bots), the host's rules and controls.
// Everyone gets the whole lobby after every change, so this is a pure render of `lobby`.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { LEVELS } from "./state.js";

const MODES = ["klassisch", "blitz", "zugemauert", "fuenferfieber"];

function seg(label, key, options, current, isHost, onPick) {
  // One rule as a group of toggle buttons; a non-host sees the same group, disabled.
  const id = `rule-${key}`;
  if (!isHost) {
    // Others see the value only: no controls at all for a non-host.
    const shown = options.find(([value]) => value === current);
    return h("div.rule", { dataset: { rule: key } }, h("span.rule-label", { id }, label), h("span.rule-value", { "aria-labelledby": id }, shown ? shown[1] : "–"));
  }
  return h(
    "div.rule",
    { dataset: { rule: key } },
    h("span.rule-label", { id }, label),
    h(
      "div.seg",
      { role: "group", "aria-labelledby": id },
      options.map(([value, text]) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": value === current ? "true" : "false",
            disabled: !isHost,
            dataset: { value: String(value), focusKey: `r:${key}:${value}` },
            onclick: () => value !== current && onPick(value),
          },
          text,
        ),
      ),
    ),
  );
}

async function copy(text, toast) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without clipboard permission: select the text so Ctrl+C works.
    const el = document.getElementById("lobby-link");
    el?.select();
    document.execCommand?.("copy");
  }
  toast(t("lobby.copied"));
}

export function lobbyScreen({ lobby, you }, { send, toast, home, level = "fortgeschritten", notice = null }) {
  const host = !!you?.host;
  const rules = lobby.rules || {};
  const link = `${location.origin}/#/lobby/${lobby.code}`;
  const set = (r) => send({ type: "set_rules", rules: r });

  const seats = lobby.seats.map((s) => {
    const mine = you && s.seat === you.seat;
    let who;
    if (s.kind === "bot") who = [h("span.seat-name", {}, s.name), h("span.badge", {}, t("lobby.bot", { level: t(`level.${s.level}`) }))];
    else if (s.kind === "human") who = [h("span.seat-name", {}, s.name), mine ? h("span.badge.you", {}, t("lobby.you")) : null, s.host ? h("span.badge.host", {}, t("lobby.host")) : null, s.online ? null : h("span.badge.warn", {}, t("table.disconnected"))];
    else who = [h("span.seat-name.free", {}, t("lobby.free"))];
    const controls = [];
    if (!s.kind) {
      if (host) {
        const sel = h("select", { "aria-label": t("lobby.bot_level"), dataset: { seat: String(s.seat) } }, LEVELS.map((l) => h("option", { value: l, selected: l === level }, t(`level.${l}`))));
        controls.push(sel, h("button", { type: "button", dataset: { testid: `add-bot-${s.seat}`, focusKey: `s:${s.seat}:add` }, onclick: () => send({ type: "add_bot", seat: s.seat, level: sel.value }) }, t("lobby.add_bot")));
      }
      if (you && you.seat !== s.seat) controls.push(h("button", { type: "button", onclick: () => send({ type: "take_seat", seat: s.seat }) }, t("lobby.sit")));
    } else if (s.kind === "bot" && host) {
      controls.push(h("button", { type: "button", dataset: { focusKey: `s:${s.seat}:remove` }, onclick: () => send({ type: "remove_bot", seat: s.seat }) }, t("lobby.remove_bot")));
    }
    return h(`li.lobby-seat${mine ? ".mine" : ""}`, { dataset: { seat: String(s.seat) } }, h("span.seat-no", {}, String(s.seat + 1)), h("div.who", {}, who), h("div.seat-controls", {}, controls));
  });

  const ruleRows = [
    seg(t("rule.mode"), "mode", MODES.map((m) => [m, t(`mode.${m}`)]), rules.mode, host, (v) => set({ mode: v })),
    seg(t("lobby.seat_count"), "seats", [2, 3, 4].map((n) => [n, String(n)]), rules.seats, host, (v) => set({ seats: v })),
    seg(t("rule.target"), "target", [[null, t("val.auto")], [30, "30"], [50, "50"], [100, "100"], [150, "150"]], rules.target ?? null, host, (v) => set({ target: v })),
    seg(t("rule.turn_seconds"), "turn_seconds", [12, 20, 30].map((n) => [n, t("val.seconds", { n })]), rules.turn_seconds, host, (v) => set({ turn_seconds: v })),
    seg(t("rule.lager"), "lager", [[true, t("val.on")], [false, t("val.off")]], rules.lager, host, (v) => set({ lager: v })),
    seg(t("rule.fives"), "fives", [[true, t("val.on")], [false, t("val.off")]], rules.fives, host, (v) => set({ fives: v })),
    rules.seats === 4 ? seg(t("rule.pairs"), "pairs", [[true, t("val.on")], [false, t("val.off")]], rules.pairs, host, (v) => set({ pairs: v })) : null,
    seg(t("lobby.hints"), "hints", [[0, t("lobby.hints_off")], [1, "1"], [2, "2"], [3, "3"]], rules.hints ?? 3, host, (v) => set({ hints: v })),
  ];

  const seated = you && you.seat !== null && you.seat !== undefined;
  // The host's main actions stay in view (a bar stuck to the foot of a phone's screen).
  const main = [];
  const free = lobby.seats.some((s) => !s.kind);
  if (host && free && lobby.status === "open") {
    main.push(h("button", { type: "button", "data-testid": "fill-bots", dataset: { focusKey: "fill" }, onclick: () => send({ type: "fill_bots", level }) }, t("lobby.fill_bots")));
  }
  if (host) main.push(h("button.primary.big", { type: "button", disabled: !lobby.can_start, "data-testid": "start", dataset: { focusKey: "start" }, onclick: () => send({ type: "start" }) }, t("lobby.start")));
  const actions = [];
  if (seated) actions.push(h("button", { type: "button", onclick: () => send({ type: "leave_seat" }) }, t("lobby.watch")));
  actions.push(h("button", { type: "button", onclick: home }, t("lobby.leave")));

  const watchers = lobby.watchers || [];
  return h(
    "main.screen.lobby",
    {},
    notice,
    h(
      "section.card.lobby-head",
      {},
      h("h1", {}, t("lobby.title", { code: lobby.code })),
      h("div.row.share", {}, h("input", { id: "lobby-link", readonly: true, value: link, "aria-label": t("lobby.copy_link") }), h("button", { type: "button", "data-testid": "copy-link", onclick: () => copy(link, toast) }, t("lobby.copy_link"))),
    ),
    h(
      "section.card",
      {},
      h("h2", {}, t("lobby.seats")),
      h("ol.lobby-seats", {}, seats),
      watchers.length ? h("p.muted.watchers", {}, t("lobby.watchers", { names: watchers.map((w) => w.name).join(", ") })) : null,
    ),
    h(
      "section.card.rules",
      { "aria-label": t("lobby.rules") },
      h("h2", {}, t("lobby.rules"), lobby.target_points ? h("span.muted", {}, ` · ${t("table.target", { n: lobby.target_points })}`) : null),
      ruleRows,
      seg(t("lobby.rated"), "rated", [[true, t("val.on")], [false, t("val.off")]], Boolean(lobby.rated), host, (v) => send({ type: "set_rated", rated: v })),
      h("p.muted.rated-hint", {}, t("lobby.rated_hint")),
      host ? null : h("p.muted", {}, t("lobby.wait_host")),
    ),
    main.length ? h("section.lobby-main", { "data-testid": "lobby-main" }, h("div.row", {}, main), host && !lobby.can_start ? h("p.muted", {}, t("lobby.need_full")) : null) : null,
    h("section.row.lobby-actions", {}, actions),
  );
}
