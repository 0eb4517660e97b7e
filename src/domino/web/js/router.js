// The address: routes are hash based (#/lobby/CODE, #/match/ID, #/replay/ID/ROUND/MOVE, ...).
// Which screen a route shows is app.js's `render`, handed over once at the start, so the
// screens can change the address without importing the one that draws them.

let draw = () => {};

/** Pages a lobby member may look at without being sent back to the lobby. */
export const OWN_PAGES = ["replay", "profile", "puzzles", "puzzle", "lesson", "rangliste"];

/** The current route: its name, its first argument and the parts after it. */
export function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  return { name: parts[0] || "home", arg: parts[1] ? decodeURIComponent(parts[1]) : null, rest: parts.slice(2) };
}

/** Draw the current route again. */
export function render() {
  return draw();
}

/** Go to `hash`; already there, draw it again. */
export function go(hash) {
  if (location.hash !== hash) location.hash = hash;
  else render();
}

/** The function that draws the current route (app.js). */
export function setRenderer(fn) {
  draw = fn;
}
