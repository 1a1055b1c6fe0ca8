/* views/debugger/dbglive.js: the live debugger draws what the kernel (views/debugger/debugger.py) sends.  The kernel here is a
   fake model answering each ask with the messages the real Debugger sent for it (tests/js/fixtures.py). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page, recorded } from "./page.mjs";

const debug = await load("debugger.js");
const fx = fixture("live_debugger");
const later = (ms) => new Promise((done) => setTimeout(done, ms));

/* The debugger on a page; `withInvoke`: the front end has anywidget's invoke (this one does what anywidget's does,
   anywidget/nbextension/index.js: the command message sent, the reply with its id taken off the channel). */
function mount(withInvoke) {
  const doc = page("<div id=out></div>");
  const model = recorded(fx.answers, { labels: fx.labels, lang: "en" }), invoked = [];
  const invoke = (name, msg) => new Promise((resolve) => {
    const id = "invoke-" + invoked.push(msg);
    const reply = (m) => { if (m.id === id) { model.off("msg:custom", reply); resolve([m.response, []]); } };
    model.on("msg:custom", reply);
    model.send({ id, kind: "anywidget-command", name, msg });
  });
  debug.render({ model, el: doc.getElementById("out"), experimental: withInvoke ? { invoke } : undefined });
  return { root: doc.querySelector(".jl-dbg"), asked: model.asked, invoked };
}

const marked = (root) => [...root.querySelectorAll(".jl-dbg-frame tr.jl-row.jl-changed")].map((tr) => tr.dataset.eqn);

for (const withInvoke of [false, true]) test(`an edit's marks stay on the rows through moves that change none of them, to the end, where jax.jit's comparison is asked for (${withInvoke ? "anywidget's invoke" : "no invoke"})`, async () => {
  const { root, asked, invoked } = mount(withInvoke);
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
  await later(5);
  assert.deepEqual(marked(root), fx.marked);
  assert.ok(root.querySelector("button[data-do=step]").disabled);
  assert.deepEqual(asked.slice(-2), [{ do: "continue" }, { do: "compare" }]);    // the end drawn, then compared
  assert.equal(asked.length, fx.answers.length);
  assert.match(root.querySelector(".jl-dbg-notes").textContent, /jax\.jit/);
  assert.deepEqual(invoked, withInvoke ? asked : []);
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
