/* The one DOM helper: an element with a class and text (always textContent: data never becomes markup). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

/* Words the kernel wrote into data-l-* attributes, in the reader's language. */
export function word(root, key, fallback) {
  return root.getAttribute("data-l-" + key) || fallback || "";
}

/* Rows Python wrote (present/rows.py: a row fragment, or several): the <tr> elements, parsed as a table's rows
   are (a <template> keeps them rows), not yet in the page.  The one way the script gets a row: it writes none. */
export function rowsOf(html) {
  const t = document.createElement("template");
  t.innerHTML = Array.isArray(html) ? html.join("") : html;
  return [...t.content.children];
}

/* The text front.py `deflated` stored (base64, deflate-raw unless `format` says otherwise). The loader, which
   runs before any module, inflates its own. */
export async function inflated(b64, format) {
  const bytes = Uint8Array.from(atob(b64.trim()), (c) => c.charCodeAt(0));
  return new Response(new Response(bytes).body.pipeThrough(new DecompressionStream(format || "deflate-raw"))).text();
}

/* What front.py `packed` stored in a view (deflated JSON in a <script class=cls>), or null. */
export async function unpack(root, cls) {
  const s = root.querySelector("script." + cls);
  return s ? JSON.parse(await inflated(s.textContent)) : null;
}
