/* views/debugger/dbgview.js on a frame folded by the program's Python calls (views/debugger/fold.py): the calls holding the
   current equation open, the others one row each; Over call lands where the engine's over_call does
   (engine/landings.py; tests/js/fixtures.py ran it), live and in the replay; a move opens and closes only the
   calls on the two paths, the rows drawn stay the same nodes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page, recorded } from "./page.mjs";

const debug = await load("debugger.js");
const fx = fixture("dbgfold");
const later = (ms) => new Promise((done) => setTimeout(done, ms));

async function replay() {
  const doc = page(fx.html);
  const root = doc.querySelector("[data-jl-view]");
  await debug.replay(root);
  return root;
}

const opened = (root) => [...root.querySelectorAll(".jl-dbg-frame .jl-fgroup.jl-open")].map((g) => g.dataset.group);
const current = (root) => root.querySelector(".jl-dbg-frame tr.jl-hl").dataset.eqn;
const crumbs = (root) => [...root.querySelectorAll(".jl-crumbs span")].map((s) => s.textContent);
const label = (root, id) => root.querySelector(`.jl-fgroup[data-group="${id}"] .jl-gname`).textContent;
const row = (root, id) => root.querySelector(`.jl-fgroup[data-group="${id}"] tr.jl-grow`);

test("the replay opens with the calls holding the first equation open, the crumbs naming them", async () => {
  const root = await replay();
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.1"]);
  assert.equal(current(root), "0");
  assert.deepEqual(crumbs(root), ["top", label(root, "layers/_stage.1"), label(root, "layers/_stage.1/_unit.1"), "eqn 0"]);
  assert.equal(label(root, "layers/_stage.2"), "_stage (call 2 of 3)");
  // the frame's own level: its three calls, one row each; the first call's twenty calls inside it
  const top = root.querySelector(".jl-dbg-frame .jl-froot");
  assert.equal(top.querySelectorAll(":scope > .jl-fgroup").length, 3);
  assert.equal(row(root, "layers/_stage.1").firstElementChild.textContent, "\u25be");
  assert.equal(row(root, "layers/_stage.2").firstElementChild.textContent, "\u25b8");
  assert.ok(!root.querySelector("button[data-do=call]").disabled);
});

test("Over call lands where the engine's does, and only the calls on the two paths change", async () => {
  const root = await replay();
  const first = root.querySelector('.jl-dbg-frame tr.jl-row[data-eqn="0"]');
  click(root.querySelector("button[data-do=call]"));
  assert.equal(current(root), String(fx.over));
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.2"]);
  assert.equal(root.querySelector('.jl-dbg-frame tr.jl-row[data-eqn="0"]'), first);   // the same row, not redrawn
  assert.ok(first.classList.contains("jl-done"));
  for (let i = 1; i < 20; i++) click(root.querySelector("button[data-do=call]"));
  assert.equal(current(root), "120");                                       // the second stage's first equation
  assert.deepEqual(opened(root), ["layers/_stage.2", "layers/_stage.2/_unit.1"]);
  click(root.querySelector("button[data-do=back]"));
  assert.equal(current(root), "114");
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.20"]);
});

test("a click opens a folded call to look in; the next move into a call folds it again", async () => {
  const root = await replay();
  click(row(root, "layers/_stage.3").firstElementChild);
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.1", "layers/_stage.3"]);
  click(root.querySelector("button[data-do=step]"));                         // within the same call: nothing folds
  assert.equal(opened(root).length, 3);
  click(root.querySelector("button[data-do=call]"));
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.2"]);
  click(root.querySelector("button[data-do=continue]"));
  assert.deepEqual(opened(root), []);                                        // done: every call folded
  assert.ok(root.querySelector("button[data-do=call]").disabled);
});

test("live: a move into a call draws the body the kernel sends; a click asks for a folded call's", async () => {
  const doc = page("<div id=out></div>");
  const model = recorded(fx.answers, { labels: fx.labels, lang: "en" });
  debug.render({ model, el: doc.getElementById("out") });
  await later(5);
  const root = doc.querySelector(".jl-dbg");
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.1"]);
  assert.equal(root.querySelector('.jl-fgroup[data-group="layers/_stage.1/_unit.2"] .jl-fbody').innerHTML, "");
  click(root.querySelector("button[data-do=call]"));
  await later(5);
  assert.equal(current(root), String(fx.over));
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.2"]);
  click(row(root, "layers/_stage.3").firstElementChild);                    // not drawn yet: asked for, then open
  await later(5);
  assert.equal(model.asked.length, 3);
  assert.deepEqual(opened(root), ["layers/_stage.1", "layers/_stage.1/_unit.2", "layers/_stage.3"]);
  assert.equal(root.querySelectorAll('.jl-fgroup[data-group="layers/_stage.3"] > .jl-fbody > .jl-fgroup').length, 20);
});
