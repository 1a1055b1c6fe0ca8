"""A Jupyter server extension that cleans the debugger's and the live table's widget views out of a notebook
before it is written to disk.

The debugger needs none of it: displayed, it is two outputs (``views/debugger/debugger.py``), its recorded replay
(``text/html``, what every page without a kernel shows) and, where a front end draws widgets, the live widget's
view alone (metadata ``{"jaxprlens": {"live": true, "debugger": true}}``), which shows itself only once its
kernel answers; a notebook saved anywhere (VS Code, Colab, JupyterLab with this extension off) therefore shows
the replay.  This hook only tidies the file: it drops those live widget outputs (a widget model is gone once
its kernel is), and from an output of an older jaxprlens that held both the widget view and the replay, the
widget view.  A live table (``{"jaxprlens": {"live": true, "table": true}}``, ``views/table/live.py``) loses its
widget view and that metadata: the file holds what a table output holds without a kernel.  The open page keeps
its live widget: the hook changes what is written, not what JupyterLab holds.
"""
from __future__ import annotations

from jaxprlens.present.front import LIVE_KEY, WIDGET_VIEW     # no JAX: the standard library and escape.py only

SERVER_PID = "JAXPRLENS_SERVER_PID"   # views/cells.py reads it in a kernel (named here too: importing the views
                                      # would load JAX into the server)


def strip_live_widgets(nb) -> int:
    """Drop the widget view of every live debugger and live table output of ``nb`` (a notebook as a dict), and
    the live debugger's widget outputs, which hold nothing else; how many outputs were changed or dropped.

    Never raises: a cell or output of an unexpected shape is skipped (the others are still stripped), and
    nothing but the widget view of our own outputs is touched."""
    n = 0
    cells = nb.get("cells") if isinstance(nb, dict) else None
    for cell in cells if isinstance(cells, list) else ():
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        outputs = cell.get("outputs")
        if not isinstance(outputs, list):
            continue
        kept = []
        for out in outputs:
            try:
                done = _strip(out)
            except Exception:  # noqa: BLE001 - a malformed output is left as it is
                done = 0
            n += bool(done)
            if done != DROP:
                kept.append(out)
        if len(kept) != len(outputs):
            outputs[:] = kept
    return n


DROP = 2     # _strip: the whole output goes (1: its widget view went)


def _strip(out) -> int:
    if not isinstance(out, dict):
        return 0
    meta, data = out.get("metadata"), out.get("data")
    if not isinstance(meta, dict) or not isinstance(data, dict):
        return 0
    live = meta.get(LIVE_KEY)
    if not (isinstance(live, dict) and live.get("live") is True and WIDGET_VIEW in data):
        return 0
    if "text/html" in data:
        del data[WIDGET_VIEW]
        if live.get("table") is True:     # a live table (views/table/live.py): saved exactly as its stored form
            del meta[LIVE_KEY]
        return 1
    if live.get("debugger") is True and set(data) <= {WIDGET_VIEW, "text/plain"}:
        return DROP                       # the live debugger's widget display: its replay is the output before
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
    import os

    from tornado.ioloop import IOLoop
    _hook(serverapp)
    # The kernels this server starts for its pages inherit this: they draw the live debugger even where the page
    # names no cell in its requests (nbclassic); nbclient started by one of them is told apart (views/cells.py).
    os.environ[SERVER_PID] = str(os.getpid())
    # Another extension may replace the contents manager after this one loads (jupytext does, and loads after
    # us): _start_jupyter_server_extension hooks the one in use once every extension has loaded.  A Jupyter
    # server too old to call it runs this callback once its loop runs (an extension that runs the loop while
    # loading, as JupyterHub's single-user one does, runs it earlier: the start hook covers that case).
    IOLoop.current().add_callback(_hook, serverapp)
    serverapp.log.info("jaxprlens: live debugger outputs are saved as their recorded replay")


async def _start_jupyter_server_extension(serverapp):
    """Jupyter Server calls this once the server runs, after every extension has loaded."""
    _hook(serverapp)
