/* Rows compared as a reader meets them (tests/js/table.test.mjs, live.test.mjs): Python's own HTML rows against
   the rows the script inserted from stored fragments or a kernel's answer. */
import { text } from "./page.mjs";

/* A row as a reader meets it: what it says and marks, cell by cell (not its markup's spelling). */
export function shape(tr) {
  const marks = (sel) => [...tr.querySelectorAll(sel)].map((e) => [e.tagName.toLowerCase(), e.className, e.textContent]);
  return {
    id: tr.dataset.eqn, prim: tr.dataset.primitive, same: tr.hasAttribute("data-same"),
    cells: [...tr.children].map(text),
    eq: marks(".jl-eq var, .jl-eq .jl-lit, .jl-eq .jl-type, .jl-eq .jl-prim, .jl-eq .jl-param, .jl-eq .jl-rolename"),
    roles: [...tr.querySelectorAll(".jl-role")].map((r) => [r.dataset.role, text(r)]),
    consts: [...tr.querySelectorAll("var.jl-const")].map((v) => v.textContent),
    notes: [...tr.querySelectorAll(".jl-note > div")].map((d) => [d.className, text(d), d.title || ""]),
  };
}

/* Every equation row of a page (nested ones too) by id, each as `shape` reads it, with the names its
   sub-jaxprs' binders are bound from. */
export function shapes(root) {
  const out = new Map();
  root.querySelectorAll("tr.jl-row").forEach((tr) => out.set(tr.dataset.eqn, shape(tr)));
  root.querySelectorAll("tr.jl-nested").forEach((n) => {
    out.get(n.dataset.parent).from = [...n.querySelectorAll("var[data-from]")].map((v) => [v.textContent, v.dataset.from]);
  });
  return out;
}

