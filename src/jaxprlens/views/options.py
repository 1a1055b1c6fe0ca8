"""The ``%%jaxpr`` options, each declared once: a field of ``Options`` is an option's typed value, its default and
its ``Spec`` (what it takes, the view it shows or needs, how its value is checked).  The magic's parser, the
line magic's split, ``--help`` in both languages and every check before the cell runs are read from these specs.

Adding an option is one field here (and its words, ``help.jaxpr.<name>`` in ``present/catalogue/magic.py``);
a view option names the function that makes its part of the output (``shows``), which ``build_view`` calls.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from jaxprlens.engine.runner import BUDGET, REPEAT
from jaxprlens.model.errors import KeyedError
from jaxprlens.present.i18n import check as check_lang, resolve, t
from jaxprlens.present.shares import METRICS, Metric

if TYPE_CHECKING:
    import jax


@dataclass(frozen=True)
class Spec:
    """One option of ``%%jaxpr``: everything the parser, the line split, the help and the checks need to know."""
    name: str = ""                 # the field's name; the flag is ``--`` and the name with ``-`` for ``_``
    default: Any = None            # the field's default: the one place it is written
    value: type | None = None      # what a value is read as (str, int, float); None: a flag, which takes none
    choices: tuple = ()            # the values it takes, when it is one of a few
    const: Any = None              # its value when written alone (``--cost`` is ``--cost flops``); None: it needs one
    parse: Callable | None = None  # text as written -> the typed value (a ``KeyedError`` says why it cannot)
    check: Callable | None = None  # ``Options`` -> None, or a ``KeyedError``: a value that cannot work, said early
    needs: tuple = ()              # it works only with one of these options: a name, or ``(name, value)``
    shows: str = ""                # a view option: ``module:function`` making its part of the output from a ``Cell``
    at: int = 0                    # where that part stands in the output, top first
    example: str = ""              # the option with what it needs, as written in a cell
    short: str = ""                # ``-h``

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def flags(self) -> tuple[str, ...]:
        return ((self.short,) if self.short else ()) + (self.flag,)

    @property
    def takes_value(self) -> bool:
        return self.value is not None

    def help(self, lang: str) -> str:
        """Its help in ``lang`` (``help.jaxpr.<name>``), its default said where the words name it."""
        return t(f"help.jaxpr.{self.name}", lang, default=self.default)


def option(default: Any = None, **spec) -> Any:
    """A field of ``Options`` with its ``Spec`` (the spec's fields but ``name`` and ``default``)."""
    return field(default=default, metadata={"spec": Spec(**spec)})


# ---------------------------------------------------------------- values, read and checked before the cell runs

def _ints(flag: str) -> Callable:
    def parse(text: str) -> tuple[int, ...]:
        from jaxprlens.engine.transform import int_list
        return int_list(text, flag)
    return parse


def _axes(text: str) -> tuple:
    from jaxprlens.engine.transform import parse_axes
    return parse_axes(text)


def _device(text: str):
    """The device once, as JAX's object: every engine the cell runs takes it as it is."""
    from jaxprlens.engine.devices import resolve_device
    return resolve_device(text)


def _runs(opts: Options) -> None:
    if opts.repeat < 1:
        raise KeyedError("run_repeat", repeat=opts.repeat)
    if not opts.budget > 0:
        raise KeyedError("run_budget", budget=opts.budget)


def _graph_size(opts: Options) -> None:
    if min(opts.depth or 0, opts.max_nodes) < 0:
        from jaxprlens.views.graph.draw import DEPTH     # what the graph opens when not told
        raise KeyedError("graph_negative", depth=DEPTH if opts.depth is None else opts.depth, max_nodes=opts.max_nodes)


def _transform(opts: Options) -> None:
    from jaxprlens.engine.transform import check_options
    check_options(opts.transform, opts.transform_options)


def _compare(opts: Options) -> None:
    """``--compare`` is an output of its own (the two programs side by side, ``--lower``/``--compiled`` below)."""
    others = [s.flag for s in VIEWS if getattr(opts, s.name) and s.shows not in (SPEC["lower"].shows,)]
    if others:
        raise KeyedError("compare_alone", given=" ".join(others))


def _max_nodes() -> int:
    from jaxprlens.views.graph.draw import MAX_NODES
    return MAX_NODES


# where a device runs the program: the views that take --device
_ON_DEVICE = ("run", "profile", "fusion", "sharding", "debug")
_TIMED = ("run", "profile")


@dataclass(frozen=True)
class Options:
    """What the reader asked for, as plain typed values, checked: the magic's argparse namespace stops at
    ``from_namespace``; the views and engines read these.  ``Options()`` is the table, in the default language.
    The fields are in the order ``--help`` lists them."""
    text: bool = option(False, shows="jaxprlens.views.table.text:part", at=10)
    table: bool = option(False, shows="jaxprlens.views.table.live:part", at=20)       # the default view
    graph: bool = option(False, shows="jaxprlens.views.graph.graph:part", at=30)
    debug: bool = option(False, shows="jaxprlens.views.debugger.debugger:part", at=90)
    run: bool = option(False, shows="jaxprlens.views.compiled.run:run_part", at=70)
    profile: bool = option(False, shows="jaxprlens.views.compiled.run:profile_part", at=80)
    cost: Metric | None = option(None, value=str, choices=METRICS, const=METRICS[0], needs=("table", "graph"),
                                 example="--graph --cost bytes")
    devices: bool = option(False)                    # list the devices and stop (the magic, before any cell runs)
    device: jax.Device | None = option(None, value=str, parse=_device, needs=_ON_DEVICE,
                                       example="--run --device cpu")
    repeat: int = option(REPEAT, value=int, check=_runs, needs=_TIMED, example="--run --repeat 5")
    budget: float = option(BUDGET, value=float, check=_runs, needs=_TIMED, example="--profile --budget 30")
    static_argnums: tuple[int, ...] = option((), value=str, parse=_ints("--static-argnums"))
    outer: bool = option(False)      # a call that is one jit equation: show that equation, not its body
    lang: str | None = option(None, value=str, parse=check_lang)      # None: the kernel's (``%jaxpr_config --lang``)
    depth: int | None = option(None, value=int, check=_graph_size, needs=("graph",), example="--graph --depth 1")
    max_nodes: int = option(_max_nodes(), value=int, check=_graph_size, needs=("graph",),
                            example="--graph --max-nodes 12")
    path: str | None = option(None, value=str, needs=("graph",), example="--graph --path 2/body")
    transform: str | None = option(None, value=str, check=_transform)      # one of ``engine.transform.TRANSFORMS``
    argnums: tuple[int, ...] | None = option(None, value=str, parse=_ints("--argnums"), needs=("transform",),
                                             example="--transform grad --argnums 0,1")
    in_axes: tuple[int | None, ...] | None = option(None, value=str, parse=_axes, needs=("transform",),
                                                    example="--transform vmap --in-axes 0,None")
    batched: bool = option(False, needs=(("transform", "vmap"),), example="--transform vmap --batched")
    has_aux: bool = option(False, needs=(("transform", "grad"),), example="--transform grad --has-aux")
    compare: bool = option(False, check=_compare, needs=("transform",), example="--transform grad --compare")
    lower: bool = option(False, shows="jaxprlens.views.compiled.lower:part", at=40)
    # the same part: StableHLO and HLO
    compiled: bool = option(False, shows="jaxprlens.views.compiled.lower:part", at=40)
    fusion: bool = option(False, shows="jaxprlens.views.compiled.fusion:part", at=50)
    memory: bool = option(False, shows="jaxprlens.views.compiled.memory:part", at=60)
    sharding: bool = option(False, shows="jaxprlens.views.compiled.sharding:part", at=65)

    @classmethod
    def from_namespace(cls, ns) -> Options:
        """The options of a namespace (the magic's argparse one), read and checked all at once, before anything
        runs: a bad one is a ``ValueError`` (``KeyedError``, worded by the catalogue) saying which.  Each value read
        first (``--device tpu:9``), then what each option needs (``--depth`` without ``--graph``), then the checks
        of values together (``--transform vmap --argnums 0``).  Checks that need the call
        (an ``--argnums`` past its arguments) are the engines', when it is traced."""
        given = {}
        for spec in SPECS[1:]:
            value = getattr(ns, spec.name, None)
            if value is None:
                continue
            if spec.choices and value not in spec.choices:
                raise KeyedError("opt_choice", option=spec.flag, value=repr(value),
                                 choices=", ".join(map(repr, spec.choices)))
            given[spec.name] = spec.parse(value) if spec.parse and isinstance(value, str) else value
        given["lang"] = resolve(given.get("lang"))       # this cell's language, else the kernel's: one for the cell
        opts = cls(**given)
        if opts.missing("en"):
            raise NeedsError(opts)
        for check in dict.fromkeys(s.check for s in SPECS if s.check and opts.differs(s.name)):
            check(opts)
        return opts

    def differs(self, name: str) -> bool:
        """Whether option ``name`` was given a value other than its default (one at its default changes nothing)."""
        return getattr(self, name) != SPEC[name].default

    def shown(self, name: str) -> bool:
        """Whether the view option ``name`` shows its part: given, or the table when no view is (and no
        ``--compare``, which is an output of its own)."""
        return bool(getattr(self, name)) or (name == DEFAULT_VIEW and not self.compare
                                             and not any(getattr(self, s.name) for s in VIEWS))

    def _has(self, need) -> bool:
        name, value = need if isinstance(need, tuple) else (need, None)
        if value is not None:
            return getattr(self, name) == value
        return self.shown(name) if SPEC[name].shows else bool(getattr(self, name))

    def missing(self, lang: str | None = None) -> list[str]:
        """Each option given without what it needs, said in ``lang``: one line per need."""
        groups: dict = {}
        for spec in SPECS:
            if spec.needs and self.differs(spec.name) and not any(self._has(n) for n in spec.needs):
                groups.setdefault(spec.needs, []).append(spec)
        return [t("option_needs", lang, n=len(specs), given=" ".join(s.flag for s in specs), example=specs[0].example,
                  needs=either([_need_text(n) for n in needs], lang))
                for needs, specs in groups.items()]

    @property
    def transform_options(self) -> dict:
        """What ``engine.transform.transform`` takes of these (given ones only): one axis or argument
        number as a single value, as ``jax.vmap`` and ``jax.grad`` take it."""
        def single(x):
            return x[0] if isinstance(x, tuple) and len(x) == 1 else x
        options = {"argnums": single(self.argnums), "in_axes": single(self.in_axes), "batched": self.batched or None,
                   "has_aux": self.has_aux or None}
        return {k: v for k, v in options.items() if v is not None}

    def parts(self) -> list[str]:
        """The ``module:function`` of each part the output shows, top first (each once)."""
        return list(dict.fromkeys(s.shows for s in sorted(VIEWS, key=lambda s: s.at) if self.shown(s.name)))


class NeedsError(KeyedError):
    """Options given without what they need (``Options.missing``), one line each, in the reader's language."""

    def __init__(self, opts: Options):
        super().__init__("option_needs")
        self.opts = opts

    def text(self, lang: str | None = "en") -> str:
        return "\n".join(self.opts.missing(lang))


def _need_text(need) -> str:
    name, value = need if isinstance(need, tuple) else (need, None)
    return SPEC[name].flag + (f" {value}" if value is not None else "")


def either(words: list[str], lang: str | None) -> str:
    """``a``, ``a or b``, ``a, b or c`` (``a、b 或 c``)."""
    if len(words) < 2:
        return "".join(words)
    return t("list_sep", lang).join(words[:-1]) + t("or", lang) + words[-1]


# ---------------------------------------------------------------- the specs, read from the fields

HELP = Spec(name="help", short="-h", default=False)     # the magic prints the help and stops: no field
SPECS: tuple[Spec, ...] = (HELP,) + tuple(replace(f.metadata["spec"], name=f.name, default=f.default)
                                          for f in fields(Options))
SPEC = {s.name: s for s in SPECS}
VIEWS = tuple(s for s in SPECS if s.shows)
DEFAULT_VIEW = "table"


def _lookup(word: str) -> Spec | None:
    """The spec a word names: its flag, or a prefix of only one flag (argparse reads ``--max`` as ``--max-nodes``)."""
    if not word.startswith("-"):
        return None
    exact = [s for s in SPECS if word in s.flags]
    if exact:
        return exact[0]
    close = [s for s in SPECS if word.startswith("--") and s.flag.startswith(word)]
    return close[0] if len(close) == 1 else None


def option_words(line: str):
    """``(spec or None, value or None, start)`` for each option of ``line`` as argparse reads it, up to the first
    word that is neither an option nor an option's value, then ``(None, None, start of that word)``."""
    words = list(re.finditer(r"\S+", line))
    i = 0
    while i < len(words):
        word = words[i].group()
        if not word.startswith("-"):
            yield None, None, words[i].start()
            return
        flag, eq, inline = word.partition("=")
        spec = _lookup(flag)
        value = inline if eq else None
        if spec is not None and spec.takes_value and not eq and i + 1 < len(words):
            after = words[i + 1].group()
            if spec.const is None or after in spec.choices:     # ``--cost f(x)``: f(x) is the call
                value, i = after, i + 1
        yield spec, value, words[i].start()
        i += 1


def split_line(line: str) -> tuple[str, str]:
    """A line magic's line as ``(options, call)``: the call starts at the first word that is neither an option nor
    the value of one (``%jaxpr --cost bytes f(x)``, ``%jaxpr --cost f(x)``)."""
    for spec, _, start in option_words(line):
        if spec is None and not line[start:].startswith("-"):
            return line[:start], line[start:]
    return line, ""


def written(line: str, name: str) -> str | None:
    """The value option ``name`` is given in ``line`` as written (the last one, as argparse keeps it), or None:
    read before argparse (which may refuse the line) to say its refusal in the cell's ``--lang``."""
    found = None
    for spec, value, _ in option_words(line):
        if spec is not None and spec.name == name and value is not None:
            found = value
    return found
