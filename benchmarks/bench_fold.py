"""Time folding by inlined calls: the call tree against trace(), and the graph's overview of model-sized
programs (the grad of a 6-block and a 60-block transformer toy, ~1k and ~11k equations) to SVG.

Run: ``.venv/bin/python benchmarks/bench_fold.py``.  Goals (issue 12): building the call tree costs <= 10 % of
trace(); the overview renders to SVG in <= 1 s (1k) and <= 2 s (10k).  Exits 1 when a goal is missed.
"""
from __future__ import annotations

import os
import sys
import time
from functools import partial

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import jax

from jaxprlens.views.graph import render
from jaxprlens.model.calls import CallTree
from jaxprlens.model import count_eqns
from test_calls import transformer

CASES = [("grad, 6 blocks", 6, 1.0), ("grad, 60 blocks", 60, 2.0)]


def best(fn, repeat: int):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(repeat: int = 3) -> int:
    name, exe = render.find_renderer()
    print(f"renderer: {name}; python {sys.version.split()[0]}, jax {jax.__version__}")
    print(f"{'program':<18}{'eqns':>7}{'trace s':>9}{'tree s':>8}{'tree %':>8}{'DOT s':>7}{'SVG s':>7}"
          f"{'overview s':>11}{'page s':>8}{'page kB':>8}")
    missed = []
    for label, blocks, goal in CASES:
        traced, program = best(partial(transformer, blocks), repeat)

        def tree(program=program):
            t = CallTree(program)
            for g in t.root.walk():
                _ = g.inputs              # a property: reading it builds the group's inputs
            return t
        built, _ = best(tree, repeat)
        dot, graph = best(program.graph, repeat)
        svg, _ = best(lambda graph=graph: render.svg_text(graph.pipe("svg")), repeat)
        page, html = best(lambda program=program: program.graph().html(), 1)
        share = 100 * built / traced
        print(f"{label:<18}{count_eqns(program):>7}{traced:>9.3f}{built:>8.3f}{share:>7.1f}%{dot:>7.3f}{svg:>7.3f}"
              f"{dot + svg:>11.3f}{page:>8.3f}{len(html) / 1024:>8.0f}")
        if share > 10:
            missed.append(f"{label}: call tree {share:.1f} % of trace (goal 10 %)")
        if dot + svg > goal:
            missed.append(f"{label}: overview {dot + svg:.2f} s (goal {goal} s)")
    for m in missed:
        print("missed:", m)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
