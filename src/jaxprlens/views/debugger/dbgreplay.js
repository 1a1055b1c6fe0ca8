/* The recorded replay (no kernel), booted by main.js from the data views/debugger/replay.py stored in the output.
   It defines no move and computes no statistic of its own: the recording stores, per step, where the engine's
   Step, Step out and Over call land from it (`o`, `u`, `c`: step indices; null past the recording; no `c`:
   where Step lands), the numbers the engine's
   conditions compare for each value the step wrote (`w`, in the order of data.conditions.stats,
   engine/conditions.py `stats`, Inf as "inf"), and its panel as indices into the shared HTML pieces (`p`, one
   per name of data.panel);
   Continue and Step out stop on the way as the engine's run() does. */
import { Debugger } from "./dbgview.js";
import { inflated } from "./dom.js";

function stops(s, bps, conds) {   // a breakpoint row is current, or a value the step wrote meets a condition
  if (s.eqn && bps.has(s.eqn)) return true;
  return conds.some((c) => (s.w || []).some(c));
}

function number(v) { return v === "inf" ? Infinity : v === "-inf" ? -Infinity : v; }

export function condition(text, grammar) {   // a typed condition, read with the stepper's grammar (data.conditions)
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

export async function replay(root) {
  if (root.getAttribute("data-jl-ready")) return;
  root.setAttribute("data-jl-ready", "1");
  const el = root.querySelector("script.jl-dbg-data");
  if (!el) return;
  start(root, JSON.parse(await inflated(el.textContent, el.getAttribute("data-z"))));   // views/debugger/replay.py stored()
}

function start(root, data) {
  const steps = data.steps, last = steps.length - 1, pieces = data.pieces;
  const stat = root.querySelector(".jl-dbg-static");
  if (stat) stat.remove();
  const host = document.createElement("div");
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
    const s = steps[at], view = {};
    data.panel.forEach((name, j) => { view[name] = pieces[s.p[j]]; });
    dbg.show(Object.assign({}, s, { view: view, back: past.length > 0, done: s.done || at === last && data.capped,
                                    changed_eqns: s.changed_eqns || [] }));      // none stored: no mark
    const capped = at === last && data.note ? data.note : "";
    if (dbg.capped.innerHTML !== capped) dbg.capped.innerHTML = capped;   // views/debugger/replay.py wrote it
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
      : name === "call" ? run(s.c !== undefined ? land(s.c, last) : land(s.o, at + 1))
      : name === "continue" ? run(last) : at;
    if (k === at || at >= last) return;
    past.push(at);
    go(k);
  });
  Object.values(data.frames).forEach((f) => dbg.frame(f));
  go(0);
}
