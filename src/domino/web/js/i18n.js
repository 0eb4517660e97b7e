// The text catalogue: the message files read by src/domino/i18n.py, served at /api/i18n/{lang},
// are the only one. A key it lacks shows as the key itself, so a missing text is visible (and the
// browser tests catch it). A plural entry is a list of forms; `plural` names the CLDR category of
// each form, so `Intl.PluralRules` picks one.

let catalogue = {};
let categories = ["one", "other"];
let current = "de";

/** The catalogue's address; with the version the page names, the browser may cache it for good. */
function catalogueUrl(lang) {
  let versions = {};
  try {
    versions = JSON.parse(document.querySelector('meta[name="domino-i18n"]')?.content || "{}");
  } catch {
    versions = {};
  }
  return versions[lang] ? `/api/i18n/${lang}?v=${versions[lang]}` : `/api/i18n/${lang}`;
}

/** Load the served catalogue for `lang` (German unless the player switched). */
export async function loadCatalogue(lang) {
  try {
    const res = await fetch(catalogueUrl(lang), { headers: { Accept: "application/json" } });
    if (res.ok) {
      const body = await res.json();
      catalogue = body && typeof body.messages === "object" ? body.messages : {};
      if (Array.isArray(body?.plural)) categories = body.plural;
      current = lang;
    }
  } catch {
    catalogue = {};
  }
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

/** The form of a plural entry `forms` for the count `n`. */
function form(forms, n) {
  const i = categories.indexOf(new Intl.PluralRules(current).select(n));
  return forms[i >= 0 && i < forms.length ? i : forms.length - 1];
}

export function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** The text for `key` with `{name}` placeholders filled from `params` (a plural entry by `n`). */
export function t(key, params = {}) {
  const entry = catalogue[key] ?? key;
  const text = Array.isArray(entry) ? form(entry, typeof params.n === "number" ? params.n : 2) : entry;
  return fill(text, params);
}

/** A count in words, in the language's plural form: "1 Punkt", "2 Punkte". */
export function tn(key, n, params = {}) {
  return t(key, { ...params, n });
}

/**
 * `text` as a sentence of its own, for the screen reader's live region: a title ("Runde 2",
 * "Du bist dran") gets a full stop, so parts read one after another do not run together.
 */
export function sentence(text) {
  const s = String(text ?? "").trim();
  return !s || /[.!?…:;]["“”»«']?$/.test(s) ? s : `${s}.`;
}
