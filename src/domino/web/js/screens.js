// The screens of a signed-in player (home, lobby, profile, and the ways on from a match):
// code a first visit does not need. It is loaded once signed in, as the table's is
// (server/transport/assets.py keeps both out of the first visit's preloads).

let loading = null;
let loaded = null;

/** The screens' code: one object with every export of home, lobby, profile and after. */
export function loadScreens() {
  loading ??= Promise.all([import("./home.js"), import("./lobby.js"), import("./profile.js"), import("./after.js")]).then(
    (mods) => (loaded = Object.assign({}, ...mods)),
    (err) => {
      loading = null; // offline for a moment: the next render tries again
      throw err;
    },
  );
  return loading;
}

/** The screens' code if it is loaded already, else null. */
export function screens() {
  return loaded;
}
