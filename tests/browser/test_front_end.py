"""The front end as a student sees it at an ordinary notebook width (about 970 px of output, file browser
open): no page-wide horizontal scroll, no token broken across lines, every text readable (WCAG 4.5:1) in the
light and the dark theme, Chinese without English words, def/use highlighting across a while body, a
model-sized table that paints quickly, and a stored notebook that is readable untrusted."""
from __future__ import annotations

import json
import re
import sys

import pytest

import browser_harness as harness
from test_lab import CALL, FUNC10, LOAD, _use_theme

pytestmark = pytest.mark.browser

VIEWPORT = 1400          # JupyterLab with its file browser open: about 970 px of output width
MLP = """\
import jax, jax.numpy as jnp

def mlp(params, x, y):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.mean((x - y) ** 2)

k1, k2 = jax.random.split(jax.random.key(0))
params = [(jax.random.normal(k1, (8, 16)), jnp.zeros(16)), (jax.random.normal(k2, (16, 4)), jnp.zeros(4))]
x, y = jnp.ones((5, 8)), jnp.ones((5, 4))
"""
GRAD_CALL = "jax.grad(mlp)(params, x, y)"
CELLS = [LOAD,
         "%%jaxpr\n" + FUNC10 + CALL,                                     # 1 table
         "%%jaxpr --table --run --cost\n" + MLP + GRAD_CALL,              # 2 table with its cost + run
         "%%jaxpr --transform grad --compare\nmlp(params, x, y)",         # 3 compare
         "%%jaxpr --lower\n" + GRAD_CALL,                                  # 4 lower
         "%%jaxpr --lang zh\n" + CALL,                                     # 5 zh table
         "%%jaxpr --lang zh --table --run --cost\n" + GRAD_CALL,          # 6 zh table with its cost + run
         "%%jaxpr --lang zh --transform grad --compare\nmlp(params, x, y)"]  # 7 zh compare
VIEWS = range(1, len(CELLS))
ZH = (5, 6, 7)

# Every element with its own visible text: its colour over what is painted behind it.
CONTRAST_JS = """
(root) => {
  const parse = s => { const n = (s.match(/[\\d.]+/g) || []).map(Number);   // rgb(0..255) or color(srgb 0..1)
    return s.startsWith('color(') ? n.slice(0, 3).map(x => x * 255).concat(n.slice(3)) : n; };
  const blend = (top, under) => { const a = top.length > 3 ? top[3] : 1;
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)); };
  const lum = c => { const l = [0, 1, 2].map(i => { const v = c[i] / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
  const bad = [];
  let checked = 0;
  for (const el of root.querySelectorAll('.jaxprlens, .jaxprlens *')) {
    if (!Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    if (el.closest('svg, script, style')) continue;
    const layers = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
      const c = parse(getComputedStyle(n).backgroundColor);
      if (c.length && (c.length < 4 || c[3] > 0)) layers.push(c);
      if (c.length && (c.length < 4 || c[3] >= 1)) break;
    }
    let bg = parse(getComputedStyle(document.body).backgroundColor);
    for (const c of layers.reverse()) bg = blend(c, bg);
    const fg = blend(parse(getComputedStyle(el).color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    checked++;
    if (ratio < 4.5)
      bad.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}" `
               + ratio.toFixed(2));
  }
  return {checked, bad: bad.slice(0, 12)};
}
"""

# Tokens (names, types, literals, primitives, params) that the browser broke across two lines.
BROKEN_JS = """
(root) => Array.from(root.querySelectorAll('var, .jl-type, .jl-lit, .jl-prim, .jl-param, .jl-rolename, th'))
  .filter(e => e.getClientRects().length
               && new Set(Array.from(e.getClientRects()).map(r => Math.round(r.top))).size > 1)
  .map(e => e.textContent.slice(0, 40))
"""

OVERFLOW_JS = """
(area) => Array.from(area.querySelectorAll('.jp-OutputArea-output, .jaxprlens'))
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => `${e.className}: ${e.scrollWidth} > ${e.clientWidth}`)
"""


def switch_theme(page, name: str) -> None:
    """Choose a theme from the Settings menu and wait until its colours are applied to the page."""
    light = "Light" in name
    _use_theme(page, name)
    page.wait_for_selector(f"body[data-jp-theme-light='{'true' if light else 'false'}']", state="attached")
    white = "['#ffffff', 'white', '#fff'].includes(getComputedStyle(document.body)"
    page.wait_for_function(f"() => {'' if light else '!'}{white}.getPropertyValue('--jp-layout-color0').trim())")
    harness.painted(page)


def _check_readable(page, theme: str) -> list[str]:
    problems = []
    for i in VIEWS:
        area = harness.output(page, i)
        found = area.evaluate(CONTRAST_JS)
        assert found["checked"] > 5, f"cell {i}: no text found to check"
        problems += [f"{theme} cell {i}: {b}" for b in found["bad"]]
    return problems


def test_views_fit_970px_both_themes_both_languages(lab, open_notebook):
    page = open_notebook(lab, CELLS, width=VIEWPORT)
    width = harness.output(page, 1).evaluate("e => e.querySelector('.jp-OutputArea-output').clientWidth")
    print(f"output width {width}px")
    assert 900 <= width <= 1010, f"the scenario is meant for ~970 px of output, got {width}"

    for i in VIEWS:
        area = harness.output(page, i)
        assert area.locator(".jaxprlens").count() >= 1, f"cell {i} shows no jaxprlens view"
        assert area.evaluate(OVERFLOW_JS) == [], f"cell {i} scrolls sideways at {width}px"
        assert area.evaluate(BROKEN_JS) == [], f"cell {i} breaks tokens across lines"

    # Chinese: no English word of the catalogue in the headers, captions, chips and notes (user code aside).
    from jaxprlens.present.i18n import TEXT
    english = {w for v in TEXT["en"].values() if isinstance(v, str)
               for w in re.findall(r"[A-Za-z]{4,}", v)} - {"jaxpr", "text", "program", "print"}
    for i in ZH:
        text = harness.output(page, i).evaluate(
            "a => Array.from(a.querySelectorAll('th, .jl-cap, .jl-rolename, .jl-roles, .jl-explain, caption, "
            "summary, .jl-more-note, .jl-line')).map(e => { const c = e.cloneNode(true);"
            " c.querySelectorAll('code').forEach(x => x.remove()); return c.textContent; }).join('\\n')")
        # JAX's own identifiers (param names such as `shape`, `cond_jaxpr`; primitives) stay as they are
        names = harness.output(page, i).evaluate(
            "a => Array.from(a.querySelectorAll('.jl-param, .jl-prim')).map(e => e.textContent.split('=')[0])")
        idents = {w for n in names for w in re.split(r"[^A-Za-z]+", n)}
        left = sorted({w for w in re.findall(r"[A-Za-z]{4,}", text) if w in english and w not in idents})
        assert not left, f"cell {i} (zh) still shows English words: {left}"

    # Def/use: clicking `a` marks its definition and uses, and follows it into the while body, where
    # it is bound to the binder `g` that row 2/body/3 uses.
    table = harness.output(page, 1)
    table.locator("tr.jl-row[data-eqn='1'] var", has_text=re.compile("^a$")).click()
    body_use = table.locator("tr.jl-row[data-eqn='2/body/3'] var.jl-vsel")
    body_use.first.wait_for()
    assert body_use.all_inner_texts() == ["g"]
    assert table.locator("table.jl-sig var.jl-vdef", has_text=re.compile("^a$")).count() == 1
    use = table.locator("tr.jl-row[data-eqn='2/body/3'] var", has_text=re.compile("^g$"))
    use.hover()                                   # hovering a name tells its type, from its binder
    assert use.get_attribute("title") == "g:f32[16]"
    prim = table.locator("tr.jl-row[data-eqn='2/body/3'] .jl-prim")
    prim.hover()                                  # and a primitive what it does, on every row
    assert prim.get_attribute("title") == "Adds the two operands elementwise."

    problems = _check_readable(page, "light")     # with the selection showing
    try:
        switch_theme(page, "JupyterLab Dark")
        page.screenshot(path=str(harness.OUTPUT / "front_end_dark.png"), full_page=True)
        problems += _check_readable(page, "dark")
    finally:
        lab.api("/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT",
                {"raw": '{"theme": "JupyterLab Light"}'})
    assert not problems, "text below WCAG 4.5:1:\n" + "\n".join(problems)


BIG = """\
import jax.numpy as jnp

def chain(x, y):
    for i in range(5000):
        x = jnp.sin(x) * y if i % 2 else x + y * 1.5
    return x
"""

def test_model_size_table_draws_400_rows_then_more_on_scroll(lab, open_notebook):
    """A 10k-equation table's output holds 400 rows as HTML; scrolling draws the next 400 (how fast it paints:
    benchmarks/bench_lab.py)."""
    page = open_notebook(lab, [LOAD, "%%jaxpr\n" + BIG + "chain(jnp.ones(8), jnp.ones(8))"], width=VIEWPORT)
    area = harness.output(page, 1)
    assert area.locator("tr.jl-row").count() == 400               # drawn as HTML
    area.locator("tbody.jl-more").scroll_into_view_if_needed()    # scrolling draws the next rows
    area.locator("tr.jl-row[data-eqn='799']").wait_for(state="attached")


def test_untrusted_stored_notebook_shows_a_readable_table(lab, open_notebook, tmp_path):
    """A course notebook just downloaded: outputs stored, no signature, so JupyterLab runs no script."""
    sys.path.insert(0, str(harness.REPO / "tests"))
    import jaxprlens
    from seeds import SEEDS
    fn, args = SEEDS["func10"]
    program = jaxprlens.trace(fn, *args)
    cells = [{"cell_type": "code", "execution_count": i + 1, "id": f"c{i}", "metadata": {}, "source": source,
              "outputs": [{"output_type": "execute_result", "execution_count": i + 1, "metadata": {},
                           "data": view._repr_mimebundle_()}]}
             for i, (source, view) in enumerate([("%%jaxpr\nfunc10(jnp.ones(16), 5)", program.table()),
                                                 ("%%jaxpr --graph\nfunc10(jnp.ones(16), 5)", program.graph())])]
    nb = {"cells": cells,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (lab.root / "untrusted.ipynb").write_text(json.dumps(nb))
    context = page = None
    try:
        context = harness.new_context(open_notebook.browser, width=VIEWPORT)
        page = context.new_page()
        page.goto(lab.page_url("untrusted.ipynb", workspace="untrusted"))
        out = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-OutputArea")
        out.locator("tr.jl-row").first.wait_for()
        rows = out.locator("tr.jl-row")
        assert rows.count() == 8
        assert out.locator("input[type=search]").count() == 0          # no script ran...
        assert rows.nth(2).inner_text().split()[:3] == ["2", "_:i32[]", "_:i32[]"]   # ...and it reads well
        graph = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-OutputArea")
        picture = graph.locator(".jl-gview:not([hidden]) img").first
        picture.wait_for()                 # a graph is always a picture: the SVG as an <img>, kept untrusted
        assert picture.evaluate("i => i.complete && i.naturalWidth > 0 && i.getBoundingClientRect().height > 50")
        # no SVG or DOT text of ours (JupyterLab's own prompt-overlay icon is an <svg> too: look in our output)
        assert graph.locator(".jaxprlens svg").count() == 0 and "->" not in graph.inner_text()
        note = graph.locator(".jl-hint")
        assert note.is_visible() and "Trust Notebook" in note.inner_text() and "command palette" in note.inner_text()
        assert out.locator("td.jl-eq").first.evaluate("e => getComputedStyle(e).textAlign") == "left"
        graph.scroll_into_view_if_needed()
        graph.screenshot(path=str(harness.OUTPUT / "untrusted_graph.png"))
        page.screenshot(path=str(harness.OUTPUT / "untrusted.png"), full_page=True)
    finally:
        if context is not None:
            context.close()


def test_untrusted_views_without_script_stay_readable(lab, open_notebook):
    """--compare, --diff, --lower carry a plain <style> that JupyterLab's sanitizer drops untrusted (with its text):
    their inline styles keep them monospace, left-aligned, in equal columns, the StableHLO one line per line."""
    sys.path.insert(0, str(harness.REPO / "tests"))
    import jaxprlens
    from seeds import SEEDS
    from jaxprlens.views.compiled.compare import Compare
    from jaxprlens.views.compiled.diff import diff
    from jaxprlens.views.compiled.lower import lowering_view
    p1, p11 = (jaxprlens.trace(SEEDS[s][0], *SEEDS[s][1]) for s in ("func1", "func11"))
    lowered = lowering_view(p1, compiled=True)
    views = [("%%jaxpr --transform grad --has-aux --compare",
              Compare(p11, p11.transform("grad", has_aux=True), label="grad(func11, has_aux=True)")),
             ("diff(...)", diff(p11.transform("vmap", in_axes="0,None"), p11.transform("vmap", in_axes="None,0"))),
             ("%%jaxpr --lower --compiled", lowered)]
    cells = [{"cell_type": "code", "execution_count": i + 1, "id": f"c{i}", "metadata": {}, "source": source,
              "outputs": [{"output_type": "execute_result", "execution_count": i + 1, "metadata": {},
                           "data": view._repr_mimebundle_()}]} for i, (source, view) in enumerate(views)]
    nb = {"cells": cells,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (lab.root / "untrusted_views.ipynb").write_text(json.dumps(nb))
    context = None
    try:
        context = harness.new_context(open_notebook.browser, width=VIEWPORT)
        page = context.new_page()
        page.goto(lab.page_url("untrusted_views.ipynb", workspace="untrusted-views"))
        page.locator(".jaxprlens.jl-lowering").wait_for()
        for i, kind in enumerate(("jl-compare", "jl-diff", "jl-lowering")):
            area = harness.output(page, i)
            view = area.locator(f".jaxprlens.{kind}")
            assert area.locator("style").count() == 0                       # sanitized: untrusted indeed...
            text = area.inner_text()
            assert ".jaxprlens" not in text and "{font" not in text and "table-layout" not in text   # ...no CSS text
            assert "monospace" in view.evaluate("e => getComputedStyle(e).fontFamily")
            eq = view.locator(".jl-eq").first
            assert eq.evaluate("e => [getComputedStyle(e).textAlign, getComputedStyle(e).whiteSpace]") == \
                ["left", "pre-wrap"]
            assert area.evaluate(OVERFLOW_JS) == [], f"{kind} scrolls sideways untrusted"
        mark = harness.output(page, 1).locator("tbody tr > td").first                # (data-* attributes are dropped)
        assert mark.evaluate("e => e.getBoundingClientRect().width") < 60           # the +/-/~ column stays narrow
        hlo = harness.output(page, 2).locator("pre.jl-hlo").first
        assert len(hlo.inner_text().rstrip("\n").split("\n")) == len(lowered.hlo.lines)   # a line per line
        page.screenshot(path=str(harness.OUTPUT / "untrusted_views.png"), full_page=True)
    finally:
        if context is not None:
            context.close()


# Words, numbers, sizes (``320 B``) and HLO tokens (``tensor<5x16xf32>``) that the browser broke across two lines,
# found in the text itself (so a plain <span> or an untrusted <pre> counts too); CJK text breaks anywhere by design.
BROKEN_TEXT_JS = """
(root) => {
  const broken = [];
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (!n.parentElement.getClientRects().length) continue;
    for (const m of n.textContent.matchAll(/tensor<[^>\\s]*>|\\d[\\d.]*\\s[kMGT]?(?:B|FLOP)\\b|[A-Za-z0-9_.]{2,}/g)) {
      const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(q => q.width > 0).map(q => Math.round(q.top)));
      if (tops.size > 1) broken.push(m[0].slice(0, 30));
    }
  }
  return broken.slice(0, 10);
}
"""

# Where the memory chart's peak mark is (its circle, read from the SVG picture), what hovering there says, and the
# chart's words (HTML over the picture, so they take the theme's colour): their size and whether they stay inside.
PEAK_HOVER_JS = """
(area) => {
  const img = area.querySelector('.jl-mem-chart img');
  const bytes = Uint8Array.from(atob(img.src.split(',')[1]), c => c.charCodeAt(0));
  const svg = new DOMParser().parseFromString(new TextDecoder().decode(bytes), 'image/svg+xml');
  const box = img.getBoundingClientRect(), scale = box.width / img.naturalWidth;
  const c = svg.querySelector('circle');
  const x = box.left + Number(c.getAttribute('cx')) * scale, y = box.top + box.height / 2;
  const words = [...area.querySelectorAll('.jl-mem-chart > .jl-mem-label')];
  const out = area.querySelector('.jp-OutputArea-output').getBoundingClientRect();
  return {x, y, scale, smallest: Math.min(...words.map(w => parseFloat(getComputedStyle(w).fontSize))),
          labels: words.map(w => w.textContent), inSvg: svg.querySelectorAll('text, rect').length,
          outside: words.filter(w => { const r = w.getBoundingClientRect();
                                       return r.left < out.left - 1 || r.right > out.right + 1; })
                        .map(w => w.textContent)};
}
"""
# For each StableHLO line the browser wrapped: how far right of its line number the continuation starts (a hanging
# indent; negative: the wrapped text ran back under the numbers).
HANG_JS = """
(pre) => { const gaps = [];
  for (const line of pre.querySelectorAll('.jl-hlo-line')) {
    const num = line.querySelector('.jl-ln');
    const r = document.createRange(); r.selectNodeContents(line);
    const boxes = [...r.getClientRects()].filter(q => q.width > 0);
    const first = Math.min(...boxes.map(q => q.top));
    const later = boxes.filter(q => q.top > first + 2);
    if (num && later.length) gaps.push(Math.min(...later.map(q => q.left)) - num.getBoundingClientRect().right);
  }
  return gaps; }
"""
FUSION_MEMORY = [LOAD, MLP,
                 "%%jaxpr --lower --compiled\n" + GRAD_CALL,
                 "%%jaxpr --fusion\n" + GRAD_CALL, "%%jaxpr --fusion --lang zh\n" + GRAD_CALL,
                 "%%jaxpr --memory\n" + GRAD_CALL, "%%jaxpr --memory --lang zh\n" + GRAD_CALL]
PEAK = {"en": "2.0 kB live after equation 24 (bd:f32[5,16] = dot_general",
        "zh": "方程 24（bd:f32[5,16] = dot_general"}


def _look(page, cells: range, theme: str, mem: dict) -> list[str]:
    """What is wrong with these cells' views as painted: past the output, a token broken, text below 4.5:1; the
    lowering checked with the mouse on a linked row (JupyterLab paints a hovered row blue); the memory chart's
    labels at 11 px or more and hovering its peak mark naming the peak's equation."""
    problems = []
    for i in cells:
        area = harness.output(page, i)
        assert area.locator(".jaxprlens").count() >= 1, f"cell {i} shows no jaxprlens view"
        area.scroll_into_view_if_needed()
        if area.locator(".jl-hlo-links a").count():
            area.locator(".jl-hlo-links a").first.hover()
            low = min(harness.contrast(c["fg"], c["bg"]) for c in area.locator(".jl-hlo-links a").evaluate_all(
                f"els => els.map({harness.COLOURS_JS.strip()})"))
            print(f"{theme} cell {i}: the StableHLO links at {low:.2f}:1 or more, the mouse on one")
        if area.locator("pre.jl-hlo .jl-hlo-line").count() and not theme.startswith("untrusted"):
            # (untrusted, JupyterLab's sanitizer keeps text-indent as a plain length only: no hanging indent there)
            gaps = area.locator("pre.jl-hlo").first.evaluate(HANG_JS)
            assert gaps, f"cell {i}: no StableHLO line wraps at this width (the check would prove nothing)"
            if min(gaps) < -1:
                problems.append(f"{theme} cell {i}: a wrapped StableHLO line runs back under the line numbers")
        problems += [f"{theme} cell {i} past its width: {x}" for x in area.evaluate(OVERFLOW_JS)]
        if area.locator(".jaxprlens.jl-fusion").count():     # nbconvert's page is 858 px wide: the map fits there too
            wide = area.locator(".jaxprlens.jl-fusion").evaluate(
                "e => { e.style.width = '858px'; const w = e.scrollWidth; e.style.width = ''; return w; }")
            if wide > 859:
                problems.append(f"{theme} cell {i}: the fusion map is {wide} px wide in 858 px")
        problems += [f"{theme} cell {i} broken: {x}" for x in area.evaluate(BROKEN_TEXT_JS)]
        problems += [f"{theme} cell {i}: {b}" for b in area.evaluate(CONTRAST_JS)["bad"]]
        if i in mem:
            peak = area.evaluate(PEAK_HOVER_JS)
            assert peak["smallest"] >= 11, f"cell {i}: chart text at {peak['smallest']:.1f} px"
            assert any(x.startswith(("equation", "方程")) for x in peak["labels"]), peak["labels"]
            assert len(peak["labels"]) == 5 and peak["inSvg"] == 0, peak      # the words are HTML, the card is gone
            problems += [f"{theme} cell {i}: chart word past the output: {x}" for x in peak["outside"]]
            page.mouse.move(peak["x"], peak["y"])
            tip = page.evaluate("([x, y]) => document.elementFromPoint(x, y).getAttribute('title')",
                                [peak["x"], peak["y"]])
            if not (tip or "").startswith(mem[i]):
                problems.append(f"{theme} cell {i}: hovering the peak says {tip!r}")
        area.screenshot(path=str(harness.OUTPUT / f"look-{theme}-{i}.png"))
    return problems


def test_lower_fusion_memory_at_970px_both_themes_both_languages(lab, open_notebook):
    """#27 item 7 and #30: --lower --compiled, --fusion and --memory (en, zh) at 970 px in the light and dark theme."""
    page = open_notebook(lab, FUSION_MEMORY, width=VIEWPORT)
    assert 900 <= harness.output(page, 2).evaluate("e => e.querySelector('.jp-OutputArea-output').clientWidth") <= 1010
    mem = {5: PEAK["en"], 6: PEAK["zh"]}
    problems = _look(page, range(2, 7), "light", mem)
    try:
        switch_theme(page, "JupyterLab Dark")
        problems += _look(page, range(2, 7), "dark", mem)
    finally:
        lab.api("/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT",
                {"raw": '{"theme": "JupyterLab Light"}'})
    assert not problems, "\n".join(problems)


def test_lower_fusion_memory_untrusted_both_themes(lab, open_notebook):
    """The same views stored in a notebook opened untrusted: no stylesheet, no script; they read the same."""
    sys.path.insert(0, str(harness.REPO / "tests"))
    import jax
    import jaxprlens
    from jaxprlens.views.compiled.lower import lowering_view
    scope: dict = {}
    exec(MLP, scope)
    g = jaxprlens.trace(jax.grad(scope["mlp"]), scope["params"], scope["x"], scope["y"])
    views = [lowering_view(g, compiled=True), g.fusion(lang="en"), g.fusion(lang="zh"),
             g.memory(lang="en"), g.memory(lang="zh")]
    cells = [{"cell_type": "code", "execution_count": i + 1, "id": f"c{i}", "metadata": {}, "source": f"# {i}",
              "outputs": [{"output_type": "execute_result", "execution_count": i + 1, "metadata": {},
                           "data": view._repr_mimebundle_()}]} for i, view in enumerate(views)]
    nb = {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}}
    (lab.root / "untrusted_look.ipynb").write_text(json.dumps(nb))
    context = None
    try:
        context = harness.new_context(open_notebook.browser, width=VIEWPORT)
        page = context.new_page()
        page.goto(lab.page_url("untrusted_look.ipynb", workspace="untrusted-look"))
        page.locator(".jaxprlens.jl-memory").last.wait_for()
        assert all(harness.output(page, i).locator("style, script").count() == 0 for i in range(5))
        mem = {3: PEAK["en"], 4: PEAK["zh"]}
        problems = _look(page, range(5), "untrusted-light", mem)
        try:
            switch_theme(page, "JupyterLab Dark")
            problems += _look(page, range(5), "untrusted-dark", mem)
        finally:
            lab.api("/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT",
                    {"raw": '{"theme": "JupyterLab Light"}'})
        assert not problems, "\n".join(problems)
    finally:
        if context is not None:
            context.close()
