"""``--fusion`` and ``--memory`` at size: seconds and stored bytes on chains of 1,000 and 10,000 equations,
beside ``jax.jit(fn).lower(*args).compile()`` of the same program (the floor: ``--fusion`` compiles once, and
``--memory`` compiles once for XLA's ``memory_analysis()``).

Two programs per size: ``chain`` (elementwise equations over f32[64], benchmarks/bench_stepper.py: XLA fuses
long runs of them) and ``layers`` (a tanh MLP of 16×16 matmuls, a dot every third equation: many kernels).
Usage: ``python benchmarks/bench_fusion.py [--eqns 1000 10000]``; prints one JSON line per program.
"""
from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.extend.core as jex  # noqa: E402
import jax.numpy as jnp  # noqa: E402

from bench_stepper import chain  # noqa: E402
from jaxprlens.model import trace  # noqa: E402
from jaxprlens.engine.memory import memory  # noqa: E402
from jaxprlens.views.fusion import FusionView  # noqa: E402
from jaxprlens.views.memory import MemoryView  # noqa: E402


def layers(n: int):
    def fn(x, w):
        for i in range(n // 3):
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
    fusion_s, view = seconds(lambda: FusionView(p))
    fusion_show, bundle = seconds(view._repr_mimebundle_)
    live_s, _ = seconds(lambda: memory(p))
    memory_s, mview = seconds(lambda: MemoryView(p))
    memory_show, mbundle = seconds(mview._repr_mimebundle_)
    size = lambda b: len(b["text/html"].encode()) + len(b["text/plain"].encode())  # noqa: E731
    return {"program": name, "eqns": len(p.eqns), "compile_floor_s": round(floor, 2),
            "fusion_s": round(fusion_s, 2), "fusion_show_s": round(fusion_show, 3), "kernels": len(view.kernels),
            "fusion_bytes": size(bundle), "liveness_s": round(live_s, 3),
            "memory_s": round(memory_s, 2), "memory_show_s": round(memory_show, 3), "memory_bytes": size(mbundle)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eqns", type=int, nargs="*", default=[1000, 10000])
    for n in ap.parse_args().eqns:
        for name, p in programs(n):
            print(json.dumps(measure(name, p)), flush=True)


if __name__ == "__main__":
    main()
