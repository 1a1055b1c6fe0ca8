"""Folding a big program that has no Python calls to fold by (one long function, an unrolled loop): its
repeated structure (identical blocks, drawn once with ``×N``) and ranges of equations become groups of the
same shape as ``model.calls``'s, so the overview (``overview.py``) draws them and a click opens one.

Two equations are alike when they have the same primitive, source line, result types, operand count and
sub-jaxpr keys.  A block repeats when the run of those kinds that starts at an equation comes again right
after it (compared by rolling hash, so an unrolled loop of 100k equations folds in well under a second).
"""
from __future__ import annotations

import gc
import math

from jaxprlens.model.calls import CallTree, Group, call_tree
from jaxprlens.model.program import Eqn, Program
from jaxprlens.present.i18n import t, where_text

SPAN = 40          # a level holds at most this many items (groups and equations); more are cut into ranges
WAYS = 8           # ... of about equal size, this many a level: each click goes one level down
TRIES = 32         # periods tried at one position: the next occurrences of its equation's kind
MIN_COVER = 4      # a repeat folds at least this many equations
_MOD = (1 << 61) - 1
_BASE = 1_000_003


def kinds(eqns: list) -> list[int]:
    """A small int per equation, equal for equations that are alike (see the module's docstring)."""
    ids: dict = {}
    out = []
    for e in eqns:
        src = e.source
        key = (e.primitive, (src.where, src.cell, src.line) if src else None, tuple(v.type for v in e.outvars),
               len(e.invars), tuple(s.key for s in e.subs))
        out.append(ids.setdefault(key, len(ids)))
    return out


def repeats(keys: list) -> list[tuple]:
    """``[(start, period, count), ...]``: runs where ``keys[start:start + period]`` comes ``count`` times in a
    row, left to right, not overlapping.  At each position the periods tried are the distances to the next
    equations of the same kind; the one covering the most equations wins (the shortest on a tie)."""
    n = len(keys)
    h, pw = [0] * (n + 1), [1] * (n + 1)
    for i, k in enumerate(keys):
        h[i + 1] = (h[i] * _BASE + k + 1) % _MOD
        pw[i + 1] = pw[i] * _BASE % _MOD
    nxt, last = [-1] * n, {}
    for i in range(n - 1, -1, -1):
        nxt[i] = last.get(keys[i], -1)
        last[keys[i]] = i
    out, i = [], 0
    while i < n:
        best, j, tries = None, nxt[i], 0
        while j >= 0 and tries < TRIES:
            p = j - i
            if i + 2 * p > n:
                break
            tries += 1
            if best is not None and p % best[0] == 0 and 2 * p <= best[0] * best[1]:   # inside the run found
                j = nxt[j]
                continue
            hp = (h[j] - h[i] * pw[p]) % _MOD
            if (h[j + p] - h[j] * pw[p]) % _MOD == hp:
                c = 2
                while i + (c + 1) * p <= n and (h[i + (c + 1) * p] - h[i + c * p] * pw[p]) % _MOD == hp:
                    c += 1
                if best is None or p * c > best[0] * best[1]:
                    best = (p, c)
                if i + (best[1] + 1) * best[0] > n:         # it runs to the end: nothing can cover more
                    break
            j = nxt[j]
        if best is not None and best[0] * best[1] >= MIN_COVER:
            out.append((i, best[0], best[1]))
            i += best[0] * best[1]
        else:
            i += 1
    return out


class FoldTree(CallTree):
    """A call tree made of folds: ``rep12`` (a block of equations repeated, from equation 12), its ``copy1``
    and ``copies2-50``, and ``eqns0-999`` (a range).  The call overview draws it as it draws calls."""

    note = "fold_note"       # the overview's caption

    def __init__(self, program: Program, lang: str = "en"):      # not super().__init__: it builds a call tree
        self.program, self.lang, self.phases = program, lang, {""}
        self._shapes: dict = {}          # kinds of a block -> its repeats: every copy of a block folds alike
        self._crossing: dict = {}        # id(group) -> (inputs, outputs); the groups live as long as the tree
        name = program.title or getattr(program.fn, "__name__", None) or "program"
        self.root = Group(name, "", None, tree=self)
        eqns = list(program.eqns)
        was = gc.isenabled()
        gc.disable()          # tens of thousands of acyclic groups: no full collections of a big heap meanwhile
        try:
            self._fill(self.root, eqns, kinds(eqns))
        finally:
            if was:
                gc.enable()
        self._number(self.root)
        self.every = self.root.walk()
        self.by_id = {g.id: g for g in self.every}
        self._index = {id(e): i for i, e in enumerate(program.eqns)}

    def crossing(self, g: Group) -> tuple:
        """As a call tree's, made once per group (a group's inputs and outputs each ask for it)."""
        got = self._crossing.get(id(g))
        if got is None:
            got = self._crossing[id(g)] = super().crossing(g)
        return got

    def _group(self, name: str, seg: str, children: list) -> Group:
        g = Group(name, "", None, tree=self, key=(seg,))
        g.name = name
        g.adopt(children)
        return g

    def _fill(self, g: Group, eqns: list, keys: list):
        """``g``'s children: the repeats found in ``eqns``, the equations between them, cut into ranges."""
        shape = tuple(keys)
        found = self._shapes.get(shape)
        if found is None:
            found = self._shapes[shape] = repeats(keys)
        items, pos = [], 0
        for start, p, c in found:
            items.extend(eqns[pos:start])
            items.append(self._repeat(eqns[start:start + p * c], keys[start:start + p], p, c))
            pos = start + p * c
        items.extend(eqns[pos:])
        g.adopt(self._level(items))

    def _repeat(self, eqns: list, keys: list, p: int, c: int) -> Group:
        """A block of ``p`` equations ``c`` times: its first copy, then the others (opened on click)."""
        src = eqns[0].source
        name = f"{t('n_eqns', self.lang, n=p)} ×{c}"
        if src is not None:
            name = t("labelled", self.lang, label=name, text=where_text(src, self.lang))
        rep = self._group(name, f"rep{eqns[0].index}", [])
        if p == 1:
            rep.adopt(self._level(eqns))
            return rep
        copies = []
        for k in range(c):
            copy = self._group(t("fold_copy", self.lang, i=k + 1, n=c), f"copy{k + 1}", [])
            self._fill(copy, eqns[k * p:(k + 1) * p], keys)
            copies.append(copy)
        rest = copies[1:]
        if len(rest) > 1:
            rest = [self._group(t("fold_copies", self.lang, first=2, last=c), f"copies2-{c}",
                                self._level(rest, WAYS))]
        for other in rest:
            other.shut = True        # the overview leaves them folded: the block is drawn once, a click shows more
        rep.adopt([copies[0]] + rest)
        return rep

    def _level(self, items: list, span: int = SPAN) -> list:
        """``items`` as they are when at most ``span``, else cut into ``WAYS`` ranges, each cut again (the
        copies of a block at most ``WAYS`` a level: they are alike, a reader opens one or two)."""
        if len(items) <= span:
            return items
        size = math.ceil(len(items) / WAYS)
        out = []
        for r in range(0, len(items), size):
            part = items[r:r + size]
            if len(part) == 1:
                out.extend(part)
                continue
            if all(isinstance(x, Group) and x.key[0].startswith("copy") for x in part):
                first, last = part[0].key[0][4:], part[-1].key[0][4:]
                name, seg = t("fold_copies", self.lang, first=first, last=last), f"copies{first}-{last}"
            else:
                first, last = _first(part[0]).index, _last(part[-1]).index
                name, seg = t("run_range", self.lang, first=first, last=last), f"eqns{first}-{last}"
            out.append(self._group(name, seg, self._level(part, span)))
        return out

    def _number(self, g: Group):
        for c in g.groups:
            c.id = f"{g.id}/{c.key[0]}" if g.id else c.key[0]
            self._number(c)


def _first(x) -> Eqn:
    while isinstance(x, Group):
        x = x.children[0]
    return x


def _last(x) -> Eqn:
    while isinstance(x, Group):
        x = x.children[-1]
    return x


def foldable(tree: CallTree) -> bool:
    """Whether a call tree has calls to fold by: below any chain of single calls, a level with a call."""
    g = tree.root
    while len(g.children) == 1 and g.groups:
        g = g.groups[0]
    return any(isinstance(c, Group) for c in g.children)


def tree_of(program: Program, lang: str = "en") -> CallTree:
    """What a big ``program`` is drawn by: its call tree when it has calls to fold by, else its folds (decided
    and made once per program and language: the page draws a dozen folds of one program)."""
    per = program.memo.setdefault("fold.tree_of", {})
    tree = per.get(lang)
    if tree is None:
        calls = call_tree(program)
        tree = per[lang] = calls if foldable(calls) else FoldTree(program, lang)
    return tree
