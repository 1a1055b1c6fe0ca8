"""Run every benchmark (graph layout, stepper vs eval_jaxpr, run() vs jax.jit) and print their tables.

On demand only (`make bench`); the numbers go into issue notes, not into timed unit tests.
"""
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent

for name in ("bench_graph.py", "bench_stepper.py", "bench_run.py"):
    print(f"== {name}", flush=True)
    sys.argv = [str(HERE / name)]
    runpy.run_path(str(HERE / name), run_name="__main__")
    print(flush=True)
