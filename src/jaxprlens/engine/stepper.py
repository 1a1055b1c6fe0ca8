"""The stepping engine: execute a Program equation by equation with real values, into and out of sub-jaxprs.

Pure Python over the model (no IPython, no widgets).  Every equation runs as JAX runs it eagerly,
``primitive.bind(*subfuns, *values, **params)`` with ``get_bind_params``, so values are what JAX computes.

State is a tuple of immutable ``Frame`` s (program, pc, loop state) whose ``env`` dicts are only ever
added to (a jaxpr is in SSA form).  This module holds the state and the moves (step, into, out, run); the
``Stepper`` is made of one concern a module: ``engine.history`` (back, goto), ``engine.breakpoints`` (where a run
stops), ``engine.whatif`` (edits) and ``engine.jitcheck`` (the comparison with jax.jit, an explicit step).
"""
from __future__ import annotations

import ctypes
from typing import NamedTuple

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxprlens.engine.breakpoints import Breakpoints
from jaxprlens.engine.conditions import CONDITIONS, has_nan  # noqa: F401 - CONDITIONS: replay's grammar
from jaxprlens.engine.frames import (Frame, Scan, StepTypeError, While, _as_array, _bind_params, _Op, _outputs, _read,  # noqa: F401 - the stepper's API
                     check_types, declared_types, enter_call, enter_rules, finish_rules, over_note)
from jaxprlens.engine.history import History
from jaxprlens.engine.memory import deaths
from jaxprlens.engine.jitcheck import JIT_ATOL, JIT_BUDGET, JIT_RTOL, JitComparison
from jaxprlens.engine.whatif import EDITS, Edit, WhatIf  # noqa: F401 - Edit, EDITS: the what-if API
from jaxprlens.model.cellsource import source_context  # noqa: F401 - the debugger's source listing reads it here
from jaxprlens.model.errors import KeyedError  # noqa: F401 - the input checks raise keys (helper cat's branch)
from jaxprlens.model.program import Eqn, Lit, Program, path_id, var_text


# ---------------------------------------------------------------- devices

def resolve_device(spec):
    """``None``: values stay where they are; otherwise the runner's choice (``"cpu"``, ``"gpu:1"``)."""
    if spec is None:
        return None
    from jaxprlens.engine.devices import resolve_device as runner_resolve
    return runner_resolve(spec)


# ---------------------------------------------------------------- the engine

_MISSING = object()
TRIM_BYTES = 8 << 20       # values dropped at once past which the C heap's free memory goes back to the system


def _trim() -> None:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``; nothing elsewhere)."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc(0)


_libc = None



class Stop(NamedTuple):
    """Why a move stopped: ``kind`` is breakpoint, nan or condition; ``eqn`` where; ``condition`` which."""
    kind: str
    eqn: Eqn
    condition: str = ""


PROGRESS_STEPS = 256       # steps of a run between calls of ``Stepper.progress``
CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "callback"})


class Stepper(History, Breakpoints, WhatIf, JitComparison):
    """``program.stepper(*args)``: step, step into, step out, back, run, breakpoints, ``set_value`` / ``edit``
    (what if), ``jit_check`` (eager against compiled)."""

    def __init__(self, program: Program, *args, device=None, max_history: int = 10_000,
                 break_on_nan: bool = False, jit_rtol: float = JIT_RTOL, jit_atol: float = JIT_ATOL,
                 jit_budget: int | None = JIT_BUDGET, forward_only: bool = False):
        """``forward_only``: no history (``back()`` has nothing to undo) and every value dropped once no later
        equation of its frame reads it (``forget``), so that stepping holds what the program itself holds live,
        not every value it made (a recorded replay steps so)."""
        self.program = program
        self.forward_only = forward_only
        self.progress = None                       # called every PROGRESS_STEPS steps of a run or step out
        self._ticks = 0
        self._swept: dict = {}                     # id(frame env) -> (env, the pc up to which its dead are gone)
        self._init_jitcheck(jit_rtol, jit_atol, jit_budget)
        self.device = resolve_device(device)
        self.max_history = max_history
        self.break_on_nan = break_on_nan
        self._ops_cache: dict = {}
        # Entering an eqn's context costs a microsecond; skip it where it equals the current one.
        self._default_ctx = jex.new_jaxpr_eqn([], [], lax.add_p, {}, set()).ctx
        self._consts_cache: dict = {}
        self._blocks: dict = {}                    # program -> whether a host callback runs somewhere in it
        self._init_breakpoints()
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
        self._init_history()
        self.last_eqn = None
        self.last_outputs = None
        self.written = ()       # the values the last step wrote (what conditions test; () after entering a frame)
        self.stop = None        # why the last move stopped: Stop(kind, eqn, condition) or None
        self.note = None
        self.ended = None       # how the last run/step_out ended when no Stop said so: "out_top", "no_stop"
        self._init_whatif()
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

    # ---------------------------------------------------------- moves
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

    def advance_while(self, inside) -> Stepper:
        """One move (``back()`` undoes it whole): advance as ``run()`` does, stopping at a breakpoint or a
        condition, while ``inside(self)`` holds and the program is not done (``step_out``, and
        ``engine.landings.over_call``'s "over a call")."""
        first, self._ticks = True, 0
        with self._one_move():
            while not self.done and inside(self):
                if not self._advance(first):
                    break
                first = False
        return self

    def _tick(self):
        """Count a step of a long move and, every ``PROGRESS_STEPS``, call ``progress`` (a debugger shows where the
        move has got to: the kernel is busy until it ends)."""
        self._ticks += 1
        if self.progress is not None and self._ticks % PROGRESS_STEPS == 0:
            self.progress()

    def _advance(self, first: bool) -> bool:
        """One move of run()/step_out(): False when stopped at a breakpoint or a condition.  With a condition
        (or ``break_on_nan``) set it steps into everything, so that it stops at the first step inside a loop
        body whose values meet it, not after the whole loop: it then goes through the very states repeated
        ``step_into`` goes through (what a recorded replay holds)."""
        self._tick()
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
        return self.advance_while(lambda st: len(st._frames) >= depth)

    def run(self):
        """Run to the end, or to the next breakpoint (entering sub-jaxprs that hold one) or condition (entering
        every sub-jaxpr: it stops at the first step inside a loop whose values meet it).  One move: ``back()``
        undoes it whole.  When it ends with breakpoints or conditions set and none fired, ``ended`` is
        ``"no_stop"``."""
        self.stop = self.note = self.ended = None
        first, self._ticks = True, 0
        with self._one_move():
            if not self._bp and not self._bp_inside and not self.break_on_nan and not self._conditions:
                step = self.step
                if self.progress is None:
                    while not self.done:     # the hot path: one bind and one small record per eqn
                        step()
                    return self
                while not self.done:
                    step()
                    self._tick()
                return self
            moved = not self.done
            while not self.done:
                if not self._advance(first):
                    return self
                first = False
        if moved:
            self.ended = "no_stop"
        return self

    def forget(self) -> int:
        """Drop from every frame the values no equation at or after its position reads (nor its results): what
        a ``forward_only`` stepper does after each move.  Returns the bytes that went; past ``TRIM_BYTES`` the
        C heap is given back to the system at once (glibc keeps freed blocks under 32 MB otherwise: the
        process would grow by every value made, not by the values live)."""
        swept, gone = {}, 0
        for f in self._frames:
            dies, env = deaths(f.program), f.env
            seen = self._swept.get(id(env))          # (env, pc): the env itself kept, so its id is not reused
            start = seen[1] if seen is not None and seen[0] is env else 0
            for i in range(start, min(f.pc, len(dies))):
                for v in dies[i]:
                    x = env.pop(v, _MISSING)
                    if x is not _MISSING:
                        gone += getattr(x, "nbytes", 0) if isinstance(x, (jax.Array, np.ndarray)) else 0
            swept[id(env)] = (env, max(start, f.pc))
        self._swept = swept
        if gone >= TRIM_BYTES:
            _trim()
        return gone

    def release(self):
        """Drop every value the stepper computed (history, frames, edits, jax.jit's outputs), back at the start:
        a debugger that is replaced calls this so its memory goes back at once."""
        self._history.clear()
        self._release_jit()
        self._consts_cache.clear()
        self.reset()            # back at the first equation: the frames hold the inputs and constants only
        return self

    def __repr__(self) -> str:
        f = self._frames[-1]
        where = "done" if self.done else f"eqn {f.pc} of {path_id(f.program.path) or 'the top level'}"
        return f"<jaxprlens.Stepper: {where}>"

