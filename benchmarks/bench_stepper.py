"""Stepper speed: run() to the end of a 1,000-equation program against JAX's own jaxpr interpreter.

Goals (issue 4): ``run()`` within 1.3x of ``eval_jaxpr`` on the same program; one ``step()`` under 5 ms.
Usage: ``python benchmarks/bench_stepper.py [--eqns 1000] [--repeat 7] [--device cpu]``.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import jax
import jax.numpy as jnp

from jaxprlens.model import trace


def chain(n: int):
    """A program of ``n`` elementwise equations over an f32[64] value (no constant folding)."""
    def fn(x, y):
        ops = (jnp.sin, lambda v: v * y, jnp.cos, lambda v: v + y, jnp.tanh)
        for i in range(n):
            x = ops[i % len(ops)](x)
        return x
    return fn


def evaluator():
    """JAX's interpreter: ``jax.extend.core.jaxpr_as_fun`` or ``jax.core.eval_jaxpr``."""
    import jax.extend.core as jex
    if hasattr(jex, "jaxpr_as_fun"):
        return lambda closed, *args: jex.jaxpr_as_fun(closed)(*args), "jax.extend.core.jaxpr_as_fun"
    return (lambda closed, *args: jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args),
            "jax.core.eval_jaxpr")


def interleaved(fns, repeat: int) -> list:
    """(best, median) seconds of each function, run in turn so that load from others hits both alike."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, ts in zip(fns, times):
            t = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t)
    return [(min(ts), statistics.median(ts)) for ts in times]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eqns", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--device", default=None)
    a = ap.parse_args(argv)

    x, y = jnp.linspace(0., 1., 64), jnp.float32(0.999)
    program = trace(chain(a.eqns), x, y)
    closed = program.jaxpr
    evaluate, eval_name = evaluator()
    stepper = program.stepper(device=a.device)

    def run_stepper():
        stepper.reset()
        stepper.run()
        jax.block_until_ready(stepper.outputs)

    def run_eval():
        jax.block_until_ready(evaluate(closed, *stepper.args))

    run_stepper(), run_eval()                       # compile every primitive once
    ref = evaluate(closed, *stepper.args)
    assert bool(jnp.allclose(stepper.outputs, ref[0], rtol=1e-5)), "stepper and eval_jaxpr disagree"
    (t_eval, m_eval), (t_run, m_run) = interleaved([run_eval, run_stepper], a.repeat)

    stepper.reset()
    steps = []
    for _ in range(min(200, len(program.eqns))):
        t = time.perf_counter()
        stepper.step()
        steps.append(time.perf_counter() - t)
    t_back = time.perf_counter()
    while stepper.back():
        pass
    t_back = (time.perf_counter() - t_back) / max(1, len(steps))

    rows = [
        ("program", f"{len(program.eqns)} eqns, f32[64], {jax.devices()[0].platform}"),
        (f"{eval_name} (best / median)", f"{t_eval * 1e3:8.2f} ms / {m_eval * 1e3:8.2f} ms"),
        ("Stepper.run() (best / median)", f"{t_run * 1e3:8.2f} ms / {m_run * 1e3:8.2f} ms"),
        ("ratio run / eval (best)", f"{t_run / t_eval:8.2f}x   (goal <= 1.30x)"),
        ("one step() median / max", f"{statistics.median(steps) * 1e3:8.3f} ms / {max(steps) * 1e3:8.3f} ms"
                                    "   (goal < 5 ms)"),
        ("one back() mean", f"{t_back * 1e3:8.3f} ms"),
    ]
    width = max(len(k) for k, _ in rows)
    print(f"{'measure':<{width}}  value")
    print(f"{'-' * width}  {'-' * 40}")
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    ok = t_run / t_eval <= 1.3 and statistics.median(steps) < 5e-3
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
