"""Cost estimates per equation: FLOPs and bytes moved (inputs read + outputs written), as a rule table.

``cost_rules[prim](eqn, ctx) -> Cost``.  Where ``jax.experimental.roofline`` has a real rule for a
primitive (elementwise, ``reduce_sum``, ``dot_general``, ``conv_general_dilated``, gathers, scatters,
collectives) we call it; our own rules cover the rest and stand in when roofline cannot be imported
(it needs ``absl-py``).  Loops cost one iteration times the trip count where the jaxpr tells it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Callable

import math

import numpy as np

from jaxprlens.model import _jax
from jaxprlens.model.program import Eqn, Lit, Program, path_id
from jaxprlens.model.taxonomy import names

# ---------------------------------------------------------------- the Cost value

@dataclass(frozen=True)
class Cost:
    """An estimate for one equation (or a total).

    ``bound`` is ``=`` for a plain estimate, ``≤`` for a ``cond`` (its most expensive branch), ``≥``
    where a loop's trip count is unknown (one iteration counted), ``≈`` when those mix.  ``per``,
    ``times`` and ``unit`` describe a repeated body: ``16 × (body)`` for a scan, ``8 devices × (body)``
    for a ``shard_map``.  ``times`` is None for a loop whose trip count is unknown.
    """
    flops: int = 0
    bytes: int = 0
    transcendentals: int = 0
    comm_bytes: int = 0          # bytes between devices (collectives), from roofline when it knows the mesh
    bound: str = "="
    per: Cost | None = None
    times: int | None = None
    unit: str = ""
    origin: str = "rule"         # "roofline", "rule", "default" (no rule: 0 FLOP, bytes in + out), "total"

    @property
    def intensity(self) -> float | None:
        """Arithmetic intensity, FLOPs per byte moved (None when nothing moves)."""
        return self.flops / self.bytes if self.bytes else None

    def __add__(self, other: Cost) -> Cost:
        return Cost(self.flops + other.flops, self.bytes + other.bytes,
                    self.transcendentals + other.transcendentals, self.comm_bytes + other.comm_bytes,
                    _join(self.bound, other.bound), origin="total")

    def scaled(self, n: int, unit: str = "") -> Cost:
        """``n`` repetitions of this cost, remembering the per-repetition cost for display."""
        return Cost(self.flops * n, self.bytes * n, self.transcendentals * n, self.comm_bytes * n,
                    self.bound, per=self, times=n, unit=unit, origin="total")


def _join(a: str, b: str) -> str:
    if a == "=":
        return b
    if b == "=" or a == b:
        return a
    return "≈"


ZERO = Cost(origin="total")


class Costs(dict):
    """``{eqn_id: Cost}`` for every equation at every depth, plus ``totals``: ``{program path id: Cost}``
    (``""`` for the whole program, ``"2/body"`` for a sub-jaxpr, per execution of that sub-jaxpr)."""

    def __init__(self):
        super().__init__()
        self.totals: dict[str, Cost] = {}

    @property
    def total(self) -> Cost:
        return self.totals.get("", ZERO)


# ---------------------------------------------------------------- helpers

def _size(aval) -> int:
    shape = getattr(aval, "shape", None)
    return int(np.prod(shape)) if shape is not None else 0


def nbytes(aval) -> int:
    """Bytes of a value of type ``aval`` (0 for tokens and PRNG keys: no plain itemsize)."""
    try:
        return int(math.prod(aval.shape)) * np.dtype(aval.dtype).itemsize
    except (AttributeError, TypeError):
        return 0


def _avals(atoms) -> list:
    return [a.aval for a in atoms]


def bytes_moved(eqn: Eqn) -> int:
    """Inputs read plus outputs written."""
    return sum(nbytes(a) for a in _avals(eqn.invars)) + sum(nbytes(a) for a in _avals(eqn.outvars))


def _out_size(eqn: Eqn) -> int:
    return sum(_size(v.aval) for v in eqn.outvars)


# ---------------------------------------------------------------- context

@dataclass
class Ctx:
    """What a rule may ask about the surroundings of its equation."""
    program: Program             # the (sub-)program that holds the equation
    result: Costs
    mesh: object = None          # the mesh of an enclosing shard_map (roofline's collectives need it)

    def total(self, sub_program: Program, mesh=None) -> Cost:
        return _program_total(sub_program, self.result, mesh if mesh is not None else self.mesh)

    def value(self, atom):
        """The concrete value of a literal or of a hoisted constant, else None."""
        if isinstance(atom, Lit):
            return atom.val
        for v, c in zip(self.program.constvars, self.program.consts):
            if v is atom:
                return c
        return None


# ---------------------------------------------------------------- own rules

def _elementwise(eqn: Eqn, ctx: Ctx) -> Cost:
    return Cost(flops=_out_size(eqn), bytes=bytes_moved(eqn))


def _transcendental(eqn: Eqn, ctx: Ctx) -> Cost:
    n = _out_size(eqn)
    return Cost(flops=n, bytes=bytes_moved(eqn), transcendentals=n)


def _reduction(eqn: Eqn, ctx: Ctx) -> Cost:
    # n values reduce with n - 1 operations, for each element of the result.
    n_in = _size(eqn.invars[0].aval)
    n_out = _size(eqn.outvars[0].aval)
    return Cost(flops=max(n_in - n_out, 0), bytes=bytes_moved(eqn))


def _cumulative(eqn: Eqn, ctx: Ctx) -> Cost:
    return Cost(flops=_size(eqn.invars[0].aval), bytes=bytes_moved(eqn))


def _dot_general(eqn: Eqn, ctx: Ctx) -> Cost:
    (lc, _rc), (lb, _rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars[0].aval.shape, eqn.invars[1].aval.shape
    k = int(np.prod([lhs[i] for i in lc]))
    batch = int(np.prod([lhs[i] for i in lb]))
    # 2 * batch * M * N * K, with M*K*batch = lhs.size and N*K*batch = rhs.size.
    flops = 2 * int(np.prod(lhs)) * int(np.prod(rhs)) // max(k * batch, 1)
    return Cost(flops=flops, bytes=bytes_moved(eqn))


def _conv(eqn: Eqn, ctx: Ctx) -> Cost:
    dn = eqn.params["dimension_numbers"]
    rhs = eqn.invars[1].aval.shape
    out_features = rhs[dn.rhs_spec[0]]
    # Each output element is a dot of (input features per group x kernel window) terms.
    # Counts padded positions too (roofline's own rule, used when available, skips them).
    macs = _size(eqn.outvars[0].aval) * int(np.prod(rhs)) // max(out_features, 1)
    return Cost(flops=2 * macs, bytes=bytes_moved(eqn))


def _movement(eqn: Eqn, ctx: Ctx) -> Cost:
    return Cost(flops=0, bytes=bytes_moved(eqn))


def _collective(eqn: Eqn, ctx: Ctx) -> Cost:
    ins = sum(nbytes(a) for a in _avals(eqn.invars))
    return Cost(flops=_out_size(eqn), bytes=bytes_moved(eqn), comm_bytes=ins)


def _calls(eqn: Eqn, ctx: Ctx) -> Cost:
    total = ZERO
    for sub in eqn.subs:
        total = total + ctx.total(sub.program)
    return total


def _shard_map(eqn: Eqn, ctx: Ctx) -> Cost:
    mesh = eqn.params.get("mesh")
    body = _calls_with_mesh(eqn, ctx, mesh)
    n = int(getattr(mesh, "size", 0) or 0)
    return body.scaled(n, "devices") if n > 1 else body


def _calls_with_mesh(eqn: Eqn, ctx: Ctx, mesh) -> Cost:
    total = ZERO
    for sub in eqn.subs:
        total = total + ctx.total(sub.program, mesh)
    return total


def _cond(eqn: Eqn, ctx: Ctx) -> Cost:
    branches = [ctx.total(s.program) for s in eqn.subs]
    if not branches:
        return ZERO
    worst = max(branches, key=lambda c: (c.flops, c.bytes))
    bound = "=" if all((b.flops, b.bytes) == (worst.flops, worst.bytes) for b in branches) else "≤"
    return replace(worst, bound=_join(worst.bound, bound), per=None, times=None, unit="", origin="total")


def _scan(eqn: Eqn, ctx: Ctx) -> Cost:
    body = ctx.total(eqn.subs[0].program)
    return body.scaled(int(eqn.params["length"]))


def _while(eqn: Eqn, ctx: Ctx) -> Cost:
    subs = {s.key: s for s in eqn.subs}
    per = ctx.total(subs["cond"].program) + ctx.total(subs["body"].program)
    trips = while_trip_count(eqn, ctx)
    if trips is None:
        return Cost(per.flops, per.bytes, per.transcendentals, per.comm_bytes, "≥", per=per, times=None,
                    origin="total")
    return per.scaled(trips)


def while_trip_count(eqn: Eqn, ctx: Ctx) -> int | None:
    """Trip count of a ``while`` shaped like ``fori_loop``: cond is ``i < stop`` (or ``stop > i``), the
    body adds 1 to ``i`` and keeps ``stop``; start and stop literals or hoisted constants.  Else None."""
    p = eqn.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cond = next(s.program for s in eqn.subs if s.key == "cond")
    body = next(s.program for s in eqn.subs if s.key == "body")
    if len(cond.eqns) != 1 or cond.eqns[0].primitive not in ("lt", "gt"):
        return None
    test = cond.eqns[0]
    if test.primitive == "gt":
        stop_atom, i_atom = test.invars
    else:
        i_atom, stop_atom = test.invars
    if test.outvars[0] is not cond.outvars[0] or i_atom not in cond.invars:
        return None
    k = cond.invars.index(i_atom) - cn          # carry position of the counter
    if k < 0:
        return None
    if isinstance(stop_atom, Lit):
        stop = stop_atom.val
    elif stop_atom in cond.invars:
        j = cond.invars.index(stop_atom)
        if j < cn:
            stop = ctx.value(eqn.invars[j])
        else:
            m = j - cn                              # the stop lives in the carry: the body must keep it
            if body.outvars[m] is not body.invars[bn + m]:
                return None
            stop = ctx.value(eqn.invars[cn + bn + m])
    else:
        return None
    start = ctx.value(eqn.invars[cn + bn + k])
    step = next((e for e in body.eqns if e.outvars and e.outvars[0] is body.outvars[k]), None)
    if (step is None or step.primitive != "add" or step.invars[0] is not body.invars[bn + k]
            or not isinstance(step.invars[1], Lit) or np.asarray(step.invars[1].val) != 1):
        return None
    if start is None or stop is None or np.ndim(start) or np.ndim(stop):
        return None
    return max(int(stop) - int(start), 0)


def _default(eqn: Eqn, ctx: Ctx) -> Cost:
    if eqn.subs:
        return _calls(eqn, ctx)
    return Cost(flops=0, bytes=bytes_moved(eqn), origin="default")


ELEMENTWISE = names("elementwise")
TRANSCENDENTAL = names("transcendental")
REDUCTIONS = names("reduction")
CUMULATIVE = names("cumulative")
MOVEMENT = names("data movement")
COLLECTIVES = names("collective")
CALLS = names("call")

cost_rules: dict[str, Callable] = {
    **dict.fromkeys(ELEMENTWISE, _elementwise),
    **dict.fromkeys(TRANSCENDENTAL, _transcendental),
    **dict.fromkeys(REDUCTIONS, _reduction),
    **dict.fromkeys(CUMULATIVE, _cumulative),
    **dict.fromkeys(MOVEMENT, _movement),
    **dict.fromkeys(COLLECTIVES, _collective),
    **dict.fromkeys(CALLS, _calls),
    "dot_general": _dot_general,
    "conv_general_dilated": _conv,
    "shard_map": _shard_map,
    "cond": _cond,
    "scan": _scan,
    "while": _while,
}


# ---------------------------------------------------------------- roofline's rules

def _roofline_rules() -> dict:
    """``{primitive name: rule}`` for roofline's real rules (not its zero-cost placeholders); ``{}``
    when ``jax.experimental.roofline`` cannot be imported (it needs ``absl-py``)."""
    global _ROOFLINE
    if _ROOFLINE is None:
        registry = _jax.roofline_registry()
        _ROOFLINE = {prim.name: (prim, rule) for prim, rule in registry.items()
                     if getattr(rule, "__name__", "") != "standard_rule"}
    return _ROOFLINE


_ROOFLINE: dict | None = None


def _from_roofline(eqn: Eqn, ctx: Ctx) -> Cost | None:
    entry = _roofline_rules().get(eqn.primitive)
    if entry is None or entry[0] is not eqn.jax_primitive:
        return None
    from jax.experimental import roofline
    _prim, rule = entry
    raw = eqn.raw
    try:
        avals_in, avals_out = _avals(eqn.invars), _avals(eqn.outvars)
        rctx = roofline.RooflineRuleContext(
            name_stack=raw.source_info.name_stack, primitive=raw.primitive, avals_in=avals_in,
            avals_out=avals_out, jaxpr_eqn_ctx=raw.ctx, mesh=ctx.mesh, pin_lhs_in_vmem=False,
            pin_rhs_in_vmem=False)
        shapes = [roofline.RooflineShape.from_aval(a) for a in avals_in]
        r = rule(rctx, *shapes, **raw.params)
    except Exception:  # noqa: BLE001 - e.g. a collective outside a known mesh, or a token operand
        return None
    comm = sum(int(v) for v in r.ici_bytes.values())
    nbytes = max(r.hbm_bytes, r.unfused_hbm_bytes)
    if comm and not nbytes:
        nbytes = bytes_moved(eqn)
    trans = _out_size(eqn) if eqn.primitive in TRANSCENDENTAL else 0
    flops = int(max(r.flops, r.unfused_flops))
    if eqn.outvars and _out_size(eqn) == 0:
        flops = 0       # nothing computed; roofline's binary rule broadcasts 0 with 1 to 1 element
    return Cost(flops=flops, bytes=int(nbytes), transcendentals=trans,
                comm_bytes=comm, origin="roofline")


# ---------------------------------------------------------------- walking

def cost_of(eqn: Eqn, ctx: Ctx) -> Cost:
    """One equation's cost: roofline's rule when it has one, else ours, else bytes only."""
    if not eqn.subs:
        found = _from_roofline(eqn, ctx)
        if found is not None:
            return found
    return cost_rules.get(eqn.primitive, _default)(eqn, ctx)


def _program_total(program: Program, result: Costs, mesh=None) -> Cost:
    ctx = Ctx(program, result, mesh)
    total = ZERO
    for eqn in program.eqns:
        c = cost_of(eqn, ctx)
        result[eqn.id] = c
        total = total + c
    result.totals[path_id(program.path)] = total
    return total


def costs(program: Program) -> Costs:
    """``{eqn_id: Cost}`` for every equation, with ``.totals`` per (sub-)program and ``.total``."""
    result = Costs()
    _program_total(program, result)
    return result
