"""``--sharding`` at size: seconds on programs of 1,000 and 10,000 equations over 8 CPU devices, beside
``jax.jit(fn).lower(*args).compile()`` of the same function on the same sharded arguments (the floor: XLA's compile
is most of the map's time).

``sharding_s`` is ``program.sharding()`` made cold (``program.memo`` cleared: the scoped program's compile, with the
module the SPMD partitioner received dumped, both HLO texts read); ``show_s`` its text and HTML; ``ratio``
``sharding_s / compile_floor_s``.  Two programs per size: ``layers`` (a tanh MLP of 16×16 matmuls, a dot every third
equation, the activations split over ``data`` and the weight over ``model``: a collective per layer) and ``chain``
(elementwise equations over f32[64, 8] split over both axes: no communication).

Measured on this project's 2-core machine shared with other work (load average about 9, so single runs vary by tens
of percent): at 1,000 equations ``layers`` 3.40 s vs a 2.98 s floor (1.14×, 332 collectives), ``chain`` 1.93 s vs
2.23 s (0.87×); at 10,000, ``layers`` 782 s vs 902 s (0.87×, 3,332 collectives), ``chain`` 12.4 s vs 19.0 s (0.66×).
The floor traces the function again (``jax.jit(fn).lower``) where the map reuses the traced program; the dump of the
partitioner's input and reading both texts stay small beside XLA's compile.

Usage: ``python benchmarks/bench_sharding.py [--eqns 1000 10000] [--only layers] [--rounds 3]``; prints one JSON
line per program (with ``--rounds``, each time the least of the rounds: the machine's other load only adds).
"""
from __future__ import annotations

import argparse
import json
import os
import time

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

from bench_fusion import layers
from bench_stepper import chain
from jaxprlens.model import trace
from jaxprlens.views.compiled.sharding import ShardingView


def programs(n: int, only: str | None):
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)

    def put(a, *spec):
        return jax.device_put(a, NamedSharding(mesh, P(*spec)))

    if only in (None, "layers"):
        yield "layers", layers(n), (put(jnp.ones((32, 16)), "data", None), put(jnp.ones((16, 16)) * .01, None, "model"))
    if only in (None, "chain"):
        yield "chain", chain(n), (put(jnp.linspace(0., 1., 512).reshape(64, 8), "data", "model"),
                                  put(jnp.ones((64, 8)), "data", "model"))


def seconds(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def measure(name: str, fn, args) -> dict:
    p = trace(fn, *args)
    floor, _ = seconds(lambda: jax.jit(fn).lower(*args).compile())
    p.memo.clear()
    made, view = seconds(lambda: ShardingView(p))
    show, bundle = seconds(view._repr_mimebundle_)
    return {"program": name, "eqns": len(p.eqns), "compile_floor_s": round(floor, 2), "sharding_s": round(made, 2),
            "show_s": round(show, 3), "ratio": round(made / floor, 2), "collectives": len(view.collectives),
            "bytes": len(bundle["text/html"].encode()) + len(bundle["text/plain"].encode())}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--eqns", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--only", choices=("layers", "chain"))
    parser.add_argument("--rounds", type=int, default=1)
    a = parser.parse_args()
    for n in a.eqns:
        for name, fn, args in programs(n, a.only):
            runs = [measure(name, fn, args) for _ in range(a.rounds)]
            best = min(runs, key=lambda r: r["sharding_s"])
            best["compile_floor_s"] = min(r["compile_floor_s"] for r in runs)
            best["ratio"] = round(best["sharding_s"] / best["compile_floor_s"], 2)
            print(json.dumps(best), flush=True)


if __name__ == "__main__":
    main()
