"""JupyterLab's pace as a reader feels it, in Chromium: the speed goals the browser tests (tests/browser) no longer
assert, since a test on a busy machine must say what the page does, not how fast.

- the debugger's Step and Back, click to repaint (the kernel's round trip included), back to back, on chains of
  1k, 10k and 100k elementwise equations (``benchmarks/bench_stepper.py``'s chain): goal, median <= 400 ms
  (issue 13's budget is 100 ms; 400 ms is what the browser tests held it to on a quiet machine);
- Continue to the end at 1k and 100k equations (click to "done" drawn): reported;
- a 10k-equation table: first paint after its output arrives, goal <= 1 s; the next 400 rows drawn on scroll:
  reported.

Run on a quiet machine: ``.venv/bin/python benchmarks/bench_lab.py [--eqns 1000 10000 100000]`` (also by
``make bench``).  Exits 1 when a goal is missed; says so and exits 0 when Chromium or Playwright is missing.
``bench_debugger.py --lab`` times a paced Step against the 50 ms goal of issue 27.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "browser"))
sys.path.insert(0, str(HERE))

import browser_harness as harness            # noqa: E402 - tests/browser's plumbing, found through sys.path
from bench_debugger import MOVE_JS           # noqa: E402 - click, then wait for another row painted

STEP_GOAL_MS, PAINT_GOAL_MS = 400, 1000
CHAIN = f"""\
import sys, numpy as np
sys.path.insert(0, {str(HERE)!r})
from bench_stepper import chain
x, y = np.linspace(0., 1., 64, dtype=np.float32), np.ones(64, np.float32)
"""
TABLE = """\
%%jaxpr
import jax.numpy as jnp

def chain(x, y):
    for i in range(5000):
        x = jnp.sin(x) * y if i % 2 else x + y * 1.5
    return x

chain(jnp.ones(8), jnp.ones(8))
"""
# from the table's arrival in the page to the next frame painted
PAINT_JS = """
() => new Promise(resolve => {
  window.jlPaint = null;
  const seen = new MutationObserver(() => {
    if (document.querySelector('.jp-Notebook .jp-CodeCell:nth-child(2) .jl-table') && window.jlPaint === null) {
      window.jlPaint = 0; const t0 = performance.now(); seen.disconnect();
      requestAnimationFrame(() => setTimeout(() => { window.jlPaint = performance.now() - t0; }, 0));
    }
  });
  seen.observe(document.body, {childList: true, subtree: true});
  resolve(true);
})
"""
LIVE = ".jl-dbg[data-mode='live']"


def open_page(browser, server, name: str, cells: list):
    harness.write_notebook(server.root / f"{name}.ipynb", cells)
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(harness.WAIT_MS)
    page.goto(server.page_url(f"{name}.ipynb", workspace=name))
    page.wait_for_selector(".jp-Notebook .jp-CodeCell")
    harness.run_all(page)
    return page


def debugger(browser, server, n: int, moves: int) -> dict:
    page = open_page(browser, server, f"debug{n}", ["%load_ext jaxprlens", CHAIN + f"f = chain({n})",
                                                    "%%jaxpr --debug\nf(x, y)"])
    try:
        out = harness.output(page, 2).locator(".jp-OutputArea-child", has=page.locator(LIVE))
        out.locator(".jl-frame tr.jl-hl[data-eqn='0']").wait_for()
        handle = out.locator(LIVE).element_handle()
        page.evaluate(MOVE_JS, [handle, "step", 2, 0])                      # warm up
        steps = page.evaluate(MOVE_JS, [handle, "step", moves, 0])
        backs = page.evaluate(MOVE_JS, [handle, "back", moves, 0])
        t0 = time.perf_counter()
        out.locator("button[data-do=continue]").click()
        out.locator(".jl-crumbs", has_text="done").wait_for()
        return {"step": steps, "back": backs, "continue": time.perf_counter() - t0}
    finally:
        page.context.close()


def table(browser, server) -> dict:
    page = open_page(browser, server, "table", ["%load_ext jaxprlens", TABLE])
    try:
        page.evaluate(PAINT_JS)                        # run the cell again, timing its table's first paint
        page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".jp-InputArea-editor").click()
        page.keyboard.press("Control+Enter")
        page.wait_for_function("() => window.jlPaint > 0")
        paint = page.evaluate("window.jlPaint")
        area = harness.output(page, 1)
        area.locator("tr.jl-row").nth(399).wait_for()
        t0 = time.perf_counter()
        area.locator("tbody.jl-more").scroll_into_view_if_needed()
        area.locator("tr.jl-row[data-eqn='799']").wait_for(state="attached")
        return {"paint": paint, "scroll": 1000 * (time.perf_counter() - t0)}
    finally:
        page.context.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--eqns", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--moves", type=int, default=10, help="Steps (then Backs) timed per debugger")
    args = ap.parse_args(argv)
    if not os.path.exists(harness.CHROMIUM):
        print(f"skipped: no Chromium at {harness.CHROMIUM}")
        return 0
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        print(f"skipped: playwright is not importable ({e})")
        return 0
    base = Path(tempfile.mkdtemp(prefix="jl-bench-page-"))
    (base / "notebooks").mkdir()
    (base / "home").mkdir()
    harness.write_settings(base / "home")
    server = harness.Server(base / "notebooks", base / "home", app="lab").start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=harness.CHROMIUM, args=harness.CHROMIUM_ARGS)
            try:
                runs = {n: debugger(browser, server, n, args.moves) for n in args.eqns}
                tab = table(browser, server)
            finally:
                browser.close()
    finally:
        server.stop()
    ok = True
    print(f"{'eqns':>7}{'Step median':>13}{'max':>7}{'Back median':>13}{'max':>7}{'Continue s':>12}"
          f"   (ms, click to repaint in JupyterLab, {args.moves} moves back to back)")
    for n, r in runs.items():
        sm, bm = statistics.median(r["step"]), statistics.median(r["back"])
        print(f"{n:>7}{sm:>13.0f}{max(r['step']):>7.0f}{bm:>13.0f}{max(r['back']):>7.0f}{r['continue']:>12.2f}")
        ok = ok and sm <= STEP_GOAL_MS and bm <= STEP_GOAL_MS
    print(f"10k-equation table: first paint {tab['paint']:.0f} ms, next 400 rows on scroll {tab['scroll']:.0f} ms")
    ok = ok and tab["paint"] <= PAINT_GOAL_MS
    print(f"goals (a Step or Back <= {STEP_GOAL_MS} ms, first paint <= {PAINT_GOAL_MS} ms):",
          "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
