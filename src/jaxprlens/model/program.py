"""The model: a traced program as plain data (vars, eqns, roles, sources), shared by every view.

Pure data: no IPython or widget import.  Every ``Var`` carries the name JAX's printer gives it.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable

import jax

from jaxprlens._registry import PROVIDED as _PROVIDED   # what the facade (jaxprlens/__init__.py) provides
from jaxprlens.model.errors import KeyedLookupError
from jaxprlens.model import _jax
from jaxprlens.model.roles import Roles
from jaxprlens.model.sources import Source
from jaxprlens.model.sources import in_library, where_label  # noqa: F401 - read from here by present/, engine/, tests


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


@dataclass(frozen=True, eq=False)
class Call:
    """The call a program was traced from, as the user wrote it: ``fn(*args, **kwargs)``, the positions in
    ``static`` static (``static_argnums``).  What a transformation transforms: the function the user passed,
    with its static arguments, and with the leaves that are no arrays held as they were."""
    fn: Callable
    args: tuple
    kwargs: dict
    static: tuple = ()


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
    title_note: tuple = ()                           # (catalogue key, fields) pairs: what was transformed,
                                                     # how its inputs were made
    _binds: list = field(default_factory=list, repr=False)     # a jit's body: (outer input index, or None
                                                     # and a fixed value) bound to each binder
    _returns: list = field(default_factory=list, repr=False)   # ("out", body result) or ("value", x) per
                                                     # result of the call
    _held: frozenset = field(default=frozenset(), repr=False)   # leaves held fixed (not arrays)
    outer: Program | None = field(default=None, repr=False)   # the traced call, when this is the body of
                                                     # the one ``jit`` equation it was (``see_through``)
    call: Call | None = field(default=None, repr=False)   # the call as written (a jit's body: its call's)
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
        """The annotated table (``jaxprlens.views.table.table.Table``)."""
        return _provided("table")(self, lang=lang, **options)

    def text_view(self):
        """JAX's printed text, as a view."""
        return _provided("text_view")(self)

    def graph(self, **options):
        """The dataflow graph (``jaxprlens.views.graph.graph.Graph``)."""
        return _provided("graph")(self, **options)

    def stepper(self, *args, **options):
        """A stepper over this program with real values (``jaxprlens.engine.stepper.Stepper``)."""
        return _provided("stepper")(self, *args, **options)

    def debugger(self, *args, **options):
        """The widget debugger (``jaxprlens.views.debugger.debugger.Debugger``)."""
        return _provided("debugger")(self, *args, **options)

    def run(self, device=None, **options):
        """Run under ``jax.jit`` on a device, timed (``jaxprlens.views.compiled.run.run``:
        ``repeat``, ``budget``, ...)."""
        return _provided("run")(self, device=device, **options)

    def fusion(self, device=None, **options):
        """Which equations became which compiled kernel (``jaxprlens.views.compiled.fusion.FusionView``)."""
        return _provided("fusion")(self, device=device, **options)

    def sharding(self, device=None, **options):
        """Where the data lives on the device mesh and which equation made each collective
        (``jaxprlens.views.compiled.sharding.ShardingView``)."""
        return _provided("sharding")(self, device=device, **options)

    def memory(self, **options):
        """Bytes live along the program, its peak, residuals (``jaxprlens.views.compiled.memory.MemoryView``)."""
        return _provided("memory")(self, **options)

    def transform(self, name: str, **options) -> Program:
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


# ---------------------------------------------------------------- values as text

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
    if kind is frozenset:                       # as JAX's printer writes one: sorted, braces even when empty
        try:
            return "frozenset({" + ", ".join(repr(x) for x in sorted(value)) + "})"
        except TypeError:
            return str(value)
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
        if _jax.prints_as_statement(eqn.raw):
            names = {v.raw: v.name for v in (*eqn.outvars, *eqn.invars) if isinstance(v, Var)}
            memo["statement"] = _jax.statement_text(eqn.raw, names)
        else:                    # most equations: ``outs = prim[params] ins``
            memo["statement"] = None
    return memo["statement"]


def effect_text(effect: Any) -> str:
    text = str(effect)
    return type(effect).__name__ if _ADDRESS.search(text) or text.startswith("<") else text
