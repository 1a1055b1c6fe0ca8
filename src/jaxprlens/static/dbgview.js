/* The debugger's DOM, for the live widget (dbglive.js) and the recorded replay (dbgreplay.js).  It draws nothing
   of its own: a frame's rows and a state's panel (crumbs, notes, values, source) come as HTML that Python wrote
   (present/rows.py Rows.row_html, views/dbgpanel.py); this module puts them in their boxes, touches only what a
   move changed (the rows between the old and the new position, the pieces whose HTML changed), and wires the
   buttons those fragments carry by their data-* attributes. */
import { el } from "./dom.js";

const KEYS = { n: "step", i: "into", o: "out", b: "back", c: "continue", r: "reset" };
const BUTTONS = ["step", "into", "out", "back", "continue", "reset"];

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
    // One table per box of f.chunk rows, each a box the browser skips while it is off screen (a table's own
    // row groups cannot be skipped: one class change would lay out all the rows again).  Live, a box past
    // the first message is an empty placeholder of the right height until it nears the view (lazy()).
    const frame = h("div", "jl-frame"), cols = (/<colgroup>.*?<\/colgroup>/.exec(f.head) || [""])[0];
    frame.setAttribute("data-path", f.path);
    const head = h("table", "jl-eqns jl-fhead");
    head.innerHTML = f.head;   // the kernel's escaped column heads
    frame.appendChild(head);
    const live = this.mode === "live", size = f.chunk;
    const n = live ? f.n : (f.from || 0) + f.rows.length;   // a replay has the rows it recorded
    const e = { table: frame, rows: [], boxes: [], byId: new Map(), marked: new Set(), pc: 0, cols: cols,
                n: n, size: size, per: f.per, rowH: 18, tail: null, path: f.path };
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
    if (live) e.boxes.forEach((box) => { if (!box.filled) this.lazy(e.per).observe(box); });
  }

  lazy(per) {   // asks the kernel for the rows of placeholder boxes near the view, up to `per` rows a message
    if (this.io) return this.io;
    this.io = new IntersectionObserver((entries) => {
      const want = entries.filter((x) => x.isIntersecting && !x.target.filled && !x.target.asked).map((x) => x.target);
      want.sort((a, b) => a.from - b.from);
      let run = null;
      const ask = () => { if (run) this.act("rows", { path: run.path, from: run.from, count: run.count }); };
      want.forEach((box) => {
        box.asked = true;
        if (run && run.path === box.path && run.from + run.count === box.from && run.count + box.count <= per) {
          run.count += box.count;
        } else { ask(); run = { path: box.path, from: box.from, count: box.count }; }
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
      const table = h("table", "jl-eqns"), body = h("tbody");
      table.innerHTML = e.cols;
      body.innerHTML = f.rows.slice(i, i + box.count).join("");   // Rows.row_html: escaped once in Python
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

  /* A state: {frame, pc, eqn, done, back, depth, marks | changed_eqns, view: {crumbs, notes, values, source}}. */
  show(s) {
    const f = this.frames.get(s.frame);
    if (f && this.current !== f) {
      this.scroller.textContent = "";
      this.scroller.appendChild(f.table);
      this.current = f;
      this.measure(f);
    }
    const view = s.view || {};
    Object.keys(this.boxes).forEach((k) => {     // a piece is put in only when its HTML changed
      const html = view[k] || "";
      if (this.shown[k] !== html) { this.boxes[k].innerHTML = html; this.shown[k] = html; }
    });
    if (f && s.marks) this.remark(f, s.marks.add || [], s.marks.drop || []);    // live: what changed
    else if (f && s.changed_eqns) this.marks(f, s.changed_eqns);                 // replay: the step's marks
    const end = !!s.done;
    ["step", "into", "continue"].forEach((n) => { this.buttons[n].disabled = end; });
    this.buttons.out.disabled = end || s.depth === 1;   // at the top level there is no caller to return to
    this.buttons.back.disabled = !s.back;
    if (f) this.position(f, s.pc);
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
    const box = this.scroller;
    let top, height;
    const within = (n) => {   // an element's top in the scroller (position:relative): offsets up to it
      let y = 0;
      for (; n && n !== box; n = n.offsetParent) y += n.offsetTop;
      return y;
    };
    if (f.cur) {
      top = within(f.cur); height = f.cur.offsetHeight;
    } else {
      const k = f.boxes[Math.floor(f.pc / f.size)];
      if (!k) return;
      top = within(k) + (f.pc - k.from) * f.rowH; height = f.rowH;
    }
    if (top < box.scrollTop + 24 || top + height > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }

  printed(text, replace) {
    if (replace) this.out.textContent = "";
    if (text) this.out.appendChild(document.createTextNode(text));
    this.outBox.hidden = !this.out.textContent;
  }
}
