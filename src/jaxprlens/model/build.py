"""Building the model: JAX's (Closed)Jaxpr tree converted into a ``Program``, every Var named as JAX's printer
names it, every equation's source, roles and sub-programs attached.  ``from_jaxpr`` wraps an existing jaxpr;
``tracing.trace`` traces a call and builds through here."""
from __future__ import annotations

import functools
import gc
from dataclasses import replace

import numpy as np

from jaxprlens.model import _jax
from jaxprlens.model.program import Eqn, Lit, Program, Source, Var, effect_text
from jaxprlens.model.roles import Sub, roles_of
from jaxprlens.model.marimocells import notebook
from jaxprlens.model.sources import in_library, source_of


_SCALARS = frozenset((int, float, bool, complex))
_type_text = functools.lru_cache(maxsize=4096)(_jax.aval_text)   # programs (and re-traces) share a few avals
_own_source = functools.lru_cache(maxsize=8192)(source_of)    # the user's line: equations share a few


class _Builder:
    """Converts JAX's (Closed)Jaxpr tree into our model, naming every Var with the printer's name."""

    def __init__(self, names: dict):
        self.names = names
        self.vars: dict = {}
        self.sources: dict = {}   # traceback -> Source: eqns made by one line share a stack
        self.notebook = notebook()  # a marimo notebook's cells (None elsewhere): a source note names its cell
        self.literals: dict = {}  # (aval, kind, value's repr or bytes) of a scalar literal -> its text

    def type(self, aval) -> str:
        try:
            return _type_text(aval)
        except TypeError:         # an unhashable aval
            return _jax.aval_text(aval)

    def var(self, v) -> Var:
        ours = self.vars.get(v)
        if ours is None:
            if isinstance(v, _jax.DropVar):
                return Var("_", self.type(v.aval), v.aval, v)
            name = self.names.get(v) or f"?{len(self.vars)}"
            ours = self.vars[v] = Var(name, self.type(v.aval), v.aval, v)
        return ours

    def atom(self, a):
        if isinstance(a, _jax.Literal):
            return Lit(a.val, self.type(a.aval), a.aval, self.literal_text(a))
        return self.var(a)

    def literal_text(self, a) -> str:
        val = a.val
        kind = type(val)
        if kind in _SCALARS:                      # repr, not ==: -0.0 prints unlike 0.0, True unlike 1
            key = (a.aval, kind, repr(val))
        elif isinstance(val, np.ndarray) and val.ndim == 0:
            key = (a.aval, val.dtype, val.tobytes())      # bytes, not ==, likewise
        else:                                     # arrays: as printed
            return _jax.literal_text(a)
        try:
            text = self.literals.get(key)
        except TypeError:                         # an unhashable aval
            return _jax.literal_text(a)
        if text is None:
            text = self.literals[key] = _jax.literal_text(a)
        return text

    def source(self, e) -> Source | None:
        tb = _jax.traceback(e)
        if tb is None:
            return None
        try:
            return self.sources[tb]
        except KeyError:
            frame = _jax.traceback_frame(tb)
            src = None if frame is None else _own_source(frame.file, frame.line, frame.function,
                                                         frame.text, self.notebook)
            if src is not None and in_library(frame.file):     # made in a library: the user's line first
                own = next((f for f in _jax.user_frames(tb) if not in_library(f[0])), None)
                if own is not None:
                    src = replace(source_of(*own[:3], notebook=self.notebook), via=src)
            self.sources[tb] = src
            return src

    def program(self, closed, path: tuple) -> Program:
        j = _jax.open_jaxpr(closed)
        eqns = [self.eqn(e, i, path + (i,)) for i, e in enumerate(j.eqns)]
        return Program(
            invars=[self.var(v) for v in j.invars],
            constvars=[self.var(v) for v in j.constvars],
            consts=_jax.consts_of(closed),
            outvars=[self.atom(v) for v in j.outvars],
            eqns=eqns,
            effects=tuple(effect_text(e) for e in j.effects),
            jaxpr=closed,
            path=path,
        )

    def eqn(self, e, index: int, path: tuple) -> Eqn:
        roles, subs = roles_of(e)
        built_subs = [Sub(s.key, s.label, self.program(s.jaxpr, path + (s.key,)), s.in_map, s.out_map,
                          s.param, s.kind) for s in subs]
        params = e.params          # JAX's own dict, never changed: copied only to put our sub-programs in
        if built_subs:
            params, by_param = dict(params), {}
            for s in built_subs:
                by_param.setdefault(s.param, []).append(s.program)
            for key, programs in by_param.items():
                params[key] = programs[0] if not isinstance(e.params[key], tuple) else \
                    _put_programs(e.params[key], programs)
        return Eqn(
            index=index,
            primitive=e.primitive.name,
            params=params,
            invars=[self.atom(a) for a in e.invars],
            outvars=[self.var(v) for v in e.outvars],
            effects=tuple(effect_text(x) for x in e.effects) if e.effects else (),
            source=self.source(e),
            subs=built_subs,
            roles=roles,
            raw=e,
            path=path,
        )


def _put_programs(value: tuple, programs: list) -> tuple:
    """A tuple param (a namedtuple such as custom_linear_solve's ``jaxprs``, or one mixed with None) with
    each jaxpr in it replaced by its program, in order, everything else kept in its place."""
    it = iter(programs)
    items = [next(it, x) if _jax.is_jaxpr(x) else x for x in value]
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)


def build_program(names: dict, closed) -> Program:
    """The model of ``closed``.  The collector is off meanwhile: the build makes a few acyclic objects per
    equation, and letting them trigger full collections of a heap full of JAX's objects cost more than
    the build itself (10k equations: 190 ms instead of 60-90 ms)."""
    was = gc.isenabled()
    gc.disable()
    try:
        return _Builder(names).program(closed, ())
    finally:
        if was:
            gc.enable()


def from_jaxpr(closed) -> Program:
    """Wrap an existing (Closed)Jaxpr, e.g. from ``jax.make_jaxpr``, without the Python-side names."""
    printed = _jax.print_jaxpr(closed)
    program = build_program(printed.names, closed)
    program.text = printed.text
    return program
