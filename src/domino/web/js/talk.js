// Table talk (docs/protocol.md "Table talk"): the chat of the lobby, of a match's spectators
// and after the match; reactions shown at the sender's seat; block, report, mute. Loaded on
// demand once signed in. Every text from other people goes in as textContent (dom.js h()):
// never as HTML, and links stay plain text.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { app, send } from "./state.js";
import { toast } from "./frame.js";

const REACTIONS = ["hallo", "viel_glueck", "gut_gespielt", "danke", "hoppla", "gutes_spiel", "daumen", "lachen", "staunen", "feiern"];
const MAX = 200;
const SHOWN_MS = 4000;
const store = window.localStorage;
// Small icons of our own (an emoji font is not everywhere).
const svg = (d) => h("span.talk-icon", { "aria-hidden": "true", html: `<svg viewBox="0 0 24 24" width="22" height="22" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${d}</svg>` });
const CHAT_ICON = '<path d="M4 5h16v11H9l-5 4z"/>';
const SMILE_ICON = '<circle cx="12" cy="12" r="9"/><path d="M8 14c1 1.5 2.5 2 4 2s3-.5 4-2"/><path d="M9 9.5h.01M15 9.5h.01"/>';
const MUTE_ICON = '<path d="M4 9h4l5-4v14l-5-4H4z"/><path d="M17 9l5 6M22 9l-5 6"/>';

const talk = {
  room: null, // {room: "lobby"|"match", match, key}
  messages: [],
  blocked: new Map(), // profile id -> name
  askedBlocks: false,
  panel: null,
};

function settings() {
  try {
    return JSON.parse(store.getItem("domino.talk") || "{}");
  } catch {
    return {};
  }
}

function saveSettings(s) {
  store.setItem("domino.talk", JSON.stringify(s));
}

/** Follow the screen: a lobby's chat, a match's chat and reactions, or nothing. */
export function follow(route) {
  if (!talk.askedBlocks) {
    talk.askedBlocks = true;
    send({ type: "list_blocks" });
  }
  let room = null;
  if (route.name === "lobby" && app.lobby?.lobby?.code === route.arg) room = { room: "lobby", match: null, key: route.arg };
  else if (route.name === "match" && app.matchId) room = { room: "match", match: app.matchId, key: app.matchId };
  const same = room && talk.room && room.room === talk.room.room && room.key === talk.room.key;
  if (!same) {
    talk.room = room;
    talk.messages = [];
    if (room) send(room.match ? { type: "talk_log", room: room.room, match: room.match } : { type: "talk_log", room: room.room });
  }
  draw();
}

/** One talk frame from the server. */
export function onTalk(msg) {
  switch (msg.type) {
    case "chat": {
      const m = msg.message;
      if (!talk.room || m.room !== talk.room.room || m.key !== talk.room.key) break;
      if (talk.blocked.has(m.sender)) break;
      talk.messages.push(m);
      talk.messages = talk.messages.slice(-100);
      drawLog();
      break;
    }
    case "chat_log":
      if (!talk.room || msg.room !== talk.room.room || (talk.room.match && msg.key !== talk.room.key)) break;
      talk.messages = msg.messages.filter((m) => !talk.blocked.has(m.sender));
      drawLog();
      break;
    case "reaction":
      showReaction(msg);
      break;
    case "blocks":
      talk.blocked = new Map(msg.profiles.map((p) => [p.id, p.name]));
      talk.messages = talk.messages.filter((m) => !talk.blocked.has(m.sender));
      draw();
      break;
    case "reported":
      toast(t("talk.reported"));
      break;
    default:
      break;
  }
}

function pairsPlayer() {
  const s = app.lastState;
  return talk.room?.room === "match" && s && s.you !== null && s.you !== undefined && s.rules?.pairs && s.phase !== "match_over";
}

function draw() {
  if (!talk.room) {
    talk.panel?.remove();
    talk.panel = null;
    return;
  }
  // In the lobby the talk is part of the page (below the seats). At the table it sits in the
  // board's top corner, in a strip the line keeps clear (app.css), so it never covers an end.
  const inline = talk.room.room === "lobby";
  const home = inline ? document.querySelector("#app main.screen") || document.querySelector("main.screen") : document.querySelector(".table-screen .board") || document.body;
  if (!talk.panel) talk.panel = h("aside.talk", { "aria-label": t("talk.title"), dataset: { testid: "talk" } });
  talk.panel.classList.toggle("inline", inline);
  if (home && talk.panel.parentNode !== home) home.append(talk.panel);
  const panel = clear(talk.panel);
  const title = talk.room.room === "match" && app.lastState?.you == null ? t("talk.spectators") : t("talk.title");
  // Open in the lobby, folded at the table (the hand needs the room); each remembered.
  const key = talk.room.room === "match" ? "tableOpen" : "lobbyClosed";
  const open = talk.room.room === "match" ? !!settings()[key] : !settings()[key];
  const details = h("details.talk-box", { open, ontoggle: (e) => saveSettings({ ...settings(), [key]: talk.room.room === "match" ? e.target.open : !e.target.open }) }, h("summary", { dataset: { testid: "talk-open" }, "aria-label": title, title }, inline ? title : svg(CHAT_ICON)));
  const log = h("ul.talk-log", { "aria-live": "polite", dataset: { testid: "talk-log" } });
  details.append(log);
  if (pairsPlayer()) details.append(h("p.talk-note", {}, t("talk.pairs_only")));
  else {
    const input = h("input", { type: "text", maxlength: String(MAX), placeholder: t("talk.placeholder"), "aria-label": t("talk.placeholder"), dataset: { testid: "talk-input" } });
    const form = h(
      "form.talk-form",
      {
        onsubmit: (e) => {
          e.preventDefault();
          const text = input.value.trim();
          if (!text) return;
          const msg = { type: "say", room: talk.room.room, text };
          if (talk.room.match) msg.match = talk.room.match;
          send(msg);
          input.value = "";
        },
      },
      input,
      h("button", { type: "submit", dataset: { testid: "talk-send" } }, t("talk.send")),
    );
    // Keys typed here are words, not table shortcuts (input.js).
    input.addEventListener("keydown", (e) => e.stopPropagation());
    details.append(form);
  }
  if (talk.room.room === "match") {
    const s = settings();
    const bar = h(
      "details.talk-reactions",
      { open: !!s.reactOpen, ontoggle: (e) => saveSettings({ ...settings(), reactOpen: e.target.open }) },
      h("summary", { dataset: { testid: "reactions-open" }, "aria-label": t("talk.reactions"), title: t("talk.reactions") }, svg(SMILE_ICON)),
      REACTIONS.map((k) => h("button.talk-react", { type: "button", title: t(`reaction.${k}`), "aria-label": `${t("talk.react")}: ${t(`reaction.${k}`)}`, dataset: { testid: `react-${k}` }, onclick: () => send({ type: "react", match: talk.room.match, key: k }) }, t(`reaction.${k}`))),
      h("label.talk-mute", {}, h("input", { type: "checkbox", checked: !!s.muteAll, onchange: (e) => saveSettings({ ...settings(), muteAll: e.target.checked }) }), t("talk.mute_all")),
    );
    panel.append(bar);
  }
  panel.append(details);
  drawLog();
}

function drawLog() {
  const log = talk.panel?.querySelector(".talk-log");
  if (!log) return;
  clear(log);
  if (!talk.messages.length) log.append(h("li.talk-empty", {}, t("talk.empty")));
  const me = app.profile?.id;
  for (const m of talk.messages) {
    const actions = m.sender === me ? null : h(
      "span.talk-actions",
      {},
      h("button.link", { type: "button", dataset: { testid: `report-${m.id}` }, onclick: () => send({ type: "report", message: m.id }) }, t("talk.report")),
      h("button.link", { type: "button", dataset: { testid: `block-${m.sender}` }, onclick: () => block(m.sender, m.name) }, t("talk.block")),
    );
    log.append(h("li.talk-msg", { dataset: { sender: m.sender } }, h("b.talk-name", {}, m.name), " ", h("span.talk-text", {}, m.text), actions));
  }
  log.scrollTop = log.scrollHeight;
}

function block(id, name) {
  send({ type: "block", profile: id, on: true });
  toast(t("talk.blocked", { who: name }));
}

function showReaction(msg) {
  const s = settings();
  if (s.muteAll || (s.muted || []).includes(msg.sender) || talk.blocked.has(msg.sender)) return;
  const text = t(`reaction.${msg.key}`);
  const seatEl = msg.seat === null ? null : document.querySelector(`.table-screen [data-seat="${msg.seat}"]`);
  const mine = msg.sender === app.profile?.id;
  const bubble = h(
    "div.talk-bubble",
    { role: "status", dataset: { testid: "reaction", sender: msg.sender } },
    h("span.talk-bubble-text", {}, msg.seat === null ? `${t("talk.spectator", { who: msg.name })}: ${text}` : mine ? text : `${msg.name}: ${text}`),
    mine ? null : h("button.link.talk-bubble-mute", { type: "button", "aria-label": t("talk.mute_seat", { who: msg.name }), title: t("talk.mute_seat", { who: msg.name }), onclick: () => { saveSettings({ ...settings(), muted: [...(settings().muted || []), msg.sender] }); bubble.remove(); } }, svg(MUTE_ICON)),
  );
  if (seatEl) {
    const r = seatEl.getBoundingClientRect();
    bubble.style.left = `${Math.max(4, Math.min(window.innerWidth - 180, r.left))}px`;
    bubble.style.top = `${Math.min(window.innerHeight - 48, r.bottom + 4)}px`;
    bubble.classList.add("at-seat");
  }
  document.body.append(bubble);
  setTimeout(() => bubble.remove(), SHOWN_MS);
}

/** The talk of a finished match, for its replay (text only; blocked senders left out). */
export function replayTalk(messages) {
  const shown = messages.filter((m) => !talk.blocked.has(m.sender));
  return h(
    "section.card.talk-replay",
    { dataset: { testid: "replay-talk" } },
    h("h2", {}, t("talk.replay")),
    h("ul.talk-log", {}, shown.map((m) => h("li.talk-msg", {}, h("b.talk-name", {}, m.name), " ", h("span.talk-text", {}, m.text)))),
  );
}
