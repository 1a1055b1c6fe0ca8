"""The stepping engine: execute a Program equation by equation with real values, into and out of sub-jaxprs.

Pure Python over the model (no IPython, no widgets).  Every equation runs as JAX runs it eagerly,
``primitive.bind(*subfuns, *values, **params)`` with ``get_bind_params``, so values are what JAX computes.

State is a tuple of immutable ``Frame`` s (program, pc, loop state) whose ``env`` dicts are only ever
added to (a jaxpr is in SSA form).  A move records ``(frames before, writes, last outputs)`` so that
``back()`` restores the frame tuple and deletes the keys the move wrote: references, never copies.
"""
from __future__ import annotations

import linecache
import re
from collections import deque
from typing import NamedTuple

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxprlens.model import _jax
from jaxprlens.engine.frames import (Frame, Scan, StepTypeError, While, _as_array, _bind_params, _Op, _outputs, _read,  # noqa: F401
                     check_types, declared_types, enter_call, enter_rules, finish_rules, over_note)
from jaxprlens.model.program import Eqn, Lit, Program, Var


# ---------------------------------------------------------------- devices

def resolve_device(spec):
    """``None``: values stay where they are; otherwise the runner's choice (``"cpu"``, ``"gpu:1"``)."""
    if spec is None:
        return None
    from jaxprlens.engine.devices import resolve_device as runner_resolve
    return runner_resolve(spec)


# ---------------------------------------------------------------- the engine

class Stop(NamedTuple):
    """Why a move stopped: ``kind`` is breakpoint, nan or condition; ``eqn`` where; ``condition`` which."""
    kind: str
    eqn: Eqn
    condition: str = ""


class Stepper:
    """``program.stepper(*args)``: step, step into, step out, back, run, breakpoints."""

    def __init__(self, program: Program, *args, device=None, max_history: int = 10_000,
                 break_on_nan: bool = False):
        self.program = program
        self.device = resolve_device(device)
        self.max_history = max_history
        self.break_on_nan = break_on_nan
        self._ops_cache: dict = {}
        # Entering an eqn's context costs a microsecond; skip it where it equals the current one.
        self._default_ctx = jex.new_jaxpr_eqn([], [], lax.add_p, {}, set()).ctx
        self._consts_cache: dict = {}
        self._jit_outputs: list | None = None
        self._specs: set = set()
        self._bp: frozenset = frozenset()          # eqns that are breakpoints
        self._bp_inside: frozenset = frozenset()   # eqns with a breakpoint somewhere inside
        self._conditions: dict = {}                # 'max > 1e3' -> predicate on one written value
        self.args = self._flat_args(args)
        self.reset()

    # ---------------------------------------------------------- setup
    def _flat_args(self, args: tuple) -> list:
        p = self.program
        if not args:
            flat = list(p.args)
        else:
            flat = jax.tree_util.tree_leaves(args)
        if len(flat) != len(p.invars):
            raise ValueError(f"the program has {len(p.invars)} inputs "
                             f"({', '.join(v.path or v.name for v in p.invars)}), but {len(flat)} "
                             f"array value(s) were given")
        values = []
        for v, x in zip(p.invars, flat):
            x = jnp.asarray(x, dtype=getattr(v.aval, "dtype", None))
            if x.shape != getattr(v.aval, "shape", x.shape):
                raise ValueError(f"input {v.path or v.name} is declared {v.type}, but the value given has "
                                 f"shape {x.shape}; pass a value of the traced shape or trace again")
            values.append(jax.device_put(x, self.device) if self.device is not None else x)
        return values

    def _ops(self, program: Program) -> list:
        ops = self._ops_cache.get(program)
        if ops is None:
            ops = []
            for eqn in program.eqns:
                prim = eqn.raw.primitive
                params = _bind_params(prim, eqn.raw.params)
                ops.append(_Op(eqn, prim, None if "subfuns" in params else params, tuple(eqn.invars),
                               any(isinstance(a, Lit) for a in eqn.invars), eqn.outvars,
                               prim.multiple_results,
                               None if eqn.raw.ctx is self._default_ctx else eqn.raw.ctx,
                               declared_types(eqn.outvars)))
            self._ops_cache[program] = ops
        return ops

    def _consts(self, program: Program) -> list:
        consts = self._consts_cache.get(program)
        if consts is None:
            consts = list(program.consts)
            for v, c in zip(program.constvars, consts):
                if isinstance(c, jax.core.Tracer):
                    raise ValueError(
                        f"constant {v.name}:{v.type} is a leaked tracer (a traced value kept from another "
                        f"trace, e.g. in a global): it has no value to step with; compute it inside the "
                        f"function or pass it as an argument")
            if self.device is not None:
                consts = [jax.device_put(c, self.device) for c in consts]
            self._consts_cache[program] = consts
        return consts

    def _frame(self, program, values, eqn=None, sub=None, kind="top", loop=None) -> Frame:
        env = dict(zip(program.constvars, self._consts(program)))
        env.update(zip(program.invars, values))
        return Frame(program, self._ops(program), env, 0, eqn, sub, kind, loop)

    def reset(self):
        """Back to the first equation, with the inputs bound; history and last outputs cleared."""
        self._frames = (self._frame(self.program, self.args),)
        self._history: deque = deque(maxlen=self.max_history if self.max_history else None)
        self._maxlen = self._history.maxlen
        self.history_truncated = False
        self.last_eqn = None
        self.last_outputs = None
        self.stop = None        # why the last move stopped: Stop(kind, eqn, condition) or None
        self.note = None
        return self

    # ---------------------------------------------------------- state
    @property
    def frames(self) -> tuple:
        return self._frames

    @property
    def frame(self) -> Frame:
        return self._frames[-1]

    @property
    def depth(self) -> int:
        return len(self._frames)

    @property
    def done(self) -> bool:
        f = self._frames[-1]
        return len(self._frames) == 1 and f.pc >= len(f.ops)

    @property
    def current(self) -> Eqn | None:
        f = self._frames[-1]
        return None if f.pc >= len(f.ops) else f.ops[f.pc].eqn

    @property
    def current_inputs(self) -> list | None:
        eqn = self.current
        if eqn is None:
            return None
        env = self._frames[-1].env
        return [_read(env, a) for a in eqn.invars]

    @property
    def env(self) -> dict:
        """The current frame's values, keyed by model ``Var``."""
        return self._frames[-1].env

    @property
    def env_names(self) -> dict:
        """The current frame's values by printed name (``{'a': Array(...), ...}``)."""
        return {v.name: x for v, x in self._frames[-1].env.items() if not v.dropped}

    @property
    def position(self) -> int:
        """The index of the next top-level eqn (``len(program.eqns)`` at the end)."""
        return self._frames[0].pc

    @property
    def crumbs(self) -> list:
        """The frame stack as labels: ``['while[eqn 2] › body › iteration 3', 'eqn 1']``."""
        if self.done:
            return ["done"]
        out = [f.label for f in self._frames[1:]]
        return out + [f"eqn {self._frames[-1].pc}"]

    @property
    def path_text(self) -> str:
        """``while[eqn 2] › body › iteration 3 › eqn 1``; ``done`` at the end."""
        return " › ".join(self.crumbs)

    @property
    def outputs(self):
        """The function's outputs, as its own pytree, once done (else ``None``)."""
        if not self.done:
            return None
        top = self._frames[0]
        flat = [_as_array(x, a.aval) for x, a in zip(_outputs(top), self.program.outvars)]
        return self.program.unflatten_outputs(flat)

    @property
    def can_back(self) -> bool:
        return bool(self._history)

    @property
    def history_length(self) -> int:
        return len(self._history)

    def done_eqns(self) -> list:
        """The eqns of the current frame that have run (in this frame activation)."""
        f = self._frames[-1]
        return [op.eqn for op in f.ops[:f.pc]]

    # ---------------------------------------------------------- breakpoints
    @staticmethod
    def _spec(spec=None, *, eqn=None, primitive=None, line=None, where="cell") -> tuple:
        if isinstance(spec, Eqn):
            eqn = spec.id
        elif isinstance(spec, tuple):
            return spec
        elif isinstance(spec, str):
            if spec[:1].isdigit():
                eqn = spec
            else:
                primitive = spec
        elif isinstance(spec, int):
            line = spec
        if eqn is not None:
            return ("eqn", eqn.id if isinstance(eqn, Eqn) else str(eqn))
        if primitive is not None:
            return ("primitive", str(primitive))
        if line is not None:
            return ("line", where, int(line))
        raise ValueError("a breakpoint needs eqn='2/body/1', primitive='mul' or line=3")

    def add_breakpoint(self, spec=None, **kw):
        """By eqn id (``"2/body/1"`` or ``eqn=``), primitive name (``"mul"``), or cell line (``line=3``)."""
        spec = self._spec(spec, **kw)
        if spec[0] == "eqn":
            try:
                self.program.find(spec[1])
            except KeyError:
                ids = [e.id for e in self.program.walk()]
                raise ValueError(f"no equation {spec[1]!r} (must be one of {ids})") from None
        self._specs.add(spec)
        self._update_breakpoints()
        return spec

    def remove_breakpoint(self, spec=None, **kw):
        self._specs.discard(self._spec(spec, **kw))
        self._update_breakpoints()

    def toggle_breakpoint(self, spec=None, **kw) -> bool:
        """Set or clear; returns whether it is now set."""
        spec = self._spec(spec, **kw)
        if spec in self._specs:
            self.remove_breakpoint(spec)
            return False
        self.add_breakpoint(spec)
        return True

    def clear_breakpoints(self):
        self._specs.clear()
        self._update_breakpoints()

    @property
    def breakpoints(self) -> frozenset:
        return frozenset(self._specs)

    def add_condition(self, text: str) -> str:
        """Stop after any step that writes a value matching ``text``: ``any NaN``, ``any Inf``,
        ``max > 1e3``, ``min < -1``, ``abs max >= 10``."""
        text = " ".join(str(text).split())
        self._conditions[text] = condition(text)
        return text

    def remove_condition(self, text: str):
        self._conditions.pop(" ".join(str(text).split()), None)

    @property
    def conditions(self) -> tuple:
        return tuple(self._conditions)

    def is_breakpoint(self, eqn: Eqn) -> bool:
        return eqn in self._bp

    @property
    def breakpoint_eqns(self) -> frozenset:
        """Every eqn a breakpoint spec (id, primitive, line) matches."""
        return self._bp

    def _matches(self, eqn: Eqn) -> bool:
        for spec in self._specs:
            kind = spec[0]
            if kind == "eqn" and eqn.id == spec[1]:
                return True
            if kind == "primitive" and eqn.primitive == spec[1]:
                return True
            if kind == "line" and eqn.source is not None and eqn.source.where == spec[1] \
                    and eqn.source.line == spec[2]:
                return True
        return False

    def _update_breakpoints(self):
        bp, inside = set(), set()

        def visit(program) -> bool:
            found = False
            for eqn in program.eqns:
                if self._matches(eqn):
                    bp.add(eqn)
                    found = True
                # A combiner or per-device body is never entered, so a breakpoint in it cannot stop.
                if any([visit(s.program) for s in eqn.subs if not s.kind]):
                    inside.add(eqn)
                    found = True
            return found

        visit(self.program)
        self._bp, self._bp_inside = frozenset(bp), frozenset(inside)

    # ---------------------------------------------------------- moves
    def _record(self, frames, writes, last_eqn, last_outputs):
        h = self._history
        if len(h) == self._maxlen:
            self.history_truncated = True
        h.append((frames, writes, last_eqn, last_outputs))

    def _bind(self, op: _Op, env) -> list:
        vals = [_read(env, a) for a in op.invars] if op.has_lit else [env[a] for a in op.invars]
        params = op.params
        if params is None:
            params = _bind_params(op.prim, op.eqn.raw.params)
        if op.ctx is None:
            out = op.prim.bind(*vals, **params)
        else:
            with op.ctx.manager:
                out = op.prim.bind(*vals, **params)
        return out if op.multiple else [out]

    def _complete(self, frames: tuple, outs, writes: list) -> tuple:
        """The top frame's current eqn produced ``outs``: write them, advance, finish ended frames."""
        top = frames[-1]
        op = top.ops[top.pc]
        check_types(op, outs)
        env = top.env
        for v, x in zip(op.outvars, outs):
            env[v] = x
        writes.append((env, op.outvars))
        self.last_eqn, self.last_outputs = op.eqn, outs
        frames = frames[:-1] + (top.at(top.pc + 1),)
        while len(frames) > 1 and frames[-1].pc >= len(frames[-1].ops):
            frames = self._finish(frames, writes)
        return frames

    def _finish(self, frames: tuple, writes: list) -> tuple:
        """Leave the ended top frame: give its results to its caller (or start the next iteration)."""
        child = frames[-1]
        outs = _outputs(child)
        rest = frames[:-1]
        return finish_rules[child.kind](self, child, outs, rest, writes)

    def step(self):
        """Execute the current equation (a whole while/cond/scan/jit at once) and move on."""
        self.stop = self.note = None
        frames = self._frames
        top = frames[-1]
        pc, ops = top.pc, top.ops
        if pc >= len(ops):
            return self
        op = ops[pc]
        env = top.env
        outs = self._bind(op, env)
        types = op.types      # every value is checked against its declared type before it is written
        if len(outs) != len(types):
            check_types(op, outs)
        for x, (shape, dtype) in zip(outs, types):
            if shape is not None:
                aval = getattr(x, "aval", None)      # 0.1 us, where x.shape costs 0.5 us
                if aval is None or aval.shape != shape or aval.dtype != dtype:
                    check_types(op, outs)
        last_eqn, last_outputs = self.last_eqn, self.last_outputs
        if pc + 1 < len(ops) or len(frames) == 1:     # the common case, kept lean for run()
            for v, x in zip(op.outvars, outs):
                env[v] = x
            self._frames = frames[:-1] + (top.at(pc + 1),)
            self.last_eqn, self.last_outputs = op.eqn, outs
            writes = ((env, op.outvars),)
        else:
            writes = []
            try:
                self._frames = self._complete(frames, outs, writes)
            except BaseException:
                self._undo(writes, last_eqn, last_outputs)
                raise
        h = self._history
        if len(h) == self._maxlen:
            self.history_truncated = True
        h.append((frames, writes, last_eqn, last_outputs))
        if self.break_on_nan and _has_nan(outs):
            self.stop = Stop("nan", self.last_eqn)
        if self._conditions:
            hit = next((c for c, pred in self._conditions.items() if any(pred(x) for x in outs)), None)
            if hit is not None:
                self.stop = Stop("condition", self.last_eqn, hit)
        return self

    def step_into(self):
        """Enter the current equation's sub-jaxpr (the branch taken, the loop's cond/body, the call)."""
        self.stop = self.note = None
        eqn = self.current
        rule = enter_rules.get(eqn.primitive, enter_call) if eqn is not None else None
        frame = rule(self, eqn, self._frames[-1]) if rule is not None else None
        if frame is None:
            note = over_note(eqn) if eqn is not None else None
            self.step()
            self.note = note
            return self
        frames = self._frames
        writes: list = []
        last_eqn, last_outputs = self.last_eqn, self.last_outputs
        self.last_eqn = self.last_outputs = None
        new = frames + (frame,)
        try:
            while len(new) > 1 and new[-1].pc >= len(new[-1].ops):
                new = self._finish(new, writes)    # an empty body: its results go straight back
        except BaseException:
            self._undo(writes, last_eqn, last_outputs)
            raise
        self._frames = new
        self._record(frames, writes, last_eqn, last_outputs)
        return self

    def _advance(self, first: bool) -> bool:
        """One move of run()/step_out(): False when stopped at a breakpoint."""
        eqn = self.current
        if not first and eqn in self._bp:
            self.stop = Stop("breakpoint", eqn)
            return False
        if eqn in self._bp_inside:
            self.step_into()
        else:
            self.step()
        return self.stop is None

    def step_out(self):
        """Finish the current sub-jaxpr (the whole loop, for a loop body) and return to its caller."""
        depth = len(self._frames)
        if depth == 1:
            return self.run()
        first = True
        while len(self._frames) >= depth and not self.done:
            if not self._advance(first):
                break
            first = False
        return self

    def run(self):
        """Run to the end, or to the next breakpoint (entering sub-jaxprs that hold one)."""
        self.stop = self.note = None
        first = True
        if not self._bp and not self._bp_inside and not self.break_on_nan and not self._conditions:
            step = self.step
            while not self.done:     # the hot path: one bind and one small record per eqn
                step()
            return self
        while not self.done:
            if not self._advance(first):
                return self
            first = False
        return self

    def back(self) -> bool:
        """Undo the last move exactly (values, position, frames); False when there is no history."""
        self.stop = self.note = None
        if not self._history:
            return False
        frames, writes, last_eqn, last_outputs = self._history.pop()
        self._undo(writes, last_eqn, last_outputs)
        self._frames = frames
        return True

    def _undo(self, writes, last_eqn, last_outputs):
        for env, outvars in writes:
            for v in outvars:
                env.pop(v, None)
        self.last_eqn, self.last_outputs = last_eqn, last_outputs

    def goto(self, position: int):
        """Move to top-level eqn ``position`` (backwards through history, or forwards by stepping)."""
        position = max(0, min(position, len(self.program.eqns)))
        while (self.depth > 1 or self.position > position) and self._history:
            self.back()
        if self.depth > 1 or self.position > position:
            self.reset()
        while self.position < position:
            self.step()
        return self

    # ---------------------------------------------------------- eager vs compiled
    def compare_with_jit(self, want=None, rtol: float = 1e-5, atol: float = 1e-6) -> str | None:
        """Once done: None when the stepped (eager) outputs equal compiled ones, else one short reason.

        ``want``: ``run()``'s result (or any pytree / flat list of the outputs); by default ``jax.jit`` of
        the program on the stepper's inputs, computed once.  Floats compare within ``rtol``/``atol``.
        """
        if not self.done:
            return None
        if want is None:
            if self._jit_outputs is None:
                try:
                    self._jit_outputs = list(jax.jit(jex.jaxpr_as_fun(self.program.jaxpr))(*self.args))
                except Exception as exc:  # noqa: BLE001 - a failure of jit is itself the difference
                    return f"jax.jit raised {type(exc).__name__} where the stepper ran: {str(exc).splitlines()[0]}"
            want = self._jit_outputs
        flat = getattr(want, "flat_outputs", None) or jax.tree_util.tree_leaves(want)
        got = _outputs(self._frames[0])
        if len(flat) != len(got):
            return f"jax.jit gives {len(flat)} outputs, the stepper {len(got)}"
        paths = self.program.out_paths or [f"out[{i}]" for i in range(len(got))]
        reasons = [r for r in (_difference(p, g, w, rtol, atol) for p, g, w in zip(paths, got, flat)) if r]
        if not reasons:
            return None
        more = f" (and {len(reasons) - 1} more output(s))" if len(reasons) > 1 else ""
        return (f"{reasons[0]}{more}: the stepper runs each equation eagerly, jax.jit compiles the whole "
                f"program (fusion, XLA's numerics, dead code removed)")

    def __repr__(self) -> str:
        return f"<jaxprlens.Stepper at {self.path_text}>"


def _difference(path: str, got, want, rtol: float, atol: float) -> str | None:
    """How the stepper's value of output ``path`` differs from the compiled one, or None."""
    if jnp.issubdtype(getattr(got, "dtype", np.float32), jax.dtypes.extended):
        got, want = jax.random.key_data(got), jax.random.key_data(want)
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape or g.dtype != w.dtype:
        return (f"{path} is {_jax.aval_text(jax.typeof(jnp.asarray(got)))} stepped but "
                f"{_jax.aval_text(jax.typeof(jnp.asarray(want)))} compiled")
    if jnp.issubdtype(g.dtype, jnp.inexact):
        kind = np.complex128 if jnp.issubdtype(g.dtype, jnp.complexfloating) else np.float64
        g, w = g.astype(kind), w.astype(kind)
        bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        bad = g != w
    if not bad.any():
        return None
    size = f"{int(bad.sum())} of {bad.size} elements" if bad.ndim else "the value"
    gap = np.abs(g[bad] - w[bad]) if jnp.issubdtype(g.dtype, jnp.number) else None
    gap_text = f", by up to {float(np.nanmax(gap)):.3g}" if gap is not None and np.isfinite(gap).any() else ""
    return f"{path}: {size} differ from jax.jit's{gap_text}"


_CONDITION = re.compile(r"^(max|min|abs max) *(>=|<=|>|<) *([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)$", re.I)
_COMPARE = {">": np.greater, "<": np.less, ">=": np.greater_equal, "<=": np.less_equal}


def condition(text: str):
    """The predicate on one value for a condition's text (see ``Stepper.add_condition``)."""
    low = text.lower()
    if low in ("any nan", "nan"):
        return lambda x: _has_nan([x])
    if low in ("any inf", "inf"):
        return lambda x: _numeric(x) and bool(jnp.isinf(x).any())
    m = _CONDITION.match(text)
    if m is None:
        raise ValueError(f"unknown condition {text!r} (must be one of 'any NaN', 'any Inf', "
                         f"'max > 1e3', 'min < -1', 'abs max >= 10')")
    stat, op, bound = m.group(1).lower(), _COMPARE[m.group(2)], float(m.group(3))
    reduce = {"max": jnp.nanmax, "min": jnp.nanmin, "abs max": lambda x: jnp.nanmax(jnp.abs(x))}[stat]   # NaN aside
    return lambda x: _numeric(x) and bool(op(float(reduce(x)), bound))


def _numeric(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return (dtype is not None and getattr(x, "size", 0) > 0 and not jnp.issubdtype(dtype, jnp.complexfloating)
            and (jnp.issubdtype(dtype, jnp.inexact) or jnp.issubdtype(dtype, jnp.integer)))


def _has_nan(outs) -> bool:
    for x in outs:
        dtype = getattr(x, "dtype", None)
        if dtype is not None and jnp.issubdtype(dtype, jnp.inexact) and bool(jnp.isnan(x).any()):
            return True
    return False


# ---------------------------------------------------------------- source context

def source_context(eqn: Eqn | None, radius: int = 3) -> list:
    """Lines around the eqn's user source line: ``[(line number, text, is_current), ...]``."""
    if eqn is None:
        return []
    frame = _jax.user_frame(eqn.raw)
    if frame is None:
        return []
    lines = linecache.getlines(frame.file)
    if not lines:
        return [(frame.line, frame.text, True)]
    lo, hi = max(1, frame.line - radius), min(len(lines), frame.line + radius)
    return [(n, lines[n - 1].rstrip("\n"), n == frame.line) for n in range(lo, hi + 1)]
