/* views/table/live.js: a live table asks the kernel (views/table/live.py RowServer) for the rows its output did not store.
   The kernel here is a fake model answering with what the real RowServer answered (tests/js/fixtures.py). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fixture, load, page, scroll, type } from "./page.mjs";
import { shapes } from "./table_rows.mjs";

const live = await load("live.js");
const fx = fixture("live"), big = fixture("table");      // the same program; big.full: every row Python's HTML
const later = (ms) => new Promise((done) => setTimeout(done, ms));

/* What the kernel's LiveTable answered to an ask (its command ask's reply). */
const answer = (ask) => {
  const known = fx.answers.find(([a]) => JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(ask, Object.keys(ask).sort()));
  return known ? known[1] : { error: "not recorded: " + JSON.stringify(ask) };
};

/* anywidget's model in a front end with no invoke: traits, send, and custom messages back, as anywidget's
   command handler (anywidget/experimental.py) answers a command message. */
function model() {
  const traits = { html: fx.html, total: fx.total, calls: fx.calls, notes: fx.notes };
  const listeners = new Set(), sent = [];
  const reply = (msg) => ({ id: msg.id, kind: "anywidget-command-response", response: answer(msg.msg) });
  return {
    sent,
    get: (k) => traits[k],
    on: (name, f) => { if (name === "msg:custom") listeners.add(f); },
    off: (name, f) => listeners.delete(f),
    send: (msg) => { sent.push(msg); setTimeout(() => listeners.forEach((f) => f(reply(msg))), 0); },
    deliver: (msg) => listeners.forEach((f) => f(msg)),            // a message the kernel sent to another view
  };
}

async function mount(experimental) {
  const doc = page("<div id=out></div>"), m = model(), el = doc.getElementById("out");
  const dispose = live.render({ model: m, el, experimental });
  const root = el.querySelector(".jaxprlens");
  for (let i = 0; i < 500 && !root.hasAttribute("data-jl-ready"); i++) await later(10);   // the stored rows read
  return { root, m, dispose };
}

test("the live page says the rows come from the kernel, not that they are missing", async () => {
  const { root } = await mount();
  assert.deepEqual([...root.querySelectorAll("tbody.jl-cut td")].map((td) => td.textContent), fx.notes);
});

test("scrolling asks the kernel for the rows past those stored and draws them all", async () => {
  const { root, m } = await mount();
  scroll();
  await later(20);
  assert.deepEqual(m.sent.map((msg) => msg.msg), [{ do: "rows", from: fx.stored }]);
  assert.ok(m.sent.every((msg) => msg.kind === "anywidget-command" && msg.name === "ask" && typeof msg.id === "string"));
  for (let i = 0; i < 4; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, fx.every);
  assert.equal(root.querySelector("tbody.jl-cut"), null);                // nothing left unstored on the page
});

test("the rows the kernel sends are the rows Python writes as HTML: a loop's roles and its body's links", async () => {
  const ref = shapes(page(big.full).querySelector(".jaxprlens"));       // every row written as HTML by Python
  const { root } = await mount();
  scroll();
  await later(20);
  for (let i = 0; i < 4; i++) scroll();
  const got = shapes(root);
  assert.deepEqual([...got.keys()], [...ref.keys()]);
  for (const [id, want] of ref) assert.deepEqual(got.get(id), want, id);
  assert.ok(Number(big.while) > 400 + fx.stored);                       // a row only the kernel had...
  assert.deepEqual(got.get(big.while).roles.map(([role]) => role), ["cond_consts", "body_consts", "carry"]);
  assert.ok(got.get(big.while).from.length >= 3);                       // ...its body's binders linked to it
});

test("a search counts the kernel's matches past the page with the page's own", async () => {
  for (const [q, n] of Object.entries(fx.count)) {
    const { root, m } = await mount();
    const box = root.querySelector(".jl-tools input[type=search]"), counter = root.querySelector(".jl-note-js");
    type(box, q);
    await later(250);                                                  // live.js waits for a pause in the typing
    assert.deepEqual(m.sent.map((msg) => msg.msg), [{ do: "search", q, from: fx.stored }]);
    assert.equal(counter.textContent, `${n} matching rows`, q);
    const found = [...root.querySelectorAll("tbody.jl-found tr.jl-row:not(.jl-miss)")];
    const answer = fx.answers.find(([a]) => a.q === q)[1];
    const matching = found.filter((tr) => tr.dataset.primitive === q);
    assert.equal(matching.length, answer.shown, q);                     // every match the kernel sent is one here
    assert.ok(found.every((tr) => tr.dataset.primitive === q || tr.nextElementSibling.matches("tr.jl-nested")), q);
  }
});

test("answers meant for another view of the same model are ignored", async () => {
  const { root, m } = await mount();
  scroll();                                                                  // asks, with an id of its own
  const drawn = root.querySelectorAll("tr.jl-row").length;
  const [, rows] = fx.answers[0];
  m.deliver({ id: "another-view", kind: "anywidget-command-response", response: rows });   // another view's answer
  for (let i = 0; i < 4; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, drawn);
  await later(20);                                                           // this view's own answer
  for (let i = 0; i < 4; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, fx.every);
});

test("where the front end has anywidget's invoke, the table asks with it, with no time limit", async () => {
  const invoked = [];
  const invoke = async (name, msg, opts) => { invoked.push([name, msg, opts]); return [answer(msg), []]; };
  const { root, m } = await mount({ invoke });
  scroll();
  await later(20);
  for (let i = 0; i < 4; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, fx.every);
  assert.deepEqual(invoked.map(([name, msg]) => [name, msg]), [["ask", { do: "rows", from: fx.stored }]]);
  assert.deepEqual(m.sent, []);                                              // nothing sent by hand
  assert.equal(invoked[0][2].signal.aborted, false);                         // its own signal: not anywidget's 3 s
});

test("an ask still waiting when the view goes is dropped, not sent again", async () => {
  const signals = [];
  const invoke = (name, msg, opts) => new Promise((resolve, reject) => {
    signals.push(opts.signal);
    opts.signal.addEventListener("abort", () => reject(opts.signal.reason));
  });
  const { m, dispose } = await mount({ invoke });
  scroll();
  await later(5);
  assert.deepEqual(signals.map((s) => s.aborted), [false]);
  dispose();
  await later(5);
  assert.deepEqual(signals.map((s) => s.aborted), [true]);
  assert.deepEqual(m.sent, []);
});

test("where the front end's invoke refuses (marimo's throws), the same command goes over the widget's channel", async () => {
  let tried = 0;
  const invoke = async () => { tried += 1; throw new Error("anywidget.invoke not supported in marimo"); };
  const { root, m } = await mount({ invoke });
  scroll();
  await later(20);
  for (let i = 0; i < 4; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, fx.every);
  assert.equal(tried, 1);                                                    // tried once, then not again
  assert.deepEqual(m.sent.map((msg) => [msg.kind, msg.name, msg.msg]), [["anywidget-command", "ask", { do: "rows", from: fx.stored }]]);
});
