"""``--fusion`` and ``--memory`` at size: seconds and stored bytes on chains of 1,000 and 10,000 equations,
beside ``jax.jit(fn).lower(*args).compile()`` of the same program (the floor: XLA's compile is most of either).

The scoped program is compiled once per program and device (kept in ``program.memo``, ``engine.fusion._scoped``):
``fusion_s`` is the map made cold (its compile included), ``fusion_again_s`` a second ``program.fusion()`` (the
compile reused), ``memory_s`` the memory view after the map (``--fusion --memory`` in one cell: XLA's
``memory_analysis()`` reads the same compile), ``memory_cold_s`` the memory view alone (its own compile).

The profiled path (``--profile --fusion``: the same compile, then 20 runs under ``jax.profiler``) is timed after the
map (``profiled_s``: its compile reused), with how many kernels the profiler measured, their own times summed per
run, and the whole program's median run (``engine.runner.measure``) to read that sum against, and under the
profiler.

Two programs per size: ``chain`` (elementwise equations over f32[64], benchmarks/bench_stepper.py: XLA fuses
long runs of them) and ``layers`` (a tanh MLP of 16×16 matmuls, a dot every third equation: many kernels).
Usage: ``python benchmarks/bench_fusion.py [--eqns 1000 10000] [--only chain] [--rounds 3]``; prints one JSON line
per program (with ``--rounds``, each time the least of the rounds: the machine's other load only adds).
"""
from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.extend.core as jex
import jax.numpy as jnp

from bench_stepper import chain
from jaxprlens.model import trace
from jaxprlens.engine.memory import memory
from jaxprlens.engine.runner import measure as measure_run
from jaxprlens.views.compiled.fusion import FusionView
from jaxprlens.views.compiled.memory import MemoryView


def layers(n: int):
    def fn(x, w):
        for _ in range(n // 3):
            x = jnp.tanh(x @ w + 1.0)
        return x
    return fn


def programs(n: int):
    yield "chain", trace(chain(n), jnp.linspace(0., 1., 64), jnp.ones(64))
    yield "layers", trace(layers(n), jnp.ones((16, 16)), jnp.ones((16, 16)) * .01)


def seconds(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def measure(name: str, p) -> dict:
    floor, _ = seconds(lambda: jax.jit(jex.jaxpr_as_fun(p.jaxpr)).lower(*p.args).compile())
    p.memo.clear()
    fusion_s, view = seconds(lambda: FusionView(p))
    fusion_show, bundle = seconds(view._repr_mimebundle_)
    again_s, _ = seconds(lambda: FusionView(p)._repr_mimebundle_())
    live_s, _ = seconds(lambda: memory(p))
    memory_s, mview = seconds(lambda: MemoryView(p))
    memory_show, mbundle = seconds(mview._repr_mimebundle_)
    profiled_s, pview = seconds(lambda: FusionView(p, profile=True, repeat=20))
    whole = measure_run(p, repeat=20, estimate=False)
    p.memo.clear()
    memory_cold, _ = seconds(lambda: MemoryView(p))

    def size(b):
        return len(b["text/html"].encode()) + len(b["text/plain"].encode())

    timed = [k for k in pview.kernels + pview.map.others if k.time is not None]
    return {"program": name, "eqns": len(p.eqns), "compile_floor_s": round(floor, 2),
            "fusion_s": round(fusion_s, 2), "fusion_show_s": round(fusion_show, 3),
            "fusion_again_s": round(again_s, 2), "kernels": len(view.kernels),
            "fusion_bytes": size(bundle), "liveness_s": round(live_s, 3),
            "memory_s": round(memory_s, 2), "memory_cold_s": round(memory_cold, 2),
            "memory_show_s": round(memory_show, 3), "memory_bytes": size(mbundle),
            "profiled_s": round(profiled_s, 2), "kernels_timed": len(timed),
            "kernel_sum_us": round(pview.map.times.total * 1e6, 1), "run_median_us": round(whole.median * 1e6, 1),
            "profiled_run_median_us": round(pview.map.times.profiled.median * 1e6, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eqns", type=int, nargs="*", default=[1000, 10000])
    ap.add_argument("--only", nargs="*", default=["chain", "layers"])
    ap.add_argument("--rounds", type=int, default=1, help="measure each program this many times; seconds: the least")
    opts = ap.parse_args()
    jax.jit(lambda x: x + 1).lower(1.0).compile()      # JAX's first compile starts its backend: not the floor's
    for n in opts.eqns:
        for name, p in programs(n):
            if name in opts.only:
                rounds = [measure(name, p) for _ in range(max(opts.rounds, 1))]
                print(json.dumps({k: min(r[k] for r in rounds) if k.endswith("_s") else v
                                  for k, v in rounds[0].items()}), flush=True)


if __name__ == "__main__":
    main()
