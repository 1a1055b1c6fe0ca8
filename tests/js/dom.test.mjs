/* static/dom.js: the one DOM helper, the kernel's words, the stored rows. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { load, page } from "./page.mjs";

const dom = await load("dom.js");

test("el makes an element whose text never becomes markup", () => {
  page();
  const b = dom.el("b", "jl-prim", "<img src=x onerror=alert(1)>");
  assert.equal(b.className, "jl-prim");
  assert.equal(b.children.length, 0);
  assert.equal(b.innerHTML, "&lt;img src=x onerror=alert(1)&gt;");
  assert.equal(dom.el("td", "", 0).textContent, "0");                  // a zero is text too
  assert.equal(dom.el("td").textContent, "");
});

test("word reads the kernel's words in the reader's language, else the fallback", () => {
  const doc = page('<div id=t data-l-search="搜索行"></div>');
  const root = doc.getElementById("t");
  assert.equal(dom.word(root, "search", "search rows"), "搜索行");
  assert.equal(dom.word(root, "matches", "{n} matching rows"), "{n} matching rows");
  assert.equal(dom.word(root, "matches"), "");
});
