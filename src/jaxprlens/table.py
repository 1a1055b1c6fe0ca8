"""The annotated table view: one row per equation, with types, params, source, meaning and roles."""
from __future__ import annotations

from .display import View, array_text, shorten
from .escape import html
from .explain import explain
from .i18n import LANGS, role_word, t
from .model import Eqn, Lit, Program, Var, count_eqns, param_text, path_id

FOLD = 48          # params longer than this are folded
PREVIEW = 6        # array elements shown in a constant's preview

CSS = """
<style>
.jaxprlens{font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px);
 color:var(--jp-content-font-color1,#222);}
.jaxprlens table{border-collapse:collapse;margin:2px 0;}
.jaxprlens table th,.jaxprlens table td{border:1px solid var(--jp-border-color2,#ccc);padding:2px 6px;text-align:left !important;
 vertical-align:top;}
.jaxprlens table th{background:var(--jp-layout-color2,#eee);color:var(--jp-content-font-color1,#222);}
.jaxprlens .jl-sig td{border:none;padding:1px 6px;}
.jaxprlens caption{text-align:left;white-space:nowrap;font-weight:bold;padding:2px 0;}
.jaxprlens .jl-prim{font-weight:bold;color:var(--jp-mirror-editor-keyword-color,#008000);}
.jaxprlens .jl-type{color:var(--jp-content-font-color2,#555);}
.jaxprlens .jl-lit{color:var(--jp-mirror-editor-number-color,#080);font-style:italic;}
.jaxprlens .jl-const{color:var(--jp-mirror-editor-variable-2-color,#05a);text-decoration:underline dotted;}
.jaxprlens .jl-role{display:inline-block;border:1px solid var(--jp-border-color1,#999);border-radius:3px;
 padding:0 3px;margin:1px;}
.jaxprlens .jl-rolename{font-size:85%;color:var(--jp-content-font-color2,#555);}
.jaxprlens .jl-explain,.jaxprlens .jl-src{font-family:var(--jp-ui-font-family,sans-serif);font-size:90%;}
.jaxprlens .jl-nested>td{padding-left:24px;background:var(--jp-layout-color1,transparent);}
.jaxprlens summary{cursor:pointer;}
.jaxprlens tr.jl-hl>td{background:var(--jp-warn-color3,#fff3c4);}
.jaxprlens tr.jl-done>td{opacity:.7;}
</style>
"""


def _fmt_value(value) -> str:
    return array_text(value, PREVIEW)


def atom_html(a, constvars: set) -> str:
    if isinstance(a, Lit):
        return f'<span class="jl-lit" title="{t("literal")}">{html(a.text)}</span>'
    cls = "jl-var jl-const" if a in constvars else "jl-var"
    return f'<span class="{cls}" data-var="{html(a.name)}" title="{html(a.type)}">{html(a.name)}</span>'


def binder_html(v: Var) -> str:
    return (f'<span class="jl-var" data-var="{html(v.name)}">{html(v.name)}</span>'
            f'<span class="jl-type">:{html(v.type)}</span>')


def _fold(text: str) -> str:
    if len(text) <= FOLD:
        return html(text)
    return f"<details><summary>{html(text[:FOLD])}…</summary>{html(text)}</details>"


class Table(View):
    """``program.table()``: HTML (``text/html``) and aligned text (``text/plain``)."""

    def __init__(self, program: Program, lang: str = "en", cost: bool = False, costs=None):
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r} (must be one of {list(LANGS)})")
        self.program, self.lang = program, lang
        self.cost = cost
        self.costs = costs   # optional {eqn.id: cost} from the runner issue
        if cost and costs is None:
            from .cost import costs as estimate
            self.costs = estimate(program)

    # -------------------------------------------------------------- HTML
    def html(self) -> str:
        p = self.program
        parts = [CSS, f'<div class="jaxprlens jl-table" data-lang="{self.lang}">',
                 self._signature_html(p), self._eqns_html(p), "</div>"]
        return "".join(parts)

    def _signature_html(self, p: Program, binding: list | None = None) -> str:
        lang = self.lang
        rows = []
        consts = set(p.constvars)
        for v, value in zip(p.constvars, p.consts):
            rows.append(f'<tr class="jl-constvar"><td>{t("constvar", lang)}</td><td>{binder_html(v)}</td>'
                        f"<td>= {html(_fmt_value(value))}</td></tr>")
        for i, v in enumerate(p.invars):
            where = v.path or ""
            if binding is not None and binding[i]:
                where = binding[i]
            rows.append(f'<tr class="jl-invar"><td>{t("inputs_title", lang)}</td><td>{binder_html(v)}</td>'
                        f"<td>{html(where)}</td></tr>")
        for i, v in enumerate(p.outvars):
            path = p.out_paths[i] if i < len(p.out_paths) else ""
            rows.append(f'<tr class="jl-outvar"><td>{t("results", lang)}</td><td>{atom_html(v, consts)}'
                        f'<span class="jl-type">:{html(v.type)}</span></td><td>{html(path)}</td></tr>')
        n = count_eqns(p)
        total = f"{len(p.eqns)} {t('equations', lang)}" + (
            f", {n} {t('in_all', lang)}" if n != len(p.eqns) else "")
        title = f"{html(p.title)} — " if p.title else ""
        return (f'<table class="jl-sig" data-path="{html(path_id(p.path))}"><caption>{title}{t("signature", lang)}: '
                f"{html(total)}</caption>{''.join(rows)}</table>")

    def _header(self) -> str:
        keys = ["eqn", "outputs", "primitive", "params", "inputs", "source", "explanation", "roles"]
        if self.cost:
            keys.append("cost")
        return "<tr>" + "".join(f"<th>{t(k, self.lang)}</th>" for k in keys) + "</tr>"

    def _eqns_html(self, p: Program) -> str:
        if not p.eqns:
            return f'<div class="jl-empty">{t("no_eqns", self.lang)}</div>'
        consts = set(p.constvars)
        body = []
        ncols = 9 if self.cost else 8
        for eqn in p.eqns:
            body.append(self._row_html(eqn, consts))
            if eqn.subs:
                nested = "".join(self._sub_html(eqn, s) for s in eqn.subs)
                body.append(f'<tr class="jl-nested" data-parent="{html(eqn.id)}">'
                            f'<td colspan="{ncols}">{nested}</td></tr>')
        return (f'<table class="jl-eqns" data-path="{html(path_id(p.path))}"><thead>{self._header()}</thead>'
                f"<tbody>{''.join(body)}</tbody>{self._total_html(p, ncols)}</table>")

    def _row_html(self, eqn: Eqn, consts: set) -> str:
        lang = self.lang
        outs = " ".join(binder_html(v) for v in eqn.outvars)
        params = "<br>".join(f"{html(k)}={_fold(param_text(v))}" for k, v in shown_params(eqn))
        subs = "<br>".join(f"{html(s.param)} → {html(s.label)} ({len(s.program.eqns)})" for s in eqn.subs)
        params = "<br>".join(x for x in (params, subs) if x)
        src = eqn.source
        src_html = (f'<span title="{html(src.function)}">{html(_where(src, lang))}: '
                    f"<code>{html(src.text)}</code></span>" if src else
                    '<span title="no user frame (made inside JAX)">—</span>')
        roles = eqn.roles
        cells = [
            f"<td>{eqn.index}</td>", f"<td>{outs}</td>",
            f'<td class="jl-prim">{html(eqn.primitive)}</td>',
            f'<td class="jl-params">{params}</td>',
            f'<td class="jl-inputs">{self._inputs_html(eqn, consts)}</td>',
            f'<td class="jl-src">{src_html}</td>',
            f'<td class="jl-explain">{html(explain(eqn.primitive, lang))}</td>',
            f'<td class="jl-roles">{html(roles.summary(lang)) if roles else ""}</td>',
        ]
        if self.cost:
            cells.append(f'<td class="jl-cost">{html(self._cost_text(eqn))}</td>')
        return (f'<tr class="jl-row" data-eqn="{html(eqn.id)}" data-primitive="{html(eqn.primitive)}">'
                f"{''.join(cells)}</tr>")

    def _cost_text(self, eqn: Eqn) -> str:
        if not self.costs:
            return ""
        c = self.costs.get(eqn.id)
        return "" if c is None else str(c)

    def _total_text(self, p: Program, word: bool = True) -> str:
        """``total 31 FLOP, 264 B; intensity 0.12 FLOP/B`` for a (sub-)program (cost column only)."""
        total = getattr(self.costs, "totals", {}).get(path_id(p.path)) if self.cost else None
        if total is None:
            return ""
        from .cost import total_text
        return total_text(total, self.lang, word)

    def _total_html(self, p: Program, ncols: int) -> str:
        text = self._total_text(p, word=False)      # the row's first cell says "total"
        return (f'<tfoot><tr class="jl-total"><td colspan="{ncols - 1}">{t("total", self.lang)}</td>'
                f'<td class="jl-cost">{html(text)}</td></tr></tfoot>') if text else ""

    def _inputs_html(self, eqn: Eqn, consts: set) -> str:
        atoms = [atom_html(a, consts) for a in eqn.invars]
        if not eqn.roles:
            return " ".join(atoms)
        out, i = [], 0
        for key, n in eqn.roles.groups:
            word = html(role_word(key, n, self.lang))
            inner = " ".join(atoms[i:i + n]) or "∅"
            out.append(f'<span class="jl-role" data-role="{html(key)}"><span class="jl-rolename">{word}:</span> '
                       f"{inner}</span>")
            i += n
        return " ".join(out)

    def _binding(self, eqn: Eqn, sub) -> list[str]:
        """For each binder of ``sub``: ``bound from c (body const)``, or "" when not bound from outside."""
        out = []
        for j in sub.in_map:
            if j is None:
                out.append("")
            else:
                role = eqn.roles.of_operand(j) if eqn.roles else "operand"
                out.append(f"{t('bound_from', self.lang)} {eqn.invars[j].name} ({role_word(role, 1, self.lang)})")
        return out

    def _sub_html(self, eqn: Eqn, sub) -> str:
        inner = self._signature_html(sub.program, self._binding(eqn, sub)) + self._eqns_html(sub.program)
        return (f'<details open class="jl-sub" data-path="{html(path_id(sub.program.path))}">'
                f"<summary>{html(eqn.primitive)}[{eqn.index}] › {html(sub.label)}</summary>{inner}</details>")

    # -------------------------------------------------------------- text
    def text(self) -> str:
        title = [self.program.title] if self.program.title else []
        return "\n".join(title + self._text_lines(self.program, 0))

    def _text_lines(self, p: Program, depth: int, binding: list | None = None) -> list[str]:
        lang, pad = self.lang, "  " * depth
        lines = []
        for v, value in zip(p.constvars, p.consts):
            lines.append(f"{pad}{t('constvar', lang)}: {v.name}:{v.type} = {_fmt_value(value)}")
        for i, v in enumerate(p.invars):
            if binding and binding[i]:
                where = f"  {binding[i]}"
            else:
                where = f"  ({v.path})" if v.path else ""
            lines.append(f"{pad}{t('inputs_title', lang)}: {v.name}:{v.type}{where}")
        for i, v in enumerate(p.outvars):
            path = p.out_paths[i] if i < len(p.out_paths) else ""
            lines.append(f"{pad}{t('results', lang)}: {v.name}:{v.type}" + (f"  ({path})" if path else ""))
        if not p.eqns:
            lines.append(f"{pad}{t('no_eqns', lang)}")
        for eqn in p.eqns:
            outs = " ".join(f"{v.name}:{v.type}" for v in eqn.outvars)
            params = " ".join(f"{k}={_short(param_text(v))}" for k, v in shown_params(eqn))
            head = f"{outs} = {eqn.primitive}" + (f"[{params}]" if params else "")
            ins = " ".join(a.name for a in eqn.invars)
            lines.append(f"{pad}{eqn.index:>3}  {head} {ins}".rstrip())
            note = explain(eqn.primitive, lang)
            if eqn.source:
                note = f"{_where(eqn.source, lang)}: {eqn.source.text}  — {note}"
            lines.append(f"{pad}       {note}")
            if self.cost:
                lines.append(f"{pad}       {t('cost', lang)}: {self._cost_text(eqn)}")
            if eqn.roles:
                lines.append(f"{pad}       {t('roles', lang)}: {eqn.roles.summary(lang)}")
            for sub in eqn.subs:
                lines.append(f"{pad}     {eqn.primitive}[{eqn.index}] › {sub.label}:")
                lines.extend(self._text_lines(sub.program, depth + 3, self._binding(eqn, sub)))
        if self._total_text(p):
            lines.append(f"{pad}{self._total_text(p)}")
        return lines


def shown_params(eqn: Eqn) -> list:
    """Params worth a column: not sub-jaxprs (they get nested tables) and not ``None`` (as JAX's printer)."""
    subs = {s.param for s in eqn.subs}
    return [(k, v) for k, v in eqn.params.items() if k not in subs and v is not None]


def _short(text: str) -> str:
    text = text.replace("\r\n", "\\n").replace("\n", "\\n")   # one row per equation (debug_print's fmt)
    return shorten(text, FOLD)


def _where(src, lang: str) -> str:
    where = t("cell", lang) if src.where == "cell" else src.where
    return f"{where} {t('line', lang)} {src.line}" if lang == "en" else f"{where} 第 {src.line} {t('line', lang)}"
