/* jaxprlens debugger front end: one ES module for the live widget (anywidget's render) and for the
   recorded replay stored in a notebook's HTML (replay, booted by main.js), which steps with no kernel.
   The kernel (or the recording) gives a frame's rows once; each move then sends only a small state:
   frame path, position, crumbs, notes, the current equation's values, source lines, printed output. */
import { el } from "./dom.js";

const KEYS = { n: "step", i: "into", o: "out", b: "back", c: "continue", r: "reset" };
const BUTTONS = ["step", "into", "out", "back", "continue", "reset"];

const h = el;      // the one DOM helper (dom.js)

// a big frame's compact row (dbgstate data_row), until the debugger inserts Python's rows (table.js draws none)
function frameRow(r) {
  const tr = h("tr", "jl-row"), eq = h("td", "jl-eq"), note = h("td", "jl-note");
  Object.assign(tr.dataset, { eqn: r.id, primitive: r.prim }, r.same ? { same: "" } : {});
  if (r.stmt) r.stmt.forEach((p, i) => eq.append(i % 2 ? h("var", "", p) : p)); else {
    r.outs.forEach(([v, ty]) => eq.append(h("var", "", v), h("span", "jl-type", ":" + ty), " "));
    eq.append(...(r.outs.length ? ["= "] : []), h("b", "jl-prim", r.prim), ...(r.params ? ["[", h("span", "jl-param", r.params), "]"] : []));
    r.ins.forEach((a, i) => eq.append(" ", r.lit && r.lit.includes(i) ? h("span", "jl-lit", a) : h("var", "", a)));
  }
  if (r.src && !r.same) note.append(h("div", "jl-src", r.src));
  tr.append(h("td", "", r.id.split("/").pop()), eq, note); return tr;
}

function histogram(counts, title) {   // a small bar chart of an array's finite values (SVG, theme colours)
  const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
  const max = Math.max.apply(null, counts) || 1, w = 4, H = 18;
  svg.setAttribute("class", "jl-hist");
  svg.setAttribute("width", String(counts.length * w));
  svg.setAttribute("height", String(H));
  svg.setAttribute("role", "img");
  const t = document.createElementNS(ns, "title");
  t.textContent = title + ": " + counts.join(" ");
  svg.appendChild(t);
  counts.forEach(function (c, i) {
    const r = document.createElementNS(ns, "rect"), hh = c ? Math.max(1, Math.round(c / max * H)) : 0;
    r.setAttribute("x", String(i * w)); r.setAttribute("width", String(w - 1));
    r.setAttribute("y", String(H - hh)); r.setAttribute("height", String(hh));
    svg.appendChild(r);
  });
  return svg;
}

function preview(text) {   // the printed value, NaN and Inf marked
  const pre = h("pre", "jl-val");
  String(text).split(/(-?\binf\b|\bnan\b)/).forEach(function (part, i) {
    pre.appendChild(i % 2 ? h("span", "jl-bad", part) : document.createTextNode(part));
  });
  return pre;
}

/* The debugger's DOM and how a state is drawn; `act(name, arg)` is the mode's (live or replay) move. */
class Debugger {
  constructor(root, labels, mode, act) {
    this.root = root; this.L = labels || {}; this.mode = mode; this.act = act;
    this.frames = new Map();            // path -> {table, rows: [tr], pc}
    this.bps = new Set();
    this.current = null;                // the shown frame
    this.busy = false;
    const L = this.L;
    root.classList.add("jaxprlens", "jl-dbg");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-mode", mode);
    const bar = h("div", "jl-dbg-bar");
    this.buttons = {};
    BUTTONS.forEach((name) => {
      const b = h("button", "jl-btn", L["btn_" + name] || name);
      b.type = "button";
      b.title = L["tip_" + name] || "";
      b.setAttribute("data-do", name);
      b.addEventListener("click", () => this.press(name));
      this.buttons[name] = b;
      bar.appendChild(b);
    });
    const cond = h("label", "jl-cond");
    this.nan = h("input"); this.nan.type = "checkbox"; this.nan.className = "jl-nan";
    this.nan.addEventListener("change", () => this.act("cond", { text: "any NaN", on: this.nan.checked }));
    cond.appendChild(this.nan); cond.appendChild(document.createTextNode(" " + (L.stop_on_nan || "stop on NaN")));
    bar.appendChild(cond);
    const when = h("label", "jl-cond");
    this.when = h("input"); this.when.type = "text"; this.when.className = "jl-when";
    this.when.placeholder = L.cond_example || "max > 1e3";
    this.when.addEventListener("change", () => {
      if (this.whenText) this.act("cond", { text: this.whenText, on: false });
      this.whenText = this.when.value.trim();
      if (this.whenText) this.act("cond", { text: this.whenText, on: true });
    });
    when.appendChild(document.createTextNode((L.stop_when || "stop when a value has") + " "));
    when.appendChild(this.when);
    bar.appendChild(when);
    this.badge = h("span", "jl-badge", mode === "live" ? L.mode_live || "live" : L.mode_replay || "recorded replay");
    this.badge.title = mode === "live" ? L.tip_live || "" : L.tip_replay || "";
    bar.appendChild(this.badge);
    root.appendChild(bar);
    root.appendChild(h("div", "jl-note jl-keys", L.keys_hint || ""));
    this.crumbs = h("div", "jl-crumbs");
    root.appendChild(this.crumbs);
    const main = h("div", "jl-dbg-main");
    this.scroller = h("div", "jl-dbg-frame");
    this.side = h("div", "jl-dbg-side");
    main.appendChild(this.scroller); main.appendChild(this.side);
    root.appendChild(main);
    this.outBox = h("div", "jl-dbg-printed");
    this.outBox.appendChild(h("div", "jl-cap", L.printed || "printed output"));
    this.out = h("pre", "jl-dbg-out");
    this.outBox.appendChild(this.out);
    this.outBox.hidden = true;
    root.appendChild(this.outBox);
    this.scroller.addEventListener("click", (e) => {   // the row's first cell (its gutter) toggles a breakpoint
      const td = e.target.closest && e.target.closest("td");
      const tr = td && td.parentNode;
      if (!tr || !tr.classList.contains("jl-row") || td !== tr.firstElementChild) return;
      this.act("toggle", { eqn: tr.getAttribute("data-eqn") });
    });
    this.keys(root);
  }

  keys(root) {   // n/i/o/b/c/r while the pointer or the focus is in the debugger (before JupyterLab's own keys)
    let inside = false;
    root.addEventListener("mouseenter", () => { inside = true; });
    root.addEventListener("mouseleave", () => { inside = false; });
    const onKey = (e) => {
      if (!root.isConnected) { window.removeEventListener("keydown", onKey, true); return; }
      if (!(inside || root.contains(document.activeElement))) return;
      if (e.ctrlKey || e.altKey || e.metaKey) return;
      const tag = e.target && e.target.tagName;
      if (tag === "INPUT" || tag === "TEXTAREA" || (e.target && e.target.isContentEditable)) return;
      const name = KEYS[(e.key || "").toLowerCase()];
      if (!name) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.type === "keydown") this.press(name);
    };
    window.addEventListener("keydown", onKey, true);
    window.addEventListener("keypress", onKey, true);
  }

  press(name) {
    const b = this.buttons[name];
    if (b && !b.disabled) this.act(name);
  }

  frame(f) {   // a frame's rows, drawn once and kept; a large live frame's rows come as they are scrolled to
    if (this.frames.has(f.path)) return;
    // One table per box of f.chunk rows, each a box the browser skips while it is off screen (a table's own
    // row groups cannot be skipped: one class change would lay out all the rows again).  Live, a box past
    // the first message is an empty placeholder of the right height until it nears the view (lazy()).
    const frame = h("div", "jl-frame"), cols = (/<colgroup>.*?<\/colgroup>/.exec(f.head) || [""])[0];
    frame.setAttribute("data-path", f.path);
    const head = h("table", "jl-eqns jl-fhead");
    head.innerHTML = f.head;   // the kernel's escaped column heads
    frame.appendChild(head);
    const live = this.mode === "live", size = f.chunk || 200;
    const n = live ? f.n || f.rows.length : (f.from || 0) + f.rows.length;   // a replay has the rows it recorded
    const e = { table: frame, rows: [], boxes: [], byId: new Map(), marked: new Set(), pc: 0, cols: cols,
                html: f.html, n: n, size: size, rowH: 18, tail: null, path: f.path };
    for (let i = 0; i < n; i += size) {
      const box = h("div", "jl-fchunk");
      box.from = i; box.count = Math.min(size, n - i); box.path = f.path;
      box.style.height = box.count * e.rowH + "px";
      e.boxes.push(box);
      frame.appendChild(box);
    }
    if (f.more) { e.tail = h("div", "jl-note jl-more-note", f.more); frame.appendChild(e.tail); }
    this.frames.set(f.path, e);
    this.rows(f);
    if (live) e.boxes.forEach((box) => { if (!box.filled) this.lazy().observe(box); });
  }

  lazy() {   // asks the kernel for the rows of placeholder boxes near the view, a run of boxes per message
    if (this.io) return this.io;
    this.io = new IntersectionObserver((entries) => {
      const want = entries.filter((x) => x.isIntersecting && !x.target.filled && !x.target.asked).map((x) => x.target);
      want.sort((a, b) => a.from - b.from);
      let run = null;
      const ask = () => { if (run) this.act("rows", { path: run.path, from: run.from, count: run.count }); };
      want.forEach((box) => {
        box.asked = true;
        const path = box.path;
        if (run && run.path === path && run.from + run.count === box.from && run.count < 2000) run.count += box.count;
        else { ask(); run = { path: path, from: box.from, count: box.count }; }
      });
      ask();
    }, { root: this.scroller, rootMargin: "400px 0px" });
    return this.io;
  }

  rows(f) {   // a chunk of a frame's rows (from f.from, at a box's start): they fill the boxes they belong to
    const e = this.frames.get(f.path);
    if (!e) return;
    let reveal = false;
    for (let i = 0; i < f.rows.length; i += e.size) {
      const box = e.boxes[Math.floor(((f.from || 0) + i) / e.size)];
      if (!box || box.filled) continue;
      const table = h("table", "jl-eqns"), part = f.rows.slice(i, i + box.count), body = h("tbody");
      table.innerHTML = e.cols;
      if (e.html) body.innerHTML = part.join("");   // Table.row_html: escaped once in Python
      else part.forEach((r) => body.appendChild(frameRow(r)));
      let j = box.from;
      for (const tr of body.children) {
        const id = tr.getAttribute("data-eqn");
        e.rows[j] = tr;
        e.byId.set(id, tr);
        tr.firstElementChild.classList.add("jl-gutter");
        tr.firstElementChild.title = this.L.tip_gutter || "";
        if (this.bps.has(id)) tr.classList.add("jl-bp");
        if (e.marked.has(id)) tr.classList.add("jl-changed");
        if (e.drawn && j < e.pc) tr.classList.add("jl-done");
        if (e.drawn && j === e.pc) { e.cur = tr; tr.classList.add("jl-hl"); reveal = true; }
        j++;
      }
      table.appendChild(body);
      box.appendChild(table);
      box.filled = true;
      box.style.height = "";
      if (this.io) this.io.unobserve(box);
    }
    this.measure(e);
    if (reveal && this.current === e) this.reveal(e);
  }

  measure(e) {   // placeholders as tall as the drawn rows (once the frame is on the page)
    if (e.measured || !e.table.isConnected) return;
    const box = e.boxes.find((b) => b.filled);
    if (!box || !box.offsetHeight) return;
    e.measured = true;
    e.rowH = box.offsetHeight / box.count;
    e.boxes.forEach((b) => { if (!b.filled) b.style.height = b.count * e.rowH + "px"; });
  }

  breakpoints(ids) {   // only the rows whose mark changes (a frame may have 100k rows)
    const next = new Set(ids), old = this.bps;
    this.bps = next;
    for (const f of this.frames.values()) {
      old.forEach((id) => { const tr = !next.has(id) && f.byId.get(id); if (tr) tr.classList.remove("jl-bp"); });
      next.forEach((id) => { const tr = !old.has(id) && f.byId.get(id); if (tr) tr.classList.add("jl-bp"); });
    }
  }

  show(s) {
    const f = this.frames.get(s.frame);
    if (f && this.current !== f) {
      this.scroller.textContent = "";
      this.scroller.appendChild(f.table);
      this.current = f;
      this.measure(f);
    }
    if (f) this.position(f, s.pc);
    this.crumbs.textContent = "";
    s.crumbs.forEach((c, i) => {
      if (i) this.crumbs.appendChild(document.createTextNode(" › "));
      this.crumbs.appendChild(h("span", "", c));
    });
    this.side.textContent = "";
    (s.notes || []).forEach((n) => {
      const note = this.side.appendChild(h("div", "jl-note jl-" + n[0], n[1]));
      if (n[0] === "jitskip" && this.mode === "live") {   // the comparison past its budget: run it on request
        const b = note.appendChild(h("button", "jl-btn jl-jit-btn", this.L.btn_jit || "compare now"));
        b.type = "button"; b.title = this.L.tip_jit || "";
        b.addEventListener("click", () => this.act("jit"));
      }
    });
    this.changed = new Set(s.changed || []);          // values an edit reached (what-if stepping)
    if (f && s.marks) this.remark(f, s.marks.add || [], s.marks.drop || []);    // live: what changed
    else if (f && s.changed_eqns) this.marks(f, s.changed_eqns);
    this.values(s.values || []);
    this.source(s.source);
    const end = !!s.done;
    ["step", "into", "out", "continue"].forEach((n) => { this.buttons[n].disabled = end; });
    this.buttons.out.disabled = end || s.depth === 1;   // at the top level there is no caller to return to
    this.buttons.back.disabled = !s.back;
  }

  marks(f, ids) {   // rows whose results an edit changed (only those whose mark changes are touched)
    const next = new Set(ids), old = f.marked;
    this.remark(f, ids.filter((id) => !old.has(id)), Array.from(old).filter((id) => !next.has(id)));
  }

  remark(f, add, drop) {   // marks added and dropped (rows not drawn yet get theirs when they come)
    drop.forEach((id) => { f.marked.delete(id); const tr = f.byId.get(id); if (tr) tr.classList.remove("jl-changed"); });
    add.forEach((id) => { f.marked.add(id); const tr = f.byId.get(id); if (tr) tr.classList.add("jl-changed"); });
  }

  editor(name) {   // the value panel's what-if actions for one value (live: through Stepper.set_value)
    const L = this.L, box = h("span", "jl-edit");
    if (this.mode !== "live") { box.title = L.edit_needs_kernel || ""; return box; }
    [["nan", L.edit_nan || "NaN"], ["zero", L.edit_zero || "0"], ["scale", L.edit_scale || "×2", 2],
     ["eps", L.edit_eps || "+ε"]].forEach((e) => {
      const b = h("button", "jl-btn jl-edit-btn", e[1]);
      b.type = "button";
      b.title = L.tip_edit || "";
      b.setAttribute("data-edit", e[0]);
      b.addEventListener("click", () => this.act("edit", { var: name, op: e[0], value: e[2] }));
      box.appendChild(b);
    });
    const input = h("input", "jl-edit-set");
    input.type = "text"; input.size = 6; input.placeholder = L.edit_set || "= value";
    input.addEventListener("change", () => {
      if (input.value.trim()) this.act("edit", { var: name, op: "set", value: input.value.trim() });
    });
    box.appendChild(input);
    return box;
  }

  position(f, pc) {   // only the drawn rows between the old and the new position change class, box by box
    const lo = f.drawn ? Math.min(f.pc, pc) : 0, hi = f.drawn ? Math.max(f.pc, pc) : pc;
    if (f.cur) f.cur.classList.remove("jl-hl");
    for (let k = Math.floor(lo / f.size); k < f.boxes.length && k * f.size < hi; k++) {
      const box = f.boxes[k];
      if (!box.filled) continue;
      for (let i = Math.max(lo, box.from); i < Math.min(hi, box.from + box.count); i++) {
        f.rows[i].classList.toggle("jl-done", i < pc);
      }
    }
    f.drawn = true;
    f.pc = pc;
    f.cur = f.rows[pc] || null;
    if (f.cur) f.cur.classList.add("jl-hl");
    this.reveal(f);
  }

  reveal(f) {   // scroll the current row into view (or, not drawn yet, where its box will draw it)
    const box = this.scroller, b = box.getBoundingClientRect();
    let top, height;
    if (f.cur) {
      const r = f.cur.getBoundingClientRect();
      top = r.top - b.top + box.scrollTop; height = r.height;
    } else {
      const k = f.boxes[Math.floor(f.pc / f.size)];
      if (!k) return;
      top = k.getBoundingClientRect().top - b.top + box.scrollTop + (f.pc - k.from) * f.rowH; height = f.rowH;
    }
    if (top < box.scrollTop + 24 || top + height > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }

  values(groups) {   // per value: a head row (where from, name and Python path, shape, dtype), then its data
    if (!groups.length) return;
    const L = this.L, table = h("table", "jl-values"), head = h("tr");
    ["", L.name || "name", L.shape || "shape", L.dtype || "dtype"].forEach((x) => head.appendChild(h("th", "", x)));
    table.appendChild(h("thead")).appendChild(head);
    const body = h("tbody");
    groups.forEach((g) => g.items.forEach((it) => {   // it: {name, path, shape, dtype, stats, preview, nan, inf, hist, min, max}
      // it: [name, path, shape, dtype, stats, preview, nan, inf, hist, min, max]
      const tr = h("tr", "jl-value"), name = h("td", "jl-vname");
      tr.setAttribute("data-var", it.name);
      if (it.nan || it.inf) tr.classList.add("jl-nonfinite");
      if (this.changed && this.changed.has(it.name)) {
        tr.classList.add("jl-changed");
        tr.title = L.changed_by_edit || "changed by an edit";
      }
      tr.appendChild(h("td", "jl-vtitle", g.title));
      name.appendChild(h("var", "", it.name));
      if (it.path && it.path !== it.name) name.appendChild(h("span", "jl-path", it.path));
      tr.appendChild(name);
      tr.appendChild(h("td", "", it.shape));
      tr.appendChild(h("td", "", it.dtype));
      body.appendChild(tr);
      const vr = h("tr", "jl-value-data"), cell = h("td", "jl-vcell");
      cell.colSpan = 4;
      if (it.stats) cell.appendChild(h("div", "jl-stats", it.stats));
      if (this.mode === "live" && /^[a-z_][a-z0-9_]*$/i.test(it.name)) cell.appendChild(this.editor(it.name));
      const row = h("div", "jl-vrow");
      if (it.hist) row.appendChild(histogram(it.hist, L.histogram || "histogram"));
      row.appendChild(preview(it.preview));
      cell.appendChild(row);
      vr.appendChild(cell);
      body.appendChild(vr);
    }));
    table.appendChild(body);
    this.side.appendChild(table);
  }

  source(src) {
    if (!src) return;
    const pre = h("pre", "jl-code");
    pre.setAttribute("data-where", src[0]);
    src[1].forEach((l, i) => {
      if (i) pre.appendChild(document.createTextNode("\n"));
      const span = h("span", "jl-line" + (l[2] ? " jl-hl" : ""), String(l[0]).padStart(4) + "  " + l[1]);
      span.setAttribute("data-line", String(l[0]));
      pre.appendChild(span);
    });
    this.side.appendChild(pre);
  }

  printed(text, replace) {
    if (replace) this.out.textContent = "";
    if (text) this.out.appendChild(document.createTextNode(text));
    this.outBox.hidden = !this.out.textContent;
  }
}

/* ------------------------------------------------------------------ live: anywidget's render */
function render({ model, el }) {
  const root = h("div");
  el.appendChild(root);
  const dbg = new Debugger(root, model.get("labels"), "live", (name, arg) => {
    if (name === "toggle") root.classList.add("jl-wait");
    model.send(Object.assign({ do: name }, arg || {}));
  });
  const onMsg = (msg) => {
    const t0 = performance.now();
    if (msg.frame) dbg.frame(msg.frame);
    if (msg.rows) dbg.rows(msg.rows);
    if (msg.bps) dbg.breakpoints(msg.bps);
    if (msg.conds) { dbg.nan.checked = msg.conds.indexOf("any NaN") >= 0; }
    if (msg.state) { dbg.show(msg.state); root.classList.add("jl-dbg-live"); }   // its kernel answered: shown
    if (msg.out !== undefined) dbg.printed(msg.out, !!msg.clear);
    root.classList.remove("jl-wait");
    // how long the browser took to draw this message (the rest of a move is the kernel and the comm)
    requestAnimationFrame(() => root.setAttribute("data-draw-ms", (performance.now() - t0).toFixed(1)));
  };
  model.on("msg:custom", onMsg);
  model.send({ do: "ready" });
  return () => model.off("msg:custom", onMsg);
}

/* ------------------------------------------------------------------ recorded replay (no kernel) */
/* The replay defines no move and computes no statistic of its own: the recording (views/replay.py) stores, per
   step, where the engine's Step and Step out land from it (`o`, `u`: step indices; null past the recording) and
   the numbers the engine's conditions compare for each value the step wrote (`w`, in the order of data.conditions.stats,
   engine/conditions.py `stats`, Inf as "inf"); Continue and Step out stop on the way as the engine's run() does. */
function stops(s, bps, conds) {   // a breakpoint row is current, or a value the step wrote meets a condition
  if (s.eqn && bps.has(s.eqn)) return true;
  return conds.some((c) => (s.w || []).some(c));
}

function number(v) { return v === "inf" ? Infinity : v === "-inf" ? -Infinity : v; }

function condition(text, grammar) {   // a typed condition, read with the stepper's grammar (data.conditions)
  const t = text.trim().toLowerCase().replace(/\s+/g, " ");
  if (grammar.nan.indexOf(t) >= 0) return (w) => (w[3] & 1) !== 0;
  if (grammar.inf.indexOf(t) >= 0) return (w) => (w[3] & 2) !== 0;
  const m = new RegExp(grammar.compare).exec(t);
  if (!m) return null;
  const i = grammar.stats.indexOf(m[1]), bound = Number(m[3]);
  const cmp = { ">": (a) => a > bound, "<": (a) => a < bound, ">=": (a) => a >= bound, "<=": (a) => a <= bound }[m[2]];
  // flag 4: a float32 value's numbers, stored in their shortest float32 digits: Math.fround gives back the very
  // float32, so the comparison is the engine's to the bit
  return (w) => w[i] !== null && w[i] !== undefined && cmp(w[3] & 4 ? Math.fround(number(w[i])) : number(w[i]));
}

function replay(root) {
  if (root.getAttribute("data-jl-ready")) return;
  root.setAttribute("data-jl-ready", "1");
  const el = root.querySelector("script.jl-dbg-data");
  if (!el) return;
  const data = JSON.parse(el.textContent), steps = data.steps, last = steps.length - 1;
  for (let k = 1; k < steps.length; k++) {   // 0: the same source lines as the step before (stored once)
    if (steps[k].source === 0) steps[k].source = steps[k - 1].source;
  }
  const stat = root.querySelector(".jl-dbg-static");
  if (stat) stat.remove();
  const host = h("div");
  root.appendChild(host);
  let at = 0;
  const past = [];                  // the step before each move: Back undoes the last move, as Stepper.back does
  const bps = new Set(), conds = {};
  const condList = () => Object.values(conds).filter(Boolean);
  const land = (k, absent) => (k === undefined ? absent : k === null ? last : k);
  const run = (to) => {             // on towards step `to`, stopping where the engine's run() stops
    let k = at + 1;
    while (k < to && !stops(steps[k], bps, condList())) k++;
    return Math.min(k, last);
  };
  const go = (i) => {
    at = Math.max(0, Math.min(last, i));
    const s = Object.assign({}, steps[at], { back: past.length > 0, done: steps[at].done || at === last && data.capped });
    dbg.show(s);
    if (at === last && data.note) dbg.side.insertBefore(h("div", "jl-note jl-capped", data.note), dbg.side.firstChild);
    let text = "";
    for (let k = 1; k <= at; k++) text += steps[k].out || "";
    dbg.printed(text, true);
    root.setAttribute("data-step", String(at));
  };
  const dbg = new Debugger(host, data.labels, "replay", (name, arg) => {
    if (name === "toggle") {
      bps.has(arg.eqn) ? bps.delete(arg.eqn) : bps.add(arg.eqn);
      dbg.breakpoints(Array.from(bps));
      return;
    }
    if (name === "cond") { conds[arg.text] = arg.on ? condition(arg.text, data.conditions) : null; return; }
    if (name === "reset") { past.length = 0; go(0); return; }
    if (name === "back") { if (past.length) go(past.pop()); return; }
    const s = steps[at];
    const k = name === "into" ? at + 1
      : name === "step" ? land(s.o, at + 1)
      : name === "out" ? run(land(s.u, last))
      : name === "continue" ? run(last) : at;
    if (k === at || at >= last) return;
    past.push(at);
    go(k);
  });
  Object.values(data.frames).forEach((f) => dbg.frame(f));
  go(0);
}

export { render, replay };
