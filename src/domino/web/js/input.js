// Keyboard and controller. Both translate into the same few intents on the current screen:
// the table gets select/play/draw/pass/cancel/move; the replay viewer steps a move or a round;
// other screens get focus moves and clicks.

const FORM_TAGS = new Set(["INPUT", "SELECT", "TEXTAREA"]);

// The replay viewer's keys: a move (or to either end) and a round.
const REPLAY_MOVES = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity };
const REPLAY_ROUNDS = { PageUp: -1, PageDown: 1 };

/**
 * `target()` returns the active TableView or null; `escape()` closes overlays (true if it did);
 * `replay()` returns the open ReplayView or null.
 */
export function bindKeys(target, escape, replay = () => null) {
  const onKey = (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const inForm = FORM_TAGS.has(document.activeElement?.tagName);
    if (ev.key === "Escape") {
      if (escape()) return ev.preventDefault();
      const tv = target();
      if (tv && tv.cancel()) ev.preventDefault();
      return;
    }
    const rv = replay();
    // The slider steps by itself (its own arrows, Home and End); other fields keep their keys.
    if (rv?.data && !inForm && !document.querySelector(".overlay.help")) {
      if (ev.key in REPLAY_ROUNDS) {
        ev.preventDefault();
        rv.stepRound(REPLAY_ROUNDS[ev.key]);
      } else if (ev.key in REPLAY_MOVES) {
        ev.preventDefault();
        rv.step(REPLAY_MOVES[ev.key]);
      }
    }
    const tv = target();
    // A sheet over the table (score sheet, log) takes no moves: its keys scroll and close it.
    if (!tv || inForm || tv.sheet) return;
    const k = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    let handled = true;
    if (k >= "1" && k <= "9") tv.selectIndex(Number(k) - 1);
    else if (k === "l") tv.playAt("L");
    else if (k === "r") tv.playAt("R");
    else if (k === "d") tv.draw();
    else if (k === "p") tv.pass();
    else if (k === "t") tv.askHint();
    else if (k === "ArrowLeft") tv.moveFocus(-1, 0);
    else if (k === "ArrowRight") tv.moveFocus(1, 0);
    else if (k === "ArrowUp") tv.moveFocus(0, -1);
    else if (k === "ArrowDown") tv.moveFocus(0, 1);
    else handled = false;
    if (handled) ev.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  return () => document.removeEventListener("keydown", onKey);
}

// Standard mapping (https://w3c.github.io/gamepad/#remapping) button indices.
const BTN = { A: 0, B: 1, X: 2, Y: 3, LB: 4, RB: 5, VIEW: 8, UP: 12, DOWN: 13, LEFT: 14, RIGHT: 15 };

function focusables() {
  const scope = document.querySelector(".overlay [role=dialog], .overlay.help") || document.querySelector("#app");
  return [...scope.querySelectorAll("button:not([disabled]), a[href], input, select")].filter(
    (el) => el.offsetParent !== null,
  );
}

function stepFocus(delta) {
  const els = focusables();
  if (!els.length) return;
  const i = els.indexOf(document.activeElement);
  const next = i < 0 ? 0 : Math.max(0, Math.min(els.length - 1, i + delta));
  els[next].focus();
}

/**
 * Poll the Gamepad API once per animation frame and act on button presses (edges, not levels,
 * so a held button acts once). `replay()` returns the open replay viewer or null: there the
 * pad's left and right step a move, LB and RB a round.
 */
export function startGamepad(target, escape, replay = () => null) {
  const previous = new Map(); // gamepad index -> array of pressed flags
  const press = (btn) => {
    const tv = target();
    const overlayOpen = !!document.querySelector(".overlay.help, .overlay.match-end, .overlay.sheet");
    const rv = replay();
    if (rv && !overlayOpen) {
      const moves = { [BTN.LEFT]: () => rv.step(-1), [BTN.RIGHT]: () => rv.step(1), [BTN.LB]: () => rv.stepRound(-1), [BTN.RB]: () => rv.stepRound(1) };
      if (moves[btn]) return moves[btn]();
    }
    if (btn === BTN.B) {
      if (!escape() && tv) tv.cancel();
      return;
    }
    if (btn === BTN.A) {
      const el = document.activeElement;
      if (el && el !== document.body && typeof el.click === "function") el.click();
      else if (tv) tv.moveFocus(0, 0);
      return;
    }
    if (tv && !overlayOpen) {
      if (btn === BTN.LB) tv.playAt("L");
      else if (btn === BTN.RB) tv.playAt("R");
      else if (btn === BTN.X) tv.draw();
      else if (btn === BTN.Y) tv.pass();
      else if (btn === BTN.VIEW) tv.askHint();
      else if (btn === BTN.LEFT) tv.moveFocus(-1, 0);
      else if (btn === BTN.RIGHT) tv.moveFocus(1, 0);
      else if (btn === BTN.UP) tv.moveFocus(0, -1);
      else if (btn === BTN.DOWN) tv.moveFocus(0, 1);
      return;
    }
    if (btn === BTN.LEFT || btn === BTN.UP) stepFocus(-1);
    else if (btn === BTN.RIGHT || btn === BTN.DOWN) stepFocus(1);
  };
  const poll = () => {
    const pads = navigator.getGamepads ? navigator.getGamepads() : [];
    for (const pad of pads || []) {
      if (!pad || pad.mapping !== "standard") continue;
      const before = previous.get(pad.index) || [];
      const now = pad.buttons.map((b) => !!(b && (b.pressed || b.value > 0.5)));
      now.forEach((down, i) => {
        if (down && !before[i]) press(i);
      });
      previous.set(pad.index, now);
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}
