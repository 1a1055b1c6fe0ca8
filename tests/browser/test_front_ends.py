"""The course's views in the other front ends that run here, each the real tool: nbclassic (``jupyter nbclassic``,
jQuery inserts its outputs), Voilà (``voila notebook.ipynb``: a dashboard, widgets drawn by its own manager) and
nbconvert (``--to html`` opened in Chromium, ``--to latex`` keeps the graph's picture).  One notebook throughout:
a table, a graph and a debugger; screenshots under ``test-output/browser/``."""
from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import browser_harness as harness
from test_lab import CALL, FUNC10, LOAD

pytestmark = pytest.mark.slow

CELLS = [LOAD, "%%jaxpr\n" + FUNC10 + CALL, "%%jaxpr --graph\n" + CALL, "%%jaxpr --debug\n" + CALL]
STEP = re.compile(r"^\s*Step\s*$")


def _page(browser, width: int = 1400):
    """A page tall enough that one screenshot holds the notebook (nbclassic and Voilà scroll a box, not the page)."""
    page = harness.new_context(browser, width=width, height=2600).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.commands = harness.record_commands(page)      # the anywidget commands it sends (views' asks)
    return page, errors


def _shot(page, name: str) -> None:
    harness.OUTPUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(harness.OUTPUT / f"{name}.png"), full_page=True)


def _alive(page) -> None:
    """The table and the graph have run their scripts (each marks itself)."""
    page.wait_for_selector(".jl-table[data-jl-ready]", state="attached")
    page.wait_for_selector(".jl-graph.jl-live .jl-port svg", state="attached")


def _steps(debugger) -> None:
    """A debugger (live or replay) moves its highlight from the first row to the next on a Step."""
    debugger.locator(".jl-frame tr.jl-hl[data-eqn='0']").wait_for()
    debugger.locator("button", has_text=STEP).first.click()
    debugger.locator(".jl-frame tr.jl-hl[data-eqn='1']").wait_for()


def _shown(page) -> list[str]:
    """The debuggers a reader sees (their ``data-mode``: ``live`` or the replay's)."""
    return page.locator(".jl-dbg").evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => e.getAttribute('data-mode'))")


# ---------------------------------------------------------------- nbclassic
NBCLASSIC_DONE = """() => { const ps = [...document.querySelectorAll('#notebook .code_cell .input_prompt')];
  return ps.length && ps.every(p => /\\[\\d+\\]/.test(p.textContent)); }"""


@pytest.fixture(scope="module")
def nbclassic(browser, tmp_path_factory):
    """``jupyter nbclassic`` from this venv (its widget nbextensions: ipywidgets' and anywidget's)."""
    base = tmp_path_factory.mktemp("nbclassic")
    (base / "notebooks").mkdir()
    server = harness.Server(base / "notebooks", base / "home", app="nbclassic")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.mark.browser
def test_nbclassic_table_graph_and_live_debugger(browser, nbclassic):
    """Run all in nbclassic, as a learner does (Cell → Run All): the table and the graph come alive through
    jQuery's insertion, the debugger is the live widget and steps, its replay steps aside."""
    harness.write_notebook(nbclassic.root / "classic.ipynb", CELLS)
    page, errors = _page(browser)
    try:
        page.goto(nbclassic.page_url("classic.ipynb"))
        page.wait_for_selector("#kernel_indicator_icon.kernel_idle_icon", state="attached")
        page.locator("#celllink").click()
        page.locator("#run_all_cells").click()
        page.wait_for_function(NBCLASSIC_DONE)
        assert page.locator(".output_error, .output_stderr").all_inner_texts() == []
        _alive(page)
        fold = page.locator(".jl-table details.jl-sub > summary").first     # Bootstrap's summary{display:block}
        assert fold.evaluate("e => getComputedStyle(e).display") == "list-item"   # would hide the fold marker
        live = page.locator(".jl-dbg[data-mode='live']")
        live.locator("button", has_text=STEP).first.wait_for()
        _steps(live)
        assert _shown(page) == ["live"]
        assert page.commands and all(harness.INVOKE_ID.fullmatch(i) for i in page.commands)   # anywidget's invoke
        assert errors == []
    finally:
        _shot(page, "nbclassic")
        page.context.close()


# ---------------------------------------------------------------- Voilà
@pytest.fixture(scope="module")
def voila(browser, tmp_path_factory):
    base = tmp_path_factory.mktemp("voila")
    (base / "notebooks").mkdir()
    notebook = harness.write_notebook(base / "notebooks" / "dashboard.ipynb", CELLS)
    server = harness.Voila(notebook, base / "home")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.mark.browser
def test_voila_table_graph_and_live_debugger(browser, voila):
    """Voilà runs the notebook in a kernel it keeps for the page: the table and graph come alive, and the debugger
    is the live widget (it steps), not only the replay."""
    page, errors = _page(browser)
    try:
        page.goto(voila.page_url())
        _alive(page)
        live = page.locator(".jl-dbg[data-mode='live']")
        live.locator("button", has_text=STEP).first.wait_for()
        _steps(live)
        assert _shown(page) == ["live"]
        assert live.locator(".jl-badge").inner_text().strip() == "live"     # the note says which debugger
        assert page.commands and all(harness.INVOKE_ID.fullmatch(i) for i in page.commands)   # anywidget's invoke
        assert errors == []
    finally:
        _shot(page, "voila")
        page.context.close()


# ---------------------------------------------------------------- nbconvert
def _tool(*args: str, cwd: Path) -> None:
    """``python -m <tool> ...`` in ``cwd`` with this venv's kernel; its output in the failure's message."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", IPYTHONDIR=str(cwd / ".ipython"))
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, f"{args} exited with {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> Path:
    """The notebook run by nbconvert (nbclient, no page: the debugger stores its replay), as a course is built."""
    root = tmp_path_factory.mktemp("nbconvert")
    harness.write_notebook(root / "lecture.ipynb", CELLS)
    _tool("nbconvert", "--to", "notebook", "--execute", "lecture.ipynb", "--output", "executed", cwd=root)
    return root / "executed.ipynb"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.browser
def test_nbconvert_html_comes_alive(browser, executed):
    """``nbconvert --to html`` of the executed notebook, opened in Chromium over http: the table and the graph
    come alive, the debugger is the recorded replay and steps."""
    _tool("nbconvert", "--to", "html", "executed.ipynb", cwd=executed.parent)
    handler = functools.partial(_Quiet, directory=str(executed.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", harness.free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page, errors = _page(browser)
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/executed.html")
        _alive(page)
        replay = page.locator(".jl-dbg-replay[data-jl-ready]")
        replay.wait_for()
        assert replay.locator(".jl-badge").inner_text().strip() == "recorded replay"
        _steps(replay)
        assert _shown(page) == ["replay"] and page.locator(".jl-dbg-static").count() == 0
        assert errors == []
    finally:
        _shot(page, "nbconvert-html")
        page.context.close()
        server.shutdown()


def test_nbconvert_latex_includes_the_graph_picture(executed):
    """``nbconvert --to latex``: the graph's output is its PNG picture in the .tex (LaTeX itself is not run)."""
    _tool("nbconvert", "--to", "latex", "executed.ipynb", cwd=executed.parent)
    tex = (executed.parent / "executed.tex").read_text()
    pictures = re.findall(r"\\(?:adjustimage|includegraphics)\b.*\{([^{}]+\.png)\}", tex)
    assert len(pictures) == 1, pictures                   # the graph's; the table and the replay are HTML only
    picture = executed.parent / pictures[0]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert picture.name == "executed_2_0.png"               # the third cell's: %%jaxpr --graph
    assert "operand roles: 0 cond consts, 2 body consts, 3 carry" in tex   # the table, as its text
    assert "jaxprlens debugger at eqn 0" in tex                           # the debugger's first step, as text
