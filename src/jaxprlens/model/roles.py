"""Operand roles of higher-order primitives (cond, while, scan, jit, ...), as a rule table.

``role_rules[prim](eqn)`` says which operands play which role (index, consts, carry, xs) and how
each sub-jaxpr's binders and results map to the equation's operands and results, the way the seed
article reads ``while[...] c a 0 b d`` as "0 cond consts, 2 body consts, 3 carry".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import jax.extend.core as jex

from jaxprlens.model import _jax


@dataclass
class Roles:
    """Operand groups in order, e.g. ``[("cond_consts", 0), ("body_consts", 2), ("carry", 3)]``."""
    groups: list
    detail: dict = field(default_factory=dict)   # e.g. {"length": 16, "reverse": False} or {"name": "inner"}

    def count(self, key: str) -> int:
        """How many operands play role ``key`` (e.g. ``count("carry")``)."""
        return sum(n for k, n in self.groups if k == key)

    def of_operand(self, i: int) -> str:
        """The role key of operand ``i``."""
        for key, n in self.groups:
            if i < n:
                return key
            i -= n
        return "operand"


@dataclass
class SubSpec:
    key: str              # path component: "branch0", "cond", "body", "call"
    label: str            # what a reader sees: "branch 0 (false)", "body", "jit inner"
    jaxpr: Any            # ClosedJaxpr / Jaxpr
    in_map: list          # for each sub invar: index of the eqn operand bound to it (None: not from outside)
    out_map: list         # for each sub outvar: index of the eqn result it becomes (None: consumed inside)
    param: str = ""       # the eqn param holding it
    kind: str = ""        # "" (run on the operands) | "combiner" (per element) | "mapped" (per device/shard)
                          # | "kernel" (a Pallas kernel, per grid point on blocks) | "refs" (run on refs)


@dataclass
class Sub:
    key: str
    label: str
    program: Any          # model.Program
    in_map: list
    out_map: list
    param: str = ""
    kind: str = ""        # see SubSpec.kind: the stepper enters only a sub of kind ""


def _arity(j) -> tuple[int, int]:
    j = _jax.open_jaxpr(j)
    return len(j.invars), len(j.outvars)


def _identity(j, n_ops: int, n_outs: int, skip: int = 0) -> tuple[list, list]:
    nin, nout = _arity(j)
    in_map = [skip + i if skip + i < n_ops else None for i in range(nin)]
    out_map = [i if i < n_outs else None for i in range(nout)]
    return in_map, out_map


def _cond(eqn):
    branches = eqn.params["branches"]
    nops = len(eqn.invars) - 1
    meaning = ["false", "true"] if len(branches) == 2 else [None] * len(branches)
    subs = []
    for i, b in enumerate(branches):
        in_map, out_map = _identity(b, len(eqn.invars), len(eqn.outvars), skip=1)
        label = f"branch {i}" + (f" ({meaning[i]})" if meaning[i] else "")
        subs.append(SubSpec(f"branch{i}", label, b, in_map, out_map, "branches"))
    detail = {"branches": len(branches)}
    return Roles([("index", 1), ("operands", nops)], detail), subs


def _while(eqn):
    p = eqn.params
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    ncarry = len(eqn.invars) - cn - bn
    carry = list(range(cn + bn, cn + bn + ncarry))
    subs = [
        SubSpec("cond", "cond", p["cond_jaxpr"], list(range(cn)) + carry, [None], "cond_jaxpr"),
        SubSpec("body", "body", p["body_jaxpr"], list(range(cn, cn + bn)) + carry,
                list(range(ncarry)), "body_jaxpr"),
    ]
    return Roles([("cond_consts", cn), ("body_consts", bn), ("carry", ncarry)]), subs


def _scan(eqn):
    p = eqn.params
    nc, ncarry = _jax.scan_counts(eqn)
    nxs = len(eqn.invars) - nc - ncarry
    in_map, out_map = _identity(p["jaxpr"], len(eqn.invars), len(eqn.outvars))
    roles = Roles([("consts", nc), ("carry", ncarry), ("xs", nxs)],
                  {"length": p.get("length"), "reverse": p.get("reverse", False)})
    return roles, [SubSpec("body", "body", p["jaxpr"], in_map, out_map, "jaxpr")]


def _call(param: str, label: str, role: str = "args"):
    def rule(eqn):
        j = eqn.params[param]
        name = eqn.params.get("name") or _jax.func_name(j)
        in_map, out_map = _identity(j, len(eqn.invars), len(eqn.outvars))
        text = f"{label} {name}" if name else label
        detail = {"name": str(name)} if name else {}
        return Roles([(role, len(eqn.invars))], detail), [SubSpec("call", text, j, in_map, out_map, param)]
    return rule


def _combiner(params: tuple, groups: Callable):
    """reduce, reduce_window, scatter, select_and_scatter: each jaxpr param is a combiner of scalars
    that the primitive applies per element inside itself, not a body run on the operands, so no
    operand binds its binders and none of its results is the eqn's."""
    def rule(eqn):
        subs = []
        for param in params:
            j = eqn.params.get(param)
            if j is None:                  # scatter (set) has no update_jaxpr
                continue
            nin, nout = _arity(j)
            key = "combiner" if len(params) == 1 else param.removesuffix("_jaxpr")
            subs.append(SubSpec(key, COMBINER_LABELS[key], j, [None] * nin, [None] * nout, param, "combiner"))
        return Roles(groups(len(eqn.invars))), subs
    return rule


COMBINER_LABELS = {"combiner": "combiner (per element)", "select": "select (per element)",
                   "scatter": "scatter combiner (per element)"}
_SCATTER = _combiner(("update_jaxpr",), lambda n: [("operand", n - 2), ("indices", 1), ("updates", 1)])
_REDUCE = _combiner(("jaxpr",), lambda n: [("operand", n // 2), ("init", n // 2)])


def _mapped(param: str, label: str):
    """shard_map / xla_pmap: the body runs once per shard or device, with collectives between them."""
    call = _call(param, label)

    def rule(eqn):
        roles, subs = call(eqn)
        subs[0].kind = "mapped"
        return roles, subs
    return rule


def _kernel(eqn):
    """pallas_call: ``jaxpr``, the kernel, runs once per point of the grid on refs to blocks of the operands
    and results (its binders: index operands, input blocks, output blocks, scratch), writing its output blocks;
    no operand binds a binder and the kernel returns nothing, so its sub is of kind ``kernel``."""
    j = eqn.params["jaxpr"]
    nin, nout = _arity(j)
    sub = SubSpec("kernel", "kernel", j, [None] * nin, [None] * nout, "jaxpr", "kernel")
    layout = _jax.kernel_layout(eqn)
    if layout is None or layout.n_index + layout.n_in != len(eqn.invars):
        return Roles([("operand", len(eqn.invars))]), [sub]
    detail = {"grid": layout.grid, "in_blocks": " ".join(layout.in_blocks),
              "out_blocks": " ".join(layout.out_blocks)}
    groups = [("scalar_prefetch", layout.n_index)] if layout.n_index else []
    return Roles(groups + [("kernel_inputs", layout.n_in)], detail), [sub]


def _run_state(eqn):
    """run_state: ``jaxpr`` runs once on refs made from the operands (binder i is operand i's ref) and the
    equation's results are the refs' final contents: stepped over (kind ``refs``)."""
    j = eqn.params["jaxpr"]
    nin, nout = _arity(j)
    in_map = [i if i < len(eqn.invars) else None for i in range(nin)]
    return Roles([("ref_inits", len(eqn.invars))]), [SubSpec("body", "body", j, in_map, [None] * nout,
                                                             "jaxpr", "refs")]


def _collective(param: str):
    """A collective (psum, all_gather, ppermute, ...) or a named-axis query (axis_index, pvary): its operands, and the
    named mesh axes it works across (``detail["across"]``: ``i``, ``data×model``)."""
    def rule(eqn):
        axes = eqn.params.get(param)
        names = axes if isinstance(axes, (tuple, list, frozenset)) else () if axes is None else (axes,)
        detail = {"across": "×".join(str(a) for a in names)} if names else {}
        groups = [("operand", len(eqn.invars))] if eqn.invars else []
        return Roles(groups, detail), []
    return rule


COLLECTIVES = {"psum": "axes", "psum_invariant": "axes", "pmax": "axes", "pmin": "axes", "pvary": "axes",
               "pbroadcast": "axes", "all_gather": "axis_name", "all_gather_invariant": "axis_name",
               "reduce_scatter": "axis_name", "all_to_all": "axis_name", "ppermute": "axis_name",
               "axis_index": "axis_name"}

role_rules: dict[str, Callable] = {
    **{name: _collective(param) for name, param in COLLECTIVES.items()},
    "cond": _cond,
    "while": _while,
    "scan": _scan,
    "jit": _call("jaxpr", "jit"),
    "pjit": _call("jaxpr", "jit"),
    "closed_call": _call("call_jaxpr", "call"),
    "core_call": _call("call_jaxpr", "call"),
    "custom_jvp_call": _call("call_jaxpr", "custom_jvp"),
    "custom_vjp_call": _call("call_jaxpr", "custom_vjp"),
    "custom_vjp_call_jaxpr": _call("fun_jaxpr", "custom_vjp"),
    "remat2": _call("jaxpr", "checkpoint"),
    "checkpoint": _call("jaxpr", "checkpoint"),
    "shard_map": _mapped("jaxpr", "shard_map"),
    "xla_pmap": _mapped("call_jaxpr", "pmap"),
    "pallas_call": _kernel,
    "run_state": _run_state,
    "reduce": _REDUCE,
    "reduce_window": _REDUCE,
    "select_and_scatter": _combiner(("select_jaxpr", "scatter_jaxpr"),
                                    lambda n: [("operand", 1), ("source", 1), ("init", 1)]),
    **dict.fromkeys(("scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min", "scatter-max"), _SCATTER),
}


def _generic(eqn):
    """Any other primitive with sub-jaxprs in its params (found by ``jaxprs_in_params``): a jaxpr, a tuple
    of them, a namedtuple or a tuple mixed with None (each named by its field: ``jaxprs.matvec``)."""
    subs = []
    for key, value in eqn.params.items():
        values = value if isinstance(value, tuple) else (value,)
        fields = getattr(value, "_fields", None) if isinstance(value, tuple) else None
        for i, v in enumerate(values):
            if _jax.is_jaxpr(v):
                in_map, out_map = _identity(v, len(eqn.invars), len(eqn.outvars))
                name = key if len(values) == 1 and not fields else f"{key}.{fields[i]}" if fields else f"{key}{i}"
                subs.append(SubSpec(name, name, v, in_map, out_map, key))
    return None, subs


def _linear_solve(eqn):
    """custom_linear_solve: operands are the consts of matvec, vecmat, solve and transpose_solve (lengths in
    ``const_lengths``), then b; the result is ``solve(b)``.  Each jaxpr binds its own consts, then a vector:
    b for solve (whose results are the equation's), one made inside the primitive for the others."""
    jaxprs, lengths = eqn.params["jaxprs"], eqn.params["const_lengths"]
    fields = getattr(jaxprs, "_fields", ("matvec", "vecmat", "solve", "transpose_solve"))
    nconsts = sum(int(n) for n in lengths)
    nb = len(eqn.invars) - nconsts
    subs, start = [], 0
    for name, j, n in zip(fields, jaxprs, lengths):
        n = int(n)
        if j is not None:
            nin, nout = _arity(j)
            rest = list(range(nconsts, nconsts + nb)) if name == "solve" else [None] * (nin - n)
            in_map = (list(range(start, start + n)) + rest)[:nin]
            out_map = list(range(nout)) if name == "solve" else [None] * nout
            subs.append(SubSpec(name, name, j, in_map + [None] * (nin - len(in_map)), out_map, "jaxprs"))
        start += n
    return Roles([("consts", nconsts), ("operand", nb)]), subs


role_rules["custom_linear_solve"] = _linear_solve


def roles_of(eqn) -> tuple[Roles | None, list[SubSpec]]:
    rule = role_rules.get(eqn.primitive.name)
    if rule is not None:
        return rule(eqn)
    if eqn.params and any(True for _ in jex.jaxprs_in_params(eqn.params)):
        return _generic(eqn)
    return None, []
