"""First run of ``%%jaxpr --run --fusion --memory`` on a train step: the CPU time of the cell, and how many times XLA
compiled in it.

The step is an MLP's SGD update (``jax.grad`` of a mean squared error through ``--layers`` tanh layers, then
``params - lr * grads``; 20 layers: 327 equations), traced anew by each cell as a user's cell does, so every
cell is a first run (nothing of an earlier cell's program is reused).  Each option alone is timed too, for the
share of the compile in each.  CPU time (``time.process_time``: every thread of the process, XLA's compile
threads included), best of ``--rounds``; XLA compiles counted with ``jax.monitoring``'s backend-compile event.

    python benchmarks/bench_first_run.py [--layers 20] [--rounds 5] [--cells run,fusion,memory run ...]

Prints one line per cell: equations, best CPU seconds, the median, XLA compiles per cell.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
from IPython.testing.globalipapp import get_ipython

CELLS = ["run,fusion,memory", "run", "fusion", "memory", "table"]     # a cell's options, without dashes

SETUP = """
import jax, jax.numpy as jnp

def loss(params, x, y):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.mean((x - y) ** 2)

def step(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

params = [(jnp.ones((32, 32)) * 0.01, jnp.zeros(32)) for _ in range({layers})]
x, y = jnp.ones((16, 32)), jnp.zeros((16, 32))
"""

compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, seconds, **kw: compiles.append(event) if event.endswith("backend_compile_duration") else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cells", nargs="*", default=CELLS)
    opts = ap.parse_args()
    ip = get_ipython()
    ip.run_line_magic("load_ext", "jaxprlens")
    ip.run_cell(SETUP.format(layers=opts.layers))
    eqns = len(list(ip.run_line_magic("jaxpr", "--table step(params, x, y)").program.walk()))
    ip.run_cell_magic("jaxpr", "--run --fusion --memory", "step(params, x, y)")      # JAX's own first use: not timed
    for cell in (" ".join("--" + o for o in c.split(",")) for c in opts.cells):
        seconds, counts = [], []
        for _ in range(opts.rounds):
            compiles.clear()
            start = time.process_time()
            ip.run_cell_magic("jaxpr", cell, "step(params, x, y)")
            seconds.append(time.process_time() - start)
            counts.append(len(compiles))
        print(f"{cell:28s} eqns {eqns}  best {min(seconds):.3f} s  median {statistics.median(seconds):.3f} s  "
              f"XLA compiles {max(counts)}", flush=True)


if __name__ == "__main__":
    main()
