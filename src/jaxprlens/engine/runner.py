"""Running a traced program on a device: one compile, timed steady-state runs, and each top-level equation
timed on its own beside its cost estimate.  Returns data (``Run``, ``ProfileRow``); ``views.compiled.run`` shows it.

Timing is bounded: runs stop at ``repeat`` or when a time budget is spent (``BUDGET`` seconds by default),
and timings are summarised as they come (count, median, interquartile range), never all kept."""
from __future__ import annotations

import contextlib
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from jaxprlens.engine.compiled import on_device, place, placed_on, scoped
from jaxprlens.engine.cost import costs, nbytes
from jaxprlens.engine.memory import deaths, device_free_bytes, memory
from jaxprlens.engine.devices import DeviceInfo, resolve_device
from jaxprlens.engine.frames import _bind_params
from jaxprlens.model.program import Lit, Program
from jaxprlens.model.errors import KeyedError, Size

BUDGET = 10.0        # seconds of timing per run() / profile() unless told otherwise
REPEAT = 20          # timed runs per run() / profile() unless told otherwise (or the budget stops them first)
KEPT = 1000          # timings kept to estimate the median and quartiles of a longer series


def _cost_analysis(compiled) -> dict | None:
    """``compiled.cost_analysis()`` as one dict (older JAX returned a list of dicts), or None."""
    try:
        ca = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - not every backend implements it
        return None
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else None
    return dict(ca) if ca else None


def _custom_calls(compiled) -> tuple:
    """The library calls XLA hands work to in the compiled program (``__cublas$gemm``, ...): its cost
    analysis does not see inside them."""
    try:
        text = compiled.as_text()
    except Exception:  # noqa: BLE001 - not every backend prints its executable
        return ()
    return tuple(sorted(set(re.findall(r'custom_call_target="([^"]+)"', text or ""))))


@dataclass(frozen=True)
class Timings:
    """Steady-state runs summarised: how many ran, their median and half their interquartile range (from
    at most ``KEPT`` of them, sampled evenly), how many were asked for, and whether the budget stopped them."""
    count: int
    median: float
    spread: float
    asked: int
    stopped: bool = False


class _Series:
    """Timings added one by one; keeps a fixed-size uniform sample (reservoir, seeded: reproducible)."""

    def __init__(self):
        self.count, self.kept, self._rng = 0, [], random.Random(0)

    def add(self, seconds: float):
        self.count += 1
        if len(self.kept) < KEPT:
            self.kept.append(seconds)
        else:
            j = self._rng.randrange(self.count)
            if j < KEPT:
                self.kept[j] = seconds

    def summary(self, asked: int, stopped: bool) -> Timings:
        q1, med, q3 = np.percentile(np.asarray(self.kept), [25, 50, 75])
        return Timings(self.count, float(med), float(q3 - q1) / 2, asked, stopped)


@dataclass
class Run:
    """One compiled program run on a device: its outputs and timings (``views.compiled.run.RunResult`` shows it)."""
    outputs: Any                 # the function's own output pytree
    device: DeviceInfo
    compile_time: float          # seconds: lower + compile
    timings: Timings             # the steady-state runs, summarised
    cost_analysis: dict | None = None
    out_paths: list = field(default_factory=list)
    flat_outputs: list = field(default_factory=list, repr=False)
    estimate: Any = None         # our own cost.Cost total, for comparison
    budget: float = BUDGET       # seconds the timing could take
    custom_calls: tuple = ()     # library calls in the compiled program (XLA's cost analysis skips them)

    @property
    def median(self) -> float:
        return self.timings.median

    @property
    def spread(self) -> float:
        """Half the interquartile range of the timed runs."""
        return self.timings.spread

    @property
    def repeat(self) -> int:
        """How many timed runs there were (fewer than asked when the budget stopped them)."""
        return self.timings.count


def _check_args(program: Program):
    if len(program.args) != len(program.invars):
        raise KeyedError("run_no_args", n=len(program.invars), k=len(program.args))


MEMORY_SHARE = 0.9      # of a device's free memory, what a run may take


@contextlib.contextmanager
def out_of_memory_said(device):
    """XLA's allocation failure (``RESOURCE_EXHAUSTED``, "out of memory"), raised inside, said as ours: what
    ran out, where, and what to do."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - only an allocation failure is told anew; the rest is raised as is
        text = str(exc)
        if "RESOURCE_EXHAUSTED" not in text and "out of memory" not in text.lower():
            raise
        raise KeyedError("run_out_of_memory", device=str(DeviceInfo.of(device).name),
                         detail=text.strip().splitlines()[0][:300]) from None


def check_fits(need: int, device, key: str, **fields) -> None:
    """Raise ``KeyedError(key)`` (with ``need``, ``free`` and ``fields``) before a run that would allocate more
    than ``device`` has free; nothing where the device does not say."""
    free = device_free_bytes(device)
    if free is not None and need > free * MEMORY_SHARE:
        raise KeyedError(key, need=Size(need, "B"), free=Size(free, "B"), device=str(DeviceInfo.of(device).name),
                         **fields)


def memory_analysis(compiled) -> dict | None:
    """XLA's ``memory_analysis()`` of ``compiled`` as bytes: argument, output, temporary and alias; None where the
    backend does not say."""
    try:
        stats = compiled.memory_analysis()
    except Exception:  # noqa: BLE001 - not every backend implements it
        return None
    if stats is None:
        return None
    return {k: int(getattr(stats, f"{k}_size_in_bytes", 0) or 0) for k in ("argument", "output", "temp", "alias")}


def compiled_bytes(compiled) -> int | None:
    """The bytes a run of ``compiled`` allocates beside its arguments (outputs and temporaries, XLA's
    ``memory_analysis``), or None where the backend does not say."""
    stats = memory_analysis(compiled)
    return None if stats is None else stats["output"] + stats["temp"] - stats["alias"]


def _check(repeat: int, budget: float):
    if repeat < 1:
        raise KeyedError("run_repeat", repeat=repeat)
    if not budget > 0:
        raise KeyedError("run_budget", budget=budget)


def time_calls(call, args: list, repeat: int, budget: float = BUDGET) -> Timings:
    """Time ``call(*args)`` after one warm-up, each call waited for with ``block_until_ready``: ``repeat``
    calls, or fewer when ``budget`` seconds are spent (at least one is timed)."""
    jax.block_until_ready(call(*args))
    series, asked = _Series(), max(int(repeat), 1)
    end = time.perf_counter() + budget
    while True:
        start = time.perf_counter()
        jax.block_until_ready(call(*args))
        now = time.perf_counter()
        series.add(now - start)
        if series.count >= asked:
            return series.summary(asked, stopped=False)
        if now >= end:
            return series.summary(asked, stopped=True)


def measure(program: Program, device=None, repeat: int = REPEAT, estimate: bool = True,
            budget: float = BUDGET) -> Run:
    """Execute ``program`` compiled on ``device`` (see ``resolve_device``) and time ``repeat`` runs, or as
    many as fit in ``budget`` seconds."""
    _check(repeat, budget)
    _check_args(program)
    with out_of_memory_said(resolve_device(device)):     # the program's one compile, shared with --fusion, --memory
        made = scoped(program, device)
    jitted, compiled, compile_time, args, dev = made.call, made.compiled, made.seconds, made.args, made.device
    need = compiled_bytes(compiled)
    if need is not None:
        check_fits(need, dev, "run_too_big")
    with on_device(dev, [a for a in args if isinstance(a, jax.Array)]), out_of_memory_said(dev):   # as compiled
        timings = time_calls(jitted, args, repeat, budget)
        flat = list(jitted(*args))
    ca = _cost_analysis(compiled)
    outputs = program.unflatten_outputs(flat)     # what the call returns (a jit's body: not its state too)
    if program.outer is not None:
        flat = jax.tree_util.tree_leaves(outputs)
    return Run(outputs=outputs, device=DeviceInfo.of(dev), compile_time=compile_time,
               timings=timings, cost_analysis=ca, out_paths=list(program.returned_paths), flat_outputs=flat,
               estimate=costs(program).total if estimate else None, budget=budget,
               custom_calls=_custom_calls(compiled) if ca else ())


# ---------------------------------------------------------------- profile

@dataclass
class ProfileRow:
    eqn: Any
    estimate: Any                # cost.Cost
    timings: Timings | None      # None: not timed, the budget was spent before this equation

    @property
    def median(self) -> float | None:
        return self.timings.median if self.timings else None

    @property
    def spread(self) -> float | None:
        return self.timings.spread if self.timings else None


def _one_eqn_fun(eqn):
    """A function running just ``eqn`` (its literal operands baked in), taking its Var operands.  It binds
    as ``eval_jaxpr`` does (``get_bind_params``: a custom_jvp/vjp call gets its functions back) under the
    equation's context, so any top-level equation the program runs can run alone."""
    raw = eqn.raw
    lits = {i: a.val for i, a in enumerate(eqn.invars) if isinstance(a, Lit)}
    n = len(eqn.invars)
    params = _bind_params(raw.primitive, raw.params)

    def fun(*vals):
        it = iter(vals)
        operands = [lits[i] if i in lits else next(it) for i in range(n)]
        with raw.ctx.manager:
            out = raw.primitive.bind(*operands, **params)
        return list(out) if raw.primitive.multiple_results else [out]
    return fun


def measure_each(program: Program, device=None, repeat: int = REPEAT, budget: float = BUDGET) -> tuple:
    """Time every top-level equation on its own on ``device`` (compiled, warm, median of ``repeat``),
    feeding each the values the previous ones computed.  Returns the whole program's ``Run``, a
    ``ProfileRow`` per equation (with the estimate of ``cost.costs``) and those costs.

    The whole takes about ``budget`` seconds at most: each measurement gets an even share of the time
    left once the compiles still to come are set aside, and when it is spent the remaining equations are
    not timed (their rows say so)."""
    _check(repeat, budget)
    made = memory(program)
    biggest = max(((nbytes(v.aval), e) for e in program.eqns for v in e.outvars), default=(0, None),
                  key=lambda x: x[0])
    if biggest[1] is not None:           # each equation's results are made whole (no fusion across equations)
        check_fits(made.peak - made.base, resolve_device(device), "profile_too_big", id=biggest[1].id,
                   value=Size(biggest[0], "B"))
    end = time.perf_counter() + budget
    eqns = list(program.eqns)
    whole = measure(program, device=device, repeat=repeat, budget=budget / (len(eqns) + 1))
    whole.budget = budget
    overhead = whole.compile_time       # seconds per equation outside its timed runs (compile, warm-up)
    dev = resolve_device(device)
    env, args = {}, place(program, dev, explicit=device is not None)
    dev = placed_on(args, dev)
    for v, a in zip(program.invars, args):
        env[v] = a
    for v, c in zip(program.constvars, program.consts):
        env[v] = jax.device_put(c, dev)
    table_costs = costs(program)
    rows, dies = [], deaths(program)
    for i, eqn in enumerate(eqns):
        left = end - time.perf_counter()
        if left <= 0:
            rows.extend(ProfileRow(e, table_costs.get(e.id), None) for e in eqns[i:])
            break
        ins = [env[a] for a in eqn.invars if not isinstance(a, Lit)]
        jitted = jax.jit(_one_eqn_fun(eqn))
        share = max(left - overhead * (len(eqns) - i), 0.0) / (len(eqns) - i)
        start = time.perf_counter()
        with on_device(dev, ins), out_of_memory_said(dev):
            timings = time_calls(jitted, ins, repeat, share)      # the warm-up call compiles
            for v, val in zip(eqn.outvars, jitted(*ins)):
                env[v] = val
        del ins
        for v in dies[i]:                # what no later equation reads goes now: the program's live values only
            env.pop(v, None)
        spent = time.perf_counter() - start - timings.count * timings.median
        overhead += (max(spent, 0.0) - overhead) / (i + 2)      # a running mean, the whole's compile first
        rows.append(ProfileRow(eqn, table_costs.get(eqn.id), timings))
    return whole, rows, table_costs
