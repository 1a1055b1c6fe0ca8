"""Tracing speed on small programs: ``jaxprlens.trace`` + the table against ``jax.make_jaxpr`` + JAX's printer.

Issue 27 item 6: (trace + table) / (make_jaxpr + str(jaxpr)) <= 1.5 on every program, small ones included,
reported as median / p90 / max over a set of small and library programs: the first things people try
(``jnp.sin(x) * 2``, a softmax, an MLP layer, a scan, a cond, a while, grad of a small loss), the seeds of
tests/seeds.py and the programs of tests/corpus.py; ``--libraries`` adds tests/libraries.py's real programs.

    python benchmarks/bench_small.py [--repeat 7] [--only soft] [--cpu-time] [--libraries] [--profile N]

Each program is timed as bench_trace.py times it (a fresh wrapper function every round, so that make_jaxpr's
cache never hits; the garbage collector off inside a round; JAX and jaxprlens in turn, alternating which goes
first), its rounds interleaved with every other program's (round 1 of all, then round 2 of all, ...: a burst
of load elsewhere on the machine costs one round of several programs, not every round of one); the table is
``program.table()._repr_mimebundle_()``, text and HTML, as the magic shows it.  A
program's ratio is best-of-``--repeat``: (best trace + best table) / (best make_jaxpr + best print).  The
spread column is the ratio of each round's pair, max / min, as an honest measure of the noise on a loaded
machine.  ``--profile N`` runs cProfile over the N worst programs' jaxprlens side and prints the top costs.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

import jax
import jax.numpy as jnp
from jax import lax

import bench_trace
from jaxprlens.model import count_eqns, trace

LIMIT = 1.5


# ---------------------------------------------------------------- first programs people try

def sin_times_two(x):
    return jnp.sin(x) * 2


def softmax(x):
    e = jnp.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def mlp_layer(w, b, x):
    return jax.nn.relu(x @ w + b)


def cumsum_scan(xs):
    return lax.scan(lambda c, x: (c + x, c), 0.0, xs)


def abs_cond(x):
    return lax.cond(x.sum() > 0, lambda v: v, lambda v: -v, x)


def halve_while(x):
    return lax.while_loop(lambda v: v.sum() > 1.0, lambda v: v / 2, x)


def small_loss(w, x, y):
    return jnp.mean((jnp.tanh(x @ w) - y) ** 2)


def jit_inside(x):
    return jax.jit(lambda v: jnp.cos(v) + 1)(x) * 3


_X8, _M = jnp.linspace(-1.0, 1.0, 8), jnp.ones((4, 8))
FIRST = {
    "jnp.sin(x) * 2": (sin_times_two, (_X8,)),
    "softmax": (softmax, (_M,)),
    "MLP layer": (mlp_layer, (jnp.ones((8, 16)), jnp.zeros(16), _M)),
    "scan (cumsum)": (cumsum_scan, (_X8,)),
    "cond": (abs_cond, (_X8,)),
    "while": (halve_while, (_X8,)),
    "grad of a small loss": (jax.grad(small_loss), (jnp.ones((8, 3)), _M, jnp.zeros((4, 3)))),
    "jit inside": (jit_inside, (_X8,)),
    "vmap of a dot": (jax.vmap(jnp.dot), (_M, _M)),
}


def programs(only: str = "", libraries: bool = False) -> dict:
    """``{label: (fn, args, make)}``: ``make`` rebuilds a library case each round (None: reuse fn)."""
    import corpus
    import seeds
    out = {k: (fn, args, None) for k, (fn, args) in FIRST.items()}
    out.update({f"seed {k}": (fn, args, None) for k, (fn, args) in seeds.SEEDS.items()})
    out.update({f"corpus {k}": (fn, args, None) for k, (fn, args) in corpus.CORPUS.items()})
    if libraries:
        for name in bench_trace.LIBRARIES:
            case = bench_trace.CASES[name]()
            if case is not None:
                out[f"library {name}"] = (*case, bench_trace.CASES[name])
    return {k: v for k, v in out.items() if only in k}


# ---------------------------------------------------------------- timing

def sides(case: tuple, which: str) -> tuple:
    """``(fn, args)`` of a case for ``which`` side: a case is ``(fn, args)``, or ``(fn, args, (jax_fn,
    jax_args))`` when JAX's side must be written otherwise (``make_jaxpr`` cannot take a leaf that is no array,
    which ``trace`` holds fixed: JAX's side closes over it)."""
    return case[2] if which == "jax" and len(case) > 2 else case[:2]


def _round(fn, args, make, first: str, jx: list, ours: list):
    """One round of a program: JAX's side and ours, ``first`` going first, the collector off meanwhile."""
    gc.disable()
    try:
        for which in ((first, "ours" if first == "jax" else "jax")):
            if make is not None:
                gc.enable()
                fn, args = sides(make(), which)
                jax.block_until_ready(args)       # its set-up's computations done before the clock starts
                gc.disable()
            (jx if which == "jax" else ours).append(
                (bench_trace.time_jax if which == "jax" else bench_trace.time_ours)(fn, args))
    finally:
        gc.enable()


def best_of_all(progs: dict, repeat: int, report=None) -> dict:
    """``{label: result}``: best of ``repeat`` rounds of each side of every program in ``progs`` (``{label:
    (fn, args, make)}``), and each round's paired ratio (for the spread).  The rounds are interleaved: round
    ``i`` of every program, then round ``i + 1`` of every program, so that a burst of load from elsewhere on
    the machine (a second or two) slows one round of many programs, which best-of drops, not every round of
    one program.  ``report(label, result)`` is called as each program's last round ends."""
    times = {label: ([], []) for label in progs}
    for fn, args, make in progs.values():
        case = (fn, args) if make is None else make()
        bench_trace.time_jax(*sides(case, "jax")), bench_trace.time_ours(*sides(case, "ours"))     # warm-up
    for i in range(repeat):
        for label, (fn, args, make) in progs.items():
            gc.collect()
            _round(fn, args, make, "jax" if i % 2 == 0 else "ours", *times[label])
            if i == repeat - 1 and report is not None:
                report(label, _result(*times[label]))
    return {label: _result(jx, ours) for label, (jx, ours) in times.items()}


def best_of(fn, args, repeat: int, make=None) -> dict:
    """Best of ``repeat`` rounds of each side of one program (and each round's paired ratio, for the spread)."""
    return best_of_all({"": (fn, args, make)}, repeat)[""]


def _result(jx: list, ours: list) -> dict:
    mj, pp = min(a for a, _ in jx), min(b for _, b in jx)
    tr, tb = min(a for a, _ in ours), min(b for _, b in ours)
    paired = [(a + b) / (c + d) for (a, b), (c, d) in zip(ours, jx)]
    return {"make_jaxpr": mj, "pp": pp, "trace": tr, "table": tb, "ratio": (tr + tb) / (mj + pp),
            "spread": max(paired) / min(paired)}


def percentile(values, q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation, as numpy's default."""
    s = sorted(values)
    k = (len(s) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def profile(label: str, fn, args, rounds: int = 20, top: int = 25) -> str:
    """cProfile of ``rounds`` trace + table of one program (jaxprlens's side), by cumulative time."""
    prof = cProfile.Profile()
    for _ in range(rounds):
        prof.enable()
        bench_trace.time_ours(fn, args)
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return f"== profile: {label}\n{buf.getvalue()}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="")
    ap.add_argument("--cpu-time", action="store_true", help="time in process CPU time, not wall time")
    ap.add_argument("--libraries", action="store_true", help="add tests/libraries.py's real programs")
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile the N worst programs")
    a = ap.parse_args(argv)
    bench_trace.clock = time.process_time if a.cpu_time else time.perf_counter
    print(f"python {sys.version.split()[0]}, jax {jax.__version__}, {jax.devices()[0].platform}; "
          f"best of {a.repeat} rounds (ms{', CPU time' if a.cpu_time else ''})")
    print(f"{'program':<34}{'eqns':>6}{'make_jaxpr':>11}{'pp':>7}{'trace':>8}{'table':>8}{'ratio':>7}"
          f"{'spread':>8}")
    progs = programs(a.only, a.libraries)
    eqns = {label: count_eqns(trace(fn, *args)) for label, (fn, args, _) in progs.items()}

    def report(label, r):
        print(f"{label:<34}{eqns[label]:>6}{r['make_jaxpr'] * 1e3:>11.2f}{r['pp'] * 1e3:>7.2f}"
              f"{r['trace'] * 1e3:>8.2f}{r['table'] * 1e3:>8.2f}{r['ratio']:>7.2f}{r['spread']:>8.2f}", flush=True)
    best = best_of_all(progs, a.repeat, report)
    results = {label: (best[label], fn, args) for label, (fn, args, _) in progs.items()}
    ratios = [r["ratio"] for r, _, _ in results.values()]
    spreads = [r["spread"] for r, _, _ in results.values()]
    worst = max(ratios, default=0.0)
    if ratios:
        print(f"{len(ratios)} programs, (trace + table) / (make_jaxpr + print): median "
              f"{statistics.median(ratios):.2f}, p90 {percentile(ratios, 0.9):.2f}, max {worst:.2f} "
              f"(goal <= {LIMIT}); round-to-round spread median {statistics.median(spreads):.2f}, "
              f"max {max(spreads):.2f}")
    for label in sorted(results, key=lambda k: -results[k][0]["ratio"])[:a.profile]:
        _, fn, args = results[label]
        print(profile(label, fn, args))
    return 0 if worst <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main())
