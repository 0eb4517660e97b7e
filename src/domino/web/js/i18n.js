// The text catalogue: src/domino/i18n.py, served at /api/i18n/{lang}, is the only one. A key it
// lacks shows as the key itself, so a missing text is visible (and the browser tests catch it).

let catalogue = {};
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
      // Accept both {key: text} and {messages: {key: text}}.
      catalogue = body && typeof body.messages === "object" ? body.messages : body || {};
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

/** The text for `key` with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = catalogue[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** A count in words: `key_one` for exactly one ("1 Punkt"), else `key` ("2 Punkte"). */
export function tn(key, n, params = {}) {
  return t(n === 1 ? `${key}_one` : key, { ...params, n });
}

