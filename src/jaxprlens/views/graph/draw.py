"""Drawing a Program as Graphviz DOT: one node per equation, sub-jaxprs as clusters, a legend.

Node ids carry ``eqn.id`` (``eqn-2/body/1``) so the table's ``tr[data-eqn]`` rows can be linked;
every label is escaped once with ``escape.dot`` (``escape.html`` for the legend's HTML-like label).
The graph view (``graph.py``) and the call overview (``overview.py``) both draw with it.
"""
from __future__ import annotations

import math
from collections import Counter

import graphviz

from jaxprlens.model.errors import KeyedError
from jaxprlens.present.display import array_text, shorten
from jaxprlens.present.escape import dot, html
from jaxprlens.present.i18n import role_word, sub_label, t
from jaxprlens.present.nouns import param_words, params_of, source_text, var_text
from jaxprlens.present.shares import Shares
from jaxprlens.present.usage import wrap
from jaxprlens.present.words import percent
from jaxprlens.views.graph.render import INK, KIND_COLORS, MID, STYLES, kind_of
from jaxprlens.model.program import Lit, Program, Var, count_eqns, path_id, statement

DEPTH = 3             # sub-jaxprs nested deeper than this are folded
MAX_NODES = 60        # a program of more equations is drawn by its inlined calls (overview.py), a sub-jaxpr
                      # of more is folded: about what one screen shows with text at 9 px or more
PREDRAW = 20          # calls drawn ahead of time into the page, opened by a click without a kernel, while
PREDRAW_NODES = 300   # all their drawings together hold no more nodes than this
PREDRAW_BYTES = 800_000   # ... and no more SVG than this (graphviz writes ~3 kB a node)
MAX_TOP = 2000        # a top level with more equations is drawn as runs of equations
RUNS = 100            # how many runs, then
EDGE_LABELS = 100     # above this many edges the graph is "big": labels become ``xlabel``s (1,000 eqns lay
VIRTUAL = 600         # out in ~0.3 s, not ~3 s).  dot routes an edge through one virtual node per rank it
                      # spans: past this many in all, the longest edges end at a reference node named after
                      # the value instead (one input used by 1,000 eqns would cost minutes of layout)
PARAM_CHARS = 40
LEGEND_CHARS = 60     # characters in one legend row: 9 pt Helvetica at ~5.5 px, ~330 px: beside a small graph the
                      # drawing stays under ~700 px, whole at 1:1 in a reveal slide and at 0.95 in a 700 px window
LINE_CHARS = 36
NOTE_COLS = 60        # columns in one line of a drawing's caption (a CJK character two): 10 pt, ~340 px (a 1,202-
                      # equation program's note, 132 characters on one line, made its drawing 817 px wide; 683 wrapped)
PAD = "\u00a0"        # beside an edge label, each side: labels of neighbouring edges stay a space apart

# Params that are noise in a node label (placement, sharding, printing options); roles show the counts.
_NOISY = {
    "out_sharding", "sharding", "in_shardings", "out_shardings", "in_layouts", "out_layouts", "donated_invars",
    "ctx_mesh", "keep_unused", "inline", "compiler_options_kvs", "resource_env", "debug_info", "unroll",
    "_split_transpose", "jvp_jaxpr_fun", "jvp_jaxpr_thunk", "fwd_jaxpr_thunk", "bwd", "out_trees",
    "symbolic_zeros", "num_consts", "num_carry", "cond_nconsts", "body_nconsts", "linear", "in_tree",
    "static_args", "np_printoptions", "has_placeholders", "partitioned",
}


def _lines(*parts: str) -> str:
    """A multi-line DOT label: each part escaped once, joined by DOT's ``\\n``."""
    return "\\n".join(dot(p) for p in parts if p != "")


def caption(*notes: str) -> str:
    """A drawing's caption: each note in lines of at most ``NOTE_COLS`` columns, one label."""
    return _lines(*(line for note in notes for line in wrap(note, NOTE_COLS)))


def eqn_label(eqn) -> str:
    said = statement(eqn)          # a ref read or write: as JAX's printer writes it (``c:f32[3] <- b[...]``)
    if said is not None:
        return _lines(eqn.primitive, shorten(said, 2 * LINE_CHARS))
    words = [eqn.primitive] + param_words([p for p in params_of(eqn) if p.key not in _NOISY], PARAM_CHARS,
                                          one_line=False)
    lines = [words[0]]
    for w in words[1:]:
        if len(lines[-1]) + 1 + len(w) <= LINE_CHARS:
            lines[-1] += " " + w
        else:
            lines.append(w)
    return _lines(*lines)


def _preview(value, lang: str) -> str:
    return shorten(array_text(value, 4, edgeitems=2, lang=lang), 30)


def select(program: Program, path) -> tuple:
    """The nested program at ``path`` (``"2/body"``), with the eqn and sub that hold it, and the inlined
    call asked for after it (``model_loss/block.3``, ``2/body/helper``; see ``calls.py``) or None."""
    if path is None or str(path).strip("/ ") == "":
        return program, None, None, None
    parts = [x for x in str(path).strip("/ ").split("/") if x]
    prog, eqn, sub = program, None, None
    n = 0
    while n < len(parts) and parts[n].isdigit():
        n += 2
    group = "/".join(parts[n:]) or None
    for i in range(0, min(n, len(parts)), 2):
        try:
            eqn = prog.eqns[int(parts[i])]
            sub = next(s for s in eqn.subs if i + 1 < len(parts) and s.key == parts[i + 1])
        except (ValueError, IndexError, StopIteration):
            choices = [path_id(s.program.path) for e in program.walk() for s in e.subs]
            shown = choices[:12] + (["..."] if len(choices) > 12 else [])
            if choices:
                raise KeyedError("path_unknown", path=repr(str(path)), shown=str(shown)) from None
            raise KeyedError("path_no_nested", path=repr(str(path))) from None
        prog = sub.program
    return prog, eqn, sub, group


class _Draw:
    """Walks a Program once, emitting nodes into (nested) ``graphviz.Digraph``s and collecting edges."""

    def __init__(self, depth: int, max_nodes: int, lang: str = "en", shares: Shares | None = None):
        self.depth, self.max_nodes, self.lang = depth, max_nodes, lang
        self.node_of: dict = {}       # Var -> node name (one Var object per JAX var)
        self.edges: list = []         # (tail, head, label parts, attrs)
        self.kinds: set = set()
        self.folded: list = []        # (path, equations)
        self.drawn = 0
        self.compact = False          # edge labels as ``xlabel``s: they take no rank of their own
        self.shares = shares          # colour equations by their share of the cost (issue 22)
        self.kernels = None           # views.compiled.fusion.Kernels: outline equations by compiled kernel (issue 30)
        self.kernels_drawn: list = []
        self.comms = None             # views.compiled.sharding.Comms: mark the equations that made a collective
        self.comms_drawn = False

    def edge(self, tail, head, parts=(), **attrs):
        self.edges.append((tail, head, parts, attrs))

    def atom(self, a, g, owner: str) -> str:
        """The node a value comes from; a literal gets its own small node."""
        if isinstance(a, Lit):
            name = f"lit-{owner}"
            g.node(name, label=dot(a.text), **STYLES["literal"])
            return name
        name = self.node_of.get(a)
        if name is None:           # not bound in any scope we drew (should not happen): keep it visible
            name = self.node_of[a] = f"free-{owner}"
            g.node(name, label=_lines(var_text(a), t("free", self.lang)), **STYLES["unused"])
        return name

    # ------------------------------------------------------------ programs
    def header(self, p: Program, g, binder: bool, binding=None):
        pre = f"p/{path_id(p.path)}" if p.path else "p"
        for i, (v, value) in enumerate(zip(p.constvars, p.consts)):
            name = self.node_of[v] = f"{pre}/const{i}"
            self.kinds.add("constant")       # the legend's swatch: only where a constant is drawn
            g.node(name, label=_lines(var_text(v), f"= {_preview(value, self.lang)}"),
                   tooltip=dot(t("const_tip", self.lang, var=var_text(v))), **STYLES["constant"])
        for i, v in enumerate(p.invars):
            name = self.node_of[v] = f"{pre}/in{i}"
            if binder:
                g.node(name, label=_lines(var_text(v)), **STYLES["binder"])
            else:
                head = (binding[i] if binding else None) or v.path or t("input_n", self.lang, i=i)
                g.node(name, label=_lines(head, var_text(v)), tooltip=dot(head), **STYLES["input"])

    def outputs(self, p: Program, g, results=None):
        pre = f"p/{path_id(p.path)}" if p.path else "p"
        for i, a in enumerate(p.outvars):
            name = f"{pre}/out{i}"
            head = (p.out_paths[i] if i < len(p.out_paths) else
                    results[i] if results else t("output_n", self.lang, i=i))
            g.node(name, label=_lines(head, a.type), tooltip=dot(head), **STYLES["output"])
            self.edge(self.atom(a, g, f"{pre}-out{i}"), name, [var_text(a)] if isinstance(a, Var) else [])

    def program(self, p: Program, g, level: int):
        used = {a for e in p.eqns for a in e.invars if isinstance(a, Var)}
        used.update(a for a in p.outvars if isinstance(a, Var))
        for eqn in p.eqns:
            self.eqn(eqn, g, level, used)

    def eqn(self, eqn, g, level: int, used: set):
        nid = f"eqn-{eqn.id}"
        kind = kind_of(eqn.primitive, bool(eqn.subs))
        self.kinds.add(kind)
        self.drawn += 1
        fill, stroke = KIND_COLORS[kind]
        label = eqn_label(eqn)
        tip = source_text(eqn.source, self.lang) if eqn.source else t("no_frame", self.lang)
        if self.shares is not None:        # coloured by its share of the program's cost, the number beside
            x = self.shares.of([eqn])
            fill, stroke = cost_fill(x), COST_STROKE
            label += "\\n" + dot(percent(x))
            tip += " · " + self.shares.words(x, self.lang)
        attrs = dict(label=label, id=dot(nid), fillcolor=fill, color=stroke, tooltip=dot(tip),
                     _attributes={"class": dot(f"jl-eqn jl-{kind.replace(' ', '-')}")})
        self.outline(attrs, [eqn.id])
        self.talk(attrs, [eqn.id])
        targets: dict = {}            # operand index -> [node the operand flows into]
        if eqn.subs:
            c = graphviz.Digraph(name=f"cluster_eqn_{eqn.id}")
            c.attr(label=dot(f"{eqn.primitive} [{eqn.id}]"), style="rounded,dashed", color=stroke,
                   fontcolor=MID, id=dot(f"cluster-{eqn.id}"))
            c.node(nid, **attrs)
            for sub in eqn.subs:
                self.sub(eqn, sub, c, nid, level + 1, targets)
            g.subgraph(c)
        else:
            g.node(nid, **attrs)
        for j, a in enumerate(eqn.invars):
            role = role_word(eqn.roles.of_operand(j), 1, self.lang) if eqn.roles else ""
            tail = self.atom(a, g, f"{eqn.id}-{j}")
            parts = ([var_text(a)] if isinstance(a, Var) else []) + (
                [t("paren", self.lang, x=role)] if role else [])
            for head in targets.get(j) or [nid]:
                self.edge(tail, head, parts)
        for k, v in enumerate(eqn.outvars):
            self.node_of[v] = nid
            if v not in used:
                sink = f"{nid}-unused{k}"
                g.node(sink, label=dot(var_text(v) + ("" if v.dropped else " " + t("unused", self.lang))),
                       **STYLES["unused"])
                self.edge(nid, sink, (), style="dashed", arrowhead="none")

    def outline(self, attrs: dict, eqn_ids: list):
        """A node standing for ``eqn_ids`` outlined in their kernel's colour, when they landed in one."""
        found = self.kernels.of(eqn_ids) if self.kernels is not None else None
        if found is None:
            return
        name, colour, likely = found
        self.kernels_drawn.append(name)
        attrs.update(color=colour, penwidth="3", tooltip=attrs.get("tooltip", "") + dot(
            " · " + self.kernels.words(name, likely, self.lang)))
        if likely:
            attrs["style"] = "rounded,filled,dashed"

    def talk(self, attrs: dict, eqn_ids: list, nested: bool = False):
        """A node standing for ``eqn_ids`` bordered in vermillion, the collectives they made under its label
        (``nested``: those of the equations inside them too, for a folded body or a run)."""
        found = self.comms.of(eqn_ids, nested) if self.comms is not None else []
        if not found:
            return
        from jaxprlens.views.compiled.sharding import MARK
        self.comms_drawn = True
        lines = self.comms.lines(found, self.lang)
        attrs.update(label=attrs["label"] + "\\n" + _lines(*lines), color=MARK, penwidth="3",
                     tooltip=attrs.get("tooltip", "") + dot(" · " + " · ".join(lines)))
        cls = attrs.get("_attributes", {}).get("class")
        attrs["_attributes"] = {**attrs.get("_attributes", {}), "class": (cls + " " if cls else "") + "jl-comm"}

    def sub(self, eqn, sub, c, nid: str, level: int, targets: dict):
        spath = path_id(sub.program.path)
        n = count_eqns(sub.program)
        if level > self.depth or n > self.max_nodes:
            fid = f"fold-{spath}"
            attrs = dict(label=_lines(sub_label(sub, self.lang), t("folded_n", self.lang, n=n), f"path={spath}"),
                         id=dot(fid), tooltip=dot(t("unfold_tip", self.lang, depth=level, n=n, path=spath)),
                         **STYLES["folded"])
            self.talk(attrs, [spath], nested=True)
            c.node(fid, **attrs)
            self.folded.append((spath, n))
            for j in sub.in_map:
                if j is not None and fid not in targets.setdefault(j, []):
                    targets[j].append(fid)
            self.edge(fid, nid, (), style="bold")
            return
        sc = graphviz.Digraph(name=f"cluster_sub_{spath}")
        sc.attr(label=dot(sub_label(sub, self.lang)), style="rounded", color=MID, fontcolor=MID, id=dot(f"sub-{spath}"))
        self.header(sub.program, sc, binder=True)
        binders = [self.node_of[v] for v in list(sub.program.constvars) + list(sub.program.invars)]
        if binders:            # operands enter at the top of the box, through the binders they bind
            sc.body.append("\t{rank=same; " + " ".join(f'"{n}"' for n in binders) + "}\n")
        self.program(sub.program, sc, level)
        for k, j in enumerate(sub.in_map):
            if j is not None:
                targets.setdefault(j, []).append(self.node_of[sub.program.invars[k]])
        for k, out in enumerate(sub.program.outvars):
            r = sub.out_map[k] if k < len(sub.out_map) else None
            tail = self.atom(out, sc, f"{spath}-out{k}")
            if r is not None:      # its name and where it goes (the type: the result's, below the equation)
                self.edge(tail, nid, [f"{out.name if isinstance(out, Var) else out.text} → {eqn.outvars[r].name}"])
            else:
                self.edge(tail, nid, [var_text(out) if isinstance(out, Var) else out.type], style="dashed")
        c.subgraph(sc)

    def runs(self, p: Program, g):
        """A huge top level: consecutive equations folded into runs, edges between runs counted."""
        size = math.ceil(len(p.eqns) / RUNS)
        for r0 in range(0, len(p.eqns), size):
            chunk = p.eqns[r0:r0 + size]
            name = f"run-{r0}"
            common = ", ".join(f"{k}×{v}" for k, v in Counter(e.primitive for e in chunk).most_common(3))
            g.node(name, label=_lines(t("run_range", self.lang, first=r0, last=r0 + len(chunk) - 1),
                                      t("n_eqns", self.lang, n=len(chunk)), common),
                   id=dot(name), **STYLES["run"])
            links: Counter = Counter()
            for e in chunk:
                for a in e.invars:
                    src = self.node_of.get(a) if isinstance(a, Var) else None
                    if src is not None and src != name:
                        links[src] += 1
                for v in e.outvars:
                    self.node_of[v] = name
            for tail, count in links.items():
                self.edge(tail, name, [t("n_values", self.lang, n=count)])

    def legend(self, g):
        cells = [(t("kind_" + k.replace(" ", "_"), self.lang), *KIND_COLORS[k]) for k in KIND_COLORS
                 if k in self.kinds and self.shares is None]
        cells += [(t("kind_" + k, self.lang), STYLES[k]["fillcolor"], STYLES[k]["color"])
                  for k in ("input", "constant", "output") if k != "constant" or k in self.kinds]
        if self.shares is not None:        # the cost scale first: what the colours mean
            cells[:0] = [(word, fill, COST_STROKE) for word, fill in cost_scale()]
        if self.kernels is not None:       # then the outlines: the kernels drawn
            cells += self.kernels.legend(self.kernels_drawn, self.lang)
        if self.comms is not None and self.comms_drawn:    # and the border of the nodes that talk
            cells += self.comms.legend(self.lang)
        rows, width, alone = [[]], 0, []
        for word, fill, stroke, *new_row in cells:   # rows of LEGEND_CHARS: narrow screens and slides
            w = sum(2 if ord(ch) > 0x2e80 else 1 for ch in word) + 3       # CJK: two columns
            if rows[-1] and (width + w > LEGEND_CHARS or new_row or (alone and alone[-1] == len(rows) - 1)):
                rows.append([])
                width = 0
            if new_row == ["alone"]:       # a row of its own across the legend: its width widens no column above
                alone.append(len(rows) - 1)
            # a CJK word's cell is measured too narrow (graphviz-pure: ~7.5 of 9 pt a glyph, the text centred on
            # that): at least 11 pt a glyph keeps it inside; dot's own measure only grows past this minimum
            wide = sum(11 if ord(ch) > 0x2e80 else 5 for ch in word) + 6
            size = f' WIDTH="{wide}"' if wide > 5 * len(word) + 6 else ""
            rows[-1].append(f'<TD BGCOLOR="{fill}" COLOR="{stroke}"{size}><FONT COLOR="{INK}">{html(word)}</FONT></TD>')
            width += w
        for i in alone:
            rows[i][0] = rows[i][0].replace("<TD ", f'<TD COLSPAN="{max(len(r) for r in rows)}" ', 1)
        if self.shares is not None:        # ... under its title, which says the total --cost prints (dark
            span = max(len(r) for r in rows)   # text on its own light ground: readable in either theme)
            rows.insert(0, [f'<TD COLSPAN="{span}" BORDER="0" ALIGN="LEFT" BGCOLOR="{COST_FILLS[0]}">'
                            f'<FONT COLOR="{INK}">{html(self.shares.title(self.lang))}</FONT></TD>'])
        body = "".join(f"<TR>{''.join(r)}</TR>" for r in rows)
        g.node("legend", label=f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="2" CELLPADDING="2">'
                               f"{body}</TABLE>>", shape="plaintext", style="", fontsize="9", id="legend")

    def ranks(self) -> dict:
        """Longest-path rank of every node over the recorded edges, as dot will roughly rank them."""
        succ, indeg = {}, Counter()
        for tail, head, _, _ in self.edges:
            succ.setdefault(tail, []).append(head)
            indeg[head] += 1
        rank = {n: 0 for n in succ if indeg[n] == 0}
        todo = list(rank)
        while todo:
            n = todo.pop()
            for m in succ.get(n, ()):
                rank[m] = max(rank.get(m, 0), rank[n] + 1)
                indeg[m] -= 1
                if indeg[m] == 0:
                    todo.append(m)
        return rank

    def emit(self, g):
        key = "xlabel" if len(self.edges) > EDGE_LABELS or self.compact else "label"
        rank = self.ranks()
        spans = [rank.get(h, 0) - rank.get(t, 0) for t, h, _, _ in self.edges]
        cut, extra = set(), sum(max(0, s - 1) for s in spans)
        for i in sorted(range(len(spans)), key=lambda i: (-spans[i], i)):
            if extra <= VIRTUAL or spans[i] <= 2:
                break
            cut.add(i)
            extra -= spans[i] - 1
        for i, (tail, head, parts, attrs) in enumerate(self.edges):
            if i in cut:
                ref = f"ref-{i}"
                g.node(ref, label=_lines("↪ " + (parts[0] if parts else t("value", self.lang))),
                       tooltip=dot(t("made_above", self.lang, n=spans[i])),
                       **STYLES["ref"])
                tail, parts = ref, parts[1:]
            if parts:                       # padded: labels side by side (an input's edges) keep apart
                attrs = {key: _lines(*(f"{PAD}{x}{PAD}" for x in parts)), **attrs}
            g.edge(tail, head, **attrs)


# ------------------------------------------------------------ cost on the graph (issue 22)
# One hue, light to strong (ColorBrewer Oranges: colour-blind safe, in print too), always with the number
# beside it; the fills stay light enough for the dark text (>= 7:1) and they carry their own background,
# so the nodes read the same in the light and the dark theme.
COST_FILLS = ("#fff5eb", "#fee6ce", "#fdd0a2", "#fdae6b", "#fd8d3c")
COST_BOUNDS = (0.0, 0.01, 0.05, 0.15, 0.40, 1.0)      # share bins: < 1 %, 1-5 %, 5-15 %, 15-40 %, >= 40 %
COST_STROKE = "#a63603"


def cost_fill(x: float) -> str:
    for fill, hi in zip(COST_FILLS, COST_BOUNDS[1:]):
        if x < hi:
            return fill
    return COST_FILLS[-1]


def cost_scale() -> list:
    """``(words, fill)`` of each bin, as the legend shows them: ``<1%``, ``1–5%``, ... ``≥40%``."""
    pct = [f"{round(100 * b)}" for b in COST_BOUNDS]
    words = [f"<{pct[1]}%"] + [f"{lo}–{hi}%" for lo, hi in zip(pct[1:-2], pct[2:-1])] + [f"≥{pct[-2]}%"]
    return list(zip(words, COST_FILLS))


def _digraph():
    g = graphviz.Digraph(name="jaxpr")
    g.attr(rankdir="TB", bgcolor="transparent", fontname="Helvetica", fontsize="10", fontcolor=MID,
           nodesep="0.25", ranksep="0.3", labelloc="t")
    g.attr("node", shape="box", style="rounded,filled", fontname="Helvetica", fontsize="11", fontcolor=INK,
           height="0.3", margin="0.08,0.04")
    g.attr("edge", color=MID, fontcolor=MID, fontname="Helvetica", fontsize="9", arrowsize="0.6")
    return g


def build_dot(root: Program, depth: int, max_nodes: int, parent=None, sub=None, max_top: int = MAX_TOP,
              lang: str = "en", shares: Shares | None = None, kernels=None, comms=None) -> tuple:
    """DOT source for ``root`` and the drawing's bookkeeping (for the summary); ``shares``: colour each
    equation by its share of the cost; ``kernels`` (``views.compiled.fusion.Kernels``): outline it by its kernel;
    ``comms`` (``views.compiled.sharding.Comms``): mark it when it made a collective."""
    g = _digraph()
    d = _Draw(depth, max_nodes, lang, shares)
    d.kernels, d.comms = kernels, comms
    binding = results = None
    if parent is not None:
        binding = [t("role_from", lang, role=role_word(parent.roles.of_operand(j) if parent.roles else "operand",
                                                       1, lang), name=parent.invars[j].name)
                   if j is not None else None for j in sub.in_map]
        results = [f"→ {parent.outvars[r].name}" if r is not None else t("used_inside", lang) for r in sub.out_map]
    d.header(root, g, binder=False, binding=binding)
    notes = []
    if len(root.eqns) > max_top:
        d.runs(root, g)
        notes.append(t("runs_note", lang, n=len(root.eqns), k=math.ceil(len(root.eqns) / RUNS)))
    else:
        d.program(root, g, 0)
    d.outputs(root, g, results)
    if d.folded:
        notes.append(t("folded_note", lang, n=len(d.folded), depth=depth, max_nodes=max_nodes))
    if not root.eqns:            # inputs straight to results: say why there is no equation in the picture
        notes.append(t("graph_empty", lang))
    if notes:
        g.attr(label=caption(*notes))
    d.legend(g)
    d.emit(g)
    return g.source, d
