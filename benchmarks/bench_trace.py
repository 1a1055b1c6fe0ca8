"""Tracing speed: ``jaxprlens.trace`` and the table against ``jax.make_jaxpr`` + JAX's printer.

Issue 14's goal: (trace + table) / (make_jaxpr + pretty_print) <= 1.5 on every program.  Also the
stepper's cold (first, in a fresh process) and warm ``run()`` against ``eval_jaxpr``'s on the same program.

    python benchmarks/bench_trace.py [--repeat 7] [--only while] [--no-stepper] [--cold-repeat 3]

Issue 21 adds the real programs (flax, optax, equinox, diffrax: tests/libraries.py's, optax lamb and adamw
updates, a diffrax Tsit5 + PID solve) and prints their median and max ratio.

Every traced call goes through a fresh wrapper function, as a re-run notebook cell does: ``make_jaxpr``
caches its trace per function object, and a cache hit would measure nothing.  Times are medians of
``--repeat`` rounds after a warm-up, with the garbage collector off; each round times JAX and jaxprlens in
turn (alternating which goes first), so that load from other processes hits both alike; the ratios are
medians of each round's own ratio.  The real programs are built anew for every round (a re-run cell defines
its functions again, so ``eqx.filter_jit``'s own trace cache starts empty); ``--reuse`` builds them once.
"""
from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import jax
import jax.numpy as jnp
from jax import lax

import bench_graph
import bench_stepper
import families
from jaxprlens.model import count_eqns, trace

LIMIT = 1.5     # (trace + table) / (make_jaxpr + pretty_print), issue 14
clock = time.perf_counter      # --cpu-time: time.process_time, steadier on a loaded machine


# ---------------------------------------------------------------- programs

def fori(x, y, n):
    """A while loop (traced trip count, so not a scan) whose body has 20 equations."""
    def body(i, c):
        for _ in range(5):
            c = jnp.sin(c) * y + c * 0.5
        return c
    return lax.fori_loop(0, n, body, x)


def _layernorm(x, scale):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + 1e-5) * scale


def _block(p, x):
    h = _layernorm(x, p["ln1"])
    q, k, v = h @ p["wq"], h @ p["wk"], h @ p["wv"]
    t = x.shape[0]
    mask = jnp.tril(jnp.ones((t, t), bool))
    att = jax.nn.softmax(jnp.where(mask, q @ k.T / jnp.sqrt(q.shape[-1]), -1e9), axis=-1)
    x = x + (att @ v) @ p["wo"]
    h = _layernorm(x, p["ln2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def transformer_loss(params, x):
    for p in params:
        x = _block(p, x)
    return jnp.mean(x ** 2)


def transformer_params(d: int = 16, blocks: int = 6):
    keys = iter(jax.random.split(jax.random.key(0), 6 * blocks))

    def w(*s):
        return jax.random.normal(next(keys), s) / s[0] ** 0.5

    return [{"ln1": jnp.ones(d), "ln2": jnp.ones(d), "wq": w(d, d), "wk": w(d, d), "wv": w(d, d),
             "wo": w(d, d), "w1": w(d, 4 * d), "w2": w(4 * d, d)} for _ in range(blocks)]


def flax_train_step():
    """A flax.linen MLP train step with optax adam, or None (with a line) when flax/optax are absent."""
    try:
        import flax.linen as nn
        import optax
    except ImportError as e:
        print(f"skip flax.linen train step: {e.name} is not installed in this environment")
        return None

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            for width in (64, 64):
                x = nn.relu(nn.Dense(width)(x))
            return nn.Dense(10)(x)

    model, tx = MLP(), optax.adam(1e-3)
    x, y = jnp.ones((32, 20)), jnp.zeros((32,), jnp.int32)
    params = model.init(jax.random.key(0), x)
    opt_state = tx.init(params)

    def train_step(params, opt_state, x, y):
        def loss(p):
            logits = model.apply(p, x)
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
        value, grads = jax.value_and_grad(loss)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, value

    return train_step, (params, opt_state, x, y)


def _library(name: str):
    """A case of tests/libraries.py, or None (with a line) when its library is absent."""
    import pytest
    import libraries
    try:
        return libraries.CASES[name]()
    except pytest.skip.Exception as e:
        print(f"skip {name}: {e.msg}")
        return None


def _when_installed(module: str, make):
    """``make()`` (a program and its arguments from ``families.py``), or None where ``module`` is missing."""
    try:
        __import__(module)
    except ImportError:
        print(f"skip {module}: not installed in this environment")
        return None
    return make()


def optax_update(name: str):
    """One ``optax.<name>`` update of an MLP's params (the optimizer's own program, no model)."""
    return _when_installed("optax", lambda: families.optax_update(name))


def diffrax_tsit5_pid():
    """An adaptive diffrax solve: Tsit5 with a PID step-size controller, saving 8 points."""
    return _when_installed("diffrax", families.diffrax_tsit5_pid)


def _flat(n: int):
    x8 = jnp.ones(8)
    return bench_graph.chain(n), (x8, x8)


# label -> () -> (fn, args), or None when it cannot be built here; flat programs from the other benchmarks
CASES = {
    "flat 1k": lambda: _flat(1000),
    "flat 10k": lambda: _flat(10_000),
    "stepper chain 1k": lambda: (bench_stepper.chain(1000), (jnp.linspace(0., 1., 64), jnp.float32(0.999))),
    "while (fori, 20-eqn body)": lambda: (fori, (jnp.ones(8), jnp.ones(8), jnp.int32(100))),
    "transformer grad (6 blocks)": lambda: (jax.grad(transformer_loss), (transformer_params(), jnp.ones((8, 16)))),
    "flax.linen MLP adam step": flax_train_step,
    "optax lamb update": lambda: optax_update("lamb"),
    "optax adamw update": lambda: optax_update("adamw"),
    "diffrax Tsit5 + PID solve": diffrax_tsit5_pid,
}
# the real programs of tests/libraries.py that trace on one device
LIBRARIES = ("nnx_mlp_train_step", "linen_mlp_train_step", "transformer_block_grad", "equinox_mlp_train_step",
             "diffrax_ode_solve")
CASES.update({name: functools.partial(_library, name) for name in LIBRARIES})
REAL = ("flax.linen MLP adam step", "optax lamb update", "optax adamw update", "diffrax Tsit5 + PID solve",
        *LIBRARIES)


def cases(only: str = "") -> dict:
    """``{label: (fn, args)}`` of the programs whose label contains ``only`` (and can be built here)."""
    built = {label: make() for label, make in CASES.items() if only in label}
    return {label: case for label, case in built.items() if case is not None}


# ---------------------------------------------------------------- trace timing

def fresh(fn):
    """A new function object calling ``fn``: defeats make_jaxpr's per-function cache (signature kept)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*args, **kwargs)
    return call


def time_jax(fn, args) -> tuple[float, float]:
    t0 = clock()
    closed = jax.make_jaxpr(fresh(fn))(*args)
    t1 = clock()
    str(closed)
    return t1 - t0, clock() - t1


def time_ours(fn, args) -> tuple[float, float]:
    t0 = clock()
    program = trace(fresh(fn), *args)
    t1 = clock()
    program.table()._repr_mimebundle_()
    return t1 - t0, clock() - t1


def bench_trace(fn, args, repeat: int, make=None) -> dict:
    """Medians of ``repeat`` rounds; with ``make`` (the case's factory), every round traces a newly built
    case, as a re-run cell does: the ``jax.jit``/``eqx.filter_jit`` functions it defines come with empty
    caches, so JAX traces their bodies again instead of re-using the last round's trace."""
    time_jax(fn, args), time_ours(fn, args)          # warm-up: compile helpers, fill library caches
    runs = {"make_jaxpr": [], "pp": [], "trace": [], "table": []}
    gc.collect()
    gc.disable()
    try:
        for i in range(repeat):
            for which in (("jax", "ours") if i % 2 == 0 else ("ours", "jax")):
                if make is not None:          # one new program for each side: neither finds the other's trace
                    gc.enable()
                    fn, args = make()
                    gc.disable()
                if which == "jax":
                    a, b = time_jax(fn, args)
                    runs["make_jaxpr"].append(a), runs["pp"].append(b)
                else:
                    a, b = time_ours(fn, args)
                    runs["trace"].append(a), runs["table"].append(b)
            gc.enable(), gc.collect(), gc.disable()      # collect between rounds, never inside one
    finally:
        gc.enable()
    out = {k: statistics.median(v) for k, v in runs.items()}
    # Ratios pair each round's JAX and jaxprlens times, so that a slow round (load) cancels out.
    base = [m + p for m, p in zip(runs["make_jaxpr"], runs["pp"])]
    out["trace_ratio"] = statistics.median(t / b for t, b in zip(runs["trace"], base))
    out["total_ratio"] = statistics.median((t + u) / b for t, u, b in zip(runs["trace"], runs["table"], base))
    return out


# ---------------------------------------------------------------- stepper cold / warm

def _compile_listener():
    """Counts JAX's compile events (jaxpr trace, MLIR lowering, backend compile) and their seconds."""
    seen: dict = {}

    def listen(event, duration, **_):
        if event.startswith("/jax/core/compile/"):
            n, s = seen.get(event, (0, 0.0))
            seen[event] = (n + 1, s + duration)
    jax.monitoring.register_event_duration_secs_listener(listen)
    return seen


def cold_once(kind: str, label: str) -> dict:
    """In this (fresh) process: trace ``label``, then time the first and a warm run of ``kind``."""
    fn, args = CASES[label]()
    program = trace(fn, *args)
    closed = program.jaxpr
    evaluate, _ = bench_stepper.evaluator()
    seen = _compile_listener()
    if kind == "stepper":
        stepper = program.stepper()

        def go():
            stepper.reset()
            stepper.run()
            jax.block_until_ready(stepper.outputs)
    elif kind == "eval":
        flat = list(program.args)

        def go():
            jax.block_until_ready(evaluate(closed, *flat))
    else:                     # "jit": the whole function compiled as one XLA program (for scale)
        jitted = jax.jit(fn)

        def go():
            jax.block_until_ready(jitted(*args))
    t0 = time.perf_counter()
    go()
    cold = time.perf_counter() - t0
    compiles = dict(seen)
    warm = []
    for _ in range(5):
        t0 = time.perf_counter()
        go()
        warm.append(time.perf_counter() - t0)
    return {"cold": cold, "warm": statistics.median(warm), "compiles": compiles}


def bench_cold(label: str, repeat: int) -> dict:
    """Median cold and warm seconds of eval_jaxpr, the stepper and jax.jit, each cold run in its own process."""
    out = {}
    for kind in ("eval", "stepper", "jit"):
        runs = []
        for _ in range(repeat):
            done = subprocess.run([sys.executable, __file__, "--cold", kind, label], check=True,
                                  capture_output=True, text=True, env=dict(os.environ))
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        runs.sort(key=lambda r: r["cold"])
        out[kind] = runs[len(runs) // 2]
    return out


def _compile_summary(compiles: dict) -> str:
    backend = compiles.get("/jax/core/compile/backend_compile_duration", (0, 0.0))
    lower = compiles.get("/jax/core/compile/jaxpr_to_mlir_module_duration", (0, 0.0))
    return f"{backend[0]} compiles {backend[1]:.2f} s + lowering {lower[1]:.2f} s"


# ---------------------------------------------------------------- main

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="", help="run only programs whose label contains this")
    ap.add_argument("--no-stepper", action="store_true", help="skip the stepper's cold/warm runs")
    ap.add_argument("--cold-repeat", type=int, default=3)
    ap.add_argument("--fresh", action="store_true",
                    help="build every program anew every round (the real programs always are, see --reuse)")
    ap.add_argument("--reuse", action="store_true",
                    help="trace the real programs' functions as built once: library caches (eqx.filter_jit's "
                         "trace) then make both sides' later rounds cheaper, JAX's relatively more")
    ap.add_argument("--cpu-time", action="store_true", help="time tracing in process CPU time, not wall time")
    ap.add_argument("--cold", nargs=2, metavar=("KIND", "LABEL"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.cold:
        print(json.dumps(cold_once(*a.cold)))
        return 0

    global clock
    clock = time.process_time if a.cpu_time else time.perf_counter
    built = ("; each round a freshly built program" if a.fresh else "" if a.reuse
             else "; real programs built anew each round")
    print(f"python {sys.version.split()[0]}, jax {jax.__version__}, {jax.devices()[0].platform}; "
          f"medians of {a.repeat} rounds (ms{', CPU time' if a.cpu_time else ''}{built})")
    selected = cases(a.only)
    head = (f"{'program':<28}{'eqns':>7}{'make_jaxpr':>11}{'pp':>8}{'trace':>9}{'table':>9}"
            f"{'trace/jax':>10}{'+table/jax':>11}")
    print(head)
    ratios: dict = {}
    for label, (fn, args) in selected.items():
        eqns = count_eqns(trace(fn, *args))
        anew = a.fresh or (label in REAL and not a.reuse)     # a re-run cell defines its functions anew
        r = bench_trace(fn, args, a.repeat, CASES[label] if anew else None)
        ratios[label] = r["total_ratio"]
        print(f"{label:<28}{eqns:>7}{r['make_jaxpr'] * 1e3:>11.1f}{r['pp'] * 1e3:>8.1f}{r['trace'] * 1e3:>9.1f}"
              f"{r['table'] * 1e3:>9.1f}{r['trace_ratio']:>10.2f}{r['total_ratio']:>11.2f}", flush=True)
    worst = max(ratios.values(), default=0.0)
    real = [ratios[k] for k in REAL if k in ratios]
    if real:
        print(f"real programs ({len(real)}): median {statistics.median(real):.2f}, max {max(real):.2f} "
              f"(trace + table) / (make_jaxpr + pp)")
    print(f"worst (trace + table) / (make_jaxpr + pp): {worst:.2f} (goal <= {LIMIT})")

    if not a.no_stepper:
        print(f"\nstepper run() against eval_jaxpr: cold = first run in a fresh process "
              f"(median of {a.cold_repeat} processes), warm = median of 5 later runs (ms); "
              f"jit cold = jax.jit(fn)'s first call, for scale")
        print(f"{'program':<28}{'eval cold':>10}{'step cold':>10}{'ratio':>7}{'eval warm':>10}"
              f"{'step warm':>10}{'ratio':>7}{'jit cold':>9}   cold run's compiles: eval | stepper")
        for label in selected:
            r = bench_cold(label, a.cold_repeat)
            e, s, j = r["eval"], r["stepper"], r["jit"]
            print(f"{label:<28}{e['cold'] * 1e3:>10.0f}{s['cold'] * 1e3:>10.0f}{s['cold'] / e['cold']:>7.2f}"
                  f"{e['warm'] * 1e3:>10.1f}{s['warm'] * 1e3:>10.1f}{s['warm'] / e['warm']:>7.2f}"
                  f"{j['cold'] * 1e3:>9.0f}   "
                  f"{_compile_summary(e['compiles'])} | {_compile_summary(s['compiles'])}", flush=True)
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
