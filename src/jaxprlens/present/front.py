"""The front end shipped in the package (``static/``: ES modules and CSS), carried once per output and small.

An output says which views it holds (``needs``: ``table``, ``graph``, ``debugger``); ``assets(needs)`` gives
the CSS of those views and one ES module bundled from ``main.js`` with only the modules they import, compressed
(deflate, base64) behind a small loader that inflates it with the browser's ``DecompressionStream`` (as
treescope does).  Where scripts are stripped (untrusted notebooks, GitHub) the HTML reads on its own: inline
attributes and styles keep its layout, graphs are ``<img>`` pictures.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
import zlib
from importlib import resources

from jaxprlens.present.escape import html

CSS = {"base": "jaxprlens.css", "table": None, "graph": "graph.css", "debugger": "debugger.css",
       "compiled": "compiled.css"}
MODULES = {"table": "table", "graph": "graph", "debugger": "debugger",   # view -> its ES module
           "live": "live"}        # a live table's widget (views/table/live.py): rows asked of the kernel
ENTRY = "main"


@functools.cache
def _places() -> dict:
    """Every stylesheet and ES module in the package by its name: ``static/`` (the loader, the entry, the DOM
    helpers, the base stylesheet) and each view's folder beside its Python (``views/table/table.js``).  A module
    imports another by its name alone (``./dom.js``): names are unique in the package."""
    found: dict = {}

    def walk(folder):
        for entry in folder.iterdir():
            if entry.is_dir():
                walk(entry)
            elif entry.name.endswith((".js", ".css")):
                found[entry.name] = entry
    walk(resources.files("jaxprlens"))
    return found


@functools.cache
def _asset(name: str) -> str:
    return _places()[name].read_text(encoding="utf-8")


# ------------------------------------------------------------------ minifying (comments and spaces only)

_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_CSS_SPACE = re.compile(r"\s*([{};:,>])\s*")
_JS_BLOCK = re.compile(r"^\s*/\*.*?\*/\s*$", re.S | re.M)
_JS_LINE = re.compile(r"^\s*//.*$|\s+//\s.*$", re.M)


def _min_css(text: str) -> str:
    text = _CSS_SPACE.sub(r"\1", " ".join(_CSS_COMMENT.sub("", text).split()))
    return text.replace(";}", "}")


# strings and regular expression literals are kept as they are; between them, spaces beside punctuation go
_JS_KEEP = re.compile(r'''"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`'''
                      r"|(?<=[(,=:\[!&|?{};])[ \t]*/(?![/*])(?:\\.|\[(?:\\.|[^\]\\\n])*\]|[^/\\\n])+/[a-z]*")
_JS_SPACE = re.compile(r"[ \t]*([=,;:{}()\[\]<>?&|!])[ \t]*")


def _min_js(text: str) -> str:
    """Comments, indentation and spaces beside punctuation out; lines kept (ASI sees the same code)."""
    text = _JS_LINE.sub("", _JS_BLOCK.sub("", text))
    text = "\n".join(line.strip() for line in text.splitlines() if line.strip())
    out, at = [], 0
    for m in _JS_KEEP.finditer(text):
        out += [_JS_SPACE.sub(r"\1", text[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out + [_JS_SPACE.sub(r"\1", text[at:])])


# ------------------------------------------------------------------ bundling the ES modules

_IMPORT = re.compile(r'^import\s+(?:\{([^}]*)\}|\*\s+as\s+(\w+))\s+from\s+"\./(\w+)\.js";\s*$', re.M)
_EXPORT_DECL = re.compile(r"^export\s+(?=(?:async\s+)?(?:function|const|let|class)\b)", re.M)
_EXPORT_NAME = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+(\w+)", re.M)
_EXPORT_LIST = re.compile(r"^export\s*\{([^}]*)\};?\s*$", re.M)


def _deps(name: str) -> list:
    return [m.group(3) for m in _IMPORT.finditer(_asset(f"{name}.js"))]


def _wrap(name: str, included: set) -> str:
    """A module as a function scope: its imports read from the modules bundled before it, its exports returned."""
    text = _asset(f"{name}.js")
    exports = _EXPORT_NAME.findall(text)
    for m in _EXPORT_LIST.finditer(text):
        exports += [x.strip() for x in m.group(1).split(",") if x.strip()]

    def imp(m):
        src = f"__{m.group(3)}" if m.group(3) in included else "{}"
        if m.group(2):
            return f"const {m.group(2)} = {src};"
        names = [x.strip().replace(" as ", ": ") for x in m.group(1).split(",") if x.strip()]
        return f"const {{ {', '.join(names)} }} = {src};"

    body = _EXPORT_LIST.sub("", _EXPORT_DECL.sub("", _IMPORT.sub(imp, text)))
    return f"const __{name} = (() => {{\n{body}\nreturn {{ {', '.join(exports)} }};\n}})();"


@functools.cache
def bundle(needs: frozenset) -> str:
    """One ES module: ``main.js`` with the modules of ``needs`` and what they import (in dependency order)."""
    order, seen = [], set()

    def visit(name):      # a module after everything it imports (a view module's imports come with it)
        if name in seen:
            return
        seen.add(name)
        for dep in _deps(name):
            if name != ENTRY or dep in wanted:
                visit(dep)
        order.append(name)

    wanted = {MODULES[n] for n in needs if n in MODULES}
    for dep in _deps(ENTRY):          # keep the entry's order; pull in what the wanted modules import
        if dep in wanted:
            visit(dep)
    for name in sorted(wanted):
        visit(name)
    visit(ENTRY)
    code = "\n".join(_wrap(n, set(order)) for n in order)
    # boot for outputs; anywidget reads render from the default export (a named render is deprecated there)
    return _min_js(f"{code}\nexport const {{ boot }} = __{ENTRY};\nexport default {{ render: __{ENTRY}.render }};\n")


@functools.cache
def css(needs: frozenset) -> str:
    """The stylesheet of ``needs``: the shared base, then each view's own."""
    names = ["base"] + sorted(n for n in needs if CSS.get(n))
    return "".join(_min_css(_asset(CSS[n])) for n in names)


@functools.cache
def assets(needs: frozenset | tuple | set) -> str:
    """The CSS and script of the views in ``needs``, compressed (base64 deflate-raw): what ``output``'s loader
    carries in its text."""
    return deflated(css(frozenset(needs)) + "\0" + bundle(frozenset(needs)))


def output_key(body: str) -> str:
    """The key of the box ``output`` puts ``body`` in: made from the body, so a stored output stays the same."""
    return "jl-" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:16]


def output(body: str, needs) -> str:
    """One output: ``body`` (the views' HTML, complete without scripts) in a box named by a key made from it, and
    the front end of ``needs`` behind a loader that finds that box by its key.  Key and data travel in the
    script's text, which every front end keeps when it runs a script (JupyterLab, nbclassic's jQuery, VS Code's
    renderer, Colab's output frame), so no front end needs ``document.currentScript`` or the script's
    attributes.  A body that needs no front end is returned as it is."""
    if not needs:
        return body
    key = output_key(body)
    return (f'<div class="jl-out" data-jl-out="{key}">{body}'
            f'<script>{_loader()}("{key}","{assets(frozenset(needs))}");</script></div>')


@functools.cache
def _loader() -> str:
    """The loader's script, minified once (every output carries it)."""
    return _min_js(_asset("loader.js"))


# ------------------------------------------------------------------ deflate-raw in base64, as the browser reads it

def deflater(level: int = 9):
    """A raw deflate stream (no zlib header), what ``DecompressionStream("deflate-raw")`` reads."""
    return zlib.compressobj(level, zlib.DEFLATED, -15)


def deflated(data: str | bytes, level: int = 9) -> str:
    """``data`` (text as UTF-8) deflated raw and in base64: what ``static/dom.js`` ``inflated`` and the loader read."""
    packer = deflater(level)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return base64.b64encode(packer.compress(raw) + packer.flush()).decode("ascii")


def inflated(text: str) -> bytes:
    """The bytes ``deflated`` stored in ``text``."""
    return zlib.decompress(base64.b64decode(text), -15)


class DeflatedSize:
    """The bytes (in base64) a stream ``deflated`` stores takes so far, as pieces are added (each flushed)."""

    def __init__(self, level: int = 6):
        self.packer, self.raw = deflater(level), 0

    def add(self, data: bytes) -> int:
        self.raw += len(self.packer.compress(data)) + len(self.packer.flush(zlib.Z_SYNC_FLUSH))
        return self.bytes

    @property
    def bytes(self) -> int:
        return (self.raw + 2) // 3 * 4


# ------------------------------------------------------------------ an output's metadata (the save hook reads it)

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_KEY = "jaxprlens"          # output metadata {"jaxprlens": ...}: what ``serverext.py`` strips before a save
LIVE_META = {"live": True, "debugger": True}          # the live debugger's widget display (no text/html)
LIVE_TABLE_META = {"live": True, "table": True}       # a table with its live widget view beside the stored form
REPLAY_META = {"replay": True}                        # the recorded replay's display


def style() -> str:
    """The plain ``<style>`` of the views with no script (lowering, compare, diff)."""
    return f"<style>{css(frozenset({'compiled'}))}</style>"


def packed(payload: dict, cls: str) -> str:
    """Data for a script stored compressed (``deflated``; ``static/dom.js`` unpack reads it): for
    thousands of row fragments that repeat their markup (level 3: a tenth of level 9's time, a fifth bigger).
    Where scripts are stripped it goes with them."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    return f'<script type="application/octet-stream" class="{cls}">{deflated(text, 3)}</script>'


def unpacked(page: str, cls: str) -> dict | None:
    """What ``packed`` stored in ``page`` (tests, and readers of a stored output), or None."""
    m = re.search(f'<script type="application/octet-stream" class="{re.escape(cls)}">([^<]*)</script>', page)
    return json.loads(inflated(m.group(1))) if m else None


def labels(**words: str) -> str:
    """``data-l-*`` attributes that carry the script's translated words."""
    return "".join(f' data-l-{k}="{html(v)}"' for k, v in words.items())


def widget_module() -> str:
    """The debugger widget's ES module (anywidget's ``_esm``): the same bundle, with the debugger in it."""
    return bundle(frozenset({"debugger"}))


def widget_css() -> str:
    return css(frozenset({"debugger"}))
