"""What if: edit a value the stepper holds and step on with it (``Stepper.set_value``, ``Stepper.edit``).

A mixin of ``engine.stepper.Stepper``.  An edit replaces one value of the current frame (an input, a constant or
an output already computed) with a value of the same type; every value computed from it afterwards is marked
(``changed``, ``is_changed``: by object id, the values kept alive so that ids stay unique), and ``back()``
undoes the edit as it undoes a step (``engine.history``).  ``edit(name, op, value)`` is the value panel's
actions (NaN, zero, scale, add epsilon, set to a number), validated here, said by the catalogue when refused.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxprlens.engine.frames import Frame, _typed
from jaxprlens.model import _jax
from jaxprlens.model.errors import KeyedError
from jaxprlens.model.program import Var, path_id, var_text

EDITS = ("nan", "zero", "scale", "eps", "set")    # Stepper.edit's operations (the value panel's actions)
EPS = 1e-3          # ``eps`` with no value adds EPS of the largest magnitude (or EPS itself)


class Edit(NamedTuple):
    """One ``set_value``: the value ``name`` (model ``var``) at ``where`` (``Stepper.where``) went from ``old`` to
    ``new``."""
    name: str
    var: Var
    where: str
    old: object
    new: object


class WhatIf:
    """Edits of a stepper's values, and the marks of what they changed."""

    def _init_whatif(self):
        self._taint: dict = {}  # id -> value, for every value computed from an edited one (kept alive: ids stay unique)
        self._edits: list = []

    def edit(self, name, op: str, value=None):
        """Edit the value ``name`` (as ``set_value``) by ``op``: ``nan`` (every element NaN: a float value),
        ``zero``, ``scale`` (times the number ``value``, default 1), ``eps`` (plus ``value``, default 1e-3 of the
        largest magnitude, or 1e-3) or ``set`` (to the number ``value`` in every element, or to an array of the
        value's shape).  ``value`` may be a number or the text of one (``"2"``, ``"1e-3"``, ``"nan"``).  Refused
        with a ``KeyedError``: an unknown name or op, a value that is no number, NaN for an integer, a shape
        or dtype that does not fit.  Recorded like ``set_value`` (``edits``; ``back()`` undoes it)."""
        if op not in EDITS:
            raise KeyedError("edit_unknown", op=repr(op), ops=str(list(EDITS)))
        frame = self._frames[-1]
        var = self._binder(frame, name)
        return self.set_value(var, edited(var, frame.env[var], op, value))

    def set_value(self, name, value):
        """Replace the value ``name`` (a printed name or a model ``Var``) defined at the current position -- an
        input or constant of the current frame, or an output already computed -- with ``value`` of the same
        shape and dtype.  Stepping goes on from there with it; ``back()`` undoes it; ``changed`` says which
        values it reached."""
        frame = self._frames[-1]
        var = self._binder(frame, name)
        old = frame.env[var]
        new = _checked(var, old, value)
        env = frame.env
        env[var] = new
        self._taint[id(new)] = new
        self._edits.append(Edit(var.name, var, self.where, old, new))
        before, last_eqn, last_outputs = self._frames, self.last_eqn, self.last_outputs
        loop = frame.loop
        if frame.kind == "while_cond" and var in frame.program.invars:     # the carry the body will get
            k = frame.program.invars.index(var) - len(loop.cconsts)
            if k >= 0:
                carry = loop.carry[:k] + (new,) + loop.carry[k + 1:]
                f = Frame(frame.program, frame.ops, env, frame.pc, frame.eqn, frame.sub, frame.kind,
                          loop._replace(carry=carry))
                self._frames = self._frames[:-1] + (f,)
        if self.last_eqn is not None and var in self.last_eqn.outvars and self.last_outputs is not None:
            self.last_outputs = [new if v is var else x for v, x in zip(self.last_eqn.outvars, self.last_outputs)]
        self._record(before, [("edit", env, var, old, new)], last_eqn, last_outputs)
        self.stop = self.note = self.ended = None
        return self

    def _binder(self, frame: Frame, name) -> Var:
        """The current frame's ``Var`` printed ``name`` (or ``name`` itself), or a ``KeyedError`` saying why not:
        not computed yet (and by which eqn), or not defined here (and what is)."""
        env = frame.env
        if isinstance(name, Var):
            if name in env:
                return name
            name = name.name
        name = str(name)
        for v in env:
            if v.name == name and not v.dropped:
                return v
        path = path_id(frame.program.path) if frame.program.path else None
        at = {"pc": frame.pc, **({"path": path} if path else {})}
        in_ = "_in" if path else ""
        later = next((op.eqn for op in frame.ops[frame.pc:] if any(v.name == name for v in op.outvars)), None)
        if later is not None:
            raise KeyedError("value_not_run" + in_, name=name, eqn=later.id, primitive=later.primitive, **at)
        names = [v.name for v in env if not v.dropped]
        shown = ", ".join(names[:20]) + (f", … (+{len(names) - 20})" if len(names) > 20 else "")
        raise KeyedError("value_undefined" + in_, name=repr(name), shown=shown, **at)

    @property
    def edits(self) -> tuple:
        """The ``set_value`` edits in effect, oldest first: ``Edit(name, var, where, old, new)``."""
        return tuple(self._edits)

    @property
    def changed(self) -> frozenset:
        """The current frame's values (model ``Var`` s) an edit changed: edited, or computed from one."""
        taint = self._taint
        if not taint:
            return frozenset()
        return frozenset(v for v, x in self._frames[-1].env.items() if id(x) in taint)

    def is_changed(self, value) -> bool:
        """Whether ``value`` (one the stepper holds) was edited or computed from an edited value."""
        return id(value) in self._taint

    def _tainted_inputs(self, op, env) -> bool:
        taint = self._taint
        return any(id(env[a]) in taint for a in op.invars if isinstance(a, Var))

    def _mark(self, outs) -> list:
        """Mark ``outs`` as changed by an edit; the ids newly marked (``back`` unmarks them)."""
        taint, added = self._taint, []
        for x in outs:
            if id(x) not in taint:
                taint[id(x)] = x
                added.append(id(x))
        return added

    def _derived(self, new, sources):
        """``new``, made from ``sources`` outside a bind (a scan slice, stacked ys): changed if one of them is."""
        if self._taint and any(id(x) in self._taint for x in sources):
            self._taint[id(new)] = new
        return new


def edited(var: Var, old, op: str, value=None):
    """The value ``Stepper.edit`` gives ``var`` (now ``old``) for ``op`` and ``value`` (unchecked: ``set_value``
    checks it), or a ``KeyedError`` saying what to pass."""
    if op == "set":
        if value is None or (isinstance(value, str) and not value.strip()):
            raise KeyedError("edit_set_empty")
        if not isinstance(value, str) and np.ndim(value) > 0:
            return value                                  # an array: set_value checks its shape and dtype
        number, target = _number(value, var, op), np.dtype(getattr(var.aval, "dtype", None) or np.float32)
        if not _fits(np.asarray(number).dtype, target):
            raise KeyedError("set_wrong_dtype", name=var.name, type=var.type, value=repr(number), dtype=target.name)
        return np.full(getattr(var.aval, "shape", ()), number, dtype=target)
    x = jnp.asarray(old)
    if op == "nan":
        if not jnp.issubdtype(x.dtype, jnp.inexact):
            raise KeyedError("edit_nan_float", name=var.name, type=var.type)
        return jnp.full_like(x, jnp.nan)
    if op == "zero":
        return jnp.zeros_like(x)
    if op == "scale":
        return (x * _number(1.0 if value is None else value, var, op)).astype(x.dtype)
    if value is None or (isinstance(value, str) and not value.strip()):       # eps
        big = float(jnp.max(jnp.abs(x))) if x.size else 0.0
        value = EPS * big if big and math.isfinite(big) else EPS
    return (x + _number(value, var, op)).astype(x.dtype)


def _number(value, var: Var, op: str):
    """``value`` (a number, or its text) as a Python int, float or complex, or a ``KeyedError``."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, float, complex, np.number)) or (hasattr(value, "shape") and np.ndim(value) == 0
                                                               and not isinstance(value, str)):
        x = np.asarray(value).item()
        if isinstance(x, (int, float, complex)):
            return x
    elif isinstance(value, str):
        text = value.strip()
        for kind in (int, float, complex):
            try:
                return kind(text.replace(" ", ""))
            except ValueError:
                continue
    raise KeyedError("edit_not_number", op=op, name=var.name, value=repr(value)[:80])


def _checked(var: Var, old, value):
    """``value`` as the stepper's new value for ``var`` (same shape, dtype, weak type and device as ``old``),
    or a ``KeyedError`` saying what to pass."""
    aval = var.aval
    shape, dtype = getattr(aval, "shape", None), getattr(aval, "dtype", None)
    if shape is None or dtype is None or not isinstance(old, (jax.Array, np.ndarray, np.generic, int, float,
                                                              complex, bool)):
        raise KeyedError("set_not_array", var=var_text(var))
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        if np.dtype(value.dtype) != np.dtype(dtype) or tuple(value.shape) != tuple(shape):
            raise KeyedError("set_wrong_type", name=var.name, type=var.type,
                             given=_jax.aval_text(jax.typeof(jnp.asarray(value))), dtype=np.dtype(dtype).name)
        x = jnp.asarray(value)
    else:
        raw = np.asarray(value)
        if raw.shape != tuple(shape):
            raise KeyedError("set_wrong_shape", name=var.name, type=var.type, given=str(raw.shape),
                             shape=str(tuple(shape)))
        target = np.dtype(dtype)
        if not _fits(raw.dtype, target):
            raise KeyedError("set_wrong_dtype", name=var.name, type=var.type, value=repr(value), dtype=target.name)
        x = jnp.asarray(raw, dtype=dtype)
    x = _typed(x, aval)
    sharding = getattr(old, "sharding", None)
    if isinstance(old, jax.Array) and sharding is not None:
        x = jax.device_put(x, sharding)
    return x


def _fits(given: np.dtype, target: np.dtype) -> bool:
    """Whether numbers of dtype ``given`` may become ``target`` values: no complex into a real type, no float
    into an integer or a bool."""
    if given.kind not in "biufc":
        return False
    return not ((given.kind == "c" and target.kind != "c") or (given.kind in "fc" and target.kind in "biu"))
