"""Re-running a cell frees what its earlier run displayed (``views.cells``): no widget is left open per run."""
from collections import Counter

import pytest


def open_widgets() -> Counter:
    from ipywidgets.widgets.widget import _instances      # the open widgets by model id (ipywidgets 8)
    return Counter(type(w).__name__ for w in list(_instances.values()))


@pytest.fixture
def cell(ip):
    """Runs of one notebook cell, as JupyterLab says them (``cellId`` in the request's metadata)."""
    ip.run_cell("import jax.numpy as jnp\ndef f(x): return jnp.sin(x) * 2\nx = jnp.ones(4)")
    saved = ip.parent_header if hasattr(ip, "parent_header") else None
    runs = iter(range(1_000_000))

    def run(magic_line: str, body: str):
        ip.parent_header = {"metadata": {"cellId": "cells-test"}, "header": {"msg_id": f"run-{next(runs)}"}}
        return ip.run_cell_magic("jaxpr", magic_line, body)
    yield run
    ip.parent_header = saved


def test_a_rerun_debug_cell_leaves_no_widget_open(cell):
    before = open_widgets()
    for _ in range(12):
        d = cell("--debug", "f(x)")
    now = open_widgets() - before
    assert now == Counter({"Debugger": 1, "Layout": 1})       # the last run's widget and its layout, nothing more
    assert d.comm is not None and d.layout.comm is not None
    d.close()
    assert open_widgets() - before == Counter()


def test_a_rerun_big_table_leaves_no_widget_open():
    import jax.numpy as jnp

    from jaxprlens.model import trace
    from jaxprlens.views.table import live

    def f(x):
        for _ in range(50):
            x = jnp.sin(x)
        return x
    table = trace(f, jnp.ones(3)).table()
    before = open_widgets()
    widgets = [live.widget_class()(live.RowServer(table), "", ("big-table", f"run-{k}")) for k in range(12)]
    assert open_widgets() - before == Counter({"LiveTable": 1, "Layout": 1})
    widgets[-1].close()
    assert open_widgets() - before == Counter()
