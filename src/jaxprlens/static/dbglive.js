/* The live debugger: anywidget's render.  The kernel (views/debugger.py) sends a frame's rows once, then per
   move a small state whose panel is HTML (views/dbgpanel.py); this module only passes them to the view. */
import { Debugger } from "./dbgview.js";

export function render({ model, el }) {
  const root = document.createElement("div");
  el.appendChild(root);
  let asked = null;                 // when the last move was sent: its round trip is said on the root
  const dbg = new Debugger(root, model.get("labels"), "live", (name, arg) => {
    if (name === "toggle") root.classList.add("jl-wait");
    asked = performance.now();
    model.send(Object.assign({ do: name }, arg || {}));
  });
  const onMsg = (msg) => {
    const t0 = performance.now();
    if (asked !== null && msg.state) { root.setAttribute("data-trip-ms", (t0 - asked).toFixed(1)); asked = null; }
    if (msg.frame) dbg.frame(msg.frame);
    if (msg.rows) dbg.rows(msg.rows);
    if (msg.bodies) dbg.bodies(msg.bodies);
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
