"""What a student sees in JupyterLab: the table, the graph, the debugger, Chinese titles, the dark theme."""
from __future__ import annotations

import importlib.util
import re

import pytest

import browser_harness as harness

pytestmark = pytest.mark.browser

LOAD = "%load_ext jaxprlens"
# The seed article's func10: a fori_loop whose body reads two constants.
FUNC10 = """\
import jax, numpy as np, jax.numpy as jnp
from jax import lax

def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)
"""
CALL = "func10(np.ones(16), 5)"

TOP_ROWS = ".jl-table > table.jl-eqns > tbody > tr.jl-row"
WHILE_ROLES = "0 cond consts, 2 body consts, 3 carry"


def needs(module: str):
    if importlib.util.find_spec(f"jaxprlens.{module}") is None:
        harness.skip(f"jaxprlens.{module} is not importable: scenario skipped")


def test_table_rows_roles_and_folding(lab, open_notebook):
    page = open_notebook(lab, [LOAD, "%%jaxpr\n" + FUNC10 + CALL])
    out = harness.output(page, 1)
    top = out.locator(TOP_ROWS)
    assert top.count() == 3
    assert [top.nth(i).get_attribute("data-primitive") for i in range(3)] == ["broadcast_in_dim", "add", "while"]
    assert top.nth(2).locator(".jl-roles").inner_text().strip() == WHILE_ROLES

    body = out.locator("details.jl-sub[data-path='2/body']")
    rows = body.locator("tr.jl-row")
    assert rows.count() == 4
    assert rows.first.is_visible()
    body.locator("> summary").click()          # fold the body...
    rows.first.wait_for(state="hidden")
    assert body.get_attribute("open") is None
    body.locator("> summary").click()          # ...and unfold it again
    rows.first.wait_for(state="visible")
    assert all(rows.nth(i).is_visible() for i in range(4))


def _readability(out) -> tuple[dict, float]:
    """WCAG contrast of the table's texts against what is painted behind them, and the luminance
    of the table's background."""
    found, bg = {}, None
    for sel in ["th", ".jl-prim", ".jl-explain", ".jl-roles", ".jl-type", ".jl-lit", ".jl-cap"]:
        c = out.locator(f".jl-table {sel}").first.evaluate(harness.COLOURS_JS)
        found[sel] = round(harness.contrast(c["fg"], c["bg"]), 2)
        if sel == ".jl-explain":
            bg = harness.relative_luminance(c["bg"])
    return found, bg


def _use_theme(page, name: str):
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile("^Theme$")).hover()  # a submenu: no role
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(name)}$")).click()


def test_chinese_titles_and_dark_theme(lab, open_notebook):
    page = open_notebook(lab, [LOAD, "%%jaxpr --lang zh\n" + FUNC10 + CALL])
    out = harness.output(page, 1)
    heads = out.locator(".jl-table > table.jl-eqns > thead th").all_inner_texts()
    assert heads == ["#", "方程", "源码 · 含义"], heads
    assert out.locator(TOP_ROWS).nth(2).locator(".jl-roles").inner_text().strip() == \
        "0 个条件常量、2 个循环体常量、3 个携带值"

    light, light_bg = _readability(out)
    try:
        _use_theme(page, "JupyterLab Dark")
        page.wait_for_selector("body[data-jp-theme-light='false']", state="attached")
        page.wait_for_function(  # the theme's CSS variables apply after the attribute flips
            "() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim() !== '#ffffff'"
            " && getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim() !== 'white'")
        harness.painted(page)
        dark, dark_bg = _readability(out)
    finally:  # the theme is a server-side user setting: leave the server light for the other tests
        lab.api("/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT",
                {"raw": '{"theme": "JupyterLab Light"}'})
    print(f"contrast light {light} (bg luminance {light_bg:.2f}); dark {dark} (bg luminance {dark_bg:.2f})")
    assert dark_bg < 0.2 < light_bg, "the table did not follow the theme's background"
    for theme, found in (("light", light), ("dark", dark)):
        low = {k: v for k, v in found.items() if v < 4.5}
        assert not low, f"{theme} theme: table text hard to read (WCAG contrast < 4.5): {low}"


def test_graph_clusters_and_linked_rows(lab, open_notebook):
    needs("views.graph")
    page = open_notebook(lab, [LOAD, "%%jaxpr --graph\n" + FUNC10 + CALL,
                               "%%jaxpr --table --graph\n" + CALL])
    graph = harness.output(page, 1)
    svg = graph.locator(".jl-graph svg")
    svg.wait_for()
    subs = graph.locator("svg g.cluster[id^='sub-']")
    assert sorted(subs.nth(i).get_attribute("id") for i in range(subs.count())) == ["sub-2/body", "sub-2/cond"]
    assert graph.locator("svg g.cluster").count() == 3      # the while equation's box holds both
    assert graph.locator("svg g.node[id^='eqn-']").count() == 8
    assert graph.locator("table.jl-eqns").count() == 0      # --graph alone: no table
    assert graph.locator(".jl-port img").count() == 0        # trusted: the pictures became live SVG
    # edge and cluster labels take the theme's secondary text colour: readable on the page (WCAG 4.5:1)
    label = graph.locator("svg g.edge text").first
    fill = label.evaluate("e => getComputedStyle(e).fill")
    page_bg = label.evaluate("e => { for (let n = e; n; n = n.parentElement) { const c = getComputedStyle(n)"
                             ".backgroundColor; if (c && c !== 'transparent' && !c.endsWith(', 0)')) return c; }"
                             " return 'rgb(255, 255, 255)'; }")

    def parse(c):
        return [float(x) for x in re.findall(r"[\d.]+", c)]

    rgba, bg = parse(fill), parse(page_bg)[:3]
    a = rgba[3] if len(rgba) > 3 else 1
    fg = [rgba[i] * a + bg[i] * (1 - a) for i in range(3)]
    assert harness.contrast(fg, bg) >= 4.5, (fill, page_bg)

    both = harness.output(page, 2)
    node = both.locator("svg g.node[id='eqn-2/body/1']")
    row = both.locator("tr.jl-row[data-eqn='2/body/1']")
    other = both.locator("tr.jl-row[data-eqn='1']")
    node.scroll_into_view_if_needed()
    node.hover()
    expect_class(row, "jl-hl")
    expect_class(node, "jl-hl")
    assert "jl-hl" not in (other.get_attribute("class") or "")
    both.locator("svg g.node[id='eqn-1']").hover()           # moving on un-highlights
    expect_class(row, "jl-hl", present=False)
    expect_class(other, "jl-hl")
    node.click()                                               # a click pins the highlight...
    page.mouse.move(1, 1)
    expect_class(row, "jl-hl")
    other.locator(".jl-prim").click()                       # clicking a table row pins its node
    page.mouse.move(1, 1)
    expect_class(both.locator("svg g.node[id='eqn-1']"), "jl-hl")
    expect_class(row, "jl-hl", present=False)                 # and releases the earlier pin
    expect_class(node, "jl-hl", present=False)

def expect_class(locator, cls: str, present: bool = True):
    """Wait until ``cls`` is (or is not) in the element's class list (SVG or HTML)."""
    locator.wait_for(state="attached")
    js = "([el, cls, want]) => el.classList.contains(cls) === want"
    locator.page.wait_for_function(js, arg=[locator.element_handle(), cls, present])


JIT_CELL = "print('jit:', np.asarray(jax.jit(func10)(np.ones(16), 5)).tolist())"


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", text)]


def test_debugger_step_into_back_continue(lab, open_notebook):
    needs("views.debugger")
    page = open_notebook(lab, [LOAD, "%%jaxpr --debug\n" + FUNC10 + CALL, JIT_CELL])
    out = harness.output(page, 1).locator(".jl-dbg[data-mode='live']")   # (its replay, before it, steps aside)
    button = {name: out.locator("button.jl-btn", has_text=re.compile(rf"^\s*{name}\s*$"))
              for name in ("Step", "Step into", "Back", "Continue")}
    button["Step"].wait_for()                    # the widget's view has rendered
    crumbs = out.locator(".jl-crumbs")
    frame = out.locator("div.jl-frame")

    def at(eqn_id: str):
        """Wait until the highlighted row is ``eqn_id`` (the module moves the highlight on each state)."""
        out.locator(f".jl-frame tr.jl-hl[data-eqn='{eqn_id}']").wait_for()
        assert out.locator(".jl-frame tr.jl-hl").count() == 1

    def value(var: str, title: str = "input") -> list[float]:
        head = out.locator("table.jl-values tr.jl-value", has=page.locator(f"td:text-is('{title}')"))
        row = head.filter(has=page.locator(f"var:text-is('{var}')")).locator("xpath=following-sibling::tr[1]")
        return _numbers(row.locator("pre.jl-val").inner_text())

    at("0")
    button["Step"].click()
    at("1")                                                    # Step moves the highlight to the next row
    assert out.locator(".jl-frame tr.jl-done[data-eqn='0']").count() == 1
    button["Step"].click()
    at("2")
    button["Step into"].click()                                # into the while: its cond first...
    at("2/cond/0")
    assert "cond › iteration 0" in crumbs.inner_text()
    button["Step"].click()                                     # ...then the body, iteration 0
    at("2/body/0")
    assert "body › iteration 0" in crumbs.inner_text()
    assert frame.get_attribute("data-path") == "2/body"
    button["Step"].click()
    at("2/body/1")
    button["Step"].click()
    at("2/body/2")                                             # m = add j l, with j = arg + ones, l = ones * 3
    assert value("j") == [2.0] * 16
    assert value("l") == [3.0] * 16
    assert value("l", "output of 2/body/1 (mul)") == [3.0] * 16
    out.screenshot(path=str(harness.OUTPUT / "debugger_in_loop_body.png"))   # inside the loop, with values

    button["Back"].click()                                     # Back restores the previous position
    at("2/body/1")
    assert "body › iteration 0" in crumbs.inner_text()
    assert value("f") == [1.0] * 16                            # mul f 3.0: f is the constant ones
    assert out.locator("td:text-is('output of 2/body/1 (mul)')").count() == 0

    cells = page.locator(".jp-Notebook .jp-Cell").count()     # keyboard: n = Step, b = Back (the module's keys)
    frame.hover()
    page.keyboard.press("n")
    at("2/body/2")
    page.keyboard.press("b")
    at("2/body/1")
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells   # JupyterLab's own `b` did not fire

    button["Continue"].click()                                 # to the end
    crumbs.filter(has_text="done").wait_for()
    page.wait_for_function("el => el.disabled", arg=button["Step"].element_handle())
    out.locator("table.jl-values tr.jl-value", has=page.locator("td:text-is('result')")).first.wait_for()
    result = value("out", "result")
    jit = harness.output(page, 2).locator(".jp-OutputArea-output").inner_text()
    assert jit.startswith("jit:")
    assert result == _numbers(jit[4:]) == [22.0] * 16


MLP = """import numpy as np, jax.numpy as jnp
rng = np.random.default_rng(0)
params = {"w1": rng.normal(size=(4, 8)).astype(np.float32), "b1": np.zeros(8, np.float32)}
x = rng.normal(size=(3, 4)).astype(np.float32)
%load_ext jaxprlens
def mlp(params, x):
    return jnp.tanh(x @ params["w1"] + params["b1"])   # a hidden layer of eight units, squashed into (-1, 1) by tanh
"""
CUT = """out => [...out.querySelectorAll('.jl-dbg.jl-dbg-live *')].filter(e => e.getClientRects().length
  && e.textContent.trim() && !e.closest('pre.jl-val') && (getComputedStyle(e).textOverflow === 'ellipsis'
  || (e.scrollWidth > e.clientWidth + 1 && !['visible', 'clip'].includes(getComputedStyle(e).overflowX)
      && getComputedStyle(e).display !== 'inline')
  || e.getBoundingClientRect().right > out.getBoundingClientRect().right + 1)).map(e => e.className + ': '
  + e.textContent.slice(0, 40))"""


def test_debugger_at_970px_wraps_and_cuts_nothing(lab, open_notebook):
    """At 970 px of output (a student's JupyterLab) the debugger cuts no text with "…" nor clips it at the right
    edge (only a value's numbers scroll, never broken); the source listing shows the cell's %load_ext as typed."""
    needs("views.debugger")
    page = open_notebook(lab, [MLP, "%%jaxpr --debug\nmlp(params, x)"], width=1402)
    out = harness.output(page, 1)
    live = out.locator(".jl-dbg.jl-dbg-live")
    live.locator("button[data-do=step]").wait_for()
    assert round(live.evaluate("e => e.closest('.jp-OutputArea-output').getBoundingClientRect().width")) == 970
    assert out.evaluate(CUT) == []
    names = live.locator("table.jl-values td.jl-vname").all_inner_texts()
    assert any("params['w1']" in n for n in names), names                 # a name and its whole Python path
    assert "%load_ext jaxprlens" in live.locator("pre.jl-code").inner_text()


def test_notebook7_shows_table_and_debugger(notebook7, open_notebook):
    """The classic-looking Notebook 7 UI (``jupyter notebook``) renders the same outputs."""
    needs("views.debugger")
    page = open_notebook(notebook7, [LOAD, "%%jaxpr\n" + FUNC10 + CALL, "%%jaxpr --debug\n" + CALL])
    assert "/notebooks/" in page.url
    assert page.locator("#jp-NotebookPanel, .jp-NotebookPanel").count() >= 1
    table = harness.output(page, 1)
    assert table.locator(TOP_ROWS).count() == 3
    assert table.locator(TOP_ROWS).nth(2).locator(".jl-roles").inner_text().strip() == WHILE_ROLES

    debugger = harness.output(page, 2).locator(".jl-dbg[data-mode='live']")
    step = debugger.locator("button.jl-btn", has_text=re.compile(r"^\s*Step\s*$"))
    step.wait_for()
    debugger.locator(".jl-frame tr.jl-hl[data-eqn='0']").wait_for()
    step.click()
    debugger.locator(".jl-frame tr.jl-hl[data-eqn='1']").wait_for()
    shown = harness.output(page, 2).locator(".jl-dbg").evaluate_all(     # one debugger: its replay steps aside
        "els => els.filter(e => e.offsetParent !== null).map(e => e.getAttribute('data-mode'))")
    assert shown == ["live"]


FUNC1 = """\
import jax, numpy as np, jax.numpy as jnp
def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)
"""


def test_search_wheel_and_zoom(lab, open_notebook):
    """Search finds every row a source line made (the add of temp, not only its first row), says 1 row / n rows;
    a plain wheel over a graph scrolls the notebook, Ctrl+wheel zooms the graph."""
    page = open_notebook(lab, [LOAD, FUNC1, "%%jaxpr --table --graph\nfunc1(jnp.zeros(8), jnp.ones(8))",
                               *[f"print({i})" for i in range(30)]])
    out = harness.output(page, 2)
    box = out.locator("input[type=search]")
    box.wait_for()
    box.fill("temp")
    rows = out.locator("tr.jl-row:not(.jl-miss)")
    page.wait_for_function("n => n.textContent.includes('4 matching rows')",
                           arg=out.locator(".jl-note-js").element_handle())
    # temp = first + sin(second) * 3. makes three rows; sum(temp) one
    assert sorted(rows.nth(i).get_attribute("data-primitive") for i in range(rows.count())) == [
        "add", "mul", "reduce_sum", "sin"]
    box.fill("reduce_sum")
    assert out.locator(".jl-note-js").inner_text() == "1 matching row"
    box.fill("")
    graph = out.locator(".jl-graph")
    port = graph.locator(".jl-port").first
    port.locator("svg").wait_for()                         # trusted: the picture became the live SVG
    assert graph.locator(".jl-port img").count() == 0
    assert "wheel" in graph.locator(".jl-hint").inner_text()
    port.scroll_into_view_if_needed()
    page.evaluate("() => { window.jlWheel = []; document.addEventListener('wheel', "
                  "(e) => window.jlWheel.push(e.defaultPrevented), {passive: true}); }")   # what the page got
    zoom = port.locator("svg").evaluate("s => s.style.transform")
    b = port.bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + min(40, b["height"] / 2))
    page.mouse.wheel(0, 300)
    page.wait_for_function("() => window.jlWheel.length === 1")          # the wheel event reached the page
    harness.painted(page)
    assert page.evaluate("() => window.jlWheel") == [False]               # a plain wheel is the page's: it scrolls
    assert port.locator("svg").evaluate("s => s.style.transform") == zoom   # the graph did not zoom
    b = port.bounding_box()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + min(40, b["height"] / 2))
    page.keyboard.down("Control")
    page.mouse.wheel(0, -200)
    page.keyboard.up("Control")
    page.wait_for_function("() => window.jlWheel.length === 2")
    harness.painted(page)
    assert page.evaluate("() => window.jlWheel")[-1] is True                # Ctrl+wheel is the graph's...
    assert port.locator("svg").evaluate("s => s.style.transform") != zoom   # ...and zooms it


def test_rise_slideshow_shows_the_table(lab, open_notebook):
    """`make lab` installs jupyterlab-rise: its toolbar button opens the lecture as reveal.js slides, and the
    table shows there with its rows (the notebook is saved first: RISE renders what is on disk)."""
    if importlib.util.find_spec("jupyterlab_rise") is None:
        harness.skip("jupyterlab-rise is not installed in this venv (`make lab` installs it)")
    page = open_notebook(lab, [LOAD, "%%jaxpr\n" + FUNC10 + CALL])
    page.keyboard.press("Control+s")
    path = next(p for p in lab.root.glob("*.ipynb") if "rise_slideshow" in p.name)
    harness.until(lambda: any(c.get("outputs") for c in harness.saved_cells(path)), "the notebook saved with its table")
    page.locator("jp-button[data-command='RISE:preview'], button[data-command='RISE:preview']").first.click()
    frame = page.frame_locator("iframe").last
    frame.locator(".reveal .slides").first.wait_for()
    table = frame.locator(".reveal .jaxprlens .jl-eqns").first
    table.wait_for(state="attached")
    assert table.locator("tr.jl-row").count() >= 3
