"""The dataflow graph view: a Program drawn as DOT (``draw.py``, or by its calls: ``overview.py``),
rendered to SVG and shown in a pan-and-zoom viewer."""
from __future__ import annotations

import base64
from pathlib import Path

from jaxprlens.views.graph import fold, overview, render
from jaxprlens.views.graph.draw import (DEPTH, MAX_NODES, MAX_TOP, PREDRAW, PREDRAW_BYTES, PREDRAW_NODES, build_dot,
                                        select)
from jaxprlens.model.errors import KeyedError
from jaxprlens.present import settings
from jaxprlens.present.escape import html
from jaxprlens.present.rows import explain_html
from jaxprlens.present.i18n import resolve, t
from jaxprlens.present.front import output, labels
from jaxprlens.views.graph.render import missing_html, missing_text
from jaxprlens.model.program import Program, count_eqns, path_id
from jaxprlens.present.shares import Metric, Shares, cost_metric
from jaxprlens.present.words import group_label, seen_through_note


def _marks(program: Program, given, kind: str):
    """What the graph marks its nodes by, made from an option: ``given`` None/False (nothing), True (compile and map
    the program), a view (its ``.map``), a map, or the marks themselves; ``kind`` ``fusion``
    (``views.compiled.fusion.Kernels``: outlines by compiled kernel) or ``sharding``
    (``views.compiled.sharding.Comms``: the equations that talk)."""
    if given is None or given is False:
        return None
    if kind == "fusion":
        from jaxprlens.views.compiled.fusion import Kernels as Marks, fusion_map as make     # compiles: only when asked
    else:
        from jaxprlens.views.compiled.sharding import Comms as Marks, sharding_map as make  # type: ignore[assignment]
    if isinstance(given, Marks):
        return given
    found = getattr(given, "map", given)
    return Marks(make(program) if found is True else found)


PNG_DPI = 72          # the picture in a graph's output: a pixel a point
PNG_MAX = 120_000     # bytes: a larger picture is left out of the output (``save("x.png")`` writes any size)

class Graph:
    """``program.graph(depth=None, max_nodes=60, path=None, lang=None, cost=None, fusion=None, sharding=None,
    ahead=True)``: the
    dataflow graph, as DOT and SVG; ``cost="flops"`` (or ``"bytes"``) colours each equation and call by its share
    of the cost; ``fusion=True`` (or a ``program.fusion()`` view or map) outlines each equation in the colour of
    the compiled kernel it landed in, the kernels in the legend (``%%jaxpr --graph --fusion``); ``sharding=True``
    (or a ``program.sharding()`` view or map) borders each equation that made a collective in vermillion, the
    collective under its label (``⇄ all-reduce over model · 512 B``, per device; ``%%jaxpr --graph --sharding``).
    ``ahead=False``
    stores the drawing alone, none of its folded calls drawn ahead of time (a click on one says how to draw it,
    ``path=``): a light output for a notebook shared as a file.

    A program of more than ``max_nodes`` equations is drawn by the Python calls that tracing inlined
    (``overview.py``); ``path`` shows a nested program (``2/body``), a call (``model_loss/block.3``), or both.
    """

    def __init__(self, program: Program, depth: int | None = None, max_nodes: int | None = None,
                 path: str | None = None, max_top: int = MAX_TOP, lang: str | None = None,
                 cost: Metric | None = None, shares: Shares | None = None, fusion=None, ahead: bool = True,
                 sharding=None):
        self.program, self.lang, self.ahead = program, resolve(lang), bool(ahead)
        self.cost = cost_metric(cost)
        self.shares = shares if shares is not None or self.cost is None else Shares(program, self.cost)
        self.fusion = _marks(program, fusion, "fusion")
        self.comms = _marks(program, sharding, "sharding")
        self.asked_depth = depth
        self.depth = DEPTH if depth is None else int(depth)
        self.max_nodes = MAX_NODES if max_nodes is None else int(max_nodes)
        if self.depth < 0 or self.max_nodes < 0:
            raise KeyedError("graph_negative", depth=self.depth, max_nodes=self.max_nodes)
        self.path = None if path is None else str(path).strip("/ ")
        self.root, parent, sub, gid = select(program, path)
        self.group = None                 # the call drawn at the top, when drawn by calls
        if gid is not None or count_eqns(self.root) > self.max_nodes:
            tree = fold.tree_of(self.root, self.lang)    # its calls, or its folds when it has none
            self.group = tree.find(gid) if gid is not None else tree.root
            self.prefix = path_id(self.root.path)
            self.source, self._draw = overview.build(tree, self.group, depth, self.max_nodes, self.lang,
                                                     self.prefix, self.shares, self.fusion, self.comms)
        else:
            self.source, self._draw = build_dot(self.root, self.depth, self.max_nodes, parent, sub, max_top,
                                                self.lang, self.shares, self.fusion, self.comms)
        self._svg: str | None = None

    def views(self, limit: int = PREDRAW) -> list:
        """The calls left folded, each drawn on its own (breadth first, ``limit`` of them), for the page."""
        if self.group is None:
            return []
        out, queue, seen = [], list(self._draw.closed), set()      # the boxes here are open already
        nodes = 0
        while queue and len(out) < limit and nodes < PREDRAW_NODES:
            grp = queue.pop(0)
            if grp.id in seen:
                continue
            seen.add(grp.id)
            path = f"{self.prefix}/{grp.id}" if self.prefix else grp.id
            view = Graph(self.program, depth=self.asked_depth, max_nodes=self.max_nodes, path=path, lang=self.lang,
                         cost=self.cost, shares=self.shares, fusion=self.fusion, sharding=self.comms)
            out.append(view)
            nodes += view._draw.drawn
            queue.extend(view._draw.closed + view._draw.boxes)
        return out

    # ------------------------------------------------------------ rendering
    def pipe(self, format: str = "svg") -> bytes:
        """Rendered bytes in ``format``; raises ``render.RenderError`` with advice when it cannot."""
        return render.render(self.source, format)

    def png(self) -> bytes | None:
        """The picture LaTeX/PDF exports show (``PNG_DPI``: a pixel a point, the drawing at its own size), or None
        for a drawing whose picture would outweigh the rest of its notebook (``PNG_MAX``: ``save("x.png")`` writes
        it at any size); None too where ``%jaxpr_config --graph-png off`` (or ``$JAXPRLENS_GRAPH_PNG=0``) says so."""
        if settings.get("graph_png")[0] == "off":
            return None
        data = render.render(self.source, "png", dpi=PNG_DPI)
        return data if len(data) <= PNG_MAX else None

    def svg(self) -> str:
        if self._svg is None:
            self._svg = render.svg_text(self.pipe("svg"))
        return self._svg

    def save(self, filename) -> Path:
        """Write ``.svg``, ``.png``, ``.pdf`` (needs JAXPRLENS_RENDERER=dot) or ``.dot``/``.gv``."""
        path = Path(filename)
        fmt = path.suffix.lower().lstrip(".")
        if fmt in ("dot", "gv"):
            path.write_text(self.source, encoding="utf-8")
        elif fmt == "svg":
            path.write_text(self.svg(), encoding="utf-8")
        elif fmt in ("png", "pdf", "jpg", "jpeg"):
            path.write_bytes(self.pipe(fmt))
        else:
            raise KeyedError("format_unknown", fmt=repr(fmt), formats="['svg', 'png', 'pdf', 'jpeg', 'dot', 'gv']")
        return path

    # ------------------------------------------------------------ display
    def summary(self) -> str:
        lang = self.lang
        n = count_eqns(self.root) if self.group is None or self.group.parent is None else self.group.size
        counts = t("graph_counts", lang, n=n, drawn=self._draw.drawn)
        text = (t("graph_of_path", lang, path=self.path, counts=counts) if self.path else
                t("graph_of_all", lang, counts=counts))
        if self._draw.folded:
            items = [t("folded_item", lang, path=p, n=k) for p, k in self._draw.folded[:8]]
            items += ["..."] if len(self._draw.folded) > 8 else []
            text += t("graph_folded", lang, items=t("sep", lang).join(items))
        closed = getattr(self._draw, "closed", [])
        if closed:
            items = [t("folded_item", lang, path=g.id, n=g.size) for g in closed[:6]]
            items += ["..."] if len(closed) > 6 else []
            key = "graph_folds" if isinstance(self.group.tree, fold.FoldTree) else "graph_calls"
            text += t(key, lang, n=len(closed), items=t("sep", lang).join(items))
        return text + t("graph_save", lang)

    needs = ("graph",)     # the front end this view's HTML uses (``front.assets``; a Stack carries it once)

    def html(self) -> str:
        return output(self.body(), self.needs)

    def body(self) -> str:
        """The drawing as a picture (an ``<img>`` of the SVG: sanitizers keep it, untrusted pages show it),
        with the calls left folded drawn ahead of time; where trusted the script makes each picture the live
        SVG (pan, zoom, a click opens a call, a breadcrumb goes back) and links nodes with table rows."""
        views = self.views() if self.ahead else []
        try:
            svgs = render.svg_many([self.source] + [v.source for v in views]) if views else [self.svg()]
        except render.RenderError as e:
            return missing_html(e, self.source, self.lang)
        if self._svg is None:
            self._svg = svgs[0]
        keep, size = 1, len(svgs[0]) * 4 // 3              # each drawing travels as base64 (4 bytes per 3)
        while keep < len(svgs) and size + len(svgs[keep]) * 4 // 3 <= PREDRAW_BYTES:
            size += len(svgs[keep]) * 4 // 3
            keep += 1
        parts = [v._view_html(svg, i > 0) for i, (v, svg) in enumerate(zip([self] + views[:keep - 1], svgs))]
        lang = self.lang
        words = labels(fit=t("zoom_fit", lang), one=t("zoom_one", lang), hint=t("graph_hint", lang),
                       notdrawn=t("graph_notdrawn", lang, path="{path}"),     # the script puts the call in
                       more=t("graph_more", lang))      # under a drawing taller than its port
        # the hint says how to make the picture live; the script replaces it with how to pan and zoom
        hint = f'<p class="jl-hint">{html(t("graph_untrusted", lang))}</p>'
        seen = seen_through_note(self.program, lang) if not self.path else ""    # a jit's body: one line
        seen = f'<p class="jl-seen">{explain_html(seen)}</p>' if seen else ""     # as the table writes it
        return (f'<div class="jaxprlens jl-graph" data-jl-view="graph" lang="{lang}"{words}>{seen}{hint}'
                f'{"".join(parts)}</div>')

    def _view_html(self, svg: str, hidden: bool) -> str:
        if self.group is not None:
            pre = f"{self.prefix}/" if self.prefix else ""
            crumbs = [(pre + g.id if g.parent is not None else self.prefix, group_label(g, self.lang))
                      for g in self.group.crumbs()]
            if self.prefix:
                crumbs.insert(0, ("", t("program", self.lang)))
        else:
            crumbs = [("", t("program", self.lang))] + ([(self.path, self.path)] if self.path else [])
        here = crumbs[-1][0]
        trail = " › ".join(f'<a class="jl-crumb" data-open="{html(k)}">{html(label)}</a>' for k, label in crumbs[:-1])
        trail += (" › " if trail else "") + f'<span class="jl-here">{html(crumbs[-1][1])}</span>'
        picture = base64.b64encode(render.inline_svg(svg).encode("utf-8")).decode("ascii")
        return (f'<div class="jl-gview" data-group="{html(here)}"{" hidden" if hidden else ""}>'
                f'<div class="jl-crumbs">{trail}</div><div class="jl-port"><img alt="{html(self.summary())}" '
                f'style="max-width:100%;height:auto" src="data:image/svg+xml;base64,{picture}"></div></div>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        try:
            svg = self.svg()
        except render.RenderError as e:
            return {"text/plain": missing_text(e, self.source, self.lang),
                    "text/html": missing_html(e, self.source, self.lang)}
        del svg          # the SVG travels once, as the HTML's picture (the script makes it live)
        from jaxprlens.views.table.live import live_bundle        # marimo: drawn as a widget (no script runs there)
        bundle = {"text/plain": self.summary(), "text/html": self.html()}
        if (include is None or "image/png" in include) and not (exclude and "image/png" in exclude):
            png = self.png()          # what LaTeX/PDF exports (nbconvert --to latex/pdf) show
            if png is not None:
                bundle["image/png"] = base64.b64encode(png).decode("ascii")
        return live_bundle(bundle, [self])

    def __repr__(self) -> str:
        return self.summary()


def part(cell) -> Graph:
    """``--graph``: coloured by each equation's measured time with ``--profile`` (``--cost``: by the estimate),
    each node outlined by its kernel with ``--fusion`` (the fusion map the ``--fusion`` part shows), each node that
    talks between devices marked with ``--sharding`` (the map the ``--sharding`` part shows: one compile)."""
    o = cell.opts
    shares = Shares.measured(cell.program, cell.measured) if o.profile and not o.cost else None
    return Graph(cell.program, depth=o.depth, max_nodes=o.max_nodes, path=o.path, lang=o.lang, cost=o.cost,
                 shares=shares, fusion=cell.fused if o.fusion else None,
                 sharding=cell.sharded if o.sharding else None)
