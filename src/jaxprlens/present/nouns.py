"""The presentation layer's nouns, each written one way: a variable (``var_text``), an operand
(``atom_text``), params (``params_text``), an equation line (``eqn_text``), a source line (``source_text``,
once per run of rows: ``repeats``), and the rows every view shows of a program (params as JAX's printer hides
them, an explanation once per primitive), as plain data.

Text forms live here; ``rows.py`` builds the HTML and browser-data forms from the same pieces.  Views (table,
graph, compare, diff, lower, run, debugger) call these; none of them writes a noun by hand.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from jaxprlens.model.explain import explain
from jaxprlens.model.program import Eqn, Lit, Program, Source, Var, param_text, statement
from jaxprlens.model.program import var_text  # noqa: F401 - the one way to write ``c:f32[8]`` (see there)
from jaxprlens.present.escape import visible
from jaxprlens.present.display import shorten
from jaxprlens.present.i18n import remembered, role_word, sub_label, t, where_text

FOLD = 48          # a param value longer than this is folded (its full text one click away)


# ------------------------------------------------------------------ params JAX's printer leaves out

def _all(pred):
    return lambda v: isinstance(v, (tuple, list)) and all(map(pred, v))


def _unspecified(x) -> bool:
    return type(x).__name__ == "UnspecifiedValue"


def _empty_mesh(x) -> bool:
    return x is None or bool(getattr(x, "empty", False))


_JIT_DEFAULTS = {
    "inline": lambda v: True,
    "donated_invars": _all(lambda x: not x),
    "in_shardings": _all(_unspecified),
    "out_shardings": _all(_unspecified),
    "in_layouts": _all(lambda x: x is None),
    "out_layouts": _all(lambda x: x is None),
    "keep_unused": lambda v: not v,
    "ctx_mesh": _empty_mesh,
    "resource_env": _empty_mesh,
    "compiler_options_kvs": lambda v: not v,
}

# primitive -> {param: "is this value the default that JAX's printer hides?"}
default_param_rules: dict[str, dict] = {
    "jit": _JIT_DEFAULTS, "pjit": _JIT_DEFAULTS,
    # JAX prints ``reshard`` with no params: its target is the result's type (``f32[16@data,32]``)
    "reshard": {"dst_sharding": lambda v: True, "concrete_mesh": lambda v: True},
}


class Param:
    """``key=value`` of an equation: ``text`` is the value's full text (no memory addresses), written on first
    use (a hidden default's only when "all params" is drawn); ``default``: JAX's printer hides it."""
    __slots__ = ("key", "default", "_text", "_value", "_line")

    def __init__(self, key: str, text: str | None = None, default: bool = False, value: Any = None):
        self.key, self.default, self._text, self._value = key, default, text, value
        self._line: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            value = self._value
            self._text, self._value = param_text(value), None
        return self._text

    def __repr__(self) -> str:
        return f"Param({self.key!r}, {self.text!r}, default={self.default})"

    @property
    def line(self) -> str:
        """The text on one line (``debug_print``'s ``fmt`` may hold newlines): one row per equation (made once:
        the row's HTML, its text and its search text all read it)."""
        if self._line is None:
            self._line = self.text.replace("\r\n", "\\n").replace("\n", "\\n")
        return self._line

    @property
    def folded(self) -> bool:
        return len(self.line) > FOLD

    @property
    def short(self) -> str:
        """``key=value`` as an equation line shows it: on one line, cut at ``FOLD`` characters."""
        return shorten(self.line, FOLD)


_DEFAULTS_SEEN: dict = {}     # (key, types, value) of a hidden default -> its Param: every jit equation has ten


def default_param(key: str, value: Any) -> Param:
    """The ``Param`` of a default JAX's printer hides (``in_shardings=(UnspecifiedValue,)``, ``inline=...``),
    one per value, shared by the equations that hold it: the same few values come back on every jit equation,
    and the row's HTML of each is written once (``rows.param_html``).  The key holds the types (of a tuple's
    items too), so that equal values of other types (``(0,)``, ``(False,)``) are told apart."""
    try:
        seen = (key, type(value), tuple(map(type, value)) if type(value) is tuple else (), value)
        made = _DEFAULTS_SEEN.get(seen)
    except TypeError:             # an unhashable value: a Param of its own, written when drawn
        return Param(key, None, True, value)
    if made is None:
        if len(_DEFAULTS_SEEN) >= 1024:
            _DEFAULTS_SEEN.clear()
        made = _DEFAULTS_SEEN[seen] = Param(key, param_text(value), True)
    return made


def params_of(eqn: Eqn) -> tuple[Param, ...]:
    """Params worth showing, in JAX's order: not sub-jaxprs (they get nested tables), not ``None``.
    Made once per equation (a table asks for them for its rows, its text and its data rows): shared, not
    to be changed."""
    made = eqn.memo.get("params")
    if made is None:
        made = eqn.memo["params"] = tuple(_params_of(eqn))
    return made


# primitives whose row writes every param as JAX's printer does: in its order (sorted by key), ``None`` included,
# so that the row of a sharding decision reads exactly as ``jax.make_jaxpr`` prints it
PRINTER_ORDER = frozenset(("shard_map", "sharding_constraint"))


def _params_of(eqn: Eqn) -> list[Param]:
    if eqn.primitive in PRINTER_ORDER:
        subs = {s.param for s in eqn.subs}
        return [Param(k, param_text(eqn.params[k])) for k in sorted(eqn.params) if k not in subs]
    hidden = default_param_rules.get(eqn.primitive)
    if hidden is None and not eqn.subs:         # most equations: every param but None, as written
        return [Param(k, param_text(v)) for k, v in eqn.params.items() if v is not None]
    subs = {s.param for s in eqn.subs} if eqn.subs else ()
    hidden = hidden or {}
    out = []
    for k, v in eqn.params.items():
        if v is None or k in subs:
            continue
        rule = hidden.get(k)
        if rule is not None:
            try:
                default = bool(rule(v))
            except Exception:  # noqa: BLE001 - a param of an unexpected shape is simply shown
                default = False
            if default:
                out.append(default_param(k, v))
                continue
        out.append(Param(k, param_text(v)))
    return out


# ------------------------------------------------------------------ rows

@dataclass
class Row:
    """One equation as every view shows it."""
    eqn: Eqn
    params: tuple[Param, ...]   # the shared params_of(eqn)
    source: Source | None
    same_source: bool            # made by the same source line as the row above: don't repeat it
    explain: str | None          # None after the first row of this primitive in the program
    subs: list = field(default_factory=list)   # list[Block], one per sub-jaxpr


@dataclass
class Block:
    """A program (top level or a sub-jaxpr) as rows, with the words of its explanations."""
    program: Program
    rows: list[Row]


def repeats(sources: list) -> list[bool]:
    """For each row's source line (None: none, or a row that breaks the run), whether it is the line of the
    row just above: a run of rows made by one line shows it once (the table, the debugger, the rows the
    script draws)."""
    out, prev = [], None
    for src in sources:
        out.append(src is not None and src == prev)
        prev = src
    return out


def _line_of(src: Source | None):
    return None if src is None else (src.where, src.cell, src.line, src.text)


def block(program: Program, lang: str = "en", seen: set | None = None, deep: bool = True,
          eqns: list | None = None) -> Block:
    """The rows of ``program`` and (``deep``) of its sub-jaxprs; ``seen`` holds primitives already explained;
    ``eqns``: a run of the program's equations to make the rows of (a folded table's), instead of all."""
    seen = set() if seen is None else seen
    rows = []
    eqns = program.eqns if eqns is None else eqns
    again = repeats([_line_of(e.source) for e in eqns])
    for eqn, same in zip(eqns, again):
        first = eqn.primitive not in seen
        seen.add(eqn.primitive)
        row = Row(eqn, params_of(eqn), eqn.source, same, explain(eqn.primitive, lang) if first else None)
        row.subs = [block(s.program, lang, seen) for s in eqn.subs] if deep else []
        rows.append(row)
    return Block(program, rows)


def explanations(program: Program, lang: str = "en") -> dict[str, str]:
    """``{primitive: explanation}`` for every primitive in the program (hover text of later rows)."""
    prims = dict.fromkeys(e.primitive for e in program.walk())      # first seen first, each once
    return {prim: explain(prim, lang) for prim in prims}


# ------------------------------------------------------------------ the nouns as text

def atom_text(a) -> str:
    """An operand as JAX's printer writes it: a variable's name (``c``), a literal with its type
    (``2.0:f32[]``)."""
    return a.text if isinstance(a, Lit) else a.name


def vars_text(vs: list, lang: str | None = None, limit: int | None = None) -> str:
    """Values with their types, ``a:f32[8] b:f32[]``, the first ``limit`` of them and ``+N more``."""
    shown = " ".join(var_text(v) for v in vs[:limit])
    more = len(vs) - limit if limit is not None and len(vs) > limit else 0
    return shown + (" " + t("n_more", lang, n=more) if more else "")


def param_words(params: Sequence[Param], chars: int = FOLD, one_line: bool = True) -> list[str]:
    """The params JAX's printer shows (not the defaults it hides), ``key=value`` each cut at ``chars``
    characters, on one line (a graph's node label keeps the value's own line breaks: ``one_line=False``)."""
    return [f"{p.key}={shorten(p.line if one_line else p.text, chars)}" for p in params if not p.default]


def params_text(params: Sequence[Param], limit: int | None = None) -> str:
    """``axes=(0,) out_sharding=None``: the shown params of an equation, cut at ``limit`` characters."""
    text = " ".join(param_words(params))
    return text if limit is None else shorten(text, limit)


# ------------------------------------------------------------------ an equation's line: one document

class Line:
    """One equation's line as typed pieces, built once per equation (``line_of``) and rendered three ways:
    HTML (``rows.Rows.line_html``), text as JAX's printer writes it (``eqn_text``) and the text a reader sees
    in the table's cell, which a search reads (``cell_text``).

    ``outs``: the binders (variable and type); ``primitive``; ``params`` (``Param``: key, value, a default
    JAX's printer hides, folded past ``FOLD``); ``subs``: per param holding sub-jaxprs, ``(param, [sub, ...])``
    (the cell says ``branches={branch 0: 3 equations, ...}``); ``ins``: the operands in runs by role,
    ``[(role key or None, its count, operands), ...]`` (one run, role None, for an equation without roles); or
    ``statement``: a ref read or write as JAX writes it, text and variable names alternating."""
    __slots__ = ("outs", "primitive", "params", "subs", "ins", "roles", "statement")

    def __init__(self, eqn: Eqn, params: Sequence[Param]):
        self.statement = statement_pieces(eqn)
        self.outs, self.primitive, self.params = eqn.outvars, eqn.primitive, params
        self.subs: list = []
        if eqn.subs:
            subs: dict = {}
            for s in eqn.subs:
                subs.setdefault(s.param, []).append(s)
            self.subs = list(subs.items())
        self.roles = roles = bool(eqn.roles)
        if not roles:
            self.ins = [(None, len(eqn.invars), eqn.invars)]
        else:
            self.ins, i = [], 0
            for key, n in eqn.roles.groups:
                self.ins.append((key, n, eqn.invars[i:i + n]))
                i += n

    def atoms(self) -> list:
        """The operands, in order."""
        return [a for _, _, run in self.ins for a in run]


def line_of(eqn: Eqn, params: Sequence[Param] | None = None) -> Line:
    """The line of ``eqn`` (made once per equation: language-neutral, its renderers say its words); ``params``
    other than those it was made with (a caller's own choice of them) make a line of their own."""
    made = eqn.memo.get("line")
    if made is not None and (params is None or made.params is params or list(made.params) == list(params)):
        return made
    line = Line(eqn, params_of(eqn) if params is None else params)
    if made is None:
        eqn.memo["line"] = line
    return line


def eqn_text(eqn: Eqn, limit: int | None = 60, params: Sequence[Param] | None = None) -> str:
    """One equation as one line, as JAX's printer writes it with short params: ``c:f32[8] = sin b``
    (params cut at ``limit`` characters; ``params``: the row's, when the caller has them already); a ref read or
    write as JAX writes it, a statement: ``c:f32[3] <- b[...]``, ``b[...] <- d``.  ``Line`` rendered as text."""
    line = line_of(eqn, params)
    if line.statement is not None:
        return "".join(line.statement)
    ps = params_text(line.params, limit)
    outs, ins = vars_text(line.outs), " ".join(atom_text(a) for a in line.atoms())
    head = (f"{outs} = " if outs else "") + line.primitive + (f"[{ps}]" if ps else "")
    return head + (f" {ins}" if ins else "")


def cell_text(line: Line, lang: str) -> str:
    """``Line`` as the table's cell reads as text (a browser's ``textContent`` of ``Rows.line_html``): every
    param (the hidden defaults, a folded one's short and full text), the sub-jaxprs a param holds, the operands
    under their roles."""
    if line.statement is not None:
        return "".join(line.statement)
    words = [f"{p.key}={p.short}{p.text}" if p.folded else f"{p.key}={p.text}" for p in line.params]
    words += [f"{k}={{{', '.join(sub_words(subs, lang))}}}" for k, subs in line.subs]
    outs = " ".join(f"{v.name}:{v.type}" for v in line.outs)
    head = line.primitive + (f"[{' '.join(words)}]" if words else "")
    if not line.roles:
        ins = " ".join(atom_text(a) for a in line.ins[0][2])
    else:
        colon = t("colon", lang)
        ins = " ".join(role_word(key, n, lang) + colon + (" ".join(atom_text(a) for a in run) or "∅")
                       for key, n, run in line.ins)
    return (f"{outs} = " if outs else "") + head + " " + ins


def sub_words(subs: list, lang: str) -> list[str]:
    """The sub-jaxprs one param holds, as the cell lists them: ``branch 0: 3 equations``."""
    return [f"{sub_label(s, lang)}: {t('n_eqns', lang, n=len(s.program.eqns))}" for s in subs]


def statement_pieces(eqn: Eqn) -> list[str] | None:
    """``statement`` cut where it names the equation's variables: text, name, text, name, ... text (a name
    at every odd index), so the table marks the names as it marks an operand's; None: not a statement."""
    said = statement(eqn)
    if said is None:
        return None
    names = {v.name for v in (*eqn.outvars, *eqn.invars) if isinstance(v, Var) and not v.dropped}
    if not names:
        return [said]
    pattern = r"\b(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b"
    return re.split(pattern, said)


_SOURCE: dict = {}     # (where, line, text, lang) -> text: a program's equations share a few hundred lines


def source_text(src: Source, lang: str | None = None) -> str:
    """``seeds.py line 10: return jnp.sum(temp)`` / ``seeds.py 第 10 行：return jnp.sum(temp)``."""
    def make() -> str:           # bidi controls shown as escapes: the line reads in the order it runs
        where = visible(where_text(src, lang))
        return t("labelled", lang, label=where, text=visible(src.text)) if src.text else where
    return remembered(_SOURCE, (src.where, src.cell, src.line, src.text, lang), lang, make)


def site_text(src: Source, lang: str | None = None) -> str:
    """Where a call was made: ``source_text`` of the user's line, then of the library's line that made the
    call when a library's code made it (``cell line 4: return model(tokens) › grouping.py line 77: ...``)."""
    own = source_text(src, lang)
    return own + " › " + source_text(src.via, lang) if src.via is not None else own
