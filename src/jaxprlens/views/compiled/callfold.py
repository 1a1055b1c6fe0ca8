"""A compiled view (``--fusion``, ``--memory``) folded by the calls the table folds the same program by: a row per
call saying what the view says of it (its kernels, its live bytes and residuals), opening to the rows inside it,
written as the table writes its call rows (``present.rows.group_html``), stored as the table stores them (a call's
rows as fragments, ``front.packed``) and opened and searched by the table's script (``views/table/table.js``
``enhance``); the text form is the call tree, indented by call.  Which calls, and when a program is folded at all,
is the table's ``layout.Layout``: a view folds exactly where the table does."""
from __future__ import annotations

from collections.abc import Callable

from jaxprlens.model.calls import Group
from jaxprlens.model.program import Eqn, Program, count_eqns
from jaxprlens.present.escape import html
from jaxprlens.present.front import labels, packed
from jaxprlens.present.i18n import t, width
from jaxprlens.present.rows import LEFT, group_data, group_html, walk
from jaxprlens.present.usage import wrap
from jaxprlens.views.table import layout as lay
from jaxprlens.views.table.table import ROWS

DEPTH = 3          # levels of calls the text form writes (the HTML opens any)
LINES = 120        # calls the text form writes at most (then how many more)
WIDTH = 110        # columns of the text form


class CallFold:
    """``program`` folded as its table is (``folded``: whether it is); ``html`` and ``text`` write the calls with
    what a view says of each."""

    def __init__(self, program: Program, lang: str, words: str):
        self.program, self.lang, self.words = program, lang, words      # ``words``: what the view says of a call
        self.layout = lay.Layout(program, count_eqns(program))

    @property
    def folded(self) -> bool:
        return self.layout.folded

    @property
    def items(self) -> list:
        """The top level: calls and the equations made outside any call, in program order."""
        return self.layout.items

    def html(self, head: str, detail: Callable[[Group], str], eqn_rows: Callable[[Eqn], str], cls: str = "") -> str:
        """The folded rows as a table under the column heads ``head`` (a ``<thead>``): a call's row says
        ``detail(call)`` (HTML), an equation's rows are ``eqn_rows(eqn)``; the rows of each call the table stores
        rows of are stored for the script (a call past those says its rows are not stored)."""
        layout, lang = self.layout, self.lang

        def item(c) -> str:
            if isinstance(c, Group):
                note = t("rows_not_stored", lang) if c.id in layout.cut_ids else ""
                return group_html(c, lang, note, detail=detail(c))
            return eqn_rows(c)
        rows = "".join(item(c) for c in self.items[:lay.HEAD])
        more = len(self.items) - lay.HEAD
        if more > 0:
            rows += f'<tr class="jl-more-note"><td colspan="3"{LEFT}>{html(t("more_items", lang, n=more))}</td></tr>'
        payload = {"groups": {g.id: [item(c) for c in g.children] for g in layout.kept}}
        note = html(t("fold_click", lang, text=t(self.words, lang)))
        words = labels(search=t("search", lang), matches=t("matches", lang), matchone=t("match_one", lang))
        return (f'<div class="jl-callfold{" " + cls if cls else ""}" data-jl-view="fold"{words}>'
                f'<table class="jl-eqns" style="border-collapse:collapse;margin:.4em 0">{head}'
                f'<tbody><tr class="jl-more-note"><td colspan="3"{LEFT}>{note}</td></tr></tbody>'
                f'<tbody>{rows}</tbody></table>{packed(payload, ROWS)}</div>')

    def text(self, detail: Callable[[Group], str], eqn_line: Callable[[Eqn], str]) -> list[str]:
        """The call tree as text, ``DEPTH`` levels of calls, each ``▸  label  count`` then ``detail(call)``
        wrapped under it; the equations made outside any call one line each (``eqn_line``); at most ``LINES``
        calls, then how many more."""
        lang = self.lang
        out, calls = wrap(t(self.words, lang), WIDTH), [0]
        left: list = []

        def visit(items: list, depth: int):
            pad = "  " * (depth + 1)
            for c in items:
                if not isinstance(c, Group):
                    if depth == 0:
                        out.append(f"{pad}{eqn_line(c)}")
                    continue
                if calls[0] >= LINES:
                    left.append(c)
                    continue
                calls[0] += 1
                names = [group_data(c, lang)[1]]
                while len(c.children) == 1 and c.groups:        # a chain of single calls, one line
                    c = c.groups[0]
                    names.append(group_data(c, lang)[1])
                out.append(f"{pad}▸  {' › '.join(names)}  {group_data(c, lang)[2]}")
                out.extend(f"{pad}     {line}" for line in wrap(detail(c), WIDTH - len(pad) - 5))
                if depth + 1 < DEPTH:
                    visit(c.children, depth + 1)
        visit(self.items, 0)
        if left:
            out.append(t("fold_calls_more", lang, n=len(left)))
        return out


def eqn_ids(item) -> list:
    """The ids of the equations a call (or a top-level equation) holds, at every depth."""
    eqns = item.eqns if isinstance(item, Group) else [item]
    return [e.id for top in eqns for e in walk(top)]


def wrap_items(items: list, cols: int, sep: str) -> list[str]:
    """``items`` joined by ``sep`` in lines of at most ``cols`` display columns, broken between items only (an item
    wider than a line stays whole, on a line of its own)."""
    lines: list = []
    for item in items:
        if lines and width(lines[-1] + sep + item + sep.rstrip()) <= cols:
            lines[-1] += sep + item
        else:
            if lines:
                lines[-1] += sep.rstrip()
            lines.append(item)
    return lines
