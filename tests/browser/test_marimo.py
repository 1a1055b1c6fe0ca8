"""marimo, the real tool (``marimo run`` in Chromium): it runs no script of an HTML output but draws anywidgets
itself, so a table and a graph are drawn there as a widget that boots the same HTML, and the debugger is live.
``marimo export html``: a static page whose front end marimo loads from the network, so only what it stores is
checked (the widget state holds the table's own HTML and the debugger's replay)."""
from __future__ import annotations

import os
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


def test_marimo_export_html_stores_the_views(notebook, tmp_path):
    out = tmp_path / "lecture.html"
    subprocess.run(MARIMO + ["export", "html", str(notebook), "-o", str(out)], env=_env(), check=True,
                   cwd=notebook.parent, capture_output=True, timeout=600)
    page = out.read_text(encoding="utf-8")
    assert "jl-table" in page and "jl-graph" in page        # the widgets' state: the views' own HTML
    assert "jl-dbg-replay" in page                           # and the debugger's replay, drawn until a kernel answers
    # export compiles each cell from a file of its own (as `marimo edit` does): the notes still name the cell
    assert "cell 1 line 6" in page and "cell 1 line 7" in page and "__marimo__cell" not in page
