"""The flax tutorial's jitted train step (``@nnx.jit``, 2 blocks), seen through (issue 28): trace, table,
graph and one debugger step, each the median of a few rounds, beside ``jax.make_jaxpr`` + JAX's printer.

On demand (``make bench``); the numbers go into issue notes.  Exits 1 when trace + table passes 2x
make_jaxpr + printer (a loose goal: the body's call tree and Python paths are the extra work)."""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import jax

import jaxprlens
from libraries import nnx_jit_train_step


def timed(fn, rounds=5):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> int:
    fn, args = nnx_jit_train_step(2)
    reference, _ = timed(lambda: jax.make_jaxpr(fn)(*args).pretty_print(use_color=False))
    trace, p = timed(lambda: jaxprlens.trace(fn, *args))
    table, html = timed(lambda: jaxprlens.trace(fn, *args).table()._repr_mimebundle_()["text/html"])
    graph, svg = timed(lambda: p.graph().svg(), rounds=3)
    stepper = p.stepper()
    step, _ = timed(stepper.step_into if hasattr(stepper, "step_into") else stepper.step, rounds=20)
    n = sum(1 for _ in p.walk())
    print(f"nnx.jit train step: {n} equations in its body, {len(p.invars)} inputs")
    print(f"  make_jaxpr + printer   {reference * 1e3:8.1f} ms")
    print(f"  trace (seen through)   {trace * 1e3:8.1f} ms")
    print(f"  trace + table HTML     {table * 1e3:8.1f} ms  ({len(html) / 1e3:.0f} kB stored)   "
          f"{table / reference:.2f}x make_jaxpr + printer")
    print(f"  graph (first view)     {graph * 1e3:8.1f} ms  ({len(svg) / 1e3:.0f} kB SVG)")
    print(f"  one debugger step      {step * 1e3:8.2f} ms")
    return 0 if table <= 2 * reference else 1


if __name__ == "__main__":
    sys.exit(main())
