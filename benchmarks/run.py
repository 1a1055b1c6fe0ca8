"""Run every benchmark (graph layout, stepper vs eval_jaxpr, run() vs jax.jit, tracing vs make_jaxpr on large and
small programs and on every library family, folding by calls, debugger bytes per step, JupyterLab's Step and first
paint in Chromium) and print their tables.

On demand only (`make bench`); the numbers go into issue notes, not into timed unit tests.  Exits 1 when any
benchmark missed its goal.
"""
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent

failed = []
for name in ("bench_graph.py", "bench_stepper.py", "bench_run.py", "bench_trace.py", "bench_small.py",
             "bench_families.py", "bench_fold.py", "bench_debugger.py", "bench_model.py", "bench_lab.py"):
    print(f"== {name}", flush=True)
    sys.argv = [str(HERE / name)]
    try:
        runpy.run_path(str(HERE / name), run_name="__main__")
    except SystemExit as e:        # a benchmark's exit status says whether it met its goal
        if e.code:
            failed.append(name)
    print(flush=True)
if failed:
    print(f"missed their goals: {', '.join(failed)}")
sys.exit(1 if failed else 0)
