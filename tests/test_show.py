"""jaxprlens.show: the magic's views from Python, its options as keywords, checked as the magic checks them."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jaxprlens
from jaxprlens.views.graph.graph import Graph
from jaxprlens.views.table.live import ServedTable
from jaxprlens.views.options import SPEC


def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)


X, Y = jnp.zeros(8), jnp.ones(8)


@pytest.fixture
def shell(ip):
    ip.user_ns.update(func1=func1, X=X, Y=Y)
    return ip


def _html(view):
    bundle = view._repr_mimebundle_()
    return (bundle[0] if isinstance(bundle, tuple) else bundle)["text/html"]


@pytest.mark.parametrize("line, options", [
    ("", {}),
    ("--graph --lang zh", {"graph": True, "lang": "zh"}),
    ("--graph --max-nodes 5 --depth 1", {"graph": True, "max_nodes": 5, "depth": 1}),
    ("--cost bytes", {"cost": "bytes"}),
    ("--text", {"text": True}),
    ("--transform grad --argnums 0,1 --compare", {"transform": "grad", "argnums": (0, 1), "compare": True}),
    ("--transform vmap --in-axes 0,None", {"transform": "vmap", "in_axes": "0,None"}),
])
def test_show_is_the_magic(shell, line, options):
    """The same view, the same HTML, as the magic's for the same options."""
    magic = shell.run_cell_magic("jaxpr", line, "func1(X, Y)")
    shown = jaxprlens.show(func1, X, Y, **options)
    assert type(shown) is type(magic)
    assert _html(shown) == _html(magic)


def test_show_table_and_graph_types():
    assert isinstance(jaxprlens.show(func1, X, Y), ServedTable)
    assert isinstance(jaxprlens.show(func1, X, Y, graph=True), Graph)


def test_show_static_args_and_keywords():
    def f(x, n, *, scale):
        return jnp.sum(x ** n) * scale
    p = jaxprlens.show(f, X, 3, static_argnums=(1,), kwargs={"scale": 2.}, text=True)
    assert str(p) == str(jax.make_jaxpr(f, static_argnums=(1,))(X, 3, scale=2.))


def test_show_refuses_what_the_magic_refuses():
    with pytest.raises(ValueError, match="--depth"):
        jaxprlens.show(func1, X, Y, depth=1)                 # --depth without --graph
    with pytest.raises(ValueError) as e:
        jaxprlens.show(func1, X, Y, grpah=True)
    assert "grpah" in str(e.value) and "graph" in str(e.value) and "devices" not in str(e.value)
    assert set(SPEC) - {"devices", "help"} <= set(str(e.value).split("options: ")[1].split(", "))
