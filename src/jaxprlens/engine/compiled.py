"""The program compiled once: every engine that runs or reads the compiled program (``--run``, ``--profile``'s whole
run, ``--fusion``, ``--memory``'s XLA figures, ``--sharding``) shares one compile per program and device.

What is compiled is the program with each equation (at every depth) under a name scope of its own: its id as a scope
name (``e3``, ``e2_body_1``) added to the equation's name stack.  Name scopes are metadata only (XLA keeps them in
each instruction's ``op_name``), so the executable runs as ``jax.jit`` of the plain program does, and the fusion
map reads which equation each instruction comes from.  The compile is kept in ``program.memo`` under a key of what it
depends on (the device, whether it was asked for, the JAX settings read when lowering): XLA's compile is most of
each view's time (a second at a 300-equation train step, a minute at 10,000 equations; benchmarks/bench_fusion.py).
Every compile goes through ``compile_lowered``: the one place a compile happens (tests count compiles there)."""
from __future__ import annotations

import contextlib
import glob
import os
import re
import tempfile
import time
from dataclasses import dataclass

import jax
import jax.extend.core as jex

from jaxprlens.engine.devices import resolve_device
from jaxprlens.model.program import Program

MAPPED = ("shard_map", "xla_pmap")     # primitives whose bodies run on several devices at once
SHARDED = ("sharding_constraint",)     # primitives that place their result over devices


# ---------------------------------------------------------------- where the arguments go

def _spread(program: Program) -> bool:
    """Whether ``program`` places values over devices itself: a shard_map/pmap, a sharding constraint, or a
    jit with ``in_shardings``/``out_shardings``."""
    for e in program.walk():
        if e.primitive in MAPPED or e.primitive in SHARDED:
            return True
        params = getattr(e.raw, "params", {})
        for key in ("in_shardings", "out_shardings"):
            if any(isinstance(s, jax.sharding.Sharding) for s in params.get(key, ())):
                return True
    return False


def _placed(a) -> bool:
    """An argument the caller put somewhere already: committed to a device, or sharded over several."""
    return isinstance(a, jax.Array) and (len(a.sharding.device_set) > 1 or getattr(a, "committed", False))


def place(program: Program, device, explicit: bool) -> list:
    """The program's arguments on ``device``, once.  Without an explicit device they go where ``jax.jit``
    would put them: when an argument is already placed elsewhere (sharded over a mesh, committed to another
    device) or the program places values itself (shardings, shard_map), every argument stays as given and
    ``jax.jit`` places the plain ones beside the sharded ones; otherwise all go to ``device``."""
    args = list(program.args)
    if not explicit and (any(_placed(a) and a.sharding.device_set != {device} for a in args)
                         or _spread(program)):
        return args
    return [jax.device_put(a, device) for a in args]


def placed_on(args: list, device):
    """The device a run on ``args`` (as ``place`` left them) reports: the one device an argument was committed
    to, else ``device`` (a run over a mesh reports the default device, as before)."""
    for a in args:
        if _placed(a) and len(a.sharding.device_set) == 1:
            return next(iter(a.sharding.device_set))
    return device


def on_device(device, args: list):
    """Where the args live decides the device; without args, ``jax.default_device`` does.  (Set only
    then: the context costs a few hundred ns per call, and must be the same at compile and call time.)"""
    return jax.default_device(device) if not args else contextlib.nullcontext()


# ---------------------------------------------------------------- the scoped program

def scope_name(eqn_id: str) -> str:
    """The name scope an equation is compiled under: ``3`` -> ``e3``, ``2/body/1`` -> ``e2_body_1``."""
    return "e" + re.sub(r"[^A-Za-z0-9]", "_", eqn_id)


def _rewrite(program: Program, jaxpr, tokens: dict):
    """``jaxpr`` (the Jaxpr or ClosedJaxpr of ``program``) with each equation's name stack extended by its
    scope name, the sub-jaxprs of its nested programs rewritten the same way."""
    closed = isinstance(jaxpr, jex.ClosedJaxpr)
    open_ = jaxpr.jaxpr if closed else jaxpr
    new_eqns = []
    for eqn, raw in zip(program.eqns, open_.eqns):
        token = scope_name(eqn.id)
        tokens[token] = eqn.id
        info = raw.source_info
        info = info.replace(name_stack=info.name_stack.extend(token))
        params = dict(raw.params)
        for sub in eqn.subs:
            value = params.get(sub.param)
            if value is sub.program.jaxpr:
                params[sub.param] = _rewrite(sub.program, value, tokens)
            elif isinstance(value, tuple):     # branches; custom_linear_solve's namedtuple (kept one: read by name)
                items = [_rewrite(sub.program, x, tokens) if x is sub.program.jaxpr else x for x in value]
                params[sub.param] = type(value)._make(items) if hasattr(value, "_make") else tuple(items)
        new_eqns.append(raw.replace(source_info=info, params=params))
    new = open_.replace(eqns=new_eqns)
    return jex.ClosedJaxpr(new, jaxpr.consts) if closed else new


def _specs(program: Program) -> list:
    return [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype, weak_type=getattr(v.aval, "weak_type", False))
            for v in program.invars]


@dataclass(frozen=True)
class Scoped:
    """The scoped program compiled once for a program and device (``scoped``): ``call`` runs it: the jitted function
    it was compiled from (JAX keeps the executable it compiled ahead of time for its calls, and its C++ dispatch is the
    path of a user's ``jax.jit(fn)(*args)``), or ``compiled`` itself when it was compiled with XLA options (a
    dump: JAX would compile ``fn`` again), ``args`` the placed arguments (their types when
    the program has no recorded arguments), ``device`` where it runs, ``seconds`` the lowering and compile, ``text``
    its optimized HLO; ``partitioned``: asked with ``partitioning=True``, the module as XLA's SPMD partitioner
    received it (every instruction's global shape and ``sharding={...}``, as sharding propagation decided; ``""``
    when XLA ran no partitioner: one device), else ``None``."""
    compiled: object
    tokens: dict
    args: list
    device: object
    text: str
    call: object = None
    seconds: float = 0.0
    partitioned: str | None = None


def compile_lowered(lowered, **compiler_options):
    """``lowered.compile(...)``: every compile of a program made here goes through this one function."""
    return lowered.compile(compiler_options=compiler_options) if compiler_options else lowered.compile()


def _settings() -> tuple:
    """The JAX settings a lowering reads beside the program: part of what a kept compile is kept for."""
    return tuple(getattr(jax.config, name, None) for name in ("jax_enable_x64", "jax_default_matmul_precision"))


def key(program: Program, device=None) -> tuple:
    """What ``scoped(program, device)`` is kept under in ``program.memo``."""
    return ("compiled.scoped", device is not None, resolve_device(device), _settings())


def scoped(program: Program, device=None, partitioning: bool = False) -> Scoped:
    """The scoped program compiled on ``device`` (its arguments placed as ``place`` places them; a program without
    recorded arguments compiled on their types), once per program and ``key``: kept in ``program.memo``.  With
    ``partitioning``, XLA also writes the module its SPMD partitioner received (``Scoped.partitioned``): the same
    compile, with a dump of that one pass (a compile kept without it is made again once, with it)."""
    dev = resolve_device(device)
    k = key(program, device)
    made = program.memo.get(k)
    if made is not None and (not partitioning or made.partitioned is not None):
        return made
    tokens: dict = {}
    fn = jax.jit(jex.jaxpr_as_fun(_rewrite(program, program.jaxpr, tokens)))
    run_on = dev
    if len(program.args) == len(program.invars) and (program.args or not program.invars):
        args = place(program, dev, explicit=device is not None)
        run_on = placed_on(args, dev)
    else:
        args = _specs(program)
    partitioned = None
    start = time.perf_counter()
    with on_device(run_on, [a for a in args if isinstance(a, jax.Array)]):
        lowered = fn.lower(*args)
        if partitioning:
            compiled, partitioned = _compile_partitioned(lowered)
        else:
            compiled = compile_lowered(lowered)
    seconds = time.perf_counter() - start
    call = compiled if partitioning else fn      # JAX keeps no compile made with options for ``fn``'s calls
    made = program.memo[k] = Scoped(compiled, tokens, args, run_on, compiled.as_text() or "", call, seconds,
                                    partitioned)
    return made


_PARTITIONER = "spmd-partitioning"


def _compile_partitioned(lowered) -> tuple:
    """``(compiled, text)``: ``lowered`` compiled, and the module as XLA's SPMD partitioner received it, read from
    the dump of that one pass (XLA offers the module between passes only as a dump; ``""`` when no partitioner
    ran).  The dump goes to a temporary folder, removed after."""
    with tempfile.TemporaryDirectory(prefix="jaxprlens-") as folder:
        compiled = compile_lowered(lowered, xla_dump_to=folder, xla_dump_hlo_pass_re=_PARTITIONER,
                                   xla_dump_hlo_as_text=True)
        found = sorted(glob.glob(os.path.join(folder, f"*before_{_PARTITIONER}.txt")))
        text = ""
        if found:
            with open(found[-1], encoding="utf-8") as f:
                text = f.read()
    return compiled, text
