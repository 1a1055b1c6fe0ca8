"""Every small and larger bench program's table, written out, to show a speed change kept its outputs the same.

``python benchmarks/table_same.py OUT.txt``: for the programs of ``bench_small.programs()`` (the first programs
people try, tests/seeds.py's, tests/corpus.py's) and ``bench_trace.cases()`` (flat, loop, transformer and
library programs), in English and Chinese, without and with the cost column (not for 10k equations), it writes
``table.text()`` and every part of ``table._repr_mimebundle_()``.  Run it before and after a change and compare
the files (``cmp``): the same bytes, the same tables (the stored course notebooks compare them too)."""
from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import bench_small
import bench_trace
from jaxprlens.model import trace


def main(out_path: str) -> int:
    progs = {k: (fn, args) for k, (fn, args, _) in bench_small.programs().items()}
    progs.update({f"trace {k}": v for k, v in bench_trace.cases().items()})
    with open(out_path, "w") as out:
        for label, (fn, args) in progs.items():
            program = trace(fn, *args)
            for lang in ("en", "zh"):
                for cost in (None, True):
                    if cost and "10k" in label:
                        continue
                    table = program.table(lang=lang, cost=cost)
                    bundle = table._repr_mimebundle_()
                    out.write(f"=== {label} {lang} {cost}\n{table.text()}\n")
                    for kind in sorted(bundle):
                        value = bundle[kind]
                        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
                        out.write(f"--- {kind}\n{text}\n")
            print(label, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
