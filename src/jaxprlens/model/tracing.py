"""Tracing: ``trace(fn, *args)`` runs ``jax.make_jaxpr`` on a call and returns its ``Program``, its inputs named
by their Python paths; misuse we can explain in one sentence is a ``TraceError``."""
from __future__ import annotations

import functools
import inspect
import re
import types
from collections.abc import Callable

import jax

from jaxprlens.model import _jax
from jaxprlens.model.build import build_program
from jaxprlens.model.errors import Keyed
from jaxprlens.model.jitbody import name_binders, seen_through
from jaxprlens.model.printnames import printer_names
from jaxprlens.model.program import Call, Program


class TraceError(Keyed, Exception):
    """Raised by ``trace`` for misuse we can explain in one sentence (not for errors in user code): a catalogue
    key and its fields (``model/errors.py``), worded by ``present.i18n``."""


def _normalize_static(static_argnums, nargs: int) -> tuple:
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    out = []
    for i in static_argnums:
        j = i + nargs if i < 0 else i
        if not 0 <= j < nargs:
            raise TraceError("trace_static_range", i=i, n=nargs)
        out.append(j)
    return tuple(sorted(set(out)))


def _code_params(fn) -> tuple[list[str], str | None] | None:
    """``(positional names, *args name)`` read off a plain function's code, or None for anything else
    (a partial, a jitted function, a class, a wrapper with ``__signature__``): what ``inspect.signature``
    says of a plain function, at a tenth of its cost (a small program's trace paid it per call)."""
    for _ in range(100):                 # functools.wraps chains, as inspect.unwrap follows them
        if fn is None or hasattr(fn, "__signature__"):
            return None
        if isinstance(fn, types.FunctionType) and not hasattr(fn, "__wrapped__"):
            break
        fn = getattr(fn, "__wrapped__", None)
    else:
        return None
    code = fn.__code__
    n = code.co_argcount                 # positional-only ones included
    star = code.co_varnames[n + code.co_kwonlyargcount] if code.co_flags & inspect.CO_VARARGS else None
    return list(code.co_varnames[:n]), star


def arg_names(fn: Callable, nargs: int, kwargs: dict) -> list[str]:
    """The Python name of each positional argument (``first``, ``args[2]``, ``arg0``)."""
    fast = _code_params(fn)
    if fast is not None:
        positional, star = fast
    else:
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            params = []
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
    names = []
    for i in range(nargs):
        if i < len(positional):
            names.append(positional[i])
        elif star:
            names.append(f"{star}[{i - len(positional)}]")
        else:
            names.append(f"arg{i}")
    return names


def _check_static(names: list[str], args: tuple, static: tuple):
    for i in static:
        try:
            hash(args[i])
        except TypeError:
            kind = type(args[i]).__name__
            arrays = sum(1 for leaf in jax.tree_util.tree_leaves(args[i]) if _is_array_like(leaf))
            # a module (Equinox, flax) or a pytree of weights: its arrays are to be traced
            if arrays and not _is_array_like(args[i]):
                raise TraceError("trace_static_arrays", name=names[i], i=i, kind=kind, n=arrays) from None
            raise TraceError("trace_unhashable", name=names[i], i=i, kind=kind) from None


# JAX's words when a jax.jit'd function is called with a leaf that is no array (an Equinox module's
# activation function, a flax Module's non-array field)
_JIT_NON_ARRAY = re.compile(r"Error interpreting argument to (.+?) as an abstract array\. The problematic value is "
                            r"of type (.+?) and was passed to the function at path (.+?)\.\s*$", re.M)
_NON_ARRAY = re.compile(r"Cannot interpret value of type (.+?) as an abstract array")


def _jit_advice(e: TypeError) -> TraceError | None:
    """The advice for a jax.jit'd call given a non-array leaf (``eqx.filter_jit``, ``eqx.partition``,
    ``nnx.jit``, ``nnx.split``), or None for any other TypeError."""
    text = str(e)
    m = _JIT_NON_ARRAY.search(text)
    if m is not None:
        fn = re.sub(r"^<function (\S+) at 0x[0-9a-fA-F]+>$", r"\1", m.group(1)).rsplit(".", 1)[-1]
        return TraceError("trace_jit_non_array", fn=fn, kind=_class_name(m.group(2)), path=m.group(3))
    m = _NON_ARRAY.search(text)
    if m is not None:
        return TraceError("trace_non_array", kind=_class_name(m.group(1)))
    return None


def _class_name(text: str) -> str:
    """``custom_jvp`` for ``<class 'jax._src.custom_derivatives.custom_jvp'>``."""
    m = re.match(r"^<class '(?:[\w.]*\.)?(\w+)'>$", text.strip())
    return m.group(1) if m else text


def traceable(leaf) -> bool:
    """True for a leaf ``trace`` traces (an array, a Python number); the others are held fixed."""
    return _jax.valid_jaxtype(leaf) or _is_array_like(leaf)


def _is_array_like(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def trace(fn: Callable, *args, static_argnums=(), see_through: bool = True, **kwargs) -> Program:
    """Trace ``fn(*args, **kwargs)`` with ``jax.make_jaxpr`` and return its ``Program``.

    Leaves of the arguments that are not arrays (an Equinox module's activation function, a string in a
    config dict) are held fixed, as ``eqx.filter_jit`` holds them: the arrays are the program's inputs.
    ``see_through``: when the call is one ``jit`` equation (``jax.jit``, ``nnx.jit``, ``eqx.filter_jit``,
    ``partial(jax.jit, ...)``), return that equation's body as the program; ``.outer`` is the call as traced."""
    if not callable(fn):
        raise TraceError("trace_not_callable", kind=type(fn).__name__)
    written = fn
    static = _normalize_static(static_argnums, len(args))
    names = arg_names(fn, len(args), kwargs)
    _check_static(names, args, static)
    dyn_positions = [i for i in range(len(args)) if i not in static]
    dyn = (tuple(args[i] for i in dyn_positions), dict(kwargs))
    with_paths, in_tree = jax.tree_util.tree_flatten_with_path(dyn)
    held = [i for i, (_, leaf) in enumerate(with_paths) if not traceable(leaf)]
    try:
        if not held:
            closed, out_tree = _jax.make_jaxpr(fn, static, args, kwargs)
        else:                                # trace the arrays only; the other leaves are fixed values
            leaves = [leaf for _, leaf in with_paths]

            def call(*arrays):
                full = list(leaves)
                for i, a in zip((i for i in range(len(full)) if i not in held_set), arrays):
                    full[i] = a
                dargs, dkw = jax.tree_util.tree_unflatten(in_tree, full)
                it = iter(dargs)
                return fn(*(args[i] if i in static else next(it) for i in range(len(args))), **dkw)
            held_set = set(held)
            functools.update_wrapper(call, fn, assigned=("__name__", "__qualname__"), updated=())
            with_paths = [kl for i, kl in enumerate(with_paths) if i not in held_set]
            closed, out_tree = _jax.make_jaxpr(call, (), tuple(leaf for _, leaf in with_paths), {})
            fn, in_tree = call, jax.tree_util.tree_structure((tuple(leaf for _, leaf in with_paths), {}))
    except TypeError as e:      # a jax.jit'd function given a leaf that is no array: what works
        advice = _jit_advice(e)
        if advice is None:
            raise
        raise advice from e
    flat_args = [leaf for _, leaf in with_paths]
    in_paths = []
    for keypath, _ in with_paths:
        which, key, rest = keypath[0], keypath[1], keypath[2:]
        if which.idx == 0:
            head = names[dyn_positions[key.idx]]
        else:
            head = str(key.key)
        in_paths.append(head + jax.tree_util.keystr(tuple(rest)))
    outs = jax.tree_util.tree_unflatten(out_tree, closed.out_avals)      # the outputs' types, for their paths
    out_paths = ["out" + jax.tree_util.keystr(tuple(kp)) for kp, _ in jax.tree_util.tree_flatten_with_path(outs)[0]]

    program = build_program(printer_names(closed), closed)     # the printer's names; its text when asked (str)
    program.fn, program.args = fn, tuple(flat_args)
    program.static = {i: args[i] for i in static} if not held else {}
    program.in_tree, program.out_tree = in_tree, out_tree
    program._held = frozenset(held)
    program.call = Call(written, tuple(args), dict(kwargs), static)
    if len(in_paths) == len(program.invars):
        program.in_paths = in_paths
        for v, p in zip(program.invars, in_paths):
            v.path = p
    if len(out_paths) == len(program.outvars):
        program.out_paths = out_paths
    program = seen_through(program) if see_through else program
    name_binders(program)
    return program
