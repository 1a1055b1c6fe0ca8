/* static/dbglive.js: the live debugger draws what the kernel (views/debugger.py) sends.  The kernel here is a
   fake model answering each ask with the messages the real Debugger sent for it (tests/js/fixtures.py). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page } from "./page.mjs";

const debug = await load("debugger.js");
const fx = fixture("live_debugger");
const later = (ms) => new Promise((done) => setTimeout(done, ms));

/* A recorded message, numbered by the ask it answers as this page numbered it (`from` -> `to`). */
function renumber(msg, from, to) {
  const out = JSON.parse(JSON.stringify(msg));
  if (out.seq === from) out.seq = to;
  return out;
}

function mount() {
  const doc = page("<div id=out></div>"), listeners = new Set(), asked = [];
  let k = 0;
  const model = {
    get: (key) => (key === "labels" ? fx.labels : "en"),
    on: (name, f) => listeners.add(f), off: (name, f) => listeners.delete(f),
    send: (msg) => {
      asked.push(msg);
      const [ask, answers] = fx.answers[k++];
      const { seq, ...rest } = JSON.parse(JSON.stringify(msg));          // as the comm sends it: JSON
      const { seq: _, ...want } = ask;
      assert.deepEqual(rest, want);
      setTimeout(() => answers.forEach((a) => listeners.forEach((f) => f(renumber(a, ask.seq, seq)))), 0);
    },
  };
  debug.render({ model, el: doc.getElementById("out") });
  return { root: doc.querySelector(".jl-dbg"), asked };
}

const marked = (root) => [...root.querySelectorAll(".jl-dbg-frame tr.jl-row.jl-changed")].map((tr) => tr.dataset.eqn);

test("an edit's marks stay on the rows through moves that change none of them, to the end", async () => {
  const { root } = mount();
  await later(5);
  assert.equal(root.querySelector(".jl-dbg-frame tr.jl-hl").dataset.eqn, "0");
  click(root.querySelector("button[data-do=step]"));
  await later(5);
  click(root.querySelector(".jl-dbg-values tr.jl-value-data .jl-edit button[data-edit=nan]"));   // what eqn 0 wrote
  await later(5);
  assert.deepEqual(marked(root), ["0"]);
  assert.ok(root.querySelector(".jl-dbg-values tr.jl-value.jl-changed"));
  for (const name of ["step", "step", "continue"]) {
    click(root.querySelector(`button[data-do=${name}]`));
    await later(5);
    assert.ok(marked(root).includes("0"), name);
  }
  assert.deepEqual(marked(root), fx.marked);
  assert.ok(root.querySelector("button[data-do=step]").disabled);
});

test("a debugger drawn twice on one page (a shared notebook's copied output) shows one view, the last; the other takes its place when it goes", async () => {
  const doc = page("<div id=a></div><div id=b></div>"), listeners = new Set();
  const model = {
    get: (key) => (key === "labels" ? fx.labels : key === "instance" ? "42-1" : ""),
    on: (name, f) => listeners.add(f), off: (name, f) => listeners.delete(f),
    send: () => {},
  };
  const first = doc.getElementById("a"), second = doc.getElementById("b");
  debug.render({ model, el: first });
  const cleanup = debug.render({ model, el: second });
  fx.answers[0][1].forEach((m) => listeners.forEach((f) => f(m)));   // the kernel's answer reaches both views
  assert.equal(first.querySelector(".jl-dbg").classList.contains("jl-dbg-live"), true);
  assert.deepEqual([first.style.display, second.style.display], ["none", ""]);
  second.remove();                                                    // the one shown goes (its output replaced)
  cleanup();
  assert.equal(first.style.display, "");
});
