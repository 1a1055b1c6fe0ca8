"""Where a run stops: breakpoints (by eqn id, primitive or source line) and value conditions, for the ``Stepper``.

A mixin of ``engine.stepper.Stepper``: it keeps the specs the reader set and the eqns they match, found once per
change (``_bp``: the eqns that are breakpoints; ``_bp_inside``: the eqns a run must enter to reach one), so that
a move tests a set, never the specs.  The conditions' grammar is ``engine.conditions``.
"""
from __future__ import annotations

from jaxprlens.engine.conditions import condition
from jaxprlens.model.errors import KeyedError
from jaxprlens.model.program import Eqn


class Breakpoints:
    """Breakpoints and conditions of a stepper over ``self.program``."""

    def _init_breakpoints(self):
        self._specs: set = set()
        self._bp: frozenset = frozenset()          # eqns that are breakpoints
        self._bp_inside: frozenset = frozenset()   # eqns with a breakpoint somewhere inside
        self._conditions: dict = {}                # 'max > 1e3' -> predicate on one written value

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
                hits = [visit(s.program) for s in eqn.subs if not s.kind]     # every sub visited, none skipped
                if any(hits):
                    inside.add(eqn)
                    found = True
            return found

        visit(self.program)
        self._bp, self._bp_inside = frozenset(bp), frozenset(inside)
