/* The live debugger: anywidget's render.  The kernel (views/debugger.py) sends a frame's rows once, then per
   move a small state whose panel is HTML (views/dbgpanel.py); this module only passes them to the view.
   A Step is painted at the click, before the kernel answers: after each answer the kernel sends ahead the state
   the next Step would show (Debugger.ahead), numbered by the ask it follows; a Step clicked while that ask is
   still the last one shows it at once, and its answer then confirms it (equal: nothing is drawn again) or
   corrects it.  Any other ask (Back, an edit, a breakpoint, a condition) makes it stale. */
import { Debugger } from "./dbgview.js";
import { replay } from "./dbgreplay.js";

const QUIET = new Set(["rows", "body"]);    // asks that change no state: they leave the prediction as it is
const views = new Map();    // a debugger's key (views/debugger.py `instance`) -> the elements of its views here

export function render({ model, el }) {
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
  // this view's asks, numbered (a widget may have two views: the kernel's messages reach both)
  const me = Math.random().toString(36).slice(2, 8);
  let n = 0, last = null;           // the number of the last ask that changes the state
  let ahead = null;                 // {seq, state}: what a Step from the state after ask `seq` shows
  let shown = null;                 // {seq, json}: a predicted state on the page, until its answer comes
  let guessed = 0, wrong = 0;
  const dbg = new Debugger(root, model.get("labels"), "live", (name, arg) => {
    if (QUIET.has(name)) { model.send(Object.assign({ do: name }, arg || {})); return; }
    if (name === "toggle") root.classList.add("jl-wait");
    const seq = me + ":" + (++n);
    const guess = name === "step" && ahead && ahead.seq === last ? ahead.state : null;
    last = seq; ahead = null;
    asked = performance.now();
    model.send(Object.assign({ do: name, seq: seq }, arg || {}));
    if (guess) {                    // painted now; the answer confirms it
      shown = { seq: seq, json: JSON.stringify(guess) };
      dbg.show(guess);
      root.setAttribute("data-guessed", String(++guessed));
    }
  });
  const onMsg = (msg) => {
    const t0 = performance.now();
    if (msg.ahead) {
      if (msg.ahead.rows) dbg.rows(msg.ahead.rows);           // sent once: taken at once, whatever comes next
      if (msg.ahead.bodies) dbg.bodies(msg.ahead.bodies);
      if (msg.ahead.step && msg.ahead.seq === last) { ahead = { seq: last, state: msg.ahead.step }; dbg.prepare(ahead.state); }
      return;
    }
    if (asked !== null && msg.state) { root.setAttribute("data-trip-ms", (t0 - asked).toFixed(1)); asked = null; }
    if (msg.frame) dbg.frame(msg.frame);
    if (msg.rows) dbg.rows(msg.rows);
    if (msg.bodies) dbg.bodies(msg.bodies);
    if (msg.bps) dbg.breakpoints(msg.bps);
    if (msg.conds) { dbg.nan.checked = msg.conds.indexOf("any NaN") >= 0; }
    if (msg.state) {
      const mine = shown && msg.seq === shown.seq;
      if (!(mine && JSON.stringify(msg.state) === shown.json)) {       // confirmed: nothing to draw again
        if (mine) root.setAttribute("data-guess-wrong", String(++wrong));
        dbg.show(msg.state);
      }
      if (mine) shown = null;
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
  const seq = me + ":" + (++n);
  last = seq;
  model.send({ do: "ready", seq: seq });
  return () => {
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
