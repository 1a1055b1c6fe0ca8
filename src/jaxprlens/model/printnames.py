"""The names JAX's printer gives a jaxpr's variables (``a``, ``b``, ... ``ba``), found by walking the jaxpr in
the printer's order instead of running the printer.

The printer names a variable the first time it writes it, in one context for the whole tree: first the
jaxprs it hoists to the top (``let _uniform = { lambda ... } in``), then the program; in a jaxpr its
constants, inputs, equations and outputs; in an equation its results, then the jaxprs among its params (sorted
by key), then its operands.  ``jit``'s rule first gives the body's binders the names of the call's operands and
results.  An unused top-level result is ``_``; hoisted jaxprs' names are never given to a variable.

``printer_names(closed)`` walks that order for the equations whose printing it knows (no rule, a rule that only
picks params, ``jit``, ``custom_jvp_call``/``custom_vjp_call``, a hijax primitive with plain params such as
``SearchSorted``) and hands any other program to the printer's own pass (``_jax.print_jaxpr``): a ref read, a
Pallas kernel, checkify.  A namedtuple param holding jaxprs (``custom_linear_solve``'s) the printer writes with
``str``, each jaxpr named in a context of its own: the walk names them so, after the program.
``tests/test_model.py`` checks the walk against the printer on every program the suite traces.
"""
from __future__ import annotations

from collections import deque
from typing import Any

import jax.extend.core as jex

from jaxprlens.model import _jax

_Var, _DropVar = _jax.Var, _jax.DropVar


class _Unknown(Exception):
    """An equation whose printing the walk does not know: the printer names the program."""


_ALPHABET: list[str] = []      # _ALPHABET[i]: the printer's i-th fresh name (a, ..., z, ba, bb, ...)


def _alphabetic(i: int) -> str:
    while len(_ALPHABET) <= i:
        n, s = len(_ALPHABET), ""
        while not s or n:
            n, d = divmod(n, 26)
            s = chr(97 + d) + s
        _ALPHABET.append(s)
    return _ALPHABET[i]


def printer_names(closed: Any) -> dict:
    """``{JAX Var: name}`` as JAX's printer names ``closed`` (a Jaxpr or ClosedJaxpr)."""
    top = _jax.open_jaxpr(closed)
    try:
        walk = _Walk(top)
    except _Unknown:
        return _jax.print_jaxpr(closed, text=False).names
    names = walk.names
    for j in walk.apart:     # as print_jaxpr: each named in a context of its own, the program's names first
        for v, name in printer_names(j).items():
            names.setdefault(v, name)
    return names


class _Walk:
    def __init__(self, top):
        self.rules = _jax.printing_rules()
        self.kinds: dict = {}            # primitive -> how its equations print (``_Rules.kind``)
        self.nested: dict = {}           # id() of each equation with a jaxpr in its params -> how many
        self.names: dict = _unused_results(top)
        self.shared = self._hoisted(top)
        self.taken = frozenset(self.shared.values())
        self.next = 0
        self.apart: list = []            # jaxprs the printer writes with ``str`` (in a namedtuple param)
        for j in self.shared:
            self.skeleton(j)
        self.jaxpr(top)

    def _hoisted(self, top) -> dict:
        """``{jaxpr: name}`` of the jaxprs the printer writes once at the top: those met twice, or (any but the
        program) with over ten equations, met breadth first; named after the call's ``name`` (else ``jaxpr``),
        a repeated name numbered."""
        counts: dict = {}
        called: dict = {}
        queue = deque([top])
        while queue:
            j = queue.popleft()
            counts[j] = counts.get(j, 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
            for e in j.eqns:
                if not e.params:
                    continue
                subs = list(jex.jaxprs_in_params(e.params))
                if not subs:
                    continue
                if self.rules.subjaxprs(e.primitive):
                    raise _Unknown
                self.nested[id(e)] = len(subs)
                name = e.params.get("name")
                if name is not None and not isinstance(name, str):
                    raise _Unknown
                queue.extend(subs)
                if name is not None:
                    for sub in subs:
                        called.setdefault(sub, name.strip("<>"))
        shared, seen = {}, {}
        for j, c in counts.items():
            if c == 1:
                continue
            name = called.get(j, "jaxpr")
            n = seen.get(name, 0)
            seen[name] = n + 1
            if n:
                name += str(n)
                seen[name] = seen.get(name, 0) + 1
            shared[j] = name
        return shared

    def fresh(self, v) -> str:
        """The next name the printer gives (never a hoisted jaxpr's), now ``v``'s."""
        n = _alphabetic(self.next)
        self.next += 1
        while n in self.taken:
            n = _alphabetic(self.next)
            self.next += 1
        self.names[v] = n
        return n

    def name(self, v) -> str:
        """What the printer writes for the Var ``v``, naming it on first sight (a dropped result is ``_``)."""
        n = self.names.get(v)
        if n is None:
            return "_" if isinstance(v, _DropVar) else self.fresh(v)
        return n

    def jaxpr(self, j) -> None:
        if j not in self.shared:           # a hoisted one is written by its name only
            self.skeleton(j)

    def skeleton(self, j) -> None:
        names = self.names
        for v in (*j.constvars, *j.invars):
            if v not in names:
                self.fresh(v)
        for e in j.eqns:
            self.eqn(e)
        for v in j.outvars:
            if isinstance(v, _Var) and v not in names:
                self.name(v)

    def eqn(self, e) -> None:
        names, prim = self.names, e.primitive
        kind = self.kinds.get(prim, False)
        if kind is False:
            kind = self.kinds[prim] = self.rules.kind(prim)
        if kind == "other" or (kind == "hi" and not _jax.plain_hi_params(e)):
            raise _Unknown
        nested = self.nested.get(id(e), 0)
        if kind == "jit" and nested:
            body = _jax.open_jaxpr(e.params["jaxpr"])
            if body not in self.shared:
                self.suggest(body.invars, e.invars)
                self.suggest(body.outvars, e.outvars)
        for v in e.outvars:
            if v not in names and not isinstance(v, _DropVar):
                self.fresh(v)
        if nested:
            self.params(e.params, nested)
        for v in e.invars:
            if isinstance(v, _Var) and v not in names:
                self.fresh(v)

    def params(self, params: dict, n: int) -> None:
        """The ``n`` jaxprs among an equation's params, by key, as ``pp_kv_pair`` writes them."""
        own = [k for k, v in params.items() if _jax.is_context_jaxpr(v)]
        if len(own) == n:              # each a param of its own (jit, while, custom_jvp...): no tuple to read
            for key in sorted(own):
                self.jaxpr(_jax.open_jaxpr(params[key]))
            return
        for key in sorted(params):
            value = params[key]
            if _jax.is_context_jaxpr(value):
                self.jaxpr(_jax.open_jaxpr(value))
            elif type(value) is tuple and value and all(map(_jax.is_context_jaxpr, value)):
                for j in value:
                    self.jaxpr(_jax.open_jaxpr(j))
            elif isinstance(value, tuple) and _jax.holds_jaxpr(value):   # a namedtuple or a mixed tuple: the
                self.apart += [j for j in value if _jax.is_context_jaxpr(j)]    # printer's str() of it
            elif _jax.holds_jaxpr(value):
                raise _Unknown

    def suggest(self, binders, values) -> None:
        """``jit``'s rule: each body binder not yet named takes the name of the value it is bound to (each
        value lends its name once)."""
        if len(binders) != len(values):
            return
        lent = set()
        for b, v in zip(binders, values):
            if isinstance(v, _Var) and v not in lent and isinstance(b, _Var) and b not in self.names:
                lent.add(v)
                self.names[b] = self.name(v)


def _unused_results(top) -> dict:
    """``{Var: "_"}`` for the program's results nothing reads (the printer writes them ``_``)."""
    names, used = {}, {a for a in top.outvars if isinstance(a, _Var)}
    for e in reversed(top.eqns):
        for v in e.outvars:
            if v not in used:
                names[v] = "_"
        used.update(a for a in e.invars if isinstance(a, _Var))
    return names
