"""The debugger at model size: bytes sent per move, kernel time per move, the recorded replay's size, and
the stepper's history memory per value, on chains of 1,000 and 10,000 elementwise equations.

Goals (issue 13): <= 20 kB per step plus the current values' previews, independent of the program's size;
a recorded 1,000-step replay <= 1 MB.  Bytes are counted where the widget hands a message to its comm
(``Widget._send``), as the JSON the comm writes.
Usage: ``python benchmarks/bench_debugger.py [--eqns 1000 10000]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import tracemalloc

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax.numpy as jnp  # noqa: E402

from bench_stepper import chain  # noqa: E402  (n elementwise eqns over f32[64] values)
from jaxprlens.views.debugger import Debugger  # noqa: E402
from jaxprlens.model import trace  # noqa: E402


def program(n: int):
    return trace(chain(n), jnp.linspace(0., 1., 64), jnp.ones(64))


class Meter:
    """Counts the bytes of every message the widget sends (its comm would write them as JSON)."""

    def __init__(self, widget: Debugger):
        self.sizes: list = []
        widget._send = self._send

    def _send(self, msg, buffers=None):
        self.sizes.append(len(json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode()))


def measure(n: int, moves: int = 50) -> dict:
    p = program(n)
    d = Debugger(p)
    meter = Meter(d)
    t0 = time.perf_counter()
    data, _ = d._repr_mimebundle_()
    bundle_s = time.perf_counter() - t0
    d.press("ready")
    first = meter.sizes[-1]
    step_bytes, step_s, back_bytes, back_s = [], [], [], []
    for _ in range(moves):
        t0 = time.perf_counter()
        d.press("step")
        step_s.append(time.perf_counter() - t0)
        step_bytes.append(meter.sizes[-1])
    for _ in range(moves):
        t0 = time.perf_counter()
        d.press("back")
        back_s.append(time.perf_counter() - t0)
        back_bytes.append(meter.sizes[-1])
    replay = d.replay()
    replay_bytes = len(json.dumps(replay, ensure_ascii=False, separators=(",", ":")).encode())
    # History: run to the end with tracemalloc on and divide what stays allocated by the values written.
    st = d.stepper.reset()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    st.run()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    values = sum(len(e.outvars) for e in p.eqns)
    value_bytes = 64 * 4
    return {"eqns": n, "first": first, "step": max(step_bytes), "back": max(back_bytes),
            "step_ms": 1e3 * statistics.median(step_s), "back_ms": 1e3 * statistics.median(back_s),
            "bundle_s": bundle_s, "html_kb": len(data["text/html"].encode()) / 1e3,
            "replay_kb": replay_bytes / 1e3, "replay_steps": len(replay["steps"]) - 1,
            "history_kib_per_value": grown / values / 1024, "value_kib": value_bytes / 1024}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--eqns", type=int, nargs="+", default=[1000, 10000])
    args = ap.parse_args(argv)
    print(f"{'eqns':>6}{'ready B':>10}{'step B':>8}{'back B':>8}{'step ms':>9}{'back ms':>9}{'bundle s':>10}"
          f"{'html kB':>9}{'replay kB':>11}{'steps':>7}{'hist KiB/value':>16}")
    rows = [measure(n) for n in args.eqns]
    for r in rows:
        print(f"{r['eqns']:>6}{r['first']:>10}{r['step']:>8}{r['back']:>8}{r['step_ms']:>9.1f}{r['back_ms']:>9.1f}"
              f"{r['bundle_s']:>10.2f}{r['html_kb']:>9.0f}{r['replay_kb']:>11.0f}{r['replay_steps']:>7}"
              f"{r['history_kib_per_value']:>16.2f}  (each value's data: {r['value_kib']:.2f} KiB)")
    ok = all(r["step"] <= 20_000 and r["back"] <= 20_000 for r in rows) and \
        all(r["replay_kb"] <= 1000 for r in rows)
    print("goals (<= 20 kB per move, replay <= 1 MB):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
