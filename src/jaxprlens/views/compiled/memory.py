"""``%%jaxpr --memory``: the bytes live along the program (``engine.memory`` counts them), drawn as a line
over the top-level equations with the peak marked, what is live there, the residuals a backward pass keeps,
and XLA's own totals beside them with why they differ.

The chart is an SVG in an ``<img>`` (a data URI): sanitizers keep it, untrusted notebooks show it.  The picture
is transparent and holds only the marks, in colours that read on a light and a dark page alike (>= 3:1 on white
and on JupyterLab Dark's #111); its words are HTML laid over it, so they take the theme's text colour, trusted
or not (an SVG image cannot read the page's theme, and the sanitizer keeps no stylesheet that could tell it)."""
from __future__ import annotations

import base64

from jaxprlens.present.i18n import si
from jaxprlens.engine.fusion import with_compiled
from jaxprlens.engine.memory import Memory, Stretch, Value, memory, stretch
from jaxprlens.model.calls import Group
from jaxprlens.model.program import Eqn, Program
from jaxprlens.present.display import View
from jaxprlens.present.escape import html, html_units
from jaxprlens.present.front import output
from jaxprlens.present.i18n import resolve as resolve_lang, t
from jaxprlens.present.nouns import eqn_text, var_text
from jaxprlens.present.rows import LEFT, Rows
from jaxprlens.present.usage import wrap
from jaxprlens.views.compiled.callfold import WIDTH, CallFold, wrap_items
from jaxprlens.views.compiled.compare import ROOT

LISTED = 8           # values named at the peak / residuals before "… n more"
LIVE_LISTED = 60     # live bytes printed one by one in the text form
PEAK_EQN = 60        # characters of the peak's equation in the text form
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 900, 210, 70, 20, 28, 30
# Okabe-Ito blue and vermillion, a mid grey: marks only (WCAG's 3:1 for graphics) on white (5.2, 3.9, 3.5:1)
# and on #111111 (3.6, 4.9, 5.3:1); the words are the page's text colour
LINE, PEAK, GRID = "#0072B2", "#D55E00", "#888888"
HOVERS = 200         # hover strips over the chart at most (each says the biggest equation of its stretch)


def _value_text(v: Value, lang: str) -> str:
    where = (t("memory_input", lang, path=v.path or v.name) if v.kind == "input"
             else t("memory_made", lang, i=v.eqn) if v.eqn is not None else v.kind)
    return t("paren_after", lang, text=f"{var_text(v)} {si(v.bytes, 'B')}", x=where)


def _listed(values: list, lang: str) -> str:
    items = [_value_text(v, lang) for v in values[:LISTED]]
    if len(values) > LISTED:
        items.append(t("memory_more", lang, n=len(values) - LISTED))
    return t("list_sep", lang).join(items)


def _pct(a: float, whole: float) -> str:
    return f"{100 * a / whole:.3f}%"


def _label(text: str, x: float, y: float, anchor: str = "start", cls: str = "") -> str:
    """A word of the chart as HTML over the picture: ``x``, ``y`` in the SVG's units (``y`` the middle of the
    line), in percent so that it follows the picture's width; ``end`` anchors it by its right edge."""
    side = f"right:{_pct(W - x, W)}" if anchor == "end" else f"left:{_pct(x, W)}"
    return (f'<span class="jl-mem-label{" " + cls if cls else ""}" style="position:absolute;{side};'
            f'top:{_pct(y, H)};margin-top:-0.6em;line-height:1.2em;font-size:12px;white-space:nowrap">'
            f'{html(text)}</span>')


def _geometry(live: list, peak_eqn: int | None) -> tuple:
    n = len(live)
    top = (max(live) if live else 1) or 1
    plot_w, plot_h = W - PAD_L - PAD_R, H - PAD_T - PAD_B
    step = plot_w / max(n, 1)
    px = None if peak_eqn is None else PAD_L + int(peak_eqn * plot_w / max(n, 1)) + max(step, 1) / 2
    return n, top, plot_w, plot_h, step, px


def chart_svg(live: list, peak_eqn: int | None) -> str:
    """The live bytes as a step line over the equations, the peak marked, no words and no background; at most one
    point per pixel column (each column keeps its biggest value, so the peak stays)."""
    n, top, plot_w, plot_h, step, px = _geometry(live, peak_eqn)
    cols: dict = {}
    for i, b in enumerate(live):
        c = int(i * plot_w / max(n, 1))
        cols[c] = max(cols.get(c, 0), b)

    def y(b: float) -> float:
        return PAD_T + plot_h * (1 - b / top)
    points = []
    for c in sorted(cols):
        x0 = PAD_L + c
        points.append(f"{x0:.1f},{y(cols[c]):.1f} {x0 + max(step, 1):.1f},{y(cols[c]):.1f}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
             f'<line x1="{PAD_L}" y1="{y(0):.1f}" x2="{W - PAD_R}" y2="{y(0):.1f}" stroke="{GRID}"/>',
             f'<line x1="{PAD_L}" y1="{y(top):.1f}" x2="{W - PAD_R}" y2="{y(top):.1f}" stroke="{GRID}" '
             f'stroke-dasharray="3,3"/>',
             f'<polyline fill="none" stroke="{LINE}" stroke-width="2" points="{" ".join(points)}"/>']
    if px is not None:
        parts.append(f'<line x1="{px:.1f}" y1="{y(top):.1f}" x2="{px:.1f}" y2="{y(0):.1f}" stroke="{PEAK}" '
                     f'stroke-dasharray="2,3"/>')
        parts.append(f'<circle cx="{px:.1f}" cy="{y(top):.1f}" r="5" fill="{PEAK}"/>')
    parts.append("</svg>")
    return "".join(parts)


def chart_labels(live: list, peak_eqn: int | None, lang: str) -> str:
    """The chart's words (the byte scale, the equation axis, the peak) as HTML over ``chart_svg``'s picture."""
    n, top, plot_w, plot_h, step, px = _geometry(live, peak_eqn)
    labels = [_label("0 B", PAD_L - 6, PAD_T + plot_h, "end"), _label(si(top, "B"), PAD_L - 6, PAD_T, "end"),
              _label(f'{t("memory_axis", lang)} 0', PAD_L, H - PAD_B / 2),
              _label(str(n - 1 if n else 0), W - PAD_R, H - PAD_B / 2, "end")]
    if px is not None:      # above the line: its highest point is the peak itself
        end = px > W / 2
        labels.append(_label(t("memory_peak_short", lang, bytes=si(top, "B"), i=peak_eqn), px + (-8 if end else 8),
                             PAD_T / 2 - 2, "end" if end else "start", "jl-mem-peak"))
    return "".join(labels)


def hover_strips(live: list, eqns: list, lang: str) -> str:
    """Transparent strips laid over the chart's plot area (in percent, so they follow the picture's width), one per
    equation up to ``HOVERS``: hovering one tells the bytes live after its equation, and which equation that is."""
    n = len(live)
    if not n:
        return ""
    k = min(n, HOVERS)
    strips = []
    for b in range(k):
        lo, hi = b * n // k, max((b + 1) * n // k, b * n // k + 1)
        i = max(range(lo, hi), key=lambda j: live[j])
        tip = t("memory_live_at", lang, bytes=si(live[i], "B"), i=i, eqn=eqn_text(eqns[i], 60))
        strips.append(f'<span data-eqn="{i}" title="{html(tip)}" style="flex:1 1 0;min-width:0"></span>')
    box = (f"position:absolute;left:{100 * PAD_L / W:.3f}%;width:{100 * (W - PAD_L - PAD_R) / W:.3f}%;"
           f"top:{100 * PAD_T / H:.3f}%;height:{100 * (H - PAD_T - PAD_B) / H:.3f}%;display:flex")
    return f'<div class="jl-mem-hover" style="{box}">{"".join(strips)}</div>'


class MemoryView(View):
    """Memory along ``program`` (``program.memory()``): ``.memory`` is the ``engine.memory.Memory``."""

    def __init__(self, program: Program, lang: str | None = None, compiled: bool = True, device=None):
        self.program, self.lang = program, resolve_lang(lang)
        self.memory: Memory = memory(program)
        if compiled:                     # XLA's figures on the device the cell runs on: its one compile
            with_compiled(self.memory, program, device)
        self.fold = CallFold(program, self.lang, "fold_memory")    # folded by the table's calls, where it folds

    @property
    def needs(self) -> tuple:
        """The front end: a folded view opens its calls with the table's script (a flat one needs none)."""
        return ("table",) if self.fold.folded else ()

    # ------------------------------------------------------------ folded by calls
    def stretch(self, item) -> Stretch:
        """Memory along a call's equations (or one top-level equation's)."""
        if isinstance(item, Group):
            first, last = self.fold.layout.tree.span(item)
        else:
            first = last = item.index
        return stretch(self.memory, first, last)

    def call_words(self, item) -> str:
        """``peak 45.6 kB after equation 123, residuals: 4 values, 1.2 kB``."""
        s, lang = self.stretch(item), self.lang
        bits = [t("fold_peak", lang, bytes=si(s.peak, "B"), i=s.peak_eqn)] if s.peak_eqn is not None else []
        if s.residuals:
            bits.append(t("fold_residuals", lang, n=len(s.residuals), bytes=si(s.residual_bytes, "B")))
        return t("sep", lang).join(bits)

    def _eqn_words(self, eqn: Eqn) -> str:
        s, lang = self.stretch(eqn), self.lang
        bits = [t("fold_live", lang, bytes=si(s.peak, "B"))]
        if s.residuals:
            bits.append(t("fold_residual", lang, bytes=si(s.residual_bytes, "B")))
        return t("sep", lang).join(bits)

    def _eqn_line(self, eqn: Eqn) -> str:
        return f"{eqn.index:>3}  {eqn_text(eqn, 40)}  → {self._eqn_words(eqn)}"

    def _eqn_row(self, eqn: Eqn) -> str:
        return (f'<tr class="jl-row" data-eqn="{html(eqn.id)}" data-primitive="{html(eqn.primitive)}">'
                f'<td>{eqn.index}</td>'
                f'<td class="jl-eq"{LEFT}>{html(eqn_text(eqn, 60))}</td>'
                f'<td class="jl-note"{LEFT}>{html_units(self._eqn_words(eqn))}</td></tr>')

    def _fold_html(self) -> str:
        lang = self.lang
        head = (Rows(lang).colgroup_html() + "<thead><tr>" + "".join(f"<th{LEFT}>{html(x)}</th>" for x in (
            "#", t("memory_axis", lang), t("memory_col_bytes", lang))) + "</tr></thead>")
        return self.fold.html(head, lambda g: html_units(self.call_words(g)), self._eqn_row, "jl-memory-calls")

    # the data's own names, so ``program.memory().peak`` reads as the issue writes it
    def __getattr__(self, name):
        if name in ("live", "peak", "peak_eqn", "at_peak", "residuals", "base", "compiled", "residual_bytes"):
            return getattr(self.memory, name)
        raise AttributeError(name)

    def lines(self, limit: int | None = None) -> list:
        """The view's sentences; ``limit``: the peak's equation cut to that many characters (an optimizer's
        update of every leaf is one equation of a hundred names)."""
        m, lang = self.memory, self.lang
        out = [t("memory_head", lang)]
        if m.peak_eqn is not None:
            eqn = eqn_text(self.program.eqns[m.peak_eqn])
            if limit is not None and len(eqn) > limit:
                eqn = eqn[:limit - 1] + "…"
            out.append(t("memory_peak", lang, bytes=si(m.peak, "B"), i=m.peak_eqn, eqn=eqn))
        out.append(t("memory_base", lang, bytes=si(m.base, "B")))
        out.append(t("memory_at_peak", lang, values=_listed(m.at_peak, lang)))
        if m.residuals is not None:
            out.append(t("memory_residuals", lang, n=len(m.residuals), bytes=si(m.residual_bytes, "B"),
                         values=_listed(m.residuals, lang)))
        if m.compiled:
            c = m.compiled
            out.append(t("memory_xla", lang, args=si(c["argument"], "B"), out=si(c["output"], "B"),
                         temp=si(c["temp"], "B"), total=si(c["argument"] + c["output"] + c["temp"], "B")))
            out.append(t("memory_why", lang))
        elif m.compile_failed:
            out.append(t("memory_xla_failed", lang, error=m.compile_failed))
        return out

    def text(self) -> str:
        live = [si(b, "B") for b in self.memory.live[:LIVE_LISTED]]
        if len(self.memory.live) > LIVE_LISTED:
            live.append(t("memory_more", self.lang, n=len(self.memory.live) - LIVE_LISTED))
        lines = [wrap(line, WIDTH) for line in self.lines(PEAK_EQN)]     # each sentence in lines of WIDTH columns
        cut = 2 if self.memory.peak_eqn is not None else 1          # after the peak line, when there is one
        fold = self.fold.text(self.call_words, self._eqn_line) if self.fold.folded else []
        bytes_live = wrap_items([f"{i}:{b}" for i, b in enumerate(live)], WIDTH, " ")
        return "\n".join([x for line in lines[:cut] for x in line] + bytes_live
                         + [x for line in lines[cut:] for x in line] + fold)

    def html(self) -> str:
        return output(self.body(), self.needs)

    def body(self) -> str:
        m, lang = self.memory, self.lang
        svg = chart_svg(m.live, m.peak_eqn)
        alt = t("memory_chart", lang, n=t("n_eqns", lang, n=len(m.live)), bytes=si(m.peak, "B"),
                i=m.peak_eqn if m.peak_eqn is not None else "—")
        picture = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        lines = self.lines()
        return (f'<div class="jaxprlens jl-memory" lang="{lang}"{ROOT}>'
                f'<p style="margin:.3em 0"><b>{html(lines[0])}</b></p>'
                f'<div class="jl-mem-chart" style="position:relative;width:{W}px;max-width:100%">'
                f'<img alt="{html(alt)}" title="{html(alt)}" style="display:block;max-width:100%;height:auto" '
                f'src="data:image/svg+xml;base64,{picture}">{chart_labels(m.live, m.peak_eqn, lang)}'
                f'{hover_strips(m.live, self.program.eqns, lang)}</div>'
                + "".join(f'<p style="margin:.3em 0">{html_units(x)}</p>' for x in lines[1:])
                + (self._fold_html() if self.fold.folded else "") + "</div>")


def memory_view(program: Program, lang: str | None = None, compiled: bool = True, device=None) -> MemoryView:
    return MemoryView(program, lang=lang, compiled=compiled, device=device)


def part(cell) -> MemoryView:
    """``--memory``: bytes live along the program (XLA's figures from the compile ``--run``/``--fusion`` share)."""
    return memory_view(cell.program, lang=cell.opts.lang, device=cell.opts.device)
