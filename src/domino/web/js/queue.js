// *Mit Menschen spielen* (issue 23): the choice, the waiting view, the signs of a match found
// (toast, blinking title, optional sound). Loaded by the home screen and the `queue` messages.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { app, send } from "./state.js";
import { toast } from "./frame.js";

const SEATS = ["2", "3", "4", "paare"];
const MODES = ["klassisch", "blitz", "zugemauert", "fuenferfieber"];
const WAITS = [30, 60, 180, 0];
const KEY = "domino.mm";

let waiting = null; // null, or the server's `queue` message and when it came
let timer = null;
let blink = null;

function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || "{}");
    return {
      seats: SEATS.includes(v.seats) ? v.seats : "2",
      mode: MODES.includes(v.mode) ? v.mode : "klassisch",
      wait: WAITS.includes(v.wait) ? v.wait : 60,
      sound: v.sound === true,
    };
  } catch {
    return { seats: "2", mode: "klassisch", wait: 60, sound: false };
  }
}

function save(choice) {
  try {
    localStorage.setItem(KEY, JSON.stringify(choice));
  } catch {
    /* ignore */
  }
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function seatsText(seats) {
  return seats === "paare" ? t("mm.paare") : t("quick.players", { n: Number(seats) });
}

/** The card: the choice, or the waiting view while this profile waits. */
export function queueCard() {
  const el = h("section.card.mm", { "data-testid": "mm", "aria-live": "polite" });
  fill(el);
  if (app.mmFocus && performance.now() - app.mmFocus < 5000) {
    // Came by the start page's *Mit Menschen spielen*: the choice is where the eye is (also
    // after the welcome draws the screen once more).
    requestAnimationFrame(() => {
      if (!el.isConnected) return;
      el.scrollIntoView({ block: "center" });
      el.querySelector("[data-testid=mm-go]")?.focus({ preventScroll: true });
    });
  }
  return el;
}

function fill(el) {
  el.replaceChildren(...(waiting ? waitingView() : choiceView()).filter(Boolean));
}

function redraw() {
  document.querySelectorAll("section.card.mm").forEach(fill);
}

function choiceView() {
  const choice = load();
  const seg = (name, values, label, text) =>
    h(`div.mm-seg.mm-seg-${name}`, { role: "radiogroup", "aria-label": label },
      values.map((v) =>
        h("button", {
          type: "button",
          role: "radio",
          "aria-checked": String(choice[name] === v),
          class: choice[name] === v ? "on" : "",
          dataset: { focusKey: `mm-${name}-${v}` },
          "data-testid": `mm-${name}-${v}`,
          onclick: () => {
            save({ ...load(), [name]: v });
            redraw();
            document.querySelector(`[data-focus-key="mm-${name}-${v}"]`)?.focus();
          },
        }, text(v))));
  const mode = h("select", { id: "mm-mode", onchange: () => save({ ...load(), mode: mode.value }) },
    MODES.map((m) => h("option", { value: m, selected: m === choice.mode }, t(`mode.${m}`))));
  const sound = h("input", { id: "mm-sound", type: "checkbox", checked: choice.sound, onchange: () => save({ ...load(), sound: sound.checked }) });
  const held = app.lobby?.lobby?.code;
  const go = () => {
    const c = load();
    app.mmFocus = null;
    send({ type: "queue_join", seats: c.seats, mode: c.mode, wait: c.wait, ...(held ? { leave: true } : {}) });
  };
  return [
    h("h2", {}, t("mm.title")),
    h("p.muted", {}, t("mm.lead")),
    h("div.mm-row", {}, h("span.mm-label", {}, t("mm.seats")), seg("seats", SEATS, t("mm.seats"), seatsText)),
    h("div.row.mm-row", {}, h("label.mm-label", { for: "mm-mode" }, t("mm.mode")), mode),
    h("div.mm-row", {}, h("span.mm-label", {}, t("mm.wait")), seg("wait", WAITS, t("mm.wait"), (w) => t(`mm.wait_${w}`))),
    h("p.muted.hint", {}, t("mm.bots_after")),
    held ? h("p.hint", {}, t("mm.leave_lobby", { code: held })) : null,
    h("button.primary.big", { type: "button", "data-testid": "mm-go", dataset: { focusKey: "mm-go" }, onclick: go }, t(held ? "mm.leave_and_search" : "mm.go")),
    h("label.row.mm-sound", {}, sound, t("mm.sound")),
  ];
}

function waitingView() {
  const w = waiting.msg;
  const time = h("p.mm-time", { "data-testid": "mm-time" }, timeText());
  return [
    h("h2", {}, t("mm.title")),
    h("p.mm-waiting", { role: "status" }, t("mm.waiting")),
    h("p.muted", {}, `${seatsText(w.seats)} · ${t(`mode.${w.mode}`)} · ${t(`mm.wait_${w.wait}`)}`),
    h("p.mm-others", { "data-testid": "mm-others" }, t("mm.others", { n: w.others })),
    time,
    h("button.big", { type: "button", "data-testid": "mm-cancel", dataset: { focusKey: "mm-cancel" }, onclick: () => send({ type: "queue_leave" }) }, t("mm.cancel")),
  ];
}

function timeText() {
  return t("mm.time", { time: clock((performance.now() - waiting.at) / 1000 + waiting.msg.waited) });
}

function tickTime() {
  clearInterval(timer);
  timer = waiting
    ? setInterval(() => {
        const el = document.querySelector("[data-testid=mm-time]");
        if (el && waiting) el.textContent = timeText();
      }, 1000)
    : null;
}

/** A `queue` or `queue_left` message of the server (messages.js). */
export function onQueue(msg) {
  if (msg.type === "queue") {
    waiting = { msg, at: performance.now() };
  } else {
    waiting = null;
    if (msg.reason === "matched") found();
    else if (msg.reason === "left") toast(t("mm.cancelled"));
  }
  app.queueWaiting = !!waiting;
  tickTime();
  redraw();
}

/** A seat's `state` came while this page waits: the table was formed, and its
 * `queue_left` was lost with the node that formed it (a node killed in between, before
 * its announcement went out). The wait is over, as if the server had said so. */
export function seatedWhileWaiting() {
  if (waiting) onQueue({ type: "queue_left", reason: "matched" });
}

/** A match was found: a toast, the title blinking until the page is looked at, a sound. */
function found() {
  toast(t("mm.found"));
  if (load().sound) beep();
  clearInterval(blink);
  const title = document.title;
  let n = 0;
  blink = setInterval(() => {
    n += 1;
    document.title = n % 2 ? t("mm.title_found") : title;
    if ((n > 3 && document.visibilityState === "visible") || n > 60) {
      clearInterval(blink);
      document.title = title;
    }
  }, 800);
}

function beep() {
  try {
    const ctx = new (window.AudioContext || window.webkitAudioContext)();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.4);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.4);
  } catch {
    /* no sound here */
  }
}

// Closing the page leaves the queue (the socket's close says so too; this is quicker).
addEventListener("pagehide", () => waiting && send({ type: "queue_leave" }));
