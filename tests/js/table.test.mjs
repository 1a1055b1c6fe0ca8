/* static/table.js: rows drawn from the data rows Python stores, search, def/use highlight, calls folded. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { click, fixture, load, page, scroll, text, type } from "./page.mjs";

const table = await load("table.js");
const big = fixture("table"), calls = fixture("calls");

function mount(html) {
  const doc = page(html);
  const root = doc.querySelector(".jaxprlens");
  table.enhance(root);
  return root;
}

const top = (root) => [...root.querySelectorAll("tr.jl-row")].filter((tr) => !tr.closest("tr.jl-nested"));
const cells = (tr) => [...tr.querySelectorAll("var, .jl-lit, .jl-type, .jl-prim, .jl-param")]
  .map((e) => [e.tagName.toLowerCase(), e.className, e.textContent]);

test("a data row is drawn as Python draws the same equation's HTML row", () => {
  const doc = page(big.html);
  assert.ok(big.records.length >= 30);
  for (const r of big.records) {
    const want = doc.querySelector(`tr.jl-row[data-eqn="${r.id}"]`), got = table.dataRow(r);
    assert.ok(want, r.id);
    assert.equal(got.dataset.eqn, r.id);
    assert.equal(got.dataset.primitive, want.getAttribute("data-primitive"));
    assert.equal(text(got.children[0]), text(want.children[0]));                       // the eqn's index
    assert.equal(text(got.querySelector(".jl-eq")), text(want.querySelector(".jl-eq")), r.id);
    assert.deepEqual(cells(got.querySelector(".jl-eq")), cells(want.querySelector(".jl-eq")), r.id);
    assert.equal(text(got.querySelector(".jl-src")), r.same ? null : text(want.querySelector(".jl-src")), r.id);
    assert.equal(got.hasAttribute("data-same"), want.hasAttribute("data-same"), r.id);
  }
});

test("data never becomes markup", () => {
  page();
  const tr = table.dataRow({ id: "7", prim: "<img src=x onerror=alert(1)>", depth: 2, outs: [["<b>a</b>", "f32[]"]],
                             params: "x=<script>", ins: ["<i>b</i>", "1.0:f32[]"], lit: [1], src: "<u>line</u>" });
  assert.equal(tr.querySelectorAll("img, b:not(.jl-prim), script, i, u").length, 0);
  assert.equal(text(tr.querySelector(".jl-eq")), "<b>a</b>:f32[] = <img src=x onerror=alert(1)>[x=<script>] <i>b</i> 1.0:f32[]");
  assert.equal(tr.querySelector(".jl-eq").style.paddingLeft, "40px");             // 4 + 18 per level
  assert.equal(table.dataRow({ id: "2/body/3", prim: "sin", outs: [], ins: [] }, true).children[0].textContent, "3");
});

test("a ref read or write is drawn as JAX writes it, its names marked, as Python draws it", () => {
  page();
  const tr = table.dataRow({ id: "1", prim: "get", depth: 0, outs: [["c", "f32[3]"]], params: "tree=PyTreeDef(())",
                             ins: ["b"], stmt: ["", "c", ":f32[3] <- ", "b", "[...]"] });
  assert.equal(text(tr.querySelector(".jl-eq")), "c:f32[3] <- b[...]");
  assert.deepEqual([...tr.querySelectorAll(".jl-eq var")].map((v) => v.textContent), ["c", "b"]);
  assert.equal(tr.querySelectorAll(".jl-prim, .jl-param").length, 0);
  assert.equal(tr.dataset.primitive, "get");
  const html = '<table><tr><td class="jl-eq"><var>b</var>[...] &lt;- <var>d</var></td></tr></table>';
  const doc = page(html);       // the HTML row Python writes for `b[...] <- d` (tests/test_model.py checks it)
  const got = table.dataRow({ id: "3", prim: "swap", outs: [["_", "f32[3]"]], ins: ["b", "d"],
                              stmt: ["", "b", "[...] <- ", "d", ""] });
  assert.equal(text(got.querySelector(".jl-eq")), text(doc.querySelector(".jl-eq")));
});

test("a call row: its label, size, call site and the values crossing it", () => {
  page();
  const tr = table.groupRow({ group: "model_loss/block.1", label: "block (call 1 of 6)", count: "84 equations",
                              site: "model.py line 9: h = block(h)", cross: "in: a, b · out: c" });
  assert.equal(tr.dataset.group, "model_loss/block.1");
  assert.equal(text(tr.querySelector(".jl-gname")), "block (call 1 of 6)");
  assert.equal(text(tr.querySelector(".jl-type")), "84 equations");
  assert.deepEqual([...tr.querySelectorAll(".jl-note div")].map(text), ["model.py line 9: h = block(h)", "in: a, b · out: c"]);
});

test("rows continuing a run of one source line search by that line; a call row ends the run", () => {
  const items = table.withSources([{ src: "f.py line 1: y = g(x)" }, { same: 1 }, { group: "g" }, { same: 1 },
                                   { src: "f.py line 2" }, {}], "f.py line 0");
  assert.deepEqual(items.map((it) => it.line), ["f.py line 1: y = g(x)", "f.py line 1: y = g(x)", undefined, "",
                                                "f.py line 2", ""]);
});

test("past the stored head, rows are drawn as they scroll into view, then all of them", () => {
  const root = mount(big.html);
  assert.equal(top(root).length, big.head);
  scroll();
  assert.equal(top(root).length, big.head + 400);
  scroll();
  scroll();
  assert.equal(root.querySelectorAll("tr.jl-row").length, big.every);      // every equation, the loop's body too
  assert.equal(root.querySelector("tbody.jl-more"), null);                   // the "more rows" note is gone
  const loop = root.querySelector(`tr.jl-row[data-eqn="${big.while}"]`);
  assert.equal(loop.dataset.primitive, "while");
  assert.ok(root.querySelector(`tr.jl-row[data-eqn="${big.while}/body/0"]`));
});

test("search counts and marks the matching rows, drawn or not, in the table's words", () => {
  const root = mount(big.html), box = root.querySelector(".jl-tools input[type=search]");
  const counter = root.querySelector(".jl-tools .jl-note-js");
  assert.equal(box.placeholder, "search rows");
  for (const [q, n] of Object.entries(big.count)) {
    type(box, q);
    assert.equal(counter.textContent, n === 1 ? `${n} matching row` : `${n} matching rows`, q);
    const hits = [...root.querySelectorAll("tr.jl-row:not(.jl-miss)")];
    assert.equal(hits.length, n, q);
    assert.ok(hits.every((tr) => tr.dataset.primitive === q), q);
  }
  type(box, "COS");                                                          // case does not matter
  assert.equal(counter.textContent, `${big.count.cos} matching rows`);
  type(box, "");
  assert.equal(root.querySelectorAll(".jl-miss").length, 0);
  assert.equal(counter.textContent, "");
});

test("a click on a name highlights it where it is defined and used", () => {
  const root = mount(big.html);
  const r = big.records.find((x) => x.outs.length && x.ins.length);
  const name = r.outs[0][0];
  const def = [...root.querySelectorAll(`tr.jl-row[data-eqn="${r.id}"] var`)].find((v) => v.textContent === name);
  click(def);
  const lit = [...root.querySelectorAll("var.jl-vsel")];
  assert.ok(lit.length >= 2 && lit.every((v) => v.textContent === name));                // defined once, used after
  assert.deepEqual([...root.querySelectorAll(".jl-vdef")], [def]);
  click(def);                                                                            // a second click clears
  assert.equal(root.querySelectorAll(".jl-vsel").length, 0);
});

test("a call opens to its own rows, in program order, and closes again", () => {
  const root = mount(calls.html);
  const id = calls.top[0], row = root.querySelector(`tr.jl-grow[data-group="${id}"]`);
  assert.equal(root.querySelectorAll(`tr[data-in="${id}"]`).length, 0);          // drawn the first time it opens
  click(row);
  const inside = [...root.querySelectorAll(`tr[data-in="${id}"]`)];
  assert.deepEqual(inside.map((tr) => tr.dataset.group !== undefined ? ["group", tr.dataset.group] : ["eqn", tr.dataset.eqn]),
                   calls.children[id]);
  assert.ok(row.classList.contains("jl-open") && inside.every((tr) => !tr.hidden));
  const inner = inside.find((tr) => tr.dataset.group !== undefined);
  click(inner);
  assert.equal(root.querySelectorAll(`tr[data-in="${inner.dataset.group}"]`).length, calls.children[inner.dataset.group].length);
  click(row);                                                                             // closing hides the nested call's rows too
  assert.ok([...root.querySelectorAll("tr[data-in]")].filter((tr) => tr.dataset.in.startsWith(id)).every((tr) => tr.hidden));
  assert.ok(!inner.classList.contains("jl-open"));
});

test("search in a table folded by calls opens exactly the calls that hold matches", () => {
  const root = mount(calls.html), box = root.querySelector(".jl-tools input[type=search]");
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
