"""Values as pictures (issue 30) in JupyterLab and Chromium at about 970 px of output: the live debugger's value
panel and ``--run``'s outputs show each array's heatmap as an image the browser decodes, NaN marked, in the light
and the dark theme (screenshots under test-output/browser/)."""
from __future__ import annotations

import pytest

import browser_harness as harness
from test_debugger_live import LIVE, live, wait_hl
from test_front_end import VIEWPORT, switch_theme

pytestmark = pytest.mark.browser

LOAD = "%load_ext jaxprlens"
ACT = """\
import jax, numpy as np, jax.numpy as jnp

def act(x):
    y = jnp.tanh(x @ x.T / 4.)
    return jnp.log(y) * 2.          # log of the negative entries: NaN

x = jnp.asarray(np.random.default_rng(0).normal(size=(24, 32)), jnp.float32)
"""
# every picture decoded by the browser (a broken data URI has naturalWidth 0)
DECODED_JS = "root => Array.from(root.querySelectorAll('img.jl-pic-img')).map(i => [i.naturalWidth, i.alt])"


def test_the_value_panel_and_run_outputs_draw_pictures_in_both_themes(lab, open_notebook):
    page = open_notebook(lab, [LOAD, ACT, "%%jaxpr --debug\nact(x)", "%%jaxpr --run\nact(x)"], width=VIEWPORT)
    out = live(page, 2)
    wait_hl(out, "0")
    for i in ("1", "2", "3", "4", "5"):               # transpose, dot_general, div, tanh, then log: NaN where y < 0
        out.locator("button[data-do=step]").click()
        wait_hl(out, i)
    side = out.locator(".jl-dbg-side")
    side.locator("img.jl-pic-img").first.wait_for()
    decoded = side.evaluate(DECODED_JS)
    assert decoded and all(w > 0 for w, _ in decoded), decoded
    assert any("24×24 cells" in alt and "NaN" in alt for _, alt in decoded), decoded
    assert side.locator(".jl-pic-mark[data-mark='nan']").count() >= 1
    assert side.locator("svg.jl-hist").count() == 0            # the picture's histogram replaces the SVG one
    run = harness.output(page, 3)
    ran = run.evaluate(DECODED_JS)
    assert len(ran) == 1 and ran[0][0] > 0 and ran[0][1].startswith("heatmap of out: float32[24, 24]")
    out.screenshot(path=str(harness.OUTPUT / "pictures_panel_light.png"))
    run.screenshot(path=str(harness.OUTPUT / "pictures_run_light.png"))
    try:
        switch_theme(page, "JupyterLab Dark")
        out.screenshot(path=str(harness.OUTPUT / "pictures_panel_dark.png"))
        run.screenshot(path=str(harness.OUTPUT / "pictures_run_dark.png"))
    finally:
        lab.api("/lab/api/settings/@jupyterlab/apputils-extension:themes", "PUT",
                {"raw": '{"theme": "JupyterLab Light"}'})
    assert page.locator(LIVE).count() == 1


def test_untrusted_stored_outputs_keep_their_pictures(lab, open_notebook):
    """Stored outputs with no signature (JupyterLab sanitizes them): the debugger's snapshot and a --run result
    still show their pictures, decoded, with alt text; no <svg> or <style> of ours is left."""
    import json
    import jax.numpy as jnp
    import numpy as np
    from jaxprlens import trace
    from jaxprlens.engine.stepper import Stepper
    from jaxprlens.views.debugger.state import StateView

    x = np.random.default_rng(0).normal(size=(24, 32)).astype(np.float32)
    x[3, 5] = np.nan

    def act(x):
        return jnp.tanh(x @ x.T / 4.)
    program = trace(act, x)
    snapshot = StateView(Stepper(program, x)).html()
    bundles = [{"text/html": snapshot, "text/plain": "debugger snapshot"}, program.run(repeat=2)._repr_mimebundle_()]
    cells = [{"cell_type": "code", "execution_count": i + 1, "id": f"c{i}", "metadata": {}, "source": src,
              "outputs": [{"output_type": "execute_result", "execution_count": i + 1, "metadata": {}, "data": b}]}
             for i, (src, b) in enumerate(zip(("%%jaxpr --debug\nact(x)", "%%jaxpr --run\nact(x)"), bundles))]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                      "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (lab.root / "untrusted_pictures.ipynb").write_text(json.dumps(nb))
    context = harness.new_context(open_notebook.browser, width=VIEWPORT)
    try:
        page = context.new_page()
        page.goto(lab.page_url("untrusted_pictures.ipynb", workspace="untrusted-pictures"))
        for i, want in ((0, "heatmap of a: float32[24, 32], 24×32 cells, magenta: NaN (1)"),
                        (1, "heatmap of out: float32[24, 24], 24×24 cells, magenta: NaN (")):
            area = harness.output(page, i)
            area.locator("img.jl-pic-img").first.wait_for()
            assert area.locator(".jaxprlens svg, .jaxprlens style").count() == 0
            page.wait_for_function("a => Array.from(a.querySelectorAll('img')).every(i => i.complete)",
                                   arg=area.element_handle())
            decoded = area.evaluate(DECODED_JS)
            assert decoded and all(w > 0 for w, _ in decoded) and decoded[0][1].startswith(want), decoded
        harness.output(page, 0).screenshot(path=str(harness.OUTPUT / "pictures_untrusted_snapshot.png"))
    finally:
        context.close()
