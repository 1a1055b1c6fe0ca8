"""Which cell is running, whether its front end draws widgets, and closing what an earlier run of it displayed: a
re-run cell frees its old widgets (the live debugger and the live table keep one registry each)."""
from __future__ import annotations

import os
import sys
import weakref

from jaxprlens.model import marimocells

SERVER_PID = "JAXPRLENS_SERVER_PID"   # set by the server extension in its own environment (its kernels inherit it)


def in_marimo() -> bool:
    """Whether a marimo notebook (``marimo edit`` / ``marimo run``) runs this: it shows no script of an HTML
    output, but draws anywidgets itself."""
    return marimocells.running()


def cell_key() -> tuple | None:
    """``(cell id, message id)`` of the execution running now, when the front end says which cell it is
    (JupyterLab and Notebook 7 send ``cellId`` in the request's metadata); None elsewhere."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
        parent = getattr(shell, "parent_header", None) or {}
    except Exception:  # noqa: BLE001 - no IPython, or no kernel
        return None
    cell = (parent.get("metadata") or {}).get("cellId")
    msg = (parent.get("header") or {}).get("msg_id")
    return (str(cell), str(msg)) if cell else None


def replace_in_cell(registry: dict, cell: tuple | None, widget=None) -> None:
    """Close the widgets earlier runs of ``cell`` (``(cell id, execution id)``) left in ``registry`` (not those of
    this same run), then remember ``widget`` for this run: re-running a cell frees what it displayed before."""
    if cell is None:
        return
    key, run = cell
    keep = []
    for other_run, ref in registry.get(key, []):
        other = ref()
        if other is None:
            continue
        if other_run == run:
            keep.append((other_run, ref))
        else:
            other.close()
    if widget is not None:
        keep.append((run, weakref.ref(widget)))
    registry[key] = keep


def close_layout(widget) -> None:
    """Close the ``Layout`` widget an anywidget (a ``DOMWidget``) opens with itself: ipywidgets' ``close`` closes
    no child widget, so each re-run of a cell would leave one open (and its comm) for the kernel's life."""
    layout = getattr(widget, "layout", None)
    if layout is not None and getattr(layout, "comm", None) is not None:
        layout.close()


def draws_widgets() -> bool | None:
    """Whether the front end running this cell draws widgets: True in JupyterLab, Notebook 7 and VS Code (they
    say which cell runs: ``cellId`` in the request's metadata), Colab, Voilà (its kernel's environment names it),
    a kernel a Jupyter server with jaxprlens's server extension started for a page (nbclassic, whose requests
    name no cell), or once a widget manager opened the widgets' control channel; False in a kernel run by none of
    them (nbclient: ``nbconvert --execute``, papermill, myst-nb, Jupyter Book); None outside a kernel (a script,
    a terminal, a test)."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
    except Exception:  # noqa: BLE001 - no IPython
        return None
    if getattr(shell, "kernel", None) is None:
        return None
    if "google.colab" in sys.modules:
        return True
    parent = getattr(shell, "parent_header", None) or {}
    if isinstance(parent, dict) and (parent.get("metadata") or {}).get("cellId"):
        return True
    if served_to_a_page(os.environ):
        return True
    try:
        from ipywidgets import Widget
        return Widget._control_comm is not None
    except Exception:  # noqa: BLE001 - an ipywidgets without the control channel
        return False


def served_to_a_page(env) -> bool:
    """Whether this kernel's environment ``env`` says a page draws its widgets: Voilà's kernels (``VOILA_BASE_URL``,
    also when preheated), or a kernel started for a notebook (``JPY_SESSION_NAME``) by the Jupyter server whose
    process set ``SERVER_PID`` (the kernel's ``JPY_PARENT_PID``); not nbclient run from inside such a kernel
    (``!papermill``), which inherits both names but is started by another process."""
    if env.get("VOILA_BASE_URL") is not None or str(env.get("SERVER_SOFTWARE", "")).startswith("voila/"):
        return True
    server = env.get(SERVER_PID)
    return bool(server and env.get("JPY_SESSION_NAME") and env.get("JPY_PARENT_PID") == server)
