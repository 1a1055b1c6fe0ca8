"""The annotated table view: one row per equation, with types, params, source, meaning and roles."""
from __future__ import annotations

import collections
import itertools
from dataclasses import replace

from jaxprlens.present.display import View, array_text
from jaxprlens.present.escape import html
from jaxprlens.model.explain import explain
from jaxprlens.present.front import assets, data, labels
from jaxprlens.present.i18n import resolve, role_summary, role_word, sub_label, t
from jaxprlens.model.program import Eqn, Program, Var, path_id
from jaxprlens.model.program import count_eqns as _count_eqns
from jaxprlens.present.nouns import Block, atom_text, block, eqn_text, explanations, source_text, var_text
from jaxprlens.present.rows import (LEFT, Rows, atom_html, binder_html, data_row, explain_html, group_data, group_html,
                                    source_once, walk)
from jaxprlens.present.shares import Metric, Shares, cost_metric
from jaxprlens.present.words import cost_text, percent, program_title, seen_through_note, share_bar, total_text

PREVIEW = 6        # array elements shown in a constant's preview
CHUNK = 200        # rows per <tbody>: the browser lays out only the chunks on screen
HEAD = 400         # a program of more equations than BIG shows this many as HTML, the rest as data
BIG = 1000         # rows the script draws as they scroll into view (and the text view summarises)
STORED = 10_000    # ... at most this many of them stored as data (issue 21: a 100k-equation table <= 3 MB)
# a path tree without bullets (the ▸ of each <details> marks it), kept inline: the sanitizer keeps it untrusted
TREE = ' style="list-style:none;margin:0;padding-left:1.2em"'
STORED_CALLS = 5_000   # rows of calls stored by a table folded by calls (~210 B each, a data row ~130 B)



def _fmt_value(value) -> str:
    return array_text(value, PREVIEW)


class Table(View):
    """``program.table()``: HTML (``text/html``) and aligned text (``text/plain``)."""

    def __init__(self, program: Program, lang: str | None = None, cost: Metric | bool | None = None, costs=None):
        self.program, self.lang = program, resolve(lang)
        self._doc, self._counts = None, {}
        self.cost = cost = cost_metric(cost)     # "flops", "bytes" or None (True: "flops")
        self.costs = costs   # optional {eqn.id: cost} from the runner issue
        if cost and costs is None:
            from jaxprlens.engine.cost import costs as estimate
            self.costs = estimate(program)
        self.rows = Rows(self.lang, self._cost_text if cost else None)

    def doc(self) -> Block:
        """The program's rows, made once per view (HTML and text both read them); a table folded by calls
        shows only its top level as rows (the calls' rows are data the script draws)."""
        if self._doc is None:
            p, tree = self.program, self.tree
            if tree is not None:          # only the equations among the top items get rows
                p = replace(p, eqns=[c for c in top_items(tree) if isinstance(c, Eqn)])
            self._doc = block(p, self.lang)
        return self._doc

    @property
    def tree(self):
        """The call tree the table is folded by, or None (``fold_tree``)."""
        if not hasattr(self, "_tree"):
            self._tree = fold_tree(self.program, self.count(self.program))
        return self._tree

    def count(self, p: Program) -> int:
        """Equations at every depth of ``p`` (counted once per sub-program)."""
        n = self._counts.get(id(p))
        if n is None:
            n = self._counts[id(p)] = _count_eqns(p)
        return n

    # -------------------------------------------------------------- HTML
    needs = ("table",)     # the front end this view's HTML uses (``front.assets``; a Stack carries it once)

    def html(self) -> str:
        return self.body() + assets(self.needs)

    def body(self) -> str:
        """The table's HTML without the front end (complete without it: scripts only add interaction)."""
        p, lang = self.program, self.lang
        doc = self.doc()
        words = labels(search=t("search", lang), allparams=t("all_params", lang), matches=t("matches", lang),
                       matchone=t("match_one", lang))
        payload = {}        # hover help for rows the script draws; HTML rows carry theirs (first of a primitive)
        head = len(doc.rows)
        tree = self.tree
        if tree is not None:           # model size with calls: a row per inlined call, opened on click
            payload["groups"], cut = group_items(tree, lang)
            payload["explain"] = explanations(p, lang)
            items = top_items(tree)
            if len(items) > HEAD:      # a top level of many calls/equations: the first as HTML, then data
                later = (row for c in items[HEAD:] for row in
                         ([_group_item(c, lang)] if not isinstance(c, Eqn) else [data_row(e, lang) for e in walk(c)]))
                payload["rows"] = source_once(list(itertools.islice(later, STORED)))      # issue 21: bounded
                self._cut = sum(1 for c in items[HEAD:] for _ in (walk(c) if isinstance(c, Eqn) else (c,))) \
                    - len(payload["rows"])
            return "".join([f'<div class="jaxprlens jl-table jl-folded" data-jl-view="table" lang="{lang}"'
                            f'{words}>', self._signature_html(p), self._folded_html(tree, doc, cut, items),
                            data(payload), "</div>"])
        if self.count(p) > BIG:        # model size: the first rows as HTML, the rest as compact data
            head = _head_rows(doc, HEAD)
            later = (data_row(e, lang) for row in doc.rows[head:] for e in walk(row.eqn))
            payload["rows"] = source_once(list(itertools.islice(later, STORED)))     # issue 21: bounded
            self._cut = sum(1 for row in doc.rows[head:] for _ in walk(row.eqn)) - len(payload["rows"])
            payload["explain"] = explanations(p, lang)
        return "".join([f'<div class="jaxprlens jl-table" data-jl-view="table" lang="{lang}"'
                        f'{words}>', self._signature_html(p), self._eqns_html(doc, head), data(payload) if payload else "", "</div>"])

    def _signature_html(self, p: Program, binding: list | None = None) -> str:
        lang = self.lang
        rows = []
        consts = set(p.constvars)
        for v, value in zip(p.constvars, p.consts):
            rows.append(f'<tr class="jl-constvar"><td>{t("constvar", lang)}</td><td{LEFT}>{binder_html(v)}</td>'
                        f"<td{LEFT}>= {html(_fmt_value(value))}</td></tr>")
        if binding is None and len(p.invars) > TREE_AT:       # pytrees of arguments: folded by path
            rows.append(sig_tree("jl-invar", t("inputs_title", lang), [(v.path or "", v) for v in p.invars], lang))
        for i, v in enumerate(p.invars if binding is not None or len(p.invars) <= TREE_AT else ()):
            where, bound = html(v.path or ""), binder_html(v)
            if binding is not None and binding[i]:
                outer, role = binding[i]
                where = f"{t('bound_from', lang)} {atom_html(outer)} ({html(role)})" + (
                    f' <span class="jl-path">{html(v.path)}</span>' if v.path else "")
                if isinstance(outer, Var):     # the script follows the value into the sub-jaxpr
                    bound = binder_html(v, came_from=outer)
            rows.append(f'<tr class="jl-invar"><td>{t("inputs_title", lang)}</td><td{LEFT}>{bound}</td>'
                        f"<td{LEFT}>{where}</td></tr>")
        if binding is None and len(p.outvars) > TREE_AT:
            paths = [p.out_paths[i] if i < len(p.out_paths) else "" for i in range(len(p.outvars))]
            rows.append(sig_tree("jl-outvar", t("results", lang), list(zip(paths, p.outvars)), lang, consts))
        for i, v in enumerate(p.outvars if binding is not None or len(p.outvars) <= TREE_AT else ()):
            path = p.out_paths[i] if i < len(p.out_paths) else ""
            rows.append(f'<tr class="jl-outvar"><td>{t("results", lang)}</td><td{LEFT}>{binder_html(v, consts)}</td>'
                        f"<td{LEFT}>{html(path)}</td></tr>")
        title = f"{html(program_title(p, lang))} — " if p.title else ""
        seen = seen_through_note(p, lang) if binding is None else ""
        seen = f'<div class="jl-seen">{explain_html(seen)}</div>' if seen else ""
        return (f'{seen}<div class="jl-cap">{title}{t("signature", lang)}{t("colon", lang)}{html(self._count(p))}</div>'
                f'<table class="jl-sig" data-path="{html(path_id(p.path))}">{"".join(rows)}</table>')

    def _count(self, p: Program) -> str:
        n, lang = self.count(p), self.lang
        text = t("n_eqns", lang, n=len(p.eqns))
        return text + (t("n_in_all", lang, n=n) if n != len(p.eqns) else "")

    def _eqns_html(self, doc: Block, head: int | None = None) -> str:
        p = doc.program
        if not p.eqns:
            return f'<div class="jl-empty">{t("no_eqns", self.lang)}</div>'
        consts = set(p.constvars)
        ncols = 4 if self.cost else 3
        chunks, body = [], []
        for row in doc.rows[:head]:
            body.append(self._row_and_subs(row, consts, ncols))
            if len(body) >= CHUNK:
                chunks.append(body)
                body = []
        if body:
            chunks.append(body)
        cls = ' class="jl-chunk"' if len(chunks) > 1 else ""
        tbodies = "".join(f"<tbody{cls}>{''.join(c)}</tbody>" for c in chunks)
        rest = self.count(p) - sum(1 for row in doc.rows[:head] for _ in walk(row.eqn))
        if head is not None and head < len(doc.rows):
            note = t("more_rows", self.lang, n=rest)
            tbodies += (f'<tbody class="jl-more"><tr class="jl-more-note"><td colspan="{ncols}">{html(note)}'
                        "</td></tr></tbody>")
            if getattr(self, "_cut", 0):       # past STORED rows the notebook keeps none (the script draws none)
                cut = t("rows_cut", self.lang, n=self._cut, k=STORED)
                tbodies += (f'<tbody class="jl-cut"><tr class="jl-more-note"><td colspan="{ncols}">{html(cut)}'
                            "</td></tr></tbody>")
        return (f'<table class="jl-eqns" data-path="{html(path_id(p.path))}">{self.rows.header_html()}'
                f"{tbodies}{self._total_html(p, ncols)}</table>")

    def _row_and_subs(self, row, consts, ncols: int = 3) -> str:
        """An equation's row and, below it, the rows of the sub-jaxprs it holds (a loop's body, a branch)."""
        if not row.subs:
            return self.rows.row_html(row, consts)
        nested = "".join(self._sub_html(row.eqn, s, b) for s, b in zip(row.eqn.subs, row.subs))
        return (self.rows.row_html(row, consts) + f'<tr class="jl-nested" data-parent="{html(row.eqn.id)}">'
                f'<td colspan="{ncols}"{LEFT}>{nested}</td></tr>')

    def _cost_text(self, eqn: Eqn) -> str:
        if not self.costs:
            return ""
        c = self.costs.get(eqn.id)
        if c is None:
            return ""
        if getattr(self, "_shares", None) is None and hasattr(self.costs, "totals"):     # issue 22: the share
            self._shares = Shares(self.program, self.cost, self.costs)
        shares = getattr(self, "_shares", None)
        x = shares.share.get(eqn.id) if shares is not None else None
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
                f'<td class="jl-cost">{html(text)}</td></tr></tfoot>') if text else ""

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
                f"<summary>{html(eqn.primitive)}[{eqn.index}] › {html(sub_label(sub, self.lang))}</summary>{inner}</details>")

    def _folded_html(self, tree, doc: Block, cut: list = (), items: list | None = None) -> str:
        """The top of the call tree as rows (the first ``HEAD`` of ``items`` as HTML, the rest drawn by the
        script from data); the program's own equations (made inside JAX) as they are; ``cut``: the calls
        whose rows the notebook does not store (``group_items``)."""
        consts, own = set(doc.program.constvars), {id(r.eqn): r for r in doc.rows}
        gone, unstored = {g.id for g in cut}, t("rows_not_stored", self.lang)
        items = top_items(tree) if items is None else items
        rows = [group_html(c, self.lang, unstored if c.id in gone else "")
                if not isinstance(c, Eqn) else self._row_and_subs(own[id(c)], consts) for c in items[:HEAD]]
        tail = ""
        if len(items) > HEAD:
            rest = sum(1 for c in items[HEAD:] for _ in (walk(c) if isinstance(c, Eqn) else (c,)))
            tail = (f'<tbody class="jl-more"><tr class="jl-more-note"><td colspan="3">'
                    f'{html(t("more_items", self.lang, n=rest))}</td></tr></tbody>')
            if getattr(self, "_cut", 0):
                tail += (f'<tbody class="jl-cut"><tr class="jl-more-note"><td colspan="3">'
                         f'{html(t("items_cut", self.lang, n=self._cut, k=STORED))}</td></tr></tbody>')
        note = (f'<tbody><tr class="jl-more-note"><td colspan="3">{html(t("table_folded", self.lang))}'
                "</td></tr></tbody>")
        if cut:
            text = t("calls_cut", self.lang, n=sum(g.size for g in cut), k=len(cut), s=STORED_CALLS)
            note += f'<tbody class="jl-cut"><tr class="jl-more-note"><td colspan="3">{html(text)}</td></tr></tbody>'
        return (f'<table class="jl-eqns" data-path="">{self.rows.header_html()}{note}'
                f'<tbody>{"".join(rows)}</tbody>{tail}</table>')

    # -------------------------------------------------------------- text
    def text(self) -> str:
        title = [program_title(self.program, self.lang)] if self.program.title else []
        title += [seen_through_note(self.program, self.lang)] if self.program.outer is not None else []
        p = self.program
        if self.tree is not None:                # as the HTML shows it: a line per call
            return "\n".join(title + self._folded_text(self.tree))
        if self.count(p) <= BIG:
            return "\n".join(title + self._text_lines(self.doc(), 0))
        head = _head_rows(self.doc(), HEAD)      # model size: a summary, like the HTML's head
        lines = self._text_lines(self.doc(), 0, limit=head)
        rest = self.count(p) - sum(1 for e in p.eqns[:head] for _ in walk(e))
        return "\n".join(title + lines + [t("more_text", self.lang, n=rest)])

    def _folded_text(self, tree) -> list[str]:
        """The signature, then the top of the call tree: an equation as ``_text_lines`` writes it, a call as
        ``▸ label  count`` with its call site and crossing values (``HEAD`` items, then how many more)."""
        lang, doc = self.lang, self.doc()
        own = {id(r.eqn): r for r in doc.rows}
        lines = self._text_lines(Block(self.program, []), 0) + [t("text_folded", lang)]
        items = top_items(tree)
        for c in items[:HEAD]:
            if isinstance(c, Eqn):
                lines.extend(self._row_lines(own[id(c)], ""))
                continue
            _, label, count, site, cross, _ = group_data(c, lang)
            lines.append(f"  ▸  {label}  {count}")
            lines.append(f"       {site}  — {cross}" if site else f"       {cross}")
        if len(items) > HEAD:
            lines.append(t("more_text", lang, n=sum(sum(1 for _ in walk(c)) if isinstance(c, Eqn) else c.size
                                                    for c in items[HEAD:])))
        return lines

    def _row_lines(self, row, pad: str) -> list[str]:
        """An equation as text: ``  3  c:f32[] = sin b``, then its source and meaning, cost and roles."""
        eqn, lang = row.eqn, self.lang
        colon = t("colon", lang)
        note = explain(eqn.primitive, lang)
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
        colon = t("colon", lang)

        def paren(x: str) -> str:
            return f"（{x}）" if lang == "zh" else f"  ({x})"

        lines = []
        for v, value in zip(p.constvars, p.consts):
            lines.append(f"{pad}{t('constvar', lang)}{colon}{var_text(v)} = {_fmt_value(value)}")
        def bounded(vs: list) -> int:       # a model's thousands of parameters: the first SIG_LINES
            return len(vs) if len(vs) <= SIG_LINES + 1 else SIG_LINES

        if binding is None and len(p.invars) > TREE_AT:      # pytrees of arguments: a line per subtree
            lines.extend(pad + x for x in sig_lines(t("inputs_title", lang), [(v.path or "", v) for v in p.invars],
                                                    lang))
        for i, v in enumerate(p.invars[:bounded(p.invars)] if binding is not None or len(p.invars) <= TREE_AT
                              else ()):
            if binding and binding[i]:
                outer, role = binding[i]
                where = f"  {t('bound_from', lang)} {atom_text(outer)}" + paren(role).lstrip() + (
                    f"  {v.path}" if v.path else "")
            else:
                where = paren(v.path) if v.path else ""
            lines.append(f"{pad}{t('inputs_title', lang)}{colon}{var_text(v)}{where}")
        if bounded(p.invars) < len(p.invars) and (binding is not None or len(p.invars) <= TREE_AT):
            lines.append(f"{pad}{t('sig_more', lang, n=len(p.invars) - SIG_LINES)}")
        if binding is None and len(p.outvars) > TREE_AT:
            paths = [p.out_paths[i] if i < len(p.out_paths) else "" for i in range(len(p.outvars))]
            lines.extend(pad + x for x in sig_lines(t("results", lang), list(zip(paths, p.outvars)), lang))
        for i, v in enumerate(p.outvars[:bounded(p.outvars)] if binding is not None or len(p.outvars) <= TREE_AT
                              else ()):
            path = p.out_paths[i] if i < len(p.out_paths) else ""
            lines.append(f"{pad}{t('results', lang)}{colon}{var_text(v)}" + (paren(path) if path else ""))
        if bounded(p.outvars) < len(p.outvars) and (binding is not None or len(p.outvars) <= TREE_AT):
            lines.append(f"{pad}{t('sig_more', lang, n=len(p.outvars) - SIG_LINES)}")
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


# ------------------------------------------------------------------ the signature's pytrees (issue 19)
# A train step's inputs are every leaf of its params and optimizer state: hundreds of rows before the first
# equation.  Past TREE_AT values they are one row each side, a tree folded by path (``<details>``: opens
# with scripts stripped too), each level with its count of values and their bytes.

TREE_AT = 6
SIG_ITEMS = 500       # entries (levels and values) one tree stores: a 100k-equation model's 4,121 inputs were 1.3 MB
SIG_LINES = 200       # values per side the text form lists


class _Node:
    def __init__(self):
        self.kids: dict = {}
        self.leaves: list = []       # (path, atom) ending here
        self._tally = None

    def first(self):
        """The first ``(path, atom)`` at or below this node."""
        return self.leaves[0] if self.leaves else next(iter(self.kids.values())).first()

    def tally(self) -> tuple:
        """``(values, bytes)`` at or below this node (counted once: every level of the tree shows it)."""
        if self._tally is None:
            kids = [k.tally() for k in self.kids.values()]
            self._tally = (len(self.leaves) + sum(n for n, _ in kids),
                           sum(_nbytes(a) for _, a in self.leaves) + sum(b for _, b in kids))
        return self._tally


def _nbytes(a) -> int:
    from jaxprlens.engine.cost import nbytes
    return nbytes(getattr(a, "aval", None))


def _key_text(k) -> str:
    return f"[{k}]" if isinstance(k, int) else str(k)


def sig_tree(cls: str, word: str, items: list, lang: str, consts=()) -> str:
    """One signature row holding ``items`` (``(path, atom)``) as a folded tree by path:
    ``state ▸ [0] ▸ blocks ▸ [0] ▸ attn ▸ …``, each level ``name · 12 values · 3.1 kB``."""
    body = _tree_items(sig_entries(items), lang, consts, [SIG_ITEMS])
    return f'<tr class="{cls} jl-sigtree"><td>{word}</td><td colspan="2"><ul class="jl-tree"{TREE}>{body}</ul></td></tr>'


def sig_entries(items: list) -> list:
    """The first level of the signature tree of ``items`` (``(path, atom)``): ``[(label, node)]``, e.g.
    ``model`` and ``optimizer`` (below a chain of single keys such as ``out``), values without a path first."""
    from jaxprlens.model.paths import path_tokens
    root = _Node()
    for path, a in items:
        node = root
        keys = path_tokens(path)
        for k in keys[:-1] if keys[-1:] == ("value",) else keys:      # flax.nnx's Variable.value
            node = node.kids.setdefault(k, _Node())
        node.leaves.append((path, a))
    head = []
    while len(root.kids) == 1 and not root.leaves:      # ``out`` of every result: start below it
        k, root = next(iter(root.kids.items()))
        head.append(k)
    entries = [("".join(_key_text(k) if i else str(k) for i, k in enumerate(head)), root)] if not root.kids else [
        ("".join(_key_text(x) if i else str(x) for i, x in enumerate(head + [k])), n) for k, n in root.kids.items()]
    if root.kids and root.leaves:
        entries.insert(0, ("", _Node()))
        entries[0][1].leaves = root.leaves
    return entries


def sig_lines(word: str, items: list, lang: str) -> list[str]:
    """The signature tree as text, its first level a line each: ``input: model · 36 values · 61 kB`` (what the
    HTML tree shows folded), a value alone as itself: ``input: a:i32[2,8]  (tokens)``."""
    from jaxprlens.engine.cost import si
    colon, lines = t("colon", lang), []

    def paren(x: str) -> str:
        return "" if not x else f"（{x}）" if lang == "zh" else f"  ({x})"
    entries = sig_entries(items)
    if len(entries) > SIG_LINES + 1:          # past SIG_LINES lines: how many values are left
        rest = sum(node.tally()[0] for _, node in entries[SIG_LINES:])
        entries = entries[:SIG_LINES]
    else:
        rest = 0
    for label, node in entries:
        for path, a in node.leaves if not label else ():
            lines.append(f"{word}{colon}{var_text(a)}{paren(path)}")
        if not label:
            continue
        count, nbytes = node.tally()
        if count == 1:
            path, a = node.first()
            lines.append(f"{word}{colon}{var_text(a)}{paren(path)}")
        else:
            lines.append(f"{word}{colon}{label} · {t('n_values', lang, n=count)} · {si(nbytes, 'B')}")
    return lines + ([t("sig_more", lang, n=rest)] if rest else [])


def _tree_items(entries: list, lang: str, consts, left: list) -> str:
    """One level of the tree (``(label, node)`` each), depth first, while ``left[0]`` entries are left to
    store; past that, one line says how many entries and values the level has that are not stored."""
    out = []
    for i, (label, node) in enumerate(entries):
        if left[0] <= 0:
            rest = entries[i:]
            text = t("sig_cut", lang, k=len(rest), n=sum(nd.tally()[0] for _, nd in rest))
            out.append(f'<li class="jl-more-note">{html(text)}</li>')
            break
        left[0] -= 1
        out.append(_tree_item(label, node, lang, consts, left))
    return "".join(out)


def _tree_item(label: str, node: _Node, lang: str, consts, left: list) -> str:
    from jaxprlens.engine.cost import si
    count, nbytes = node.tally()
    if count == 1:
        path, a = node.first()
        return f'<li class="jl-leaf">{binder_html(a, consts)} <span class="jl-path">{html(path)}</span></li>'
    size = t("n_values", lang, n=count) + " · " + si(nbytes, "B")
    inner = _tree_items([("", _leaf(x)) for x in node.leaves] + [(_key_text(k), n) for k, n in node.kids.items()],
                        lang, consts, left)
    return (f'<li><details><summary><b>{html(label)}</b> <span class="jl-type">{html(size)}</span></summary>'
            f'<ul class="jl-tree"{TREE}>{inner}</ul></details></li>')


def _leaf(x) -> _Node:
    n = _Node()
    n.leaves.append(x)
    return n



def _head_rows(doc: Block, budget: int) -> int:
    """How many top-level rows fit in ``budget`` equations (nested ones count)."""
    n = 0
    for i, row in enumerate(doc.rows):
        n += sum(1 for _ in walk(row.eqn))
        if n > budget:
            return max(i, 1)
    return len(doc.rows)


# ------------------------------------------------------------------ folding by inlined calls (issue 12)
# Past FOLD_AT equations a program that calls functions is shown as a row per call (``calls.py``): its
# function, call site, equation count and crossing values.  A click opens it; the script builds the rows
# of a call from ``groups`` data the first time it opens.

FOLD_AT = 300


def fold_tree(p: Program, n: int):
    """The call tree to fold ``p``'s table by (``n`` equations in all), or None: a small program, or one
    with no calls to fold by."""
    if n <= FOLD_AT:
        return None
    from jaxprlens.model.calls import call_tree
    tree = call_tree(p)
    items = top_items(tree)
    return tree if len(items) >= 2 and any(not isinstance(c, Eqn) for c in items) else None


def top_group(tree):
    """The call a folded table starts in: the program, below any chain of single calls."""
    g = tree.root
    while len(g.children) == 1 and g.groups:
        g = g.groups[0]
    return g


def top_items(tree) -> list:
    """What the folded table starts with: the children of ``top_group`` (rows of their own, not stored again
    as a call's rows)."""
    return top_group(tree).children


def stored_calls(tree, budget: int | None = None) -> tuple[list, list]:
    """``(kept, cut)``: the calls whose rows a folded table stores, breadth first while ``budget``
    (``STORED_CALLS``) rows last (issue 21), and the calls past it (stored with no rows; the calls inside
    them not at all).  Counts only: what the output holds is known without building it."""
    kept, cut, left = [], [], STORED_CALLS if budget is None else budget
    queue = collections.deque(top_group(tree).groups)
    while queue:
        g = queue.popleft()
        n = len(g.children)          # rows: one per call and equation, and one per equation nested in one
        for c in g.children:
            if isinstance(c, Eqn) and c.subs:
                n += sum(_count_eqns(s.program) for s in c.subs)
        if n > left:
            cut.append(g)
            continue
        left -= n
        kept.append(g)
        queue.extend(g.groups)
    return kept, cut


def group_items(tree, lang: str, budget: int | None = None) -> tuple[dict, list]:
    """``({call id: [item, ...]}, cut)``: the rows of the calls ``stored_calls`` keeps, in order, each a call
    (``{group, label, count, site, cross, depth}``) or a data row; ``cut``: the calls past the budget (their
    row says so)."""
    kept, cut = stored_calls(tree, budget)
    out = {}
    for g in kept:
        rows = []
        for c in g.children:
            if not isinstance(c, Eqn):
                rows.append(_group_item(c, lang))
            elif not c.subs:
                rows.append(data_row(c, lang))
            else:                                       # an equation brings the ones nested in it
                rows.extend(data_row(e, lang) for e in walk(c))
        out[g.id] = source_once(rows)
    if cut:
        gone, word = {g.id for g in cut}, t("rows_not_stored", lang)
        for items in out.values():
            for it in items:
                if it.get("group") in gone:
                    it["label"] = f"{it['label']} {word}"
    return out, cut


def _group_item(g, lang: str) -> dict:
    """A call as the script draws its row (``static/table.js`` groupRow)."""
    return dict(zip(("group", "label", "count", "site", "cross", "depth"), group_data(g, lang)))
