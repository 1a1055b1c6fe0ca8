/* The table's script: search, all params, def/use highlight, hover help, the rows past the head inserted as they
   scroll into view, and calls folded into one row each (their rows inserted the first time they open).  Every row
   is Python's (present/rows.py): the script inserts the fragments the output stores (dom.js unpack) or a live
   kernel sends (live.js), and writes none.  The HTML it enhances reads the same without it.  A live table passes
   `d`, which it keeps adding to: d.rows up to d.total, d.groups (a call's rows), d.hits (a search's count in each
   call not stored), d.extra (matches the page does not hold). */
import { el, word, rowsOf, unpack } from "./dom.js";

/* What a search reads of a row (Rows.search_text reads the same of the HTML): its id, its line and its source
   line (`carried`: the run's, on a row continuing one). */
export function rowText(tr, carried) {
  const eq = tr.querySelector(".jl-eq"), src = tr.querySelector(".jl-src");
  const where = tr.hasAttribute("data-same") ? carried : src ? src.textContent : "";
  return (tr.getAttribute("data-eqn") + " " + (eq ? eq.textContent : "") + " " + where).toLowerCase();
}

/* rowText of each row among `trs` (rows and call rows, in the page's order): a run's line carried within one
   table, a call row ending the run. */
export function rowTexts(trs) {
  const carry = new Map(), out = new Map();
  trs.forEach((tr) => {
    const key = tr.closest("table");
    if (tr.classList.contains("jl-grow")) { carry.set(key, ""); return; }
    if (!tr.classList.contains("jl-row")) return;
    const src = tr.querySelector(".jl-src");
    if (src && !tr.hasAttribute("data-same")) carry.set(key, src.textContent);
    out.set(tr, rowText(tr, carry.get(key) || ""));
  });
  return out;
}

const ROWS = "tr.jl-row, tr.jl-grow";
const within = (trs) => trs.flatMap((tr) => [tr, ...tr.querySelectorAll(ROWS)]).filter((tr) => tr.matches(ROWS));

export function enhance(root, given) {     // given: live.js's d (the stored rows, and what the kernel sends)
  if (!root || root.getAttribute("data-jl-ready")) return;
  root.setAttribute("data-jl-ready", "1");
  const d = given || { rows: [], groups: {} };
  const built = new Set();          // calls whose rows are in the page
  const parsed = new Map();         // call id -> its rows parsed (not yet in the page), their texts, its calls
  let selected = null, shown = 0, lazyIO = null;

  function group(id) {              // a call's stored rows, parsed the first time a search or a click needs them
    if (!parsed.has(id) && d.groups[id]) {
      const trs = rowsOf(d.groups[id]), all = within(trs);
      parsed.set(id, { trs, all, text: rowTexts(all) });
    }
    return parsed.get(id);
  }

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

  /* ---- rows past the head, inserted as they scroll into view ---- */
  function drawMore(count) {
    const more = root.querySelector("tbody.jl-more");
    if (!more || shown >= d.rows.length) return;
    const body = el("tbody", "jl-chunk"), end = Math.min(d.rows.length, shown + count);
    body.innerHTML = d.rows.slice(shown, end).join("");   // Python's rows (a folded table's hold calls too)
    shown = end;
    more.parentNode.insertBefore(body, more);
    if (end >= d.rows.length && !(d.total > end)) { more.remove(); if (lazyIO) lazyIO.disconnect(); }
  }
  function start() {
    const note = root.querySelector("tbody.jl-more td");
    if (note && (d.rows.length || d.total)) {
      note.textContent = "\u2026";
      lazyIO = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) drawMore(400);
      }, { rootMargin: "800px" });
      lazyIO.observe(note);
    }
    const stored = d.rows.concat(...Object.values(d.groups));
    if (!root.querySelector(".jl-param.jl-default") && stored.some((h) => h.includes("jl-default"))) allParams();
    if (box.value) search(box.value, counter);       // typed before the stored rows were read
  }

  /* ---- calls folded into a row each; a call's rows are inserted the first time it opens ---- */
  const depthOf = new Map();        // a call's nesting below the table's top rows
  function toggle(tr, open) {
    const id = tr.getAttribute("data-group"), depth = depthOf.get(id) || 0;
    tr.classList.toggle("jl-open", open);
    tr.firstChild.textContent = open ? "\u25be" : "\u25b8";
    if (open && !built.has(id) && group(id)) {
      built.add(id);
      let after = tr;
      group(id).trs.forEach((row) => {
        if (row.classList.contains("jl-grow")) depthOf.set(row.getAttribute("data-group"), depth + 1);
        row.dataset.in = id;
        const cell = row.classList.contains("jl-nested") ? row.children[0] : row.children[1];
        if (cell) cell.style.paddingLeft = (4 + 18 * (depth + 1)) + "px";
        after.after(row);
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

  /* ---- search: every equation whose id, line (names, primitive, params) or source line matches, or that is in
     a call whose name matches ---- */
  const label = (tr) => tr.querySelector(".jl-gname").textContent.toLowerCase();
  function groupHits(id, hit, inherited, memo) {   // matching equations inside a call (folded or not)
    const key = id + (inherited ? "+" : "");
    if (memo.has(key)) return memo.get(key);
    let n = (d.hits || 0)[id] | 0;      // a call not stored: the kernel counted its matches
    const g = group(id);
    if (g) g.all.forEach((tr) => {
      if (tr.classList.contains("jl-grow")) n += groupHits(tr.getAttribute("data-group"), hit, inherited || hit(label(tr), ""), memo);
      else if (inherited || hit(g.text.get(tr), tr.getAttribute("data-primitive"))) n++;
    });
    memo.set(key, n);
    return n;
  }
  function search(q, counter) {
    q = q.trim().toLowerCase();
    if (!q) {
      root.querySelectorAll(".jl-miss").forEach((r) => r.classList.remove("jl-miss"));
      counter.textContent = "";
      return;
    }
    drawMore(d.rows.length);      // search looks at every row, inserted or not
    const hit = (text, prim) => prim === q || text.includes(q), memo = new Map();   // a primitive by name
    const text = rowTexts([...root.querySelectorAll(ROWS)]);
    const textOf = (tr) => {        // a row the search itself inserted (a call it opened): the text parsed with it
      if (text.has(tr)) return text.get(tr);
      const host = tr.closest("tr[data-in]"), g = host && parsed.get(host.getAttribute("data-in"));
      return (g && g.text.get(tr)) || "";
    };
    const rowHit = (tr, inherited) => inherited || hit(textOf(tr), tr.getAttribute("data-primitive"));
    let n = d.extra | 0;
    const visitGroup = (tr, inherited) => {   // open exactly the calls that hold matches
      const id = tr.getAttribute("data-group"), inh = inherited || hit(label(tr), "");
      const k = groupHits(id, hit, inh, memo);
      tr.classList.toggle("jl-miss", !k);
      if (!k) { if (tr.classList.contains("jl-open")) toggle(tr, false); return 0; }
      if (!tr.classList.contains("jl-open")) toggle(tr, true);
      root.querySelectorAll('tr[data-in="' + CSS.escape(id) + '"]').forEach((r) => {
        if (r.classList.contains("jl-grow")) visitGroup(r, inh);
        else within([r]).forEach((row) => row.classList.toggle("jl-miss", !rowHit(row, inh)));
      });
      return k;
    };
    root.querySelectorAll("tr.jl-row").forEach((r) => {      // the rows outside any call's rows
      if (r.closest('tr[data-in]:not([data-in=""])')) return;
      const ok = rowHit(r, false);
      r.classList.toggle("jl-miss", !ok);
      if (ok) n++;
    });
    root.querySelectorAll('tr.jl-grow[data-in=""]').forEach((tr) => { n += visitGroup(tr, false); });
    root.querySelectorAll("tr.jl-nested").forEach((r) => {
      const ok = r.querySelector("tr.jl-row:not(.jl-miss)");
      r.classList.toggle("jl-miss", !ok);
      const parent = ok && root.querySelector('tr.jl-row[data-eqn="' + CSS.escape(r.getAttribute("data-parent")) + '"]');
      if (parent) parent.classList.remove("jl-miss");
      if (ok) r.querySelectorAll("details").forEach((x) => {     // a match in a sub-jaxpr: its fold opens
        if (x.querySelector("tr.jl-row:not(.jl-miss)")) x.open = true;
      });
    });
    counter.textContent = word(root, n === 1 ? "matchone" : "matches").replace("{n}", n);
  }

  /* ---- the bar above the table ---- */
  const bar = el("div", "jl-tools"), box = el("input"), counter = el("span", "jl-note-js");
  box.type = "search";
  box.placeholder = word(root, "search");
  box.setAttribute("aria-label", word(root, "search"));
  box.title = word(root, "search");
  box.addEventListener("input", () => search(box.value, counter));
  bar.append(box, counter);
  function allParams() {
    const tick = el("label"), check = el("input");
    check.type = "checkbox";
    check.addEventListener("change", () => root.classList.toggle("jl-allparams", check.checked));
    tick.append(check, " " + word(root, "allparams"));
    bar.append(tick);
  }
  if (root.querySelector(".jl-param.jl-default")) allParams();
  root.prepend(bar);

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
    if (p && !p.title) {         // a primitive's hover: its row's explanation
      const ex = p.closest("tr").querySelector(".jl-explain");
      if (ex) p.title = ex.textContent;
    }
  });
  const ready = given ? Promise.resolve(start())
    : unpack(root, "jl-rows").then((s) => { if (s) Object.assign(d, s); }, () => {}).then(start);
  return { drawMore, toggle, built, ready };     // live.js inserts what the kernel sends
}
