"""The stepper's history: every move records ``(frames before, writes, last eqn, last outputs)`` so that
``back()`` restores the frame tuple and deletes the keys the move wrote (references, never copies).

A mixin of ``engine.stepper.Stepper``.  A write is ``(env, outvars)`` (a step's outputs), ``("taint", ids)``
(values an edit reached, ``engine.whatif``) or ``("edit", env, var, old, new)`` (a ``set_value``).  Run and
step out gather their steps into one entry (``_Move``), so that one ``back()`` undoes the whole move.
"""
from __future__ import annotations

import contextlib
from collections import deque


class History:
    """Undo for a stepper: ``back``, ``goto``, the history's cap."""

    def _init_history(self):
        if getattr(self, "forward_only", False):     # nothing kept, and never said to be cut
            self._history, self._maxlen = deque(maxlen=0), -1
        else:
            self._history = deque(maxlen=self.max_history if self.max_history else None)
            self._maxlen = self._history.maxlen
        self.history_truncated = False

    @property
    def can_back(self) -> bool:
        return bool(self._history)

    @property
    def history_length(self) -> int:
        return len(self._history)

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
