"""The annotated table view: one row per equation, with types, params, source, meaning and roles.

Every row is written once, in Python (``present/rows.py``), from one record (``nouns.Row``, or a call of the
call tree): the rows the HTML shows, the rows past them the output stores as fragments (compressed) for the
script to insert as they scroll into view or a call opens, and the rows a live kernel serves
(``views/table/live.py``).  How the rows are laid out (``views/table/layout.py``) is computed once, in ``__init__``.
"""
from __future__ import annotations

from dataclasses import replace

from jaxprlens.model.explain import explain
from jaxprlens.model.program import Eqn, Program, path_id
from jaxprlens.present.display import View
from jaxprlens.present.escape import html, html_units
from jaxprlens.present.front import output, labels, packed
from jaxprlens.present.i18n import resolve, role_summary, role_word, sub_label, t
from jaxprlens.present.nouns import Block, Row, block, eqn_text, source_text
from jaxprlens.present.rows import LEFT, Rows, explained, group_data, group_html, walk
from jaxprlens.present.shares import Metric, Shares, cost_metric
from jaxprlens.present.words import cost_text, percent, program_title, seen_through_note, share_bar, total_text
from jaxprlens.views.table import layout as lay
from jaxprlens.views.table.signature import signature_html, signature_lines

ROWS = "jl-rows"      # the class of the stored fragments' <script> (``static/dom.js`` unpack)


class Table(View):
    """``program.table()``: HTML (``text/html``) and aligned text (``text/plain``)."""

    def __init__(self, program: Program, lang: str | None = None, cost: Metric | bool | None = None, costs=None):
        self.program, self.lang = program, resolve(lang)
        self._counts: dict = {}
        self.cost = cost = cost_metric(cost)     # "flops", "bytes" or None (True: "flops")
        self.costs = costs   # optional {eqn.id: cost} from the runner issue
        if cost and costs is None:
            from jaxprlens.engine.cost import costs as estimate
            self.costs = estimate(program)
        self._shares = None
        if cost and hasattr(self.costs, "totals"):      # issue 22: each row's share of the whole
            self._shares = Shares(program, cost, self.costs)
        self.rows = Rows(self.lang, self._cost_text if cost else None)
        self.layout = lay.Layout(program, self.count(program))
        self._records: list | None = None      # made on first use (HTML and text both read them)
        self._consts = set(program.constvars)
        self._colon = t("colon", self.lang)

    @property
    def tree(self):
        """The call tree the table is folded by, or None."""
        return self.layout.tree

    def count(self, p: Program) -> int:
        """Equations at every depth of ``p`` (counted once per sub-program)."""
        n = self._counts.get(id(p))
        if n is None:      # as ``count_eqns``, each sub-program counted once for all the tables that show it
            n = self._counts[id(p)] = len(p.eqns) + sum(self.count(s.program) for e in p.eqns for s in e.subs)
        return n

    # -------------------------------------------------------------- the records
    def records(self) -> list:
        """The record of each of ``layout.items``: a ``Row`` for an equation, the call itself for a call."""
        if self._records is None:
            self._records = self.records_of(self.layout.items)
        return self._records

    def records_of(self, items: list) -> list:
        """Records of a sequence of equations and calls: a run of equations as one block (a source line once
        per run; a call ends the run), every row with its explanation."""
        out, run = [], []

        def flush():
            if run:
                out.extend(explained(block(self.program, self.lang, eqns=list(run)).rows, self.lang))
                run.clear()
        for c in items:
            if isinstance(c, Eqn):
                run.append(c)
            else:
                flush()
                out.append(c)
        flush()
        return out

    def doc(self) -> Block:
        """The top level's equation rows (a table folded by calls: those among its top items)."""
        return Block(self.program, [r for r in self.records() if not is_call(r)])

    def item_html(self, rec, fresh: bool = False) -> str:
        """A record's rows: an equation's row and its sub-jaxprs' tables, or a call's row (saying when its rows
        are not stored); ``fresh``: shown apart from the row above it (a search's hits), its source line too."""
        if is_call(rec):
            return group_html(rec, self.lang, t("rows_not_stored", self.lang) if rec.id in self.layout.cut_ids else "")
        return self._row_and_subs(replace(rec, same_source=False) if fresh else rec, self._consts)

    # -------------------------------------------------------------- HTML
    needs = ("table",)     # the front end this view's HTML uses (``front.assets``; a Stack carries it once)

    def html(self) -> str:
        return output(self.body(), self.needs)

    def body(self) -> str:
        """The table's HTML without the front end (complete without it: scripts only add interaction)."""
        p, lang, layout = self.program, self.lang, self.layout
        words = labels(search=t("search", lang), allparams=t("all_params", lang), matches=t("matches", lang),
                       matchone=t("match_one", lang))
        payload: dict = {}
        recs = self.records()
        if layout.stored:      # the rows past the head, as the HTML writes them (issue 21: bounded)
            payload["rows"] = [self.item_html(r) for r in recs[layout.head:layout.head + layout.stored]]
        if layout.folded:      # the rows of each call, inserted when it opens
            payload["groups"] = {g.id: [self.item_html(r) for r in self.records_of(g.children)] for g in layout.kept}
        table = self._folded_html(recs) if layout.folded else self._eqns_html(Block(p, recs), layout.head, top=True)
        folded = " jl-folded" if layout.folded else ""
        return "".join([f'<div class="jaxprlens jl-table{folded}" data-jl-view="table" lang="{lang}"{words}>',
                        self._signature_html(p), table, packed(payload, ROWS) if payload else "", "</div>"])

    def _signature_html(self, p: Program, binding: list | None = None) -> str:
        return signature_html(p, self.lang, self._count(p), binding)

    def _count(self, p: Program) -> str:
        n, lang = self.count(p), self.lang
        text = t("n_eqns", lang, n=len(p.eqns))
        return text + (t("n_in_all", lang, n=n) if n != len(p.eqns) else "")

    def _note(self, cls: str, text: str, ncols: int) -> str:
        return f'<tbody class="{cls}"><tr class="jl-more-note"><td colspan="{ncols}">{html(text)}</td></tr></tbody>'

    def _eqns_html(self, doc: Block, head: int | None = None, top: bool = False) -> str:
        p = doc.program
        if not p.eqns:
            return f'<div class="jl-empty">{t("no_eqns", self.lang)}</div>'
        consts = set(p.constvars)
        ncols = 4 if self.cost else 3
        shown = [self._row_and_subs(row, consts, ncols) for row in doc.rows[:head]]
        chunks = [shown[i:i + lay.CHUNK] for i in range(0, len(shown), lay.CHUNK)]
        cls = ' class="jl-chunk"' if len(chunks) > 1 else ""
        tbodies = "".join(f"<tbody{cls}>{''.join(c)}</tbody>" for c in chunks)
        if top and self.layout.later:
            tbodies += self._note("jl-more", t("more_rows", self.lang, n=self.layout.rest), ncols)
            if self.layout.lost:       # past STORED rows the notebook keeps none (the script inserts none)
                tbodies += self._note("jl-cut", t("rows_cut", self.lang, n=self.layout.lost, k=lay.STORED), ncols)
        return (f'<table class="jl-eqns" data-path="{html(path_id(p.path))}">{self.rows.header_html()}'
                f"{tbodies}{self._total_html(p, ncols)}</table>")

    def _row_and_subs(self, row, consts, ncols: int | None = None) -> str:
        """An equation's row and, below it, the rows of the sub-jaxprs it holds (a loop's body, a branch)."""
        if not row.subs:
            return self.rows.row_html(row, consts)
        ncols = ncols or (4 if self.cost else 3)
        nested = "".join(self._sub_html(row.eqn, s, b) for s, b in zip(row.eqn.subs, row.subs))
        return (self.rows.row_html(row, consts) + f'<tr class="jl-nested" data-parent="{html(row.eqn.id)}">'
                f'<td colspan="{ncols}"{LEFT}>{nested}</td></tr>')

    def _cost_text(self, eqn: Eqn) -> str:
        c = self.costs.get(eqn.id) if self.costs else None
        if c is None:
            return ""
        x = self._shares.share.get(eqn.id) if self._shares is not None else None
        return cost_text(c, self.lang) + ("" if x is None else f"  {share_bar(x)} {percent(x)}")

    def _total_text(self, p: Program, word: bool = True) -> str:
        """``total 31 FLOP, 264 B; intensity 0.12 FLOP/B`` for a (sub-)program (cost column only)."""
        total = getattr(self.costs, "totals", {}).get(path_id(p.path)) if self.cost else None
        if total is None:
            return ""
        return total_text(total, self.lang, word)

    def _total_html(self, p: Program, ncols: int) -> str:
        text = self._total_text(p, word=False)      # the row's first cell says "total"
        return (f'<tfoot><tr class="jl-total"><td colspan="{ncols - 1}">{t("total", self.lang)}</td>'
                f'<td class="jl-cost">{html_units(text)}</td></tr></tfoot>') if text else ""

    def _binding(self, eqn: Eqn, sub) -> list:
        """For each binder of ``sub``: ``(operand, role word)`` it is bound from, or None from inside."""
        out = []
        for j in sub.in_map:
            if j is None:
                out.append(None)
            else:
                role = eqn.roles.of_operand(j) if eqn.roles else "operand"
                out.append((eqn.invars[j], role_word(role, 1, self.lang)))
        return out

    def _sub_html(self, eqn: Eqn, sub, doc: Block) -> str:
        inner = self._signature_html(sub.program, self._binding(eqn, sub)) + self._eqns_html(doc)
        return (f'<details open class="jl-sub" data-path="{html(path_id(sub.program.path))}">'
                f"<summary>{html(eqn.primitive)}[{eqn.index}] › {html(sub_label(sub, self.lang))}</summary>"
                f"{inner}</details>")

    def _folded_html(self, recs: list) -> str:
        """The top of the call tree as rows (the first ``layout.head`` items; the rest stored for the script);
        the program's own equations (made inside JAX) as they are; the calls whose rows the notebook does not
        store say so."""
        layout, lang = self.layout, self.lang
        rows = "".join(self.item_html(r) for r in recs[:layout.head])
        tail = ""
        if layout.later:
            tail = self._note("jl-more", t("more_items", lang, n=layout.rest), 3)
            if layout.lost:
                tail += self._note("jl-cut", t("items_cut", lang, n=layout.lost, k=lay.STORED), 3)
        note = f'<tbody><tr class="jl-more-note"><td colspan="3">{html(t("table_folded", lang))}</td></tr></tbody>'
        if layout.cut:
            text = t("calls_cut", lang, n=sum(g.size for g in layout.cut), k=len(layout.cut), s=lay.STORED_CALLS)
            note += self._note("jl-cut", text, 3)
        return (f'<table class="jl-eqns" data-path="">{self.rows.header_html()}{note}'
                f'<tbody>{rows}</tbody>{tail}</table>')

    # -------------------------------------------------------------- text
    def text(self) -> str:
        title = [program_title(self.program, self.lang)] if self.program.title else []
        title += [seen_through_note(self.program, self.lang)] if self.program.outer is not None else []
        layout = self.layout
        if layout.folded:                # as the HTML shows it: a line per call
            return "\n".join(title + self._folded_text())
        lines = self._text_lines(self.doc(), 0, limit=layout.head)
        more = [t("more_text", self.lang, n=layout.rest)] if layout.later else []     # model size: a summary
        return "\n".join(title + lines + more)

    def _folded_text(self) -> list[str]:
        """The signature, then the top of the call tree: an equation as ``_text_lines`` writes it, a call as
        ``▸ label  count`` with its call site and crossing values (``layout.head`` items, then how many more)."""
        lang, layout = self.lang, self.layout
        lines = self._text_lines(Block(self.program, []), 0) + [t("text_folded", lang)]
        for c in self.records()[:layout.head]:
            if not is_call(c):
                lines.extend(self._row_lines(c, ""))
                continue
            _, label, count, site, cross, _ = group_data(c, lang)
            lines.append(f"  ▸  {label}  {count}")
            lines.append(f"       {site}  — {cross}" if site else f"       {cross}")
        if layout.later:
            lines.append(t("more_text", lang, n=sum(sum(1 for _ in walk(c)) if isinstance(c, Eqn) else c.size
                                                    for c in layout.later)))
        return lines

    def _row_lines(self, row, pad: str) -> list[str]:
        """An equation as text: ``  3  c:f32[] = sin b``, then its source and meaning, cost and roles."""
        eqn, lang = row.eqn, self.lang
        colon = self._colon
        note = row.explain if row.explain is not None else explain(eqn.primitive, lang)   # the HTML's too
        if eqn.source:
            note = f"{source_text(eqn.source, lang)}  — {note}"
        lines = [f"{pad}{eqn.index:>3}  {eqn_text(eqn, None, row.params)}", f"{pad}       {note}"]
        if self.cost:
            lines.append(f"{pad}       {t('cost', lang)}{colon}{self._cost_text(eqn)}")
        if eqn.roles:
            lines.append(f"{pad}       {t('roles', lang)}{colon}{role_summary(eqn.roles, lang)}")
        return lines

    def _text_lines(self, doc: Block, depth: int, binding: list | None = None, limit: int | None = None) -> list[str]:
        p, lang, pad = doc.program, self.lang, "  " * depth
        colon = self._colon
        lines = signature_lines(p, lang, pad, binding)
        if not p.eqns:
            lines.append(f"{pad}{t('no_eqns', lang)}")
        for row in doc.rows[:limit]:
            eqn = row.eqn
            lines.extend(self._row_lines(row, pad))
            for sub, sub_doc in zip(eqn.subs, row.subs):
                lines.append(f"{pad}     {eqn.primitive}[{eqn.index}] › {sub_label(sub, lang)}{colon.rstrip()}")
                lines.extend(self._text_lines(sub_doc, depth + 3, self._binding(eqn, sub)))
        if self._total_text(p):
            lines.append(f"{pad}{self._total_text(p)}")
        return lines


def is_call(rec) -> bool:
    """A record that is a call (not an equation's row)."""
    return type(rec) is not Row


def stored(page: str) -> dict:
    """The rows a table's output stores for its script (``{"rows": [fragment, ...], "groups": {call id:
    [fragment, ...]}}``, each fragment one record's rows as the HTML writes them), or ``{}``."""
    from jaxprlens.present.front import unpacked
    return unpacked(page, ROWS) or {}
