"""The debugger's frame folded by the program's Python calls: the call tree the table folds by (``model.calls``,
``views.table.layout.fold_tree``: the same groups, labels and counts), the call holding the current equation open and
every other one a row of its own.

A frame is a body of pieces (``body_html``): per call a box (``jl-fgroup``: its row, ``group_html``, then its
own body, drawn when it first opens) and per run of the equations it makes itself placeholders of at most
``CHUNK_ROWS`` rows (``jl-fchunk``, within one chunk of the frame: the rows come per chunk, as the reader
scrolls to them).  A move into another call only opens and closes the calls on the two paths
(``views/debugger/dbgview.js``); an unfolded frame is one run.  The snapshot shown where no script runs is one table of
the rows around the current one (``static_html``), readable as text.
"""
from __future__ import annotations

from dataclasses import replace

from jaxprlens.model.calls import Group
from jaxprlens.model.program import Program, count_eqns
from jaxprlens.present.escape import html
from jaxprlens.present.nouns import block
from jaxprlens.present.rows import Rows, group_data, group_html
from jaxprlens.views.table.layout import fold_tree, top_group

CHUNK_ROWS = 200    # the script draws a frame in boxes of at most this many rows, each asked for when scrolled to
MAX_CALLS = 100     # a body making more calls than this shows its rows instead (a chain of 10k one-line calls)


def window_rows(program: Program, lang: str, lo: int, hi: int) -> list:
    """``block(program, lang).rows[lo:hi]`` without building the other rows (a snapshot of a 100k-equation
    frame shows 100 of them): the same source runs and first-row explanations as the whole block."""
    eqns = program.eqns
    if lo <= 0 and hi >= len(eqns):
        return block(program, lang).rows
    seen = {e.primitive for e in eqns[:lo]}
    rows = block(replace(program, eqns=eqns[lo:hi]), lang, seen).rows
    if rows and lo > 0 and rows[0].source is not None:
        rows[0].same_source = _line(eqns[lo - 1].source) == _line(rows[0].source)
    return rows


def _line(src):
    return None if src is None else (src.where, src.cell, src.line, src.text)


def frame_fold(program: Program, lang: str) -> FrameFold:
    """The fold of ``program``'s frame in ``lang``, made once per program (kept in its ``memo``)."""
    key = ("dbgfold", lang)
    fold = program.memo.get(key)
    if fold is None:
        fold = program.memo[key] = FrameFold(program, lang)
    return fold


class FrameFold:
    """One frame's calls (none: an unfolded frame, past ``FOLD_AT`` equations or with no call to fold by)."""

    def __init__(self, program: Program, lang: str):
        self.program, self.lang = program, lang
        self.tree = fold_tree(program, count_eqns(program))
        self.top = top_group(self.tree) if self.tree is not None else None
        if self.top is not None and self.flat(self.top):      # too many calls to draw a row each: unfolded
            self.tree = self.top = None
        self._index = {id(e): i for i, e in enumerate(program.eqns)} if self.tree is not None else {}
        self.cols = Rows(lang).colgroup_html()

    # ------------------------------------------------------------ where the current equation is
    def path(self, pc: int) -> list:
        """The calls holding equation ``pc``, outermost first, below the call the frame starts in (``[]``:
        unfolded, past the end, or an equation of that call itself)."""
        if self.tree is None or pc >= len(self.program.eqns):
            return []
        chain = self.tree.group_of(self.program.eqns[pc]).crumbs()
        return chain[chain.index(self.top) + 1:] if self.top in chain else []

    @staticmethod
    def flat(g: Group) -> bool:
        """Whether call ``g``'s body shows its rows instead of a row per call (``MAX_CALLS``)."""
        return len(g.groups) > MAX_CALLS

    def open_path(self, pc: int) -> list:
        """``path(pc)`` down to the first call whose body shows its rows (``flat``): the calls the frame opens."""
        path = self.path(pc)
        cut = next((i for i, g in enumerate(path) if self.flat(g)), len(path) - 1)
        return path[:cut + 1]

    def labels(self, pc: int) -> list:
        """The calls holding equation ``pc`` as the table labels them: ``['train_step (forward)', 'loss_fn',
        'blocks[1] · Block']``."""
        return [group_data(g, self.lang)[1] for g in self.path(pc)]

    def call(self, pc: int) -> str | None:
        """The id of the innermost call holding equation ``pc`` that the frame opens, or None."""
        path = self.open_path(pc)
        return path[-1].id if path else None

    # ------------------------------------------------------------ the frame as pieces
    def pieces(self, g: Group | None = None, upto: int | None = None) -> list:
        """The body of call ``g`` (the frame's own: ``g`` None) as data: per call it makes, the call (a
        ``Group``), per run of the equations it makes itself, ``(lo, hi)`` (rows ``[lo, hi)``); nothing at or
        past row ``upto`` (a replay's frame holds the rows it reached).  ``body_html`` draws them,
        ``chunks_shown`` counts the rows they show."""
        n = len(self.program.eqns) if upto is None else min(upto, len(self.program.eqns))
        if self.tree is None:
            return [(0, n)] if n else []
        if g is not None and self.flat(g):
            lo, hi = self.tree.span(g)
            return [(lo, min(hi + 1, n))] if min(hi + 1, n) > lo else []
        out: list = []
        run = None
        for c in (self.top if g is None else g).children:
            if isinstance(c, Group):
                if run is not None:
                    out.append(run)
                run = None
                if self.tree.span(c)[0] < n:
                    out.append(c)
                continue
            i = self._index[id(c)]
            if i >= n:
                continue
            if run is not None and run[1] == i:
                run = (run[0], i + 1)
            else:
                if run is not None:
                    out.append(run)
                run = (i, i + 1)
        if run is not None:
            out.append(run)
        return out

    def body_html(self, g: Group | None = None, upto: int | None = None) -> str:
        """``pieces(g, upto)`` as HTML: a box per call, its row drawn and its body empty (``group_box``);
        placeholders for the rows of each run (``_runs``)."""
        return "".join(self.group_box(p) if isinstance(p, Group) else self._runs([p]) for p in self.pieces(g, upto))

    def group_box(self, g: Group) -> str:
        """A call as the frame shows it folded: its row (the table's, ``group_html``) and an empty body."""
        return (f'<div class="jl-fgroup" data-group="{html(g.id)}"><table class="jl-eqns jl-ghead">{self.cols}'
                f'<tbody>{group_html(g, self.lang)}</tbody></table><div class="jl-fbody"></div></div>')

    @staticmethod
    def _runs(runs: list) -> str:
        """Placeholders for rows ``[lo, hi)``, cut where a chunk of the frame ends."""
        out = []
        for lo, hi in runs:
            i = lo
            while i < hi:
                j = min(hi, (i // CHUNK_ROWS + 1) * CHUNK_ROWS)
                out.append(f'<div class="jl-fchunk" data-from="{i}" data-count="{j - i}"></div>')
                i = j
        return "".join(out)

    def chunks_shown(self, groups, upto: int | None = None) -> set:
        """The chunks (row // ``CHUNK_ROWS``) whose rows the bodies of ``groups`` (None: the frame's own) show."""
        return {k for g in groups for p in self.pieces(g, upto) if not isinstance(p, Group)
                for k in range(p[0] // CHUNK_ROWS, (p[1] - 1) // CHUNK_ROWS + 1)}

    def folded(self) -> bool:
        """Whether the frame's body is folded by calls (it holds a call's box, ``group_box``)."""
        return any(isinstance(p, Group) for p in self.pieces(None))

    def bodies(self, groups, upto: int | None = None) -> list:
        """``[[call id, body HTML], ...]`` of ``groups``, outer calls first (the script draws a body into its box)."""
        return [[g.id, self.body_html(g, upto)] for g in groups]

    def find(self, gid: str) -> Group | None:
        """The call ``gid`` of this frame, or None (not a call of it: a stale or a made-up id)."""
        return None if self.tree is None else self.tree.by_id.get(str(gid)) if str(gid) else None

    # ------------------------------------------------------------ the snapshot shown without a script
    def static_html(self, pc: int, rows_html, limit: int) -> tuple[str, int]:
        """``(rows, how many rows the frame has in all)``: the frame's rows around equation ``pc`` as one table
        body, the calls holding it open (``▾``), the others folded (``▸``), ``limit`` rows at most;
        ``rows_html(lo, hi)`` gives the equation rows ``[lo, hi)`` as HTML, one per row."""
        items: list = []             # ("g", group, open) or ("e", index)
        opened = set(map(id, self.open_path(pc)))

        def level(g):
            if g is not self.top and self.flat(g):
                lo, hi = self.tree.span(g)
                items.extend(("e", i) for i in range(lo, hi + 1))
                return
            for c in g.children:
                if isinstance(c, Group):
                    items.append(("g", c, id(c) in opened))
                    if id(c) in opened:
                        level(c)
                else:
                    items.append(("e", self._index[id(c)]))
        level(self.top)
        at = next((k for k, it in enumerate(items) if it[0] == "e" and it[1] >= pc), len(items) - 1)
        lo = max(0, min(at - limit // 4, len(items) - limit))
        shown = items[lo:lo + limit]
        eqn_rows: dict = {}
        run: list = []
        for i in [it[1] for it in shown if it[0] == "e"] + [None]:     # equation rows built per run of
            if run and (i is None or i != run[-1] + 1):                 # consecutive ones
                eqn_rows.update(zip(run, rows_html(run[0], run[-1] + 1)))
                run = []
            if i is not None:
                run.append(i)
        out = []
        for it in shown:
            if it[0] == "e":
                out.append(eqn_rows[it[1]])
            else:
                out.append(group_html(it[1], self.lang, opened=it[2]))
        return "".join(out), len(items)
