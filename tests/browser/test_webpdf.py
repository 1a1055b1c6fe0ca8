"""``jupyter nbconvert --to webpdf`` of lecture 8 (a table, a graph, a debugger), the real tool: its PDF holds every
node of the graph and its legend, on one page, and no row of the table is cut by a page break.

nbconvert's WebPDFExporter launches Playwright's own Chromium and has no option naming another browser (nor has
Playwright an environment variable for it); what Playwright reads is ``PLAYWRIGHT_BROWSERS_PATH``, the folder of
the browsers ``playwright install`` downloads.  The test makes such a folder whose headless Chromium is this
machine's (``/usr/bin/chromium``), as docs/front_ends.md tells a reader without a download to do.  The pages are
also drawn as pictures (Chromium's own PDF viewer) under ``test-output/browser/webpdf-page-N.png``."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import browser_harness as harness

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LECTURE = harness.REPO / "notebooks" / "en" / "08_debugger_and_graph.ipynb"
# In the page as the exporter prints it (print media, the PDF's width): each node of the graph inside its box and
# the page, the box not cut
GRAPH_JS = """() => { const g = document.querySelector('.jl-graph'); const port = g.querySelector('.jl-port');
  const p = port.getBoundingClientRect(), width = document.documentElement.clientWidth;
  const nodes = [...g.querySelectorAll('.jl-port svg g.node')].map(n => {
    const r = n.getBoundingClientRect();
    return {id: n.id, inside: r.left >= p.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1
            && r.bottom <= p.bottom + 1 && r.right <= width + 1,
            text: [...n.querySelectorAll('text')].map(t => t.textContent)}; });
  return {live: g.classList.contains('jl-live'), nodes}; }"""
ROWS_JS = """() => [...document.querySelectorAll('.jl-table > table.jl-eqns > tbody > tr.jl-row')]
  .map(tr => tr.innerText)"""


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def headless_shell(folder: Path) -> Path:
    """``folder`` laid out as ``playwright install`` leaves it, its headless Chromium this machine's."""
    import playwright
    browsers = json.loads((Path(playwright.__file__).parent / "driver" / "package" / "browsers.json").read_text())
    shell = [b for b in browsers["browsers"] if b["name"] == "chromium-headless-shell"]
    if not shell:
        harness.skip("this Playwright names no chromium-headless-shell in its browsers.json: the folder it reads "
                     "is laid out otherwise")
    exe = folder / f"chromium_headless_shell-{shell[0]['revision']}" / "chrome-headless-shell-linux64"
    exe.mkdir(parents=True)
    (exe / "chrome-headless-shell").symlink_to(harness.CHROMIUM)
    return folder


def nbconvert(*args: str, cwd: Path, env: dict) -> None:
    done = subprocess.run([sys.executable, "-m", "nbconvert", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"nbconvert {args} exited with {done.returncode}:\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def printed(browser, tmp_path_factory):
    """Lecture 8 run (nbconvert --execute, as a course is built), then ``--to webpdf`` and the HTML it prints."""
    pypdf = pytest.importorskip("pypdf", reason="pypdf reads the PDF's text (in the dev extras)")
    root = tmp_path_factory.mktemp("webpdf")
    shutil.copy(LECTURE, root / "lecture.ipynb")
    env = dict(os.environ, JAX_PLATFORMS="cpu", IPYTHONDIR=str(root / ".ipython"),
               PLAYWRIGHT_BROWSERS_PATH=str(headless_shell(root / "browsers")))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    nbconvert("--to", "notebook", "--execute", "lecture.ipynb", "--output", "executed", cwd=root, env=env)
    # as root (CI containers) Chromium needs --no-sandbox: the exporter's own option adds it
    sandbox = ["--WebPDFExporter.disable_sandbox=True"] if os.geteuid() == 0 else []
    nbconvert("--to", "webpdf", "executed.ipynb", *sandbox, cwd=root, env=env)
    nbconvert("--to", "html", "--template", "webpdf", "executed.ipynb", "--output", "printed", cwd=root, env=env)
    reader = pypdf.PdfReader(str(root / "executed.pdf"))
    return root, [page.extract_text() for page in reader.pages], reader.pages[0].mediabox


def test_webpdf_holds_the_whole_graph_and_no_row_cut(browser, printed):
    root, pages, box = printed
    width = round(float(box.width) * 96 / 72)          # the page's width in CSS pixels (Letter: 816)
    context = browser.new_context(viewport={"width": width, "height": 1200})
    page = context.new_page()
    try:
        page.emulate_media(media="print")                # what the exporter does before it prints
        page.goto((root / "printed.html").as_uri(), wait_until="networkidle")
        page.wait_for_selector(".jl-graph.jl-live .jl-port svg g.node", state="attached")
        page.wait_for_selector(".jl-table[data-jl-ready] tr.jl-row", state="attached")
        graph = page.evaluate(GRAPH_JS)
        rows = page.evaluate(ROWS_JS)
    finally:
        context.close()
    nodes = graph["nodes"]
    assert graph["live"] and len(nodes) == 12, nodes        # 11 values and equations, and the legend
    assert [n["id"] for n in nodes if not n["inside"]] == []
    legend = next(n for n in nodes if n["id"] == "legend")
    assert legend["text"] == ["elementwise", "contraction", "data movement", "input", "output"]
    # the graph's page: the one with its legend; every node's label on it
    (on,) = [i for i, text in enumerate(pages) if all(squash(w) in squash(text) for w in legend["text"])]
    missing = [t for n in nodes for t in n["text"] if squash(t) not in squash(pages[on])]
    assert missing == [], missing
    # every row of the table on one page: all its words on one page's text
    assert len(rows) == 6
    cut = [r for r in rows if not any(all(w in squash(text) for w in r.split()) for text in pages)]
    assert cut == [], cut
    pictures(browser, root / "executed.pdf", len(pages))


def pictures(browser, pdf: Path, n: int) -> None:
    """Each page of the PDF as Chromium's PDF viewer draws it, ``webpdf-page-N.png``: to look at, not asserted (the
    viewer draws a page a moment after its load, with no event a test can wait on)."""
    harness.OUTPUT.mkdir(parents=True, exist_ok=True)
    for k in range(1, n + 1):
        page = browser.new_page(viewport={"width": 900, "height": 1150})
        try:
            page.goto(f"{pdf.as_uri()}#page={k}&toolbar=0&navpanes=0&view=Fit")
            page.wait_for_timeout(1500)
            page.screenshot(path=str(harness.OUTPUT / f"webpdf-page-{k}.png"))
        finally:
            page.close()
