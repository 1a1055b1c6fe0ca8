"""The debugger through each route a teacher publishes with, run with the real tools: ``jupyter nbconvert``
(``--execute`` to HTML, to a notebook then HTML, to slides), Sphinx + myst-nb with a two-line ``conf.py``, and a
notebook as a live front end saves it without the server's hook.  Each page must hold the recorded replay (its
snapshot and its data) and never the widget's view.  The kernels import this checkout's jaxprlens."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbconvert")
from bs4 import BeautifulSoup  # noqa: E402 - only when nbformat and nbconvert are installed
from jaxprlens.views.debugger.replay import unstored  # noqa: E402 - only when nbformat and nbconvert are installed

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CELLS = ["%load_ext jaxprlens\nimport jaxprlens\nprint(jaxprlens.__file__)",
         "%%jaxpr --debug\nimport jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x) * 2.\n\nf(jnp.ones(3))"]


def env() -> dict:
    e = dict(os.environ, JAX_PLATFORMS="cpu", JAXPRLENS_RENDERER="graphviz-pure", JAXPRLENS_LANG="en")
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src")] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return e


def run(*args, cwd: Path) -> None:
    r = subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env(), capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]


def nbconvert(*args, cwd: Path) -> None:
    run("nbconvert", *args, cwd=cwd)


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A folder with the lecture as a teacher writes it (``t.ipynb``, never run) and as ``nbconvert --execute
    --to notebook`` stores it with default options (``ex.ipynb``: widget state stored)."""
    d = tmp_path_factory.mktemp("publish")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    nbformat.write(nb, d / "t.ipynb")
    nbconvert("--execute", "--to", "notebook", "t.ipynb", "--output", "ex.ipynb", cwd=d)
    return d


def replays(page: str) -> list:
    """The recorded replays on a page: ``(snapshot's current row, number of recorded steps)`` each."""
    soup = BeautifulSoup(page, "html.parser")
    found = []
    for root in soup.select('div.jaxprlens.jl-dbg-replay[data-jl-view="replay"]'):
        snapshot = root.select_one("div.jl-dbg-static tr.jl-row.jl-hl")
        data = unstored(root.select_one("script.jl-dbg-data").string)
        found.append((snapshot.get("data-eqn") if snapshot else None, len(data["steps"])))
    return found


def widget_views(page: str) -> int:
    return len(BeautifulSoup(page, "html.parser").select(f'script[type="{WIDGET_VIEW}"]'))


def debugger_outputs(path: Path) -> list:
    return nbformat.read(path, as_version=4).cells[1].outputs


def test_the_kernel_runs_this_checkout(work):
    printed = nbformat.read(work / "ex.ipynb", as_version=4).cells[0].outputs[0]["text"].strip()
    assert Path(printed) == ROOT / "src" / "jaxprlens" / "__init__.py"


def test_executed_notebook_stores_the_replay_and_no_widget(work):
    """``nbconvert --execute --to notebook`` (store_widget_state on): one output, the replay, and no widget
    state in the notebook's metadata (no widget was opened: nbclient draws none)."""
    nb = nbformat.read(work / "ex.ipynb", as_version=4)
    assert "widgets" not in nb.metadata
    (out,) = nb.cells[1].outputs
    assert out.output_type == "display_data" and sorted(out.data) == ["text/html", "text/plain"]
    assert out.metadata == {"jaxprlens": {"replay": True}}
    assert out.data["text/plain"].startswith("jaxprlens debugger at eqn 0")
    assert replays(out.data["text/html"]) == [("0", 3)]        # the start, after sin, after mul (the end)


def test_nbconvert_execute_to_html_with_default_options(work):
    nbconvert("--execute", "--to", "html", "t.ipynb", "--output", "direct", cwd=work)
    page = (work / "direct.html").read_text(encoding="utf-8")
    assert replays(page) == [("0", 3)] and widget_views(page) == 0
    assert "html-manager" not in page                           # no widget renderer fetched from a CDN


BIG = ("%%jaxpr\nimport jax.numpy as jnp\n\ndef long(x):\n    for _ in range(5_300):\n        x = jnp.sin(x) * 2.\n"
       "    return x\n\nlong(jnp.ones(3))")


def test_big_table_through_nbconvert_execute_is_its_stored_form(tmp_path):
    """A table with more rows than its output stores opens a live row server only where a front end draws
    widgets: under ``nbconvert --execute`` (default options) the notebook and the page hold the stored table
    (head rows as HTML, the rest as data, the note to open it in a kernel), never a widget view."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in (CELLS[0], BIG)]
    nbformat.write(nb, tmp_path / "big.ipynb")
    nbconvert("--execute", "--to", "notebook", "big.ipynb", "--output", "big_ex.ipynb", cwd=tmp_path)
    done = nbformat.read(tmp_path / "big_ex.ipynb", as_version=4)
    assert "widgets" not in done.metadata
    (out,) = done.cells[1].outputs
    assert sorted(out.data) == ["text/html", "text/plain"] and "jaxprlens" not in out.metadata
    nbconvert("--to", "html", "big_ex.ipynb", cwd=tmp_path)
    page = BeautifulSoup((tmp_path / "big_ex.html").read_text(encoding="utf-8"), "html.parser")
    assert widget_views(str(page)) == 0
    assert len(page.select("table.jl-eqns tr.jl-row[data-eqn]")) == 400      # the head, drawn as HTML
    assert "10600 equations" in page.get_text()


def test_executed_notebook_then_html_and_slides(work):
    nbconvert("--to", "html", "ex.ipynb", cwd=work)
    nbconvert("--to", "slides", "ex.ipynb", cwd=work)
    for name in ("ex.html", "ex.slides.html"):
        page = (work / name).read_text(encoding="utf-8")
        assert replays(page) == [("0", 3)] and widget_views(page) == 0, name
    slides = BeautifulSoup((work / "ex.slides.html").read_text(encoding="utf-8"), "html.parser")
    assert slides.select_one("div.reveal section div.jl-dbg-replay") is not None


@pytest.mark.parametrize("mode", ["off", "force"])
def test_sphinx_myst_nb_with_a_two_line_conf(work, tmp_path, mode):
    """``extensions = ["myst_nb"]`` and nothing about mimetypes: the stored notebook ("off") and one myst-nb
    executes itself ("force", through nbclient as jupyter-cache runs it)."""
    pytest.importorskip("myst_nb")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(f'extensions = ["myst_nb"]\nnb_execution_mode = "{mode}"\n')
    (src / "index.md").write_text("# Lecture\n\n```{toctree}\nlecture\n```\n")
    nb = nbformat.read(work / ("ex.ipynb" if mode == "off" else "t.ipynb"), as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell("# The debugger"))
    nbformat.write(nb, src / "lecture.ipynb")
    run("sphinx", "-q", "-b", "html", str(src), str(tmp_path / "out"), cwd=tmp_path)
    page = (tmp_path / "out" / "lecture.html").read_text(encoding="utf-8")
    assert replays(page) == [("0", 3)] and widget_views(page) == 0


def test_sphinx_extension_ships_the_theme_stylesheet(work, tmp_path):
    """``jaxprlens.sphinxext`` (in the wheel) puts ``jaxprlens_docs.css`` on every page and into ``_static``, with
    the book theme JAX's docs use; only that stylesheet is copied from the package."""
    pytest.importorskip("myst_nb")
    pytest.importorskip("sphinx_book_theme")
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text('extensions = ["myst_nb", "jaxprlens.sphinxext"]\nnb_execution_mode = "off"\n'
                                 'html_theme = "sphinx_book_theme"\n')
    (src / "index.md").write_text("# Lecture\n\n```{toctree}\nlecture\n```\n")
    shutil.copy(work / "ex.ipynb", src / "lecture.ipynb")
    run("sphinx", "-q", "-b", "html", str(src), str(tmp_path / "out"), cwd=tmp_path)
    page = BeautifulSoup((tmp_path / "out" / "lecture.html").read_text(encoding="utf-8"), "html.parser")
    assert "_static/jaxprlens_docs.css" in [link.get("href").split("?")[0] for link in page.select("link")]
    static = tmp_path / "out" / "_static"
    assert (static / "jaxprlens_docs.css").read_text() == (ROOT / "src/jaxprlens/docs_static/jaxprlens_docs.css"
                                                           ).read_text()
    assert not list(static.glob("*.py")) and replays(str(page)) == [("0", 3)]


def test_saved_by_a_live_front_end_without_the_save_hook(work, tmp_path):
    """VS Code, Colab or JupyterLab with the server extension off save what they hold: the replay, then the live
    widget's view (its model gone with the kernel, no widget state saved).  nbconvert shows the replay, and the
    widget's output is empty text; the save hook, run later, drops that output."""
    from jaxprlens.serverext import strip_live_widgets
    nb = nbformat.read(work / "ex.ipynb", as_version=4)
    live = nbformat.v4.new_output("display_data", data={
        WIDGET_VIEW: {"version_major": 2, "version_minor": 1, "model_id": "5f0c2a"}, "text/plain": ""},
        metadata={"jaxprlens": {"live": True, "debugger": True}})
    nb.cells[1].outputs.append(live)
    nbformat.write(nb, tmp_path / "saved.ipynb")
    nbconvert("--to", "html", "saved.ipynb", cwd=tmp_path)
    page = (tmp_path / "saved.html").read_text(encoding="utf-8")
    assert replays(page) == [("0", 3)] and widget_views(page) == 0
    assert "Error displaying widget" not in page
    assert strip_live_widgets(nb) == 1 and len(nb.cells[1].outputs) == 1


def jupyter_book() -> str:
    """Jupyter Book 2's command (mystmd; it needs Node.js): ``$JAXPRLENS_JUPYTER_BOOK`` or on the PATH."""
    found = os.environ.get("JAXPRLENS_JUPYTER_BOOK") or shutil.which("jupyter-book")
    if not found or not shutil.which("node"):
        pytest.skip("Jupyter Book 2 is not installed (pip install jupyter-book, in any environment; it needs "
                    "Node.js); set JAXPRLENS_JUPYTER_BOOK to its jupyter-book command")
    return found


@pytest.mark.parametrize("execute", [False, True])
def test_jupyter_book_2_page_data(work, tmp_path, execute):
    """``jupyter book build --site`` (mystmd) on the stored notebook, and ``--execute`` on the lecture through a
    Jupyter server of this environment: the page data holds the replay's HTML, no widget view.  (The site's
    theme is fetched from the internet; offline only the page data is built, which is what is checked.)"""
    book = jupyter_book()
    nb = nbformat.read(work / ("t.ipynb" if execute else "ex.ipynb"), as_version=4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "lecture.ipynb")
    (tmp_path / "myst.yml").write_text("version: 1\nproject:\n  title: Lecture\n  toc:\n    - file: lecture.ipynb\n"
                                       "site:\n  template: book-theme\n")
    e, server = env(), None
    if execute:                       # mystmd's own server start fails as root: it is given one to use
        port, token = _free_port(), "jaxprlens-test"
        server = subprocess.Popen([sys.executable, "-m", "jupyter", "server", "--no-browser", "--allow-root",
                                   f"--port={port}", "--port-retries=0", f"--IdentityProvider.token={token}",
                                   f"--ServerApp.root_dir={tmp_path}"], cwd=tmp_path, env=e,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        e.update(JUPYTER_BASE_URL=f"http://127.0.0.1:{port}", JUPYTER_TOKEN=token)
        _wait_for(f"http://127.0.0.1:{port}/api/status?token={token}")
    try:
        subprocess.run([book, "build", "--site"] + (["--execute"] if execute else []), cwd=tmp_path, env=e,
                       capture_output=True, text=True, timeout=600)     # fails offline after the page data
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=30)
    (page,) = (tmp_path / "_build" / "site" / "content").glob("*.json")     # the one page (index.json)
    data = json.loads(page.read_text())
    outputs = [o for o in _nodes(data["mdast"]) if isinstance(o.get("jupyter_data"), dict)
               and o["jupyter_data"].get("output_type") in ("display_data", "execute_result")]
    assert [sorted(o["jupyter_data"]["data"]) for o in outputs] == [["text/html", "text/plain"]]
    html = outputs[0]["jupyter_data"]["data"]["text/html"]
    assert replays(html["content"] if isinstance(html, dict) else html) == [("0", 3)]


def _nodes(tree):
    if isinstance(tree, dict):
        yield tree
        for v in tree.values():
            yield from _nodes(v)
    elif isinstance(tree, list):
        for v in tree:
            yield from _nodes(v)


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, timeout: float = 60.0) -> None:
    import time
    import urllib.request
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)
