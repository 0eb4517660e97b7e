// Signing in and out, and the checks the sign-in and profile forms make before they ask.

import { t } from "./i18n.js";
import { setToken } from "./net.js";
import { logOut } from "./api.js";
import { app, live } from "./state.js";
import { route, go, render } from "./router.js";

// The limits the server checks too (Settings.name_max, password_min): the forms say them first,
// in the app's own words (the browser's validation bubble speaks the browser's language).
const NAME_MAX = 24;
const PASSWORD_MIN = 8;

/** A catalogue text for a bad name, or null when the name is fine. */
export function nameProblem(name) {
  if (!name) return t("name_empty");
  if (name.length > NAME_MAX) return t("name_too_long", { limit: NAME_MAX });
  return null;
}

/** A catalogue text for a password too short, or null when it will do. */
export function passwordProblem(password) {
  return password.length < PASSWORD_MIN ? t("password_too_short", { limit: PASSWORD_MIN }) : null;
}

/** Show `text` in the form's error line and mark `field` (null text: clear both). */
export function fieldError(err, field, text) {
  err.textContent = text || "";
  if (field) {
    if (text) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
    if (text) field.focus();
  }
  return !text;
}

/** Signed in (`res`: {token, profile}): the socket starts again under the new token. */
export function signedIn(res) {
  setToken(res.token);
  app.profile = res.profile;
  live.stop();
  live.start();
  const r = route();
  if (r.name === "lobby" && r.arg) render();
  else go("#/");
}

/** Signed out: the token is gone, whether the server heard of it or not. */
export async function logout() {
  try {
    await logOut();
  } catch {
    /* the token is dropped here anyway */
  }
  signedOut();
}

/** The token is no more (signed out, or refused by the server): back to the start page. */
export function signedOut() {
  setToken(null);
  live.stop();
  app.profile = null;
  go("#/");
}
