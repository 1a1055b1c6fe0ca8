/* views/debugger/debugger.js, the recorded replay (no kernel): its moves, breakpoints and conditions stop where the
   engine's stepper stops on the same program (tests/js/fixtures.py ran the same moves on the live Stepper). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page, text, type } from "./page.mjs";

const debug = await load("debugger.js");
const recorded = fixture("replay"), withInf = fixture("replay_inf");

async function replay(html) {   // the stored data is deflated: the replay starts once it is inflated
  const doc = page(html);
  const root = doc.querySelector(".jl-replay") || doc.querySelector("[data-jl-view]") || doc.body.firstElementChild;
  await debug.replay(root);
  return root;
}

/* Where the replay is, as a reader sees it: the crumbs, the frame shown and its highlighted row. */
function where(root) {
  const frame = root.querySelector(".jl-dbg-frame .jl-frame"), row = root.querySelector(".jl-dbg-frame tr.jl-hl");
  const crumbs = [...root.querySelectorAll(".jl-crumbs span")].map((s) => s.textContent);
  return { crumbs, frame: frame && frame.getAttribute("data-path"), eqn: row ? row.getAttribute("data-eqn") : null,
           done: root.querySelector("button[data-do=step]").disabled };
}

function play(root, moves) {
  for (const m of moves) {
    if (m.startsWith("toggle:")) {            // the row's gutter, as a reader clicks it
      const tr = root.querySelector(`.jl-dbg-frame tr.jl-row[data-eqn="${m.slice(7)}"]`);
      assert.ok(tr, `row ${m.slice(7)} is on screen`);
      click(tr.firstElementChild);
    } else if (m.startsWith("cond:")) {
      type(root.querySelector("input.jl-when"), m.slice(5), "change");
    } else {
      click(root.querySelector(`button[data-do=${m}]`));
    }
  }
  return where(root);
}

const expected = (e) => ({ crumbs: e.crumbs, frame: e.frame, eqn: e.eqn, done: e.done });

/* The marks of the shown frame's rows, {eqn id: [mark, ...]}, in StateView.row_marks's order (the snapshot's). */
const MARKS = ["jl-done", "jl-hl", "jl-bp", "jl-changed"];
function marks(root) {
  const out = {};
  for (const tr of root.querySelectorAll(".jl-dbg-frame .jl-frame tr.jl-row")) {
    const m = MARKS.filter((c) => tr.classList.contains(c));
    if (m.length) out[tr.dataset.eqn] = m;
  }
  return out;
}

test("the replay opens at the first equation with every button but Back and Out", async () => {
  const root = (await replay(recorded.html));
  assert.equal(root.querySelector(".jl-dbg-static"), null);          // the static snapshot gives way to the replay
  assert.deepEqual(where(root), { crumbs: ["top", "eqn 0"], frame: "", eqn: "0", done: false });
  assert.ok(root.querySelector("button[data-do=back]").disabled && root.querySelector("button[data-do=out]").disabled);
  assert.equal(root.querySelector(".jl-badge").textContent, "recorded replay");
  assert.equal(root.getAttribute("data-step"), "0");
});

const AGREE = ["into x3", "step x2", "step over the loop", "into the loop, then out", "continue to the end",
               "into, into, back", "reset", "breakpoint at the top", "breakpoint in the body",
               "breakpoint in the body, continue twice", "condition any NaN (none)",
               "condition max > 6, step out of the body", "step out of the body, then back",
               "continue to a condition, then back", "step out stops at a breakpoint in the next iteration",
               "step over the loop with a condition"];
for (const name of AGREE) {
  test(`replay moves stop where the engine stops: ${name}`, async () => {
    const { moves, engine } = recorded.moves[name];
    assert.deepEqual(play((await replay(recorded.html)), moves), expected(engine));
  });
}

// A watch condition stops inside the loop, at the first iteration whose values meet it, in the engine as in the
// replay (issue 27 items 2 and 7: one meaning of conditions).
test("replay moves stop where the engine stops: condition max > 6", async () => {
  const { moves, engine } = recorded.moves["condition max > 6"];
  assert.deepEqual(play((await replay(recorded.html)), moves), expected(engine));
});

// The recorded statistics are the engine's own (Inf included): on [1, inf] `max > 1e3` fires in both.
test("replay moves stop where the engine stops: max > 1e3 on [1, inf]", async () => {
  const { moves, engine } = withInf.moves["condition max > 1e3 on [1, inf]"];
  assert.deepEqual(play((await replay(withInf.html)), moves), expected(engine));
});

test("a watch condition stops the replay at the first step whose values meet it", async () => {
  const root = (await replay(recorded.html));
  play(root, ["cond:max > 6", "continue"]);
  const stopped = Number(root.getAttribute("data-step"));
  assert.ok(stopped > 0 && stopped < recorded.steps - 1);
  const maxima = [...root.querySelectorAll(".jl-values .jl-stats")].map((s) => s.textContent);
  assert.ok(maxima.length > 0);
  play(root, ["reset", "cond:", "continue"]);                                   // cleared: runs to the end
  assert.equal(root.getAttribute("data-step"), String(recorded.steps - 1));
  assert.ok(where(root).done);
});

test("a breakpoint toggled twice is gone; the mark follows the row", async () => {
  const root = (await replay(recorded.html));
  const row = () => root.querySelector('.jl-dbg-frame tr.jl-row[data-eqn="3"]');
  play(root, ["toggle:3"]);
  assert.ok(row().classList.contains("jl-bp"));
  play(root, ["toggle:3"]);
  assert.ok(!row().classList.contains("jl-bp"));
  assert.deepEqual(play(root, ["continue"]), expected(recorded.moves["continue to the end"].engine));
});

test("Back undoes the last move: a Step out, a Continue, a Step over the loop (as Stepper.back)", async () => {
  for (const moves of [["into", "into", "into", "into", "out"], ["into", "continue"], ["step", "step", "step"]]) {
    const root = (await replay(recorded.html));
    play(root, moves.slice(0, -1));
    const before = root.getAttribute("data-step"), at = where(root);
    play(root, moves.slice(-1));
    assert.notEqual(root.getAttribute("data-step"), before);
    assert.deepEqual(play(root, ["back"]), at, moves.join(", "));
    assert.equal(root.getAttribute("data-step"), before);
  }
});

test("Back walks the recorded steps one by one to the start, then is disabled", async () => {
  const root = (await replay(recorded.html));
  play(root, ["into", "into", "into"]);
  assert.equal(root.getAttribute("data-step"), "3");
  play(root, ["back", "back", "back"]);
  assert.equal(root.getAttribute("data-step"), "0");
  assert.ok(root.querySelector("button[data-do=back]").disabled);
  play(root, ["back"]);                                                          // a disabled button does nothing
  assert.equal(root.getAttribute("data-step"), "0");
});

/* Python writes the rows' marks in the snapshot (views/debugger/state.py row_marks); the script keeps them as moves go:
   after every recorded move both mark the same rows the same way. */
for (const [name, m] of Object.entries(recorded.moves)) {
  test(`the rows' marks are the snapshot's after: ${name}`, async () => {
    const root = await replay(recorded.html);
    play(root, m.moves);
    assert.deepEqual(marks(root), m.engine.marks);
  });
}

test("rows before the current one are marked done, the current one highlighted", async () => {
  const root = (await replay(recorded.html));
  play(root, ["step", "step"]);
  const rows = [...root.querySelectorAll(".jl-dbg-frame tr.jl-row")];
  assert.deepEqual(rows.slice(0, 3).map((tr) => [tr.classList.contains("jl-done"), tr.classList.contains("jl-hl")]),
                   [[true, false], [true, false], [false, true]]);
  play(root, ["reset"]);
  assert.ok(!rows.some((tr) => tr.classList.contains("jl-done")) && rows[0].classList.contains("jl-hl"));
});

/* The panel is Python's HTML (views/debugger/panel.py), put in as it is: a piece whose HTML a move leaves as it was
   is not drawn again (the source listing of two rows from one line is the very same node). */
test("a move draws again only the pieces of the panel that changed", async () => {
  const root = await replay(recorded.html);
  const code = root.querySelector(".jl-dbg-src pre.jl-code"), crumbs = root.querySelector(".jl-crumbs span");
  assert.ok(code && code.querySelector(".jl-line.jl-hl"));
  play(root, ["into"]);                                  // eqn 0 (sin) to eqn 1 (mul): one source line
  assert.equal(root.querySelector(".jl-dbg-src pre.jl-code"), code);
  assert.notEqual(root.querySelector(".jl-crumbs span"), crumbs);       // "eqn 1" now
  assert.deepEqual([...root.querySelectorAll(".jl-crumbs span")].map((s) => s.textContent), ["top", "eqn 1"]);
  const value = root.querySelector(".jl-dbg-values tr.jl-value");
  assert.ok(value && value.nextElementSibling.classList.contains("jl-value-data"));
  assert.equal(root.querySelectorAll(".jl-dbg-values .jl-edit button").length, 0);   // no kernel: no edits
});

/* Issue 30 item 4: a replay recorded after live edits shows them, marked, and says a new edit needs the kernel. */
test("a replay recorded after a live edit marks what it changed, and only from where it was made", async () => {
  const edited = fixture("replay_edit");
  const root = await replay(edited.html);
  const marked = () => [...root.querySelectorAll(".jl-dbg-frame tr.jl-row.jl-changed")].map((tr) => tr.dataset.eqn);
  assert.deepEqual(marked(), []);                                        // before the edit
  play(root, ["into"]);
  assert.deepEqual(marked(), [edited.marked[0]]);                       // the edited value's row
  assert.deepEqual(marks(root), edited.marks[0]);                       // every mark, as the snapshot writes them
  assert.ok(root.querySelector(".jl-dbg-values tr.jl-value.jl-changed"));
  assert.equal(root.querySelector(".jl-dbg-notes .jl-edit-kernel").textContent, edited.needs_kernel);
  play(root, ["into"]);
  assert.deepEqual(marked(), edited.marked);                             // and the row that read it
  assert.deepEqual(marks(root), edited.marks[1]);
  play(root, ["back", "back"]);
  assert.deepEqual(marked(), []);
});
