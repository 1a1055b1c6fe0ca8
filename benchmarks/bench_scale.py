"""Memory and stored size at scale (issue 21): per equation, what the model and the stepper keep, how big the
default table output is (what a notebook stores), and whether a 100k-equation program fits in 2 GB of RSS
through trace, table, graph and a full stepper run.

Run: ``.venv/bin/python benchmarks/bench_scale.py [--sizes 10000,100000] [--program chain|unrolled]``.
Each size runs in a fresh process (RSS is a process's high-water mark).  Goals: stored table <= 1.0 MB at 10k
equations and <= 3 MB, the live
debugger's first message <= 1 MB and peak RSS <= 2 GB (through trace, table, graph, a stepper run and a
debugger shown and continued to the end) at 100k equations; exits 1 when one is missed.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("JAXPRLENS_RENDERER", "graphviz-pure")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

TABLE_GOAL = 3 * 1024 * 1024       # bytes of the default table output at 100k equations
TABLE_10K_GOAL = 1_000_000         # ... and at 10k (issue 27: 1.57 MB before its rows were stored deflated)
RSS_GOAL = 2 * 1024 ** 3           # peak RSS through trace, table, graph, a stepper run and a debugger at 100k
FIRST_GOAL = 1_000_000             # bytes of the live debugger's first message, at any size


def rss() -> int:
    """This process's resident memory now, in bytes."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def peak() -> int:
    """This process's peak resident memory so far, in bytes (Linux reports kB)."""
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def once(program_name: str, n: int) -> dict:
    """In this (fresh) process: each stage's seconds, resident memory after it and bytes made."""
    import jax.numpy as jnp
    import bench_graph
    from jaxprlens.model import trace
    make = {"chain": bench_graph.chain, "unrolled": bench_graph.unrolled}[program_name]
    x8 = jnp.ones(8)
    out = {"eqns": n}
    gc.collect()
    out["rss_start"] = rss()

    def stage(name, fn):
        t0 = time.perf_counter()
        value = fn()
        out[f"{name}_s"] = time.perf_counter() - t0
        gc.collect()
        out[f"rss_{name}"] = rss()
        return value

    program = stage("trace", lambda: trace(make(n), x8, x8))
    out["eqns"] = len(program.eqns)
    bundle = stage("table", lambda: program.table()._repr_mimebundle_())
    out["table_html"] = len(bundle["text/html"].encode())
    out["table_text"] = len(bundle["text/plain"].encode())
    del bundle
    graph = stage("graph", lambda: program.graph()._repr_mimebundle_())
    out["graph_html"] = len(graph["text/html"].encode())
    del graph

    def run():
        st = program.stepper()
        st.run()
        return st
    stepper = stage("stepper", run)
    out["history"] = len(getattr(stepper, "history", ()) or ())
    del stepper
    gc.collect()
    out["rss_after_stepper_freed"] = rss()

    def debugger():                # --debug as a notebook shows it: the output bundle, the first message,
        import fakecomm                                     # tests/: the messages as the kernel writes them
        from jaxprlens.views.debugger.debugger import Debugger       # then Continue to the end
        with fakecomm.installed():
            d = Debugger(program)
        sent = d.comm.bytes
        d._repr_mimebundle_()
        d.press("ready")
        out["first_message"] = sent[-1]
        t0 = time.perf_counter()
        d.press("continue")
        out["continue_s"] = time.perf_counter() - t0
        return d
    d = stage("debugger", debugger)
    d.close()
    del d
    out["peak"] = peak()
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--program", default="chain", choices=["chain", "unrolled"])
    ap.add_argument("--once", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.once:
        print(json.dumps(once(a.once[0], int(a.once[1]))))
        return 0
    mb = 1024 * 1024
    print(f"program {a.program!r}: each size in a fresh process; RSS after each stage (MB), sizes of the default "
          f"outputs; per equation: resident bytes the model (trace) and the stepper's run added")
    print(f"{'eqns':>8}{'trace s':>9}{'table s':>9}{'graph s':>9}{'step s':>8}{'table MB':>10}{'text MB':>9}"
          f"{'graph kB':>10}{'RSS trace':>10}{'table':>8}{'graph':>8}{'stepper':>9}{'peak':>8}"
          f"{'model B/eqn':>12}{'step B/eqn':>11}{'dbg s':>7}{'first kB':>9}{'continue s':>11}")
    missed = []
    for n in (int(s) for s in a.sizes.split(",")):
        done = subprocess.run([sys.executable, __file__, "--once", a.program, str(n)], check=True,
                              capture_output=True, text=True, env=dict(os.environ))
        r = json.loads(done.stdout.strip().splitlines()[-1])
        e = r["eqns"]
        model = (r["rss_trace"] - r["rss_start"]) / e
        step = (r["rss_stepper"] - r["rss_graph"]) / e
        print(f"{e:>8}{r['trace_s']:>9.1f}{r['table_s']:>9.1f}{r['graph_s']:>9.1f}{r['stepper_s']:>8.1f}"
              f"{r['table_html'] / mb:>10.2f}{r['table_text'] / mb:>9.2f}{r['graph_html'] / 1024:>10.0f}"
              f"{r['rss_trace'] / mb:>10.0f}{r['rss_table'] / mb:>8.0f}{r['rss_graph'] / mb:>8.0f}"
              f"{r['rss_stepper'] / mb:>9.0f}{r['peak'] / mb:>8.0f}{model:>12.0f}{step:>11.0f}"
              f"{r['debugger_s']:>7.1f}{r['first_message'] / 1e3:>9.0f}{r['continue_s']:>11.1f}", flush=True)
        if r["first_message"] > FIRST_GOAL:
            missed.append(f"{e} eqns: the debugger's first message {r['first_message'] / 1e3:.0f} kB (goal 1 MB)")
        if 10_000 <= e < 100_000 and r["table_html"] > TABLE_10K_GOAL:
            missed.append(f"{e} eqns: table output {r['table_html'] / 1e6:.2f} MB (goal 1.0 MB)")
        if e >= 100_000:
            if r["table_html"] > TABLE_GOAL:
                missed.append(f"{e} eqns: table output {r['table_html'] / mb:.1f} MB (goal 3 MB)")
            if r["peak"] > RSS_GOAL:
                missed.append(f"{e} eqns: peak RSS {r['peak'] / mb:.0f} MB (goal 2048 MB)")
    for m in missed:
        print(f"missed: {m}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
