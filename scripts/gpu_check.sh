#!/usr/bin/env bash
# GPU check (issues 5 and 22): say which of jaxprlens's dependencies are here, run every seed program with
# --device gpu (or $1) and compare its outputs with the CPU's within float32 tolerance, time them, run the
# run-vs-jit benchmark on that device, each compiled kernel's profiled time (--profile --fusion) with a trace
# recorded for tests/test_kerneltime.py, and, with --suite, the unit suite there (JAX_PLATFORMS unset).
# Installs nothing and needs no network; a GPU machine may have JAX with CUDA and none of IPython,
# ipywidgets, anywidget, graphviz-pure or nbval: each missing one is named with what needs it, and the
# parts that can run without it still run.
#   bash scripts/gpu_check.sh [device] [--suite]      # default device: gpu
# Exit status: 0 all ran and agreed; 1 a seed or benchmark or test failed; 2 no such device here;
# 3 JAX or jaxprlens itself cannot be imported.
set -uo pipefail
cd "$(dirname "$0")/.."
DEVICE=gpu
SUITE=0
for arg in "$@"; do
  case "$arg" in
    --suite) SUITE=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) DEVICE="$arg" ;;
  esac
done
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
export PYTHONPATH="src:tests${PYTHONPATH:+:$PYTHONPATH}"
unset JAX_PLATFORMS
export XLA_PYTHON_CLIENT_PREALLOCATE=false    # several processes share the GPU (pytest -n, the benchmark)

# ------------------------------------------------------------------ what is here
missing_file=$(mktemp)
trap 'rm -f "$missing_file"' EXIT
"$PY" - "$missing_file" <<'PYEOF'
import importlib.util
import sys

# (module, what needs it, how to get it)
REQUIRED = [("jax", "everything", "pip install 'jax[cuda12]' (or 'jax' for CPU only)"),
            ("numpy", "everything", "pip install numpy")]
OPTIONAL = [
    ("IPython", "the %%jaxpr magic; tests/test_magic.py and most view tests", "pip install ipython"),
    ("ipywidgets", "the live debugger (--debug)", "pip install ipywidgets"),
    ("anywidget", "the live debugger (--debug)", "pip install 'anywidget>=0.11,<0.12'"),
    ("graphviz", "graph views (DOT building)", "pip install graphviz"),
    ("ipykernel", "the course notebooks; the kernel tests in tests/test_magic.py", "pip install ipykernel"),
    ("jupyter_client", "the kernel tests in tests/test_magic.py", "pip install jupyter_client"),
    ("nbval", "the course under pytest --nbval", "pip install nbval"),
    ("pytest", "the unit suite (--suite)", "pip install pytest"),
    ("bs4", "HTML structure tests", "pip install beautifulsoup4"),
    ("absl", "jax.experimental.roofline's cost rules (ours stand in)", "pip install absl-py"),
]


def here(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


missing = []
for module, why, get in REQUIRED:
    if not here(module):
        print(f"gpu_check: {module} is missing; it is needed for {why}: {get}", file=sys.stderr)
        sys.exit(3)
import jax  # noqa: E402

print(f"python {sys.version.split()[0]}, jax {jax.__version__}, default backend {jax.default_backend()}")
try:
    from jaxprlens.views.graph.render import RenderError, find_renderer
except Exception as e:  # noqa: BLE001 - say why jaxprlens itself cannot load, not a traceback
    print(f"gpu_check: jaxprlens cannot be imported from src/: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(3)
for module, why, get in OPTIONAL:
    if not here(module):
        missing.append(module)
        print(f"  missing {module}: needed for {why} ({get})")
try:
    name, exe = find_renderer()
    print(f"  graph renderer: {name} ({exe})")
except RenderError as e:
    missing.append("graphviz-pure")
    print(f"  missing graphviz-pure: needed for graph SVGs and the graph tests ({e})")
print("  all optional dependencies here" if not missing else
      f"  {len(missing)} missing: the parts that need them are skipped, the rest still runs")
with open(sys.argv[1], "w") as f:
    f.write("\n".join(missing))
PYEOF
deps_rc=$?
if [ "$deps_rc" -ne 0 ]; then exit "$deps_rc"; fi
echo

# ------------------------------------------------------------------ the seeds on the device, against the CPU
seeds_rc=0
"$PY" - "$DEVICE" <<'PYEOF' || seeds_rc=$?
import sys

import jax
import numpy as np

from jaxprlens import model
from jaxprlens.engine.devices import resolve_device
from jaxprlens.views.compiled.run import devices_view, fmt_time, run
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

# ------------------------------------------------------------------ --profile --fusion on the device (issue 30)
# Each compiled kernel's own time, read from the profiler's device planes (never run on a GPU before): a
# fori_loop + cond and an MLP; says how many kernels were measured and how their sum compares with the run's
# median; then records a trace of the first (tests/traces/record.py DEVICE) for tests/test_kerneltime.py.
echo
profile_rc=0
"$PY" - "$DEVICE" <<'PYEOF' || profile_rc=$?
import sys

import jax
import jax.numpy as jnp

sys.path.insert(0, "tests/traces")
import jaxprlens  # noqa: E402
from record import ARGS, loop_cond  # noqa: E402
from jaxprlens.views.compiled.fusion import FusionView  # noqa: E402


def mlp(x, ws):
    for w in ws:
        x = jnp.tanh(x @ w)
    return x


device = sys.argv[1]
cases = {"loop_cond": (loop_cond, ARGS),
         "mlp": (mlp, (jnp.ones((256, 512)), [jnp.ones((512, 512)) * .01] * 4))}
bad = 0
for name, (fn, args) in cases.items():
    view = FusionView(jaxprlens.trace(fn, *args), device=device, profile=True, repeat=20)
    print(view.text())
    timed = [k for k in view.kernels if k.time is not None]
    total = sum(k.time for k in timed)
    print(f"gpu_check: {name}: {len(timed)} of {len(view.kernels)} kernels measured, {total * 1e6:.1f} us per run "
          f"in all")
    bad += not timed
sys.exit(1 if bad else 0)
PYEOF
"$PY" tests/traces/record.py "$DEVICE" || profile_rc=$?

# ------------------------------------------------------------------ the unit suite there (--suite)
suite_rc=0
if [ "$SUITE" -eq 1 ]; then
  echo
  if grep -qx pytest "$missing_file"; then
    echo "gpu_check: the unit suite needs pytest (pip install pytest); not run"
    suite_rc=1
  else
    # Test files that import a missing module cannot even be collected: leave them out and say which.
    ignore=()
    while read -r module; do
      [ -z "$module" ] && continue
      [ "$module" = graphviz-pure ] && continue        # graph tests then report the renderer's own message
      for f in $(grep -lE "^(import|from) $module\b" tests/test_*.py 2>/dev/null); do
        ignore+=("--ignore=$f")
        echo "gpu_check: leaving out $f (it imports $module, missing here)"
      done
    done < "$missing_file"
    "$PY" -m pytest -q -p no:cacheprovider --continue-on-collection-errors tests --ignore=tests/browser \
      "${ignore[@]}" || suite_rc=$?
  fi
fi
summary="gpu_check: seeds rc=$seeds_rc, benchmark rc=$bench_rc, kernel profile rc=$profile_rc"
[ "$SUITE" -eq 1 ] && summary="$summary, suite rc=$suite_rc"
echo "$summary"
exit $(( seeds_rc || bench_rc || profile_rc || suite_rc ))
