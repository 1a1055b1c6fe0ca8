"""A diff between two programs: which equations were added, removed or changed (e.g. ``vmap`` with two
``in_axes``, or a function before and after a refactor)."""
from __future__ import annotations

import difflib

from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.front import style
from jaxprlens.present.i18n import resolve, t
from jaxprlens.model.program import Eqn, Program
from jaxprlens.present.nouns import eqn_text as eqn_line, params_of
from jaxprlens.views.compiled.compare import CELL, EQ, FIXED, ROOT

# Equal columns for the two programs, narrow ones for the mark and what changed (inline: kept untrusted too).
COLS = '<colgroup><col style="width:2em"><col style="width:40%"><col style="width:40%"><col></colgroup>'

MARK = {"same": " ", "added": "+", "removed": "-", "changed": "~"}


def _where(eqn: Eqn) -> tuple:
    """The nesting an equation sits in, without indices: ``("body",)`` inside a while body."""
    return tuple(x for x in eqn.path if isinstance(x, str))


def signature(eqn: Eqn) -> tuple:
    """What must agree for two equations to be the same (names may differ: they shift with insertions)."""
    params = tuple((p.key, p.text) for p in params_of(eqn) if not p.default)
    return (_where(eqn), eqn.primitive, params, tuple(a.type for a in eqn.invars),
            tuple(v.type for v in eqn.outvars))


def changes(eqn_a: Eqn, eqn_b: Eqn) -> list[str]:
    """How two equations of the same primitive differ: ``params``, ``input types``, ``output types``."""
    sa, sb = signature(eqn_a), signature(eqn_b)
    names = ["nesting", "primitive", "params", "input types", "output types"]
    return [n for n, x, y in zip(names, sa, sb) if x != y]


def diff_rows(a: Program, b: Program) -> list[tuple]:
    """``[(status, eqn of a or None, eqn of b or None, what changed)]`` in program order."""
    ea, eb = list(a.walk()), list(b.walk())
    sa, sb = [signature(e) for e in ea], [signature(e) for e in eb]
    rows = []
    matcher = difflib.SequenceMatcher(a=sa, b=sb, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            rows.extend(("same", ea[i], eb[j], []) for i, j in zip(range(i1, i2), range(j1, j2)))
            continue
        left, right = list(range(i1, i2)), list(range(j1, j2))
        # Pair equations of the same primitive at the same nesting, in order: those are "changed".
        while left or right:
            if left and right and (ea[left[0]].primitive, _where(ea[left[0]])) == \
                    (eb[right[0]].primitive, _where(eb[right[0]])):
                i, j = left.pop(0), right.pop(0)
                rows.append(("changed", ea[i], eb[j], changes(ea[i], eb[j])))
            elif left and (not right or not any((eb[j].primitive, _where(eb[j])) ==
                                                 (ea[left[0]].primitive, _where(ea[left[0]])) for j in right)):
                rows.append(("removed", ea[left.pop(0)], None, []))
            else:
                rows.append(("added", None, eb[right.pop(0)], []))
    return rows


class Diff(View):
    """``diff(a, b)``: a table of added (+), removed (-), changed (~) and unchanged equations."""

    def __init__(self, a: Program, b: Program, labels: tuple = ("a", "b"), context: bool = True,
                 lang: str | None = None):
        self.a, self.b, self.labels, self.context = a, b, labels, context
        self.lang = resolve(lang)
        self.rows = diff_rows(a, b)

    @property
    def counts(self) -> dict:
        out = dict.fromkeys(MARK, 0)
        for status, *_ in self.rows:
            out[status] += 1
        return out

    def summary(self) -> str:
        c = self.counts
        return t("diff_summary", self.lang, **c)

    def _what(self, what: list) -> str:
        """``params, input types`` in the reader's language (``changes`` names them in English)."""
        return t("sep", self.lang).join(t("ch_" + w.replace(" ", "_"), self.lang) for w in what)

    def _shown(self):
        return [r for r in self.rows if self.context or r[0] != "same"]

    def text(self) -> str:
        la, lb = self.labels
        lines = [t("diff_head", self.lang, a=la, b=lb, summary=self.summary())]
        for status, ea, eb, what in self._shown():
            eqn = eb or ea
            left = f"{ea.id}" if ea else ""
            right = f"{eb.id}" if eb else ""
            body = eqn_line(eqn, 40)
            if status == "changed":
                body = f"{eqn_line(ea, 40)}  →  {eqn_line(eb, 40)}  {t('paren', self.lang, x=self._what(what))}"
            lines.append(f"{MARK[status]} {left:>9} {right:>9}  {'  ' * eqn.depth}{body}")
        return "\n".join(lines)

    def html(self) -> str:
        la, lb = self.labels
        rows = []
        for status, ea, eb, what in self._shown():
            pad = "  " * (eb or ea).depth
            left = f'<td class="jl-eq" data-eqn="{html(ea.id)}"{EQ}>{pad}{html(ea.id)}  {html(eqn_line(ea))}</td>' \
                if ea else "<td></td>"
            right = f'<td class="jl-eq" data-eqn="{html(eb.id)}"{EQ}>{pad}{html(eb.id)}  {html(eqn_line(eb))}</td>' \
                if eb else "<td></td>"
            rows.append(f'<tr class="jl-diff-{status}" data-status="{status}"><td{CELL}>{MARK[status]}</td>'
                        f"{left}{right}<td{CELL}>{html(self._what(what))}</td></tr>")
        return (f'{style()}<div class="jaxprlens jl-diff" lang="{self.lang}"{ROOT}><table{FIXED}>'
                f"<caption>{html(self.summary())}</caption>{COLS}<thead><tr><th></th><th{CELL}>{html(la)}</th>"
                f"<th{CELL}>{html(lb)}</th><th{CELL}>{t('changed', self.lang)}</th></tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table></div>")


def diff(a: Program, b: Program, labels: tuple = ("a", "b"), context: bool = True, lang: str | None = None) -> Diff:
    """The equations added, removed and changed from ``a`` to ``b``; ``context=False`` hides unchanged ones."""
    return Diff(a, b, labels=labels, context=context, lang=lang)
