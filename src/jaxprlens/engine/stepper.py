"""The stepping engine: execute a Program equation by equation with real values, into and out of sub-jaxprs.

Pure Python over the model (no IPython, no widgets).  Every equation runs as JAX runs it eagerly,
``primitive.bind(*subfuns, *values, **params)`` with ``get_bind_params``, so values are what JAX computes.

State is a tuple of immutable ``Frame`` s (program, pc, loop state) whose ``env`` dicts are only ever
added to (a jaxpr is in SSA form).  A move records ``(frames before, writes, last outputs)`` so that
``back()`` restores the frame tuple and deletes the keys the move wrote: references, never copies.
"""
from __future__ import annotations

import contextlib
import linecache
from collections import deque
from typing import NamedTuple

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxprlens.model import _jax
from jaxprlens.engine.conditions import CONDITIONS, condition, has_nan  # noqa: F401 - CONDITIONS: replay's grammar
from jaxprlens.engine.frames import (Frame, Scan, StepTypeError, While, _as_array, _bind_params, _Op, _outputs, _read,  # noqa: F401
                     _typed, check_types, declared_types, enter_call, enter_rules, finish_rules, over_note)
from jaxprlens.engine.jitcheck import (JIT_ATOL, JIT_BUDGET, JIT_RTOL, JitCheck, JitDiff, check, compare, host_calls,  # noqa: F401
                                       compiled_outputs, flat, low_precision)
from jaxprlens.model.cellsource import typed_line
from jaxprlens.model.program import Eqn, Lit, Program, Var, path_id, var_text, where_label
from jaxprlens.model.errors import KeyedError


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


class Edit(NamedTuple):
    """One ``set_value``: the value ``name`` (model ``var``) at ``where`` (``Stepper.where``) went from ``old`` to
    ``new``."""
    name: str
    var: Var
    where: str
    old: object
    new: object


CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "callback"})


class Stepper:
    """``program.stepper(*args)``: step, step into, step out, back, run, breakpoints, ``set_value`` (what if)."""

    def __init__(self, program: Program, *args, device=None, max_history: int = 10_000,
                 break_on_nan: bool = False, jit_rtol: float = JIT_RTOL, jit_atol: float = JIT_ATOL,
                 jit_budget: int | None = JIT_BUDGET):
        self.program = program
        self.jit_rtol, self.jit_atol, self.jit_budget = float(jit_rtol), float(jit_atol), jit_budget
        self.device = resolve_device(device)
        self.max_history = max_history
        self.break_on_nan = break_on_nan
        self._ops_cache: dict = {}
        # Entering an eqn's context costs a microsecond; skip it where it equals the current one.
        self._default_ctx = jex.new_jaxpr_eqn([], [], lax.add_p, {}, set()).ctx
        self._consts_cache: dict = {}
        self._jit_outputs: list | None = None
        self._jit_error: tuple | None = None       # (exception type, first line) when jax.jit raised
        self._eqns: int | None = None              # equations in all (the comparison's budget counts them)
        self._blocks: dict = {}                    # program -> whether a host callback runs somewhere in it
        self._low: str | None = None               # the narrowest float type the program computes in
        self._specs: set = set()
        self._bp: frozenset = frozenset()          # eqns that are breakpoints
        self._bp_inside: frozenset = frozenset()   # eqns with a breakpoint somewhere inside
        self._conditions: dict = {}                # 'max > 1e3' -> predicate on one written value
        self.args = self._flat_args(args)
        self.reset()

    # ---------------------------------------------------------- setup
    def _flat_args(self, args: tuple) -> list:
        p = self.program
        flat = list(p.args) if not args else p.flat_args(args)
        if len(flat) != len(p.invars):
            raise KeyedError("step_inputs", n=len(p.invars), names=", ".join(v.path or v.name for v in p.invars),
                             k=len(flat))
        values = []
        for v, x in zip(p.invars, flat):
            x = jnp.asarray(x, dtype=getattr(v.aval, "dtype", None))
            if x.shape != getattr(v.aval, "shape", x.shape):
                raise KeyedError("step_input_shape", name=v.path or v.name, type=v.type, shape=str(x.shape))
            values.append(jax.device_put(x, self.device) if self.device is not None else x)
        return values

    def _ops(self, program: Program) -> list:
        # Kept in the program's memo too: every stepper of it (the live one, the recording, the snapshot) shares
        # them (12 us an eqn to make: 1.2 s at 100k equations); they depend on the program alone.
        ops = self._ops_cache.get(program) or program.memo.get("stepper.ops")
        if ops is None:
            ops = []
            for eqn in program.eqns:
                prim = eqn.raw.primitive
                params = _bind_params(prim, eqn.raw.params)
                ops.append(_Op(eqn, prim, None if "subfuns" in params else params, tuple(eqn.invars),
                               any(isinstance(a, Lit) for a in eqn.invars), eqn.outvars,
                               prim.multiple_results,
                               None if eqn.raw.ctx is self._default_ctx else eqn.raw.ctx,
                               declared_types(eqn.outvars), self._calls_back(eqn)))
            program.memo["stepper.ops"] = ops
        self._ops_cache[program] = ops
        return ops

    def _calls_back(self, eqn: Eqn) -> bool:
        """Whether a host callback runs in ``eqn`` (itself, or anywhere in its sub-jaxprs)."""
        if eqn.primitive in CALLBACKS or eqn.raw.effects:
            return True
        for s in eqn.subs:
            hit = self._blocks.get(s.program)
            if hit is None:
                hit = self._blocks[s.program] = any(self._calls_back(e) for e in s.program.eqns)
            if hit:
                return True
        return False

    def _consts(self, program: Program) -> list:
        consts = self._consts_cache.get(program)
        if consts is None:
            consts = list(program.consts)
            for v, c in zip(program.constvars, consts):
                if isinstance(c, jax.core.Tracer):
                    raise KeyedError("step_leaked_tracer", var=var_text(v))
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
        self.written = ()       # the values the last step wrote (what conditions test; () after entering a frame)
        self.stop = None        # why the last move stopped: Stop(kind, eqn, condition) or None
        self.note = None
        self.ended = None       # how the last run/step_out ended when no Stop said so: "out_top", "no_stop"
        self._taint: dict = {}  # id -> value, for every value computed from an edited one (kept alive: ids stay unique)
        self._edits: list = []
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
    def where(self) -> tuple:
        """The frame stack as data, ``present.words.path_text`` says it (``while[eqn 2] › body › iteration 3 ›
        eqn 1``): ``((eqn entered, its sub-jaxpr, loop state or None), ...)`` below the top, then the current
        frame's pc; ``()`` once done."""
        if self.done:
            return ()
        return tuple((f.eqn, f.sub, f.loop) for f in self._frames[1:]) + (self._frames[-1].pc,)

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
        raise KeyedError("bp_needs")

    def add_breakpoint(self, spec=None, **kw):
        """By eqn id (``"2/body/1"`` or ``eqn=``), primitive name (``"mul"``), or cell line (``line=3``)."""
        spec = self._spec(spec, **kw)
        if spec[0] == "eqn" and self._locate(spec[1]) is None:
            try:
                self.program.find(spec[1])       # in a body never entered (a combiner's): set, but cannot stop
            except KeyError:
                ids = [e.id for e in self.program.walk()]
                shown = ids if len(ids) <= 12 else ids[:6] + ["…"] + ids[-3:]
                raise KeyedError("bp_no_eqn", eqn=repr(str(spec[1])[:80]), n=len(ids), ids=", ".join(shown)) from None
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

    def _locate(self, eqn_id: str):
        """``(eqn, the eqns it is inside)`` for an eqn id a step can reach (not in a combiner's or a per-device
        body), or None: found along its path (``2/body/1``), in O(depth), so that a breakpoint by id costs the
        same at 100k equations as at 10 (a gutter click)."""
        parts, program, above = str(eqn_id).split("/"), self.program, ()
        for i in range(0, len(parts), 2):
            if not parts[i].isdigit() or int(parts[i]) >= len(program.eqns):
                return None
            eqn = program.eqns[int(parts[i])]
            if i + 1 == len(parts):
                return (eqn, above) if eqn.id == eqn_id else None
            sub = next((s for s in eqn.subs if s.key == parts[i + 1]), None)
            if sub is None or sub.kind:
                return None
            program, above = sub.program, above + (eqn,)
        return None

    def _update_breakpoints(self):
        if all(spec[0] == "eqn" for spec in self._specs):      # by id: along each one's path
            hits = [h for h in (self._locate(spec[1]) for spec in self._specs) if h is not None]
            self._bp = frozenset(eqn for eqn, _ in hits)
            self._bp_inside = frozenset(e for _, above in hits for e in above)
            return
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
    @contextlib.contextmanager
    def _one_move(self):
        """Run/step out as ONE entry of the history, so that ``back()`` undoes the whole move: while it runs,
        its steps are collected (``_Move``) instead of recorded, then kept as one entry (even when a step
        raised: back() then undoes what ran)."""
        real, move = self._history, _Move(self._frames, self.last_eqn, self.last_outputs)
        self._history = move
        try:
            yield
        finally:
            self._history = real
            if move.moved:
                self._record(move.frames, move.writes, move.last_eqn, move.last_outputs)

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
        if op.block:       # a callback that raises does so here, at its own eqn, not at the next one (GPU)
            jax.block_until_ready(out)
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
        self.stop = self.note = self.ended = None
        frames = self._frames
        top = frames[-1]
        pc, ops = top.pc, top.ops
        if pc >= len(ops):
            return self
        op = ops[pc]
        env = top.env
        outs = self._bind(op, env)
        taint = self._taint and self._tainted_inputs(op, env)
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
            writes = ((env, op.outvars), ("taint", self._mark(outs))) if taint else ((env, op.outvars),)
        else:
            writes = [("taint", self._mark(outs))] if taint else []
            try:
                self._frames = self._complete(frames, outs, writes)
            except BaseException:
                self._undo(writes, last_eqn, last_outputs)
                raise
        h = self._history
        if len(h) == self._maxlen:
            self.history_truncated = True
        h.append((frames, writes, last_eqn, last_outputs))
        self.written = outs
        if self.break_on_nan and has_nan(outs):
            self.stop = Stop("nan", self.last_eqn)
        if self._conditions:
            hit = next((c for c, pred in self._conditions.items() if any(pred(x) for x in outs)), None)
            if hit is not None:
                self.stop = Stop("condition", self.last_eqn, hit)
        return self

    def _tainted_inputs(self, op: _Op, env) -> bool:
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

    def step_into(self):
        """Enter the current equation's sub-jaxpr (the branch taken, the loop's cond/body, the call)."""
        self.stop = self.note = self.ended = None
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
        self.written = ()
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
        """One move of run()/step_out(): False when stopped at a breakpoint or a condition.  With a condition
        (or ``break_on_nan``) set it steps into everything, so that it stops at the first step inside a loop
        body whose values meet it, not after the whole loop: it then goes through the very states repeated
        ``step_into`` goes through (what a recorded replay holds)."""
        eqn = self.current
        if not first and eqn in self._bp:
            self.stop = Stop("breakpoint", eqn)
            return False
        if eqn in self._bp_inside or self._conditions or self.break_on_nan:
            self.step_into()
        else:
            self.step()
        return self.stop is None

    def step_out(self):
        """Finish the current sub-jaxpr (the whole loop, for a loop body) and return to its caller, stopping on the
        way as ``run()`` does; one move (``back()`` undoes it whole).
        At the top level there is no caller: it runs on like ``run()`` and says so (``ended == "out_top"``)."""
        depth = len(self._frames)
        if depth == 1:
            if self.done:
                return self
            self.run()
            if self.stop is None:
                self.ended = "out_top"
            return self
        first = True
        with self._one_move():
            while len(self._frames) >= depth and not self.done:
                if not self._advance(first):
                    break
                first = False
        return self

    def run(self):
        """Run to the end, or to the next breakpoint (entering sub-jaxprs that hold one) or condition (entering
        every sub-jaxpr: it stops at the first step inside a loop whose values meet it).  One move: ``back()``
        undoes it whole.  When it ends with breakpoints or conditions set and none fired, ``ended`` is
        ``"no_stop"``."""
        self.stop = self.note = self.ended = None
        first = True
        with self._one_move():
            if not self._bp and not self._bp_inside and not self.break_on_nan and not self._conditions:
                step = self.step
                while not self.done:     # the hot path: one bind and one small record per eqn
                    step()
                return self
            moved = not self.done
            while not self.done:
                if not self._advance(first):
                    return self
                first = False
        if moved:
            self.ended = "no_stop"
        return self

    def back(self) -> bool:
        """Undo the last move exactly (values, position, frames, an edit); False when there is no history."""
        self.stop = self.note = self.ended = None
        if not self._history:
            return False
        frames, writes, last_eqn, last_outputs = self._history.pop()
        self._undo(writes, last_eqn, last_outputs)
        self._frames = frames
        self.written = ()
        return True

    def _undo(self, writes, last_eqn, last_outputs):
        for w in writes:
            head = w[0]
            if head == "taint":
                for i in w[1]:
                    self._taint.pop(i, None)
            elif head == "edit":
                _, env, var, old, new = w
                env[var] = old
                self._taint.pop(id(new), None)
                self._edits.pop()
                if not self._edits:
                    self._taint.clear()        # what is left is orphaned values: nothing is changed any more
            else:
                env, outvars = w
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

    # ---------------------------------------------------------- what if: edit a value and step on
    def set_value(self, name, value):
        """Replace the value ``name`` (a printed name or a model ``Var``) defined at the current position -- an
        input or constant of the current frame, or an output already computed -- with ``value`` of the same
        shape and dtype.  Stepping goes on from there with it; ``back()`` undoes it; ``changed`` says which
        values it reached."""
        frame = self._frames[-1]
        var = self._binder(frame, name)
        old = frame.env[var]
        new = _edited(var, old, value)
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

    def release(self):
        """Drop every value the stepper computed (history, frames, edits, jax.jit's outputs), back at the start:
        a debugger that is replaced calls this so its memory goes back at once."""
        self._history.clear()
        self._jit_outputs = None
        self._consts_cache.clear()
        self.reset()            # back at the first equation: the frames hold the inputs and constants only
        return self

    # ---------------------------------------------------------- eager vs compiled (engine/jitcheck.py)
    def _compiled(self):
        """``jax.jit``'s flat outputs on the stepper's inputs, compiled once; None when it raised (``_jit_error``)."""
        if self._jit_outputs is None and self._jit_error is None:
            try:
                self._jit_outputs = compiled_outputs(self.program, self.args)
            except Exception as exc:  # noqa: BLE001 - a failure of jit is itself the difference
                self._jit_error = (type(exc).__name__, (str(exc).splitlines() or [""])[0])
        return self._jit_outputs

    def _paths(self) -> list:
        return self.program.out_paths or [f"out[{i}]" for i in range(len(self.program.outvars))]

    def host_calls(self) -> tuple:
        """The host functions the program calls (``io_callback(count)``, ...): ``jax.jit`` of it calls them again."""
        return host_calls(self.program)

    def compare_with_jit(self, want=None, rtol: float = 1e-5, atol: float = 1e-6,
                         host: bool = False) -> JitDiff | None:
        """Once done: None when the stepped (eager) outputs equal compiled ones element by element (floats
        within ``rtol``/``atol``), else a ``JitDiff`` saying how (``present.words.jit_diff_text`` words it).

        ``want``: ``run()``'s result (or any pytree / flat list of the outputs); by default ``jax.jit`` of
        the program on the stepper's inputs, computed once.  A program that calls host functions
        (``io_callback``, ``pure_callback``, ``jax.debug.callback``) is not run again unless ``host``: the
        ``JitDiff`` is then ``host`` (naming them).
        """
        if not self.done:
            return None
        if want is None:
            if self.host_calls() and not host and self._jit_outputs is None:
                return JitDiff("host", detail=", ".join(self.host_calls()))
            want = self._compiled()
            if want is None:
                return JitDiff("failed", error=self._jit_error[0], detail=self._jit_error[1])
        return compare(self._paths(), _outputs(self._frames[0]), flat(want), rtol, atol)

    def low_precision(self) -> str:
        """The narrowest float type (below float32) the program computes in, e.g. ``bfloat16``; "" if none."""
        if self._low is None:
            self._low = low_precision(self.program)
        return self._low

    def jit_check(self, want=None, rtol: float | None = None, atol: float | None = None,
                  budget: int | None = -1, host: bool = False) -> JitCheck:
        """The stepped outputs against ``jax.jit`` of the program on the same inputs (or ``want``), as data.

        An element is within the tolerance when ``|stepped - compiled| <= atol + rtol * m``, ``m`` the
        output's largest magnitude (``jitcheck.check``).  ``rtol``/``atol`` default to the stepper's
        ``jit_rtol``/``jit_atol``; ``rtol`` is at least twice the epsilon of the narrowest float type the program
        computes in.  ``budget``: the most equations to compile (default the stepper's ``jit_budget``; ``None``:
        any).  A program that calls host functions (``host_calls``) is not run again unless ``host`` (status
        ``host``); when it is, the check says so in its ``host`` field."""
        rtol = self.jit_rtol if rtol is None else float(rtol)
        atol = self.jit_atol if atol is None else float(atol)
        low = self.low_precision()
        if low:
            rtol = max(rtol, 2 * float(jnp.finfo(low).eps))
        if not self.done:
            return JitCheck("running", rtol, atol, low=low)
        if self._edits:
            return JitCheck("edited", rtol, atol, low=low)
        calls = ", ".join(self.host_calls()) if want is None else ""
        if calls and not host and self._jit_outputs is None and self._jit_error is None:
            return JitCheck("host", rtol, atol, low=low, host=calls)
        if want is None:
            budget = self.jit_budget if budget == -1 else budget
            if self._jit_outputs is None and self._jit_error is None and budget is not None:
                if self._eqns is None:
                    self._eqns = sum(1 for _ in self.program.walk())
                if self._eqns > budget:
                    return JitCheck("skipped", rtol, atol, low=low, eqns=self._eqns, budget=budget)
            want = self._compiled()
            if want is None:
                return JitCheck("failed", rtol, atol, low=low, detail=": ".join(self._jit_error), host=calls)
        return check(self._paths(), _outputs(self._frames[0]), flat(want), rtol, atol, low)._replace(host=calls)

    def __repr__(self) -> str:
        f = self._frames[-1]
        where = "done" if self.done else f"eqn {f.pc} of {path_id(f.program.path) or 'the top level'}"
        return f"<jaxprlens.Stepper: {where}>"



class _Move:
    """The steps of one run/step out, gathered into one history entry: the state before the first step, and
    the writes into the environments that existed then (the only ones an undo must clean: every other
    environment is made by the move and dropped with it), so that a long run keeps no more than that."""
    __slots__ = ("frames", "last_eqn", "last_outputs", "writes", "envs", "moved")

    def __init__(self, frames, last_eqn, last_outputs):
        self.frames, self.last_eqn, self.last_outputs = frames, last_eqn, last_outputs
        self.envs = {id(f.env) for f in frames}
        self.writes: list = []
        self.moved = False

    def __len__(self) -> int:          # never full: the history's cap counts the move once
        return 0

    def append(self, entry):
        self.moved = True
        envs, keep = self.envs, self.writes
        for w in entry[1]:
            head = w[0]
            if isinstance(head, str) or id(head) in envs:      # taint marks and edits; writes into kept envs
                keep.append(w)


# ---------------------------------------------------------------- source context

def source_context(eqn: Eqn | None, radius: int = 3) -> list:
    """Lines around the eqn's user source line: ``[(line number, text, is_current), ...]``; a notebook cell's
    as the reader typed them (``%load_ext jaxprlens``, not the ``get_ipython()`` call IPython compiled)."""
    if eqn is None:
        return []
    frame = _jax.user_frame(eqn.raw)
    if frame is None:
        return []
    lines = linecache.getlines(frame.file)
    if not lines:
        return [(frame.line, frame.text, True)]
    lo, hi = max(1, frame.line - radius), min(len(lines), frame.line + radius)
    typed = typed_line if where_label(frame.file) == "cell" else (lambda text: text)
    return [(n, typed(lines[n - 1].rstrip("\n")), n == frame.line) for n in range(lo, hi + 1)]


def _edited(var: Var, old, value):
    """``value`` as the stepper's new value for ``var`` (same shape, dtype, weak type and device as ``old``),
    or a ValueError saying what to pass."""
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
        if (raw.dtype.kind == "c" and target.kind != "c") or (raw.dtype.kind in "fc" and target.kind in "biu") \
                or raw.dtype.kind not in "biufc":
            raise KeyedError("set_wrong_dtype", name=var.name, type=var.type, value=repr(value), dtype=target.name)
        x = jnp.asarray(raw, dtype=dtype)
    x = _typed(x, aval)
    sharding = getattr(old, "sharding", None)
    if isinstance(old, jax.Array) and sharding is not None:
        x = jax.device_put(x, sharding)
    return x
