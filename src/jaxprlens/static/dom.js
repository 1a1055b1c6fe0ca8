/* The one DOM helper: an element with a class and text (always textContent: data never becomes markup). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

/* The JSON a view stores beside its HTML (one <script type="application/json"> per output). */
export function data(root, cls) {
  const s = root.querySelector("script." + (cls || "jl-data"));
  if (!s) return {};
  try { return JSON.parse(s.textContent); } catch (e) { return {}; }
}

/* Words the kernel wrote into data-l-* attributes, in the reader's language. */
export function word(root, key, fallback) {
  return root.getAttribute("data-l-" + key) || fallback || "";
}
