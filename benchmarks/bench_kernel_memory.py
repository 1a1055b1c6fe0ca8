"""What jaxprlens adds to a Jupyter kernel's memory beside plain JAX: resident memory (VmRSS) and its peak
(VmHWM) of a real ipykernel, step by step, each run in a fresh kernel.

Steps: the bare kernel; ``import jax`` with a first computation (JAX's CPU client up); JAX's own
``make_jaxpr`` of lecture 1's ``func1`` printed; ``%load_ext jaxprlens``; a ``%%jaxpr`` table of the same
call; ``--graph`` of it. Also the modules each step imports, jaxprlens's own and the rest.
``--lecture notebooks/en/08_debugger_and_graph.ipynb``: also a whole lecture's code cells run in a fresh kernel,
and what the kernel holds after it.
Usage: ``python benchmarks/bench_kernel_memory.py [--runs 3] [--lecture PATH]`` (JAX on the CPU; medians over
the runs).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics

from jupyter_client.manager import start_new_kernel

PROBE = '''
import gc as _gc, sys as _sys, json as _json
def _mem(step):
    _gc.collect()
    fields = dict(line.split(":", 1) for line in open("/proc/self/status") if line.startswith(("VmRSS", "VmHWM")))
    kb = {k: int(v.split()[0]) for k, v in fields.items()}
    mods = sorted(_sys.modules)
    print("MEM " + _json.dumps({"step": step, "rss": kb["VmRSS"], "peak": kb["VmHWM"], "modules": mods}))
_mem("bare kernel")
'''

STEPS = [
    ("import jax, first computation", "import jax, jax.numpy as jnp\n_ = jnp.ones(3).block_until_ready()"),
    ("jax.make_jaxpr printed",
     "def func1(first, second):\n    temp = first + jnp.sin(second) * 3.\n    return jnp.sum(temp)\n"
     "print(jax.make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8)))"),
    ("%load_ext jaxprlens", "%load_ext jaxprlens"),
    ("%%jaxpr table", "%%jaxpr\nfunc1(jnp.zeros(8), jnp.ones(8))"),
    ("%%jaxpr --graph", "%%jaxpr --graph\nfunc1(jnp.zeros(8), jnp.ones(8))"),
]


def run_once(steps=STEPS) -> list[dict]:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    km, kc = start_new_kernel(kernel_name="python3", env=env)
    seen: list[dict] = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            for line in msg["content"]["text"].splitlines():
                if line.startswith("MEM "):
                    seen.append(json.loads(line[4:]))
        elif msg["msg_type"] == "error":
            raise RuntimeError("\n".join(msg["content"]["traceback"]))
    try:
        kc.execute_interactive(PROBE, output_hook=hook, timeout=120)
        for name, code in steps:
            kc.execute_interactive(code, output_hook=hook, timeout=300)
            kc.execute_interactive(f"_mem({name!r})", output_hook=hook, timeout=60)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lecture", help="a lecture notebook to run whole in a fresh kernel")
    args = parser.parse_args()
    runs = [run_once() for _ in range(args.runs)]
    names = [s["step"] for s in runs[0]]
    print(f"{'step':32} {'RSS MB':>8} {'+MB':>7} {'peak MB':>8}  modules (+ jaxprlens, + other)")
    prev_rss, prev_mods = None, set()
    for i, name in enumerate(names):
        rss = statistics.median(r[i]["rss"] for r in runs) / 1024
        peak = statistics.median(r[i]["peak"] for r in runs) / 1024
        mods = set(runs[0][i]["modules"])
        new = mods - prev_mods
        ours = sum(m.startswith("jaxprlens") for m in new)
        delta = "" if prev_rss is None else f"{rss - prev_rss:+7.1f}"
        print(f"{name:32} {rss:8.1f} {delta:>7} {peak:8.1f}  {len(mods)} (+{ours}, +{len(new) - ours})")
        prev_rss, prev_mods = rss, mods
    base = {s["step"]: s for s in runs[0]}
    other = sorted({m.split(".")[0] for m in set(base["%%jaxpr --graph"]["modules"])
                    - set(base["jax.make_jaxpr printed"]["modules"]) if not m.startswith("jaxprlens")})
    print("top-level packages jaxprlens's steps bring in besides its own:", ", ".join(other))
    jax_mb = statistics.median(r[names.index("jax.make_jaxpr printed")]["rss"] for r in runs) / 1024
    ours_mb = statistics.median(r[-1]["rss"] - r[names.index("jax.make_jaxpr printed")]["rss"] for r in runs) / 1024
    print(f"jaxprlens and a table + graph add {ours_mb:.1f} MB to a kernel of {jax_mb:.1f} MB with JAX "
          f"({100 * ours_mb / jax_mb:.0f}%)")
    if args.lecture:
        import nbformat
        nb = nbformat.read(args.lecture, as_version=4)
        cells = [(f"cell {i}", c.source) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
        whole = [run_once(cells)[-1] for _ in range(args.runs)]
        rss = statistics.median(s["rss"] for s in whole) / 1024
        peak = statistics.median(s["peak"] for s in whole) / 1024
        print(f"{os.path.basename(args.lecture)} run whole: {rss:.1f} MB resident after it, peak {peak:.1f} MB")


if __name__ == "__main__":
    main()
