"""Rows a table did not store, served by a live kernel (issue 21): scroll, search and open past the notebook.

A table of a large program stores its first rows (``layout.STORED`` rows, ``STORED_CALLS`` rows of calls);
that stored form is the output every page reads.  Displayed in a live kernel, the same output also carries an
anywidget view (``LiveTable``): JupyterLab draws the same HTML through it, and ``static/table.js`` asks the
kernel for what was not stored (the next rows as it scrolls, the equations a search finds past them, the rows
of a call it opens).  ``RowServer`` answers with rows as the table's HTML writes them (``Table.item_html``),
built lazily, at most ``ROWS_PER_MESSAGE`` per message.  The save hook (``serverext.py``) drops the
widget view, so the saved notebook holds exactly the stored form.
"""
from __future__ import annotations

import functools

from jaxprlens.model.errors import told
from jaxprlens.model.program import Eqn
from jaxprlens.present.front import LIVE_KEY, LIVE_TABLE_META, WIDGET_VIEW, bundle, css
from jaxprlens.present.i18n import t
from jaxprlens.present.rows import group_data, walk
from jaxprlens.views import cells
from jaxprlens.views.table import table as tv
from jaxprlens.views.table import layout as lay

ROWS_PER_MESSAGE = 1000    # rows per answer (a row ~400 B of HTML: an answer stays under 1 MB)
HIT_GROUPS = 20_000        # a search's counts of matches per call not stored, at most
TEXT_CHARS = 200           # a search's query, and any name echoed in an error, is cut here
ACTIONS = ("group", "rows", "search")
_cells: dict = {}          # cell id -> [(execution's message id, weakref to a LiveTable)]


class RowServer:
    """The rows of ``table`` past what its output stores, as the HTML writes them (``Table.item_html``: one
    fragment per item, an equation with its sub-jaxprs' tables or a call), in the order the table shows
    them, read from the table's own ``layout``.  Made lazily: nothing is built before the front end asks."""

    def __init__(self, table):
        self.table, self.lang, self.layout = table, table.lang, table.layout
        self._texts: dict = {}      # id(equation) -> the text a search reads (``Rows.search_text``)
        self._records: dict = {}    # call id -> the records of its rows
        self._labels: dict = {}     # call id -> its label, lower case
        self._later: list | None = None   # the search texts of the records past the head (``_later_texts``)

    # ------------------------------------------------------------------ what the table stored
    def cut(self) -> int:
        """Rows past those stored (top level, then calls not stored): 0 when the output holds them all."""
        return self.layout.lost + len(self.layout.unstored)

    def notes(self) -> list:
        """What the live page's notes say instead of 'not stored', in the order the output has them."""
        layout, out = self.layout, []
        if layout.folded and layout.cut:
            out.append(t("calls_live", self.lang, n=sum(g.size for g in layout.cut), k=len(layout.cut),
                         s=lay.STORED_CALLS))
        if layout.lost:
            out.append(t("items_live" if layout.folded else "rows_live", self.lang, n=layout.lost,
                         k=layout.rest - layout.lost))
        return out

    def group(self, gid):
        return self.layout.group(gid)

    def records(self, g) -> list:
        """The records of a call's rows (made once per call asked for)."""
        recs = self._records.get(g.id)
        if recs is None:
            recs = self._records[g.id] = self.table.records_of(g.children)
        return recs

    # ------------------------------------------------------------------ answers
    def answer(self, msg) -> dict:
        """The answer to one message of the front end: ``{"do": "rows", "from": i}`` (the items past the
        head from ``i``), ``{"do": "group", "group": call, "from": i}`` (a call's rows), ``{"do": "search",
        "q": text, "from": i}`` (matches in the items from ``i`` and in the calls not stored).  A malformed
        message gets ``{"error": ...}``, short, saying what is expected."""
        if not isinstance(msg, dict):
            return self._error("live_not_object", actions=list(ACTIONS))
        do, start = msg.get("do"), msg.get("from", 0)
        if do not in ACTIONS:
            return self._error("live_unknown_do", do=repr(str(do)[:TEXT_CHARS]), actions=list(ACTIONS))
        if isinstance(start, bool) or not isinstance(start, int) or start < 0:
            return self._error("live_bad_from", start=repr(str(start)[:TEXT_CHARS]))
        if do == "rows":
            recs = self.table.records()[self.layout.head:]
            return {"rows": self._html(recs, start), "from": start, "total": len(recs)}
        if do == "group":
            g = self.group(msg.get("group"))
            if g is None:
                return self._error("live_no_call", group=repr(str(msg.get("group"))[:TEXT_CHARS]))
            recs = self.records(g)
            return {"group": g.id, "rows": self._html(recs, start), "from": start, "total": len(recs)}
        q = msg.get("q")
        if not isinstance(q, str) or not q.strip():
            return self._error("live_no_query")
        return self.search(q[:TEXT_CHARS], start)

    def _error(self, key: str, **fields) -> dict:
        """``{"error": ...}`` in the table's language: what was wrong with a message, and what is expected."""
        return {"error": t(key, self.lang, **fields)}

    def _html(self, recs: list, start: int) -> list:
        """``recs[start:]`` as fragments, ``ROWS_PER_MESSAGE`` rows at most (one item at least)."""
        out, n = [], 0
        for rec in recs[start:]:
            n += 1 if tv.is_call(rec) else sum(1 for _ in walk(rec.eqn))
            if out and n > ROWS_PER_MESSAGE:
                break
            out.append(self.table.item_html(rec))
        return out

    # ------------------------------------------------------------------ search (as table.js finds rows)
    def texts(self, rec) -> list:
        """What a search reads of each row of a record (an equation's, then those nested in it, in order)."""
        out = []

        def visit(row):
            text = self._texts.get(id(row.eqn))   # the program holds its equations: their ids stay theirs
            if text is None:
                text = self._texts[id(row.eqn)] = self.table.rows.search_text(row)
            out.append(text)
            for sub in row.subs:
                for r in sub.rows:
                    visit(r)
        visit(rec)
        return out

    def _later_texts(self) -> list:
        """For each record past the head: its row's search text (a list of them with rows nested in it), None for
        a call; made on the first search."""
        if self._later is None:
            self._later = [None if tv.is_call(r) else (self.texts(r) if r.subs else self.texts(r)[0])
                           for r in self.table.records()[self.layout.head:]]
        return self._later

    def _label(self, g) -> str:
        label = self._labels.get(g.id)
        if label is None:
            label = self._labels[g.id] = group_data(g, self.lang)[1].lower()
        return label

    def search(self, q: str, start: int) -> dict:
        """``{"q", "from", "count", "shown", "rows", "groups"}``: how many equations among the items from
        ``start`` match, the first items that match or hold a match (calls too: the page counts a call's
        matches as it opens it) as fragments, how many equations among those match, and for each call not
        stored that holds matches, how many (a call whose label matches holds all its equations)."""
        q = q.strip().lower()
        layout = self.layout
        inside: dict = {}

        def visit(g, inherited: bool) -> int:
            n = 0
            for rec in self.records(g):
                if tv.is_call(rec):
                    n += visit(rec, inherited or q in self._label(rec))
                else:
                    n += sum(1 for x in self.texts(rec) if inherited or q in x)
            inside[g.id] = n
            return n

        if layout.folded:
            for c in layout.items:
                if not isinstance(c, Eqn):
                    visit(c, q in self._label(c))
        recs, texts = self.table.records()[layout.head:], self._later_texts()
        hits = []          # (record, its matching equations or None for a call)
        for i in range(start, len(recs)):
            x = texts[i]
            if x is None:
                if inside.get(recs[i].id, 0):
                    hits.append((recs[i], None))
            else:
                n = (q in x) if type(x) is str else sum(1 for y in x if q in y)
                if n:
                    hits.append((recs[i], int(n)))
        groups = {g: n for g, n in inside.items() if n and g in layout.unstored}
        if len(groups) > HIT_GROUPS:
            groups = dict(list(groups.items())[:HIT_GROUPS])
        sent, rows, shown = 0, [], 0
        for rec, n in hits:
            sent += 1 if n is None else sum(1 for _ in walk(rec.eqn))
            if rows and sent > ROWS_PER_MESSAGE:
                break
            rows.append(self.table.item_html(rec, fresh=True))
            shown += n or 0
        return {"q": q, "from": start, "count": sum(n or 0 for _, n in hits), "shown": shown, "rows": rows,
                "groups": groups}


# ---------------------------------------------------------------------- the widget
def _widget_class():
    import anywidget
    import traitlets
    from anywidget.experimental import command

    class LiveTable(anywidget.AnyWidget):
        """A table's output in a live kernel: the same HTML, and the rows it did not store on demand."""

        _esm = bundle(frozenset({"table", "graph", "live"}))
        _css = css(frozenset({"table", "graph"}))
        html = traitlets.Unicode("").tag(sync=True)
        total = traitlets.Int(0).tag(sync=True)                 # items past the head, stored or not
        calls = traitlets.Int(0).tag(sync=True)                 # calls whose rows are not stored
        notes = traitlets.List().tag(sync=True)

        def __init__(self, server: RowServer, html: str, cell: tuple | None = None):
            self.server, self.lang = server, server.lang     # the table's language, kept once it is closed
            layout = server.layout
            super().__init__(html=html, total=len(layout.later), calls=len(layout.unstored), notes=server.notes())
            cells.replace_in_cell(_cells, cell, self)

        @command
        def ask(self, msg, _buffers) -> tuple[dict, list]:
            """anywidget's command ``ask`` (``static/rpc.js``): the rows the page asks for, as the reply."""
            server = self.server
            try:
                reply = server.answer(msg) if server is not None else {"error": t("live_closed", self.lang)}
            except Exception as exc:  # noqa: BLE001 - the page gets a short note, the kernel no traceback
                reply = {"error": told(exc, self.lang)[:TEXT_CHARS]}
            return reply, []

        def close(self):
            """Close the widget and let go of the table it served (the output's HTML stays)."""
            super().close()
            cells.close_layout(self)
            self.server = None

    return LiveTable


_LiveTable = None


def widget_class():
    global _LiveTable
    if _LiveTable is None:
        _LiveTable = _widget_class()
    return _LiveTable


@functools.cache
def shown_class():
    """An output's HTML drawn by the front end's own script as a widget: for marimo, which runs no script of an
    HTML output but draws anywidgets (``static/main.js`` ``show``: the same boot as the loader's)."""
    import anywidget
    import traitlets

    class Shown(anywidget.AnyWidget):
        _esm = bundle(frozenset({"table", "graph"}))
        _css = css(frozenset({"table", "graph"}))
        html = traitlets.Unicode("").tag(sync=True)

    return Shown


def _widget_view(widget) -> dict | None:
    view = widget._repr_mimebundle_()
    return (view[0] if isinstance(view, tuple) else view or {}).get(WIDGET_VIEW)


def _kernel() -> bool:
    """A kernel whose front end draws widgets runs this (JupyterLab, Notebook 7, VS Code, Colab): not plain
    Python, a terminal IPython, nor nbclient (``nbconvert --execute``, myst-nb), which would store the widget's
    state and make converters show a dead widget instead of the stored table."""
    return cells.draws_widgets() is True or cells.in_marimo()


def live_bundle(bundle: dict, parts: list, body: str | None = None):
    """``bundle`` (an output's ``text/plain`` + ``text/html``) as it is; in a live kernel, when a table
    among ``parts`` has rows its output does not store, ``(bundle + widget view, metadata)``: the widget
    draws the same HTML and serves those rows; in marimo, which runs no script of an HTML output, every such
    output is that widget (``shown_class``).  Anything wrong on the way: ``bundle`` as it is."""
    if not _kernel():
        return bundle
    cell = cells.cell_key()
    try:
        server = next((s for s in (RowServer(p) for p in parts if isinstance(p, tv.Table)) if s.cut()), None)
        if server is None:
            cells.replace_in_cell(_cells, cell)
            if not cells.in_marimo():
                return bundle
        body = parts[0].body() if body is None else body
        # marimo: the same HTML, its script run as a widget's; elsewhere a table that serves its rows
        widget = shown_class()(html=body) if server is None else widget_class()(server, body, cell)
        view = _widget_view(widget)
        if view is None:
            widget.close()
            return bundle
    except Exception:  # noqa: BLE001 - no comms here: the stored form alone, as outside a kernel
        return bundle
    return dict(bundle, **{WIDGET_VIEW: view}), {LIVE_KEY: dict(LIVE_TABLE_META)}


class ServedTable(tv.Table):
    """``program.table()``: the table, and in a live kernel the rows its output does not store, served on demand
    (``live_bundle``); the stored form is the table's own."""

    def _repr_mimebundle_(self, include=None, exclude=None):
        return live_bundle(super()._repr_mimebundle_(include, exclude), [self])


def part(cell) -> ServedTable:
    """``--table``, the default: the annotated table (``--cost``: with its cost column)."""
    return ServedTable(cell.program, lang=cell.opts.lang, cost=cell.opts.cost)
