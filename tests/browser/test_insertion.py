"""Every way a front end puts an output's HTML on the page, replayed in Chromium on stored outputs (a table with
its graph, a debugger's replay): each must bring the views alive.

- ``lab``: JupyterLab's ``evalInnerHTMLScriptTags`` (@jupyterlab/rendermime ``renderers.ts``): the HTML set as
  ``innerHTML`` in a detached node, each script replaced in place by a copy with every attribute, then attached.
- ``jquery``: nbclassic's output area appends with jQuery 3, whose ``domManip`` inserts the nodes with their
  scripts disabled, then runs each script's *text* through ``DOMEval``: a new script in the page's ``<head>``,
  removed at once (no attributes, not in the output).
- ``vscode``: VS Code's built-in renderer (microsoft/vscode ``extensions/notebook-renderers/src/index.ts``,
  ``renderHTML`` + ``domEval``): ``innerHTML`` into a new ``div``, the ``div`` attached, then each script
  re-created from its ``innerText`` with only ``type/src/nonce/noModule/async``, appended and removed.
- ``frame``: the HTML parsed as a page in its own frame (Colab's per-output frame; nbconvert's and Voilà's
  exported pages), scripts run by the parser.
"""
from __future__ import annotations

import functools
import http.server
import threading

import pytest

import browser_harness as harness

pytestmark = pytest.mark.browser

INSERT = {
    "lab": """(html) => {
        const host = document.createElement('div');
        host.innerHTML = html;
        for (const s of Array.from(host.getElementsByTagName('script'))) {
          const c = document.createElement('script');
          for (const a of Array.from(s.attributes)) c.setAttribute(a.name, a.value);
          c.textContent = s.textContent;
          s.parentNode.replaceChild(c, s);
        }
        document.getElementById('out').appendChild(host);
    }""",
    "jquery": """(html) => {
        const t = document.createElement('template');
        t.innerHTML = html;
        const scripts = Array.from(t.content.querySelectorAll('script'));
        const run = scripts.filter(s => /^$|^module$|\\/(?:java|ecma)script/i.test(s.type));
        run.forEach(s => { s.type = 'true/' + s.type; });          // disableScript
        const out = document.createElement('div');
        out.appendChild(t.content);
        document.getElementById('out').appendChild(out);
        run.forEach(s => {                                          // restoreScript, then DOMEval
          s.removeAttribute('type');
          const e = document.createElement('script');
          e.text = s.textContent;
          document.head.appendChild(e).parentNode.removeChild(e);
        });
    }""",
    "vscode": """(html) => {
        const container = document.getElementById('out');
        const element = document.createElement('div');
        element.innerHTML = html;
        container.appendChild(element);
        for (const node of Array.from(element.getElementsByTagName('script'))) {
          const tag = document.createElement('script');
          tag.text = node.innerText;
          for (const key of ['type', 'src', 'nonce', 'noModule', 'async']) {
            const val = node[key] || node.getAttribute(key);
            if (val) tag.setAttribute(key, val);
          }
          element.appendChild(tag).parentNode.removeChild(tag);
        }
    }""",
}
MODES = [*INSERT, "frame"]


@pytest.fixture(scope="module")
def outputs():
    """Stored outputs as a notebook holds them: a table and its graph in one output, and a debugger's replay."""
    import jax.numpy as jnp
    from jax import lax

    import jaxprlens
    from jaxprlens.views import Stack

    def func10(arg, n):
        ones = jnp.ones(arg.shape)
        return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

    p = jaxprlens.trace(func10, jnp.ones(8), 5)
    both = Stack([p.table(), p.graph()])._repr_mimebundle_()["text/html"]
    replay = p.debugger()._repr_mimebundle_()
    replay = (replay[0] if isinstance(replay, tuple) else replay)["text/html"]
    return {"both": both, "replay": replay}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A plain page served over http (blob: modules need an origin), with a box outputs go into."""
    root = tmp_path_factory.mktemp("insertion")
    (root / "index.html").write_text('<!doctype html><meta charset="utf-8"><body><div id="out"></div></body>',
                                     encoding="utf-8")
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", harness.free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _open(browser, site, outputs, mode):
    root, url = site
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    if mode == "frame":
        (root / "frame.html").write_text('<!doctype html><meta charset="utf-8"><body><div id="out">'
                                         + outputs["both"] + outputs["replay"] + "</div></body>", encoding="utf-8")
        page.goto(url + "/frame.html")
    else:
        page.goto(url + "/index.html")
        for html in (outputs["both"], outputs["replay"]):
            page.evaluate(INSERT[mode], html)
    return page, errors


@pytest.mark.parametrize("mode", MODES)
def test_views_come_alive(browser, site, outputs, mode):
    page, errors = _open(browser, site, outputs, mode)
    try:
        # each view marks itself once its script has run: the table, the graph, the replay
        page.wait_for_selector('.jl-table[data-jl-ready]', state="attached")
        page.wait_for_selector('.jl-graph.jl-live', state="attached")
        page.wait_for_selector('.jl-dbg-replay[data-jl-ready]', state="attached")
        page.wait_for_selector(".jl-dbg-replay .jl-dbg-static", state="detached")   # its recording inflated and drawn
        page.wait_for_selector(".jl-dbg-replay .jl-hl", state="attached")
        assert page.locator("[data-jl-out][data-jl-on]").count() == 2           # each output claimed once
        assert page.locator("[data-jl-out] > style").count() == 2               # and given its stylesheet once
        assert page.locator(".jl-dbg-static").count() == 0                      # the replay replaced its snapshot
        # the replay steps: its position moves on a Step
        where = page.locator(".jl-dbg-replay .jl-hl").first.get_attribute("data-eqn")
        page.locator(".jl-dbg-replay button", has_text="Step").first.click()
        page.wait_for_function("(w) => { const r = document.querySelector('.jl-dbg-replay .jl-hl');"
                               " return r && r.getAttribute('data-eqn') !== w; }", arg=where)
        assert errors == []
    finally:
        harness.OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(harness.OUTPUT / f"insertion-{mode}.png"), full_page=True)
        page.close()


def test_an_output_shown_twice_is_booted_twice(browser, site, outputs):
    """The same output twice on a page (a cell's output copied, two views of one notebook): one loader boots
    every copy not yet booted; the second loader finds none left and does nothing."""
    page, errors = _open(browser, site, outputs, "vscode")
    try:
        page.evaluate(INSERT["vscode"], outputs["both"])
        page.wait_for_function("() => document.querySelectorAll('.jl-table[data-jl-ready]').length === 2")
        assert page.locator("[data-jl-out] > style").count() == 3 and errors == []
    finally:
        page.close()


PORT_JS = """() => {
  const view = document.querySelector('.jl-graph .jl-gview:not([hidden])'), port = view.querySelector('.jl-port');
  const box = port.getBoundingClientRect(), svg = port.querySelector('svg');
  const nodes = [...view.querySelectorAll('g.node')].map(n => n.getBoundingClientRect());
  const out = nodes.filter(r => r.left < box.left - 1 || r.right > box.right + 1
                                || r.top < box.top - 1 || r.bottom > box.bottom + 1);
  return {nodes: nodes.length, out: out.length, transform: svg ? svg.style.transform : null};
}"""


def test_graph_refits_to_its_box_and_prints_whole(browser, site, outputs):
    """A narrowed window fits the drawing again; printed (Ctrl+P, webpdf), every node is on the page."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        page.wait_for_selector(".jl-graph.jl-live .jl-port>svg", state="attached")
        wide = page.evaluate(PORT_JS)
        assert wide["nodes"] > 5
        page.set_viewport_size({"width": 260, "height": 900})
        page.wait_for_function("(t) => document.querySelector('.jl-graph .jl-port>svg').style.transform !== t",
                               arg=wide["transform"])
        narrow = page.evaluate(PORT_JS)
        assert narrow["out"] > 0               # on screen, the narrow box clips the drawing (zoom never below 75 %)
        page.emulate_media(media="print")
        printed = page.evaluate(PORT_JS)
        assert printed["nodes"] == wide["nodes"] and printed["out"] == 0, printed
        assert errors == []
    finally:
        page.close()


def _narrowed(page, fraction: float) -> tuple:
    """The graph's port before and after its box is narrowed to ``fraction`` of the drawing's width (refitted)."""
    page.wait_for_selector(".jl-graph.jl-live .jl-port>svg", state="attached")
    width = page.evaluate("() => document.querySelector('.jl-graph .jl-port>svg').width.baseVal.value")
    before = page.evaluate(PORT_JS)
    page.evaluate("(w) => { document.getElementById('out').style.width = w + 'px'; }", round(width * fraction))
    page.wait_for_function("(t) => document.querySelector('.jl-graph .jl-port>svg').style.transform !== t",
                           arg=before["transform"])
    return before, page.evaluate(PORT_JS)


def test_a_small_graph_shows_whole_in_a_narrow_notebook(browser, site, outputs):
    """A 970 px window with JupyterLab's side panel open leaves a graph about 520 px: a drawing whose whole width
    fits at 60 % or more shows every node and its legend at once (as its picture does), not a middle cut at both
    sides."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        before, fitted = _narrowed(page, 0.66)
        assert fitted["nodes"] == before["nodes"] and fitted["out"] == 0, fitted
        assert page.locator(".jl-graph g#legend").count() == 1          # the legend is one of the nodes inside
        assert errors == []
    finally:
        page.close()


LEGEND_JS = """() => {
  const port = document.querySelector('.jl-graph .jl-gview:not([hidden]) .jl-port'), box = port.getBoundingClientRect();
  const r = port.querySelector('g#legend').getBoundingClientRect();
  return {left: r.left - box.left, right: box.right - r.right, width: box.width,
          drawing: port.querySelector('svg').getBoundingClientRect().width};
}"""


def test_a_graph_wider_than_its_box_starts_with_its_legend_whole(browser, site, outputs):
    """A drawing too wide for its box even at the smallest starting zoom (75 %) starts centred, moved just enough
    that its legend (right of the middle, cut by a centred start) is whole, 8 px inside the box's edge; "fit" shows
    it all."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        _, started = _narrowed(page, 0.4)
        legend = page.evaluate(LEGEND_JS)
        assert started["out"] > 0 and started["transform"].endswith("scale(0.75)"), started
        assert legend["drawing"] > legend["width"] and legend["left"] >= 0, legend
        assert abs(legend["right"] - 8) < 1, legend          # moved no further than the legend needs
        page.locator(".jl-graph button.jl-z-fit").click()
        assert page.evaluate(PORT_JS)["out"] == 0 and errors == []
    finally:
        page.close()


CHIPS_JS = """() => [...document.querySelectorAll('.jl-role')].filter(c => c.offsetParent !== null)
  .map(c => c.getClientRects().length)"""


def test_a_role_chip_is_never_split_across_lines(browser, site, outputs):
    """At every width from a phone's to a wide notebook's, each role chip of the table and the debugger's frame
    ("body consts: b c") is one box: it moves to the next line whole rather than leaving its label at a line's end
    and its values on the next."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        page.wait_for_selector(".jl-dbg-replay .jl-hl", state="attached")
        for width in range(280, 1000, 12):
            page.evaluate("(w) => { document.getElementById('out').style.width = w + 'px'; }", width)
            boxes = page.evaluate(CHIPS_JS)
            assert boxes and set(boxes) == {1}, (width, boxes)
        assert errors == []
    finally:
        page.close()


SCREEN_ONLY = [".jl-graph > .jl-hint", ".jl-table .jl-tools input[type=search]", ".jl-dbg .jl-keys"]
SHOWN_JS = "(sels) => sels.map(s => [...document.querySelectorAll(s)].some(e => e.checkVisibility()))"


def test_print_leaves_out_what_only_a_screen_can_use(browser, site, outputs):
    """Printed (Ctrl+P, webpdf): the graph's "drag to pan" line, the table's search box and the debugger's keyboard
    keys are left out; on screen all three show."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        page.wait_for_selector(".jl-table[data-jl-ready]", state="attached")
        page.wait_for_selector(".jl-graph.jl-live .jl-port>svg", state="attached")
        page.wait_for_selector(".jl-dbg-replay .jl-hl", state="attached")
        assert page.evaluate(SHOWN_JS, SCREEN_ONLY) == [True, True, True]
        page.emulate_media(media="print")
        assert page.evaluate(SHOWN_JS, SCREEN_ONLY) == [False, False, False]
        assert page.locator(".jl-graph .jl-port>svg").first.is_visible()        # the drawing itself stays
        assert errors == []
    finally:
        page.close()


PRESSED = ".jl-graph .jl-zoom button, .jl-dbg .jl-btn, .jl-dbg input:not([type=checkbox]), .jl-tools input[type=search]"
BUTTONS_JS = """(sel) => [...document.querySelectorAll(sel)].map(b => {
  const s = getComputedStyle(b);
  return [b.textContent, s.borderTopStyle !== 'none' && parseFloat(s.borderTopWidth) > 0,
          s.backgroundColor !== 'rgba(0, 0, 0, 0)'];
})"""


def test_buttons_and_boxes_look_so_where_the_page_resets_them(browser, site, outputs):
    """marimo's page (Tailwind's reset) draws a <button> or an <input> with no border and no background: the graph's
    fit / 1:1 / - / + , the debugger's Step, Back ... and its boxes to type in (a condition, a value to set), the
    table's search box still have both, so the reader sees what can be pressed or typed in."""
    page, errors = _open(browser, site, outputs, "lab")
    try:
        page.add_style_tag(content="button,input{background-color:transparent;background-image:none;border:0 solid;}")
        page.wait_for_selector(".jl-graph.jl-live .jl-zoom button", state="attached")
        page.wait_for_selector(".jl-dbg-replay .jl-hl", state="attached")
        # the live debugger's what-if editor of a value (a replay, with no kernel, has none): its buttons and box
        from jaxprlens.views.debugger.panel import editor_html
        page.evaluate("(h) => document.querySelector('.jl-dbg-replay .jl-dbg-side')"
                      ".insertAdjacentHTML('afterbegin', h)", editor_html("a", "en"))
        buttons = page.evaluate(BUTTONS_JS, PRESSED)
        assert "" in [text for text, *_ in buttons]          # the editor's box is among them
        assert len(buttons) >= 8 and all(border and ground for _, border, ground in buttons), buttons
        assert errors == []
    finally:
        page.close()
