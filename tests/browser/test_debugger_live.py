"""The debugger in JupyterLab and Chromium (issue 13): Step/Back latency on 1k and 10k equations (and 100k,
issue 21), Continue, breakpoints by clicking a row's gutter, a NaN condition, jax.debug.print while stepping,
and the recorded replay stepping with no kernel in a reopened notebook and in nbconvert HTML."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

import browser_harness as harness
from test_front_end import CONTRAST_JS, switch_theme
from jaxprlens.views.debugger.state import ROWS_PER_MESSAGE

pytestmark = pytest.mark.browser

LOAD = "%load_ext jaxprlens"
# the benchmark's chain of elementwise equations (benchmarks/bench_stepper.py), at 1k and 10k
CHAIN = f"""\
import sys, jax, numpy as np
sys.path.insert(0, {str(harness.REPO / "benchmarks")!r})
from bench_stepper import chain

f1k, f10k, x, y = chain(1000), chain(10000), np.linspace(0., 1., 64, dtype=np.float32), np.ones(64, np.float32)
"""
FUNC10 = """\
import jax, numpy as np, jax.numpy as jnp
from jax import lax

def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)
"""
NAN = """\
def nan_at_log(x):
    a = x * 2.
    jax.debug.print("a0={a}", a=a[0])
    b = jnp.log(a - 3.)
    jax.debug.print("b1={b}", b=b[1])
    return b * 2.
"""
LIVE = ".jl-dbg[data-mode='live']"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
REPLAY = ".jl-dbg[data-mode='replay']"

# Click a button, then wait (MutationObserver) until the highlighted row is another one and the browser
# has painted it: the click-to-repaint time of one move, kernel round trip included.
MOVE_JS = """
async ([root, name, n]) => {
  const times = [];
  for (let k = 0; k < n; k++) {
    const before = root.querySelector('tr.jl-hl');
    const t0 = performance.now();
    await new Promise((resolve) => {
      const obs = new MutationObserver(() => {
        const hl = root.querySelector('tr.jl-hl');
        if (hl && hl !== before) { obs.disconnect(); requestAnimationFrame(() => setTimeout(resolve, 0)); }
      });
      obs.observe(root, {subtree: true, attributes: true, attributeFilter: ['class'], childList: true});
      root.querySelector(`button[data-do=${name}]`).click();
    });
    times.push(performance.now() - t0);
  }
  return times;
}
"""


def live(page, index: int):
    """The output of code cell ``index`` that holds its live debugger (the cell's first output is its recorded
    replay, hidden while the live one answers)."""
    return harness.output(page, index).locator(".jp-OutputArea-child", has=page.locator(LIVE))


def hl(out) -> str:
    return out.locator("tr.jl-hl").first.get_attribute("data-eqn")


def wait_hl(out, eqn_id: str):
    """Until the row ``eqn_id`` is the highlighted one (a safety net of ``harness.WAIT_MS``, not a pace)."""
    out.locator(f".jl-frame tr.jl-hl[data-eqn='{eqn_id}']").wait_for(timeout=harness.WAIT_MS)


def test_step_back_and_continue_at_model_size(lab_saving, open_notebook):
    """Step and Back at 1k and 10k equations land on the rows they say, and Continue ends with jax.jit's value
    (how fast: benchmarks/bench_lab.py); every ask goes by anywidget's own invoke (static/rpc.js)."""
    page = open_notebook(lab_saving, [LOAD, CHAIN, "%%jaxpr --debug\nf1k(x, y)", "%%jaxpr --debug\nf10k(x, y)",
                                      "print('jit:', float(jax.jit(f1k)(x, y)[7]))"])
    for cell, n in ((2, "1k"), (3, "10k")):
        out = live(page, cell)
        root = out.locator(LIVE)
        wait_hl(out, "0")
        handle = root.element_handle()
        page.evaluate(MOVE_JS, [handle, "step", 12])                    # each move waits for its row painted
        page.evaluate(MOVE_JS, [handle, "back", 10])
        assert hl(out) == "2"
        out.screenshot(path=str(harness.OUTPUT / f"debugger_{n}.png"))
    assert len(page.commands) >= 2 + 2 * 22                             # ready, 12 Steps and 10 Backs, each
    assert all(harness.INVOKE_ID.fullmatch(i) for i in page.commands), page.commands[:5]

    out = live(page, 2)                                                 # Continue to the end, 1k
    out.locator("button[data-do=continue]").click()
    out.locator(".jl-crumbs", has_text="done").wait_for()
    result = out.locator("tr.jl-value", has=page.locator("td.jl-vtitle", has_text="result"))
    result.first.wait_for()
    assert out.locator("button[data-do=step]").is_disabled()
    jit = harness.output(page, 4).locator(".jp-OutputArea-output").inner_text()
    preview = out.locator("tr.jl-value-data pre.jl-val").last.inner_text()
    want = float(jit.split()[1])
    got = [float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", preview)]
    assert abs(got[7] - want) < 1e-5 * max(1., abs(want))


def test_step_repaint_and_continue_at_100k_equations(lab_saving, open_notebook):
    """Issue 21: at 100k equations the frame's rows come as they are scrolled to (the page holds a few
    thousand rows, not 100k), Step and Back land on their rows, and Continue reaches the end (how fast:
    benchmarks/bench_lab.py)."""
    page = open_notebook(lab_saving, [LOAD, CHAIN + "f100k = chain(100000)", "%%jaxpr --debug\nf100k(x, y)"])
    out = live(page, 2)
    root = out.locator(LIVE)
    wait_hl(out, "0")
    handle = root.element_handle()
    page.evaluate(MOVE_JS, [handle, "step", 12])                        # each move waits for its row painted
    page.evaluate(MOVE_JS, [handle, "back", 10])
    assert hl(out) == "2"
    drawn = out.locator(".jl-frame tr.jl-row").count()
    assert drawn <= 2400, f"{drawn} rows drawn at once: a large frame's rows come as they are scrolled to"
    scroller = out.locator(".jl-dbg-frame")
    scroller.evaluate("(el) => { el.scrollTop = el.scrollHeight; }")         # the last rows, asked for on scroll
    out.locator(".jl-frame tr.jl-row[data-eqn='99999']").wait_for(state="attached")
    assert out.locator(".jl-frame tr.jl-row").count() <= 4800
    page.evaluate(MOVE_JS, [handle, "step", 1])                          # back to the current row
    assert hl(out) == "3"
    out.screenshot(path=str(harness.OUTPUT / "debugger_100k.png"))
    out.locator("button[data-do=continue]").click()
    out.locator(".jl-crumbs", has_text="done").wait_for()
    assert out.locator("button[data-do=step]").is_disabled()


def test_gutter_breakpoint_nan_condition_and_printed_output(lab_saving, open_notebook, tmp_path):
    page = open_notebook(lab_saving, [LOAD, FUNC10 + NAN, "%%jaxpr --debug\nfunc10(np.ones(16), 5)",
                                      "%%jaxpr --debug\nnan_at_log(jnp.array([1., 2., 4.]))"])
    out = live(page, 2)
    wait_hl(out, "0")
    assert out.locator(".jl-badge").inner_text() == "live"
    out.locator("tr.jl-row[data-eqn='2'] > td").first.click()          # the gutter of the while row
    out.locator("tr.jl-row.jl-bp[data-eqn='2']").wait_for()
    out.locator("button[data-do=continue]").click()
    wait_hl(out, "2")
    assert "breakpoint at eqn 2 (while)" in out.locator(".jl-dbg-side .jl-stop").inner_text()
    out.locator("button[data-do=into]").click()                         # cond, then the body
    wait_hl(out, "2/cond/0")
    out.locator("button[data-do=into]").click()
    wait_hl(out, "2/body/0")
    out.locator("tr.jl-row[data-eqn='2/body/1'] > td").first.click()
    out.locator("tr.jl-row.jl-bp[data-eqn='2/body/1']").wait_for()
    out.locator("button[data-do=continue]").click()
    wait_hl(out, "2/body/1")
    assert "body › iteration 0" in out.locator(".jl-crumbs").inner_text()
    out.locator("button[data-do=continue]").click()                     # the next iteration stops again
    out.locator(".jl-crumbs", has_text="iteration 1").wait_for()
    assert hl(out) == "2/body/1"
    out.locator(".jl-dbg-frame").hover()                                 # keys while the pointer is over it
    cells = page.locator(".jp-Notebook .jp-Cell").count()
    page.keyboard.press("b")                      # Back undoes the last move (the Continue): iteration 0 again
    out.locator(".jl-crumbs", has_text="iteration 0").wait_for()
    assert hl(out) == "2/body/1"
    page.keyboard.press("n")
    wait_hl(out, "2/body/2")
    assert page.locator(".jp-Notebook .jp-Cell").count() == cells        # JupyterLab's own `b` did not fire
    out.screenshot(path=str(harness.OUTPUT / "debugger_breakpoint_in_body.png"))

    nan = live(page, 3)
    wait_hl(nan, "0")
    printed = nan.locator("pre.jl-dbg-out")
    for i in ("1", "2", "3"):
        nan.locator("button[data-do=step]").click()
        wait_hl(nan, i)
    assert printed.inner_text().strip() == ""
    nan.locator("button[data-do=step]").click()                          # runs debug_print: a0=2.0
    wait_hl(nan, "4")
    assert printed.inner_text().strip() == "a0=2.0"
    nan.locator("input.jl-nan").check()                                  # stop on the first NaN
    nan.locator("button[data-do=continue]").click()
    nan.locator(".jl-dbg-side .jl-stop").wait_for()
    assert nan.locator(".jl-dbg-side .jl-stop").inner_text() == "any NaN in the outputs of eqn 5 (log)"
    assert hl(nan) == "6"
    assert nan.locator("tr.jl-value.jl-nonfinite").count() >= 1
    assert nan.locator(".jl-bad", has_text="nan").count() >= 1
    nan.locator("button[data-do=continue]").click()
    nan.locator(".jl-crumbs", has_text="done").wait_for()
    assert printed.inner_text().strip().splitlines() == ["a0=2.0", "b1=0.0"]
    nan.screenshot(path=str(harness.OUTPUT / "debugger_nan_and_print.png"))

    problems = []                                                      # WCAG contrast >= 4.5, both themes
    for theme in ("JupyterLab Dark", "JupyterLab Light"):
        switch_theme(page, theme)
        for area in (out, nan):
            area.locator(".jl-dbg-frame tr.jl-row").first.wait_for()
            found = area.evaluate(CONTRAST_JS)
            assert found["checked"] > 20
            problems += [f"{theme}: {b}" for b in found["bad"]]
        if theme.endswith("Dark"):
            nan.screenshot(path=str(harness.OUTPUT / "debugger_dark.png"))
    assert problems == []

    # Save, shut the kernel down, reopen: the stored output is the recorded replay, not a widget.
    page.keyboard.press("Control+s")
    name = next(p.name for p in lab_saving.root.glob("*.ipynb") if "gutter" in p.name)
    path = lab_saving.root / name

    def replays() -> list:
        outs = [o for c in harness.saved_cells(path) for o in c.get("outputs", [])]
        return [o for o in outs if "jl-dbg-replay" in "".join(o.get("data", {}).get("text/html", ""))]
    kinds = [sorted(o.get("data", {})) for o in harness.until(replays, "the debuggers' replays in the saved file")]
    assert kinds == [["text/html", "text/plain"]] * 2, kinds
    for k in lab_saving.api("/api/kernels"):
        lab_saving.api(f"/api/kernels/{k['id']}", method="DELETE")
    page.context.close()

    context = harness.new_context(open_notebook.browser)
    again = context.new_page()
    try:
        again.goto(lab_saving.page_url(name, workspace="reopen"))
        replay = harness.output(again, 2).locator(REPLAY)
        replay.locator("tr.jl-hl[data-eqn='0']").wait_for()
        assert replay.locator(".jl-badge").inner_text() == "recorded replay"
        harness.kernel_idle(again)                  # a new kernel, which a stored widget's view would look up
        harness.painted(again)
        assert again.locator(f".jp-OutputArea-output[data-mime-type='{WIDGET_VIEW}']").count() == 0
        assert "model not found" not in again.locator(".jp-Notebook").inner_text()
        steps_through_replay(again, harness.output(again, 2), harness.output(again, 3))
        again.screenshot(path=str(harness.OUTPUT / "debugger_reopened_replay.png"), full_page=True)
    finally:
        context.close()

    html = tmp_path / "saved.html"                                        # nbconvert HTML steps too
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path), "--output",
                    str(html)], check=True, capture_output=True, timeout=600)
    context = harness.new_context(open_notebook.browser)
    static = context.new_page()
    try:
        static.goto(html.as_uri())
        outs = static.locator(".jp-Cell-outputWrapper, .jp-OutputArea")
        outs.locator(REPLAY).first.locator("tr.jl-hl[data-eqn='0']").wait_for()
        roots = static.locator(REPLAY)
        assert roots.count() == 2
        steps_through_replay(static, roots.nth(0), roots.nth(1))
        static.screenshot(path=str(harness.OUTPUT / "debugger_nbconvert_replay.png"), full_page=True)
    finally:
        context.close()


def steps_through_replay(page, loop, nan):
    """The replay of func10 and of nan_at_log, stepped with no kernel."""
    loop.locator("button[data-do=step]").click()
    wait_hl(loop, "1")
    loop.locator("button[data-do=step]").click()
    wait_hl(loop, "2")
    loop.locator("button[data-do=into]").click()                           # the recording went in
    wait_hl(loop, "2/cond/0")
    assert "cond › iteration 0" in loop.locator(".jl-crumbs").inner_text()
    loop.locator("button[data-do=back]").click()
    wait_hl(loop, "2")
    loop.locator("tr.jl-row[data-eqn='2'] > td").first.click()            # breakpoints work in replay too
    loop.locator("button[data-do=reset]").click()
    wait_hl(loop, "0")
    loop.locator("button[data-do=continue]").click()
    wait_hl(loop, "2")
    loop.locator("button[data-do=continue]").click()
    loop.locator(".jl-crumbs", has_text="done").wait_for()
    result = loop.locator("tr.jl-value", has=page.locator("td.jl-vtitle", has_text="result"))
    stats = result.locator("xpath=following-sibling::tr[1]").locator(".jl-stats")
    assert "min 22  max 22  mean 22" in stats.text_content()
    nan.locator("input.jl-nan").check()
    nan.locator("button[data-do=continue]").click()
    wait_hl(nan, "6")
    assert nan.locator(".jl-bad", has_text="nan").count() >= 1
    assert nan.locator("pre.jl-dbg-out").inner_text().strip() == "a0=2.0"


def test_edit_a_value_step_out_at_the_top_and_a_frame_in_chunks(lab_saving, open_notebook):
    """What-if: the value panel's NaN sets the value eqn 0 wrote (Stepper.set_value); the rows and values it
    reaches are marked and Back undoes it.  Step out is disabled at the top level.  A 10k-eqn frame comes in
    chunks (the first message stays small) and every row arrives."""
    page = open_notebook(lab_saving, [LOAD, CHAIN + FUNC10, "%%jaxpr --debug\nfunc10(np.ones(16), 5)",
                                      "%%jaxpr --debug\nf10k(x, y)"])
    out = live(page, 2)
    wait_hl(out, "0")
    assert out.locator("button[data-do=out]").is_disabled()
    out.locator("button[data-do=step]").click()
    wait_hl(out, "1")
    out.locator("tr.jl-value-data .jl-edit button[data-edit=nan]").last.click()
    out.locator("tr.jl-row.jl-changed[data-eqn='0']").wait_for()
    assert out.locator(".jl-dbg-side .jl-edit").first.is_visible()
    assert "1 edit in effect" in out.locator(".jl-dbg-side .jl-note.jl-edit").inner_text()
    out.locator("button[data-do=continue]").click()
    out.locator(".jl-crumbs", has_text="done").wait_for()
    assert out.locator("tr.jl-row.jl-changed").count() >= 2             # the while that read it, too
    assert "nan" in out.locator("tr.jl-value-data pre.jl-val").last.inner_text()
    # the comparison with jax.jit is asked for once the end is drawn: its answer comes after
    out.locator(".jl-dbg-side", has_text="an edit (set_value) changed this run").wait_for()
    out.locator("button[data-do=reset]").click()
    wait_hl(out, "0")
    assert out.locator("tr.jl-row.jl-changed").count() == 0
    out.locator("button[data-do=into]").click()
    wait_hl(out, "1")
    out.locator("button[data-do=into]").click()
    wait_hl(out, "2")
    out.locator("button[data-do=into]").click()
    wait_hl(out, "2/cond/0")
    assert not out.locator("button[data-do=out]").is_disabled()         # inside a sub-jaxpr it returns

    big = live(page, 3)
    wait_hl(big, "0")
    assert big.locator(".jl-frame tr.jl-row").count() == ROWS_PER_MESSAGE   # the first message's rows only
    big.locator(".jl-dbg-frame").evaluate("(el) => { el.scrollTop = el.scrollHeight; }")
    big.locator(".jl-frame tr.jl-row[data-eqn='9999']").wait_for(state="attached")
    assert big.locator(".jl-frame tr.jl-row").count() < 10_000           # the rows scrolled past never came
    big.locator("button[data-do=step]").click()
    wait_hl(big, "1")


@pytest.fixture(scope="module")
def lab_no_hook(browser, tmp_path_factory):
    """JupyterLab with jaxprlens's server extension switched off, as a JupyterHub whose server runs from
    another environment has it (or ``jupyter server extension disable jaxprlens``): no save hook runs."""
    base = tmp_path_factory.mktemp("jupyter-no-hook")
    root, home = base / "notebooks", base / "home"
    root.mkdir()
    home.mkdir()
    harness.write_settings(home)
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"jaxprlens.serverext": False}}}))
    server = harness.Server(root, home, app="lab")
    try:
        yield server.start()
    finally:
        server.stop()


def visible_debuggers(page, index: int) -> list:
    """The modes of the debuggers a reader sees in code cell ``index``."""
    return harness.output(page, index).locator(".jl-dbg").evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => e.getAttribute('data-mode'))")


def test_live_once_and_saved_as_the_replay_with_the_server_extension_off(lab_no_hook, open_notebook, tmp_path):
    """One debugger live (the widget; its replay, the output before it, steps aside); saved by the front end
    (its REST PUT) with no hook, the file holds the replay and the widget's view; reopened with no kernel the
    page shows the replay, stepping, and no "model not found"; nbconvert of that file shows the replay."""
    page = open_notebook(lab_no_hook, [LOAD, FUNC10, "%%jaxpr --debug\nfunc10(np.ones(16), 5)"])
    assert "jaxprlens: live debugger outputs" not in lab_no_hook.log_text()      # the hook is off
    out = live(page, 2)
    wait_hl(out, "0")
    assert visible_debuggers(page, 2) == ["live"]
    out.locator("button[data-do=step]").click()
    wait_hl(out, "1")
    assert visible_debuggers(page, 2) == ["live"]
    harness.output(page, 2).screenshot(path=str(harness.OUTPUT / "debugger_live_no_hook.png"))

    page.keyboard.press("Control+s")
    name = next(p.name for p in lab_no_hook.root.glob("*.ipynb") if "extension_off" in p.name)
    path = lab_no_hook.root / name

    def kinds() -> list:
        cells = harness.saved_cells(path)
        outs = cells[2].get("outputs", []) if len(cells) > 2 else []
        return [(sorted(o.get("data", {})), o.get("metadata")) for o in outs]
    harness.until(lambda: len(kinds()) == 2, "the debugger's two outputs in the saved file")
    kinds = kinds()
    assert kinds == [(["text/html", "text/plain"], {"jaxprlens": {"replay": True}}),
                     ([WIDGET_VIEW, "text/plain"], {"jaxprlens": {"live": True, "debugger": True}})], kinds
    for k in lab_no_hook.api("/api/kernels"):
        lab_no_hook.api(f"/api/kernels/{k['id']}", method="DELETE")
    page.context.close()

    context = harness.new_context(open_notebook.browser)
    again = context.new_page()
    try:
        again.goto(lab_no_hook.page_url(name, workspace="reopen-no-hook"))
        replay = harness.output(again, 2).locator(REPLAY)
        replay.locator("tr.jl-hl[data-eqn='0']").wait_for()
        again.wait_for_function("() => document.body.innerText.includes('model not found') || "
                                "[...document.querySelectorAll('.jp-OutputArea-output')].some("
                                "e => e.textContent.includes('model not found'))")
        assert "model not found" not in harness.output(again, 2).inner_text()    # in the page, hidden
        assert visible_debuggers(again, 2) == ["replay"]
        replay.locator("button[data-do=step]").click()
        wait_hl(replay, "1")
        harness.output(again, 2).screenshot(path=str(harness.OUTPUT / "debugger_reopened_no_hook.png"))
    finally:
        context.close()

    html = tmp_path / "saved.html"
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(path), "--output",
                    str(html)], check=True, capture_output=True, timeout=600)
    page_text = html.read_text(encoding="utf-8")
    assert page_text.count('data-jl-view="replay"') == 1 and f'type="{WIDGET_VIEW}"' not in page_text


def test_nbconvert_execute_page_steps_through_the_replay(browser, tmp_path):
    """``jupyter nbconvert --execute --to html`` with default options (widget state stored): the page shows one
    debugger, the recorded replay, and it steps with no kernel."""
    nb = harness.write_notebook(tmp_path / "lecture.ipynb", [LOAD, FUNC10, "%%jaxpr --debug\nfunc10(np.ones(16), 5)"])
    subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--execute", "--to", "html", str(nb)],
                   check=True, capture_output=True, timeout=600, cwd=tmp_path)
    context = harness.new_context(browser)
    page = context.new_page()
    try:
        page.goto((tmp_path / "lecture.html").as_uri())
        replay = page.locator(REPLAY)
        wait_hl(replay, "0")
        assert page.locator(".jl-dbg").evaluate_all(
            "els => els.filter(e => e.offsetParent !== null).map(e => e.getAttribute('data-mode'))") == ["replay"]
        replay.locator("button[data-do=step]").click()
        wait_hl(replay, "1")
        replay.locator("button[data-do=continue]").click()
        replay.locator(".jl-crumbs", has_text="done").wait_for()
        page.screenshot(path=str(harness.OUTPUT / "debugger_nbconvert_execute.png"), full_page=True)
    finally:
        context.close()


def test_zh_dark_debugger_at_970px_keeps_every_text_inside_the_output(lab_saving, open_notebook):
    """Issue 27 item 7: at 970 px of output, in Chinese and the dark theme, no text of the debugger (crumbs,
    notes, the frame's rows, the value panel, the source listing) is cut with "…", clipped, or past the
    output's right edge, at the start, inside the value panel's widest state, and at the end."""
    from test_lab import CUT, MLP
    page = open_notebook(lab_saving, [MLP, "%%jaxpr --debug --lang zh\nmlp(params, x)"], width=1402)
    out = live(page, 1)
    wait_hl(out, "0")
    assert round(out.evaluate("e => e.querySelector('.jp-OutputArea-output').getBoundingClientRect().width")) == 970
    switch_theme(page, "JupyterLab Dark")
    try:
        found = []
        for move, eqn in (("step", "1"), ("step", "2"), ("step", "3")):
            out.locator(f"button[data-do={move}]").click()
            wait_hl(out, eqn)
            found += out.evaluate(CUT)
        out.locator("button[data-do=continue]").click()
        out.locator("button[data-do=step]:disabled").wait_for()
        found += out.evaluate(CUT)
        out.screenshot(path=str(harness.OUTPUT / "debugger_zh_dark_970.png"))
    finally:
        switch_theme(page, "JupyterLab Light")
    assert found == []


NNX_STEP = f"""\
import sys
sys.path.append({str(harness.REPO / "tests")!r})   # what libraries.py imports
from libraries import nnx_jit_train_step
train_step, (model, optimizer, tokens, targets) = nnx_jit_train_step()
"""
OPEN_CALLS = ("e => [...e.querySelectorAll('.jl-frame .jl-fgroup.jl-open')]"
              ".map(g => g.querySelector('.jl-gname').textContent)")
SHOWN = """e => { const box = e.querySelector('.jl-dbg-frame').getBoundingClientRect();
  return [...e.querySelectorAll('.jl-frame tr.jl-row, .jl-frame tr.jl-grow')].filter(r => r.getClientRects().length
    && r.getBoundingClientRect().top < box.bottom).map(r => r.dataset.eqn || 'call') }"""


def test_the_nnx_train_step_frame_folded_by_calls_at_970px(lab_saving, open_notebook):
    """Issue 28 item 1: the jitted nnx train step (1,118 equations in its body) opens folded by its Python calls,
    the calls holding the first equation open and its row on the first screen; Over call runs blocks[0] whole
    and opens blocks[1]; no text is cut at 970 px."""
    from test_lab import CUT
    # the program in a module beside the notebook, as a student keeps their own code (a folder put on sys.path
    # instead is read as a library's: its calls fold as one)
    shutil.copy(harness.REPO / "tests" / "libraries.py", lab_saving.root / "libraries.py")
    page = open_notebook(lab_saving, [LOAD, NNX_STEP, "%%jaxpr --debug\ntrain_step(model, optimizer, tokens, targets)"],
                         width=1402)
    out = live(page, 2)
    wait_hl(out, "0")
    assert round(out.evaluate("e => e.querySelector('.jp-OutputArea-output').getBoundingClientRect().width")) == 970
    assert out.evaluate(OPEN_CALLS) == ["train_step (forward)", "nnx.value_and_grad(…)", "loss_fn",
                                        "model · Transformer", "embed · Embed"]
    shown = out.evaluate(SHOWN)
    print(f"\nnnx step: {len(shown)} rows on the first screen: {shown}")
    assert shown[:7] == ["call"] * 5 + ["0", "call"]        # the first equation on the first screen, blocks[0] after
    assert out.locator(".jl-frame tr.jl-row").count() < 100  # the rows of folded calls are not drawn
    out.screenshot(path=str(harness.OUTPUT / "debugger_nnx_first_screen_970.png"))
    handle = out.locator(LIVE).element_handle()
    page.evaluate(MOVE_JS, [handle, "step", 1])
    assert hl(out) == "1" and out.evaluate(OPEN_CALLS)[-1] == "blocks[0] · Block"
    found = out.evaluate(CUT)
    out.locator("button[data-do=call]").click()
    wait_hl(out, "133")
    assert out.evaluate(OPEN_CALLS)[-1] == "blocks[1] · Block"
    assert "blocks[1] · Block" in out.locator(".jl-crumbs").inner_text()
    found += out.evaluate(CUT)
    out.screenshot(path=str(harness.OUTPUT / "debugger_nnx_folded_970.png"))
    assert found == []
