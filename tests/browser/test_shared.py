"""A shared notebook (JupyterLab with jupyter-collaboration): two collaborators, each in a browser context of their
own, on one notebook with a ``%%jaxpr --debug`` cell.  Each sees exactly one debugger, before and after the other
trusts the notebook and after a Run, and the one debugger is shared: a Step by one moves the other's.

JupyterLab 4.6 with jupyter-collaboration 5 swaps outputs on the other collaborators' pages when one trusts a
notebook: a cell's earlier output is drawn as a second view of its widget (the same happens to a plain
``IntSlider`` after an HTML output; reloading the page shows the cell as it is).  jaxprlens's live debugger shows
one of its views on a page (``views/debugger/dbglive.js``), so the reader still sees one debugger."""
from __future__ import annotations

import importlib.util
import re

import pytest

import browser_harness as harness

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = ["%load_ext jaxprlens",
         "import jax.numpy as jnp\n\ndef f(x):\n    y = jnp.sin(x)\n    return y * 2 + x",
         "%%jaxpr --debug\nf(jnp.ones(3))"]
DEBUGGER = 2          # the debugger's cell
NAME = "shared.ipynb"
# What a reader sees in a cell: each debugger drawn and not hidden ("live", "replay"), or the replay's snapshot where
# scripts do not run ("static": an untrusted output)
SHOWN_JS = ("els => els.filter(e => e.offsetParent !== null)"
            ".map(e => e.classList.contains('jl-dbg-static') ? 'static' : e.getAttribute('data-mode'))")
# Every output of the cell drawn: the replay, or a live view its kernel answered (the views a swap adds included)
SETTLED_JS = """(cell) => { const kids = [...cell.querySelectorAll('.jp-OutputArea-child')];
  return kids.length > 0 && kids.every(k => k.querySelector('.jl-dbg-replay, .jl-dbg.jl-dbg-live')); }"""


@pytest.fixture(scope="module")
def lab_shared(browser, tmp_path_factory):
    """JupyterLab with real-time collaboration on (jupyter-collaboration, installed by the dev extras)."""
    missing = [m for m in ("jupyter_collaboration", "jupyter_server_ydoc") if importlib.util.find_spec(m) is None]
    if missing:
        harness.skip(f"jupyter-collaboration is not installed in this venv ({', '.join(missing)} missing); "
                     "`pip install jupyter-collaboration` (the dev extras pin it) to test shared notebooks")
    base = tmp_path_factory.mktemp("jupyter-shared")
    root, home = base / "notebooks", base / "home"
    root.mkdir()
    home.mkdir()
    harness.write_settings(home)
    server = harness.Server(root, home, app="lab", collaborative=True)
    try:
        yield server.start()
    finally:
        server.stop()


def shown(page) -> list[str]:
    return harness.output(page, DEBUGGER).locator(".jl-dbg, .jl-dbg-static").evaluate_all(SHOWN_JS)


def live_views(page) -> int:
    """The live debugger's views drawn in the cell, shown or not."""
    return harness.output(page, DEBUGGER).locator(".jl-dbg[data-mode='live']").count()


def settled(page) -> None:
    cell = page.locator(".jp-Notebook .jp-CodeCell").nth(DEBUGGER)
    page.wait_for_function(SETTLED_JS, arg=cell.element_handle(), timeout=60_000)


def hl(page, eqn: str) -> None:
    harness.output(page, DEBUGGER).locator(
        f".jl-dbg-live tr.jl-hl[data-eqn='{eqn}'] >> visible=true").wait_for(timeout=60_000)


def trust(page) -> None:
    """Command palette › Trust Notebook, and its dialog's Trust."""
    page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").first.click()
    page.keyboard.press("Control+Shift+C")
    page.locator(".lm-CommandPalette-input").fill("Trust Notebook")
    page.locator(".lm-CommandPalette-item", has_text=re.compile(r"^Trust Notebook")).first.click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.locator(".jp-Dialog").wait_for(state="detached")


def mark(page, text: str) -> None:
    """Type ``text`` at the end of the function's cell: what the other page sees of it arrives after every
    change this page made before (one shared document, its changes in order)."""
    editor = page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(text)
    page.keyboard.press("Escape")


def seen(page, text: str) -> None:
    page.locator(".jp-Notebook .jp-CodeCell").nth(1).locator(".cm-content", has_text=text).wait_for(timeout=60_000)


def test_one_debugger_per_collaborator_after_a_trust_and_a_run(lab_shared, browser):
    harness.write_notebook(lab_shared.root / NAME, CELLS)
    pages, logs = {}, {}
    try:
        for who in ("alice", "bob"):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            page = context.new_page()
            page.set_default_timeout(60_000)
            logs[who] = []
            page.on("pageerror", lambda e, log=logs[who]: log.append(str(e)))
            page.goto(lab_shared.page_url(NAME, workspace=who))
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=60_000)
            pages[who] = page
        alice, bob = pages["alice"], pages["bob"]

        harness.run_all(alice)                    # Alice runs the notebook: hers is the live debugger
        assert not harness.cell_errors(alice)
        hl(alice, "0")
        harness.output(bob, DEBUGGER).locator(".jl-dbg-static").wait_for(timeout=60_000)
        assert shown(alice) == ["live"]
        assert shown(bob) == ["static"]           # outputs that came from another page are untrusted: the snapshot

        trust(bob)                                # Bob trusts it: his page draws the live debugger too
        hl(bob, "0")
        mark(bob, "  # bob trusted")
        seen(alice, "# bob trusted")              # Alice's page has every change Bob's trust made
        settled(alice)
        settled(bob)
        swapped = live_views(alice)               # 2: the upstream swap drew the widget over the replay's output
        for who, page in pages.items():
            page.screenshot(path=str(harness.OUTPUT / f"shared-trusted-{who}.png"), full_page=True)
        assert shown(alice) == ["live"], (swapped, shown(alice))
        assert shown(bob) == ["live"]

        harness.output(alice, DEBUGGER).locator(
            ".jl-dbg-live button[data-do=step] >> visible=true").click()
        hl(alice, "1")                            # one debugger, shared: Alice's Step moves Bob's
        hl(bob, "1")
        assert shown(alice) == ["live"] and shown(bob) == ["live"]

        harness.run_all(bob)                      # Bob runs the notebook again: a new debugger for both
        assert not harness.cell_errors(bob)
        hl(bob, "0")
        mark(bob, "  # bob ran")
        seen(alice, "# bob ran")
        settled(alice)
        hl(alice, "0")
        for who, page in pages.items():
            page.screenshot(path=str(harness.OUTPUT / f"shared-run-{who}.png"), full_page=True)
        assert shown(alice) == ["live"]
        assert shown(bob) == ["live"]
        assert logs == {"alice": [], "bob": []}
    finally:
        for page in pages.values():
            page.context.close()
