/* views/table/table.js: the rows past the head inserted from the fragments Python stores (the same rows Python writes
   as HTML), search, def/use highlight, calls folded. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page, scroll, text, type } from "./page.mjs";
import { shapes } from "./table_rows.mjs";

const table = await load("table.js");
const dom = await load("dom.js");
const big = fixture("table"), calls = fixture("calls");

async function mount(html) {
  const doc = page(html);
  const root = doc.querySelector(".jaxprlens");
  await table.enhance(root).ready;
  return root;
}

const top = (root) => [...root.querySelectorAll("tr.jl-row")].filter((tr) => !tr.closest("tr.jl-nested"));

test("the rows past the head are the rows Python writes: roles, sub-jaxpr links, params, constants", async () => {
  const ref = shapes(page(big.full).querySelector(".jaxprlens"));       // every row written as HTML by Python
  assert.equal(ref.size, big.every);
  const root = await mount(big.html);
  assert.equal(top(root).length, big.head);
  for (let i = 0; i < 4; i++) scroll();
  const got = shapes(root);
  assert.deepEqual([...got.keys()], [...ref.keys()]);                  // every row once, in program order
  for (const [id, want] of ref) assert.deepEqual(got.get(id), want, id);
  const loop = got.get(big.while);                                     // a while past row 400 reads as in the head
  assert.ok(Number(big.while) > big.head);
  assert.deepEqual(loop.roles.map(([role]) => role), ["cond_consts", "body_consts", "carry"]);
  assert.ok(loop.from.length >= 3 && loop.notes.some(([cls]) => cls === "jl-explain"));
  assert.ok(loop.eq.some(([, cls, t]) => cls === "jl-param jl-subref" && t.startsWith("body_jaxpr={body: ")));
  const last = got.get(String(big.eqns - 1));                          // the constant the program closes over
  assert.deepEqual(last.consts, [big.const]);
});

test("what a search reads of each row is what Python's Rows.search_text reads of it", async () => {
  const root = await mount(big.html);
  for (let i = 0; i < 4; i++) scroll();
  const texts = table.rowTexts([...root.querySelectorAll("tr.jl-row, tr.jl-grow")]);
  assert.equal(texts.size, big.every);
  for (const [tr, t] of texts) assert.equal(t, big.texts[tr.dataset.eqn], tr.dataset.eqn);
});

test("a Python fragment becomes rows, never markup of ours: dom.rowsOf", () => {
  page();
  const rows = dom.rowsOf(['<tr class="jl-row" data-eqn="1"><td>1</td></tr>',
                           '<tr class="jl-grow" data-group="g"><td>\u25b8</td></tr><tr class="jl-nested"><td></td></tr>']);
  assert.deepEqual(rows.map((tr) => [tr.tagName, tr.className]), [["TR", "jl-row"], ["TR", "jl-grow"], ["TR", "jl-nested"]]);
  assert.ok(rows.every((tr) => !tr.isConnected));
});

test("a run of one source line continues into the inserted rows; a call row ends a run", () => {
  page();
  const rows = dom.rowsOf('<tr class="jl-row" data-eqn="0"><td class="jl-eq">a</td><td><div class="jl-src">f.py line 1</div></td></tr>' +
    '<tr class="jl-row" data-eqn="1" data-same><td class="jl-eq">b</td><td></td></tr>' +
    '<tr class="jl-grow" data-group="g"><td></td></tr><tr class="jl-row" data-eqn="2" data-same><td class="jl-eq">c</td><td></td></tr>');
  assert.deepEqual([...table.rowTexts(rows).values()], ["0 a f.py line 1", "1 b f.py line 1", "2 c "]);
});

test("past the stored head, rows are inserted as they scroll into view, then all of them", async () => {
  const root = await mount(big.html);
  assert.equal(top(root).length, big.head);
  scroll();
  assert.ok(top(root).length > big.head);
  for (let i = 0; i < 3; i++) scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, big.every);      // every equation, the loop's body too
  assert.equal(root.querySelector("tbody.jl-more"), null);                   // the "more rows" note is gone
  assert.ok(root.querySelector(`tr.jl-row[data-eqn="${big.while}/body/0"]`));
});

test("search counts and marks the matching rows, inserted or not, in the table's words", async () => {
  const root = await mount(big.html), box = root.querySelector(".jl-tools input[type=search]");
  const counter = root.querySelector(".jl-tools .jl-note-js");
  assert.equal(box.placeholder, "search rows");
  assert.equal(box.getAttribute("aria-label"), "search rows");              // a labelled box
  for (const [q, n] of Object.entries(big.count)) {
    type(box, q);
    assert.equal(counter.textContent, n === 1 ? `${n} matching row` : `${n} matching rows`, q);
    const hits = [...root.querySelectorAll("tr.jl-row:not(.jl-miss)")];
    const holding = (tr) => tr.nextElementSibling && tr.nextElementSibling.matches("tr.jl-nested:not(.jl-miss)");
    assert.equal(hits.filter((tr) => tr.dataset.primitive === q).length, n, q);
    assert.ok(hits.every((tr) => tr.dataset.primitive === q || holding(tr)), q);   // or the loop holding them
  }
  type(box, "COS");                                                          // case does not matter
  assert.equal(counter.textContent, `${big.count.cos} matching rows`);
  type(box, "");
  assert.equal(root.querySelectorAll(".jl-miss").length, 0);
  assert.equal(counter.textContent, "");
});

test("a click on a name highlights it where it is defined and used, into a loop's body past the head", async () => {
  const root = await mount(big.html);
  for (let i = 0; i < 4; i++) scroll();
  const loop = root.querySelector(`tr.jl-row[data-eqn="${big.while}"]`);
  const konst = loop.querySelector('.jl-role[data-role="body_consts"] var');     // the body's constant
  click(konst);
  const lit = [...root.querySelectorAll("var.jl-vsel")];
  const inside = lit.filter((v) => v.closest(`tr.jl-nested[data-parent="${big.while}"]`));
  assert.ok(inside.some((v) => v.dataset.from === konst.textContent), "its binder in the body");
  assert.ok(inside.some((v) => v.closest(`tr.jl-row[data-eqn^="${big.while}/body/"]`)), "its use in the body");
  assert.equal(root.querySelectorAll(".jl-vdef").length >= 2, true);       // defined outside, bound inside
  click(konst);                                                              // a second click clears
  assert.equal(root.querySelectorAll(".jl-vsel").length, 0);
});

test("a primitive's hover help is its row's explanation", async () => {
  const root = await mount(big.html);
  for (let i = 0; i < 4; i++) scroll();
  const prim = root.querySelector(`tr.jl-row[data-eqn="${big.while}"] .jl-prim`);
  prim.dispatchEvent(new window.MouseEvent("mouseover", { bubbles: true }));
  assert.ok(prim.title.startsWith("Runs body_jaxpr while cond_jaxpr is true"), prim.title);
});

test("a call opens to its own rows, in program order, and closes again", async () => {
  const root = await mount(calls.html);
  const id = calls.top[0], row = root.querySelector(`tr.jl-grow[data-group="${id}"]`);
  assert.equal(root.querySelectorAll(`tr[data-in="${id}"]`).length, 0);          // inserted the first time it opens
  click(row);
  const inside = [...root.querySelectorAll(`tr[data-in="${id}"]:not(.jl-nested)`)];
  assert.deepEqual(inside.map((tr) => tr.dataset.group !== undefined ? ["group", tr.dataset.group] : ["eqn", tr.dataset.eqn]),
                   calls.children[id]);
  assert.ok(row.classList.contains("jl-open") && inside.every((tr) => !tr.hidden));
  const inner = inside.find((tr) => tr.dataset.group !== undefined);
  click(inner);
  assert.equal(root.querySelectorAll(`tr[data-in="${inner.dataset.group}"]:not(.jl-nested)`).length,
               calls.children[inner.dataset.group].length);
  click(row);                                                                             // closing hides the nested call's rows too
  assert.ok([...root.querySelectorAll("tr[data-in]")].filter((tr) => tr.dataset.in.startsWith(id)).every((tr) => tr.hidden));
  assert.ok(!inner.classList.contains("jl-open"));
});

test("search in a table folded by calls opens exactly the calls that hold matches", async () => {
  const root = await mount(calls.html), box = root.querySelector(".jl-tools input[type=search]");
  const counter = root.querySelector(".jl-tools .jl-note-js");
  const clean = Object.entries(calls.clean).sort((a, b) => a[1] - b[1]);
  assert.ok(clean.length >= 3);
  for (const [q, n] of [clean[0], clean[Math.floor(clean.length / 2)], clean[clean.length - 1]]) {   // few, many
    type(box, q);
    assert.equal(counter.textContent, n === 1 ? `${n} matching row` : `${n} matching rows`, q);
    const hits = [...root.querySelectorAll("tr.jl-row:not(.jl-miss)")].filter((tr) => !tr.hidden);
    assert.equal(hits.length, n, q);
    assert.ok(hits.every((tr) => tr.dataset.primitive === q), q);
    for (const g of root.querySelectorAll("tr.jl-grow")) {        // a call row is open exactly when it holds a match
      if (g.hidden) continue;
      assert.equal(g.classList.contains("jl-open"), !g.classList.contains("jl-miss"), `${q} ${g.dataset.group}`);
    }
  }
});

test("a search's count is the rows it shows: source-line matches inside the calls it opens included", async () => {
  const root = await mount(calls.html), box = root.querySelector(".jl-tools input[type=search]");
  const counter = root.querySelector(".jl-tools .jl-note-js");
  type(box, "test_calls.py");              // every equation's source line: rows inside every call, none open yet
  const shown = [...root.querySelectorAll("tr.jl-row:not(.jl-miss)")].filter((tr) => !tr.hidden && !tr.closest("[hidden]"));
  const n = Number(counter.textContent.split(" ")[0]);
  assert.ok(n > 10, counter.textContent);
  assert.equal(shown.length, n);
  assert.ok(shown.some((tr) => tr.dataset.in));                    // rows of calls the search opened
});
