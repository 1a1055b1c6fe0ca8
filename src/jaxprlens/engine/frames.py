"""Frames of the stepping engine and the per-primitive rules for entering and leaving sub-jaxprs.

``enter_rules[prim](stepper, eqn, frame)`` opens the sub-jaxpr a ``step_into`` goes to (the chosen
cond branch, the while cond/body, a scan iteration, a call body); ``finish_rules[kind]`` folds a
finished child frame back into its caller (carry the loop on, stack scan ys, bind call results).
"""
from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxprlens.model import _jax
from jaxprlens.model.errors import KeyedTypeError
from jaxprlens.model.program import Eqn, Var, var_text


class Stepper(Protocol):
    """What the rules here ask of the stepper (``engine.stepper.Stepper``, which imports this module)."""

    def _frame(self, program, values, eqn=None, sub=None, kind="top", loop=None) -> Frame: ...

    def _complete(self, frames: tuple, outs, writes: list) -> tuple: ...

    def _derived(self, new, sources): ...          # engine.whatif.WhatIf's, a base of the stepper


# ---------------------------------------------------------------- frames

class _Op(NamedTuple):
    """What the hot path needs of one eqn, computed once per program."""
    eqn: Eqn
    prim: Any
    params: Any           # None: call get_bind_params at each bind (it makes single-use subfuns)
    invars: tuple
    has_lit: bool
    outvars: list
    multiple: bool
    ctx: Any              # the eqn's context (compute type, RNG partitioning, mesh) when not the default
    types: tuple          # per outvar: (shape, dtype) declared by its aval, or (None, None) when not an array
    block: bool = False   # a host callback runs in it (maybe inside a call): wait for its results at its step


class StepTypeError(KeyedTypeError):
    """A value the stepper was about to write has another shape or dtype than the jaxpr declares."""


def declared_types(outvars) -> tuple:
    """``(shape, dtype)`` of each outvar's aval (weak type aside); ``(None, None)`` for tokens, refs."""
    return tuple((v.aval.shape, v.aval.dtype) if type(v.aval) is jax.core.ShapedArray else (None, None)
                 for v in outvars)


def _value_type(x) -> str:
    try:
        return _jax.aval_text(jax.typeof(x))
    except Exception:  # noqa: BLE001 - not a JAX value at all
        return type(x).__name__


def check_types(op: _Op, outs) -> None:
    """Raise ``StepTypeError`` naming the eqn and the expected vs got type unless ``outs`` matches
    ``op.types`` (a Python scalar, from a literal result, only needs to be a scalar)."""
    eqn = op.eqn
    if len(outs) != len(op.types):
        raise StepTypeError("step_out_count", id=eqn.id, prim=eqn.primitive, n=len(outs), k=len(op.types),
                            names=", ".join(var_text(v) for v in op.outvars))
    for v, x, (shape, dtype) in zip(op.outvars, outs, op.types):
        if shape is None:
            continue
        got = getattr(x, "shape", None)
        if got is None:
            if np.ndim(x) == 0 and shape == () and x is not None:
                continue
        elif got == shape and x.dtype == dtype:
            continue
        raise StepTypeError("step_out_type", id=eqn.id, prim=eqn.primitive, name=v.name, got=_value_type(x),
                            want=var_text(v))


class While(NamedTuple):
    cconsts: tuple
    bconsts: tuple
    carry: tuple
    iteration: int
    pred: Any = None      # the cond's last result; an array when vmap batched the predicate


class Scan(NamedTuple):
    consts: tuple
    carry: tuple
    xs: tuple
    ys: tuple             # one tuple of y values per finished iteration, in iteration order
    iteration: int
    length: int
    reverse: bool


class Frame:
    """One activation: a program, its env, the index of the next eqn, and how it was entered."""
    __slots__ = ("program", "ops", "env", "pc", "eqn", "sub", "kind", "loop")

    def __init__(self, program, ops, env, pc, eqn=None, sub=None, kind="top", loop=None):
        self.program, self.ops, self.env, self.pc = program, ops, env, pc
        self.eqn, self.sub, self.kind, self.loop = eqn, sub, kind, loop

    def at(self, pc: int) -> Frame:
        return Frame(self.program, self.ops, self.env, pc, self.eqn, self.sub, self.kind, self.loop)

    @property
    def iteration(self):
        return None if self.loop is None else self.loop.iteration

    def __repr__(self) -> str:
        where = "top" if self.eqn is None else f"{self.eqn.id}/{self.sub.key}"
        return f"<Frame {where} at eqn {self.pc}>"


def _bind_params(prim, params) -> dict:
    """``get_bind_params`` returns the params (JAX >= 0.10) or ``(subfuns, params)`` (older JAX)."""
    out = prim.get_bind_params(params)
    if isinstance(out, tuple):
        subfuns, out = out
        if subfuns:
            out = dict(out, subfuns=tuple(subfuns))
    return out


def _read(env, a):
    return env[a] if isinstance(a, Var) else a.val    # a literal binds its raw value, as in JAX


def _outputs(frame: Frame) -> list:
    env = frame.env
    return [_read(env, a) for a in frame.program.outvars]


def _as_array(x, aval):
    return x if isinstance(x, jax.Array) else jnp.asarray(x, dtype=getattr(aval, "dtype", None))


# ---------------------------------------------------------------- entering sub-jaxprs, per primitive

def _operands(frame: Frame, eqn: Eqn) -> list:
    return [_read(frame.env, a) for a in eqn.invars]


def _enter_cond(st: Stepper, eqn: Eqn, frame: Frame):
    ops = _operands(frame, eqn)
    index = int(np.clip(int(ops[0]), 0, len(eqn.subs) - 1))    # as lax.switch clamps
    sub = eqn.subs[index]
    return st._frame(sub.program, [ops[j] for j in sub.in_map], eqn, sub, "call")


def _enter_while(st: Stepper, eqn: Eqn, frame: Frame):
    ops = _operands(frame, eqn)
    cn, bn = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
    loop = While(tuple(ops[:cn]), tuple(ops[cn:cn + bn]), tuple(ops[cn + bn:]), 0)
    return _while_cond_frame(st, eqn, loop)


def _sub(eqn: Eqn, key: str):
    return next(s for s in eqn.subs if s.key == key)


def _while_cond_frame(st, eqn, loop: While) -> Frame:
    sub = _sub(eqn, "cond")
    return st._frame(sub.program, loop.cconsts + loop.carry, eqn, sub, "while_cond", loop)


def _enter_scan(st: Stepper, eqn: Eqn, frame: Frame):
    ops = _operands(frame, eqn)
    p = eqn.params
    nc, ncarry, length = eqn.roles.count("consts"), eqn.roles.count("carry"), p["length"]
    if length == 0:
        return None
    loop = Scan(tuple(ops[:nc]), tuple(ops[nc:nc + ncarry]), tuple(ops[nc + ncarry:]), (), 0,
                length, bool(p.get("reverse", False)))
    return _scan_frame(st, eqn, loop)


def _scan_frame(st, eqn, loop: Scan) -> Frame:
    sub = _sub(eqn, "body")
    i = loop.length - 1 - loop.iteration if loop.reverse else loop.iteration
    xs = tuple(st._derived(lax.index_in_dim(x, i, axis=0, keepdims=False), (x,)) for x in loop.xs)
    return st._frame(sub.program, loop.consts + loop.carry + xs, eqn, sub, "scan", loop)


def enter_call(st: Stepper, eqn: Eqn, frame: Frame):
    """jit, custom_jvp/vjp, checkpoint, closed_call: one body whose binders are the operands."""
    if len(eqn.subs) != 1:
        return None
    sub = eqn.subs[0]
    if sub.kind:                  # a combiner or a per-device body: stepped over (see over_note)
        return None
    if any(j is None for j in sub.in_map) or sorted(k for k in sub.out_map if k is not None) != \
            list(range(len(eqn.outvars))):
        return None
    ops = _operands(frame, eqn)
    return st._frame(sub.program, [ops[j] for j in sub.in_map], eqn, sub, "call")


def _enter_linear_solve(st: Stepper, eqn: Eqn, frame: Frame):
    """custom_linear_solve computes ``solve(b)``: step into its ``solve`` jaxpr (matvec and the transposes
    serve differentiation only)."""
    sub = next((s for s in eqn.subs if s.key == "solve"), None)
    if sub is None or any(j is None for j in sub.in_map):
        return None
    ops = _operands(frame, eqn)
    return st._frame(sub.program, [ops[j] for j in sub.in_map], eqn, sub, "call")


class Over(NamedTuple):
    """Why ``step_into`` ran ``eqn`` as one step instead of entering it (``present.words.over_text`` says it):
    ``kind`` is ``mapped`` (a per-device body: collectives need every device or shard at once), ``combiner``
    (a body that runs on single elements inside the primitive), ``kernel`` (a Pallas kernel: once per grid point,
    on refs to blocks) or ``refs`` (run_state: a body on refs)."""
    kind: str
    eqn: Eqn


def over_note(eqn: Eqn) -> Over | None:
    """Why ``step_into`` on ``eqn`` runs it as one step instead of entering it, or None."""
    kinds = {s.kind for s in eqn.subs}
    if "mapped" in kinds:
        return Over("mapped", eqn)
    if "combiner" in kinds:
        return Over("combiner", eqn)
    if "kernel" in kinds:
        return Over("kernel", eqn)
    if "refs" in kinds:
        return Over("refs", eqn)
    return None


enter_rules = {
    "cond": _enter_cond,
    "while": _enter_while,
    "scan": _enter_scan,
    "custom_linear_solve": _enter_linear_solve,
}


# ---------------------------------------------------------------- leaving sub-jaxprs, per frame kind

def _finish_call(st, child: Frame, outs, rest, writes):
    results = [None] * len(child.eqn.outvars)
    for j, k in enumerate(child.sub.out_map):
        if k is not None:
            results[k] = outs[j]
    return st._complete(rest, results, writes)


def _finish_while_cond(st, child: Frame, outs, rest, writes):
    loop, eqn = child.loop, child.eqn
    pred = outs[0]
    # A batched predicate (vmap) loops while any element holds, as JAX's lowering does.
    if bool(jnp.any(pred)) if getattr(pred, "ndim", 0) else bool(pred):
        sub = _sub(eqn, "body")
        loop = loop._replace(pred=pred)
        body = st._frame(sub.program, loop.bconsts + loop.carry, eqn, sub, "while_body", loop)
        return rest + (body,)
    return st._complete(rest, list(loop.carry), writes)


def _finish_while_body(st, child: Frame, outs, rest, writes):
    loop, pred = child.loop, child.loop.pred
    if getattr(pred, "ndim", 0):    # batched: only the elements whose predicate held move on
        outs = [st._derived(_select(pred, new, old), (new, old)) for new, old in zip(outs, loop.carry)]
    loop = loop._replace(carry=tuple(outs), iteration=loop.iteration + 1, pred=None)
    return rest + (_while_cond_frame(st, child.eqn, loop),)


def _select(pred, new, old):
    if not hasattr(new, "shape"):
        return new
    mask = lax.broadcast_in_dim(pred, new.shape, tuple(range(pred.ndim)))
    return lax.select(mask, new, old)


def _finish_scan(st, child: Frame, outs, rest, writes):
    loop = child.loop
    ncarry = len(loop.carry)
    loop = loop._replace(carry=tuple(outs[:ncarry]), ys=loop.ys + (tuple(outs[ncarry:]),),
                         iteration=loop.iteration + 1)
    if loop.iteration < loop.length:
        return rest + (_scan_frame(st, child.eqn, loop),)
    ys = loop.ys[::-1] if loop.reverse else loop.ys
    outvars = child.eqn.outvars[ncarry:]
    stacked = [st._derived(_typed(jnp.stack([y[k] for y in ys]), outvars[k].aval), [y[k] for y in ys])
               for k in range(len(outs) - ncarry)]
    return st._complete(rest, list(loop.carry) + stacked, writes)


def _typed(x, aval):
    """``x`` with the weak type JAX gives the eqn's result (stacking a weak first y loses it)."""
    weak = getattr(aval, "weak_type", False)
    if getattr(x, "weak_type", weak) == weak:
        return x
    return lax.convert_element_type_p.bind(x, new_dtype=x.dtype, weak_type=weak, sharding=None)


finish_rules = {
    "call": _finish_call,
    "while_cond": _finish_while_cond,
    "while_body": _finish_while_body,
    "scan": _finish_scan,
}
