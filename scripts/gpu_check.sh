#!/usr/bin/env bash
# GPU check for the runner (issue 5): run every seed program with --device gpu (or $1), compare the outputs
# with the CPU's within float32 tolerance, time them, then run the benchmark on that device.
# Installs nothing; needs a jaxlib with the GPU backend already installed.
#   bash scripts/gpu_check.sh [device]      # default: gpu
set -euo pipefail
cd "$(dirname "$0")/.."
DEVICE="${1:-gpu}"
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
export PYTHONPATH="src:tests${PYTHONPATH:+:$PYTHONPATH}"
unset JAX_PLATFORMS

seeds_rc=0
"$PY" - "$DEVICE" <<'PYEOF' || seeds_rc=$?
import sys
import jax
import numpy as np
from jaxprlens import model
from jaxprlens.runner import devices_view, fmt_time, resolve_device, run
from seeds import SEEDS

device = sys.argv[1]
print(devices_view().text())
try:
    resolve_device(device)
except ValueError as e:
    print(f"gpu_check: {e}", file=sys.stderr)
    sys.exit(2)
print(f"\n{'seed':<14} {'max |gpu-cpu|':>14} {'ok':>4} {'cpu median':>11} {'gpu median':>11} {'gpu compile':>12}")
failed = 0
for name, (fn, args) in SEEDS.items():
    p = model.trace(fn, *args)
    cpu, acc = run(p, device="cpu", repeat=20), run(p, device=device, repeat=20)
    diffs, ok = [], True
    for a, b in zip(jax.tree_util.tree_leaves(cpu.outputs), jax.tree_util.tree_leaves(acc.outputs)):
        a, b = np.asarray(a), np.asarray(b)
        diffs.append(float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))) if a.size else 0.0)
        ok &= bool(np.allclose(a, b, rtol=1e-5, atol=1e-5))
    failed += not ok
    print(f"{name:<14} {max(diffs, default=0.0):>14.3g} {'yes' if ok else 'NO':>4} {fmt_time(cpu.median):>11} "
          f"{fmt_time(acc.median):>11} {fmt_time(acc.compile_time):>12}")
print(f"\nran on {acc.device}; {len(SEEDS) - failed} of {len(SEEDS)} seeds equal to the CPU within float32 tolerance")
sys.exit(1 if failed else 0)
PYEOF

if [ "$seeds_rc" -eq 2 ]; then exit 2; fi    # no such device: nothing more to run
echo
bench_rc=0
"$PY" benchmarks/bench_run.py --device "$DEVICE" --rounds 5 --repeat 100 || bench_rc=$?
echo "gpu_check: seeds rc=$seeds_rc, benchmark rc=$bench_rc"
exit $(( seeds_rc || bench_rc ))
