"""The model: a traced program as plain data (vars, eqns, roles, sources), shared by every view.

Pure data: no IPython or widget import.  Every ``Var`` carries the name JAX's printer gives it.
"""
from __future__ import annotations

import functools
import gc
import inspect
import os
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import jax
import jax.extend.core as jex
import numpy as np

from jaxprlens._registry import PROVIDED as _PROVIDED   # what the facade (jaxprlens/__init__.py) provides
from jaxprlens.model.errors import Keyed, KeyedLookupError
from jaxprlens.model import _jax
from jaxprlens.model.roles import Roles, Sub, roles_of


@dataclass(eq=False)
class Var:
    """A variable, named as JAX's printer names it (``a``, ``b``, ... ``_`` when dropped)."""
    name: str
    type: str
    aval: Any = field(repr=False)
    raw: Any = field(repr=False)
    path: str | None = None      # Python argument / pytree path for top-level invars

    @property
    def dropped(self) -> bool:
        return self.name == "_"

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class Lit:
    """A literal inlined in an equation, printed as JAX prints it (``3.0:f32[]``)."""
    val: Any
    type: str
    aval: Any = field(repr=False)
    text: str = ""

    @property
    def name(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text


Atom = "Var | Lit"


@dataclass(frozen=True)
class Source:
    """Where an equation came from: the innermost line of the user's own code (``where`` is ``cell`` for
    notebook cells, else a file name) and, when the equation was made inside an installed library
    (flax's ``Linear``, optax), ``via``: that library's line."""
    where: str
    line: int
    function: str
    text: str
    via: "Source | None" = None

    def __str__(self) -> str:
        own = f"{self.where} line {self.line}: {self.text}" if self.text else f"{self.where} line {self.line}"
        return own + (f" › {self.via.where}:{self.via.line} {self.via.text}" if self.via else "")


@dataclass(eq=False, slots=True)     # slots: a 100k-equation program keeps 100k of them
class Eqn:
    index: int
    primitive: str
    params: dict          # Python values; sub-jaxprs replaced by Program (or tuples of them)
    invars: list
    outvars: list
    effects: tuple
    source: Source | None
    subs: list            # list[Sub]: nested programs with operand/result maps
    roles: Roles | None
    raw: Any = field(repr=False)
    path: tuple = ()      # (3,) at top level; (2, "body", 1) inside a while body
    _id: str | None = field(default=None, init=False, repr=False)
    _memo: dict | None = field(default=None, init=False, repr=False)

    @property
    def id(self) -> str:
        """``3``, ``2/body/1``: the path as the views and breakpoints write it (made on first use)."""
        if self._id is None:
            self._id = path_id(self.path)
        return self._id

    @property
    def memo(self) -> dict:
        """What views derive once per equation (its params as shown, ...): made on first use, freed with it."""
        if self._memo is None:
            self._memo = {}
        return self._memo

    @property
    def name_stack(self) -> str:
        """JAX's name stack, e.g. ``transpose(jvp(f))`` (computed on demand: few views show it)."""
        return _jax.name_stack(self.raw)

    @property
    def frames(self) -> tuple:
        """The user frames that made the equation, innermost first: ``(file, line, function, end)`` for
        ``attention`` line 4, ``block`` line 12, ``model_loss`` line 16 (on demand; see ``calls.py``)."""
        return _jax.user_frames(_jax.traceback(self.raw))

    @property
    def depth(self) -> int:
        """How deeply nested the equation is: 0 at top level, 1 inside a while body, ..."""
        return len(self.path) // 2       # (index, key, index, key, index): a key per level down

    @property
    def jax_primitive(self):
        return self.raw.primitive


def path_id(path: tuple) -> str:
    """The string form of an eqn or program path, used in ``data-eqn`` attributes and breakpoints."""
    return "/".join(map(str, path))


@dataclass(eq=False)
class Program:
    """A jaxpr as data. The top-level program also knows the function, its args and pytree paths."""
    invars: list
    constvars: list
    consts: list
    outvars: list
    eqns: list
    effects: tuple
    jaxpr: Any = field(repr=False)    # the ClosedJaxpr (or Jaxpr) it came from
    path: tuple = ()
    fn: Callable | None = field(default=None, repr=False)
    args: tuple = field(default=(), repr=False)       # flat dynamic args, in invar order
    in_tree: Any = field(default=None, repr=False)
    out_tree: Any = field(default=None, repr=False)
    _text: str = field(default="", repr=False)       # JAX's printed text, once printed (``text``)
    in_paths: list = field(default_factory=list)     # Python path of each invar (top level only)
    out_paths: list = field(default_factory=list)    # Python path of each outvar (top level only)
    static: dict = field(default_factory=dict)       # static positional args {position: value}
    title: str = ""                                  # what it is, when not the traced call itself
    title_note: tuple = ()                           # (catalogue key, fields): how its inputs were made
    _binds: list = field(default_factory=list, repr=False)     # a jit's body: (outer input index, or None
                                                     # and a fixed value) bound to each binder
    _returns: list = field(default_factory=list, repr=False)   # ("out", body result) or ("value", x) per
                                                     # result of the call
    _held: frozenset = field(default=frozenset(), repr=False)   # leaves held fixed (not arrays)
    outer: "Program | None" = field(default=None, repr=False)   # the traced call, when this is the body of
                                                     # the one ``jit`` equation it was (``see_through``)
    out_updates: list = field(default_factory=list)  # per outvar: the input path it is the new value of
                                                     # (state a jitted step returns, e.g. nnx's), or None
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)   # what views derive once
                                                     # per program (lives and dies with it: no global cache;
                                                     # a dataclasses.replace copy starts with its own)

    @property
    def text(self) -> str:
        """The program as JAX's printer writes it (printed on first use: ``trace`` only names the values); for
        the body of a ``jit`` seen through, the call as traced: the body is in it, with the same names."""
        if self.outer is not None:
            return self.outer.text
        if not self._text:
            self._text = _jax.print_jaxpr(self.jaxpr).text
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return (f"<jaxprlens.Program: {len(self.invars)} inputs, {len(self.constvars)} constants, "
                f"{len(self.eqns)} equations, {count_eqns(self)} in all>")

    @property
    def closed_jaxpr(self):
        return self.jaxpr

    def walk(self):
        """Every eqn at every nesting level, depth first, in program order."""
        for eqn in self.eqns:
            yield eqn
            for sub in eqn.subs:
                yield from sub.program.walk()

    def find(self, eqn_id: str) -> Eqn:
        for eqn in self.walk():
            if eqn.id == eqn_id:
                return eqn
        raise KeyedLookupError("find_no_eqn", eqn=repr(eqn_id))

    # What a program can be shown as or run by.  The layers above register these (``provide``, done by
    # ``jaxprlens/__init__.py``), so the model imports no view and no engine.
    def table(self, lang: str | None = None, **options):
        """The annotated table (``jaxprlens.views.table.Table``)."""
        return _provided("table")(self, lang=lang, **options)

    def text_view(self):
        """JAX's printed text, as a view."""
        return _provided("text_view")(self)

    def graph(self, **options):
        """The dataflow graph (``jaxprlens.views.graph.Graph``)."""
        return _provided("graph")(self, **options)

    def stepper(self, *args, **options):
        """A stepper over this program with real values (``jaxprlens.engine.stepper.Stepper``)."""
        return _provided("stepper")(self, *args, **options)

    def debugger(self, *args, **options):
        """The widget debugger (``jaxprlens.views.debugger.Debugger``)."""
        return _provided("debugger")(self, *args, **options)

    def run(self, device=None, repeat: int = 20, **options):
        """Run under ``jax.jit`` on a device, timed (``jaxprlens.views.run.run``)."""
        return _provided("run")(self, device=device, repeat=repeat, **options)

    def fusion(self, device=None, **options):
        """Which equations became which compiled kernel (``jaxprlens.views.fusion.FusionView``)."""
        return _provided("fusion")(self, device=device, **options)

    def memory(self, **options):
        """Bytes live along the program, its peak, residuals (``jaxprlens.views.memory.MemoryView``)."""
        return _provided("memory")(self, **options)

    def transform(self, name: str, **options) -> "Program":
        """The program of ``jax.grad`` / ``vmap`` / ... of this function (``jaxprlens.engine.transform``)."""
        return _provided("transform")(self, name, **options)

    @property
    def returned_paths(self) -> list:
        """The Python path of each leaf of what the call returns (``out``, ``out[1]``): for a jit's body, what
        its call returns (nnx's ``loss``), not every result of the body (the state it hands back as well)."""
        return self.outer.out_paths if self.outer is not None else self.out_paths

    def unflatten_outputs(self, flat: list):
        """The function's outputs as its own pytree, from the values of ``outvars``."""
        if self.outer is not None:      # a jit's body: the call returns some of its results (or its inputs)
            outer_flat = [flat[j] if how == "out" else j for how, j in self._returns]
            return self.outer.unflatten_outputs(outer_flat)
        return jax.tree_util.tree_unflatten(self.out_tree, list(flat)) if self.out_tree else list(flat)

    def flat_args(self, args: tuple) -> list:
        """The values of ``invars`` for a call of the function with ``args`` (positional, as it takes them):
        its array leaves, static arguments and held leaves left out; a jit's body: the values the call
        binds to its binders."""
        if self.outer is not None:
            outer = self.outer.flat_args(args)
            return [outer[k] if k is not None else fixed for k, fixed in self._binds]
        leaves = jax.tree_util.tree_leaves(tuple(a for i, a in enumerate(args) if i not in self.static))
        return [x for i, x in enumerate(leaves) if i not in self._held] if self._held else leaves


def provide(name: str, make: Callable) -> None:
    """Make ``Program.<name>(...)`` call ``make(program, ...)`` (a view or an engine of a higher layer)."""
    _PROVIDED[name] = make


def _provided(name: str) -> Callable:
    try:
        return _PROVIDED[name]
    except KeyError:
        raise RuntimeError(f"Program.{name}() is provided by the jaxprlens package: `import jaxprlens` "
                           "first") from None      # in English: without the package, no catalogue is loaded


def count_eqns(program: Program) -> int:
    return sum(1 for _ in program.walk())


# ---------------------------------------------------------------- building

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def param_text(value: Any) -> str:
    """A param value as short deterministic text (no memory addresses)."""
    kind = type(value)
    if kind in _PLAIN:                          # most params (axes, sizes, flags): nothing to clean
        return str(value)
    if kind is tuple and all(type(x) in _PLAIN for x in value):     # shapes, axes, dimension numbers
        return str(value)
    if isinstance(value, Program):
        return f"{{ jaxpr: {len(value.eqns)} eqns }}"
    if isinstance(value, tuple) and value and all(isinstance(v, Program) for v in value):
        return "(" + ", ".join(param_text(v) for v in value) + ")"
    if inspect.isfunction(value) or inspect.ismethod(value):
        return f"<function {getattr(value, '__name__', '?')}>"
    if type(value).__name__ == "WrappedFun":    # custom_jvp's jvp: str() is a multi-line dump
        info = getattr(value, "debug_info", None)
        return f"<function {getattr(info, 'func_name', None) or '?'}>"
    text = str(value)
    return _ADDRESS.sub("", text) if " at 0x" in text else text


_PLAIN = frozenset((int, float, bool, str, type(None)))


def var_text(a) -> str:
    """A value with its type as JAX's printer writes a binder, ``c:f32[8]`` (a literal: ``2.0:f32[]``).

    The one way to write it: ``present.nouns`` gives it to every view; it lives here, with ``param_text``,
    because the engines' messages name variables too and may not import the presentation layer."""
    return a.text if isinstance(a, Lit) else f"{a.name}:{a.type}"


def statement(eqn: Eqn) -> str | None:
    """The equation as JAX's printer writes it when its printing rule makes it a statement rather than
    ``outs = prim[params] ins``: a ref read ``c:f32[3] <- b[...]``, a write ``b[...] <- d``, an update
    ``b[1] += e``, a swap ``g:f32[4], d[...] <- d[...], f``; None for every other equation (made once)."""
    memo = eqn.memo
    if "statement" not in memo:
        names = {v.raw: v.name for v in (*eqn.outvars, *eqn.invars) if isinstance(v, Var)}
        memo["statement"] = _jax.statement_text(eqn.raw, names)
    return memo["statement"]


def effect_text(effect: Any) -> str:
    text = str(effect)
    return type(effect).__name__ if _ADDRESS.search(text) or text.startswith("<") else text


def _library_dirs() -> tuple:
    import site
    import sysconfig
    dirs = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:          # an old virtualenv's site module
        pass
    return tuple(sorted(os.path.join(d, "") for d in dirs if d))


_LIBRARY_DIRS = _library_dirs()


@functools.lru_cache(maxsize=4096)
def in_library(filename: str) -> bool:
    """Whether ``filename`` is an installed library's (flax, optax, the standard library), not the user's own
    code (a notebook cell, a script or package of their own, an editable install's source)."""
    return (filename.startswith(_LIBRARY_DIRS) or f"{os.sep}site-packages{os.sep}" in filename
            or f"{os.sep}dist-packages{os.sep}" in filename)


_CELL_FILE = re.compile(r"^<ipython-input-|/ipykernel_\d+/|^<jaxprlens-cell")


def where_label(filename: str) -> str:
    """``cell`` for code from a notebook cell, else the file's base name (deterministic)."""
    if _CELL_FILE.search(filename):
        return "cell"
    return os.path.basename(filename)


def source_of(file: str, line: int, function: str, text: str | None = None) -> Source:
    """The ``Source`` of a line of ``file`` (its text read from the file when not given)."""
    if text is None:
        import linecache
        text = linecache.getline(file, line).strip()
    return Source(where_label(file), line, function, text)


class _Builder:
    """Converts JAX's (Closed)Jaxpr tree into our model, naming every Var with the printer's name."""

    def __init__(self, names: dict):
        self.names = names
        self.vars: dict = {}
        self.types: dict = {}     # aval -> its printed type: a program has few distinct avals
        self.sources: dict = {}   # traceback -> Source: eqns made by one line share a stack
        self.literals: dict = {}  # (aval, dtype, bytes) of a 0-d literal -> its printed text

    def type(self, aval) -> str:
        try:
            text = self.types.get(aval)
        except TypeError:         # an unhashable aval
            return _jax.aval_text(aval)
        if text is None:
            text = self.types[aval] = _jax.aval_text(aval)
        return text

    def var(self, v) -> Var:
        ours = self.vars.get(v)
        if ours is None:
            if isinstance(v, _jax.DropVar):
                return Var("_", self.type(v.aval), v.aval, v)
            name = self.names.get(v) or f"?{len(self.vars)}"
            ours = self.vars[v] = Var(name, self.type(v.aval), v.aval, v)
        return ours

    def atom(self, a):
        if isinstance(a, _jax.Literal):
            return Lit(a.val, self.type(a.aval), a.aval, self.literal_text(a))
        return self.var(a)

    def literal_text(self, a) -> str:
        val = a.val
        if not (isinstance(val, np.ndarray) and val.ndim == 0):   # Python scalars, arrays: as printed
            return _jax.literal_text(a)
        key = (a.aval, val.dtype, val.tobytes())  # bytes, not ==: -0.0 prints unlike 0.0
        text = self.literals.get(key)
        if text is None:
            text = self.literals[key] = _jax.literal_text(a)
        return text

    def source(self, e) -> Source | None:
        tb = _jax.traceback(e)
        if tb is None:
            return None
        try:
            return self.sources[tb]
        except KeyError:
            frame = _jax.traceback_frame(tb)
            src = None if frame is None else source_of(frame.file, frame.line, frame.function, frame.text)
            if src is not None and in_library(frame.file):     # made in a library: the user's line first
                own = next((f for f in _jax.user_frames(tb) if not in_library(f[0])), None)
                if own is not None:
                    src = replace(source_of(*own[:3]), via=src)
            self.sources[tb] = src
            return src

    def program(self, closed, path: tuple) -> Program:
        j = _jax.open_jaxpr(closed)
        eqns = [self.eqn(e, i, path + (i,)) for i, e in enumerate(j.eqns)]
        return Program(
            invars=[self.var(v) for v in j.invars],
            constvars=[self.var(v) for v in j.constvars],
            consts=_jax.consts_of(closed),
            outvars=[self.atom(v) for v in j.outvars],
            eqns=eqns,
            effects=tuple(effect_text(e) for e in j.effects),
            jaxpr=closed,
            path=path,
        )

    def eqn(self, e, index: int, path: tuple) -> Eqn:
        roles, subs = roles_of(e)
        built_subs = [Sub(s.key, s.label, self.program(s.jaxpr, path + (s.key,)), s.in_map, s.out_map,
                          s.param, s.kind) for s in subs]
        params = e.params          # JAX's own dict, never changed: copied only to put our sub-programs in
        if built_subs:
            params, by_param = dict(params), {}
            for s in built_subs:
                by_param.setdefault(s.param, []).append(s.program)
            for key, programs in by_param.items():
                params[key] = programs[0] if not isinstance(e.params[key], tuple) else \
                    _put_programs(e.params[key], programs)
        return Eqn(
            index=index,
            primitive=e.primitive.name,
            params=params,
            invars=[self.atom(a) for a in e.invars],
            outvars=[self.var(v) for v in e.outvars],
            effects=tuple(effect_text(x) for x in e.effects) if e.effects else (),
            source=self.source(e),
            subs=built_subs,
            roles=roles,
            raw=e,
            path=path,
        )


def _put_programs(value: tuple, programs: list) -> tuple:
    """A tuple param (a namedtuple such as custom_linear_solve's ``jaxprs``, or one mixed with None) with
    each jaxpr in it replaced by its program, in order, everything else kept in its place."""
    it = iter(programs)
    items = [next(it, x) if _jax.is_jaxpr(x) else x for x in value]
    return type(value)(*items) if hasattr(value, "_fields") else tuple(items)


def _build(names: dict, closed) -> Program:
    """The model of ``closed``.  The collector is off meanwhile: the build makes a few acyclic objects per
    equation, and letting them trigger full collections of a heap full of JAX's objects cost more than
    the build itself (10k equations: 190 ms instead of 60-90 ms)."""
    was = gc.isenabled()
    gc.disable()
    try:
        return _Builder(names).program(closed, ())
    finally:
        if was:
            gc.enable()


# ---------------------------------------------------------------- tracing

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


def arg_names(fn: Callable, nargs: int, kwargs: dict) -> list[str]:
    """The Python name of each positional argument (``first``, ``args[2]``, ``arg0``)."""
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
            if arrays and not _is_array_like(args[i]):      # a module (Equinox, flax) or a pytree of weights: its arrays are to be traced
                raise TraceError("trace_static_arrays", name=names[i], i=i, kind=kind, n=arrays) from None
            raise TraceError("trace_unhashable", name=names[i], i=i, kind=kind) from None


# JAX's words when a jax.jit'd function is called with a leaf that is no array (an Equinox module's
# activation function, a flax Module's non-array field)
_JIT_NON_ARRAY = re.compile(r"Error interpreting argument to (.+?) as an abstract array\. The problematic value is "
                            r"of type (.+?) and was passed to the function at path (.+?)\.\s*$", re.M)
_NON_ARRAY = re.compile(r"Cannot interpret value of type (.+?) as an abstract array")


def _jit_advice(e: TypeError) -> "TraceError | None":
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


def _traceable(leaf) -> bool:
    return jex.valid_jaxtype(leaf) or _is_array_like(leaf)


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
    static = _normalize_static(static_argnums, len(args))
    names = arg_names(fn, len(args), kwargs)
    _check_static(names, args, static)
    dyn_positions = [i for i in range(len(args)) if i not in static]
    dyn = (tuple(args[i] for i in dyn_positions), dict(kwargs))
    with_paths, in_tree = jax.tree_util.tree_flatten_with_path(dyn)
    held = [i for i, (_, leaf) in enumerate(with_paths) if not _traceable(leaf)]
    try:
        if not held:
            closed, out_shape = jax.make_jaxpr(fn, static_argnums=static, return_shape=True)(*args, **kwargs)
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
            closed, out_shape = jax.make_jaxpr(call, return_shape=True)(*(leaf for _, leaf in with_paths))
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
    _, out_tree = jax.tree_util.tree_flatten(out_shape)
    out_paths = ["out" + jax.tree_util.keystr(tuple(kp))
                 for kp, _ in jax.tree_util.tree_flatten_with_path(out_shape)[0]]

    printed = _jax.print_jaxpr(closed, text=False)      # the printer's names; its text when asked (str)
    program = _build(printed.names, closed)
    program.fn, program.args = fn, tuple(flat_args)
    program.static = {i: args[i] for i in static} if not held else {}
    program.in_tree, program.out_tree = in_tree, out_tree
    program._held = frozenset(held)
    if len(in_paths) == len(program.invars):
        program.in_paths = in_paths
        for v, p in zip(program.invars, in_paths):
            v.path = p
    if len(out_paths) == len(program.outvars):
        program.out_paths = out_paths
    program = seen_through(program) if see_through else program
    name_binders(program)
    return program


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
    body.outer, body.fn, body.static = outer, outer.fn, outer.static
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


def from_jaxpr(closed) -> Program:
    """Wrap an existing (Closed)Jaxpr, e.g. from ``jax.make_jaxpr``, without the Python-side names."""
    printed = _jax.print_jaxpr(closed)
    program = _build(printed.names, closed)
    program.text = printed.text
    return program
