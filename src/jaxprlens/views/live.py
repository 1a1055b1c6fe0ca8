"""Rows a table did not store, served by a live kernel (issue 21): scroll, search and open past the notebook.

A table of a large program stores its first rows (``table.STORED`` data rows, ``STORED_CALLS`` rows of calls);
that stored form is the output every page reads.  Displayed in a live kernel, the same output also carries an
anywidget view (``LiveTable``): JupyterLab draws the same HTML through it, and ``static/table.js`` asks the
kernel for what was not stored (the next rows as it scrolls, the equations a search finds past them, the rows
of a call it opens).  ``RowServer`` answers with data rows only, built lazily from the program by
``present/rows.py``, at most ``ROWS_PER_MESSAGE`` per message.  The save hook (``serverext.py``) drops the
widget view, so the saved notebook holds exactly the stored form.
"""
from __future__ import annotations

from jaxprlens.model.program import Eqn
from jaxprlens.present.front import assets, bundle, css
from jaxprlens.present.i18n import t
from jaxprlens.present.nouns import var_text
from jaxprlens.present.rows import data_row, group_data, source_once, walk
from jaxprlens.views import cells
from jaxprlens.views import table as tv

ROWS_PER_MESSAGE = 2000    # rows per answer (a data row ~130 B, a call's ~210 B: an answer stays under 1 MB)
HIT_GROUPS = 20_000        # a search's counts of matches per call not stored, at most
TEXT_CHARS = 200           # a search's query, and any name echoed in an error, is cut here
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_KEY = "jaxprlens"     # the output metadata the save hook reads (``serverext.py``)
ACTIONS = ("group", "rows", "search")
_cells: dict = {}          # cell id -> [(execution's message id, weakref to a LiveTable)]


class RowServer:
    """The rows of ``table`` past what its output stores, as data (``data_row`` / the call rows of
    ``views.table.group_items``), in the order the table shows them.  Made lazily: nothing is built before
    the front end asks."""

    def __init__(self, table):
        self.table, self.lang = table, table.lang
        self._layout = None
        self._texts: dict = {}      # id(equation) -> the text a search reads (as table.js itemText writes it)
        self._later = None          # those texts for the items past the head, in order
        self._labels: dict = {}     # call id -> its label
        self._flat: tuple = ("", [])   # the last call whose rows were asked for, flattened

    # ------------------------------------------------------------------ what the table stored
    def layout(self) -> tuple:
        """``(tree, later, stored, unstored)``: the call tree (None: not folded), the items past the table's
        HTML head (an equation, each nested one after it, or a call), how many of them the output stores,
        and the ids of the calls whose rows it does not store."""
        if self._layout is None:
            table = self.table
            p = table.program
            tree = tv.fold_tree(p, table.count(p))
            unstored: frozenset = frozenset()
            if tree is not None:
                items = tv.top_items(tree)
                later = [x for c in items[tv.HEAD:] for x in (walk(c) if isinstance(c, Eqn) else (c,))]
                top = tv.top_group(tree)        # it and the calls above it are the table's top level
                stored = {g.id for g in tv.stored_calls(tree)[0]} | {g.id for g in top.crumbs()}
                unstored = frozenset(g for g in tree.by_id if g and g not in stored)
            elif table.count(p) > tv.BIG:
                head = tv._head_rows(table.doc(), tv.HEAD)
                later = [e for top in p.eqns[head:] for e in walk(top)]
            else:
                later = []
            self._layout = (tree, later, min(len(later), tv.STORED), unstored)
        return self._layout

    def cut(self) -> int:
        """Items past those stored (top level, then calls not stored): 0 when the output holds them all."""
        _, later, stored, unstored = self.layout()
        return len(later) - stored + len(unstored)

    def notes(self) -> list:
        """What the live page's notes say instead of 'not stored', in the order the output has them."""
        tree, later, stored, unstored = self.layout()
        out = []
        if tree is not None:
            tops = [self.group(g) for g in unstored if self.group(g).parent.id not in unstored]
            if tops:
                out.append(t("calls_live", self.lang, n=sum(g.size for g in tops), k=len(tops), s=tv.STORED_CALLS))
        if len(later) > stored:
            out.append(t("items_live" if tree is not None else "rows_live", self.lang, n=len(later) - stored,
                         k=stored))
        return out

    def group(self, gid: str):
        tree = self.layout()[0]
        return tree.by_id.get(gid) if tree is not None else None

    # ------------------------------------------------------------------ answers
    def answer(self, msg) -> dict:
        """The answer to one message of the front end: ``{"do": "rows", "from": i}`` (the items past the
        head from ``i``), ``{"do": "group", "group": call, "from": i}`` (a call's rows), ``{"do": "search",
        "q": text, "from": i}`` (matches in the items from ``i`` and in the calls not stored).  A malformed
        message gets ``{"error": ...}``, short, saying what is expected."""
        if not isinstance(msg, dict):
            return {"error": "a message must be an object with 'do' (one of %s)" % list(ACTIONS)}
        do, start = msg.get("do"), msg.get("from", 0)
        if do not in ACTIONS:
            return {"error": f"unknown request {str(do)[:TEXT_CHARS]!r} (must be one of {list(ACTIONS)})"}
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            return {"error": f"'from' must be a row number >= 0, not {str(start)[:TEXT_CHARS]!r}"}
        if do == "rows":
            later = self.layout()[1]
            return {"rows": self._items(later, start), "from": start, "total": len(later)}
        if do == "group":
            gid = msg.get("group")
            g = self.group(gid) if isinstance(gid, str) and gid else None
            if g is None:
                return {"error": f"no call {str(gid)[:TEXT_CHARS]!r} in this table"}
            if self._flat[0] != g.id:       # a call's rows come in several answers: flattened once
                self._flat = (g.id, [x for c in g.children for x in (walk(c) if isinstance(c, Eqn) else (c,))])
            items = self._flat[1]
            return {"group": g.id, "rows": self._items(items, start), "from": start, "total": len(items)}
        q = msg.get("q")
        if not isinstance(q, str) or not q.strip():
            return {"error": "'q' must be the text to search for"}
        return self.search(q[:TEXT_CHARS], start)

    def _item(self, x) -> dict:
        if isinstance(x, Eqn):
            return data_row(x, self.lang)
        return tv._group_item(x, self.lang)

    def _items(self, seq: list, start: int) -> list:
        """``seq[start:start + ROWS_PER_MESSAGE]`` as rows, a source line written where it changes (the row
        before them read too, so a run continued from the last answer says so)."""
        before = 1 if start else 0
        rows = source_once([self._item(x) for x in seq[max(0, start - 1):start + ROWS_PER_MESSAGE]])
        return rows[before:]

    # ------------------------------------------------------------------ search (as table.js finds rows)
    def _text(self, e: Eqn) -> str:
        """What a search reads of an equation: table.js itemText of its data row (its primitive among it)."""
        text = self._texts.get(id(e))        # the program holds its equations: their ids stay theirs
        if text is None:
            r = data_row(e, self.lang)
            text = self._texts[id(e)] = " ".join(
                [r["id"], r["prim"], r["params"], r.get("src", "")] + [var_text(v) for v in e.outvars]
                + r["ins"]).lower()
        return text

    def _later_texts(self) -> list:
        """The search text of each item past the head (None for a call), made on the first search."""
        if self._later is None:
            self._later = [self._text(x) if isinstance(x, Eqn) else None for x in self.layout()[1]]
        return self._later

    def _label(self, g) -> str:
        label = self._labels.get(g.id)
        if label is None:
            label = self._labels[g.id] = group_data(g, self.lang)[1].lower()
        return label

    def search(self, q: str, start: int) -> dict:
        """``{"q", "from", "count", "rows", "groups"}``: how many equations among the items from ``start``
        match, the first ``ROWS_PER_MESSAGE`` of those items that match or hold a match (calls too: the page
        counts a call's matches as it opens it), and for each call not stored that holds matches, how many
        (a call whose label matches holds all its equations, as in table.js)."""
        q = q.strip().lower()
        tree, later, _, unstored = self.layout()
        inside: dict = {}

        def visit(g, inherited: bool) -> int:
            n = 0
            for c in g.children:
                if isinstance(c, Eqn):
                    n += sum(1 for e in walk(c) if inherited or q in self._text(e))
                else:
                    n += visit(c, inherited or q in self._label(c))
            inside[g.id] = n
            return n

        if tree is not None:
            for c in tv.top_items(tree):
                if not isinstance(c, Eqn):
                    visit(c, q in self._label(c))
        texts = self._later_texts()
        # an equation: its text holds q (its primitive is in it); a call: it holds matches
        hits = [i for i in range(start, len(later)) if (q in texts[i] if texts[i] is not None
                                                        else inside.get(later[i].id, 0))]
        count = sum(1 for i in hits if texts[i] is not None)
        groups = {g: n for g, n in inside.items() if n and g in unstored}
        if len(groups) > HIT_GROUPS:
            groups = dict(list(groups.items())[:HIT_GROUPS])
        return {"q": q, "from": start, "count": count,
                "rows": [self._item(later[i]) for i in hits[:ROWS_PER_MESSAGE]], "groups": groups}


# ---------------------------------------------------------------------- the widget
def _widget_class():
    import anywidget
    import traitlets

    class LiveTable(anywidget.AnyWidget):
        """A table's output in a live kernel: the same HTML, and the rows it did not store on demand."""

        _esm = bundle(frozenset({"table", "graph", "live"}))
        _css = css(frozenset({"table", "graph"}))
        jl_view = traitlets.Unicode("table").tag(sync=True)     # main.js's render draws a table, not a debugger
        html = traitlets.Unicode("").tag(sync=True)
        total = traitlets.Int(0).tag(sync=True)                 # items past the head, stored or not
        calls = traitlets.Int(0).tag(sync=True)                 # calls whose rows are not stored
        notes = traitlets.List().tag(sync=True)
        unstored = traitlets.Unicode("").tag(sync=True)         # the words a cut call's label ends in, dropped live

        def __init__(self, server: RowServer, html: str, cell: tuple | None = None):
            self.server = server
            _, later, _, unstored = server.layout()
            super().__init__(html=html, total=len(later), calls=len(unstored), notes=server.notes(),
                             unstored=t("rows_not_stored", server.lang))
            self.on_msg(self._on_msg)
            cells.replace_in_cell(_cells, cell, self)

        def _on_msg(self, _widget, content, _buffers):
            server = self.server
            try:
                reply = server.answer(content) if server is not None else {"error": "this table was closed"}
            except Exception as exc:  # noqa: BLE001 - the page gets a short note, the kernel no traceback
                reply = {"error": f"{type(exc).__name__}: {str(exc)[:TEXT_CHARS]}"}
            if isinstance(content, dict):       # which view asked, and which of its requests this answers
                for key in ("to", "id"):
                    v = content.get(key)
                    if isinstance(v, (str, int)) and not isinstance(v, bool) and len(str(v)) <= 64:
                        reply[key] = v
            self.send(reply)

        def close(self):
            """Close the widget and let go of the table it served (the output's HTML stays)."""
            super().close()
            self.server = None

    return LiveTable


_LiveTable = None


def widget_class():
    global _LiveTable
    if _LiveTable is None:
        _LiveTable = _widget_class()
    return _LiveTable


def _kernel() -> bool:
    """A kernel whose front end draws widgets runs this (JupyterLab, Notebook 7, VS Code, Colab): not plain
    Python, a terminal IPython, nor nbclient (``nbconvert --execute``, myst-nb), which would store the widget's
    state and make converters show a dead widget instead of the stored table."""
    return cells.draws_widgets() is True


def live_bundle(bundle: dict, parts: list):
    """``bundle`` (an output's ``text/plain`` + ``text/html``) as it is; in a live kernel, when a table
    among ``parts`` has rows its output does not store, ``(bundle + widget view, metadata)``: the widget
    draws the same HTML and serves those rows.  Anything wrong on the way: ``bundle`` as it is."""
    if not _kernel():
        return bundle
    cell = cells.cell_key()
    try:
        server = next((s for s in (RowServer(p) for p in parts if isinstance(p, tv.Table)) if s.cut()), None)
        if server is None:
            cells.replace_in_cell(_cells, cell)
            return bundle
        needs = frozenset(n for p in parts for n in getattr(p, "needs", ()))
        page = bundle["text/html"]
        loader = assets(needs) if needs else ""
        widget = widget_class()(server, page[:-len(loader)] if loader and page.endswith(loader) else page, cell)
        view = widget._repr_mimebundle_()
        view = (view[0] if isinstance(view, tuple) else view or {}).get(WIDGET_VIEW)
        if view is None:
            widget.close()
            return bundle
    except Exception:  # noqa: BLE001 - no comms here: the stored form alone, as outside a kernel
        return bundle
    return dict(bundle, **{WIDGET_VIEW: view}), {LIVE_KEY: {"live": True, "table": True}}


class ServedTable(tv.Table):
    """``program.table()``: the table, and in a live kernel the rows its output does not store, served on demand
    (``live_bundle``); the stored form is the table's own."""

    def _repr_mimebundle_(self, include=None, exclude=None):
        return live_bundle(super()._repr_mimebundle_(include, exclude), [self])
