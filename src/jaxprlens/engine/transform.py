"""Transformation rules: the program of ``jax.grad``/``vmap``/``jvp``/... of a traced function (as data;
``compare.py`` shows it beside the original)."""
from __future__ import annotations

import functools
import inspect
import os
import re
import sysconfig
from collections.abc import Callable

import jax
import jax.numpy as jnp
import jaxlib

from jaxprlens.model import _jax
from jaxprlens.model.errors import Keyed, KeyedError, Words
from jaxprlens.model.program import Call, Program
from jaxprlens.model.tracing import trace, traceable

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_OURS = os.path.dirname(_PKG_DIR) + os.sep          # jaxprlens itself
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep
BATCH = 2    # vmap: each mapped argument is stacked this many times along its axis


# ---------------------------------------------------------------- options written as text

def comma_items(text: str) -> list[str]:
    """``"0, None"`` -> ``["0", "None"]``: an option's comma-separated items, white space and empty ones
    dropped."""
    return [x.strip() for x in text.split(",") if x.strip()]


def int_list(text: str, option: str = "--argnums") -> tuple[int, ...]:
    """``"0,1"`` -> ``(0, 1)``, or a ``ValueError`` (``KeyedError``) that says what ``option`` takes."""
    try:
        return tuple(int(x) for x in comma_items(text))
    except ValueError:
        raise KeyedError("int_list", option=option, text=repr(text)) from None


def parse_axes(text: str) -> tuple:
    """``"0,None"`` -> ``(0, None)``: ``--in-axes`` as written, checked on its own (before any call): integers or
    None, at least one of them an axis."""
    try:
        axes = tuple(None if x == "None" else int(x) for x in comma_items(text))
    except ValueError:
        raise KeyedError("tf_in_axes_text", text=repr(text)) from None
    if not axes:
        raise KeyedError("tf_in_axes_text", text=repr(text))
    if all(a is None for a in axes):
        raise KeyedError("tf_maps_none")
    return axes


# ---------------------------------------------------------------- rebuilding the call

def rebuilt(program: Program) -> tuple[Callable, tuple, dict]:
    """``(g, args, kwargs)``: the function the user passed (``program.call``; a jitted call seen through: that
    call's) as a function of what its call traces, ``g(*args, **kwargs)`` being the call: static arguments and
    the leaves that are no arrays (an Equinox module's activation function) held as they were, ``None`` in
    their place in ``args``, as ``eqx.partition`` leaves them."""
    if program.call is None:
        raise KeyedError("tf_no_function")
    return _rebuilt(program.call)


def call_args(program: Program) -> tuple[tuple, dict]:
    """The traced ``(args, kwargs)`` of a program's call: ``rebuilt``'s, for its function."""
    return rebuilt(program)[1:]


def _rebuilt(call: Call) -> tuple[Callable, tuple, dict]:
    static = set(call.static)
    dynamic = (tuple(a for i, a in enumerate(call.args) if i not in static), dict(call.kwargs))
    leaves, treedef = jax.tree_util.tree_flatten(dynamic)
    held = {i: x for i, x in enumerate(leaves) if not traceable(x)}
    args, kwargs = treedef.unflatten([None if i in held else x for i, x in enumerate(leaves)])
    fn, written = call.fn, call.args
    if not static and not held:
        return fn, args, kwargs

    def g(*args, **kwargs):
        full = treedef.flatten_up_to((args, kwargs))
        for i, x in held.items():
            full[i] = x
        dargs, dkwargs = treedef.unflatten(full)
        it = iter(dargs)
        return fn(*(written[i] if i in static else next(it) for i in range(len(written))), **dkwargs)
    functools.update_wrapper(g, fn, assigned=("__name__", "__qualname__"), updated=())
    return g, args, kwargs


def _dynamic_positions(static, name: str, options: dict, n_traced: int) -> dict:
    """``argnums``/``in_axes`` count all positional args (as the user wrote the call); the rules see
    the traced args only, so drop the ``static`` positions."""
    if not static:
        return options
    out = dict(options)
    argnums = options.get("argnums")
    if argnums is not None:
        if isinstance(argnums, str):
            argnums = int_list(argnums)
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for i in nums:
            if i in static:
                raise KeyedError("tf_static_arg", i=i, name=name)
        out["argnums"] = tuple(i - sum(1 for s in static if s < i) for i in nums)
    in_axes, n_all = options.get("in_axes"), len(static) + n_traced
    if isinstance(in_axes, str):
        parts = comma_items(in_axes)
        if len(parts) == n_all:
            out["in_axes"] = ",".join(x for i, x in enumerate(parts) if i not in static)
    elif isinstance(in_axes, (tuple, list)) and len(in_axes) == n_all:
        out["in_axes"] = tuple(a for i, a in enumerate(in_axes) if i not in static)
    return out


def _name(fn) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def parse_argnums(argnums, args: tuple, default) -> tuple[int, ...]:
    """``0``, ``(0, 1)`` or ``"0,1"`` -> ``(0, 1)``; checked against the positional arguments."""
    if argnums is None:
        argnums = default
    if isinstance(argnums, str):
        argnums = int_list(argnums)
    if isinstance(argnums, int):
        argnums = (argnums,)
    valid = [i for i, a in enumerate(args) if _inexact(a)]
    out = []
    for i in argnums:
        j = i + len(args) if i < 0 else i
        if not 0 <= j < len(args):
            raise KeyedError("tf_argnums_range", i=i, n=len(args), valid=str(valid))
        if j not in valid:
            if valid:
                raise KeyedError("tf_not_float", j=j, valid=str(valid))
            raise KeyedError("tf_no_float_at_all", j=j)
        out.append(j)
    if not out:
        raise KeyedError("tf_no_float")
    return tuple(out)


def _inexact(a) -> bool:
    leaves = jax.tree_util.tree_leaves(a)
    return bool(leaves) and all(jnp.issubdtype(jnp.result_type(x), jnp.inexact) for x in leaves)


def parse_in_axes(in_axes, args: tuple):
    """``"0,None"`` -> ``(0, None)``; one axis (``"0"``) applies to every positional argument."""
    if in_axes is None:
        in_axes = 0
    if isinstance(in_axes, str):
        axes = parse_axes(in_axes)
        in_axes = axes[0] if len(axes) == 1 else axes
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if isinstance(in_axes, tuple) and len(in_axes) != len(args):
        raise KeyedError("tf_in_axes_count", k=len(in_axes), n=len(args))
    if in_axes is None or (isinstance(in_axes, tuple) and all(a is None for a in in_axes)):
        raise KeyedError("tf_maps_none")
    return in_axes


def _stack(tree, axis: int):
    return jax.tree_util.tree_map(lambda x: jnp.stack([jnp.asarray(x)] * BATCH, axis=axis), tree)


def _ones(tree):
    return jax.tree_util.tree_map(jnp.ones_like, tree)


def _with(args: tuple, kwargs: dict, fn, argnums: tuple):
    """``fn`` as a function of the arguments at ``argnums`` only (the others are closed over)."""
    def g(*diff):
        full = list(args)
        for i, d in zip(argnums, diff):
            full[i] = d
        return fn(*full, **kwargs)
    g.__name__ = _name(fn)
    return g


def _scalar_aux(program: Program) -> bool:
    """True when the output is ``(scalar, rest)``, as ``lax.scan`` returns ``(carry, ys)``: where a refused grad
    may have meant ``has_aux``."""
    outs = program.unflatten_outputs([v.aval for v in program.outvars])
    return (isinstance(outs, (tuple, list)) and len(outs) == 2 and hasattr(outs[0], "shape")
            and outs[0].shape == () and jnp.issubdtype(outs[0].dtype, jnp.inexact))


# ---------------------------------------------------------------- the transformations
# Each rule returns (function, args, kwargs) to trace; a table keyed by name, like roles.role_rules.

def _grad(fn, args, kwargs, argnums=None, has_aux=None):
    argnums = parse_argnums(argnums, args, 0)
    an = argnums[0] if len(argnums) == 1 else argnums
    return jax.grad(fn, argnums=an, has_aux=bool(has_aux)), args, kwargs


def _jac(kind):
    def rule(fn, args, kwargs, argnums=None):
        argnums = parse_argnums(argnums, args, 0)
        an = argnums[0] if len(argnums) == 1 else argnums
        return kind(fn, argnums=an), args, kwargs
    return rule


def _vmap(fn, args, kwargs, in_axes=None, batched=False):
    axes = parse_in_axes(in_axes, args)
    if batched:          # the arguments as written are the batch, as in jax.vmap(f, in_axes)(*args)
        batch_size(args, kwargs, axes)
        return jax.vmap(fn, in_axes=axes), args, kwargs
    mapped = _mapped(args, kwargs, axes)
    for where, leaf, ax in mapped:
        if not -leaf.ndim - 1 <= ax <= leaf.ndim:
            raise KeyedError("tf_batch_axis", where=where, ax=ax, ndim=leaf.ndim, lo=-leaf.ndim - 1, hi=leaf.ndim)
    per_arg = axes if isinstance(axes, tuple) else (axes,) * len(args)
    stacked = tuple(a if ax is None else _stack(a, ax) for a, ax in zip(args, per_arg))
    return jax.vmap(fn, in_axes=axes), stacked, {k: _stack(v, 0) for k, v in kwargs.items()}


def _mapped(args: tuple, kwargs: dict, axes) -> list[tuple[str, object, int]]:
    """``(where, leaf, axis)`` for every array leaf vmap maps (keyword arguments map along axis 0)."""
    per_arg = axes if isinstance(axes, tuple) else (axes,) * len(args)
    items = [(("arg_where", i), a, ax) for i, (a, ax) in enumerate(zip(args, per_arg)) if ax is not None]
    items += [(("kwarg_where", k), v, 0) for k, v in kwargs.items()]
    out = []
    for (key, i), tree, ax in items:
        for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
            out.append((Words(key, i=i, path=jax.tree_util.keystr(path)), jnp.asarray(leaf), ax))
    return out


def batch_size(args: tuple, kwargs: dict, axes) -> int:
    """The size of the batch the arguments as written carry along ``axes``; ValueError saying why not."""
    sizes = []
    for where, leaf, ax in _mapped(args, kwargs, axes):
        if not -leaf.ndim <= ax < leaf.ndim:
            raise KeyedError("tf_no_axis", where=where, type=_type(leaf), ax=ax)
        sizes.append((where, ax, leaf.shape[ax]))
    if not sizes:
        raise KeyedError("tf_maps_none")
    if len({n for _, _, n in sizes}) > 1:
        raise KeyedError("tf_sizes_differ", sizes=[Words("tf_size_of", where=where, n=n, ax=ax)
                                                   for where, ax, n in sizes])
    return sizes[0][2]


def example(args: tuple, kwargs: dict, axes) -> tuple[tuple, dict]:
    """Element 0 of a batch: what the vmapped function sees as one call."""
    per_arg = axes if isinstance(axes, tuple) else (axes,) * len(args)

    def first(tree, ax):
        return tree if ax is None else jax.tree_util.tree_map(lambda x: jnp.take(jnp.asarray(x), 0, axis=ax), tree)
    return (tuple(first(a, ax) for a, ax in zip(args, per_arg)), {k: first(v, 0) for k, v in kwargs.items()})


def _type(leaf) -> str:
    return _jax.aval_text(jax.typeof(leaf))


def _jvp(fn, args, kwargs, argnums=None):
    argnums = parse_argnums(argnums, args, [i for i, a in enumerate(args) if _inexact(a)])

    def jvp(primals, tangents):
        return jax.jvp(_with(primals, kwargs, fn, argnums), tuple(primals[i] for i in argnums), tangents)
    return jvp, (args, tuple(_ones(args[i]) for i in argnums)), {}


def _vjp(fn, args, kwargs, argnums=None):
    argnums = parse_argnums(argnums, args, [i for i, a in enumerate(args) if _inexact(a)])
    out, pullback = jax.vjp(_with(args, kwargs, fn, argnums), *(args[i] for i in argnums))

    def vjp(cotangent):
        return pullback(cotangent)
    return vjp, (_ones(out),), {}


def _linearized(fn, args, kwargs, argnums):
    argnums = parse_argnums(argnums, args, [i for i, a in enumerate(args) if _inexact(a)])
    primals = tuple(args[i] for i in argnums)
    out, f_lin = jax.linearize(_with(args, kwargs, fn, argnums), *primals)
    return primals, out, f_lin


def _linearize(fn, args, kwargs, argnums=None):
    primals, _, f_lin = _linearized(fn, args, kwargs, argnums)

    def linearized(*tangents):
        return f_lin(*tangents)
    return linearized, tuple(_ones(x) for x in primals), {}


def _transpose(fn, args, kwargs, argnums=None):
    primals, out, f_lin = _linearized(fn, args, kwargs, argnums)
    f_t = jax.linear_transpose(f_lin, *primals)

    def transposed(cotangent):
        return f_t(cotangent)
    return transposed, (_ones(out),), {}


TRANSFORMS = {
    "grad": _grad, "jvp": _jvp, "vjp": _vjp, "vmap": _vmap, "linearize": _linearize,
    "transpose": _transpose, "jacfwd": _jac(jax.jacfwd), "jacrev": _jac(jax.jacrev),
    "hessian": _jac(jax.hessian),
}


# how the inputs of a transformed program were made, as a catalogue key a view says in the reader's language
INPUTS_NOTE = {"vmap": "note_vmap", "jvp": "note_jvp", "linearize": "note_linearize", "vjp": "note_vjp",
               "transpose": "note_transpose"}
_RULE_ARGS = {"fn", "args", "kwargs"}
_JAX_NAME = {"transpose": "linear_transpose"}         # the JAX function each rule calls, where not its own name


def transform(program: Program, name: str, **options) -> Program:
    """``program.transform("grad", argnums=0)``: the traced program of the transformed function.

    What is transformed is the function the user passed, with its static arguments and the leaves that are no
    arrays held (``rebuilt``): for a call seen through to its ``jit``'s body, the jitted function as passed
    (the result's title says so).  Options: ``argnums`` (grad, jvp, vjp, linearize, transpose, jacfwd, jacrev,
    hessian), ``in_axes`` (vmap), ``has_aux`` (grad, as ``jax.grad`` takes it).  jvp's tangents and
    vjp's/transpose's cotangents are ones.  vmap treats the traced call as one example and stacks each
    mapped argument twice along its axis; with ``batched=True`` the arguments as written are the batch,
    mapped along ``in_axes`` as ``jax.vmap(f, in_axes)(*args)`` does.  What JAX refuses to transform (grad of
    an output that is no scalar) is a ``ValueError`` with JAX's reason.
    """
    rule = TRANSFORMS.get(name)
    if rule is None:
        raise KeyedError("tf_unknown", name=repr(name), names=str(list(TRANSFORMS)))
    allowed = set(inspect.signature(rule).parameters) - _RULE_ARGS
    extra = sorted(k for k, v in options.items() if v is not None and k not in allowed)
    if extra:
        raise KeyedError("tf_options" if allowed else "tf_no_options", name=name, extra=", ".join(extra),
                         allowed=str(sorted(allowed)))
    if program.call is None:
        raise KeyedError("tf_no_function")
    return _transformed(program, name, program.call, options)


def _transformed(program: Program, name: str, call: Call, options: dict) -> Program:
    """The transformation ``name`` of ``call`` (``program``'s, or the batch ``batched_call`` maps)."""
    rule = TRANSFORMS[name]
    allowed = set(inspect.signature(rule).parameters) - _RULE_ARGS
    fn, args, kwargs = _rebuilt(call)
    dynamic = _dynamic_positions(call.static, name, options, len(args))
    fn, targs, tkwargs = rule(fn, args, kwargs, **{k: v for k, v in dynamic.items() if k in allowed})
    title = describe(name, program, options)      # positions as the call is written
    try:
        result = trace(fn, *targs, **tkwargs)
    except (TypeError, ValueError) as e:
        if not _refused_by_jax(e):
            raise                                # the user's code failed: their traceback
        hint = Words("tf_hint_has_aux") if name == "grad" and not options.get("has_aux") and _scalar_aux(program) \
            else ""
        raise KeyedError("tf_refused", jax=f"jax.{_JAX_NAME.get(name, name)}", what=title, reason=_jax_reason(e),
                         hint=hint) from e
    notes = [_passed_note(program, call)] if program.outer is not None else []
    if options.get("batched"):
        notes.append(("note_batched", {"n": batch_size(targs, tkwargs, parse_in_axes(dynamic.get('in_axes'), args))}))
    elif name in INPUTS_NOTE:
        notes.append((INPUTS_NOTE[name], {}))
    result.title, result.title_note = title, tuple(notes)
    for eqn in result.walk():
        frame = _jax.user_frame(eqn.raw) if eqn.source else None
        if frame is not None and os.path.abspath(frame.file).startswith(_PKG_DIR + os.sep):
            eqn.source = None      # made by the transformation itself, not by a line of the user's code
    return result


def _passed_note(program: Program, call: Call) -> tuple[str, dict]:
    """What was transformed, when the program shown for the call is the body of the ``jit`` it traced to: the
    function as passed, its ``jit`` included (a jitted function, or one that calls a library that jits)."""
    fn, jit = _name(call.fn), str(program.outer.eqns[0].params.get("name") or "jit")
    if hasattr(call.fn, "lower") or fn == jit:
        return "note_passed_jit", {}
    return "note_passed_jit_inside", {"fn": fn, "jit": jit}


def _refused_by_jax(e: BaseException) -> bool:
    """True when JAX refused the transformation itself (grad of an output that is no scalar, of an integer
    input): no frame of the traceback runs the user's code, as JAX checks before calling the function or after
    it returned; an error of the user's code under the transformation has the user's frames."""
    if isinstance(e, Keyed):
        return False
    tb = e.__traceback__
    while tb is not None:
        file = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not (file.startswith((_OURS, _STDLIB)) or _in_jax(file)):
            return False
        tb = tb.tb_next
    return True


def _in_jax(file: str) -> bool:
    return file.startswith(_JAX_DIRS)


_JAX_DIRS = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (jax, jaxlib))


_TRACER = re.compile(r"\b\w*Tracer\(([^()]*)\)")


def _jax_reason(e: BaseException) -> str:
    """JAX's message, tracers written as their types (``float32[3]``, not ``JitTracer(float32[3])``)."""
    text = str(e).strip()
    return _TRACER.sub(r"\1", text) or type(e).__name__


def batched_call(fn, args: tuple, kwargs: dict, in_axes=None, static_argnums=()) -> tuple[Program, Program]:
    """For ``%%jaxpr --transform vmap --batched``, where ``fn(*args)`` itself may not trace (a ``lax.cond``
    on what is a scalar per example): ``(fn traced on element 0 of the batch, vmap(fn, in_axes) traced on
    the batch as written)``.  Positions (``in_axes``, ``static_argnums``) count as the call is written."""
    static = {i + len(args) if i < 0 else i for i in static_argnums}
    dynamic = tuple(a for i, a in enumerate(args) if i not in static)
    options = {"in_axes": in_axes, "batched": True}
    axes = parse_in_axes(_dynamic_positions(static, "vmap", options, len(dynamic))["in_axes"], dynamic)
    batch_size(dynamic, kwargs, axes)
    ex_args, ex_kwargs = example(dynamic, kwargs, axes)
    original = trace(fn, *_with_static({i: args[i] for i in static}, ex_args), static_argnums=tuple(static),
                     **ex_kwargs)
    return original, _transformed(original, "vmap", Call(fn, tuple(args), dict(kwargs), tuple(sorted(static))),
                                  options)


def _with_static(static: dict, dynamic) -> list:
    """The full positional args: the static values at their positions, the traced ones between."""
    it = iter(dynamic)
    return [static[i] if i in static else next(it) for i in range(len(static) + len(dynamic))]


def describe(name: str, program: Program, options: dict) -> str:
    """``vmap(f, in_axes=0,None)``: the transformation and its options as the magic's line writes them."""
    shown = ", ".join(f"{k}={','.join(map(str, v)) if isinstance(v, tuple) else v}" for k, v in options.items()
                      if v is not None and v is not False)
    fn = program.call.fn if program.call is not None else program.fn
    return f"{name}({_name(fn) if fn else 'program'}" + (f", {shown})" if shown else ")")


def check_options(name: str, options: dict) -> dict:
    """The options a transformation takes, checked: ``{"argnums": "0"}``; None values dropped.  A
    ValueError names the flag that does not apply and the transformations it applies to."""
    if name not in TRANSFORMS:
        raise KeyedError("tf_unknown", name=repr(name), names=str(list(TRANSFORMS)))
    for key, value in options.items():
        if value is not None and key not in inspect.signature(TRANSFORMS[name]).parameters:
            takes = [n for n, r in TRANSFORMS.items() if key in inspect.signature(r).parameters]
            flag = "--" + key.replace("_", "-")
            raise KeyedError("tf_flag", flag=flag, name=name, takes=", ".join(takes))
    return {k: v for k, v in options.items() if v is not None}


__all__ = ["TRANSFORMS", "transform", "check_options", "describe", "batched_call", "call_args", "rebuilt"]
