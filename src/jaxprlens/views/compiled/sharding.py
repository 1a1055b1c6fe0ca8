"""``%%jaxpr --sharding``: where the program's data lives on the device mesh, and which equation made each
collective (``engine.sharding`` reads them from the compiled program).

The view lists the equations in program order with a layout column (the ``PartitionSpec`` over mesh axes and the
block each device holds, as the partitioner decided) and, on every row that caused communication, a marker
(``all-reduce over model · 512 B per device``); above, the totals of one call and per mesh axis; below, a picture
of each argument's layout and of each communicating row's result on the mesh (a grid of devices, the block each
holds), and for the classic causes (a contraction over a split dimension, a reduction over one) a note on how to
move or remove the collective.  Inline styles only: it reads the same untrusted."""
from __future__ import annotations

import math

import numpy as np

from jaxprlens.present.i18n import si
from jaxprlens.engine.sharding import Layout, ShardingMap, sharding_map
from jaxprlens.model.program import Program
from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import ljust, resolve as resolve_lang, t, width
from jaxprlens.present.nouns import eqn_text
from jaxprlens.views.compiled.compare import ROOT

ROWS = 400          # equations listed (the rest counted)
PICTURES = 6        # layout pictures drawn (arguments first, then communicating rows)
CELL = "padding:1px 6px;text-align:left;vertical-align:top"
MARK = "#D55E00"    # Okabe-Ito vermillion: the rows that talk
# a block's colour in a picture (Okabe-Ito, then greys): devices that hold the same block share one
BLOCKS = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#CC79A7", "#999999", "#D55E00")


def spec_text(layout: Layout) -> str:
    """``P('data', None)`` as JAX writes a ``PartitionSpec``."""
    return repr(layout.spec)


def shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(n) for n in shape) + "]"


def layout_text(layout: Layout | None, lang: str, one: bool = False) -> str:
    """The layout column's words (``one``: the program runs on one device)."""
    if one:
        return t("shard_whole", lang)
    if layout is None:
        return t("shard_no_layout", lang)
    if layout.manual:
        return t("shard_manual", lang, local=shape_text(layout.local))
    if layout.device is not None:
        return t("shard_on_device", lang, device=layout.device)
    if layout.replicated:
        return t("shard_replicated", lang)
    return t("shard_split", lang, spec=spec_text(layout), local=shape_text(layout.local))


def axes_text(axes: tuple, lang: str) -> str:
    return "×".join(axes) if axes else t("shard_axes_all", lang)


class ShardingView(View):
    """The sharding map of ``program`` (``program.sharding()``); ``.map`` is the ``ShardingMap``, and its
    ``collectives``, ``layout`` and totals read through."""

    def __init__(self, program: Program, device=None, lang: str | None = None):
        self.program, self.lang = program, resolve_lang(lang)
        self.map: ShardingMap = sharding_map(program, device)
        self._eqns = {e.id: e for e in program.walk()}

    @property
    def collectives(self) -> list:
        return self.map.collectives

    @property
    def layout(self) -> dict:
        return self.map.layout

    @property
    def total(self):
        return self.map.total

    @property
    def per_axes(self) -> dict:
        return self.map.per_axes

    # ------------------------------------------------------------ words

    def marker(self, c, eqn_id: str | None = None) -> str:
        """``all-reduce over model · 512 B per device``; on the row of ``eqn_id``, the other equations it carries
        values of when XLA combined it from several (``, shared with equation 5``)."""
        key = "shard_marker_loop" if c.in_loop else "shard_marker"
        text = t(key, self.lang, kind=c.kind, axes=axes_text(c.axes, self.lang), bytes=si(c.bytes, "B"))
        others = [e for e in c.eqns if e != eqn_id]
        if eqn_id is not None and len(c.eqns) > 1:
            text += t("shard_marker_shared", self.lang, eqns=t("list_sep", self.lang).join(others))
        return text

    def head(self) -> str:
        m, lang = self.map, self.lang
        if m.partitions <= 1:
            return t("shard_one_device", lang)
        mesh = "×".join(f"{a}={n}" for a, n in zip(m.mesh.names, m.mesh.sizes))
        return t("shard_head", lang, mesh=mesh, n=m.partitions)

    def summary(self) -> list:
        m, lang = self.map, self.lang
        if m.partitions <= 1:
            return []
        if not m.collectives:
            return [t("shard_none", lang)]
        total = m.total
        out = [t("shard_total", lang, n=t("n_collectives", lang, n=total.count), bytes=si(total.bytes, "B"))]
        out.append(t("semi", lang).join(
            t("shard_per_axes", lang, axes=axes_text(axes, lang), n=t("n_collectives", lang, n=v.count),
              bytes=si(v.bytes, "B")) for axes, v in m.per_axes.items()))
        return out

    def notes(self) -> list:
        lang, out, seen = self.lang, [], set()
        for c in self.map.collectives:
            if c.case is None or (c.eqn, c.case) in seen:
                continue
            seen.add((c.eqn, c.case))
            out.append(t(f"shard_note_{c.case}", lang, eqn=c.eqn, prim=self._eqns[c.eqn].primitive,
                         axes=axes_text(c.axes, lang), kind=c.kind, bytes=si(c.bytes, "B")))
        unnamed = [c for c in self.map.collectives if c.eqn not in self._eqns]
        if unnamed:
            out.append(t("shard_unnamed", lang, items=t("list_sep", lang).join(
                f"{c.name} ({self.marker(c)})" for c in unnamed)))
        return out

    def _inputs(self) -> str:
        items = [f"{v.name}: {layout_text(lay, self.lang)}" for v, lay in zip(self.program.invars, self.map.inputs)]
        return t("shard_inputs", self.lang, items=t("semi", self.lang).join(items))

    def _rows(self) -> list:
        """``(eqn, equation text, layout text, [markers])`` in program order (at most ``ROWS``)."""
        out = []
        for n, eqn in enumerate(self.program.walk()):
            if n >= ROWS:
                break
            lay = layout_text(self.map.layout.get(eqn.id), self.lang, self.map.partitions <= 1)
            out.append((eqn, "  " * eqn.depth + eqn_text(eqn, 40), lay,
                        [self.marker(c, eqn.id) for c in self.map.of(eqn.id)]))
        return out

    # ------------------------------------------------------------ text

    def text(self) -> str:
        lang = self.lang
        lines = [self.head()] + self.summary()
        if self.map.partitions > 1:
            lines.append(self._inputs())
        head = ("#", t("shard_col_eqn", lang), t("shard_col_layout", lang), t("shard_col_comm", lang))
        rows = [(e.id, text, lay, t("semi", lang).join(marks)) for e, text, lay, marks in self._rows()]
        widths = [max(width(r[c]) for r in [head] + rows) for c in range(3)]
        for r in [head] + rows:
            lines.append("  ".join([ljust(r[c], widths[c]) for c in range(3)] + [r[3]]).rstrip())
        n = sum(1 for _ in self.program.walk())
        if n > ROWS:
            lines.append(t("memory_more", lang, n=n - ROWS))
        return "\n".join(lines + self.notes())

    # ------------------------------------------------------------ HTML

    def picture(self, key) -> str:
        """A value's layout on the mesh as static HTML: a grid of devices (the mesh's first axis down, the others
        across), each cell the device's id and the block it holds (index ranges of the global value), cells that
        hold the same block in one colour (a one-axis mesh in one row).  ``key``: an equation id (its first result) or
        an argument's index."""
        lang, mesh = self.lang, self.map.mesh
        if isinstance(key, int):
            layout, name = self.map.inputs[key], self.program.invars[key].name
        else:
            layout = self.map.layout[key]
            eqn = self._eqns[key]
            name = eqn.outvars[0].name if eqn.outvars else key
        sizes = mesh.sizes or (1,)
        rows = sizes[0] if len(sizes) > 1 else 1          # a one-axis mesh: one row
        cols = math.prod(sizes) // rows
        blocks: dict = {}
        cells = []
        for d in range(math.prod(sizes)):
            coords = dict(zip(mesh.names, np.unravel_index(d, sizes))) if mesh.sizes else {}
            block = self._block(layout, coords)
            colour = BLOCKS[blocks.setdefault(block, len(blocks)) % len(BLOCKS)]
            text = "[" + ", ".join(block) + "]" if block else "[:]"
            cells.append(f'<td data-device="{d}" style="border:1px solid #888;padding:3px 6px;white-space:nowrap;'
                         f'background:{colour}40;text-align:center;vertical-align:middle">'
                         f'<div style="font-size:max(11px,85%);opacity:.8">{html(t("shard_device", lang, id=d))}</div>'
                         f'<div>{html(text)}</div></td>')
        body = "".join("<tr>" + "".join(cells[r * cols:(r + 1) * cols]) + "</tr>" for r in range(rows))
        title = t("shard_picture_head", lang, name=name, shape=shape_text(layout.shape))
        same = ""
        if layout.replicated_over and not layout.manual:
            words = t("shard_picture_same", lang, axes=axes_text(layout.replicated_over, lang))
            same = f'<div style="font-size:max(11px,85%);opacity:.8">{html(words)}</div>'
        return (f'<figure class="jl-shard-picture" data-value="{html(str(key))}" '
                f'style="display:inline-block;vertical-align:top;max-width:30em;margin:.4em 1.5em .4em 0">'
                f'<figcaption>{html(title)} — {html(layout_text(layout, lang))}</figcaption>'
                f'<table style="border-collapse:collapse;margin:.2em 0">{body}</table>{same}</figure>')

    def _block(self, layout: Layout, coords: dict) -> tuple:
        """The index ranges the device at ``coords`` holds, one per dimension as numpy slices them (``("0:4", ":")``);
        ``()`` when it holds all of the value."""
        if layout.manual or layout.device is not None:
            return ()
        out = []
        for dim, n in enumerate(layout.shape):
            axes = layout.axes(dim)
            if not axes:
                out.append(":")
                continue
            index, count = 0, 1
            for a in axes:                            # the first axis named is the slowest
                size = self.map.mesh.size((a,))
                index, count = index * size + int(coords.get(a, 0)), count * size
            step = -(-n // count)
            out.append(f"{index * step}:{min(n, (index + 1) * step)}")
        return tuple(out) if any(s != ":" for s in out) else ()

    def html(self) -> str:
        lang, m = self.lang, self.map
        body = []
        for eqn, text, lay, marks in self._rows():
            talk = "".join(f'<div class="jl-comm" style="border-left:6px solid {MARK};padding-left:4px;'
                           f'white-space:nowrap">⇄ {html(x)}</div>' for x in marks)
            tint = f' class="jl-comm-row" style="background:{MARK}1f"' if marks else ""
            body.append(f'<tr data-eqn="{html(eqn.id)}"{tint}><td style="{CELL}">{html(eqn.id)}</td>'
                        f'<td style="{CELL};white-space:pre-wrap">{html(text)}</td>'
                        f'<td style="{CELL}">{html(lay)}</td><td style="{CELL}">{talk}</td></tr>')
        n = sum(1 for _ in self.program.walk())
        if n > ROWS:
            body.append(f'<tr><td colspan="4" style="{CELL}">{html(t("memory_more", lang, n=n - ROWS))}</td></tr>')
        head = "".join(f'<th style="{CELL}">{html(x)}</th>' for x in
                       ("#", t("shard_col_eqn", lang), t("shard_col_layout", lang), t("shard_col_comm", lang)))
        summary = "".join(f'<p style="margin:.3em 0" class="jl-shard-summary">{html(x)}</p>' for x in self.summary())
        pictures = ""
        if m.partitions > 1:
            keys = list(range(len(m.inputs))) + list(dict.fromkeys(     # a shard_map body's blocks are not drawn
                c.eqn for c in m.collectives if c.eqn in m.layout and not m.layout[c.eqn].manual))
            pictures = "".join(self.picture(k) for k in keys[:PICTURES])
            summary += f'<p style="margin:.3em 0">{html(self._inputs())}</p>'
        notes = "".join(f'<p style="margin:.3em 0" class="jl-shard-note">{html(x)}</p>' for x in self.notes())
        return (f'<div class="jaxprlens jl-sharding" lang="{lang}"{ROOT}>'
                f'<p style="margin:.3em 0"><b>{html(self.head())}</b></p>{summary}'
                f'<table style="border-collapse:collapse;margin:.4em 0"><thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(body)}</tbody></table>{notes}{pictures}</div>')


class Comms:
    """The graph marked by communication (``--graph --sharding``, ``program.graph(sharding=True)``): each node whose
    equations made a collective drawn with a thick vermillion border and a line under its label (``⇄ all-reduce
    over model · 512 B``, bytes per device), one legend entry saying so.  The border wins over a kernel's outline
    (``--fusion``): where both apply, the kernel stays in the node's tooltip."""

    LINES = 2           # collectives named under one node (the rest counted)

    def __init__(self, smap: ShardingMap):
        self.map = smap

    def of(self, eqn_ids, nested: bool = False) -> list:
        """The collectives ``eqn_ids`` made (``nested``: also those of equations inside them, for a node that
        stands for a folded body or a run of calls)."""
        ids = list(eqn_ids)
        out = [c for i in ids for c in self.map.of(i)]
        if nested:
            heads = tuple(f"{i}/" for i in ids)
            out += [c for c in self.map.collectives if c.eqn is not None and c.eqn.startswith(heads)]
        return out

    def lines(self, found: list, lang: str) -> list:
        """``⇄ all-reduce over model · 512 B`` per collective (the same kind and axes once, bytes added)."""
        merged: dict = {}
        for c in found:
            n, b = merged.get((c.kind, c.axes, c.in_loop), (0, 0))
            merged[(c.kind, c.axes, c.in_loop)] = (n + 1, b + c.bytes)
        out = []
        for (kind, axes, loop), (n, b) in list(merged.items())[:self.LINES]:
            key = "shard_graph_mark_loop" if loop else "shard_graph_mark"
            words = t(key, lang, kind=kind, axes=axes_text(axes, lang), bytes=si(b, "B"))
            out.append("⇄ " + (t("shard_graph_times", lang, n=n, words=words) if n > 1 else words))
        if len(merged) > self.LINES:
            out.append(t("n_more", lang, n=len(merged) - self.LINES))
        return out

    def legend(self, lang: str) -> list:
        """``[(words, fill, stroke, "alone")]``: the one legend cell for the marked nodes, a row of its own."""
        return [(t("shard_graph_legend", lang), "#ffffff", MARK, "alone")]


def sharding_view(program: Program, device=None, lang: str | None = None) -> ShardingView:
    return ShardingView(program, device=device, lang=lang)


def part(cell) -> ShardingView:
    """``--sharding``: where the data lives on the mesh, and which equation made each collective."""
    return cell.sharded
