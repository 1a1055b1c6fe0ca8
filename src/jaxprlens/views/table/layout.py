"""How a table lays out a program, computed once per table and read by its HTML, its text and the live kernel's
row server (``views/table/live.py``): which items are rows (an equation with the ones nested in it, or a call folded
into one row), how many of them the HTML shows, how many more the output stores, and which calls keep their
rows.  Counts only: nothing here writes a row.

Past ``BIG`` equations the HTML shows its first ``HEAD`` equations as rows and stores the next ``STORED`` as
row fragments the script inserts as they scroll into view (issue 21: bounded); past ``FOLD_AT`` a program that
calls functions is shown as a row per call (``model/calls.py``), the rows of ``STORED_CALLS`` of its calls
stored, opened on click (issue 12).
"""
from __future__ import annotations

import collections

from jaxprlens.model.program import Eqn, Program
from jaxprlens.model.program import count_eqns
from jaxprlens.present.rows import walk

CHUNK = 200        # rows per <tbody>: the browser lays out only the chunks on screen
HEAD = 400         # a program of more equations than BIG shows this many as HTML rows; later ones are stored
BIG = 1000         # equations past which rows are stored for the script (and the text view summarises)
STORED = 10_000    # ... at most this many of them (issue 21: a 100k-equation table <= 3 MB)
STORED_CALLS = 5_000   # rows of calls stored by a table folded by calls
FOLD_AT = 300


def size(item) -> int:
    """The rows an item brings: an equation and the ones nested in it, or a call's one row."""
    if not isinstance(item, Eqn):
        return 1
    return sum(1 for _ in walk(item)) if item.subs else 1


class Layout:
    """``items`` (the table's top level: equations, and calls when folded), ``head`` (how many of them the
    HTML shows), ``stored`` (how many after those the output stores), ``tree`` (the call tree, or None), its
    calls ``kept`` (their rows stored) and ``cut`` (stored as a row with no rows), and ``unstored`` (the ids of
    every call whose rows the output does not hold: the cut ones and the calls inside them)."""

    def __init__(self, program: Program, count: int):
        self.program, self.count = program, count
        self.tree = fold_tree(program, count)
        self.kept: list = []
        self.cut: list = []
        self.unstored: frozenset = frozenset()
        self.cut_ids: frozenset = frozenset()
        if self.tree is not None:
            self.items = top_items(self.tree)
            self.head = min(HEAD, len(self.items))
            self.kept, self.cut = stored_calls(self.tree)
            self.cut_ids = frozenset(g.id for g in self.cut)
            top = top_group(self.tree)        # it and the calls above it are the table's top level
            stored = {g.id for g in self.kept} | {g.id for g in top.crumbs()}
            self.unstored = frozenset(g for g in self.tree.by_id if g and g not in stored)
        else:
            self.items = program.eqns
            self.head = head_rows(program.eqns, HEAD) if count > BIG else len(program.eqns)
        self.later = self.items[self.head:]
        self.stored, n = 0, 0
        for item in self.later:              # whole items while STORED rows last
            n += size(item)
            if n > STORED:
                break
            self.stored += 1
        self.rest = sum(size(c) for c in self.later)                  # rows past the HTML's head
        self.lost = sum(size(c) for c in self.later[self.stored:])    # ... the output does not store

    @property
    def folded(self) -> bool:
        return self.tree is not None

    def group(self, gid):
        """The call of id ``gid``, or None."""
        return self.tree.by_id.get(gid) if self.tree is not None and isinstance(gid, str) and gid else None


def head_rows(eqns: list, budget: int) -> int:
    """How many top-level equations fit in ``budget`` rows (nested ones count), at least one."""
    n = 0
    for i, e in enumerate(eqns):
        n += size(e)
        if n > budget:
            return max(i, 1)
    return len(eqns)


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
    them not at all)."""
    kept, cut, left = [], [], STORED_CALLS if budget is None else budget
    queue = collections.deque(top_group(tree).groups)
    while queue:
        g = queue.popleft()
        n = len(g.children)          # rows: one per call and equation, and one per equation nested in one
        for c in g.children:
            if isinstance(c, Eqn) and c.subs:
                n += sum(count_eqns(s.program) for s in c.subs)
        if n > left:
            cut.append(g)
            continue
        left -= n
        kept.append(g)
        queue.extend(g.groups)
    return kept, cut
