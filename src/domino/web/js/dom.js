// A tiny element builder. Text always goes in as textContent: names come from other people.

/**
 * h("button.primary", {onclick, "aria-label": "..."}, "Text", child, ...)
 * Attributes starting with "on" become listeners; `dataset` and `style` objects are merged.
 */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style" && typeof v === "object") {
      for (const [sk, sv] of Object.entries(v)) {
        if (sk.startsWith("--")) el.style.setProperty(sk, sv);
        else el.style[sk] = sv;
      }
    }
    else if (k === "html") el.innerHTML = v; // only for our own SVG markup, never for names
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Focus the element with data-focus-key `key` inside `root`, if it is there. */
export function refocus(root, key) {
  if (!key) return false;
  const el = root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if (el && !el.disabled) {
    el.focus({ preventScroll: true });
    return true;
  }
  return false;
}

/**
 * Run `render`, which rebuilds `container`; if the keyboard focus was inside it, put it back on
 * the element with the same data-focus-key. A redraw (a resize, a snapshot, a selection) must
 * never take the place of a keyboard or controller player.
 */
export function keepFocus(container, render) {
  const el = document.activeElement;
  const key = el && el !== document.body && container.contains(el) ? el.dataset?.focusKey : null;
  render();
  if (key && !container.contains(document.activeElement)) refocus(container, key);
}
