/* The live debugger: anywidget's render.  The kernel (views/debugger.py) sends a frame's rows once, then per
   move a small state whose panel is HTML (views/dbgpanel.py); this module only passes them to the view.  The page
   asks with anywidget's command ask (rpc.js); every view draws every message in the order it comes (an answer
   to its own ask or to another view's, a long move's progress), so two views of one debugger agree. */
import { Debugger } from "./dbgview.js";
import { replay } from "./dbgreplay.js";
import { answered, asker } from "./rpc.js";

const QUIET = new Set(["rows", "body"]);    // asks that change no state: not timed
const views = new Map();    // a debugger's key (views/debugger.py `instance`) -> the elements of its views here

export function render({ model, el, experimental }) {
  // the replay the widget carries (marimo: the widget is the debugger's only output), shown until the kernel answers
  let stored = null;
  if (model.get("fallback")) {
    stored = document.createElement("div");
    stored.innerHTML = model.get("fallback");
    el.appendChild(stored);
    stored.querySelectorAll('[data-jl-view="replay"]').forEach((r) => replay(r));
  }
  const root = document.createElement("div");
  el.appendChild(root);
  const key = model.get("instance");
  if (key) { if (!views.has(key)) views.set(key, new Set()); views.get(key).add(el); }
  let asked = null;                 // when the last move was sent: its round trip is said on the root
  const call = asker(model, experimental);
  const ask = (name, arg) => call("ask", Object.assign({ do: name }, arg || {})).then((msg) => {
    if (msg && msg.compare) ask("compare");     // the end is drawn: now its comparison with jax.jit
  }, () => {});                                 // (an ask the view outlived: dropped)
  const dbg = new Debugger(root, model.get("labels"), "live", (name, arg) => {
    if (name === "toggle") root.classList.add("jl-wait");
    if (!QUIET.has(name)) asked = performance.now();
    ask(name, arg);
  });
  const onMsg = (raw) => {
    const msg = answered(raw), t0 = performance.now();
    if (!msg) return;
    if (asked !== null && msg.state) { root.setAttribute("data-trip-ms", (t0 - asked).toFixed(1)); asked = null; }
    if (msg.frame) dbg.frame(msg.frame);
    if (msg.rows) dbg.rows(msg.rows);
    if (msg.bodies) dbg.bodies(msg.bodies);
    if (msg.bps) dbg.breakpoints(msg.bps);
    if (msg.conds) { dbg.nan.checked = msg.conds.indexOf("any NaN") >= 0; }
    if (msg.state) {
      dbg.show(msg.state);
      if (!root.classList.contains("jl-dbg-live")) {
        hideReplay(el, model.get("replay_box"));
        if (stored) { stored.remove(); stored = null; }
      }
      root.classList.add("jl-dbg-live");          // its kernel answered: shown
      showOne(key);
    }
    if (msg.out !== undefined) dbg.printed(msg.out, !!msg.clear);
    root.classList.remove("jl-wait");
    // how long the browser took to draw this message (the rest of a move is the kernel and the comm)
    requestAnimationFrame(() => root.setAttribute("data-draw-ms", (performance.now() - t0).toFixed(1)));
  };
  model.on("msg:custom", onMsg);
  ask("ready");
  return () => {
    call.close();
    model.off("msg:custom", onMsg);
    const mine = key && views.get(key);
    if (mine) { mine.delete(el); if (mine.size) showOne(key); else views.delete(key); }
  };
}

/* One view of a debugger on a page: a front end may draw its widget twice (in a shared notebook, jupyter-collaboration
   copies the widget's output over the replay's on the other collaborators' pages when one of them trusts the
   notebook); the last one on the page shows, the others take no room.  Each view still draws every message, so
   the one left shows the current state when the one shown goes. */
function showOne(key) {
  const els = [...(views.get(key) || [])].filter((e) => e.isConnected);
  const last = els.filter((e) => !els.some((o) => o !== e && (e.compareDocumentPosition(o) & Node.DOCUMENT_POSITION_FOLLOWING)));
  els.forEach((e) => { e.style.display = e === last[0] ? "" : "none"; });
}

/* The replay stored before this live view (views/debugger.py: the cell's first output) steps aside once the kernel
   answered: the box with its key that comes last before this view on the page, in any front end (JupyterLab,
   Notebook 7, nbclassic, VS Code, Voila).  Where no kernel answers, the replay is the debugger. */
function hideReplay(el, key) {
  if (!key) return;
  const before = [...document.querySelectorAll('[data-jl-out="' + key + '"]')]
    .filter((b) => b.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  if (before.length) before[before.length - 1].hidden = true;
}
