"""A Jupyter server extension that saves the debugger's live display as its recorded replay (and a live
table as the form it stores).

JupyterLab renders the widget mimetype before ``text/html``; in a notebook reopened without the kernel that
made it, the widget's model is gone and JupyterLab says "Error displaying widget: model not found".  The
live debugger's output carries ``{"jaxprlens": {"live": true}}`` in its metadata: before such a notebook is
written to disk this hook drops the widget mimetype from those outputs only, so the file holds the
recorded replay (``text/html``) and text, which every page (reopened, nbconvert, nbviewer) can show.  A live
table (``{"jaxprlens": {"live": true, "table": true}}``, ``views/live.py``) loses its widget view and that
metadata: the file holds what a table output holds without a kernel.  The open page keeps its live widget: the
hook changes what is written, not what JupyterLab holds.
"""
from __future__ import annotations

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_KEY = "jaxprlens"


def strip_live_widgets(nb) -> int:
    """Drop the widget view from every live debugger output of ``nb`` (a notebook as a dict); how many.

    Never raises: a cell or output of an unexpected shape is skipped (the others are still stripped), and
    nothing but the widget view of our own outputs is touched."""
    n = 0
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        outputs = cell.get("outputs")
        for out in outputs if isinstance(outputs, list) else ():
            try:
                n += _strip(out)
            except Exception:  # noqa: BLE001 - a malformed output is left as it is
                continue
    return n


def _strip(out) -> int:
    if not isinstance(out, dict):
        return 0
    meta, data = out.get("metadata"), out.get("data")
    if not isinstance(meta, dict) or not isinstance(data, dict):
        return 0
    live = meta.get(LIVE_KEY)
    if isinstance(live, dict) and live.get("live") is True and WIDGET_VIEW in data and "text/html" in data:
        del data[WIDGET_VIEW]
        if live.get("table") is True:     # a live table (views/live.py): saved exactly as its stored form
            del meta[LIVE_KEY]
        return 1
    return 0


def pre_save(model, **_kwargs):
    """``ContentsManager`` pre-save hook: only notebooks, only our outputs; never raises (a save must not
    fail, nor stop early, because of us)."""
    try:
        if isinstance(model, dict) and model.get("type") == "notebook" and isinstance(model.get("content"), dict):
            strip_live_widgets(model["content"])
    except Exception:  # noqa: BLE001 - e.g. a content object whose methods raise
        pass


def _jupyter_server_extension_points():
    return [{"module": "jaxprlens.serverext"}]


def _hook(serverapp):
    cm = serverapp.contents_manager
    if pre_save not in getattr(cm, "_pre_save_hooks", ()):
        cm.register_pre_save_hook(pre_save)


def _load_jupyter_server_extension(serverapp):
    from tornado.ioloop import IOLoop
    _hook(serverapp)
    # Another extension may replace the contents manager after this one loads (jupytext does): hook the
    # one in use once the server runs, after every extension has loaded.
    IOLoop.current().add_callback(_hook, serverapp)
    serverapp.log.info("jaxprlens: live debugger outputs are saved as their recorded replay")
