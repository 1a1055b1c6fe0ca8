"""The one module that touches JAX's private API (``jax._src``), so an upgrade is a one-file change.

Everything else in jaxprlens uses ``jax``, ``jax.extend.core`` and the names exported here.
JAX 0.10 has ``ClosedJaxpr(jaxpr, consts)``; JAX 0.11+ folds it into ``Jaxpr`` (consts attached,
``.jaxpr`` a legacy accessor returning itself).  ``open_jaxpr``/``consts_of`` hide the difference.
"""
from __future__ import annotations

import functools
import linecache
import weakref
from dataclasses import dataclass
from typing import Any

import jax
import jax.extend.core as jex
from jax._src import core as _core
from jax._src import pretty_printer as _pp
from jax._src import source_info_util as _siu

Var = jex.Var
Literal = jex.Literal
DropVar = jex.DropVar


def make_jaxpr(fn: Any, static_argnums: tuple, args: tuple, kwargs: dict) -> tuple[Any, Any]:
    """``jax.make_jaxpr(fn, static_argnums, return_shape=True)(*args, **kwargs)`` as ``(jaxpr, the outputs'
    treedef)``, made as ``make_jaxpr`` makes it (a ``jit``'s trace, its consts put back as consts) without the
    ``ShapeDtypeStruct`` of every output that ``return_shape`` builds and the model never reads (a small
    program's trace paid for them); ``make_jaxpr`` itself where a ``Traced`` lacks the parts read here."""
    try:
        hash(fn)
        weakref.ref(fn)
    except TypeError:               # as make_jaxpr does: jit keys its caches by the function
        fn = functools.partial(fn)
    traced = jax.jit(fn, static_argnums=static_argnums).trace(*args, **kwargs)
    consts, out_tree = getattr(traced, "_consts", None), getattr(traced, "out_tree", None)
    jaxpr = traced.jaxpr
    if consts is None or out_tree is None or (consts and not hasattr(jaxpr, "with_consts")):
        closed, shape = jax.make_jaxpr(fn, static_argnums=static_argnums, return_shape=True)(*args, **kwargs)
        return closed, jax.tree_util.tree_structure(shape)
    return (jaxpr.with_consts(consts) if consts else jaxpr), out_tree


def valid_jaxtype(x: Any) -> bool:
    """``jex.valid_jaxtype(x)`` without the error JAX builds for a value it has no type for: that message holds
    ``str(x)``, and some leaves print slowly (a penzai ``Parameter`` renders its array through treescope)."""
    mappings = _core.pytype_aval_mappings
    if not any(t in mappings for t in type(x).__mro__) and getattr(x, "__jax_array__", None) is None:
        return False
    return jex.valid_jaxtype(x)


def open_jaxpr(j: Any):
    """The Jaxpr holding eqns/invars/outvars, for a ClosedJaxpr (<=0.10) or a Jaxpr (any version)."""
    inner = getattr(j, "jaxpr", j)
    return inner if hasattr(inner, "eqns") else j


def consts_of(j: Any) -> list:
    """Values of the hoisted constants of a (Closed)Jaxpr; a plain open Jaxpr of 0.10 has none."""
    consts = getattr(j, "consts", None)
    return list(consts) if consts is not None else []


def is_jaxpr(x: Any) -> bool:
    return isinstance(x, (jex.Jaxpr, jex.ClosedJaxpr))


@dataclass
class Printed:
    """What JAX's own printer produced: the text, and the name it gave every Var."""
    text: str
    names: dict


_JAXPRS = tuple(c for c in (getattr(_core, "Jaxpr", None), getattr(_core, "ClosedJaxpr", None),
                            getattr(_pp, "Doc", None)) if c is not None)     # what a param's doc may name in


# The modules whose printing rules only choose the params an equation shows (``sin``'s hidden ``accuracy=None``,
# ``dot_general``'s short dimension numbers) and print it as ``_pp_eqn`` does: results, params, operands, so
# naming in the order every other equation names (test_model checks the names against the printer's).
_PARAMS_ONLY_MODULES = ("jax._src.lax.lax",)


def print_jaxpr(closed: Any, text: bool = True) -> Printed:
    """Print ``closed`` as JAX's printer does (``closed.pretty_print(use_color=False)``) and keep the names it gave.

    ``pp_toplevel_jaxpr`` is written here with JAX's own parts (the name context, ``pp_shared_jaxpr``,
    ``pp_jaxpr``), so the context that names the variables is one we made and can read; nothing of JAX's is
    replaced.  With ``text=False`` the document is built without types and never laid out (``Printed.text`` is
    then ``""``): the names are the same, as the printer gives them while it builds."""
    top = open_jaxpr(closed)
    context = _core.JaxprPpContext(_core._dropvars(top))
    settings = _core.JaxprPpSettings(print_shapes=text)       # pretty_print's defaults otherwise
    shared, apart = _shared_jaxprs(top, settings)
    for name, j in shared.items():
        context.shared_jaxpr_names.add(name)
        context.shared_jaxprs[j] = name
    docs = [_core.pp_shared_jaxpr(name, j, context, settings) for name, j in shared.items()]
    docs.append(_core.pp_jaxpr(top, context, settings))
    names = dict(context.var_names)
    for j in apart:      # jaxprs in a namedtuple or a mixed tuple param (custom_linear_solve's ``jaxprs``): the
        for v, name in print_jaxpr(j, text=False).names.items():     # printer writes the tuple with ``str``,
            names.setdefault(v, name)                                  # each jaxpr in a context of its own
    return Printed(text=_pp.concat(docs).format(use_color=False) if text else "", names=names)


def _shared_jaxprs(top: Any, settings: Any) -> tuple[dict, list]:
    """As ``pp_toplevel_jaxpr`` hoists them: ``{name: jaxpr}`` of the jaxprs written once at the top (met twice,
    or, any but ``top``, with over ten equations; named after the call, a repeated name numbered); and the
    jaxprs that params print with ``str`` (a namedtuple or mixed tuple holding them), each named apart."""
    subjaxprs = getattr(_core, "_pp_subjaxprs", None)      # JAX 0.12: rules for jaxprs nested otherwise
    titles: dict = {}
    counts: dict = {}
    apart: list = []
    queue = [top]
    for j in queue:
        counts[j] = counts.get(j, 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            found = subjaxprs(eqn, settings) if subjaxprs else \
                [(eqn.params.get("name"), s) for s in _core.jaxprs_in_params(eqn.params)]
            for name, s in found:
                queue.append(s)
                if name is not None:
                    titles.setdefault(s, name.strip("<>"))      # <lambda> -> lambda
            apart += [open_jaxpr(x) for v in eqn.params.values()
                      if isinstance(v, tuple) and not _in_context(v) for x in v if isinstance(x, _IN_CONTEXT)]
    shared: dict = {}
    taken: dict = {}
    for j, c in counts.items():
        if c == 1:
            continue
        name = titles.get(j, "jaxpr")
        if (n := taken.get(name, 0)) > 0:
            taken[name] = n + 1
            name += str(n)
        taken[name] = taken.get(name, 0) + 1
        shared[name] = j
    return shared, apart


_CLOSED = getattr(_core, "ClosedJaxpr", None)
_IN_CONTEXT = tuple({_core.Jaxpr, _CLOSED} - {None})   # the params the printer writes in its one context


def _in_context(v: Any) -> bool:
    """Whether ``pp_kv_pair`` writes the param ``v`` in the printer's context: a jaxpr, or a plain tuple of them."""
    return isinstance(v, _IN_CONTEXT) or (type(v) is tuple and all(isinstance(j, _IN_CONTEXT) for j in v))


def is_context_jaxpr(v: Any) -> bool:
    """Whether the printer writes the param ``v`` as a jaxpr in its own name context (a Jaxpr; JAX 0.10's
    ClosedJaxpr too): a tuple param of them is written item by item; anything else holding one (a namedtuple,
    a tuple mixed with None) through ``str``, each jaxpr named apart."""
    return isinstance(v, _IN_CONTEXT)


class _Rules:
    """How the printer writes each primitive's equations, read from its rule tables (a library may add rules
    when imported, so each lookup reads the table)."""

    _KINDS = {("jax._src.pjit", "_pjit_pp_rule"): "jit",
              ("jax._src.custom_derivatives", "_custom_jvp_call_pp_rule"): "custom",
              ("jax._src.custom_derivatives", "_custom_vjp_call_pp_rule"): "custom",
              ("jax._src.hijax", "_call_hi_primitive_prettyprint"): "hi"}

    def __init__(self):
        self.eqn_rules = getattr(_core, "pp_eqn_rules", {})
        self.sub_rules = getattr(_core, "pp_subjaxprs_rules", {})

    def kind(self, primitive) -> str | None:
        """None: written as ``_pp_eqn`` writes it (results, params by key, operands), by no rule or one that
        only picks params; ``"jit"``: pjit's rule (the body's binders take the call's names first, then as
        ``_pp_eqn``); ``"custom"``: custom_jvp/vjp's rule (params renamed, named as ``_pp_eqn``); ``"hi"``: a
        hijax primitive's rule (``SearchSorted[side=left ...]``: named as ``_pp_eqn`` when its params are plain,
        ``plain_hi_params``); ``"other"``."""
        rule = self.eqn_rules.get(primitive)
        if rule is None:
            return None
        module = getattr(rule, "__module__", "")
        if module in _PARAMS_ONLY_MODULES:
            return None
        return self._KINDS.get((module, getattr(rule, "__name__", "")), "other")

    def subjaxprs(self, primitive) -> bool:
        """Whether the printer finds the jaxprs of ``primitive``'s equations by a rule of their own."""
        return primitive in self.sub_rules


_PLAIN = (str, int, float, bool, type(None))


def plain_hi_params(eqn: Any) -> bool:
    """Whether a hijax primitive's equation prints params that name no variable (strings, numbers: jnp's
    ``SearchSorted``), so that it names its results and operands as ``_pp_eqn`` does."""
    prim = eqn.params.get("_prim")
    pp_params = getattr(prim, "pp_params", None)
    if pp_params is None:
        return False
    try:
        values = pp_params().values()
    except Exception:  # noqa: BLE001 - a library's own primitive that cannot say: the printer names it
        return False
    return all(isinstance(v, _PLAIN) or (type(v) is tuple and all(isinstance(x, _PLAIN) for x in v))
               for v in values)


def printing_rules() -> _Rules:
    return _Rules()


def holds_jaxpr(v: Any) -> bool:
    """Whether a param is a jaxpr or a tuple of them (a namedtuple too, or one mixed with None): the values
    whose printed text names variables."""
    return isinstance(v, _JAXPRS) or (isinstance(v, tuple) and any(isinstance(x, _JAXPRS) for x in v))


# The modules whose printing rules write an equation as a statement of their own (``c:f32[3] <- b[...]``,
# ``b[...] <- d``, ``b[1] += e``) rather than ``outs = prim[params] ins``: ref reads and writes.
_STATEMENT_MODULES = ("jax._src.state.primitives", "jax._src.pallas.primitives")


def prints_as_statement(eqn: Any) -> bool:
    """Whether JAX's printer writes ``eqn`` by a rule of its own as a statement (``statement_text``)."""
    rule = (getattr(_core, "pp_eqn_rules", None) or {}).get(eqn.primitive)
    return rule is not None and getattr(rule, "__module__", "") in _STATEMENT_MODULES


def statement_text(eqn: Any, names: dict) -> str | None:
    """``eqn`` as JAX's printer writes it with its own rule (a ref read ``c:f32[3] <- b[...]``), its
    variables named by ``names`` ({JAX Var: name}; a dropped result ``_``); None for an equation its
    printer writes as ``outs = prim[params] ins``, or when the rule fails on it."""
    if not prints_as_statement(eqn):
        return None
    rule = _core.pp_eqn_rules[eqn.primitive]
    context = _core.JaxprPpContext()
    for v in (*eqn.outvars, *eqn.invars):
        if isinstance(v, _core.DropVar):
            context.var_names[v] = "_"
        elif isinstance(v, _core.Var) and v in names:
            context.var_names[v] = names[v]
    try:
        return rule(eqn, context, _core.JaxprPpSettings()).format()
    except Exception:  # noqa: BLE001 - a rule of a changed layout: the plain form
        return None


# Private homes of primitives -> the public module a reader looks them up in (longest prefix first).
_PUBLIC_HOMES = (("jax._src.lax", "jax.lax"), ("jax._src.pallas", "jax.experimental.pallas"),
                 ("jax._src.state", "jax.ref"), ("jax._src.shard_map", "jax.shard_map"),
                 ("jax._src.random", "jax.random"), ("jax._src.prng", "jax.random"),
                 ("jax._src.checkify", "jax.experimental.checkify"), ("jax._src.callback", "jax"),
                 ("jax._src.ad_checkpoint", "jax"), ("jax._src.custom_derivatives", "jax"),
                 ("jax._src.pjit", "jax"), ("jax._src.core", "jax"))


@functools.lru_cache(maxsize=1)
def _holders(loaded: int) -> dict:
    """Primitive name -> the modules holding it, among the ``loaded`` modules loaded now (a module imported
    since makes another count: looked at again)."""
    import sys
    holders: dict = {}
    for module_name, module in list(sys.modules.items()):
        try:
            values = list(vars(module).values())
        except TypeError:
            continue
        for v in values:
            if isinstance(v, _core.Primitive):
                holders.setdefault(v.name, []).append(module_name)
    return holders


def primitive_home(name: str) -> str | None:
    """The public module a primitive named ``name`` belongs to (``jax.lax``, ``jax.experimental.pallas``,
    ``jax.ref``, ``equinox.internal``), found among the loaded modules that hold it; None when no loaded
    module holds one of that name."""
    import sys
    holders = _holders(len(sys.modules)).get(name)
    if not holders:
        return None
    if "jax.lax" in holders:
        return "jax.lax"
    public = [m for m in holders if not any(part.startswith("_") for part in m.split("."))
              and not m.startswith("jax.extend")]
    if public:
        return min(public, key=len)
    for prefix, home in _PUBLIC_HOMES:
        if any(m == prefix or m.startswith(prefix + ".") for m in holders):
            return home
    return holders[0].split("._", 1)[0]


@dataclass(frozen=True)
class KernelLayout:
    """What a ``pallas_call``'s ``grid_mapping`` says: the grid, how many operands are scalar-prefetch
    (index) operands and inputs, and the type of the block each input and output is cut into."""
    grid: tuple
    n_index: int
    n_in: int
    n_out: int
    n_scratch: int
    in_blocks: tuple       # ``f32[4]`` per input
    out_blocks: tuple      # per output


def kernel_layout(eqn: Any) -> KernelLayout | None:
    """The layout of a ``pallas_call`` equation from its ``grid_mapping`` param, or None when it has none of
    the shape this JAX gives it."""
    gm = eqn.params.get("grid_mapping")
    try:
        blocks = [aval_text(getattr(b.block_aval, "inner_aval", b.block_aval)) for b in gm.block_mappings]
        n_index, n_in, n_out = int(gm.num_index_operands), int(gm.num_inputs), int(gm.num_outputs)
        grid = tuple(int(g) if isinstance(g, int) else str(g) for g in gm.grid)
        return KernelLayout(grid, n_index, n_in, n_out, int(gm.num_scratch_operands),
                            tuple(blocks[:n_in]), tuple(blocks[n_in:n_in + n_out]))
    except Exception:  # noqa: BLE001 - another JAX's layout: no roles
        return None


def literal_text(lit: Any) -> str:
    """A literal as the printer shows it, e.g. ``3.0:f32[]``."""
    return lit.pretty_print(None)


def aval_text(aval: Any) -> str:
    """A type as the printer shows it, e.g. ``f32[8]``."""
    try:
        return aval.str_short(short_dtypes=True)
    except Exception:  # noqa: BLE001 - tokens and refs have no dtype
        return str(aval)


@dataclass(frozen=True)
class Frame:
    file: str
    line: int
    function: str
    text: str


def traceback(eqn: Any):
    """The traceback JAX recorded for ``eqn`` (hashable, equal for equal stacks), or None."""
    return getattr(eqn.source_info, "traceback", None)


def traceback_frame(tb: Any) -> Frame | None:
    """The innermost user (non-JAX) frame of a traceback, with its source line's text.  As
    ``source_info_util.user_frame`` finds it; the frame's line, name and text are kept per code location (the
    equations of one line, and of every re-trace of it, share them)."""
    if tb is None:
        return None
    codes, offsets = tb.raw_frames()
    key = next(((code, offset) for code, offset in zip(codes, offsets) if _siu.is_user_filename(code.co_filename)),
               None)
    if key is None:
        return None
    return _frame(*key)


@functools.lru_cache(maxsize=8192)
def _frame(code: Any, offset: int) -> Frame:
    """The Frame of a code location (one line, many equations)."""
    raw = _siu.raw_frame_to_frame(code, offset)
    return Frame(raw.file_name, raw.start_line, raw.function_name,
                 linecache.getline(raw.file_name, raw.start_line).strip())


def user_frame(eqn: Any) -> Frame | None:
    """The innermost user (non-JAX) frame that created ``eqn``, with its source line's text."""
    return traceback_frame(traceback(eqn))


@functools.lru_cache(maxsize=8192)
def user_frames(tb: Any) -> tuple:
    """Every user (non-JAX) frame of a traceback, innermost first, as ``(file, line, function, end)``;
    the function is its short name (``attention``, ``<lambda>``), ``end`` the ``(line, column)`` where the
    running expression ends.  Equal tracebacks share one answer."""
    if tb is None:
        return ()
    return tuple((f.file_name, f.start_line, f.function_name.rsplit(".", 1)[-1], (f.end_line, f.end_column))
                 for f in _siu.user_frames(tb))


@functools.lru_cache(maxsize=8192)
def user_frames_named(tb: Any) -> tuple:
    """``user_frames`` with each frame's qualified name (``Linear.__call__``) and where its running
    expression starts: ``(file, line, function, end, qualname, (start line, column))``, innermost first."""
    if tb is None:
        return ()
    return tuple((f.file_name, f.start_line, f.function_name.rsplit(".", 1)[-1], (f.end_line, f.end_column),
                  f.function_name, (f.start_line, f.start_column)) for f in _siu.user_frames(tb))


def name_stack(eqn: Any) -> str:
    return str(getattr(eqn.source_info, "name_stack", "") or "")


def name_stack_object(eqn: Any) -> Any:
    """The name stack JAX keeps (equations traced in one scope share it): a key for ``name_stack``'s text."""
    return getattr(eqn.source_info, "name_stack", None)


def func_name(j: Any) -> str | None:
    """The Python function a (sub-)jaxpr was traced from, e.g. ``f`` for a custom_jvp body."""
    info = getattr(open_jaxpr(j), "debug_info", None)
    name = getattr(info, "func_name", None)
    return name.strip("<>") if name else None


def roofline_registry() -> dict:
    """``jax.experimental.roofline``'s rule table ``{Primitive: rule}`` (private: it has no public
    accessor); ``{}`` when roofline cannot be imported (it needs ``absl-py``) or its layout changed."""
    import importlib
    try:
        importlib.import_module("jax.experimental.roofline")
        module = importlib.import_module("jax.experimental.roofline.roofline")
        return dict(getattr(module, "_rooflines", {}))
    except Exception:  # noqa: BLE001 - missing absl-py or a changed layout: own rules only
        return {}


def scan_counts(eqn: Any) -> tuple[int, int]:
    """``(num_consts, num_carry)`` of a scan eqn: plain params up to JAX 0.11; JAX 0.12 keeps the
    operand groups as a flat tree ``ft_in = (consts, carry, xs)`` whose leaves are the operands."""
    params = eqn.params
    if "num_consts" in params:
        return params["num_consts"], params["num_carry"]
    consts, carry, _ = params["ft_in"].update(list(range(len(eqn.invars)))).unpack()
    return len(list(consts)), len(list(carry))


def debug_paths(j: Any) -> tuple[tuple, tuple]:
    """``(arg_names, result_paths)`` JAX recorded when it traced ``j`` (the inner function's own names:
    ``model.states[0][3]``, ``result[0][0].states[0][3]``); empty where it kept none."""
    info = getattr(open_jaxpr(j), "debug_info", None)
    return tuple(getattr(info, "arg_names", None) or ()), tuple(getattr(info, "result_paths", None) or ())
