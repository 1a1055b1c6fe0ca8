"""The front end shipped in the package: one CSS file and one script, inlined into HTML outputs so the
views need no kernel and no install step (JupyterLab, Notebook 7, VS Code, Colab, nbconvert, Sphinx)."""
from __future__ import annotations

import functools
import json
from importlib import resources

from jaxprlens.present.escape import html


@functools.cache
def _asset(name: str) -> str:
    return resources.files("jaxprlens").joinpath("static", name).read_text(encoding="utf-8")


def style() -> str:
    """The ``<style>`` every view's HTML starts with."""
    return f"<style>{_asset('jaxprlens.css')}</style>"


def script() -> str:
    """The front end's script and the call that enhances the output it ends (runs only where trusted)."""
    return (f"<script>{_asset('jaxprlens.js')}\n"
            "window.jaxprlens&&window.jaxprlens.enhance(document.currentScript.parentNode);</script>")


def data(payload: dict, cls: str = "jl-data") -> str:
    """Data for a script, stored once per output (``<`` escaped so it can never close the tag)."""
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" class="{cls}">{text}</script>'


def labels(**words: str) -> str:
    """``data-l-*`` attributes that carry the script's translated words."""
    return "".join(f' data-l-{k}="{html(v)}"' for k, v in words.items())


def module(name: str) -> str:
    """An ES module of ``static/`` with the table's script before it (the module reuses its row builder)."""
    return _asset("jaxprlens.js") + "\n" + _asset(name)
