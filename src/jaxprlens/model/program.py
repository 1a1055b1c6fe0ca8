"""The model: a traced program as plain data (vars, eqns, roles, sources), shared by every view.

Pure data: no IPython or widget import.  Every ``Var`` carries the name JAX's printer gives it.
"""
from __future__ import annotations

import functools
import gc
import inspect
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import jax.extend.core as jex
import numpy as np

from jaxprlens.model.errors import Keyed
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
    """Where an equation came from. ``where`` is ``cell`` for notebook cells, else a file name."""
    where: str
    line: int
    function: str
    text: str

    def __str__(self) -> str:
        return f"{self.where} line {self.line}: {self.text}" if self.text else f"{self.where} line {self.line}"


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
    memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)   # what views derive once
                                                     # per program (lives and dies with it: no global cache;
                                                     # a dataclasses.replace copy starts with its own)

    @property
    def text(self) -> str:
        """The program as JAX's printer writes it (printed on first use: ``trace`` only names the values)."""
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
        raise KeyError(f"no equation {eqn_id!r}")

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

    def transform(self, name: str, **options) -> "Program":
        """The program of ``jax.grad`` / ``vmap`` / ... of this function (``jaxprlens.engine.transform``)."""
        return _provided("transform")(self, name, **options)

    def unflatten_outputs(self, flat: list):
        return jax.tree_util.tree_unflatten(self.out_tree, list(flat)) if self.out_tree else list(flat)


_PROVIDED: dict[str, Callable] = {}


def provide(name: str, make: Callable) -> None:
    """Make ``Program.<name>(...)`` call ``make(program, ...)`` (a view or an engine of a higher layer)."""
    _PROVIDED[name] = make


def _provided(name: str) -> Callable:
    try:
        return _PROVIDED[name]
    except KeyError:
        raise RuntimeError(f"Program.{name}() is provided by the jaxprlens package: `import jaxprlens` "
                           "first") from None


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


def effect_text(effect: Any) -> str:
    text = str(effect)
    return type(effect).__name__ if _ADDRESS.search(text) or text.startswith("<") else text


_CELL_FILE = re.compile(r"^<ipython-input-|/ipykernel_\d+/|^<jaxprlens-cell")


def where_label(filename: str) -> str:
    """``cell`` for code from a notebook cell, else the file's base name (deterministic)."""
    if _CELL_FILE.search(filename):
        return "cell"
    return os.path.basename(filename)


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
            src = None if frame is None else Source(where_label(frame.file), frame.line, frame.function,
                                                    frame.text)
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
                params[key] = programs[0] if not isinstance(e.params[key], tuple) else tuple(programs)
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


def _check_args(names: list[str], args: tuple, kwargs: dict, static: tuple):
    for i, (name, a) in enumerate(zip(names, args)):
        if i in static:
            try:
                hash(a)
            except TypeError:
                raise TraceError("trace_unhashable", name=name, i=i, kind=type(a).__name__) from None
            continue
        for leaf in jax.tree_util.tree_leaves(a):
            if not jex.valid_jaxtype(leaf) and not _is_array_like(leaf):
                raise TraceError("trace_untraceable", name=name, i=i, kind=type(leaf).__name__)
    for key, a in kwargs.items():
        for leaf in jax.tree_util.tree_leaves(a):
            if not jex.valid_jaxtype(leaf) and not _is_array_like(leaf):
                raise TraceError("trace_kw_untraceable", key=key, kind=type(leaf).__name__)


def _is_array_like(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype")


def trace(fn: Callable, *args, static_argnums=(), **kwargs) -> Program:
    """Trace ``fn(*args, **kwargs)`` with ``jax.make_jaxpr`` and return its ``Program``."""
    if not callable(fn):
        raise TraceError("trace_not_callable", kind=type(fn).__name__)
    static = _normalize_static(static_argnums, len(args))
    names = arg_names(fn, len(args), kwargs)
    _check_args(names, args, kwargs, static)
    closed, out_shape = jax.make_jaxpr(fn, static_argnums=static, return_shape=True)(*args, **kwargs)
    dyn_positions = [i for i in range(len(args)) if i not in static]
    dyn = (tuple(args[i] for i in dyn_positions), dict(kwargs))
    flat_args, in_tree = jax.tree_util.tree_flatten(dyn)
    in_paths = []
    for keypath, _ in jax.tree_util.tree_flatten_with_path(dyn)[0]:
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
    program.static = {i: args[i] for i in static}
    program.in_tree, program.out_tree = in_tree, out_tree
    if len(in_paths) == len(program.invars):
        program.in_paths = in_paths
        for v, p in zip(program.invars, in_paths):
            v.path = p
    if len(out_paths) == len(program.outvars):
        program.out_paths = out_paths
    return program


def from_jaxpr(closed) -> Program:
    """Wrap an existing (Closed)Jaxpr, e.g. from ``jax.make_jaxpr``, without the Python-side names."""
    printed = _jax.print_jaxpr(closed)
    program = _build(printed.names, closed)
    program.text = printed.text
    return program
