"""Equation rows as HTML and as data: the one way the table and the debugger draw an equation (the script in
``static/`` draws the data rows the same way)."""
from __future__ import annotations

import re
from typing import Callable

from jaxprlens.present.display import shorten
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import role_summary, role_word, sub_label, t
from jaxprlens.model.program import Eqn, Lit, Var
from jaxprlens.present.nouns import FOLD, Param, Row, params_of, where_text


def atom_html(a, constvars: set) -> str:
    if isinstance(a, Lit):
        return f'<span class="jl-lit">{html(a.text)}</span>'
    return f'<var class="jl-const">{html(a.name)}</var>' if a in constvars else f"<var>{html(a.name)}</var>"


def binder_html(v: Var) -> str:
    return f'<var>{html(v.name)}</var><span class="jl-type">:{html(v.type)}</span>'


def param_html(p: Param) -> str:
    cls = "jl-param jl-default" if p.default else "jl-param"
    if not p.folded:
        return f'<span class="{cls}">{html(p.key)}={html(p.text)}</span>'
    return (f'<span class="{cls}">{html(p.key)}=<details class="jl-fold"><summary>{html(p.short)}</summary>'
            f"<div>{html(p.text)}</div></details></span>")


def explain_html(text: str) -> str:
    """An explanation with its `code` spans set as code (escaped first, once)."""
    return _TICKS.sub(r"<code>\1</code>", html(text))


_TICKS = re.compile(r"`([^`]+)`")


class Rows:
    """Rows of one language; with ``cost_text`` (eqn -> text), a cost column."""

    def __init__(self, lang: str = "en", cost_text: Callable[[Eqn], str] | None = None):
        self.lang, self.cost_text = lang, cost_text

    def header_html(self) -> str:
        """The column heads of an equation table (also the debugger's frame table)."""
        keys = ["eqn", "equation", "notes"] + (["cost"] if self.cost_text is not None else [])
        cols = ["jl-c-n", "jl-c-eq", "jl-c-note"] + (["jl-c-cost"] if self.cost_text is not None else [])
        return ("<colgroup>" + "".join(f'<col class="{c}">' for c in cols) + "</colgroup><thead><tr>"
                + "".join(f"<th>{t(k, self.lang)}</th>" for k in keys) + "</tr></thead>")

    def row_html(self, row: Row, consts: set, cls: str = "") -> str:
        """One equation's row: ``outs = prim[params] ins`` with role chips, then its source and meaning."""
        eqn, lang = row.eqn, self.lang
        outs = " ".join(binder_html(v) for v in eqn.outvars)
        params = [param_html(p) for p in row.params]
        params += [f'<span class="jl-param jl-subref">{html(s.param)}={{{html(sub_label(s, lang))}: '
                   f"{html(t('n_eqns', lang).format(n=len(s.program.eqns)))}}}</span>" for s in eqn.subs]
        head = f'<b class="jl-prim">{html(eqn.primitive)}</b>'
        if params:
            head += "[" + " ".join(params) + "]"
        line = (f"{outs} = " if outs else "") + head + " " + self.inputs_html(eqn, consts)
        notes = []
        if eqn.roles:
            notes.append(f'<div class="jl-roles">{html(role_summary(eqn.roles, lang))}</div>')
        src = row.source
        if src is not None:
            if not row.same_source:      # a run of rows from one line shows it once
                notes.append(f'<div class="jl-src" title="{html(src.function)}">{html(where_text(src, lang))}: '
                             f"<code>{html(src.text)}</code></div>")
        elif eqn.depth or eqn.subs or row.explain:
            notes.append(f'<div class="jl-src" title="{html(t("no_frame", lang))}">—</div>')
        if row.explain:
            notes.append(f'<div class="jl-explain">{explain_html(row.explain)}</div>')
        cells = [f"<td>{eqn.index}</td>", f'<td class="jl-eq">{line}</td>',
                 f'<td class="jl-note">{"".join(notes)}</td>']
        if self.cost_text is not None:
            cells.append(f'<td class="jl-cost">{html(self.cost_text(eqn))}</td>')
        return (f'<tr class="jl-row{" " + cls if cls else ""}" data-eqn="{html(eqn.id)}" '
                f'data-primitive="{html(eqn.primitive)}">{"".join(cells)}</tr>')

    def inputs_html(self, eqn: Eqn, consts: set) -> str:
        atoms = [atom_html(a, consts) for a in eqn.invars]
        if not eqn.roles:
            return " ".join(atoms)
        out, i = [], 0
        for key, n in eqn.roles.groups:
            word = html(role_word(key, n, self.lang))
            inner = " ".join(atoms[i:i + n]) or "∅"
            out.append(f'<span class="jl-role" data-role="{html(key)}"><span class="jl-rolename">{word}{t("colon", self.lang)}</span>'
                       f"{inner}</span>")
            i += n
        return f'<span class="jl-inputs">{" ".join(out)}</span>'


def short(text: str) -> str:
    text = text.replace("\r\n", "\\n").replace("\n", "\\n")   # one row per equation (debug_print's fmt)
    return shorten(text, FOLD)


def walk(eqn: Eqn):
    """An equation and every equation nested in it, in program order."""
    yield eqn
    for sub in eqn.subs:
        for e in sub.program.eqns:
            yield from walk(e)


def data_row(eqn: Eqn, lang: str) -> list:
    """A row the script draws: ``[id, primitive, depth, outs, params, ins, source or 0]``."""
    params = " ".join(f"{p.key}={short(p.text)}" for p in params_of(eqn) if not p.default)
    src = f"{where_text(eqn.source, lang)}: {eqn.source.text}" if eqn.source else 0
    return [eqn.id, eqn.primitive, eqn.depth, [f"{v.name}:{v.type}" for v in eqn.outvars], params,
            [a.name for a in eqn.invars], src]


def source_once(items: list) -> list:
    """Data rows (and call rows ``["g", ...]``) with a source line written only where it changes, as the
    HTML rows do; a call row starts a new run."""
    prev = None
    for item in items:
        if item[0] == "g":
            prev = None
            continue
        src = item[6]
        if src and src == prev:
            item[6] = 0
        prev = src
    return items

