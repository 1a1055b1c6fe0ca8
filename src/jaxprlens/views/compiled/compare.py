"""The comparison view: original and transformed programs side by side, aligned by source line."""
from __future__ import annotations

from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.front import style
from jaxprlens.present.i18n import resolve, t
from jaxprlens.model.program import Eqn, Program, count_eqns
from jaxprlens.present.nouns import eqn_text as eqn_line, source_text
from jaxprlens.present.rows import source_html


# The views with no script carry their stylesheet as a plain <style>, which JupyterLab's sanitizer drops from an
# untrusted notebook (and nbviewer/GitHub may too); these inline styles keep them readable there: monospace,
# left-aligned, top-aligned cells, equal columns, indentation kept.  Only what the stylesheet says as well, so a
# trusted output looks the same; a var() is written after a plain fallback, since the sanitizer drops var()s.
ROOT = ' style="font-family:monospace;font-family:var(--jp-code-font-family,monospace)"'
FIXED = ' style="width:100%;table-layout:fixed"'
CELL = ' style="text-align:left;vertical-align:top"'
WRAP = ' style="white-space:pre-wrap"'
EQ = ' style="text-align:left;vertical-align:top;white-space:pre-wrap"'      # a cell holding one equation
NEW = (' style="white-space:pre-wrap;box-shadow:inset 4px 0 0 #4caf50;'      # the bar that marks an equation
       'box-shadow:inset 4px 0 0 var(--jp-success-color1,#4caf50)"')        # with no source line of its own


def _key(eqn: Eqn):
    return (eqn.source.where, eqn.source.cell, eqn.source.line) if eqn.source else None


def alignment(original: Program, transformed: Program) -> dict[str, list[str]]:
    """``{original eqn id: [transformed eqn ids]}``: equations made from the same source line."""
    by_line: dict = {}
    for e in transformed.walk():
        if _key(e):
            by_line.setdefault(_key(e), []).append(e.id)
    return {e.id: list(by_line.get(_key(e), [])) for e in original.walk() if _key(e)}


def flops_text(program: Program) -> str | None:
    """Total FLOPs from ``jaxprlens.cost`` when it is available (it is optional here)."""
    try:
        from jaxprlens.engine.cost import costs
        from jaxprlens.present.i18n import si
        return si(costs(program).total.flops, "FLOP")
    except Exception:  # noqa: BLE001 - cost rules are optional and may not know every primitive
        return None


def counts_text(program: Program, lang: str = "en") -> str:
    n, total = len(program.eqns), count_eqns(program)
    text = t("n_eqns", lang, n=n) + (t("n_in_all", lang, n=total) if total != n else "")
    flops = flops_text(program)
    return text + (f"{t('sep', lang)}{flops}" if flops else "")


class Compare(View):
    """Original and transformed programs side by side, one row per source line, new equations marked."""

    def __init__(self, original: Program, transformed: Program, label: str = "transformed", lang: str | None = None):
        self.original, self.transformed, self.label, self.lang = original, transformed, label, resolve(lang)
        self.alignment = alignment(original, transformed)

    def groups(self) -> list[tuple]:
        """``[(source or None, [original eqns], [transformed eqns])]``; None collects the new ones."""
        rows: dict = {}
        for e in self.original.walk():
            if _key(e):
                rows.setdefault(_key(e), (e.source, [], []))[1].append(e)
        new, unmatched = [], []
        for e in self.transformed.walk():
            if _key(e) in rows:
                rows[_key(e)][2].append(e)
            else:
                new.append(e)
        for e in self.original.walk():
            if not _key(e):
                unmatched.append(e)
        out = list(rows.values())
        if new or unmatched:
            out.append((None, unmatched, new))
        return out

    def text(self) -> str:
        lang, colon = self.lang, t("colon", self.lang)
        lines = [f"{t('original', lang)}{colon}{counts_text(self.original, lang)}",
                 f"{self.label}{colon}{counts_text(self.transformed, lang)}"]
        for src, left, right in self.groups():
            head = source_text(src, lang) if src else t("no_source_new", lang)
            lines.append("")
            lines.append(head)
            for i in range(max(len(left), len(right))):
                a = _side_text(left[i]) if i < len(left) else ""
                b = _side_text(right[i], new=src is None) if i < len(right) else ""
                lines.append(f"  {a:<44} | {b}".rstrip())
        return "\n".join(lines)

    def html(self) -> str:
        lang, colon = self.lang, t("colon", self.lang)
        rows = []
        for src, left, right in self.groups():
            if src:
                head = source_html(src, lang)
            else:
                head = f'<span class="jl-newhead">{html(t("no_source_new", lang))}</span>'
            rows.append(f'<tr class="jl-line"><td colspan="2"{CELL}>{head}</td></tr>')
            rows.append(f"<tr><td{CELL}>" + "".join(_side_html(e, "orig") for e in left) + f"</td><td{CELL}>"
                        + "".join(_side_html(e, "new" if src is None else "made") for e in right) + "</td></tr>")
        return (f'{style()}<div class="jaxprlens jl-compare" lang="{lang}"{ROOT}><table{FIXED}><thead><tr>'
                f'<th{CELL}>{t("original", lang)}{colon}{html(counts_text(self.original, lang))}</th>'
                f'<th{CELL}><code>{html(self.label)}</code>{colon}{html(counts_text(self.transformed, lang))}</th>'
                '</tr></thead>'
                f"<tbody>{''.join(rows)}</tbody></table></div>")


def _side_text(eqn: Eqn, new: bool = False) -> str:
    mark = "+ " if new else ""
    return f"{mark}{'  ' * eqn.depth}{eqn.id}  {eqn_line(eqn, 24)}"


def _side_html(eqn: Eqn, kind: str) -> str:
    cls, css = ("jl-eq jl-new", NEW) if kind == "new" else ("jl-eq", WRAP)
    ns = f' <span class="jl-ns">[{html(eqn.name_stack)}]</span>' if eqn.name_stack else ""
    return (f'<div class="{cls}" data-eqn="{html(eqn.id)}" data-side="{kind}"{css}>{"  " * eqn.depth}'
            f"{html(eqn.id)}  {html(eqn_line(eqn))}{ns}</div>")
