"""The graph of a big program drawn at the level of its inlined calls (``calls.py``): a node per folded
call, a box per opened one, edges for the values that cross, as few nodes as a reader can take in.

``graph.Graph`` draws a program flat while it has at most ``max_nodes`` equations; past that, and for a
group asked for with ``path=``, it draws this.  Which calls are opened is decided a level at a time, so
the six blocks of a model are all open or all folded, never some of each.
"""
from __future__ import annotations

import math
from collections import Counter

import graphviz

from jaxprlens.model.calls import CallTree, Group
from jaxprlens.present.escape import dot
from jaxprlens.views.graph.draw import (COST_STROKE, DEPTH, MAX_NODES, RUNS, _Draw, _digraph, _lines, caption,
                                        cost_fill, percent)
from jaxprlens.present.i18n import t, where_text
from jaxprlens.model.program import Eqn, Program, Var, count_eqns
from jaxprlens.present.nouns import site_text, var_text, vars_text
from jaxprlens.views.graph.render import MID, STYLES
from jaxprlens.present.words import group_label, group_summary

GROUPED = 10          # more program inputs (outputs) than this are drawn one node per argument (result)
NAMES = 2             # names on a folded edge before "+N"
FEW = 2               # arguments (results) this few are split by their first index ...
EDGES = 60            # a drawing opens fewer levels of calls rather than draw more edges than this (at the
                      # default max_nodes; in proportion to a larger one)
SPLIT = 12            # ... while that makes no more nodes than this (``params[0]`` … ``params[5]``, ``x``)


def _segments(g: Group, single: bool, room: int | None = None) -> list:
    """What an open group shows, in program order: its calls (Groups) and its own equations, one node
    each when ``single`` (and they fit in ``room`` nodes), else one node per run of equations from one
    line, and past ``room`` (or ``RUNS``) nodes, runs of equal length."""
    out, run = [], []

    def flush():
        if run:
            out.append(list(run))
            run.clear()
    for c in g.children:
        if isinstance(c, Group):
            flush()
            out.append(c)
        elif single:
            out.append([c])
        else:
            if run and c.source != run[-1].source:
                flush()
            run.append(c)
    flush()
    limit = min(RUNS, room) if room is not None else RUNS
    if single and len(out) > limit:
        return _segments(g, False, room)
    own = [e for s in out if not isinstance(s, Group) for e in s]
    groups = len(out) - sum(1 for s in out if not isinstance(s, Group))
    if not own:
        return out
    size = math.ceil(len(own) / max(1, limit - groups))
    if room is not None and len(out) <= limit:   # room to spare: long runs of one line cut to ``size``
        cut = _cut(out, size)
        return cut if len(cut) <= limit else out
    if len(out) <= limit:
        return out
    rebuilt, pending = [], []       # no line structure to speak of: runs of ``size`` equations
    for s in out:
        if isinstance(s, Group):
            if pending:
                rebuilt.append(pending)
                pending = []
            rebuilt.append(s)
            continue
        for e in s:
            pending.append(e)
            if len(pending) >= size:
                rebuilt.append(pending)
                pending = []
    if pending:
        rebuilt.append(pending)
    return rebuilt


def _cut(segments: list, size: int) -> list:
    return [x for s in segments for x in ([s] if isinstance(s, Group) else
                                          [s[i:i + size] for i in range(0, len(s), size)])]


def unfold(top: Group, max_nodes: int, depth: int | None) -> dict:
    """The groups to open, each with the room its own equations get (None: one node per line): ``top``,
    then whole levels of calls below it while the drawing keeps to ``max_nodes`` nodes and ``depth``
    levels.  A level of one call is opened in the room left (a function that calls nothing else)."""
    opened = {top: max_nodes}
    if depth is None and any(c.kind == "update" for c in top.groups):
        return opened               # a training step opens on its forward, backward and update
    level, n, d = [top], len(_segments(top, True, max_nodes)), 0
    while depth is None or d < depth:
        nxt = [c for g in level for c in g.groups if not getattr(c, "shut", False)]  # fold.py: other copies
        if not nxt:
            break
        room = max_nodes - n + 1 if len(nxt) == 1 else None
        extra = sum(len(_segments(c, False, room)) - 1 for c in nxt)
        if n + extra > max_nodes:
            break
        opened.update((c, room) for c in nxt)
        level, n, d = nxt, n + extra, d + 1
    return opened


class Fold(_Draw):
    """Draws a group (the whole program, or one call) with the groups ``opened`` as boxes, the rest as nodes."""

    def __init__(self, tree: CallTree, top: Group, opened: set, depth: int, max_nodes: int, lang: str,
                 prefix: str = "", shares=None):
        super().__init__(depth, max_nodes, lang, shares)
        self.prefix = f"{prefix}/" if prefix else ""      # a sub-jaxpr's path before its calls' ids
        self.tree, self.top, self.opened = tree, top, opened
        p = tree.program
        self.used = p.memo.get("overview.used")     # made once: the page draws a dozen calls of one program
        if self.used is None:
            self.used = p.memo["overview.used"] = {a for e in p.eqns for a in e.invars if isinstance(a, Var)}
            self.used.update(a for a in p.outvars if isinstance(a, Var))
        self.closed: list = []        # groups drawn folded, in program order (the page draws them ahead)
        self.boxes: list = []         # groups drawn open, as boxes (a click opens them on their own)
        self.compact = True
        self.grouped: set = set()     # nodes standing for several inputs: their edges need no names

    # ------------------------------------------------------------ the calls
    def draw(self, g):
        self.items(self.top, g, True)

    def items(self, grp: Group, g, top: bool):
        for seg in _segments(grp, top, self.opened[grp]):
            if not isinstance(seg, Group):
                if len(seg) == 1:
                    self.eqn(seg[0], g, max(0, self.depth - 1), self.used)   # one level of sub-jaxprs drawn
                else:
                    self.run(seg, g)
            elif seg in self.opened:
                self.boxes.append(seg)
                c = graphviz.Digraph(name=f"cluster_grp_{seg.id}")
                label = group_label(seg, self.lang, phases=seg.parent.phase != seg.phase)
                if self.shares is not None:
                    label += " · " + self.shares.words(self.shares.of(seg.eqns), self.lang)
                c.attr(label=dot(label), style="rounded", color=MID, fontcolor=MID,
                       id=dot(f"grpbox-{self.prefix}{seg.id}"), tooltip=dot(self.site(seg)))
                self.items(seg, c, False)
                g.subgraph(c)
            else:
                self.folded_group(seg, g)

    def site(self, grp: Group) -> str:
        return (t("called_at", self.lang, where=site_text(grp.site, self.lang)) if grp.site else grp.function)

    def folded_group(self, grp: Group, g):
        nid = f"grp-{self.prefix}{grp.id}"
        self.closed.append(grp)
        self.drawn += 1
        lines = [group_label(grp, self.lang, phases=grp.parent is None or grp.parent.phase != grp.phase)]
        count = t("n_eqns", self.lang, n=grp.size)
        lines.append(f"{group_summary(grp, self.lang)} · {count}" if grp.groups else count)
        tip, style = f"{self.site(grp)} · path={self.prefix}{grp.id}", STYLES["group"]
        if self.shares is not None:        # ``block (call 3 of 6) · 14% of FLOPs``, filled by its share
            x = self.shares.of(grp.eqns)
            lines[0] += " · " + self.shares.words(x, self.lang)
            tip += " · " + self.shares.words(x, self.lang)
            style = {**style, "fillcolor": cost_fill(x)}
        attrs = dict(label=_lines(*lines), id=dot(nid), tooltip=dot(tip), _attributes={"class": "jl-grp"}, **style)
        self.talk(attrs, [e.id for e in grp.eqns], nested=True)      # a call that talks: marked, and how
        g.node(nid, **attrs)
        for a in grp.inputs:        # its crossing values, made once per call (its own drawing asks for them too)
            self.edge(self.atom(a, g, nid), nid, [var_text(a)])
        for v in grp.outputs:
            self.node_of[v] = nid

    def run(self, eqns: list, g):
        nid = f"run-{eqns[0].id}"
        self.drawn += 1
        common = ", ".join(f"{k}×{v}" if v > 1 else k
                           for k, v in Counter(e.primitive for e in eqns).most_common(3))
        src = eqns[0].source
        head = (where_text(src, self.lang) if src and src == eqns[-1].source else
                t("run_range", self.lang, first=eqns[0].index, last=eqns[-1].index))
        tip, style, share = src.text if src else t("no_frame", self.lang), STYLES["run"], ""
        if self.shares is not None:
            x = self.shares.of(eqns)
            share, tip = percent(x), f"{tip} · {self.shares.words(x, self.lang)}"
            style = {**style, "fillcolor": cost_fill(x), "color": COST_STROKE}
        attrs = dict(label=_lines(head, t("n_eqns", self.lang, n=len(eqns)), common, share), id=dot(nid),
                     tooltip=dot(tip), **style)
        self.outline(attrs, [e.id for e in eqns])          # a run that landed in one kernel: its colour
        self.talk(attrs, [e.id for e in eqns], nested=True)
        g.node(nid, **attrs)
        self.into(eqns, nid, g)

    def into(self, eqns: list, nid: str, g):
        """Edges into a node that stands for ``eqns``, one per node a value comes from; their results are its."""
        made = {v for e in eqns for v in e.outvars}
        seen = set()
        for e in eqns:
            for a in e.invars:
                if isinstance(a, Var) and a not in made and a not in seen:
                    seen.add(a)
                    self.edge(self.atom(a, g, nid), nid, [var_text(a)])
        for v in made:
            self.node_of[v] = nid

    # ------------------------------------------------------------ borders
    def header(self, p: Program, g, binder: bool = False, binding=None):
        if binder:                                 # a sub-jaxpr's binders, in an equation's box
            return super().header(p, g, binder, binding)
        if self.top.parent is not None:            # one call on its own: the values that come in
            self.border(self.top.inputs, g, "in", self.origin, "input")
            return
        if len(p.invars) <= GROUPED:
            return super().header(p, g, binder, binding)
        pre = "p"
        for i, v in enumerate(p.constvars):
            name = self.node_of[v] = f"{pre}/const{i}"
            self.kinds.add("constant")
            g.node(name, label=_lines(var_text(v)), **STYLES["constant"])
        by_arg: dict = {}
        for v, arg in zip(p.invars, self.keys()):
            by_arg.setdefault(arg, []).append(v)
        for k, (arg, vs) in enumerate(by_arg.items()):
            name = f"{pre}/arg{k}"
            g.node(name, label=_lines(arg, t("n_values", self.lang, n=len(vs))) if len(vs) > 1 else
                   _lines(vs[0].path or arg, var_text(vs[0])), tooltip=dot(arg), **STYLES["input"])
            for v in vs:
                self.node_of[v] = name
            if len(vs) > 1:
                self.grouped.add(name)

    def keys(self) -> list:
        """The node each program input is drawn in, by its path (``groups``), once per program."""
        p = self.tree.program
        keys = p.memo.get(("overview.keys", self.lang))
        if keys is None:
            keys = p.memo[("overview.keys", self.lang)] = groups([v.path or t("input_n", self.lang, i=i)
                                                     for i, v in enumerate(p.invars)])
        return keys

    def arg_of(self) -> dict:
        p = self.tree.program
        found = p.memo.get(("overview.arg_of", self.lang))
        if found is None:
            found = p.memo[("overview.arg_of", self.lang)] = dict(zip(p.invars, self.keys()))
        return found

    def outputs(self, p: Program, g, results=None):
        if self.top.parent is not None:            # ... and the values that leave, by where they go
            self.border(self.top.outputs, g, "out", self.target, "output")
            return
        paths = [(p.out_paths[i] if i < len(p.out_paths) else "") for i in range(len(p.outvars))]
        kept = [i for i, x in enumerate(paths) if x or p.outer is None]   # a jit's result its call drops: none
        paths = [paths[i] or "out" for i in kept]
        heads = groups(paths)
        if len(p.outvars) <= GROUPED and len(set(heads)) == len(kept) == len(p.outvars):
            return super().outputs(p, g, results)         # a value a node: only where none shares a result
        by: dict = {}
        for i, path, head in zip(kept, paths, heads):
            by.setdefault(head, []).append((p.outvars[i], path))
        for k, (head, pairs) in enumerate(by.items()):
            name, atoms = f"p/out{k}", [a for a, _ in pairs]
            words = (_lines(head, t("n_values", self.lang, n=len(atoms))) if len(atoms) > 1 else
                     _lines(pairs[0][1], atoms[0].type))
            g.node(name, label=words, tooltip=dot(head), **STYLES["output"])
            for a in atoms:
                self.edge(self.atom(a, g, f"{name}-{a.name}"), name,
                          [var_text(a)] if isinstance(a, Var) else [])

    def side(self, eqn: Eqn) -> str:
        """The call next to ``top`` (under a call that holds both) that holds ``eqn``, as a label."""
        above = set(self.top.crumbs())
        grp = self.tree.group_of(eqn)
        while grp.parent is not None and grp.parent not in above:
            grp = grp.parent
        return group_label(grp, self.lang)

    def origin(self, v: Var) -> str:
        p = self.tree.program
        if v in p.constvars:
            return t("from_x", self.lang, x=v.name)
        arg = self.arg_of().get(v)
        if arg is not None:
            return t("from_x", self.lang, x=arg)
        made = self.tree.maker(v)
        return t("from_x", self.lang, x=self.side(made)) if made is not None else v.name

    def target(self, v: Var) -> str:
        user = self.tree.first_use(v, self.top)
        return t("to_x", self.lang, x=self.side(user) if user is not None else t("results", self.lang))

    def border(self, values: list, g, kind: str, where, style: str):
        """The values crossing ``top``'s border, one node for all those that come from (go to) one place."""
        by: dict = {}
        for v in values:
            by.setdefault(where(v), []).append(v)
        for i, (place, vs) in enumerate(by.items()):
            name = f"p/{kind}{i}"
            words = var_text(vs[0]) if len(vs) == 1 else t("n_values", self.lang, n=len(vs))
            g.node(name, label=_lines(place, words), tooltip=dot(vars_text(vs, self.lang)),
                   **STYLES[style])
            for v in vs:
                if kind == "in":
                    self.node_of[v] = name
                else:
                    self.edge(self.atom(v, g, name), name, [var_text(v)])
            if kind == "in" and len(vs) > 1:
                self.grouped.add(name)

    # ------------------------------------------------------------ edges
    def merge(self):
        """One edge per pair of nodes, labelled with the first names that cross it and how many more."""
        by: dict = {}
        out = []
        for tail, head, parts, attrs in self.edges:
            if attrs:
                out.append((tail, head, parts, attrs))
                continue
            key = (tail, head)
            if tail in self.grouped:
                parts = ()
            if key not in by:
                by[key] = []
                out.append(key)
            by[key].extend(parts[:1])
        self.edges = []
        for item in out:
            if len(item) == 4:
                self.edges.append(item)
                continue
            names = by[item]
            keep = len(names) if len(names) <= NAMES else NAMES - 1
            shown = names[:keep] + ([t("n_more", self.lang, n=len(names) - keep)] if len(names) > keep else [])
            self.edges.append((item[0], item[1], [" ".join(shown)] if shown else [], {}))


def _head(path: str) -> str:
    """A value's argument or result down to its first index: ``params[3]`` of ``params[3]['wq']``,
    ``out[0]`` of ``out[0]['w']``, ``x`` of ``x``."""
    i = path.find("[")
    if i < 0:
        return path.split(".")[0]
    j = path.find("]", i)
    return path[:j + 1] if j > 0 else path


def _arg(path: str) -> str:
    """The argument a path starts with: ``model`` of ``model.blocks[0].attn``, ``ws`` of ``ws['layer3']``."""
    for i, ch in enumerate(path):
        if ch in ".[":
            return path[:i] or path
    return path


def groups(paths: list) -> list:
    """The node each of ``paths`` is drawn in: its argument (``model · 33 values``, ``optimizer``,
    ``tokens``); a few arguments are split by their first index (``params[0]`` … ``params[5]``) while
    that makes at most ``SPLIT`` nodes (a dict of 8,800 weights stays one node)."""
    args = [_arg(x) for x in paths]
    if len(set(args)) > FEW:
        return args
    heads = [_head(x) for x in paths]
    return heads if len(set(heads)) <= SPLIT else args


def build(tree: CallTree, top: Group, depth: int | None, max_nodes: int, lang: str, prefix: str = "",
          shares=None, kernels=None, comms=None) -> tuple:
    """DOT source of ``top`` drawn by its calls, and the drawing (``closed``: the groups left folded);
    ``shares`` (``draw.Shares``): nodes coloured by their share of the cost."""
    opened = unfold(top, max_nodes, depth)
    budget = max(EDGES, EDGES * max_nodes // MAX_NODES)
    while True:          # past EDGES edges, the deepest level opened is folded again (one call, a few boxes)
        g = _digraph()
        g.attr(nodesep="0.15")
        d = Fold(tree, top, opened, DEPTH if depth is None else depth, max_nodes, lang, prefix, shares)
        d.kernels, d.comms = kernels, comms
        d.header(tree.program, g)
        d.draw(g)
        d.outputs(tree.program, g)
        d.merge()
        deepest = max((c.depth for c in opened if c is not top), default=None)
        if len(d.edges) <= budget or deepest is None or depth is not None:
            break
        opened = {c: room for c, room in opened.items() if c is top or c.depth < deepest}
    n = count_eqns(tree.program) if top.parent is None else top.size
    notes = [t(getattr(tree, "note", "overview_note"), lang, n=n, k=d.drawn)]     # fold.FoldTree: its own words
    if d.folded:
        notes.append(t("folded_note", lang, n=len(d.folded), depth=d.depth, max_nodes=max_nodes))
    g.attr(label=caption(*notes))
    d.legend(g)
    d.emit(g)
    return g.source, d
