"""Running a traced program on a device: one compile, timed steady-state runs, and each top-level equation
timed on its own beside its cost estimate.  Returns data (``Run``, ``ProfileRow``); ``views.run`` shows it."""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.extend.core as jex
import numpy as np

from jaxprlens.engine.cost import costs
from jaxprlens.engine.devices import DeviceInfo, resolve_device
from jaxprlens.model.program import Lit, Program


def _cost_analysis(compiled) -> dict | None:
    """``compiled.cost_analysis()`` as one dict (older JAX returned a list of dicts), or None."""
    try:
        ca = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - not every backend implements it
        return None
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else None
    return dict(ca) if ca else None


@dataclass
class Run:
    """One compiled program run on a device: its outputs and timings (``views.run.RunResult`` shows it)."""
    outputs: Any                 # the function's own output pytree
    device: DeviceInfo
    compile_time: float          # seconds: lower + compile
    times: list                  # seconds per steady-state run
    median: float
    spread: float                # half the interquartile range of ``times``
    cost_analysis: dict | None = None
    out_paths: list = field(default_factory=list)
    flat_outputs: list = field(default_factory=list, repr=False)
    estimate: Any = None         # our own cost.Cost total, for comparison

    @property
    def repeat(self) -> int:
        return len(self.times)


def _check_args(program: Program):
    if len(program.args) != len(program.invars):
        raise ValueError(f"this program has {len(program.invars)} input(s) but {len(program.args)} recorded "
                         "argument(s); run a program made by trace(fn, *args) (from_jaxpr keeps no arguments)")


MAPPED = ("shard_map", "xla_pmap")     # primitives whose bodies run on several devices at once


def place(program: Program, device, explicit: bool) -> list:
    """The program's arguments on ``device``, once.  Without an explicit device, arrays that are
    already placed (e.g. sharded over a mesh) stay where they are."""
    if not explicit and any(e.primitive in MAPPED for e in program.walk()):
        return list(program.args)          # a shard_map/pmap spans devices: let jax.jit place the args
    out = []
    for a in program.args:
        if not explicit and isinstance(a, jax.Array) and len(a.sharding.device_set) > 1:
            out.append(a)
        else:
            out.append(jax.device_put(a, device))
    return out


def compile_program(program: Program, args: list, device):
    """``jax.jit`` of the closed jaxpr, lowered and compiled once for ``args``.

    Returns (jitted, compiled, seconds).  Calls go through ``jitted``: JAX reuses the executable it has
    just compiled ahead of time, and the jitted function's C++ dispatch is the same path as a user's
    ``jax.jit(fn)(*args)`` (``Compiled.__call__`` adds a Python frame per call).
    """
    jitted = jax.jit(jex.jaxpr_as_fun(program.jaxpr))
    start = time.perf_counter()
    with on_device(device, args):
        compiled = jitted.lower(*args).compile()
    return jitted, compiled, time.perf_counter() - start


def on_device(device, args: list):
    """Where the args live decides the device; without args, ``jax.default_device`` does.  (Set only
    then: the context costs a few hundred ns per call, and must be the same at compile and call time.)"""
    return jax.default_device(device) if not args else contextlib.nullcontext()


def time_calls(call, args: list, repeat: int) -> list:
    """Seconds per call of ``call(*args)``, each waited for with ``block_until_ready``, after one warm-up."""
    jax.block_until_ready(call(*args))
    times = []
    for _ in range(max(int(repeat), 1)):
        start = time.perf_counter()
        jax.block_until_ready(call(*args))
        times.append(time.perf_counter() - start)
    return times


def _stats(times: list) -> tuple[float, float]:
    q1, med, q3 = np.percentile(np.asarray(times), [25, 50, 75])
    return float(med), float(q3 - q1) / 2


def measure(program: Program, device=None, repeat: int = 20, estimate: bool = True) -> Run:
    """Execute ``program`` compiled on ``device`` (see ``resolve_device``) and time ``repeat`` runs."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    dev = resolve_device(device)
    _check_args(program)
    args = place(program, dev, explicit=device is not None)
    jitted, compiled, compile_time = compile_program(program, args, dev)
    with on_device(dev, args):      # the same context as at compile time, so the cache entry matches
        times = time_calls(jitted, args, repeat)
        flat = list(jitted(*args))
    median, spread = _stats(times)
    return Run(outputs=program.unflatten_outputs(flat), device=DeviceInfo.of(dev),
                     compile_time=compile_time, times=times, median=median, spread=spread,
                     cost_analysis=_cost_analysis(compiled), out_paths=list(program.out_paths),
                     flat_outputs=flat, estimate=costs(program).total if estimate else None)


# ---------------------------------------------------------------- profile

@dataclass
class ProfileRow:
    eqn: Any
    estimate: Any                # cost.Cost
    median: float
    spread: float


def _one_eqn_fun(eqn):
    """A function running just ``eqn`` (its literal operands baked in), taking its Var operands."""
    raw = eqn.raw
    lits = {i: a.val for i, a in enumerate(eqn.invars) if isinstance(a, Lit)}
    n = len(eqn.invars)

    def fun(*vals):
        it = iter(vals)
        operands = [lits[i] if i in lits else next(it) for i in range(n)]
        out = raw.primitive.bind(*operands, **raw.params)
        return list(out) if raw.primitive.multiple_results else [out]
    return fun


def measure_each(program: Program, device=None, repeat: int = 20) -> tuple:
    """Time every top-level equation on its own on ``device`` (compiled, warm, median of ``repeat``),
    feeding each the values the previous ones computed.  Returns the whole program's ``Run``, a
    ``ProfileRow`` per equation (with the estimate of ``cost.costs``) and those costs."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    whole = measure(program, device=device, repeat=repeat)
    dev = resolve_device(device)
    env = {}
    for v, a in zip(program.invars, place(program, dev, explicit=device is not None)):
        env[v] = a
    for v, c in zip(program.constvars, program.consts):
        env[v] = jax.device_put(c, dev)
    table_costs = costs(program)
    rows = []
    for eqn in program.eqns:
        ins = [env[a] for a in eqn.invars if not isinstance(a, Lit)]
        jitted = jax.jit(_one_eqn_fun(eqn))
        with on_device(dev, ins):
            times = time_calls(jitted, ins, repeat)      # the warm-up call compiles
            for v, val in zip(eqn.outvars, jitted(*ins)):
                env[v] = val
        median, spread = _stats(times)
        rows.append(ProfileRow(eqn, table_costs.get(eqn.id), median, spread))
    return whole, rows, table_costs
