"""The presentation layer: what every view shows of an equation, decided once (params as JAX's printer
hides them, a source line once per run of rows it made, an explanation once per primitive), as plain data.

Views (table, debugger, compare) render these rows; none of them decides again what to show.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from jaxprlens.model.explain import explain
from jaxprlens.present.i18n import t, where_text  # noqa: F401 - where_text: one formatter, used here too
from jaxprlens.model.program import Eqn, Program, Source, param_text

FOLD = 48          # a param value longer than this is folded (its full text one click away)


# ------------------------------------------------------------------ params JAX's printer leaves out

def _all(pred):
    return lambda v: isinstance(v, (tuple, list)) and all(pred(x) for x in v)


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
default_param_rules: dict[str, dict] = {"jit": _JIT_DEFAULTS, "pjit": _JIT_DEFAULTS}


@dataclass(frozen=True)
class Param:
    key: str
    text: str            # the full text (no memory addresses)
    default: bool        # JAX's printer hides it; shown on demand ("all params")

    @property
    def folded(self) -> bool:
        return len(self.text) > FOLD

    @property
    def short(self) -> str:
        return self.text if not self.folded else self.text[:FOLD - 1] + "…"


def params_of(eqn: Eqn) -> list[Param]:
    """Params worth showing, in JAX's order: not sub-jaxprs (they get nested tables), not ``None``."""
    subs = {s.param for s in eqn.subs}
    hidden = default_param_rules.get(eqn.primitive, {})
    out = []
    for k, v in eqn.params.items():
        if k in subs or v is None:
            continue
        try:
            default = bool(hidden[k](v)) if k in hidden else False
        except Exception:  # noqa: BLE001 - a param of an unexpected shape is simply shown
            default = False
        out.append(Param(k, param_text(v), default))
    return out


# ------------------------------------------------------------------ rows

@dataclass
class Row:
    """One equation as every view shows it."""
    eqn: Eqn
    params: list[Param]
    source: Source | None
    same_source: bool            # made by the same source line as the row above: don't repeat it
    explain: str | None          # None after the first row of this primitive in the program
    subs: list = field(default_factory=list)   # list[Block], one per sub-jaxpr


@dataclass
class Block:
    """A program (top level or a sub-jaxpr) as rows, with the words of its explanations."""
    program: Program
    rows: list[Row]


def _same(a: Source | None, b: Source | None) -> bool:
    return a is not None and b is not None and (a.where, a.line, a.text) == (b.where, b.line, b.text)


def block(program: Program, lang: str = "en", seen: set | None = None) -> Block:
    """The rows of ``program`` and of its sub-jaxprs; ``seen`` holds primitives already explained."""
    seen = set() if seen is None else seen
    rows, prev = [], None
    for eqn in program.eqns:
        first = eqn.primitive not in seen
        seen.add(eqn.primitive)
        row = Row(eqn, params_of(eqn), eqn.source, _same(eqn.source, prev),
                  explain(eqn.primitive, lang) if first else None)
        row.subs = [block(s.program, lang, seen) for s in eqn.subs]
        rows.append(row)
        prev = eqn.source
    return Block(program, rows)


def explanations(program: Program, lang: str = "en") -> dict[str, str]:
    """``{primitive: explanation}`` for every primitive in the program (hover text of later rows)."""
    return {e.primitive: explain(e.primitive, lang) for e in program.walk()}


def eqn_text(eqn: Eqn, limit: int = 60) -> str:
    """One equation as one short line, params as JAX shows them: ``c:f32[8] = sin b`` (compare, lower,
    diff)."""
    params = " ".join(f"{p.key}={p.text}" for p in params_of(eqn) if not p.default)
    if len(params) > limit:
        params = params[: limit - 1] + "…"
    outs = " ".join(f"{v.name}:{v.type}" for v in eqn.outvars)
    ins = " ".join(a.name for a in eqn.invars)
    return f"{outs} = {eqn.primitive}" + (f"[{params}]" if params else "") + (f" {ins}" if ins else "")



