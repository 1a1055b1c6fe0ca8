"""The fusion map and memory_analysis, dumped as JSON per program, to show a speed change kept them the same.

``python benchmarks/fusion_same.py OUT.json [--eqns 1000] [--only chain]``: for the test seeds, the fusion tests'
programs and the bench programs (``bench_fusion.programs``) it writes every kernel (name, kind, computation,
equations, FLOPs, bytes, saved bytes), ``of``, ``removed``, ``inlined``, ``spread``, ``absorbed``, ``n_eqns``, the
hash of the compiled HLO's computations, and ``memory(program, compiled=True)``'s totals.  Run it before and
after a change and compare the files (``cmp``): the same bytes, the same maps."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import jaxprlens
from jaxprlens.engine.fusion import fusion_map, with_compiled
from jaxprlens.engine.memory import memory


def _computations(hlo: str) -> str:
    """The HLO's computations, without the module's tables of source files and lines before them (they name where
    this checkout lies and our own lines: they change with any edit of the code that compiles)."""
    at = hlo.find("\n%")
    return hlo[at:] if at >= 0 else hlo


def dump(program) -> dict:
    m = fusion_map(program)
    mem = with_compiled(memory(program), program)
    return {"kernels": [[k.name, k.kind, k.computation, k.eqns, k.flops, k.bytes, k.saved] for k in m.kernels],
            "of": m.of, "removed": m.removed, "inlined": m.inlined, "spread": m.spread, "absorbed": m.absorbed,
            "n_eqns": m.n_eqns, "hlo": hashlib.sha256(_computations(m.hlo).encode()).hexdigest(),
            "memory": [mem.live, mem.peak, mem.peak_eqn, mem.base, mem.compiled]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--eqns", type=int, nargs="*", default=[1000])
    ap.add_argument("--only", nargs="*", default=["chain", "layers"], help="the bench programs dumped")
    opts = ap.parse_args()
    from test_fusion import PROGRAMS
    from bench_fusion import programs
    out = {name: dump(jaxprlens.trace(fn, *args)) for name, (fn, args) in PROGRAMS.items()}
    for n in opts.eqns:
        for name, p in programs(n):
            if name in opts.only:
                out[f"{name}{n}"] = dump(p)
    with open(opts.out, "w") as f:
        json.dump(out, f, sort_keys=True, indent=0)


if __name__ == "__main__":
    main()
