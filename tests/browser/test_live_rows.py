"""A table's rows past those its output stores, from the live kernel (issue 21, views/table/live.py): in JupyterLab
and Chromium a 15k-equation table scrolls to its last equation, a search finds an equation only the kernel
holds, and a folded table opens a call whose rows the notebook did not keep; at about 970 px of output width,
light and dark."""
from __future__ import annotations

import inspect
import json
import os
import statistics
import sys

import pytest

import browser_harness as harness
from test_front_end import switch_theme
from test_lab import LOAD

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import test_calls as toy
from pages import loaders

pytestmark = pytest.mark.browser

VIEWPORT = 1400          # JupyterLab with its file browser open: about 970 px of output width
N = 7500                 # 2N + 1 equations: past the HTML head (400) and the stored data rows (10,000)
FLAT = f"""\
%%jaxpr
import jax.numpy as jnp
from jax import lax

def chain(x):
    for _ in range({N}):
        x = lax.mul(lax.sin(x), x)
    return lax.cos(x)

chain(jnp.ones(4))"""
TOY = ("import jax, jax.numpy as jnp, numpy as np\n\nD = 16\n\n" +
       "\n\n".join(inspect.getsource(f) for f in (toy.layer_norm, toy.attention, toy.mlp, toy.block,
                                                   toy.model_loss, toy.make_params)))
# a folded table that keeps only 200 rows of calls: the later calls' rows come from the kernel when opened
FOLDED = ("from jaxprlens.views.table import layout as _lay\n_lay.STORED_CALLS = 200\n\n" + TOY
          + "\n\nprogram = jaxprlens.trace(model_loss, make_params(6), np.ones((8, D), 'f4'))\nprogram.table()")
LIVE = ".jl-table[data-jl-ready]"

# Scroll the end of the drawn rows into view until the last equation's row is there; for each scroll, the time
# until a row past those drawn is in the page and painted (the kernel's answer, when the page had no more).
SCROLL_JS = """
async ([root, last]) => {
  const top = () => {
    const r = root.querySelectorAll('tr.jl-row[data-eqn]');
    return r.length ? Number(r[r.length - 1].dataset.eqn) : -1;
  };
  const times = [];
  for (let k = 0; k < 400 && !root.querySelector('tr[data-eqn="' + last + '"]'); k++) {
    const more = root.querySelector('tbody.jl-more');
    if (!more) break;
    const before = top(), t0 = performance.now();
    await new Promise((resolve) => {
      const obs = new MutationObserver(() => {
        if (top() > before) { obs.disconnect(); requestAnimationFrame(() => setTimeout(resolve, 0)); }
      });
      obs.observe(root, {subtree: true, childList: true});
      more.scrollIntoView({block: 'end'});
      setTimeout(() => { obs.disconnect(); resolve(); }, 30000);
    });
    times.push([performance.now() - t0, before]);
  }
  return {times, top: top()};
}
"""


# a while loop at row 520, past the HTML's 400 rows; its body uses y, a body constant bound into it
LOOP = """\
%%jaxpr
import jax.numpy as jnp
from jax import lax

def chain(x, y, n):
    for _ in range(130):
        x = jnp.tanh(jnp.sin(x) * y) + 2.0
    x = lax.fori_loop(0, n, lambda i, c: jnp.cos(c) * y, x)
    for _ in range(130):
        x = jnp.cos(jnp.sin(x) * y) - 1.0
    return x

chain(jnp.ones(3), jnp.ones(3), 3)"""
# scroll the end of the rows into view until a row of this id is in the page
REACH_JS = """
async ([root, sel]) => {
  for (let k = 0; k < 60 && !root.querySelector(sel); k++) {
    const more = root.querySelector('tbody.jl-more');
    if (!more) break;
    more.scrollIntoView({block: 'end'});
    await new Promise((r) => setTimeout(r, 250));
  }
  return !!root.querySelector(sel);
}
"""


def _loop_reads_as_in_the_head(page, root):
    """The while past row 400 has its role chips, its explanation and its body, and a click on its body constant
    highlights the value where it is defined, bound into the body and used there."""
    assert page.evaluate(REACH_JS, [root.element_handle(), "tr.jl-row[data-primitive='while']"])
    loop = root.locator("tr.jl-row[data-primitive='while']")
    assert int(loop.get_attribute("data-eqn")) > 400
    assert loop.locator(".jl-role").evaluate_all("(rs) => rs.map((r) => r.dataset.role)") == [
        "cond_consts", "body_consts", "carry"]
    assert loop.locator(".jl-explain").inner_text().startswith("Runs body_jaxpr while cond_jaxpr is true")
    body = root.locator(f"tr.jl-nested[data-parent='{loop.get_attribute('data-eqn')}']")
    konst = loop.locator(".jl-role[data-role='body_consts'] var").first
    name = konst.inner_text()
    konst.click()
    assert "jl-vsel" in konst.get_attribute("class")
    assert body.locator(f"var.jl-vsel[data-from='{name}']").count() == 1          # its binder in the body...
    bound = body.locator(f"var.jl-vsel[data-from='{name}']").inner_text()
    uses = body.locator("tr.jl-row var.jl-vsel").evaluate_all("(vs) => vs.map((v) => v.textContent)")
    assert bound in uses, uses                                                      # ...and its use there
    assert root.locator("var.jl-vdef").count() >= 2         # defined outside (an input), bound inside
    konst.click()
    return loop


def test_a_row_past_the_head_reads_as_in_the_head_stored_and_live(lab, open_notebook):
    """Issue 27: the rows past 400 are Python's rows too, whether the output stored them or the kernel sends
    them (the output stores 50 past the head in the second table): role chips, def/use into a loop's body; the
    live table looks as the stored one and its search box is labelled."""
    page = open_notebook(lab, [LOAD, LOOP, "from jaxprlens.views.table import layout as _lay\n_lay.STORED = 50", LOOP],
                         width=VIEWPORT)
    stored = harness.output(page, 1).locator(".jl-table[data-jl-ready]")
    stored.wait_for()
    assert "jl-live" not in stored.get_attribute("class")          # the output's own HTML: it stores every row
    _loop_reads_as_in_the_head(page, stored)
    out, live = _table(page, 3)
    assert out.locator(".jp-OutputArea-output > .lm-Widget .jl-table.jl-live").count() == 1   # the kernel's rows
    _loop_reads_as_in_the_head(page, live)
    look = ("(root) => ['table.jl-eqns', 'td.jl-eq', 'td.jl-note', '.jl-cap', '.jl-src code', 'var'].map((sel) => {"
            " const s = getComputedStyle(root.querySelector(sel)); return [sel, s.fontFamily, s.fontSize, s.lineHeight,"
            " s.borderTopWidth, s.borderTopStyle, s.paddingTop, s.paddingLeft, s.backgroundColor, s.textAlign]; })")
    assert live.evaluate(look) == stored.evaluate(look)          # as JupyterLab shows an output's HTML
    box = live.locator(".jl-tools input[type=search]")
    assert box.get_attribute("aria-label") == "search rows" and box.get_attribute("placeholder") == "search rows"
    page.screenshot(path=str(harness.OUTPUT / "live_rows_loop.png"))


def _table(page, cell: int):
    out = harness.output(page, cell)
    out.locator(LIVE).wait_for()
    return out, out.locator(LIVE)


def test_flat_table_scrolls_and_searches_past_what_is_stored(lab, open_notebook):
    page = open_notebook(lab, [LOAD, FLAT, FLAT], width=VIEWPORT)
    out, root = _table(page, 1)
    assert out.locator("[data-mime-type='text/html'] .jl-table").count() == 0   # the live widget draws it, not the HTML
    assert out.locator(".jp-OutputArea-output > .lm-Widget .jl-table").count() == 1

    # scroll to the end: rows past those stored come from the kernel, 2,000 an answer
    result = page.evaluate(SCROLL_JS, [root.element_handle(), str(2 * N)])
    assert result["top"] == 2 * N, result
    assert root.locator(f"tr[data-eqn='{2 * N}']").count() == 1
    assert root.locator("tbody.jl-more").count() == 0 and root.locator("tbody.jl-cut").count() == 0
    ids = root.evaluate("(r) => Array.from(r.querySelectorAll('tr.jl-row[data-eqn]'), (t) => Number(t.dataset.eqn))")
    assert ids == list(range(2 * N + 1))            # every equation once, in order
    past = [ms for ms, before in result["times"] if before >= 400 + 10_000 - 1]     # rows the kernel sent
    local = [ms for ms, before in result["times"] if before < 400 + 10_000 - 1]     # rows the output stored
    print(f"\nscroll -> rows painted past the stored ones: median {statistics.median(past):.0f} ms "
          f"(max {max(past):.0f}, {len(past)} scrolls; asked ahead of the view, 2,000 rows an answer); "
          f"within the stored ones: median {statistics.median(local):.0f} ms ({len(local)} scrolls)")
    print("each scroll (ms, last row before):", [(round(ms), b) for ms, b in result["times"]])
    page.screenshot(path=str(harness.OUTPUT / "live_rows_end.png"))

    out, root = _table(page, 2)
    cut = root.locator("tbody.jl-cut").inner_text()
    assert cut.startswith(f"{2 * N + 1 - 400 - 10_000} more equations come from the kernel"), cut

    # search: the last equation is held only by the kernel (its source line is the one saying lax.cos)
    box = root.locator(".jl-tools input[type=search]")
    t0 = page.evaluate("performance.now()")
    box.fill("lax.cos")
    root.locator(f"tbody.jl-found tr[data-eqn='{2 * N}']").wait_for()
    found_ms = page.evaluate("performance.now()") - t0
    page.wait_for_function("(r) => r.querySelector('.jl-note-js').textContent === '1 matching row'",
                           arg=root.element_handle())
    assert root.locator("tr.jl-row:not(.jl-miss)").count() == 1
    print(f"search past the stored rows: the kernel's match shown {found_ms:.0f} ms after typing (150 ms pause)")
    root.locator("tbody.jl-found tr").first.scroll_into_view_if_needed()
    page.screenshot(path=str(harness.OUTPUT / "live_rows_search.png"))
    box.fill("")
    page.wait_for_function("(r) => !r.querySelector('tbody.jl-found') && !r.querySelector('.jl-miss')",
                           arg=root.element_handle())


def test_folded_table_opens_a_call_it_did_not_store_light_and_dark_and_saves_its_stored_form(
        lab_saving, open_notebook):
    from jaxprlens.views.table import layout
    from jaxprlens.present.rows import walk
    from jaxprlens.model.program import Eqn, count_eqns

    page = open_notebook(lab_saving, [LOAD, "import jaxprlens", FOLDED], width=VIEWPORT)
    out, root = _table(page, 2)
    p = toy.transformer(6, grad=False)
    saved, layout.STORED_CALLS = layout.STORED_CALLS, 200
    try:
        cut = layout.Layout(p, count_eqns(p)).cut
    finally:
        layout.STORED_CALLS = saved
    g = cut[-1]
    rows = sum(sum(1 for _ in walk(c)) if isinstance(c, Eqn) else 1 for c in g.children)
    note = root.locator("tbody.jl-cut").first.inner_text()
    assert "come from the kernel when you open or search them" in note, note
    for a in g.crumbs()[1:]:          # open the calls down to it, then it: its rows come from the kernel
        row = root.locator(f"tr.jl-grow[data-group='{a.id}']")
        if not row.count():           # a chain of single calls above the table's top rows
            continue
        if a is not g:
            if "jl-open" not in (row.get_attribute("class") or ""):
                row.click()
            continue
        row.scroll_into_view_if_needed()
        t0 = page.evaluate("performance.now()")
        row.click()
        page.wait_for_function("([r, id, n]) => r.querySelectorAll(`tr[data-in=\"${id}\"]`).length === n",
                               arg=[root.element_handle(), g.id, rows])
        print(f"\nopened {g.id}: {rows} rows from the kernel in {page.evaluate('performance.now()') - t0:.0f} ms")
    assert "not stored" not in root.locator(f"tr.jl-grow[data-group='{g.id}']").inner_text()
    # search: x ** 2 and gelu's x ** 3 (integer_pow) in every block's layer norms and mlp, most of them in calls
    # the notebook did not store: the kernel counts them, the page opens those calls and asks for their rows
    want = sum(1 for top in p.eqns for e in walk(top) if e.primitive == "integer_pow")
    holding = [c.id for c in cut if any(e.primitive == "integer_pow" for top in c.eqns for e in walk(top))]
    box = root.locator(".jl-tools input[type=search]")
    box.fill("integer_pow")
    page.wait_for_function("([r, n]) => r.querySelector('.jl-note-js').textContent === `${n} matching rows`",
                           arg=[root.element_handle(), want])
    for gid in holding:
        page.wait_for_function("([r, id]) => r.querySelector(`tr.jl-grow.jl-open[data-group=\"${id}\"]`) && "
                               "r.querySelector(`tr.jl-row[data-in=\"${id}\"]:not(.jl-miss)`)",
                               arg=[root.element_handle(), gid])
    shown = root.evaluate("(r) => r.querySelectorAll('tr.jl-row:not(.jl-miss)').length")
    assert shown == want and len(holding) >= 4, (shown, want, holding)
    print(f"search: {want} matching rows, {len(holding)} of their calls' rows from the kernel")
    box.fill("")
    width = root.evaluate("(r) => r.getBoundingClientRect().width")
    assert 900 <= width <= 1000, width
    row = root.locator(f"tr.jl-grow[data-group='{g.id}']")
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(harness.OUTPUT / "live_rows_folded_light.png"))
    switch_theme(page, "JupyterLab Dark")
    row.scroll_into_view_if_needed()
    page.screenshot(path=str(harness.OUTPUT / "live_rows_folded_dark.png"))
    switch_theme(page, "JupyterLab Light")

    # saved: the table's output as a table output is stored without a kernel (the widget view and our mark go)
    page.keyboard.press("Control+s")
    path = next(p for p in lab_saving.root.glob("*.ipynb") if "folded_table" in p.name)

    def stored_table():
        cells = harness.saved_cells(path)
        outs = cells[2].get("outputs", []) if len(cells) > 2 else []
        return outs[0] if outs and outs[0].get("data", {}).get("text/html") else None
    out = harness.until(stored_table, "the table's output in the saved file")
    assert out is not None and sorted(out["data"]) == ["text/html", "text/plain"] and out["metadata"] == {}, out
    html = "".join(out["data"]["text/html"])
    from jaxprlens.views.table.table import stored
    rows = html + "".join(h for items in stored(html)["groups"].values() for h in items)   # with the stored rows
    assert "(rows not stored in the notebook)" in rows and "come from the kernel" not in rows
    assert len(loaders(html)) == 1                # the stored form, with its own front end
    for k in lab_saving.api("/api/kernels"):
        lab_saving.api(f"/api/kernels/{k['id']}", method="DELETE")
    page.context.close()
    context = harness.new_context(open_notebook.browser, width=VIEWPORT)
    again = context.new_page()
    try:
        again.goto(lab_saving.page_url(path.name, workspace="reopen-live-table"))
        harness.output(again, 2).locator(".jl-table").wait_for()
        harness.kernel_idle(again)                  # a new kernel, which a stored widget's view would look up
        harness.painted(again)
        assert again.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.widget-view+json']"
                             ).count() == 0
        assert "model not found" not in again.locator(".jp-Notebook").inner_text()
    finally:
        context.close()


def test_table_beside_a_graph_is_live_too(lab, open_notebook):
    """``%%jaxpr --table --graph``: one output, one widget; the graph is enhanced as in a stored output and the
    table's rows past those stored (300 here) come from the kernel."""
    small = FLAT.replace("%%jaxpr", "%%jaxpr --table --graph").replace(f"range({N})", "range(750)")
    page = open_notebook(lab, [LOAD, "from jaxprlens.views.table import layout as _lay\n_lay.STORED = 300", small],
                         width=VIEWPORT)
    out, root = _table(page, 2)
    assert out.locator(".jp-OutputArea-output > .lm-Widget .jl-table").count() == 1
    out.locator(".jl-graph.jl-live").first.wait_for()      # graph.js enhanced it
    result = page.evaluate(SCROLL_JS, [root.element_handle(), "1500"])
    assert result["top"] == 1500, result
    ids = root.evaluate("(r) => Array.from(r.querySelectorAll('tr.jl-row[data-eqn]'), (t) => Number(t.dataset.eqn))")
    assert ids == list(range(1501))


def test_untrusted_the_stored_rows_stay_hidden(lab, open_notebook):
    """A stored table of 1,041 equations opened untrusted (no script runs): its 400 rows and the note saying where
    the rest is read as they are; the rows stored for the script (deflated, base64) are not shown as text."""
    import re

    import jax.numpy as jnp
    import jaxprlens
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "js"))
    from fixtures import chain
    program = jaxprlens.trace(chain, jnp.ones(3), jnp.ones(3), 3)
    bundle = program.table()._repr_mimebundle_()
    assert 'class="jl-rows"' in bundle["text/html"]
    cell = {"cell_type": "code", "execution_count": 1, "id": "c0", "metadata": {}, "source": "%%jaxpr\nchain(x, y, 3)",
            "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {}, "data": bundle}]}
    nb = {"cells": [cell], "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    (lab.root / "untrusted_rows.ipynb").write_text(json.dumps(nb))
    context = harness.new_context(open_notebook.browser, width=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(lab.page_url("untrusted_rows.ipynb", workspace="untrusted-rows"))
        out = harness.output(page, 0)
        out.locator("tr.jl-row").first.wait_for()
        assert out.locator("input[type=search]").count() == 0 and out.locator("script").count() == 0   # untrusted
        assert out.locator("tr.jl-row").count() == 400
        assert out.locator("tbody.jl-more").inner_text().startswith("646 more equations")
        assert not re.search(r"[A-Za-z0-9+/]{200}", out.inner_text())           # no stored data shown as text
    finally:
        context.close()
