// *Revanche* at a match's end (one tap proposes the same table again; who accepted, the time
// left) and *Zuletzt gespielt mit* on the profile (invite a recent opponent; the invitation's
// toast with *Beitreten*). Loaded on demand by results.js, messages.js and profile.js.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { app, send } from "./state.js";
import { go } from "./router.js";
import { toast, announce, errorText } from "./frame.js";
import { recentPlayers } from "./api.js";

let offer = null; // the newest `rematch_state` frame and when it came: {msg, at}
let ticker = null;
const followed = new Set(); // finished matches this page follows as a spectator

/** Fill the match-end overlay's slot (results.js) for the match state `s`. */
export function mount(slot, view, s) {
  const mid = s.match || s.match_id;
  slot.dataset.match = mid;
  slot.dataset.seat = view.me === null ? "" : String(view.me);
  if (view.me === null && !followed.has(mid)) {
    followed.add(mid);
    send({ type: "rematch_follow", match: mid });
  }
  draw(slot);
}

function secondsLeft(msg, at) {
  if (msg.state !== "open") return 0;
  return Math.max(0, Math.ceil((msg.expires_in ?? 0) - (performance.now() - at) / 1000));
}

const LINES = { open: "rematch.waiting", started: "rematch.started", lapsed: "rematch.lapsed", declined: "rematch.declined", cancelled: "rematch.cancelled" };

/** What a `rematch_state` frame says, to the seat `seat` (null: a spectator); `left` seconds. */
function line(o, seat, left) {
  const key = LINES[o.state];
  const you = seat !== null && o.by_seat === seat && ["open", "declined"].includes(o.state);
  return t(you ? `${key}_you` : key, { name: o.by || "?", n: left });
}

function draw(slot) {
  const mid = slot.dataset.match;
  const seat = slot.dataset.seat === "" ? null : Number(slot.dataset.seat);
  const o = offer && offer.msg.match === mid ? offer.msg : null;
  const left = o ? secondsLeft(o, offer.at) : 0;
  const open = o && o.state === "open" && left > 0;
  const focused = slot.contains(document.activeElement) ? document.activeElement.dataset.focusKey : null;
  const parts = [];
  if (open) {
    parts.push(h("p.rematch-status", { "data-testid": "rematch-status" }, line(o, seat, left)));
    parts.push(
      h("ul.rematch-seats", {}, o.seats.map((x) =>
        h(`li${x.accepted ? ".yes" : ""}`, { dataset: { seat: String(x.seat) } },
          h("span.who", {}, x.name), " ", h("span.muted", {}, t(x.accepted ? "rematch.accepted" : "rematch.pending"))))),
    );
  } else if (o && o.state !== "open") {
    parts.push(h("p.rematch-status.muted", { "data-testid": "rematch-status" }, line(o, seat, 0)));
  }
  if (seat !== null && !(o && o.state === "started")) {
    const mine = open ? o.seats.find((x) => x.seat === seat) : null;
    const row = h("div.row");
    if (!mine || !mine.accepted) {
      row.append(h("button.primary", { type: "button", "data-testid": "rematch", dataset: { focusKey: "m:rematch" }, onclick: () => send({ type: "rematch", match: mid }) }, t(open ? "rematch.accept" : "rematch.propose")));
    }
    if (open) {
      row.append(h("button", { type: "button", "data-testid": "rematch-decline", dataset: { focusKey: "m:rematch-no" }, onclick: () => send({ type: "rematch", match: mid, accept: false }) }, t("rematch.decline")));
    }
    parts.push(row);
  }
  clear(slot).append(...parts);
  if (focused) slot.querySelector(`[data-focus-key="${focused}"]`)?.focus();
}

function redraw() {
  const slots = document.querySelectorAll(".rematch-slot");
  slots.forEach(draw);
  const running = offer && offer.msg.state === "open" && secondsLeft(offer.msg, offer.at) > 0;
  if (running && !ticker) ticker = setInterval(redraw, 1000);
  if (!running && ticker) {
    clearInterval(ticker);
    ticker = null;
  }
}

/** The messages of this module: `rematch_state`, `invited`, `invite_sent`. */
export function onMessage(msg) {
  if (msg.type === "rematch_state") {
    const before = offer?.msg;
    offer = { msg, at: performance.now() };
    if (msg.state !== "open" || before?.state !== "open" || before?.match !== msg.match) {
      const seat = app.lastState && (app.lastState.match || app.lastState.match_id) === msg.match ? app.lastState.you ?? null : null;
      announce(line(msg, seat, Math.round(msg.expires_in ?? 0)));
    }
    // A spectator of the match follows the table to its new match.
    if (msg.state === "started" && msg.next && app.matchId === msg.match && app.lastState?.you === null) {
      app.table?.destroy();
      app.table = null;
      app.matchId = msg.next;
      app.lastState = null;
      send({ type: "watch", match: msg.next });
      go(`#/match/${encodeURIComponent(msg.next)}`);
    }
    redraw();
  } else if (msg.type === "invited") {
    invitation(msg);
  } else if (msg.type === "invite_sent") {
    toast(t("invite.sent", { player: msg.name }));
  }
}

/** The invitation's toast: who invites, *Beitreten*, and a way to close it. */
function invitation(msg) {
  document.querySelector(".invite-toast")?.remove();
  const close = () => el.remove();
  const join = () => {
    close();
    if (app.lobby && app.lobby.lobby.code !== msg.lobby) send({ type: "leave_lobby" });
    app.joining = msg.lobby;
    send({ type: "join_lobby", code: msg.lobby });
    go(`#/lobby/${msg.lobby}`);
  };
  const el = h(
    "div.invite-toast",
    { role: "alert", "data-testid": "invite-toast" },
    h("p", {}, t("invite.toast", { player: msg.by })),
    h("div.row", {},
      h("button.primary", { type: "button", "data-testid": "invite-join", onclick: join }, t("invite.join")),
      h("button.icon-btn", { type: "button", "aria-label": t("ui.close"), onclick: close }, "×")),
  );
  document.body.append(el);
  setTimeout(close, 30000);
}

/** *Zuletzt gespielt mit*: the profile's card of recent human opponents, each to invite. */
export function playersCard() {
  const list = h("ul.list.players-list", { "data-testid": "players-list" }, h("li.muted", {}, t("ui.loading")));
  const card = h("section.card.recent-players", {}, h("h2", {}, t("invite.title")), list);
  if (!app.lobby) card.append(h("p.muted", {}, t("invite.need_lobby")));
  recentPlayers().then(
    (res) => {
      const players = res.players || [];
      clear(list).append(
        ...(players.length
          ? players.map((pl) =>
              h("li.player", { dataset: { player: pl.id } },
                h("span.l-name", {}, pl.name),
                pl.online ? h("span.badge.online", {}, t("invite.online")) : null,
                h("button", { type: "button", "data-testid": "invite", "aria-label": `${t("invite.button")}: ${pl.name}`, onclick: () => send({ type: "invite", profile: pl.id }) }, t("invite.button"))))
          : [h("li.muted", {}, t("invite.none"))]),
      );
    },
    (e) => {
      clear(list).append(h("li.muted", {}, errorText(e)));
    },
  );
  return card;
}
