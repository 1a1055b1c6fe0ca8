"""A jitted call seen through: when a traced call is one ``jit`` equation (``jax.jit``, ``nnx.jit``,
``eqx.filter_jit``), its body as the program, its binders bound to the call's values and named by their
Python paths; and the paths given to sub-jaxpr binders at any depth (``name_binders``)."""
from __future__ import annotations

import re

from jaxprlens.model import _jax
from jaxprlens.model.program import Eqn, Lit, Program, Var


def name_binders(program: Program) -> None:
    """Give each sub-jaxpr binder bound from a value with a Python path that path, at any depth (a jitted
    helper's ``x`` is ``model.blocks[0].up.kernel.value`` when the call passes that parameter)."""
    for eqn in program.eqns:
        for sub in eqn.subs:
            for binder, k in zip(sub.program.invars, sub.in_map):
                a = eqn.invars[k] if k is not None and k < len(eqn.invars) else None
                if isinstance(a, Var) and a.path and not binder.path:
                    binder.path = a.path
            name_binders(sub.program)


def jit_call(program: Program) -> Eqn | None:
    """The one ``jit`` equation ``program`` is, or None: every other top-level result is an input passed
    through (what a jitted step, or the glue ``nnx.jit`` and ``eqx.filter_jit`` add, traces to)."""
    if len(program.eqns) != 1:
        return None
    eqn = program.eqns[0]
    return eqn if eqn.primitive in ("jit", "pjit") and len(eqn.subs) == 1 else None


def seen_through(outer: Program) -> Program:
    """The body of the one ``jit`` equation ``outer`` is, as a program of its own, its inputs bound to the
    call's values and named by their Python paths; ``outer`` itself when it is not one ``jit``."""
    eqn = jit_call(outer)
    if eqn is None:
        return outer
    sub = eqn.subs[0]
    closed = sub.program.jaxpr
    body = _rerooted(sub.program, len(sub.program.path))   # its values named as JAX prints the whole call
    position = {id(v): k for k, v in enumerate(outer.invars)}
    fixed = {id(v): val for v, val in zip(outer.constvars, outer.consts)}
    in_paths = outer.in_paths or [None] * len(outer.invars)
    args, paths = [], []
    for binder, i in zip(body.invars, sub.in_map):
        a = eqn.invars[i]
        k = None if isinstance(a, Lit) else position.get(id(a))
        val = outer.args[k] if k is not None else a.val if isinstance(a, Lit) else fixed.get(id(a))
        body._binds.append((k, None if k is not None else val))
        args.append(val)
        paths.append(in_paths[k] if k is not None else None)
        binder.path = paths[-1]
    body.args, body.in_paths = tuple(args), [p or "" for p in paths]
    made = {id(v): j for j, v in enumerate(eqn.outvars)}
    for v in outer.outvars:       # a result of the jit, or an input (or literal) the call returns as it is
        j = made.get(id(v))
        k = None if j is not None or isinstance(v, Lit) else position.get(id(v))
        body._returns.append(("out", j) if j is not None else
                             ("value", v.val if isinstance(v, Lit) else outer.args[k] if k is not None
                              else fixed.get(id(v))))
    returned = {j: m for m, (how, j) in enumerate(body._returns) if how == "out"}
    body.out_paths = [outer.out_paths[returned[j]] if j in returned and returned[j] < len(outer.out_paths)
                      else "" for j in range(len(body.outvars))]
    body.out_updates = _updates(closed, paths, len(body.outvars))
    body.out_paths = [p or u or "" for p, u in zip(body.out_paths, body.out_updates)]   # state: by its input
    body.outer, body.fn, body.static, body.call = outer, outer.fn, outer.static, outer.call
    return body


def _rerooted(program: Program, depth: int) -> Program:
    """``program`` (a sub-jaxpr, built with the call) as a top-level program: every path ``depth`` shorter
    (``0/jaxpr/3`` becomes ``3``), its Vars the same objects, so every view names them alike."""
    program.path = program.path[depth:]
    for eqn in program.eqns:
        eqn.path, eqn._id = eqn.path[depth:], None
        for s in eqn.subs:
            _rerooted(s.program, depth)
    return program


def _updates(closed, in_paths: list, n_out: int) -> list:
    """For each result of a jitted body, the input path it is the new value of, from the body's own debug
    info: ``nnx.jit`` returns the state of its argument ``j`` as ``result[0][j].states…``, leaf for leaf as
    the argument came in (``model.states…``).  None where no input matches."""
    arg_names, result_paths = _jax.debug_paths(closed)
    if len(result_paths) != n_out or len(arg_names) != len(in_paths):
        return [None] * n_out
    heads = list(dict.fromkeys(name.split(".", 1)[0].split("[", 1)[0] for name in arg_names))
    index = {}
    for name, path in zip(arg_names, in_paths):
        head, dot, tail = name.partition(".")
        if dot and path:
            index[(head, tail)] = path
    out = []
    for r in result_paths:
        m = _NNX_RESULT.match(r)
        j = int(m.group(1)) if m else -1
        out.append(index.get((heads[j], m.group(2))) if m and j < len(heads) else None)
    return out


_NNX_RESULT = re.compile(r"^result\[0\]\[(\d+)\]\.(.+)$")
