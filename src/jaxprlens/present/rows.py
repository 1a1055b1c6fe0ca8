"""The nouns of ``nouns.py`` as HTML, built from the same pieces: a variable (``binder_html``), an operand
(``atom_html``), a param (``param_html``), a source line (``source_html``), an equation row (``Rows.row_html``)
and a call row (``group_html``): the one way the table and the debugger write them.  The script in
``static/`` writes no row: it inserts these (``dom.js`` rowsOf), and searches their text as
``Rows.search_text`` reads it."""
from __future__ import annotations

import re
from collections.abc import Callable

from jaxprlens.present.escape import html, html_breakable, html_units
from jaxprlens.present.i18n import remembered, resolve, role_summary, role_word, t, where_text
from jaxprlens.model.explain import explain
from jaxprlens.model.program import Eqn, Lit, Source, Var
from jaxprlens.present.nouns import Line, Param, Row, cell_text, line_of, site_text, source_text, sub_words, vars_text
from jaxprlens.present.words import group_label


LEFT = ' style="text-align:left"'   # kept where a sanitizer strips <style> (notebook CSS right-aligns cells)


def atom_html(a, constvars=(), came_from: Var | None = None) -> str:
    """An operand: ``<var>c</var>`` (a constant's marked), a literal as text; ``came_from``: the outer value a
    sub-jaxpr's binder is bound from (the script follows it)."""
    if type(a) is Lit:
        return f'<span class="jl-lit">{html(a.text)}</span>'
    if came_from is None:           # most operands: no attribute to write
        return f'<var class="jl-const">{html(a.name)}</var>' if a in constvars else f"<var>{html(a.name)}</var>"
    attrs = ' class="jl-const"' if a in constvars else ""
    return f'<var{attrs} data-from="{html(came_from.name)}">{html(a.name)}</var>'


def binder_html(v, constvars=(), came_from: Var | None = None) -> str:
    """``var_text`` as HTML: the name as ``atom_html`` writes it, then its type (a literal has its own)."""
    if type(v) is Lit:
        return atom_html(v)
    if came_from is None and v not in constvars:      # most binders: written once per name and type
        return _kept(_BINDERS, (v.name, v.type),
                     lambda: f'<var>{html(v.name)}</var><span class="jl-type">:{html(v.type)}</span>')
    return f'{atom_html(v, constvars, came_from)}<span class="jl-type">:{html(v.type)}</span>'


def param_html(p: Param) -> str:
    cls = "jl-param jl-default" if p.default else "jl-param"
    if not p.folded:         # short: written once per key and value (a jit equation shows ten hidden defaults)
        key = (p.key, p.text, p.default)
        out = _PARAMS.get(key)
        return out if out is not None else _kept(
            _PARAMS, key, lambda: f'<span class="{cls}">{html_breakable(p.key)}={html_breakable(p.text)}</span>')
    return (f'<span class="{cls}">{html_breakable(p.key)}=<details class="jl-fold"><summary>'
            f"{html_breakable(p.short)}</summary><div>{html_breakable(p.text)}</div></details></span>")


_BINDERS: dict = {}     # (name, type) -> a plain binder's HTML
_PARAMS: dict = {}      # (key, text, hidden?) -> a short param's HTML


def _kept(cache: dict, key: tuple, make) -> str:
    """``make()``, kept in ``cache`` under ``key`` (at most 4,096 pieces: a table writes the same few names,
    types and params on many rows, and every re-trace writes them again)."""
    out = cache.get(key)
    if out is None:
        if len(cache) >= 4096:
            cache.clear()
        out = cache[key] = make()
    return out


def source_html(src: Source, lang: str) -> str:
    """``source_text`` as HTML: where, then the line as code (written once per line and language: a
    program's rows come from a few lines)."""
    def make() -> str:
        where = html_breakable(where_text(src, lang))
        return t("labelled", lang, label=where, text=f"<code>{html_breakable(src.text)}</code>") if src.text \
            else where
    return remembered(_SOURCE_HTML, (src.where, src.cell, src.line, src.text, lang), lang, make)


_SOURCE_HTML: dict = {}     # (where, line, text, lang) -> HTML
_ROLE_HEADS: dict = {}      # (role, one?, lang) -> the start of its group (``Rows._role_head``)


def explain_html(text: str) -> str:
    """An explanation with its `code` spans set as code (escaped first, once; a table repeats a few)."""
    out = _EXPLAINED.get(text)
    if out is None:
        out = _TICKS.sub(r"<code>\1</code>", html_breakable(text))
        if len(_EXPLAINED) < 4096:
            _EXPLAINED[text] = out
    return out


_EXPLAINED: dict = {}


_TICKS = re.compile(r"`([^`]+)`")


class Rows:
    """Rows of one language; with ``cost_text`` (eqn -> text), a cost column."""

    def __init__(self, lang: str | None = "en", cost_text: Callable[[Eqn], str] | None = None):
        # resolved once: every cell of every row speaks it (None would look the kernel default up per cell)
        lang = resolve(lang)
        self.lang, self.cost_text = lang, cost_text
        self._no_frame = f'<div class="jl-src" title="{html(t("no_frame", lang))}">—</div>'    # said once
        self._header: str | None = None
        self._lines: dict = {}      # JAX's equation -> its cell: a jitted helper called again has the same body

    def header_html(self) -> str:
        """The column heads of an equation table (also the debugger's frame table); made once per ``Rows`` (a
        table repeats them in every sub-jaxpr's table)."""
        if self._header is None:
            self._header = self._make_header()
        return self._header

    def colgroup_html(self) -> str:
        """The columns' widths of an equation table, without its heads (a folded call's own row table)."""
        cols = ["jl-c-n", "jl-c-eq", "jl-c-note"] + (["jl-c-cost"] if self.cost_text is not None else [])
        # with a cost column (10em) the equation's gives up room, so that the notes keep a readable width (150 px
        # at 520 px: a notebook with its side panel open, or a slide); below 40em the table scrolls sideways
        eq = ' style="width:38%"' if self.cost_text is not None else ""
        return "<colgroup>" + "".join(f'<col class="{c}"{eq if c == "jl-c-eq" else ""}>' for c in cols) + "</colgroup>"

    def _make_header(self) -> str:
        keys = ["eqn", "equation", "notes"] + (["cost"] if self.cost_text is not None else [])
        return (self.colgroup_html() + "<thead><tr>" + "".join(f"<th{LEFT}>{t(k, self.lang)}</th>" for k in keys)
                + "</tr></thead>")

    def line_html(self, row: Row, consts: set) -> str:
        """The equation cell: ``outs = prim[params] ins`` with role chips (a ref read or write as JAX writes it):
        the row's ``Line`` as HTML (written once per JAX equation: the bodies of a helper called again are
        the same equations, with the same names, params and roles)."""
        eqn = row.eqn
        if consts or eqn.raw is None or eqn.memo.get("params") is not row.params:
            return self._line_html(row, consts)
        out = self._lines.get(eqn.raw)
        if out is None:
            out = self._lines[eqn.raw] = self._line_html(row, consts)
        return out

    def _line_html(self, row: Row, consts: set) -> str:
        line, lang = line_of(row.eqn, row.params), self.lang
        if line.statement is not None:       # a ref read or write, as JAX writes it: ``c:f32[3] <- b[...]``
            return "".join(f"<var>{html(p)}</var>" if i % 2 else html(p) for i, p in enumerate(line.statement))
        outs = " ".join(binder_html(v) for v in line.outs)
        params = [param_html(p) for p in line.params]
        params += [f'<span class="jl-param jl-subref">{html(k)}={{{html(", ".join(sub_words(subs, lang)))}}}</span>'
                   for k, subs in line.subs]
        head = f'<b class="jl-prim">{html(line.primitive)}</b>'
        if params:               # the last param and "]" kept on one line: a wrap never leaves "]" alone
            params[-1] = f'<span class="jl-tail">{params[-1]}]</span>'
            head += "[" + " ".join(params)
        return (f"{outs} = " if outs else "") + head + " " + self.inputs_html(line, consts)

    def row_html(self, row: Row, consts: set, cls: str = "") -> str:
        """One equation's row: its line, then its roles, source and meaning."""
        eqn, lang = row.eqn, self.lang
        notes = []
        if eqn.roles:
            notes.append(f'<div class="jl-roles">{html(role_summary(eqn.roles, lang))}</div>')
        src = row.source
        if src is not None:
            if not row.same_source:      # a run of rows from one line shows it once
                notes.append(f'<div class="jl-src" title="{html(src.function)}">{source_html(src, lang)}</div>')
        elif eqn.depth or eqn.subs or row.explain:
            notes.append(self._no_frame)
        if row.explain:
            notes.append(f'<div class="jl-explain">{explain_html(row.explain)}</div>')
        cells = [f"<td>{eqn.index}</td>", f'<td class="jl-eq"{LEFT}>{self.line_html(row, consts)}</td>',
                 f'<td class="jl-note"{LEFT}>{"".join(notes)}</td>']
        if self.cost_text is not None:
            cells.append(f'<td class="jl-cost">{html_units(self.cost_text(eqn))}</td>')
        same = " data-same" if src is not None and row.same_source else ""   # search reads the run's line here too
        return (f'<tr class="jl-row{" " + cls if cls else ""}" data-eqn="{html(eqn.id)}" '
                f'data-primitive="{html(eqn.primitive)}"{same}>{"".join(cells)}</tr>')

    def search_text(self, row: Row) -> str:
        """What a search reads of a row, as ``views/table/table.js`` rowText reads its HTML: the equation's id, the
        text of its line and of its source line (the run's line on a row continuing one), lower case."""
        eqn, src = row.eqn, row.source
        where = source_text(src, self.lang) if src is not None else (
            "—" if eqn.depth or eqn.subs or row.explain else "")
        return f"{eqn.id} {self.line_text(row)} {where}".lower()

    def line_text(self, row: Row) -> str:
        """The text of ``line_html`` (a browser's ``textContent`` of the equation cell): the row's ``Line`` as
        ``nouns.cell_text`` writes it."""
        return cell_text(line_of(row.eqn, row.params), self.lang)

    def inputs_html(self, line: Line, consts: set) -> str:
        if not line.roles:
                return " ".join(atom_html(a, consts) for a in line.ins[0][2])
        out = []
        for key, n, run in line.ins:
            inner = " ".join(atom_html(a, consts) for a in run) or "∅"
            out.append(f"{self._role_head(key, n)}{inner}</span>")
        return f'<span class="jl-inputs">{" ".join(out)}</span>'

    def _role_head(self, key: str, n: int) -> str:
        """The start of a role group, ``<span class="jl-role" ...><span class="jl-rolename">carry: </span>``
        (made once per role, number and language)."""
        def make() -> str:
            word = html(role_word(key, n, self.lang))
            return (f'<span class="jl-role" data-role="{html(key)}"><span class="jl-rolename">{word}'
                    f'{t("colon", self.lang)}</span>')
        return remembered(_ROLE_HEADS, (key, n == 1, self.lang), self.lang, make)


def explained(rows: list, lang: str) -> list:
    """``rows`` (``nouns.block``'s, and their sub-jaxprs') each with its explanation, not only a primitive's
    first: a backward pass is mostly rows of primitives met before, and its column would be empty."""
    for row in rows:
        if row.explain is None:
            row.explain = explain(row.eqn.primitive, lang)
        for sub in row.subs:
            explained(sub.rows, lang)
    return rows


def walk(eqn: Eqn):
    """An equation and every equation nested in it, in program order."""
    yield eqn
    for sub in eqn.subs:
        for e in sub.program.eqns:
            yield from walk(e)


# ------------------------------------------------------------------ call groups (model.calls.Group)

def group_data(g, lang: str) -> list:
    """``[id, label, count, call site, crossing values, depth]`` of a call, as the row and the script show it
    (made once per call and language: the table's rows, its text and its data all show it)."""
    made = g.memo.get(("data", lang))
    if made is None:
        site = site_text(g.site, lang) if g.site else ""
        crossing = t("crossing", lang, ins=vars_text(g.inputs, lang, 4) or "∅",
                     outs=vars_text(g.outputs, lang, 4) or "∅")
        made = g.memo[("data", lang)] = (g.id, group_label(g, lang, phases=g.parent.phase != g.phase),
                                         t("n_eqns", lang, n=g.size), site, crossing, g.depth)
    return list(made)


OPEN, SHUT = "▾", "▸"      # a call's row, its body shown or not


def group_html(g, lang: str, note: str = "", opened: bool = False, detail: str | None = None) -> str:
    """A call's row in a folded table: its label and size, where it was called, the values crossing it;
    ``note`` follows the label (that its rows are not stored: a live page hides it, the kernel has them);
    ``opened``: its rows shown below it; ``detail``: HTML said of the call in place of its crossing values (a
    compiled view folded by the same calls: its kernels, its live bytes)."""
    gid, label, count, site, cross, _ = group_data(g, lang)
    note = f'<span class="jl-unstored"> {html(note)}</span>' if note else ""
    cross = f'<div class="jl-cross">{html(cross)}</div>' if detail is None else f'<div class="jl-detail">{detail}</div>'
    return (f'<tr class="jl-grow" data-group="{html(gid)}" data-in=""><td>{OPEN if opened else SHUT}</td>'
            f'<td class="jl-eq"{LEFT}>'
            f'<b class="jl-gname">{html(label)}</b>{note} <span class="jl-type">{html(count)}</span></td>'
            f'<td class="jl-note"{LEFT}><div class="jl-src">{html(site)}</div>{cross}</td></tr>')
