/* A table's output in a live kernel (anywidget's render, views/live.py): the same HTML the output stores, and
   the rows it did not store asked of the kernel: the next ones as they near the view, those a search finds
   past what the page holds, a call's when it opens, each as Python's row fragments (views/live.py), asked with
   anywidget's command ask (rpc.js).  Only a live output loads this module (table.js keeps only the hooks: the d it is given, d.total, d.hits, d.extra). */
import { rowsOf, unpack } from "./dom.js";
import { asker } from "./rpc.js";
import * as table from "./table.js";
import * as graph from "./graph.js";

export function render({ model, el, experimental }) {
  const host = document.createElement("div");
  host.className = "jp-RenderedHTMLCommon jp-RenderedHTML";   // as JupyterLab shows the stored output: one look
  host.innerHTML = model.get("html");     // the output's own HTML, escaped once by the kernel (present/escape.py)
  el.appendChild(host);
  const call = asker(model, experimental);
  const ask = (msg, done) => call("ask", msg).then(done, () => {});   // (an ask the view outlived: dropped)
  const meta = { total: model.get("total"), calls: model.get("calls"), notes: model.get("notes") || [] };
  // main.js's boot, with the table given its kernel (main.js cannot be imported here: it imports this module)
  host.querySelectorAll("[data-jl-view]").forEach((root) => {
    const view = root.getAttribute("data-jl-view");
    if (view === "table") attach(root, ask, meta);
    else if (view === "graph" && graph.enhance) graph.enhance(root);
  });
  if (graph.link) graph.link(host);
  return call.close;
}

async function attach(root, ask, meta) {
  root.classList.add("jl-live");      // a call's "not stored" note is hidden: the kernel has its rows
  const st = await unpack(root, "jl-rows").catch(() => null);
  const d = { rows: (st && st.rows) || [], groups: (st && st.groups) || {}, total: meta.total };
  const t = table.enhance(root, d);
  if (!t) return;
  root.querySelectorAll("tbody.jl-cut td").forEach((td, i) => {   // "not stored" -> "from the kernel"
    if (meta.notes[i]) td.textContent = meta.notes[i];
  });
  let fetching = false, query = "", timer = null;

  /* ---- scrolling: the next rows asked for as the end of those the page has comes near ---- */
  function more() {
    if (fetching || query || d.rows.length >= meta.total) return;
    fetching = true;
    ask({ do: "rows", from: d.rows.length }, (m) => {
      fetching = false;
      if (m.from !== d.rows.length || !m.rows || !m.rows.length) return;
      d.rows.push(...m.rows);
      if (d.rows.length >= meta.total) {
        const cut = root.querySelector("tbody.jl-more ~ tbody.jl-cut");
        if (cut) cut.remove();
      }
      t.drawMore(400);
    });
  }
  const end = root.querySelector("tbody.jl-more td");
  if (end) {
    new IntersectionObserver((entries) => {   // farther out than table.js draws: rows come before they are needed
      if (entries.some((e) => e.isIntersecting)) more();
    }, { rootMargin: "3000px" }).observe(end);
  }

  /* ---- a call the output did not store: its rows asked for when it opens (a click, or a search) ---- */
  const asked = new Set();
  function open(tr) {
    const id = tr.getAttribute("data-group");
    if (!id || d.groups[id] || asked.has(id)) return;
    asked.add(id);
    tr.classList.add("jl-wait");
    const got = [];
    const next = (from) => ask({ do: "group", group: id, from: from }, (m) => {
      if (!m.rows) { tr.classList.remove("jl-wait"); return; }
      got.push(...m.rows);
      if (m.rows.length && got.length < m.total) { next(got.length); return; }
      d.groups[id] = got;
      if (d.hits) delete d.hits[id];       // counted from its rows now
      tr.classList.remove("jl-wait");
      if (tr.classList.contains("jl-open")) t.toggle(tr, true);
      if (query) rerun();
    });
    next(0);
  }
  new MutationObserver((changes) => changes.forEach((c) => {
    if (c.target.classList.contains("jl-grow") && c.target.classList.contains("jl-open")) open(c.target);
  })).observe(root, { subtree: true, attributes: true, attributeFilter: ["class"] });

  /* ---- search: the kernel searches what the page does not hold; its rows shown after those drawn ---- */
  const box = root.querySelector(".jl-tools input[type=search]");
  if (!box) return;
  const rerun = () => box.dispatchEvent(new Event("input"));
  root.addEventListener("input", (e) => {     // capture: before table.js searches, so it reads d as it is now
    if (e.target !== box) return;
    const q = box.value.trim().toLowerCase();
    if (q === query) return;
    query = q;
    d.extra = 0;
    d.hits = {};
    const old = root.querySelector("tbody.jl-found");
    if (old) {
      old.querySelectorAll("tr.jl-grow").forEach((tr) => t.built.delete(tr.getAttribute("data-group")));
      old.remove();
    }
    clearTimeout(timer);
    if (!q || (d.rows.length >= meta.total && !meta.calls)) return;
    timer = setTimeout(() => ask({ do: "search", q: q, from: d.rows.length }, (m) => {   // a pause after typing
      if (m.q !== query || m.from !== d.rows.length || !m.rows) return;
      d.hits = m.groups;
      Object.keys(d.hits).forEach((id) => { if (d.groups[id]) delete d.hits[id]; });   // held here: counted here
      d.extra = m.count - m.shown;            // the rows shown count themselves
      const body = document.createElement("tbody"), note = root.querySelector("tbody.jl-more");
      body.className = "jl-found";
      body.append(...rowsOf(m.rows));
      if (note) note.after(body);
      else if (m.rows.length) root.querySelector("table.jl-eqns").appendChild(body);
      rerun();
    }), 150);
  }, true);
}
