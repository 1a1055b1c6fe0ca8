"""Each equation's share of the cost (present/shares.py): one computation read by the table and the graph, and
``Metric``, the one type of ``--cost`` from the options to the views."""
import ast
from pathlib import Path

import jax.numpy as jnp
import pytest

from jaxprlens.model import trace
from jaxprlens.present.shares import METRICS, Shares, cost_metric

VIEWS = Path(__file__).resolve().parents[1] / "src" / "jaxprlens" / "views"


def _matmul_tanh():
    return trace(lambda x, w: jnp.tanh(x @ w).sum(), jnp.ones((4, 8)), jnp.ones((8, 8)))


def test_cost_is_one_metric_or_none():
    assert METRICS == ("flops", "bytes")
    assert [cost_metric(c) for c in (None, False, True, "flops", "bytes")] == [None, None, "flops", "flops", "bytes"]
    with pytest.raises(ValueError, match=r"unknown cost 'time' \(must be one of \['flops', 'bytes'\]\)"):
        cost_metric("time")
    p = _matmul_tanh()
    assert p.table(cost=True).cost == "flops" and p.table(cost="bytes").cost == "bytes" and p.table().cost is None
    assert p.graph(cost="bytes").cost == "bytes"


def test_shares_add_up_and_the_table_shows_the_metric_asked_for():
    p = _matmul_tanh()
    for metric in METRICS:
        shares = Shares(p, metric)
        assert sum(shares.share[e.id] for e in p.eqns) == pytest.approx(1.0)
    flops, moved = Shares(p, "flops"), Shares(p, "bytes")
    dot = next(e for e in p.eqns if e.primitive == "dot_general")
    assert round(flops.share[dot.id], 2) == 0.89 and round(moved.share[dot.id], 2) == 0.57
    assert "███████▏ 89%" in p.table(cost="flops").text()
    assert "████▌░░░ 57%" in p.table(cost="bytes").text()
    assert flops.words(flops.share[dot.id], "en") == "89% of FLOPs"


def test_the_table_does_not_import_the_graph_drawer():
    tree = ast.parse((VIEWS / "table" / "table.py").read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    graph = {"jaxprlens.views.graph.draw", "jaxprlens.views.graph.graph"}
    assert "jaxprlens.present.shares" in imported and not imported & graph
