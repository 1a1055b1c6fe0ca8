"""The graph of a model-sized program as a student sees it at about 970 px of output width: drawn by the
Python calls that tracing inlined, no text under 9 px at the default zoom, the six blocks on one screen,
wheel zoom and drag pan, a click opens a call (drawn ahead of time: no kernel needed) and the breadcrumb
goes back; and func10's while loop drawn as a box that holds only its own body and cond."""
from __future__ import annotations

import inspect
import os
import sys

import pytest

import browser_harness as harness
from test_lab import CALL, FUNC10, LOAD

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import test_calls as toy
from jaxprlens.model.calls import call_tree


def _attention_size() -> int:
    """Equations of the first block's attention, from the same program traced here."""
    return len(call_tree(toy.transformer()).find("model_loss/block.1/attention").eqns)

pytestmark = pytest.mark.browser

VIEWPORT = 1400          # JupyterLab with its file browser open: about 970 px of output width
TOY = ("import jax, jax.numpy as jnp, numpy as np\n\nD = 16\n\n" +
       "\n\n".join(inspect.getsource(f) for f in (toy.layer_norm, toy.attention, toy.mlp, toy.block,
                                                   toy.model_loss, toy.make_params)))
GRAD = "%%jaxpr --graph\n" + TOY + "\njax.grad(model_loss)(make_params(), np.ones((8, D), 'f4'))"

# The visible drawing of an output: its size on screen and the smallest text in CSS pixels.
MEASURE_JS = """
(area) => {
  const view = area.querySelector('.jl-gview:not([hidden])'), svg = view.querySelector('.jl-port>svg');
  const port = svg.parentNode.getBoundingClientRect(), box = svg.getBoundingClientRect();
  let small = 1e9, n = 0;
  for (const t of svg.querySelectorAll('text')) {
    const size = parseFloat(t.getAttribute('font-size')) * t.getScreenCTM().a;
    small = Math.min(small, size); n++;
  }
  const inside = Array.from(svg.querySelectorAll('g.jl-grp')).filter(g => { const r = g.getBoundingClientRect();
    return r.left >= port.left - 1 && r.right <= port.right + 1 && r.top >= port.top - 1 && r.bottom <= port.bottom + 1;
  }).map(g => g.id);
  return {group: view.getAttribute('data-group'), crumbs: view.querySelector('.jl-crumbs').textContent,
          portW: port.width, portH: port.height, svgW: box.width, svgH: box.height, small, texts: n, inside,
          transform: svg.style.transform, eqns: svg.querySelectorAll('g.node[id^="eqn-"]').length};
}
"""


def test_grad_of_six_blocks_drawn_by_calls_zooms_pans_and_opens(lab, open_notebook):
    page = open_notebook(lab, [LOAD, GRAD], width=VIEWPORT)
    area = harness.output(page, 1)
    area.locator(".jl-gview .jl-zoom").first.wait_for()
    m = area.evaluate(MEASURE_JS)
    print("overview:", {k: v for k, v in m.items() if k != "inside"})
    assert m["group"] == "" and m["texts"] > 50
    assert m["small"] >= 8.99, f"text drawn at {m['small']:.2f} px"
    assert 900 <= m["portW"] <= 1000                           # the ordinary output width
    assert m["svgW"] <= m["portW"] + 1 and m["portH"] <= 1000   # one screen
    blocks = sorted(i for i in m["inside"] if "/block." in i and i.count("/") == 1)
    assert len(blocks) == 12, m["inside"]                       # block ×6 forward and backward, all in view

    port = area.locator(".jl-gview:not([hidden]) .jl-port")
    port.scroll_into_view_if_needed()
    box = port.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 200)
    page.keyboard.down("Control")                               # Ctrl+wheel zooms in around the pointer
    page.mouse.wheel(0, -400)                                   # (a plain wheel scrolls the notebook)
    page.keyboard.up("Control")
    page.wait_for_function("(t) => document.querySelector('.jl-gview:not([hidden]) .jl-port>svg')"
                           ".style.transform !== t", arg=m["transform"])
    zoomed = area.evaluate(MEASURE_JS)
    assert zoomed["small"] > m["small"] * 1.5 and zoomed["transform"] != m["transform"]
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 150, box["y"] + 120, steps=5)   # drag to pan
    page.mouse.up()
    page.wait_for_function("(t) => document.querySelector('.jl-gview:not([hidden]) .jl-port>svg')"
                           ".style.transform !== t", arg=zoomed["transform"])
    panned = area.evaluate(MEASURE_JS)
    assert panned["transform"] != zoomed["transform"] and panned["small"] == zoomed["small"]
    area.locator(".jl-gview:not([hidden]) button.jl-z-fit").click()
    fitted = area.evaluate(MEASURE_JS)
    assert fitted["svgW"] <= fitted["portW"] + 1
    area.locator(".jl-gview:not([hidden]) button.jl-z-one").click()
    assert abs(area.evaluate(MEASURE_JS)["small"] - 12) < 0.1   # 1:1 is 9 pt = 12 px
    page.screenshot(path=str(harness.OUTPUT / "folding-overview-zoomed.png"))

    area.locator(".jl-gview:not([hidden]) button.jl-z-fit").click()
    area.locator('.jl-gview:not([hidden]) g[id="grp-model_loss/block.1"]').click()
    opened = area.evaluate(MEASURE_JS)
    print("block 1:", {k: v for k, v in opened.items() if k != "inside"})
    assert opened["group"] == "model_loss/block.1"
    assert opened["crumbs"].startswith("model_loss › model_loss (forward) › block (call 1 of 6, forward)")
    assert opened["small"] >= 8.99 and opened["eqns"] >= 2   # its own equations (the residual adds)
    page.screenshot(path=str(harness.OUTPUT / "folding-block.png"))
    area.locator('.jl-gview:not([hidden]) g[id="grpbox-model_loss/block.1/attention"] text').first.click()
    leaf = area.evaluate(MEASURE_JS)
    assert leaf["group"] == "model_loss/block.1/attention" and leaf["eqns"] == _attention_size()   # its equations
    assert leaf["small"] >= 8.99
    page.screenshot(path=str(harness.OUTPUT / "folding-attention.png"))
    area.locator(".jl-gview:not([hidden]) a.jl-crumb").first.click()       # back to the program
    assert area.evaluate(MEASURE_JS)["group"] == ""


def test_func10_while_box_holds_only_its_body(lab, open_notebook):
    page = open_notebook(lab, [LOAD, "%%jaxpr --graph\n" + FUNC10 + CALL], width=VIEWPORT)
    area = harness.output(page, 1)
    area.locator(".jl-gview .jl-zoom").first.wait_for()
    rects = area.evaluate("""(a) => { const r = s => a.querySelector(s).getBoundingClientRect();
      const b = r('g[id="cluster-2"]'); return {box: [b.left, b.top, b.right, b.bottom],
        eqns: ['eqn-0', 'eqn-1'].map(i => { const e = r('g[id="' + i + '"]');
          return [e.left, e.top, e.right, e.bottom]; })}; }""")
    bl, bt, br, bb = rects["box"]
    for left, top, right, bottom in rects["eqns"]:           # broadcast_in_dim and the outer add
        assert right <= bl or left >= br or bottom <= bt or top >= bb, rects
    assert area.evaluate(MEASURE_JS)["small"] >= 8.99


def test_table_of_the_grad_folded_by_calls_opens_on_click(lab, open_notebook):
    page = open_notebook(lab, [LOAD, GRAD.replace("%%jaxpr --graph", "%%jaxpr")], width=VIEWPORT)
    area = harness.output(page, 1)
    rows = area.locator("tr.jl-grow")
    assert rows.count() == 2 and area.locator("tr.jl-row").count() == 0
    rows.nth(0).click()                                           # model_loss (forward): its six blocks
    area.locator('tr.jl-grow[data-group="model_loss/block.1"]').wait_for()
    assert area.locator('tr.jl-grow[data-in="model_loss"]').count() == 6
    area.locator('tr.jl-grow[data-group="model_loss/block.1"]').click()
    area.locator('tr.jl-grow[data-group="model_loss/block.1/attention"]').click()
    eqns = area.locator('tr.jl-row[data-in="model_loss/block.1/attention"]')
    assert eqns.count() == _attention_size() and eqns.first.is_visible()   # built on first open
    assert "dot_general" in eqns.first.inner_text()
    width = area.evaluate("a => a.querySelector('.jl-table').scrollWidth")
    assert width <= 1000, width                                   # no page-wide scroll at 970 px
    page.screenshot(path=str(harness.OUTPUT / "folding-table.png"))
    rows.nth(0).click()                                           # closing the forward pass hides all of it
    assert not eqns.first.is_visible() and area.locator('tr.jl-grow[data-in="model_loss"]:visible').count() == 0
    rows.nth(0).click()                                           # reopened: its blocks, closed again
    assert area.locator('tr.jl-grow[data-in="model_loss"]:visible').count() == 6 and not eqns.first.is_visible()

    # search reaches into folded calls: it opens exactly the calls that hold a match and leaves the rest shut
    box = area.locator("input[type=search]")
    box.fill("attention")                                         # a call's name: every equation inside it
    counter = area.locator(".jl-note-js")
    page.wait_for_function("c => /\\d+ matching rows/.test(c.textContent)", arg=counter.element_handle())
    n = int(counter.inner_text().split()[0])
    shown = area.locator("tr.jl-row:not(.jl-miss):visible")
    tree = call_tree(toy.transformer())
    inside = sum(g.size for g in tree.root.walk() if g.parent is not None and "attention" in g.id.split("/")[-1])
    assert n == shown.count() >= inside, (n, shown.count(), inside)   # every eqn of the 12 attention calls...
    others = area.evaluate("a => Array.from(a.querySelectorAll('tr.jl-row:not(.jl-miss)')).filter(r => r.offsetParent"
                           " && !/attention/.test(r.getAttribute('data-in'))).map(r => r.textContent)")
    assert len(others) == n - inside and all("attention" in t for t in others)   # ...and rows whose line says it
    groups = area.evaluate("a => Array.from(a.querySelectorAll('tr.jl-grow')).filter(r => r.offsetParent)"
                           ".map(r => [r.getAttribute('data-group'), r.classList.contains('jl-open')])")
    assert groups and all(open_ for _, open_ in groups), groups                # every call shown holds a match
    assert not any(g.endswith(("mlp", "layer_norm")) or "layer_norm" in g.split("/")[-1] for g, _ in groups)
    box.fill("")
    assert counter.inner_text() == ""


MLP_GRAD = """%%jaxpr --graph
import jax, jax.numpy as jnp

def loss(params, x, y):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    return jnp.mean((h @ w2 + b2 - y) ** 2)

params = ((jnp.ones((4, 8)), jnp.zeros(8)), (jnp.ones((8, 2)), jnp.zeros(2)))
jax.grad(loss)(params, jnp.ones((3, 4)), jnp.ones((3, 2)))"""


def test_a_tall_graph_says_more_is_below_until_fitted(lab, open_notebook):
    """grad of a 2-layer MLP is taller than its port at the default zoom: the port fades at the bottom and a line
    under it says more is below (its outputs were hidden with no hint); 'fit' shows it whole and the line goes."""
    page = open_notebook(lab, [LOAD, MLP_GRAD], width=VIEWPORT)
    area = harness.output(page, 1)
    area.locator(".jl-gview .jl-zoom").first.wait_for()
    more = area.locator(".jl-gview:not([hidden]) .jl-gmore")
    port = area.locator(".jl-gview:not([hidden]) .jl-port")
    assert more.is_visible() and more.inner_text().startswith("↓ more below")
    assert "jl-clipped" in port.get_attribute("class")
    page.screenshot(path=str(harness.OUTPUT / "folding-tall-clipped.png"))
    area.locator(".jl-gview:not([hidden]) button.jl-z-fit").click()
    assert not more.is_visible() and "jl-clipped" not in port.get_attribute("class")
    m = area.evaluate(MEASURE_JS)
    assert m["svgH"] <= m["portH"] + 1, m


FUSION_MEMORY = "%%jaxpr --fusion --memory\n" + TOY + "\njax.grad(model_loss)(make_params(), np.ones((8, D), 'f4'))"


def test_the_fusion_and_memory_views_open_a_call_as_the_table_does(lab, open_notebook):
    """grad of six blocks with --fusion --memory: each view is folded by the table's calls; a click on a call's row
    inserts its rows (the table's script, the rows Python wrote) indented under it, a second click hides them."""
    page = open_notebook(lab, [LOAD, FUSION_MEMORY], width=VIEWPORT)
    area = harness.output(page, 1)
    for view in ("jl-fusion-calls", "jl-memory-calls"):
        fold = area.locator(f"div.jl-callfold.{view}")
        fold.wait_for()
        call = fold.locator("tr.jl-grow").first
        gid = call.get_attribute("data-group")
        if view == "jl-fusion-calls":         # "… 12 more" after a call's first kernels: one phrase, never split
            lines = fold.evaluate("f => Array.from(f.querySelectorAll('tr.jl-grow .jl-more'))"
                                  ".map(s => [s.textContent, s.getClientRects().length])")
            assert lines and all(n == 1 for _, n in lines), lines
        assert fold.locator(f'tr[data-in="{gid}"]').count() == 0
        call.click()
        inside = fold.locator(f'tr[data-in="{gid}"]')
        inside.first.wait_for()
        assert call.inner_text().startswith("▾") and inside.count() > 0
        assert all(inside.nth(i).is_visible() for i in range(min(inside.count(), 5)))
        page.screenshot(path=str(harness.OUTPUT / f"folding-{view}-open.png"))
        call.click()
        assert call.inner_text().startswith("▸") and not inside.first.is_visible()
        box = fold.locator(".jl-tools input[type=search]")       # the table's search, over the calls' rows too
        box.fill("dot_general")
        hits = fold.locator('tr.jl-row[data-primitive="dot_general"]:not(.jl-miss)')
        hits.first.wait_for()
        assert hits.first.is_visible() and fold.locator(".jl-note-js").inner_text() == f"{hits.count()} matching rows"
