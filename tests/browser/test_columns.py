"""A table with its cost column, measured in Chromium at the widths a learner has: about 520 px of output (a
970 px window with JupyterLab's side panel open, a slide) and 970 px.  No column is squeezed below what it
reads at (the notes gave 110 px at 520 px once, and broke ``dimension_n|umbers``), no word breaks in its middle
(only at a space or after ``_``/``,``), and below 40em the table scrolls sideways inside its own view."""
from __future__ import annotations

import pytest

import browser_harness as harness
from test_insertion import INSERT, site  # noqa: F401 - the plain page over http, as a fixture

pytestmark = pytest.mark.browser

# per column: its head's width; per cell of the equation and the notes: each line break between two Latin letters
# or digits (a break at a space, after "_" or ",", or next to a Chinese character is no break inside a word)
MEASURE = """() => {
  const view = document.querySelector('.jaxprlens.jl-table'), t = view.querySelector(':scope > table.jl-eqns');
  const heads = [...t.querySelectorAll(':scope > thead th')].map(th => Math.round(th.getBoundingClientRect().width));
  const broken = [];
  for (const td of t.querySelectorAll(':scope > tbody > tr > td.jl-eq, :scope > tbody > tr > td.jl-note')) {
    const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    let top = null, last = '', seen = '', n;
    while ((n = walk.nextNode())) {
      for (let i = 0; i < n.length; i++) {
        const ch = n.data[i], r = document.createRange();
        r.setStart(n, i); r.setEnd(n, i + 1);
        const box = r.getClientRects()[0];
        if (box && box.width && !/\\s/.test(ch)) {
          if (top !== null && box.top > top + 2 && /[A-Za-z0-9]/.test(last) && /[A-Za-z0-9]/.test(ch))
            broken.push(seen + '|' + n.data.slice(i, i + 6));
          top = box.top;
        }
        last = ch; seen = (seen + ch).slice(-12);
      }
    }
  }
  const page = document.scrollingElement;
  return {heads, broken, table: Math.round(t.getBoundingClientRect().width),
          scrolls: view.scrollWidth > view.clientWidth + 1, page_scrolls: page.scrollWidth > page.clientWidth + 1,
          em: parseFloat(getComputedStyle(t).fontSize)};
}"""


@pytest.fixture(scope="module")
def tables():
    """The costed table of an MLP's gradient (dot_general's ``dimension_numbers``, ``broadcast_dimensions``,
    ``preferred_element_type``: the long names), in English and in Chinese."""
    import jax
    import jax.numpy as jnp

    import jaxprlens

    def mlp(params, x, y):
        for w, b in params:
            x = jnp.tanh(x @ w + b)
        return jnp.mean((x - y) ** 2)

    k1, k2 = jax.random.split(jax.random.key(0))
    params = [(jax.random.normal(k1, (8, 16)), jnp.zeros(16)), (jax.random.normal(k2, (16, 4)), jnp.zeros(4))]
    p = jaxprlens.trace(jax.grad(mlp), params, jnp.ones((5, 8)), jnp.ones((5, 4)))
    return {lang: p.table(cost="flops", lang=lang)._repr_mimebundle_()["text/html"] for lang in ("en", "zh")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_column_is_squeezed_and_no_word_breaks_inside(browser, site, tables, lang):  # noqa: F811
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(site[1] + "/index.html")
        page.evaluate(INSERT["lab"], tables[lang])
        page.wait_for_selector(".jl-table[data-jl-ready]", state="attached")      # its stylesheet is in
        harness.OUTPUT.mkdir(parents=True, exist_ok=True)
        seen = {}
        for width in (520, 970, 400):
            page.evaluate("(w) => { document.getElementById('out').style.width = w + 'px'; }", width)
            seen[width] = m = page.evaluate(MEASURE)
            page.screenshot(path=str(harness.OUTPUT / f"columns-{lang}-{width}.png"), full_page=True)
            assert m["broken"] == [], (width, m["broken"][:5])
            assert not m["page_scrolls"]
        em = seen[520]["em"]
        n, eq, note, cost = seen[520]["heads"]
        assert seen[520]["table"] == 520 and not seen[520]["scrolls"]
        assert note >= 12 * em and eq >= 16 * em and cost == round(10 * em), seen[520]   # 151 and 197 px at 12 px
        n, eq, note, cost = seen[970]["heads"]
        assert note >= 30 * em and eq >= 30 * em, seen[970]                              # 430 and 368 px
        # narrower than 40em: the table keeps 40em and scrolls sideways in its own view, not the page
        assert seen[400]["table"] == round(40 * em) and seen[400]["scrolls"], seen[400]
        assert errors == []
    finally:
        page.close()
