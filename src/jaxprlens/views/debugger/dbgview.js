/* The debugger's DOM, for the live widget (dbglive.js) and the recorded replay (dbgreplay.js).  It draws nothing
   of its own: a frame's rows and a state's panel (crumbs, notes, values, source) come as HTML that Python wrote
   (present/rows.py Rows.row_html, views/debugger/panel.py); this module puts them in their boxes, touches only what a
   move changed (the rows between the old and the new position, the pieces whose HTML changed), and wires the
   buttons those fragments carry by their data-* attributes.  A frame folded by the program's Python calls
   (views/debugger/fold.py) comes as boxes, one per call (its row, then its body, drawn when it first opens): a move
   into another call opens and closes only the calls on the two paths. */
import { el } from "./dom.js";

const KEYS = { n: "step", i: "into", o: "out", f: "call", b: "back", c: "continue", r: "reset" };
const BUTTONS = ["step", "into", "out", "call", "back", "continue", "reset"];
const OPEN = "\u25be", SHUT = "\u25b8";     // a call's row: open, folded (present/rows.py OPEN, SHUT)

const h = el;      // the one DOM helper (dom.js)

/* `act(name, arg)` is the mode's (live or replay) move. */
export class Debugger {
  constructor(root, labels, mode, act) {
    this.root = root; this.L = labels || {}; this.mode = mode; this.act = act;
    this.frames = new Map();            // path -> {table, rows: [tr], boxes, byId, marked, pc, ...}
    this.bps = new Set();
    this.current = null;                // the shown frame
    this.shown = {};                    // piece name -> the HTML its box holds
    const L = this.L;
    root.classList.add("jaxprlens", "jl-dbg");
    root.setAttribute("tabindex", "0");
    root.setAttribute("data-mode", mode);
    root.appendChild(this.bar());
    root.appendChild(h("div", "jl-note jl-keys", L.keys_hint || ""));
    this.crumbs = h("div", "jl-crumbs");
    root.appendChild(this.crumbs);
    const main = h("div", "jl-dbg-main");
    this.scroller = h("div", "jl-dbg-frame");
    this.side = h("div", "jl-dbg-side");
    this.capped = h("div", "jl-dbg-capped");          // a replay's last step: why the recording ends there
    this.boxes = { crumbs: this.crumbs, notes: h("div", "jl-dbg-notes"), values: h("div", "jl-dbg-values"),
                   source: h("div", "jl-dbg-src") };
    this.side.appendChild(this.capped);
    ["notes", "values", "source"].forEach((k) => this.side.appendChild(this.boxes[k]));
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
      if (tr && tr.classList.contains("jl-grow")) { this.peek(tr.closest(".jl-fgroup")); return; }
      if (!tr || !tr.classList.contains("jl-row") || td !== tr.firstElementChild) return;
      this.act("toggle", { eqn: tr.getAttribute("data-eqn") });
    });
    this.side.addEventListener("click", (e) => this.sideClick(e));
    this.side.addEventListener("change", (e) => {      // a typed value for the what-if "set"
      const input = e.target.closest && e.target.closest("input.jl-edit-set");
      const box = input && input.closest(".jl-edit");
      if (!box || !input.value.trim()) return;
      this.act("edit", { var: box.getAttribute("data-var"), op: "set", value: input.value.trim() });
    });
    this.keys(root);
  }

  bar() {   // the moves, the conditions, the mode's badge
    const L = this.L, bar = h("div", "jl-dbg-bar");
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
    const live = this.mode === "live";
    this.badge = h("span", "jl-badge", live ? L.mode_live || "live" : L.mode_replay || "recorded replay");
    this.badge.title = live ? L.tip_live || "" : L.tip_replay || "";
    bar.appendChild(this.badge);
    return bar;
  }

  sideClick(e) {   // the buttons the panel's HTML carries: the jit comparison, the what-if edits
    const b = e.target.closest && e.target.closest("button");
    if (!b) return;
    if (b.getAttribute("data-act") === "jit") { this.act("jit"); return; }
    const op = b.getAttribute("data-edit"), box = b.closest(".jl-edit");
    if (!op || !box) return;
    const value = b.getAttribute("data-value");
    this.act("edit", { var: box.getAttribute("data-var"), op: op, value: value === null ? undefined : Number(value) });
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
    // Its body (f.body, Python's): a box per call and placeholders of at most f.chunk rows, each a box the
    // browser skips while it is off screen (a table's own row groups cannot be skipped: one class change would
    // lay out all the rows again).  A placeholder is filled once its chunk's rows came (live: asked for when it
    // nears the view, lazy()); a replay has the rows it recorded.
    const frame = h("div", "jl-frame");
    frame.setAttribute("data-path", f.path);
    const head = h("table", "jl-eqns jl-fhead");
    head.innerHTML = f.head;   // the kernel's escaped column heads
    const cols = head.querySelector("colgroup");     // each box of rows takes the same widths
    frame.appendChild(head);
    const body = h("div", "jl-fbody jl-froot");
    body.innerHTML = f.body || "";      // views/debugger/fold.py: escaped once in Python
    frame.appendChild(body);
    const e = { table: frame, rows: [], chunks: new Map(), got: new Map(), asked: new Set(), groups: new Map(),
                byId: new Map(), marked: new Set(), opened: new Set(), call: null, pc: 0, cols: cols,
                size: f.chunk, per: f.per, rowH: 18, tail: null, path: f.path, boxes: [] };
    if (f.more) { e.tail = h("div", "jl-note jl-more-note", f.more); frame.appendChild(e.tail); }
    this.frames.set(f.path, e);
    this.place(e, body);
    (f.groups || []).forEach(([id, html]) => this.body(e, id, html));
    this.rows(f);
  }

  place(e, piece) {   // the boxes a new piece of the frame holds: calls, and placeholders of rows
    piece.querySelectorAll(".jl-fgroup").forEach((g) => { if (!e.groups.has(g.getAttribute("data-group"))) e.groups.set(g.getAttribute("data-group"), g); });
    piece.querySelectorAll(".jl-fchunk").forEach((box) => {
      if (box.from !== undefined) return;
      box.from = Number(box.getAttribute("data-from")); box.count = Number(box.getAttribute("data-count"));
      box.path = e.path;
      box.style.height = box.count * e.rowH + "px";
      const k = Math.floor(box.from / e.size);
      if (!e.chunks.has(k)) e.chunks.set(k, []);
      e.chunks.get(k).push(box);
      e.boxes.push(box);
      if (e.got.has(k)) this.fill(e, box, e.got.get(k));
      else if (this.mode === "live") this.lazy(e.per).observe(box);
    });
  }

  body(e, id, html) {   // a call's body (views/debugger/fold.py body_html), into its box
    const g = e.groups.get(id);
    if (!g || g.filled) return;
    g.filled = true;
    g.lastElementChild.innerHTML = html;
    this.place(e, g.lastElementChild);
  }

  bodies(b) {   // live: the bodies of calls a move went into (or the reader opened), outer first
    const e = this.frames.get(b.path);
    if (!e) return;
    b.groups.forEach(([id, html]) => this.body(e, id, html));
    if (e.peek && e.peek.filled) { this.open(e, e.peek, true); e.peek = null; }    // the call the reader opened
  }

  fold(e, call) {   // the calls holding the current equation open, every other one folded: only the two paths change
    if (e.call === call && e.drawn) return;
    e.call = call;
    const path = new Set();
    for (let n = call ? e.groups.get(call) : null; n && n !== e.table; n = n.parentElement) {
      if (n.classList.contains("jl-fgroup")) path.add(n);
    }
    e.opened.forEach((g) => { if (!path.has(g)) this.open(e, g, false); });
    path.forEach((g) => this.open(e, g, true));
  }

  open(e, g, on) {
    if (g.classList.contains("jl-open") === on) return;
    g.classList.toggle("jl-open", on);
    if (on) e.opened.add(g); else e.opened.delete(g);
    const cell = g.querySelector("tr.jl-grow > td");
    if (cell) cell.textContent = on ? OPEN : SHUT;
  }

  peek(g) {   // a folded call the reader clicks: opened (its body asked for, live) until the next move into a call
    const e = this.current;
    if (!g || !e) return;
    if (g.filled) { this.open(e, g, !g.classList.contains("jl-open")); return; }
    if (this.mode === "live") { this.act("body", { path: e.path, group: g.getAttribute("data-group") }); e.peek = g; }
  }

  lazy(per) {   // asks the kernel for the chunks of rows of placeholders near the view, up to `per` rows a message
    if (this.io) return this.io;
    this.io = new IntersectionObserver((entries) => {
      const want = new Map();        // path -> chunk indices
      entries.forEach((x) => {
        const box = x.target, e = this.frames.get(box.path);
        if (!x.isIntersecting || box.filled || !e) return;
        const k = Math.floor(box.from / e.size);
        if (e.asked.has(k) || e.got.has(k)) return;
        e.asked.add(k);
        if (!want.has(box.path)) want.set(box.path, []);
        want.get(box.path).push(k);
      });
      want.forEach((ks, path) => {
        const e = this.frames.get(path), size = e.size;
        ks.sort((a, b) => a - b);
        let run = null;
        const ask = () => { if (run) this.act("rows", { path: path, from: run.from * size, count: run.n * size }); };
        ks.forEach((k) => {
          if (run && run.from + run.n === k && (run.n + 1) * size <= per) run.n += 1;
          else { ask(); run = { from: k, n: 1 }; }
        });
        ask();
      });
    }, { root: this.scroller, rootMargin: "400px 0px" });
    return this.io;
  }

  rows(f) {   // rows of a frame from f.from (a chunk's start): kept per chunk, they fill the boxes they belong to
    const e = this.frames.get(f.path);
    if (!e) return;
    let reveal = false;
    for (let i = 0; i < f.rows.length; i += e.size) {
      const k = Math.floor(((f.from || 0) + i) / e.size);
      if (e.got.has(k)) continue;
      const rows = f.rows.slice(i, i + e.size);
      e.got.set(k, rows);
      (e.chunks.get(k) || []).forEach((box) => { if (this.fill(e, box, rows)) reveal = true; });
    }
    this.measure(e);
    if (reveal && this.current === e) this.reveal(e);
  }

  fill(e, box, rows) {   // a placeholder's rows (Rows.row_html, escaped once in Python), from its chunk's
    if (box.filled) return false;
    const k = Math.floor(box.from / e.size), start = box.from - k * e.size;
    if (start + box.count > rows.length) return false;          // a replay's last chunk holds only what it reached
    const table = h("table", "jl-eqns"), body = h("tbody");
    if (e.cols) table.appendChild(e.cols.cloneNode(true));
    body.innerHTML = rows.slice(start, start + box.count).join("");
    let j = box.from, cur = false;
    for (const tr of body.children) {
      const id = tr.getAttribute("data-eqn");
      e.rows[j] = tr;
      e.byId.set(id, tr);
      tr.firstElementChild.classList.add("jl-gutter");
      tr.firstElementChild.title = this.L.tip_gutter || "";
      if (this.bps.has(id)) tr.classList.add("jl-bp");
      if (e.marked.has(id)) tr.classList.add("jl-changed");
      if (e.drawn && j < e.pc) tr.classList.add("jl-done");
      if (e.drawn && j === e.pc) { e.cur = tr; tr.classList.add("jl-hl"); cur = true; }
      j++;
    }
    table.appendChild(body);
    box.appendChild(table);
    box.filled = true;
    box.style.height = "";
    if (this.io) this.io.unobserve(box);
    return cur;
  }

  measure(e) {   // placeholders as tall as the drawn rows (once the frame is on the page)
    if (e.measured || !e.table.isConnected) return;
    const box = e.boxes.find((b) => b.filled && b.offsetHeight);
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

  /* A state: {frame, pc, eqn, done, back, depth, marks | changed_eqns, view: {crumbs, notes, values, source}}.
     Where the new row is on the page is read first, before anything is written (a read after a write would
     lay the page out once more, at once: in JupyterLab that is most of a Step). */
  show(s) {
    const f = this.frames.get(s.frame);
    const aim = f && this.current === f && f.drawn && f.call === (s.call || null) ? this.aim(f, s.pc) : undefined;
    if (f && this.current !== f) {
      this.scroller.textContent = "";
      this.scroller.appendChild(f.table);
      this.current = f;
      this.measure(f);
    }
    const view = s.view || {};
    Object.keys(this.boxes).forEach((k) => {     // a piece is put in only when its HTML changed
      const html = view[k] || "";
      if (this.shown[k] === html) return;
      this.boxes[k].innerHTML = html;
      this.shown[k] = html;
    });
    if (f) this.fold(f, s.call || null);
    if (f && s.marks) this.remark(f, s.marks.add || [], s.marks.drop || []);    // live: what changed
    else if (f && s.changed_eqns) this.marks(f, s.changed_eqns);                 // replay: the step's marks
    const end = !!s.done;
    ["step", "into", "continue"].forEach((n) => { this.buttons[n].disabled = end; });
    this.buttons.out.disabled = end || s.depth === 1;   // at the top level there is no caller to return to
    this.buttons.call.disabled = end || !s.call;         // in no call of the frame's (or an unfolded frame)
    this.buttons.back.disabled = !s.back;
    if (f) this.position(f, s.pc, aim);
  }

  aim(f, pc) {   // the scroller's new scrollTop to show row pc (null: it is in view), read before any write
    const tr = f.rows[pc];
    if (!tr || !tr.isConnected) return undefined;
    return this.scrollFor(this.within(tr), tr.offsetHeight);
  }

  within(n) {   // an element's top in the scroller (position:relative): offsets up to it
    let y = 0;
    for (; n && n !== this.scroller; n = n.offsetParent) y += n.offsetTop;
    return y;
  }

  scrollFor(top, height) {
    const box = this.scroller;
    return top < box.scrollTop + 24 || top + height > box.scrollTop + box.clientHeight
      ? Math.max(0, top - box.clientHeight / 3) : null;
  }

  marks(f, ids) {   // rows whose results an edit changed (only those whose mark changes are touched)
    if (!ids.length && !f.marked.size) return;
    const next = new Set(ids), old = f.marked;
    this.remark(f, ids.filter((id) => !old.has(id)), Array.from(old).filter((id) => !next.has(id)));
  }

  remark(f, add, drop) {   // marks added and dropped (rows not drawn yet get theirs when they come)
    drop.forEach((id) => { f.marked.delete(id); const tr = f.byId.get(id); if (tr) tr.classList.remove("jl-changed"); });
    add.forEach((id) => { f.marked.add(id); const tr = f.byId.get(id); if (tr) tr.classList.add("jl-changed"); });
  }

  position(f, pc, aim) {   // only the drawn rows between the old and the new position change class, chunk by chunk
    const lo = f.drawn ? Math.min(f.pc, pc) : 0, hi = f.drawn ? Math.max(f.pc, pc) : pc;
    if (f.cur) f.cur.classList.remove("jl-hl");
    for (let k = Math.floor(lo / f.size); k * f.size < hi; k++) {
      (f.chunks.get(k) || []).forEach((box) => {
        if (!box.filled) return;
        for (let i = Math.max(lo, box.from); i < Math.min(hi, box.from + box.count); i++) {
          f.rows[i].classList.toggle("jl-done", i < pc);
        }
      });
    }
    f.drawn = true;
    f.pc = pc;
    f.cur = f.rows[pc] || null;
    if (f.cur) f.cur.classList.add("jl-hl");
    if (aim === undefined) this.reveal(f);      // (aim: where show() read it would scroll to, or null: in view)
    else if (aim !== null) this.scroller.scrollTop = aim;
  }

  reveal(f) {   // scroll the current row into view (or, not drawn yet, where its box will draw it)
    const box = this.scroller;
    let top, height;
    if (f.cur) {
      top = this.within(f.cur); height = f.cur.offsetHeight;
    } else {
      const k = (f.chunks.get(Math.floor(f.pc / f.size)) || []).find((b) => b.from <= f.pc && f.pc < b.from + b.count);
      if (!k) return;
      top = this.within(k) + (f.pc - k.from) * f.rowH; height = f.rowH;
    }
    const to = this.scrollFor(top, height);
    if (to !== null) box.scrollTop = to;
  }

  printed(text, replace) {
    if (replace) this.out.textContent = "";
    if (text) this.out.appendChild(document.createTextNode(text));
    this.outBox.hidden = !this.out.textContent;
  }
}
