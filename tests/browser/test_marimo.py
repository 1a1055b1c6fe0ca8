"""marimo, the real tool (``marimo run`` in Chromium): it runs no script of an HTML output but draws anywidgets
itself, so a table and a graph are drawn there as a widget that boots the same HTML, and the debugger is live.
``marimo export html``: a static page whose front end marimo loads from a CDN; the test serves those requests
from the installed marimo's own copy of that front end (the same version, ``marimo/_static``), refuses every other
request, and opens the page: the table, the graph and the debugger's replay work with no kernel and no network."""
from __future__ import annotations

import mimetypes
import os
import re
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

import pytest

import browser_harness as harness

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = textwrap.dedent('''\
    import marimo

    app = marimo.App()


    @app.cell
    def _():
        import jax.numpy as jnp
        from jax import lax
        import jaxprlens

        def func10(arg, n):
            ones = jnp.ones(arg.shape)
            return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

        p = jaxprlens.trace(func10, jnp.ones(8), 5)
        return (p,)


    @app.cell
    def _(p):
        p.table()
        return


    @app.cell
    def _(p):
        p.graph()
        return


    @app.cell
    def _(p):
        p.debugger()
        return


    if __name__ == "__main__":
        app.run()
    ''')
MARIMO = [sys.executable, "-m", "marimo"]


def _env() -> dict:
    return dict(os.environ, JAX_PLATFORMS="cpu", JAXPRLENS_RENDERER="graphviz-pure", PYTHONUNBUFFERED="1",
                MARIMO_SKIP_UPDATE_CHECK="1")


@pytest.fixture(scope="module")
def notebook(tmp_path_factory) -> Path:
    pytest.importorskip("marimo")
    path = tmp_path_factory.mktemp("marimo") / "lecture.py"
    path.write_text(NOTEBOOK, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(notebook):
    """``marimo run`` on a free port; its URL once it answers."""
    port = harness.free_port()
    log = notebook.with_suffix(".log")
    proc = subprocess.Popen(MARIMO + ["run", str(notebook), "--headless", "--host", "127.0.0.1", "--port", str(port),
                                      "--no-token"], env=_env(), cwd=notebook.parent, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    try:
        def answers() -> bool:
            if proc.poll() is not None:
                pytest.fail(f"marimo run exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(url, timeout=2):
                    return True
            except OSError:
                return False
        harness.until(answers, "marimo run answering", every=0.1)
        yield url
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


def test_views_are_interactive_in_marimo_run(browser, served):
    page = harness.new_context(browser, width=1000, height=1400).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    commands = harness.record_commands(page)
    try:
        page.goto(served)
        # playwright's selectors reach into the widgets' shadow roots
        page.wait_for_selector(".jl-table[data-jl-ready]", state="attached")
        page.wait_for_selector(".jl-graph.jl-live svg", state="attached")
        assert page.locator(".jl-table input").first.is_visible()          # the table's search box
        table = page.locator(".jl-table").first
        # source notes: the cell's place in the notebook and the line within it, not the notebook file's line
        notes = table.inner_text()
        assert "cell 1 line 6: ones = jnp.ones(arg.shape)" in notes and "cell 1 line 7" in notes
        assert "lecture.py" not in notes and "__marimo__" not in notes
        # the live debugger steps: Step moves its position
        step = page.locator("button", has_text="Step").first
        step.wait_for()
        where = page.locator(".jl-dbg .jl-hl").first.get_attribute("data-eqn")
        step.click()
        page.wait_for_function("""(w) => {
            const find = (root) => { const r = root.querySelector('.jl-dbg .jl-hl'); if (r) return r;
              for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const f = find(el.shadowRoot);
                if (f) return f; } return null; };
            const r = find(document); return r && r.getAttribute('data-eqn') !== w; }""", arg=where)
        assert errors == []
        # marimo's invoke refuses ("not supported in marimo"): the same commands, sent by static/rpc.js itself
        assert len(commands) >= 2 and all(i.startswith("jl-") for i in commands), commands
    finally:
        harness.OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(harness.OUTPUT / "marimo-run.png"), full_page=True)
        page.context.close()


def _offline(page) -> None:
    """marimo's front end, asked of its CDN by the exported page, served from the installed package instead (the
    page names the version it needs: the installed one); any other request is refused."""
    import marimo
    static = Path(marimo.__file__).parent / "_static"
    cdn = re.compile(r"https://cdn\.jsdelivr\.net/npm/@marimo-team/frontend@([^/]+)/dist/([^?#]*)")

    def serve(route):
        version, name = cdn.match(route.request.url).groups()
        path = static / name
        if version != marimo.__version__ or not path.is_file():
            route.abort()
            return
        route.fulfill(path=str(path), content_type=mimetypes.guess_type(name)[0] or "application/octet-stream")

    page.route(cdn, serve)
    page.route(re.compile(r"^(?!https://cdn\.jsdelivr\.net/npm/@marimo-team/)https?://"), lambda route: route.abort())


def test_marimo_export_html_page_shows_every_view(browser, notebook, tmp_path):
    out = tmp_path / "lecture.html"
    subprocess.run(MARIMO + ["export", "html", str(notebook), "-o", str(out)], env=_env(), check=True,
                   cwd=notebook.parent, capture_output=True, timeout=600)
    stored = out.read_text(encoding="utf-8")
    # export compiles each cell from a file of its own (as `marimo edit` does): the notes still name the cell
    assert "cell 1 line 6" in stored and "cell 1 line 7" in stored and "__marimo__cell" not in stored
    page = harness.new_context(browser, width=1000, height=1400).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _offline(page)
    try:
        page.goto(out.as_uri())
        # the table boots from the widget's stored state: its search box filters the rows
        page.wait_for_selector(".jl-table[data-jl-ready]", state="attached")
        table = page.locator(".jl-table").first
        assert "cell 1 line 6: ones = jnp.ones(arg.shape)" in table.inner_text()
        rows = table.locator("tr[data-eqn]:visible")
        every = rows.count()
        table.locator("input").first.fill("broadcast_in_dim")
        harness.until(lambda: 0 < rows.count() < every, "the table's search filtering its rows")
        # the graph is drawn and its zoom buttons are there
        page.wait_for_selector(".jl-graph.jl-live svg", state="attached")
        assert page.locator(".jl-graph button", has_text="fit").count() == 1
        # with no kernel the debugger is its recorded replay, and it steps
        dbg = page.locator(".jl-dbg:visible")
        dbg.first.wait_for()
        assert dbg.count() == 1 and dbg.first.get_attribute("data-mode") == "replay"
        at = dbg.first.locator(".jl-hl").first.get_attribute("data-eqn")
        dbg.first.locator("button", has_text="Step").first.click()
        harness.until(lambda: dbg.first.locator(".jl-hl").first.get_attribute("data-eqn") != at,
                      "the replay stepping")
        assert errors == []
    finally:
        harness.OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(harness.OUTPUT / "marimo-export.png"), full_page=True)
        page.context.close()
