"""How the graph looks (colour kinds, node styles, the HTML hover hook) and how it is rendered.

Find a Graphviz renderer and turn DOT into SVG/PNG/PDF.

By default a system ``dot`` on PATH renders (it also writes PDF); without one, the ``graphviz-pure``
binary that pip installs with jaxprlens does (a static port of Graphviz: same output everywhere; it
is not named ``dot``, so we run it by path and never touch the user's PATH).
``JAXPRLENS_RENDERER`` chooses explicitly: ``dot``, ``graphviz-pure``, or a path to an executable
with ``dot``'s command line.  Stored notebook outputs come from one pinned renderer: ``make test``
and ``scripts/build_notebooks.py`` set ``JAXPRLENS_RENDERER=graphviz-pure``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jaxprlens.model.errors import Keyed
from jaxprlens.model.taxonomy import graph_kind
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import t

ENV = "JAXPRLENS_RENDERER"
PURE = "graphviz-pure"
TIMEOUT = 60.0          # seconds of the renderer's own CPU time; a layout that takes longer is reported, not waited for
STUCK = 10              # x TIMEOUT of the clock: a renderer that spends it without the CPU time is stopped too
HOW = {"pip": "pip install graphviz-pure", "env": f"{ENV}=dot"}     # what a reader runs (the same in every language)

# graphviz-pure writes these (``graphviz-pure -T?``); no pdf/ps yet.
PURE_FORMATS = ("svg", "png", "jpeg", "jpg", "dot", "xdot", "json", "plain", "canon")


class RenderError(Keyed, RuntimeError):
    """No renderer, or the renderer failed; the message says what to do (``model.errors.Keyed``: ``str(e)`` in
    the kernel's language, ``e.text(lang)`` in any; catalogue ``key``, filled with ``fields`` and ``HOW``)."""

    def __init__(self, key: str, **fields):
        super().__init__(key, **dict(HOW, **fields))


def _runnable(path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _installed_binaries(exe: str):
    """Where the ``graphviz-pure`` distribution on ``sys.path`` put its binary: as its RECORD says (a venv,
    ``pip install --user``), or in ``bin/`` beside the dist-info, where ``pip install --target DIR`` moves it
    (its RECORD then points outside ``DIR``)."""
    from importlib import metadata
    for dist in metadata.distributions(name=PURE, path=sys.path):
        for f in dist.files or ():
            if f.name == exe:
                yield Path(os.path.normpath(dist.locate_file(f)))
        home = Path(dist.locate_file(""))
        yield from (home / d / exe for d in ("bin", "Scripts"))


def _pure_binary() -> str | None:
    """graphviz-pure's binary: beside this Python, where its Python package installed it, or on PATH."""
    exe = "graphviz-pure.exe" if os.name == "nt" else "graphviz-pure"
    beside = Path(sys.executable).parent / exe
    if _runnable(beside):
        return str(beside)
    found = next((p for p in _installed_binaries(exe) if _runnable(p)), None)
    return str(found) if found is not None else shutil.which(PURE)


def find_renderer() -> tuple[str, str]:
    """``(name, executable)`` of the renderer to use; raises ``RenderError`` when there is none."""
    choice = os.environ.get(ENV, "").strip()
    if choice == "dot":
        exe = shutil.which("dot")
        if exe is None:
            raise RenderError("render_no_dot", var=ENV)
        return "dot", exe
    if choice == "" and shutil.which("dot"):
        return "dot", shutil.which("dot")
    if choice in ("", PURE):
        exe = _pure_binary()
        if exe is not None:
            return PURE, exe
        raise RenderError("render_no_pure")
    path = Path(choice).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise RenderError("render_bad_choice", var=ENV, choice=repr(choice))
    return path.name, str(path)


def render(source: str, fmt: str = "svg", timeout: float = TIMEOUT, dpi: int | None = None) -> bytes:
    """Lay out DOT ``source`` and return the ``fmt`` output bytes (``svg``, ``png``, ...); ``dpi``: a picture's
    resolution (``-Gdpi``), the renderer's own when None."""
    name, exe = find_renderer()
    if name.startswith(PURE) and fmt not in PURE_FORMATS:
        raise RenderError("render_format", fmt=repr(fmt), formats=", ".join(PURE_FORMATS))
    try:
        code, out, err = _run([exe, f"-T{fmt}", *([f"-Gdpi={dpi}"] if dpi else [])], source.encode("utf-8"), timeout)
    except subprocess.TimeoutExpired:
        raise RenderError("render_timeout", name=name, s=f"{timeout:.0f}") from None
    except OSError as e:
        raise RenderError("render_oserror", name=name, why=str(e.strerror or e)) from None
    if code != 0 or not out:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        raise RenderError("render_failed", name=name, code=code, err=" ".join(lines[-3:]) or "-")
    return out


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time process ``pid`` has used (Linux's ``/proc``), or None where it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")     # utime + stime
    except (OSError, IndexError, ValueError):
        return None


def _run(command: list, data: bytes, timeout: float) -> tuple:
    """``(returncode, stdout, stderr)`` of ``command`` given a file holding ``data`` (its last argument);
    ``TimeoutExpired`` once it has used ``timeout`` seconds of CPU (a busy machine, a shared hub, slows a layout down
    without making it any bigger), or of the clock where the CPU time cannot be read, or ``STUCK`` times that of the
    clock in any case."""
    with tempfile.TemporaryDirectory(prefix="jaxprlens-") as folder:
        source = Path(folder) / "graph.gv"
        source.write_bytes(data)
        proc = subprocess.Popen([*command, str(source)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        waited, step = 0.0, min(1.0, timeout)
        while True:
            try:
                out, err = proc.communicate(timeout=step)      # waiting again loses none of the output
                return proc.returncode, out, err
            except subprocess.TimeoutExpired:
                waited += step
                used = _cpu_seconds(proc.pid)
                if (used if used is not None else waited) >= timeout or waited >= STUCK * timeout:
                    proc.kill()
                    proc.communicate()
                    raise


def svg_many(sources: list) -> list:
    """Lay out several DOT graphs in one run of the renderer (a page draws a dozen views ahead of time):
    the SVG text of each, in order."""
    out = svg_text(render("\n".join(sources), "svg"))
    docs = [d for d in re.split(r"(?=<\?xml )", out) if d.strip()]
    if len(docs) != len(sources):
        raise RenderError("render_count", n=len(docs), k=len(sources))
    return docs


_PROLOG = re.compile(r"\A(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", re.S)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)


def svg_text(data: bytes) -> str:
    """The SVG as text with line endings normalised (graphviz-pure's output is otherwise stable)."""
    return data.decode("utf-8").replace("\r\n", "\n")


def inline_svg(svg: str) -> str:
    """The SVG without XML prolog, DOCTYPE and comments, for embedding in HTML."""
    return _COMMENT.sub("", _PROLOG.sub("", svg)).strip()


# ---------------------------------------------------------------- appearance

MID = "#888888"       # strokes and edge text: readable on light and dark backgrounds
INK = "#1a1a1a"       # text on the light fills

# Colour kinds of primitives come from the one taxonomy (taxonomy.graph_kind).
KIND_COLORS = {   # kind: (fill, stroke); light fills with dark text, mid-tone strokes
    "elementwise": ("#cfe3fa", "#4a7fc1"),
    "reduction": ("#fde2b8", "#c98a2b"),
    "contraction": ("#f7c9c9", "#c25050"),
    "control flow": ("#e0d4f7", "#8062c4"),
    "data movement": ("#cdeed6", "#4b9a62"),
    "other": ("#e4e4e4", "#8a8a8a"),
}
STYLES = {        # the non-equation nodes
    "input": dict(shape="box", style="rounded,filled,bold", fillcolor="#d6f0f5", color="#3b8ea5"),
    "constant": dict(shape="note", style="filled,dashed", fillcolor="#f3ecc2", color="#a8962e"),
    "output": dict(shape="box", style="rounded,filled,bold", fillcolor="#d9f2cf", color="#56a03c"),
    "binder": dict(shape="ellipse", style="filled", fillcolor="#eef6f8", color="#3b8ea5", fontsize="10",
                   height="0.25", margin="0.03,0.02"),
    "literal": dict(shape="plaintext", style="", fontsize="9", fontcolor=MID, height="0.2", margin="0"),
    "unused": dict(shape="plaintext", style="", fontsize="9", fontcolor=MID, height="0.2", margin="0"),
    "ref": dict(shape="plaintext", style="", fontsize="9", fontcolor="#3b8ea5", height="0.2", margin="0"),
    "folded": dict(shape="folder", style="filled,dashed", fillcolor="#eeeeee", color="#8062c4"),
    "run": dict(shape="box3d", style="filled", fillcolor="#e4e4e4", color="#8a8a8a"),
    "group": dict(shape="box", style="rounded,filled,bold", fillcolor="#efe8fb", color="#8062c4"),
}


def kind_of(primitive: str, has_subs: bool = False) -> str:
    return graph_kind(primitive, has_subs)


def missing_text(error: RenderError, source: str, lang: str = "en") -> str:
    """What a graph says in text when nothing can draw it: why, what to install, then its DOT source."""
    how = t("get_svg", lang, **HOW)
    return f"{t('no_svg', lang, error=error.text(lang))}\n{how}\n\n{source}"


def missing_html(error: RenderError, source: str, lang: str = "en") -> str:
    # Catalogue texts are ours (no markup characters); only the error and the DOT source are escaped.
    how = t("get_svg", lang, pip=f"<code>{HOW['pip']}</code>", env=f"<code>{HOW['env']}</code>")
    return (f'<div class="jaxprlens jl-graph-missing"><p>{t("no_svg", lang, error=html(error.text(lang)))}</p>'
            f"<p>{how}</p><details><summary>{t('dot_source', lang)}</summary>"
            f"<pre>{html(source)}</pre></details></div>")


# The viewer (pan, zoom, open a call) and the node/row link hook are views/graph/graph.js and views/graph/graph.css.
