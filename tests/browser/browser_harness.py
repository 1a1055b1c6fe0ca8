"""Start a private Jupyter server and drive its pages in headless Chromium (the browser suite's plumbing)."""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

CHROMIUM = os.environ.get("JAXPRLENS_CHROMIUM", "/usr/bin/chromium")   # Debian's; override for other distros
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
REPO = Path(__file__).resolve().parents[2]
OUTPUT = Path(os.environ.get("JAXPRLENS_BROWSER_OUTPUT", REPO / "test-output" / "browser"))   # one per concurrent run
# How long a wait on an event (a selector, a page state, a server answering) may last before the test fails: a
# safety net for a loaded machine, never a pace; what a page must do quickly is timed by benchmarks/bench_lab.py.
WAIT_MS = int(os.environ.get("JAXPRLENS_BROWSER_WAIT_MS", "300000"))
SKIPPED: list[str] = []   # reasons, repeated in the terminal summary: a skip must never be silent


def skip(reason: str):
    """``pytest.skip`` that is also listed at the end of the run (``JAXPRLENS_BROWSER=require``: fail)."""
    import pytest
    SKIPPED.append(reason)
    if os.environ.get("JAXPRLENS_BROWSER") == "require":
        pytest.fail(f"{reason} (JAXPRLENS_BROWSER=require)")
    pytest.skip(reason)


def until(check, what: str, timeout_ms: int | None = None, every: float = 0.2):
    """Ask ``check()`` again and again until it gives a true value, and return that value: a wait on a condition
    (a file saved, a server answering) that ends as soon as it holds; ``timeout_ms`` (``WAIT_MS``) is only the
    safety net after which it fails, saying ``what`` it waited for."""
    limit = WAIT_MS if timeout_ms is None else timeout_ms
    deadline = time.monotonic() + limit / 1000
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {limit / 1000:.0f} s")
        time.sleep(every)


def saved_cells(path: Path) -> list:
    """The cells of the notebook file at ``path`` as saved; none while the server is writing it."""
    try:
        return json.loads(path.read_text())["cells"]
    except (OSError, ValueError, KeyError):        # not there yet, or written at this moment: read it again later
        return []


def new_context(browser, width: int = 1400, height: int = 1000):
    """A fresh browser context whose waits have ``WAIT_MS`` as their safety net."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(WAIT_MS)
    return context


def painted(page) -> None:
    """Until the browser has painted two frames after now: what the page just changed is on screen."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


def kernel_idle(page) -> None:
    """Until the notebook's kernel is up and idle (JupyterLab's execution indicator)."""
    page.wait_for_function(
        "() => { const s = document.querySelector('.jp-Notebook-ExecutionIndicator');"
        " return s && s.dataset.status === 'idle'; }", timeout=WAIT_MS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_notebook(path: Path, cells: list[str]) -> Path:
    """An .ipynb with these code cells (no outputs) and the venv's ``python3`` kernel."""
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"c{i}", "metadata": {},
                   "outputs": [], "source": src} for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))
    return path


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the test process dies, even by a signal that skips our
    finalizers (``timeout``, a killed CI job), so no server or kernel outlives the run (Linux only)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


MODULES = {"lab": "jupyterlab", "notebook": "notebook", "nbclassic": "nbclassic"}   # Server's app -> its module


class Server:
    """``jupyter lab`` (or ``jupyter notebook``, ``jupyter nbclassic``) on 127.0.0.1:<free port> with a token and
    private dirs.

    Config, runtime and data dirs live under ``home`` so the user's own settings and workspaces
    cannot leak in; ``JUPYTER_PATH`` keeps ``sys.prefix/share/jupyter``, where JupyterLab's assets,
    the kernel spec and the ipywidgets labextension live.
    """

    def __init__(self, root: Path, home: Path, app: str = "lab", collaborative: bool = False):
        self.root, self.home, self.app = root, home, app
        self.collaborative = collaborative      # real-time collaboration (jupyter-collaboration), where installed
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log = home / f"{app}-server.log"

    def env(self) -> dict:
        env = dict(os.environ)
        for name in ("config", "runtime", "data"):
            (self.home / name).mkdir(parents=True, exist_ok=True)
        # the tools the test venv holds for other tests (nbgrader's menus and panels) stay out of a student's page
        (self.home / "config" / "labconfig").mkdir(exist_ok=True)
        # and a page that is not shared loads none of jupyter-collaboration's (its plugins stop RISE's slideshow)
        off = {"@jupyter/nbgrader": True}
        if not self.collaborative:
            off.update({f"@jupyter/{name}": True for name in ("collaboration-extension", "docprovider-extension")})
        (self.home / "config" / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": off}))
        config = self.home / "config" / "jupyter_server_config.json"     # a test's own settings there are kept
        settings = json.loads(config.read_text()) if config.exists() else {}
        extensions = settings.setdefault("ServerApp", {}).setdefault("jpserver_extensions", {})
        for name in ("formgrader", "validate_assignment", "assignment_list", "course_list"):
            extensions.setdefault(f"nbgrader.server_extensions.{name}", False)
        # jupyter-collaboration (in the test venv for the shared-notebook tests) turns every JupyterLab into a shared
        # one: the other tests' pages stay single-user, as most learners' are
        settings.setdefault("YDocExtension", {})["disable_rtc"] = not self.collaborative
        config.write_text(json.dumps(settings))
        env.update(
            JUPYTER_CONFIG_DIR=str(self.home / "config"),
            JUPYTER_RUNTIME_DIR=str(self.home / "runtime"),
            JUPYTER_DATA_DIR=str(self.home / "data"),
            JUPYTER_PATH=os.pathsep.join([str(Path(sys.prefix) / "share" / "jupyter")]),
            JUPYTER_PLATFORM_DIRS="1",
            IPYTHONDIR=str(self.home / "ipython"),
            JAX_PLATFORMS="cpu",
            PYTHONUNBUFFERED="1",
        )
        # The kernel spec says "python": make sure that resolves to this venv's interpreter.
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env.pop("JUPYTER_PREFER_ENV_PATH", None)
        return env

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", MODULES[self.app], "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
               "--port-retries=0", f"--ServerApp.root_dir={self.root}",
               f"--IdentityProvider.token={self.token}", "--ServerApp.open_browser=False"]
        if self.app == "lab":
            cmd += ["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url="]
        if os.geteuid() == 0:      # CI containers run as root
            cmd.append("--allow-root")
        return cmd

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def start(self) -> Server:
        cmd = self.command()
        self.proc = subprocess.Popen(cmd, env=self.env(), cwd=self.root, stdout=self.log.open("wb"),
                                     stderr=subprocess.STDOUT, start_new_session=True,
                                     preexec_fn=_die_with_parent)

        def answered() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter {self.app} exited with {self.proc.returncode}:\n{self.log_text()}")
            return self.ready()
        try:
            until(answered, f"jupyter {self.app} answering", every=0.3)
        except AssertionError as e:
            self.stop()
            raise RuntimeError(f"{e}:\n{self.log_text()}") from None
        return self

    def stop(self) -> None:
        """Terminate the whole process group (server and kernels); kill it if it lingers."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""

    def api(self, path: str, method: str = "GET", body=None):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {self.token}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            data = r.read()
        return json.loads(data) if data else None

    def page_url(self, notebook: str, workspace: str = "default") -> str:
        """The notebook's page; in JupyterLab in its own, reset workspace, so that no tab of an
        earlier test is restored beside it."""
        if self.app == "lab":
            return f"{self.url}/lab/workspaces/{workspace}/tree/{notebook}?reset&token={self.token}"
        if self.app == "nbclassic":
            return f"{self.url}/nbclassic/notebooks/{notebook}?token={self.token}"
        return f"{self.url}/notebooks/{notebook}?token={self.token}"


class Voila(Server):
    """``voila NOTEBOOK`` (one notebook, as a teacher shares a dashboard) with a token and private dirs: every
    visit of its page starts a kernel, runs the notebook and streams the outputs, widgets drawn live."""

    def __init__(self, notebook: Path, home: Path):
        super().__init__(notebook.parent, home, app="voila")
        self.notebook = notebook

    def command(self) -> list[str]:
        return [sys.executable, "-m", "voila", str(self.notebook), "--no-browser", "--Voila.ip=127.0.0.1",
                f"--port={self.port}", "--Voila.port_retries=0", f"--token={self.token}"]

    def ready(self) -> bool:
        """Listening (its own page would run the notebook: the socket is asked, not the page)."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=2):
                return True
        except OSError:
            return False

    def page_url(self, notebook: str = "", workspace: str = "") -> str:
        return f"{self.url}/?token={self.token}"


# ---------------------------------------------------------------- the page, as a person uses it
# JupyterLab's user settings for the private server: no "official Jupyter news?" toast over the outputs.
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
    # the notebook's own kernel starts without a "Select Kernel" dialog, which a loaded machine can raise late and
    # whose answer starts a second kernel in the middle of Run All
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"autoStartDefaultKernel": True},
}


def write_settings(home: Path) -> None:
    base = home / "config" / "lab" / "user-settings"
    for rel, value in SETTINGS.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


def run_all(page, timeout_ms: int = WAIT_MS) -> None:
    """Run → Run All Cells from the menu bar, then wait until every code cell has run.

    The menu item is inert until the notebook's session is ready, which a cold JupyterLab can report
    late; so the click is repeated until some prompt shows ``[*]`` or a number.
    """
    kernel_idle(page)
    started = ("() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]"
               ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))")
    for _ in range(3):
        for attempt in range(4):
            accept_dialog(page)
            page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").first.click()  # focus the notebook
            page.get_by_role("menuitem", name="Run", exact=True).click()
            page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
            try:
                page.wait_for_function(started, timeout=30_000)
                break
            except Exception:  # playwright's TimeoutError: click again (re-raised at the last try)
                page.keyboard.press("Escape")
                if attempt == 3:
                    raise
        # Done: nothing queued or running, and every cell numbered, or an error stopped the run.  Stalled: nothing
        # queued or running, yet a cell never ran (a kernel choice that came late dropped the rest of the queue):
        # Run All again.
        state = page.wait_for_function(
            "() => { const ps = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];"
            " if (!ps.length || ps.some(p => p.textContent.includes('*'))) return false;"
            " if (ps.every(p => /\\[\\d+\\]/.test(p.textContent)) || document.querySelector("
            "'.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]')) return 'done';"
            " return 'stalled'; }", timeout=timeout_ms).json_value()
        if state == "done":
            return
    raise AssertionError("Run All left cells that never ran, three times over")


def accept_dialog(page) -> None:
    """Accept a dialog JupyterLab opened over the notebook (a loaded machine's late kernel choice: "Select
    Kernel"), which would take every click; the test's own checks then say whether the kernel is fine."""
    dialog = page.locator(".jp-Dialog")
    for attempt in range(3):          # a click the dialog took while it was still drawing itself is lost: again
        if not dialog.count():
            return
        button = dialog.locator(".jp-mod-accept")
        if button.count():
            button.first.click()
        else:
            page.keyboard.press("Escape")
        try:
            dialog.first.wait_for(state="detached", timeout=10_000)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: try once more, then say so
            if attempt == 2:
                raise


def cell_errors(page) -> list[str]:
    """Text of every error output (tracebacks, UsageErrors) in the notebook."""
    return page.eval_on_selector_all(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        "els => els.map(e => e.innerText)")


# an anywidget command a page sends (static/rpc.js): its id, in a websocket frame or an HTTP body, as JSON or in a
# JSON string
COMMAND = re.compile(r'\\?"id\\?":\s*\\?"([^"\\]+)\\?",\s*\\?"kind\\?":\s*\\?"anywidget-command\\?"')
INVOKE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")   # anywidget's invoke's


def record_commands(page) -> list[str]:
    """The ids of the anywidget commands the page sends its kernel from now on (JupyterLab's websocket, marimo's
    requests): anywidget's invoke numbers them with a UUID (``INVOKE_ID``), ``static/rpc.js`` sending them itself
    where a front end's invoke refuses with ``jl-…``."""
    ids: list[str] = []

    def read(payload) -> None:
        text = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload or "")
        ids.extend(COMMAND.findall(text))
    page.on("websocket", lambda ws: ws.on("framesent", read))
    page.on("request", lambda r: read(r.post_data_buffer) if r.method == "POST" else None)
    return ids


def output(page, index: int):
    """The output area of the ``index``-th code cell."""
    return page.locator(".jp-Notebook .jp-CodeCell").nth(index).locator(".jp-OutputArea")


def relative_luminance(rgb) -> float:
    def lin(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg, bg) -> float:
    """WCAG contrast ratio of two opaque colours (1 .. 21)."""
    hi, lo = sorted((relative_luminance(fg), relative_luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


# Effective colours of an element as painted: its text colour blended over the first opaque
# background found walking up the tree (transparent cells show their row, table, output, page).
COLOURS_JS = """
(el) => {
  const parse = s => { const n = (s.match(/[\\d.]+/g) || []).map(Number);   // rgb(0..255) or color(srgb 0..1)
    return s.startsWith('color(') ? n.slice(0, 3).map(x => x * 255).concat(n.slice(3)) : n; };
  const blend = (top, under) => { const a = top.length > 3 ? top[3] : 1;
    return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)); };
  const layers = [];
  for (let n = el; n && n.nodeType === 1; n = n.parentElement) {
    const c = parse(getComputedStyle(n).backgroundColor);
    if (c.length && (c.length < 4 || c[3] > 0)) layers.push(c);
    if (c.length && (c.length < 4 || c[3] >= 1)) break;
  }
  let bg = [255, 255, 255];
  for (const c of layers.reverse()) bg = blend(c, bg);
  const style = getComputedStyle(el);
  const fg = blend(parse(style.color), bg);
  return {fg, bg, opacity: Number(style.opacity)};
}
"""
