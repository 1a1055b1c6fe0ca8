"""Fixtures of the browser suite: a private JupyterLab server, headless Chromium, and a notebook page
that leaves a screenshot (and, on failure, the console log) under ``test-output/browser/``."""
from __future__ import annotations

import os
import re
import shutil
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import browser_harness as harness

# CI sets JAXPRLENS_BROWSER=require so that a missing browser fails the run instead of skipping it.
_skip = harness.skip


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


def pytest_terminal_summary(terminalreporter):
    """Say why browser tests were skipped even without ``-rs``: a skip must never be silent."""
    reasons = sorted(set(harness.SKIPPED))
    if reasons:
        terminalreporter.section("browser tests skipped")
        for r in reasons:
            terminalreporter.line(f"  {r}")


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(harness.CHROMIUM):
        _skip(f"Debian Chromium not found at {harness.CHROMIUM} "
              "(`make browser-deps` installs it as root; or `apt-get install chromium`)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        _skip(f"playwright is not importable ({e}); `pip install playwright`")
    pw = sync_playwright().start()
    try:
        chromium = pw.chromium.launch(executable_path=harness.CHROMIUM, args=harness.CHROMIUM_ARGS)
    except Exception as e:  # noqa: BLE001 - any launch failure means "no browser here"
        pw.stop()
        _skip(f"Playwright could not launch {harness.CHROMIUM}: {str(e).splitlines()[0]}")
    yield chromium
    chromium.close()
    pw.stop()


def _server(tmp_path_factory, app: str):
    base = tmp_path_factory.mktemp(f"jupyter-{app}")
    root, home = base / "notebooks", base / "home"
    root.mkdir()
    home.mkdir()
    harness.write_settings(home)
    return harness.Server(root, home, app=app)


@pytest.fixture(scope="session")
def lab(browser, tmp_path_factory):
    """JupyterLab from this venv on a free port, one for the whole session; stopped (process group) at the end,
    also on failure.  jaxprlens's server extension is enabled as installing the wheel enables it
    (``etc/jupyter/jupyter_server_config.d/jaxprlens.json``): a saved notebook stores the debugger's replay."""
    server = _server(tmp_path_factory, "lab")
    conf = server.home / "config" / "jupyter_server_config.d"
    conf.mkdir(parents=True)
    shutil.copy(harness.REPO / "jupyter-config" / "jaxprlens.json", conf)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lab_saving(lab):
    """The session's JupyterLab, asked for by the tests that save a notebook (its save hook is on)."""
    return lab


@pytest.fixture(scope="session")
def notebook7(browser, tmp_path_factory):
    """The Notebook 7 UI (``jupyter notebook``), when the ``notebook`` package is installed."""
    try:
        import notebook  # noqa: F401 - imported only to learn whether it is installed
    except ImportError:
        _skip("the `notebook` package (Notebook 7 UI) is not installed in this venv; "
              "`pip install notebook` to run this scenario")
    server = _server(tmp_path_factory, "notebook")
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def open_notebook(request, browser):
    """``open_notebook(server, cells)`` writes a notebook with these cells, opens it in a fresh browser
    context, runs all cells and returns the page.  Afterwards it saves a screenshot, and on failure the
    console log and the server log, under ``test-output/browser/<test name>.*``."""
    pages, consoles, servers = [], [], []
    out = harness.OUTPUT
    out.mkdir(parents=True, exist_ok=True)
    name = request.node.name.replace("[", "-").replace("]", "")

    def _open(server, cells: list[str], width: int = 1400):
        nb = f"{name}.ipynb"
        harness.write_notebook(server.root / nb, cells)
        context = browser.new_context(viewport={"width": width, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(harness.WAIT_MS)      # a safety net for a busy machine's JupyterLab, not a pace
        log: list[str] = []
        page.on("console", lambda m: log.append(f"[{m.type}] {m.text}"))
        page.on("pageerror", lambda e: log.append(f"[pageerror] {e}"))
        page.commands = harness.record_commands(page)      # the anywidget commands it sends (views' asks)
        pages.append(page)
        consoles.append(log)
        servers.append(server)
        page.goto(server.page_url(nb, workspace=re.sub(r"\W", "-", nb[:-6])))
        page.wait_for_selector(".jp-Notebook .jp-CodeCell")
        harness.run_all(page)
        errors = harness.cell_errors(page)
        assert not errors, "a cell failed:\n" + "\n".join(errors)
        return page

    _open.browser = browser
    yield _open
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for i, page in enumerate(pages):
        suffix = f"-{i}" if i else ""
        try:
            page.screenshot(path=str(out / f"{name}{suffix}.png"), full_page=True)
        except Exception:  # noqa: BLE001 - a screenshot must not hide the real failure
            pass
        if failed:
            (out / f"{name}{suffix}.console.log").write_text("\n".join(consoles[i]) + "\n")
            (out / f"{name}{suffix}.server.log").write_text(servers[i].log_text())
        page.context.close()
    for server in set(servers):        # the kernels of this test's notebooks go: the next test starts its own
        _shut_down(server, f"{name}.ipynb")


def _shut_down(server, notebook: str) -> None:
    try:
        for session in server.api("/api/sessions"):
            if session.get("path", "").endswith(notebook):
                server.api(f"/api/sessions/{session['id']}", method="DELETE")
    except OSError:                   # the server has gone (a test stopped it): nothing to shut down
        pass


@pytest.fixture(scope="session", autouse=True)
def _fresh_output():
    """Screenshots of this run only."""
    shutil.rmtree(harness.OUTPUT, ignore_errors=True)
    harness.OUTPUT.mkdir(parents=True, exist_ok=True)
    yield

