/* The table's script: search, all params, def/use highlight, hover help, rows drawn from data as they scroll
   into view, and calls folded into one row each.  The HTML it enhances reads the same without it.  A live
   table (live.js) passes the data `d` it keeps adding to from the kernel: rows up to d.total, a call's rows,
   d.hits (a search's count in each call not stored), d.extra (matches the page does not hold). */
import { el, data, word } from "./dom.js";

/* A data row ({id, prim, depth, outs: [[name, type], ...], params, ins: [operand, ...], lit: [index of a
   literal, ...], src, same}) as the table's row; `frame`: one level of a debugger frame (no indent, the id's
   last part). */
export function dataRow(r, frame) {
  const tr = el("tr", "jl-row"), eq = el("td", "jl-eq"), note = el("td", "jl-note");
  tr.dataset.eqn = r.id;
  tr.dataset.primitive = r.prim;
  if (r.same) tr.dataset.same = "";
  if (!frame) eq.style.paddingLeft = (4 + 18 * (r.depth || 0)) + "px";
  if (r.stmt) r.stmt.forEach((p, i) => eq.append(i % 2 ? el("var", "", p) : p)); else {   // c:f32[3] <- b[...]
  r.outs.forEach(([v, ty]) => eq.append(el("var", "", v), el("span", "jl-type", ":" + ty), " "));   // text, never markup
  if (r.outs.length) eq.append("= ");
  eq.append(el("b", "jl-prim", r.prim));
  if (r.params) eq.append("[", el("span", "jl-param", r.params), "]");
  r.ins.forEach((a, i) => eq.append(" ", r.lit && r.lit.includes(i) ? el("span", "jl-lit", a) : el("var", "", a))); }
  if (r.src && !r.same) note.append(el("div", "jl-src", r.src));
  tr.append(el("td", "", frame ? r.id.split("/").pop() : r.id), eq, note);
  return tr;
}

/* A call folded into one row: {group, label, count, site, cross, depth}. */
export function groupRow(g) {
  const tr = el("tr", "jl-grow"), eq = el("td", "jl-eq"), note = el("td", "jl-note");
  tr.dataset.group = g.group;
  eq.append(el("b", "jl-gname", g.label), " ", el("span", "jl-type", g.count));
  if (g.site) note.append(el("div", "jl-src", g.site));
  note.append(el("div", "jl-cross", g.cross));
  tr.append(el("td", "", "\u25b8"), eq, note);
  return tr;
}

/* Each data row's source line, also on the rows that continue a run (they show it once, search sees it on all). */
export function withSources(items, last) {     // last: the line a first row continuing a run has (live.js)
  items.forEach((it) => {
    if (it.group !== undefined) { last = ""; return; }
    if (it.src) last = it.src;
    it.line = it.same ? last : it.src || "";
  });
  return items;
}

function itemText(it) {
  return [it.id, it.prim, it.params, it.line].concat(it.outs.map((b) => b.join(":")), it.ins).join(" ").toLowerCase();
}

export function enhance(root, d = data(root)) {     // d: given by live.js
  if (!root || root.getAttribute("data-jl-ready")) return;
  root.setAttribute("data-jl-ready", "1");
  const explain = d.explain || {}, groups = d.groups || {};
  const rows = withSources(d.rows || []);
  Object.values(groups).forEach(withSources);
  const drawn = new WeakMap();      // a row the script drew -> its data
  const built = new Set();          // calls whose rows are drawn
  let selected = null, shown = 0, lazyIO = null;

  /* ---- values: a name, and the binders of sub-jaxprs bound from it, highlighted together ---- */
  function vars(name) {
    const all = root.querySelectorAll("var"), names = new Set([name]);
    let grew = true;
    while (grew) {
      grew = false;
      all.forEach((v) => {
        const from = v.getAttribute("data-from");
        if (from && names.has(from) && !names.has(v.textContent)) { names.add(v.textContent); grew = true; }
      });
    }
    return [...all].filter((v) => names.has(v.textContent));
  }
  const isDef = (v) => !!(v.nextElementSibling && v.nextElementSibling.classList.contains("jl-type"));
  function select(name) {
    root.querySelectorAll(".jl-vsel,.jl-vdef").forEach((e) => e.classList.remove("jl-vsel", "jl-vdef"));
    if (!name || selected === name) { selected = null; return; }
    selected = name;
    vars(name).forEach((e) => {
      e.classList.add("jl-vsel");
      if (isDef(e)) e.classList.add("jl-vdef");
    });
  }

  /* ---- rows past the head, drawn as they scroll into view ---- */
  function drawMore(count) {
    const more = root.querySelector("tbody.jl-more");
    if (!more || shown >= rows.length) return;
    const body = el("tbody", "jl-chunk"), end = Math.min(rows.length, shown + count);
    for (let i = shown; i < end; i++) {      // a folded table's later top-level rows hold calls too
      const it = rows[i], call = it.group !== undefined, tr = call ? groupRow(it) : dataRow(it);
      if (call) tr.dataset.in = ""; else drawn.set(tr, it);
      body.appendChild(tr);
    }
    shown = end;
    more.parentNode.insertBefore(body, more);
    if (end >= rows.length && !(d.total > end)) { more.remove(); if (lazyIO) lazyIO.disconnect(); }
  }
  if (rows.length) {
    const note = root.querySelector("tbody.jl-more td");
    if (note) {
      note.textContent = "\u2026";
      lazyIO = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) drawMore(400);
      }, { rootMargin: "800px" });
      lazyIO.observe(note);
    }
  }

  /* ---- calls folded into a row each; a call's rows are drawn the first time it opens ---- */
  const depthOf = new Map();        // a call's nesting below the table's top rows
  function toggle(tr, open) {
    const id = tr.getAttribute("data-group"), depth = depthOf.get(id) || 0;
    tr.classList.toggle("jl-open", open);
    tr.firstChild.textContent = open ? "\u25be" : "\u25b8";
    if (open && !built.has(id) && groups[id]) {
      built.add(id);
      let after = tr;
      (groups[id] || []).forEach((it) => {
        const call = it.group !== undefined, row = call ? groupRow(it) : dataRow(it);
        if (call) depthOf.set(it.group, depth + 1);
        else drawn.set(row, it);
        row.dataset.in = id;
        row.children[1].style.paddingLeft = (4 + 18 * (depth + 1 + (call ? 0 : it.depth))) + "px";
        after.parentNode.insertBefore(row, after.nextSibling);
        after = row;
      });
    }
    root.querySelectorAll("tr[data-in]").forEach((r) => {
      const parent = r.getAttribute("data-in"), inside = parent === id || parent.startsWith(id + "/");
      if (parent === id) r.hidden = !open;
      else if (!open && inside) r.hidden = true;
      if (!open && inside && r.classList.contains("jl-open")) {
        r.classList.remove("jl-open");
        r.firstChild.textContent = "\u25b8";
      }
    });
  }

  /* ---- search: every equation whose name, primitive, params, source line or call matches ---- */
  function rowHit(tr, hit, carried) {
    const it = drawn.get(tr);
    if (it) return hit(itemText(it), it.prim);
    return hit((tr.textContent + " " + carried).toLowerCase(), tr.getAttribute("data-primitive"));
  }
  function groupHits(id, hit, inherited, memo) {   // matching equations inside a call (folded or not)
    const key = id + (inherited ? "+" : "");
    if (memo.has(key)) return memo.get(key);
    let n = (d.hits || 0)[id] | 0;      // a call not stored: the kernel counted its matches
    (groups[id] || []).forEach((it) => {
      if (it.group !== undefined) n += groupHits(it.group, hit, inherited || hit(it.label.toLowerCase(), ""), memo);
      else if (inherited || hit(itemText(it), it.prim)) n++;
    });
    memo.set(key, n);
    return n;
  }
  function search(q, counter) {
    q = q.trim().toLowerCase();
    if (q) drawMore(rows.length);      // search looks at every row, drawn or not
    const hit = (text, prim) => prim === q || text.includes(q), memo = new Map();   // a primitive by name
    let n = d.extra | 0, carried = "";
    const visitGroup = (tr, inherited) => {   // open exactly the calls that hold matches
      const id = tr.getAttribute("data-group");
      const inh = inherited || hit(tr.querySelector(".jl-gname").textContent.toLowerCase(), "");
      const k = groupHits(id, hit, inh, memo);
      tr.classList.toggle("jl-miss", !k);
      if (!k) { if (tr.classList.contains("jl-open")) toggle(tr, false); return 0; }
      if (!tr.classList.contains("jl-open")) toggle(tr, true);
      root.querySelectorAll('tr[data-in="' + CSS.escape(id) + '"]').forEach((r) => {
        if (r.classList.contains("jl-grow")) visitGroup(r, inh);
        else r.classList.toggle("jl-miss", !(inh || rowHit(r, hit, "")));
      });
      return k;
    };
    if (!q) {
      root.querySelectorAll(".jl-miss").forEach((r) => r.classList.remove("jl-miss"));
      counter.textContent = "";
      return;
    }
    root.querySelectorAll("tr.jl-row:not([data-in])").forEach((r) => {
      const src = r.querySelector(".jl-src");
      if (src && !r.hasAttribute("data-same")) carried = src.textContent;
      const ok = rowHit(r, hit, r.hasAttribute("data-same") ? carried : "");
      r.classList.toggle("jl-miss", !ok);
      if (ok) n++;
    });
    root.querySelectorAll("tr.jl-grow:not([data-in]), tr.jl-grow[data-in='']").forEach((tr) => { n += visitGroup(tr, false); });
    root.querySelectorAll("tr.jl-nested").forEach((r) => {
      const ok = r.querySelector("tr.jl-row:not(.jl-miss)");
      r.classList.toggle("jl-miss", !ok);
      const parent = ok && root.querySelector('tr.jl-row[data-eqn="' + CSS.escape(r.getAttribute("data-parent")) + '"]');
      if (parent) parent.classList.remove("jl-miss");
    });
    counter.textContent = word(root, n === 1 ? "matchone" : "matches").replace("{n}", n);
  }

  /* ---- the bar above the table ---- */
  if (root.classList.contains("jl-table")) {
    const bar = el("div", "jl-tools"), box = el("input"), counter = el("span", "jl-note-js");
    box.type = "search";
    box.placeholder = word(root, "search");
    box.addEventListener("input", () => search(box.value, counter));
    bar.append(box, counter);
    if (root.querySelector(".jl-param.jl-default")) {
      const label = el("label"), check = el("input");
      check.type = "checkbox";
      check.addEventListener("change", () => root.classList.toggle("jl-allparams", check.checked));
      label.append(check, " " + word(root, "allparams"));
      bar.append(label);
    }
    root.prepend(bar);
  }

  root.addEventListener("click", (e) => {
    const t = e.target.closest ? e.target : null;
    const g = t && t.closest("tr.jl-grow");
    if (g && root.contains(g)) { toggle(g, !g.classList.contains("jl-open")); return; }
    const v = t && t.closest("var");
    if (v && root.contains(v)) select(v.textContent);
  });
  root.addEventListener("mouseover", (e) => {
    const t = e.target.closest ? e.target : null;
    const v = t && t.closest("var");
    if (v && !v.title) {     // a name's hover: its type, from the binder that defines it
      const def = vars(v.textContent).filter(isDef)[0];
      if (def) v.title = v.textContent + def.nextElementSibling.textContent;
    }
    const p = t && t.closest(".jl-prim");
    if (p && !p.title) {
      const prim = p.textContent, first = explain[prim] ? null
        : root.querySelector('tr.jl-row[data-primitive="' + CSS.escape(prim) + '"] .jl-explain');
      const text = explain[prim] || (first && first.textContent);
      if (text) p.title = text;
    }
  });
  return { drawMore, toggle, built };     // live.js draws what the kernel sends
}
