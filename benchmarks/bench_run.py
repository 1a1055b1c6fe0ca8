"""Steady-state time of ``program.run()`` against ``jax.jit(fn)(*args)`` on the same device-resident inputs.

    python benchmarks/bench_run.py [--device cpu|gpu|gpu:1] [--repeat 200] [--rounds 5]

Each round times both alternately (``block_until_ready`` per call); the table shows the best median over
rounds and the ratio run / jit (target: at most 1.05).  Exits 1 when a ratio is above --limit.
"""
from __future__ import annotations

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))

from jaxprlens import model
from jaxprlens.engine.devices import resolve_device
from jaxprlens.engine.runner import place, time_calls
from jaxprlens.views.compiled.run import fmt_time


def mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def elementwise(x):
    return jnp.sum(jnp.sin(x) * 3.0 + x)


def scan_sum(xs):
    return lax.scan(lambda c, x: (c + x * x, c), 0.0, xs)


def cases():
    from seeds import SEEDS
    rng = np.random.default_rng(0)

    def f32(*s):
        return rng.standard_normal(s).astype(np.float32)

    out = {name: SEEDS[name] for name in ("func1", "func11", "func12")}
    out["elementwise 1M"] = (elementwise, (f32(1_000_000),))
    out["mlp 512"] = (mlp, (f32(256, 512), f32(512, 512), f32(512, 128)))
    out["scan 1000"] = (scan_sum, (f32(1000),))
    return out


def bench(fn, args, device, repeat: int, rounds: int) -> tuple[float, float]:
    program = model.trace(fn, *args)
    dev = resolve_device(device)
    placed = place(program, dev, explicit=True)
    pos, kw = jax.tree_util.tree_unflatten(program.in_tree, placed)
    direct = jax.jit(fn)
    best_run, best_jit = float("inf"), float("inf")
    call = direct if not kw else (lambda *a: direct(*a, **kw))
    for i in range(rounds):
        # Alternate which goes first: the machine may be shared, and load drifts.
        for which in (("jit", "run") if i % 2 == 0 else ("run", "jit")):
            if which == "jit":
                best_jit = min(best_jit, time_calls(call, list(pos), repeat).median)
            else:
                best_run = min(best_run, program.run(device=device, repeat=repeat).median)
    return best_run, best_jit


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--repeat", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--limit", type=float, default=1.05)
    opts = ap.parse_args(argv)
    dev = resolve_device(opts.device)
    print(f"device {dev.platform}:{dev.id} ({dev.device_kind}), jax {jax.__version__}, "
          f"best of {opts.rounds} rounds x {opts.repeat} calls")
    print(f"{'program':<16} {'program.run()':>14} {'jax.jit(fn)':>14} {'ratio':>7}")
    worst = 0.0
    for name, (fn, args) in cases().items():
        r, j = bench(fn, args, opts.device, opts.repeat, opts.rounds)
        ratio = r / j
        worst = max(worst, ratio)
        print(f"{name:<16} {fmt_time(r):>14} {fmt_time(j):>14} {ratio:>7.3f}")
    print(f"worst ratio {worst:.3f} (limit {opts.limit})")
    return 0 if worst <= opts.limit else 1


if __name__ == "__main__":
    sys.exit(main())
