"""``%%jaxpr --memory``: the bytes live along the program (``engine.memory`` counts them), drawn as a line
over the top-level equations with the peak marked, what is live there, the residuals a backward pass keeps,
and XLA's own totals beside them with why they differ.

The chart is an SVG in an ``<img>`` (a data URI): sanitizers keep it, untrusted notebooks show it."""
from __future__ import annotations

import base64
import re

from jaxprlens.engine.cost import si
from jaxprlens.engine.memory import Memory, Value, memory
from jaxprlens.model.program import Program
from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import resolve as resolve_lang, t
from jaxprlens.present.nouns import eqn_text, var_text
from jaxprlens.views.compare import ROOT

_SIZE = re.compile(r"(\d) ([kMGT]?B)\b")
LISTED = 8           # values named at the peak / residuals before "… n more"
LIVE_LISTED = 60     # live bytes printed one by one in the text form
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 900, 210, 70, 20, 28, 30
# the peak's mark in Okabe-Ito vermillion, its words darker (#D55E00 on white is 3.9:1; #A34400 is 6.2:1)
LINE, PEAK, PEAK_TEXT, GRID = "#0072B2", "#D55E00", "#A34400", "#bbbbbb"
HOVERS = 200         # hover strips over the chart at most (each says the biggest equation of its stretch)


def _value_text(v: Value, lang: str) -> str:
    where = (t("memory_input", lang, path=v.path or v.name) if v.kind == "input"
             else t("memory_made", lang, i=v.eqn) if v.eqn is not None else v.kind)
    return t("paren_after", lang, text=f"{var_text(v)} {si(v.bytes, 'B')}", x=where)


def _keep_units(text: str) -> str:
    """``320&nbsp;B``: a size never wraps between its number and its unit (monospace lines break at any space)."""
    return _SIZE.sub(r"\1&nbsp;\2", text)


def _listed(values: list, lang: str) -> str:
    items = [_value_text(v, lang) for v in values[:LISTED]]
    if len(values) > LISTED:
        items.append(t("memory_more", lang, n=len(values) - LISTED))
    return t("list_sep", lang).join(items)


def chart_svg(live: list, peak_eqn: int | None, lang: str) -> str:
    """The live bytes as a step line over the equations, the peak marked; at most one point per pixel
    column (each column keeps its biggest value, so the peak stays)."""
    n = len(live)
    top = max(live) if live else 1
    top = top or 1
    plot_w, plot_h = W - PAD_L - PAD_R, H - PAD_T - PAD_B
    cols: dict = {}
    for i, b in enumerate(live):
        c = int(i * plot_w / max(n, 1))
        cols[c] = max(cols.get(c, 0), b)

    def y(b: float) -> float:
        return PAD_T + plot_h * (1 - b / top)
    step = plot_w / max(n, 1)
    points = []
    for c in sorted(cols):
        x0 = PAD_L + c
        points.append(f"{x0:.1f},{y(cols[c]):.1f} {x0 + max(step, 1):.1f},{y(cols[c]):.1f}")
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="#ffffff"/>',
             f'<line x1="{PAD_L}" y1="{y(0):.1f}" x2="{W - PAD_R}" y2="{y(0):.1f}" stroke="{GRID}"/>',
             f'<line x1="{PAD_L}" y1="{y(top):.1f}" x2="{W - PAD_R}" y2="{y(top):.1f}" stroke="{GRID}" '
             f'stroke-dasharray="3,3"/>',
             f'<text x="{PAD_L - 6}" y="{y(0) + 4:.1f}" text-anchor="end">0 B</text>',
             f'<text x="{PAD_L - 6}" y="{y(top) + 4:.1f}" text-anchor="end">{html(si(top, "B"))}</text>',
             f'<polyline fill="none" stroke="{LINE}" stroke-width="2" points="{" ".join(points)}"/>',
             f'<text x="{PAD_L}" y="{H - 8}">{html(t("memory_axis", lang))} 0</text>',
             f'<text x="{W - PAD_R}" y="{H - 8}" text-anchor="end">{n - 1 if n else 0}</text>']
    if peak_eqn is not None:
        px = PAD_L + int(peak_eqn * plot_w / max(n, 1)) + max(step, 1) / 2
        anchor = "end" if px > W / 2 else "start"
        dx = -8 if anchor == "end" else 8
        parts.append(f'<line x1="{px:.1f}" y1="{y(top):.1f}" x2="{px:.1f}" y2="{y(0):.1f}" stroke="{PEAK}" '
                     f'stroke-dasharray="2,3"/>')
        parts.append(f'<circle cx="{px:.1f}" cy="{y(top):.1f}" r="5" fill="{PEAK}"/>')
        label = t("memory_peak_short", lang, bytes=si(top, "B"), i=peak_eqn)
        parts.append(f'<text x="{px + dx:.1f}" y="{PAD_T - 10}" text-anchor="{anchor}" fill="{PEAK_TEXT}">'
                     f'{html(label)}</text>')      # above the line: its highest point is the peak itself
    parts.append("</svg>")
    return "".join(parts)


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

    def __init__(self, program: Program, lang: str | None = None, compiled: bool = True):
        self.program, self.lang = program, resolve_lang(lang)
        self.memory: Memory = memory(program, compiled=compiled)

    # the data's own names, so ``program.memory().peak`` reads as the issue writes it
    def __getattr__(self, name):
        if name in ("live", "peak", "peak_eqn", "at_peak", "residuals", "base", "compiled", "residual_bytes"):
            return getattr(self.memory, name)
        raise AttributeError(name)

    def lines(self) -> list:
        m, lang = self.memory, self.lang
        out = [t("memory_head", lang)]
        if m.peak_eqn is not None:
            out.append(t("memory_peak", lang, bytes=si(m.peak, "B"), i=m.peak_eqn,
                         eqn=eqn_text(self.program.eqns[m.peak_eqn])))
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
        return out

    def text(self) -> str:
        live = [si(b, "B") for b in self.memory.live[:LIVE_LISTED]]
        if len(self.memory.live) > LIVE_LISTED:
            live.append(t("memory_more", self.lang, n=len(self.memory.live) - LIVE_LISTED))
        lines = self.lines()
        cut = 2 if self.memory.peak_eqn is not None else 1          # after the peak line, when there is one
        return "\n".join(lines[:cut] + ([" ".join(f"{i}:{b}" for i, b in enumerate(live))] if live else [])
                         + lines[cut:])

    def html(self) -> str:
        m, lang = self.memory, self.lang
        svg = chart_svg(m.live, m.peak_eqn, lang)
        alt = t("memory_chart", lang, n=t("n_eqns", lang, n=len(m.live)), bytes=si(m.peak, "B"),
                i=m.peak_eqn if m.peak_eqn is not None else "—")
        picture = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        lines = self.lines()
        return (f'<div class="jaxprlens jl-memory" lang="{lang}"{ROOT}>'
                f'<p style="margin:.3em 0"><b>{html(lines[0])}</b></p>'
                f'<div class="jl-mem-chart" style="position:relative;width:{W}px;max-width:100%">'
                f'<img alt="{html(alt)}" title="{html(alt)}" style="display:block;max-width:100%;height:auto" '
                f'src="data:image/svg+xml;base64,{picture}">{hover_strips(m.live, self.program.eqns, lang)}</div>'
                + "".join(f'<p style="margin:.3em 0">{_keep_units(html(x))}</p>' for x in lines[1:]) + "</div>")


def memory_view(program: Program, lang: str | None = None, compiled: bool = True) -> MemoryView:
    return MemoryView(program, lang=lang, compiled=compiled)
