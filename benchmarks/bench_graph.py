"""Time the graph view on big programs: build DOT, then lay out to SVG with the pinned renderer.

Run: ``.venv/bin/python benchmarks/bench_graph.py``  (the issue asks < 1 s for ~1,000 flat equations).
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

from jaxprlens.views import render  # noqa: E402
from jaxprlens.model import count_eqns, trace  # noqa: E402


def chain(n: int):
    """``n`` elementwise equations, each using the previous value, an input and sometimes a literal."""
    def f(x, y):
        for i in range(n // 2):
            x = jnp.sin(x) * y if i % 2 else x + y * 1.5
        return x
    return f


def scan_body(n: int):
    def f(x, ys):
        return lax.scan(lambda c, y: (chain(n)(c, y), c), x, ys)
    return f


CASES = [
    ("flat 500", chain(500), (jnp.ones(8), jnp.ones(8)), {}),
    ("flat 1000", chain(1000), (jnp.ones(8), jnp.ones(8)), {}),
    ("flat 2000", chain(2000), (jnp.ones(8), jnp.ones(8)), {}),
    ("flat 5000 (runs)", chain(5000), (jnp.ones(8), jnp.ones(8)), {}),
    ("scan body 1000 (folded)", scan_body(1000), (jnp.ones(8), jnp.ones((4, 8))), {}),
    ("scan body 1000 (unfolded)", scan_body(1000), (jnp.ones(8), jnp.ones((4, 8))), {"max_nodes": 5000}),
]


def main(repeat: int = 3) -> None:
    name, exe = render.find_renderer()
    print(f"renderer: {name} ({exe}); python {sys.version.split()[0]}, jax {jax.__version__}")
    print(f"{'program':<28}{'eqns':>7}{'DOT KiB':>9}{'build s':>9}{'render s':>10}")
    for label, fn, args, opts in CASES:
        program = trace(fn, *args)
        builds, renders = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            graph = program.graph(**opts)
            t1 = time.perf_counter()
            graph.svg()
            t2 = time.perf_counter()
            builds.append(t1 - t0)
            renders.append(t2 - t1)
        print(f"{label:<28}{count_eqns(program):>7}{len(graph.source) / 1024:>9.0f}"
              f"{min(builds):>9.3f}{min(renders):>10.3f}")


if __name__ == "__main__":
    main()
