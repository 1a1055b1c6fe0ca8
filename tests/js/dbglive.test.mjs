/* views/debugger/dbglive.js: the live debugger draws what the kernel (views/debugger/debugger.py) sends.  The kernel here is a
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
  if (out.ahead && out.ahead.seq === from) out.ahead.seq = to;
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

/* A kernel that answers only when told (`deliver(k)`: the recorded messages of ask k), numbered as asked. */
function slowKernel(fxa) {
  const doc = page("<div id=out></div>"), listeners = new Set(), asked = [];
  const model = {
    get: (key) => (key === "labels" ? fxa.labels : "en"),
    on: (name, f) => listeners.add(f), off: (name, f) => listeners.delete(f),
    send: (msg) => { if (msg.do !== "rows" && msg.do !== "body") asked.push(msg); },
  };
  debug.render({ model, el: doc.getElementById("out") });
  const root = doc.querySelector(".jl-dbg");
  const deliver = (k, messages) => (messages || fxa.answers[k]).forEach((m) => {
    const out = renumber(m, "s" + k, asked[k].seq);
    listeners.forEach((f) => f(out));
  });
  return { root, asked, deliver };
}

const ahead = fixture("live_ahead");
const hlOf = (root) => root.querySelector(".jl-dbg-frame tr.jl-hl").dataset.eqn;
const withoutAhead = (messages) => messages.filter((m) => !m.ahead);

test("a Step with a state computed ahead is painted at the click, before any answer; an equal answer draws nothing", async () => {
  const { root, asked, deliver } = slowKernel(ahead);
  deliver(0);                                                 // ready, then the first Step's state ahead
  assert.equal(hlOf(root), "0");
  click(root.querySelector("button[data-do=step]"));
  assert.equal(asked.length, 2);                              // asked, and
  assert.equal(hlOf(root), "1");                              // painted at once: no answer has come
  assert.equal(root.dataset.guessed, "1");
  const seen = [];
  const obs = new MutationObserver((records) => seen.push(...records));
  obs.observe(root.querySelector(".jl-dbg-main"), { subtree: true, attributes: true, childList: true, characterData: true });
  deliver(1);                                                 // its answer: the same state
  await later(5);
  obs.disconnect();
  assert.equal(seen.length, 0);                               // confirmed: nothing drawn again
  assert.equal(root.dataset.guessWrong, undefined);
  click(root.querySelector("button[data-do=step]"));          // the next one came ahead with the answer
  assert.equal(hlOf(root), "2");
});

test("an answer that differs from the state painted ahead is drawn", async () => {
  const { root, deliver } = slowKernel(ahead);
  deliver(0);
  click(root.querySelector("button[data-do=step]"));
  assert.equal(hlOf(root), "1");
  deliver(1, withoutAhead(ahead.answers[2]).map((m) => renumber(m, "s2", "s1")));   // another state answers it
  assert.equal(hlOf(root), "2");
  assert.equal(root.dataset.guessWrong, "1");
});

test("without a state computed ahead, or after another ask made it stale, a Step waits for its answer", async () => {
  const { root, deliver } = slowKernel(ahead);
  deliver(0, withoutAhead(ahead.answers[0]));                 // ready, nothing ahead
  click(root.querySelector("button[data-do=step]"));
  assert.equal(hlOf(root), "0");                              // waits
  deliver(1);
  assert.equal(hlOf(root), "1");
  assert.equal(root.dataset.guessed, undefined);
  click(root.querySelector("button[data-do=back]"));          // the Step ahead (from eqn 1) is stale now
  click(root.querySelector("button[data-do=step]"));
  assert.equal(hlOf(root), "1");
  assert.equal(root.dataset.guessed, undefined);
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
