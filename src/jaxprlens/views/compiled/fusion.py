"""``%%jaxpr --fusion``: which equations became which compiled kernel (``engine.fusion`` maps them).

The view lists the equations in program order, each row tinted by its kernel's colour (and naming every kernel
that computes it), then the kernels as a legend (kind, equations, estimated FLOPs and bytes), what XLA removed, and
one summary line: ``6 equations → 1 kernel; intermediate bytes not written: …``.  An equation XLA computes again in
several kernels is listed under each, marked ``(recomputed)`` in its row and in each kernel's; one computed in parts
(a reduction in two passes) ``(in part)``.  Profiled (``--profile --fusion``, ``program.fusion(profile=True)``)
the kernel table gets a last column, each kernel's measured time and share (``measured 1.2 µs (12% of time)``, the
one varying text, masked by ``notebooks/sanitize.cfg``; never padded, so the masked text lines up), rows for the
kernels no equation comes from that took time, and a total row.  Inline styles only: it reads the same untrusted."""
from __future__ import annotations

from jaxprlens.present.i18n import si
from jaxprlens.engine.fusion import FusionMap, fusion_map, share
from jaxprlens.engine.runner import BUDGET, REPEAT
from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import ljust, resolve as resolve_lang, t, width
from jaxprlens.present.nouns import eqn_text
from jaxprlens.present.front import output
from jaxprlens.present.rows import Rows, walk
from jaxprlens.present.usage import wrap
from jaxprlens.present.words import fmt_time
from jaxprlens.model.calls import Group
from jaxprlens.model.program import Eqn, Program
from jaxprlens.views.compiled.callfold import WIDTH, CallFold, eqn_ids, wrap_items
from jaxprlens.views.compiled.compare import ROOT

# Okabe-Ito: told apart with the common colour-vision deficiencies; a kernel's rows get its colour's tint
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#999999")
ROWS = 400          # equations listed (the rest counted); kernels listed likewise
LISTED = 12         # a kernel's equations named in its row (the rest counted); equations in a note likewise
NAMED = 4           # kernels named in a call's row (the rest counted)
CELL = "padding:1px 6px;text-align:left;vertical-align:top"


def colours(fmap: FusionMap) -> dict:
    """Kernel name -> its colour (the palette in the order XLA lists the kernels): the view's rows and legend, and
    the graph's outlines (``Kernels``) use the same."""
    return {k.name: PALETTE[i % len(PALETTE)] for i, k in enumerate(fmap.kernels)}


class Kernels:
    """The graph coloured by kernel (``--graph --fusion``, ``program.graph(fusion=True)``): each equation's node
    outlined in its kernel's colour (dashed where XLA removed it but its results feed that kernel only), the
    kernels drawn listed in the legend."""

    LEGEND = 8          # kernels named in the legend (the rest counted)
    NAME = 28           # characters of a kernel's name there

    def __init__(self, fmap: FusionMap):
        self.map, self.colour = fmap, colours(fmap)

    def of(self, eqn_ids) -> tuple | None:
        """``(kernel, colour, likely)`` when all of ``eqn_ids`` landed in one kernel (``likely``: absorbed)."""
        found = {(self.map.of.get(i) or self.map.absorbed.get(i), i not in self.map.of) for i in eqn_ids}
        names = {name for name, _ in found}
        if len(names) != 1 or None in names:
            return None
        name = names.pop()
        return name, self.colour[name], all(likely for _, likely in found)

    def words(self, kernel: str, likely: bool, lang: str) -> str:
        return t("fusion_absorbed_short", lang, kernel=kernel) if likely else t("graph_kernel_tip", lang, kernel=kernel)

    def legend(self, drawn: list, lang: str) -> list:
        """``[(words, fill, stroke)]``: a title cell (on a row of its own), then the kernels among ``drawn``
        (names), in XLA's order."""
        names = [k.name for k in self.map.kernels if k.name in set(drawn)]
        cells = [(t("graph_kernels", lang), "#ffffff", "#888888", "new row")]
        cells += [(k if len(k) <= self.NAME else k[:self.NAME - 1] + "…", self.colour[k] + "40", self.colour[k])
                  for k in names[:self.LEGEND]]
        if len(names) > self.LEGEND:
            cells.append((t("n_more", lang, n=len(names) - self.LEGEND), "#ffffff", "#888888"))
        return cells


def _kind(kind: str, lang: str) -> str:
    return t(f"fusion_{kind}", lang) if kind.endswith("fusion") and " " in kind else kind


class FusionView(View):
    """The fusion map of ``program`` (``program.fusion()``); ``.map`` is the ``FusionMap``."""

    def __init__(self, program: Program, device=None, lang: str | None = None, profile: bool = False,
                 repeat: int = REPEAT, budget: float = BUDGET):
        from jaxprlens.engine.devices import resolve_device
        self.program, self.lang, self.budget = program, resolve_lang(lang), budget
        self.map: FusionMap = fusion_map(program, device, profile=profile, repeat=repeat, budget=budget)
        self.device = resolve_device(device).platform
        self.colour = colours(self.map)
        self.fold = CallFold(program, self.lang, "fold_fusion")    # folded by the table's calls, where it folds

    # the map's own names, so ``program.fusion().kernels`` reads as the issue writes it
    @property
    def kernels(self) -> list:
        return self.map.kernels

    @property
    def removed(self) -> list:
        return self.map.removed

    @property
    def inlined(self) -> list:
        return self.map.inlined

    @property
    def of(self) -> dict:
        return self.map.of

    def summary(self) -> str:
        m, lang = self.map, self.lang
        return t("fusion_summary", lang, eqns=t("n_eqns", lang, n=m.n_eqns),
                 kernels=t("n_kernels", lang, n=len(m.kernels)), saved=si(m.saved, "B"))

    def _eqn_names(self, ids: list, marked: bool = False) -> list:
        """``3 exp`` for each of ``ids``; ``marked``: ``3 exp (recomputed)`` where XLA computes it again in several
        kernels, ``1 reduce_sum (in part)`` where several kernels compute it in parts."""
        if not hasattr(self, "_by_id"):
            self._by_id = {e.id: e for e in self.program.walk()}
        names = [f"{i} {self._by_id[i].primitive}" for i in ids]
        if not marked:
            return names
        return [t("fusion_marked", self.lang, eqn=n, mark=t(f"fusion_mark_{mark}", self.lang)) if mark else n
                for n, mark in zip(names, map(self._mark, ids))]

    def _mark(self, eqn_id: str) -> str | None:
        m = self.map
        return "recomputed" if eqn_id in m.recomputed else "part" if eqn_id in m.spread else None

    def _head_lines(self) -> list:
        """Under the summary: the equations XLA computes again in several kernels, and those computed in parts."""
        m, lang = self.map, self.lang
        out = []
        if m.recomputed:
            out.append(t("fusion_recomputed", lang, eqns=t("n_eqns", lang, n=len(m.recomputed))))
        parts = [e for e in m.spread if e not in m.recomputed]
        if parts:
            out.append(t("fusion_parts", lang, eqns=t("n_eqns", lang, n=len(parts))))
        return out

    def _listed(self, items: list) -> str:
        """``items`` joined, the first ``LISTED`` of them (then how many more)."""
        more = [t("memory_more", self.lang, n=len(items) - LISTED)] if len(items) > LISTED else []
        return t("list_sep", self.lang).join(items[:LISTED] + more)

    def _notes(self) -> list:
        m, lang = self.map, self.lang
        out = []
        gone = [e for e in m.removed if e not in m.absorbed]
        if gone:
            out.append(t("fusion_removed", lang, eqns=self._listed(self._eqn_names(gone))))
        if m.absorbed:
            items = [f"{name} → {m.absorbed[e]}" for e, name in zip(m.absorbed, self._eqn_names(list(m.absorbed)))]
            out.append(t("fusion_absorbed", lang, items=self._listed(items)))
        if m.inlined:
            out.append(t("fusion_inlined", lang, eqns=self._listed(self._eqn_names(m.inlined))))
        out.append(t("fusion_note", lang))
        return out

    # ------------------------------------------------------------ folded by calls
    def share(self, item):
        """What the kernels spend on a call's equations (or a top-level equation's, with its bodies): its kernels,
        their cost and (profiled) time on it (``engine.fusion.Share``), made once per call."""
        known = self.__dict__.setdefault("_shares", {})
        key = item.id
        if key not in known:
            known[key] = share(self.map, eqn_ids(item))
        return known[key]

    def call_words(self, item) -> str:
        """``41 kernels · 12.3 kFLOP, 45.6 kB``, then (profiled) the time on it, then the first kernels' names."""
        s, lang = self.share(item), self.lang
        bits = [t("n_kernels", lang, n=len(s.kernels)), f"{si(s.cost.flops, 'FLOP')}, {si(s.cost.bytes, 'B')}"]
        if self.map.times:
            bits.append(self._time(s.time))
        names = [k.name for k in s.kernels]
        more = [t("memory_more", lang, n=len(names) - NAMED)] if len(names) > NAMED else []
        head = t("sep", lang).join(bits)
        return t("labelled", lang, label=head, text=t("list_sep", lang).join(names[:NAMED] + more)) if names else head

    def _call_html(self, g: Group) -> str:
        """A call's row: its kernels' count, cost and time, the first kernels with their colours."""
        s, lang = self.share(g), self.lang
        bits = [t("n_kernels", lang, n=len(s.kernels)), f"{si(s.cost.flops, 'FLOP')}, {si(s.cost.bytes, 'B')}"]
        if self.map.times:
            bits.append(self._time(s.time))
        swatches = " ".join(f'<span data-kernel="{html(k.name)}" style="border-left:6px solid '
                            f'{self.colour[k.name]};padding-left:4px;white-space:nowrap">{html(k.name)}</span>'
                            for k in s.kernels[:NAMED])
        more = (f' <span class="jl-more" style="white-space:nowrap">'   # "… 102 more" never split at 970 px
                f'{html(t("memory_more", lang, n=len(s.kernels) - NAMED))}</span>'
                if len(s.kernels) > NAMED else "")
        return (f'<span class="jl-fold-kernels">{html(t("sep", lang).join(bits))}</span>'
                + (f'<div>{swatches}{more}</div>' if s.kernels else ""))

    def _eqn_line(self, eqn: Eqn) -> str:
        """A top-level equation made outside any call, as the folded text writes it."""
        return f"{eqn.index:>3}  {eqn_text(eqn, 40)}  → {self.call_words(eqn)}"

    def _eqn_items(self, ids: list) -> list:
        """A kernel's equations as its row names them: the first ``LISTED``, marked, then how many more."""
        names = self._eqn_names(ids[:LISTED], marked=True)
        return names + ([t("memory_more", self.lang, n=len(ids) - LISTED)] if len(ids) > LISTED else [])

    def _rows(self) -> list:
        lang = self.lang
        def eqns(ids):
            return t("list_sep", lang).join(self._eqn_items(ids))
        rows = [(k.name, _kind(k.kind, lang), eqns(k.eqns), si(k.flops, "FLOP"), si(k.bytes, "B"))
                + ((self._time(k.time),) if self.map.times else ()) for k in self.map.kernels[:ROWS]]
        if self.map.times:
            rows += [(k.name, _kind(k.kind, lang), t("kernel_no_eqn", lang), "", "", self._time(k.time))
                     for k in self.map.others[:ROWS]]
            total = self.map.times.total if self.map.times.seconds else None
            rows.append((t("kernel_all", lang), "", "", "", "", self._time(total)))
        return rows

    def _time(self, seconds: float | None) -> str:
        """``measured 1.2 µs (12% of time)`` (its share of all kernels' time), or that no event was measured."""
        if seconds is None:
            return t("kernel_no_event", self.lang)
        total = self.map.times.total
        return t("kernel_time", self.lang, t=fmt_time(seconds), pct=int(round(100 * seconds / total)) if total else 0)

    def _median(self, timings) -> str:
        """``run median 45.6 µs ± 7.8 µs``, as ``--run`` says it (masked by notebooks/sanitize.cfg)."""
        return t("run_median", self.lang, median=fmt_time(timings.median), spread=fmt_time(timings.spread))

    def _columns(self) -> tuple:
        return ("kernel", "kind", "eqns", "flops", "bytes") + (("time",) if self.map.times else ())

    def _overhead_line(self) -> str | None:
        """Profiled: the run timed whole, under the profiler and without it."""
        times = self.map.times
        if times is None or not (times.profiled and times.plain):
            return None
        return t("kernel_overhead", self.lang, profiled=self._median(times.profiled), plain=self._median(times.plain))

    def _profile_lines(self) -> list:
        """Profiled: how the kernels were timed, where the times were read, an early stop, kernels not measured."""
        times, lang, sep = self.map.times, self.lang, t("list_sep", self.lang)
        if times is None:
            return []
        if not times.source:
            return [t("kernel_none", lang, device=self.device)]
        planes = sep.join(times.planes)
        out = [t("kernel_profile_head", lang, n=times.runs),
               t(f"kernel_from_{times.source}", lang, planes=planes)]
        if self._overhead_line():
            out.append(self._overhead_line())
        if times.stopped:
            out.append(t("budget_stopped", lang, budget=t("seconds", lang, n=f"{self.budget:g}"), n=times.runs,
                         asked=times.asked))
        missed = [k.name for k in self.map.kernels if k.time is None]
        looped = [k for k in missed if k in self.map.looped]
        if looped and times.source == "host":
            outer = list(dict.fromkeys(self.map.looped[k] for k in looped))
            out.append(t("kernel_cpu_note", lang, kernels=sep.join(outer)))
        rest = [k for k in missed if k not in looped or times.source != "host"]
        if rest:
            out.append(t("kernel_unmeasured", lang, kernels=sep.join(rest)))
        return out

    def text(self) -> str:
        """The summary, the calls (folded as the table folds them) with their kernels, the kernels, the notes: in
        lines of at most ``WIDTH`` columns (a kernel's equations under it when they do not fit beside it)."""
        lang = self.lang
        lines = [t("fusion_head", lang, device=self.device), self.summary()] + self._head_lines() + \
            self._profile_lines()
        timed = self._overhead_line()       # measured times: wrapped, it would break where the digits fall
        lines = [x for line in lines for x in ([line] if line == timed else wrap(line, WIDTH))]
        if self.fold.folded:
            lines += self.fold.text(self.call_words, self._eqn_line)
        lines += self._table_lines()
        if len(self.map.kernels) > ROWS:
            lines.append(t("memory_more", lang, n=len(self.map.kernels) - ROWS))
        return "\n".join(lines + [x for note in self._notes() for x in wrap(note, WIDTH)])

    def _table_lines(self) -> list:
        """The kernels as aligned columns, each kernel's equations in its own column where the table fits in
        ``WIDTH`` columns so, else wrapped on lines of their own under it."""
        cols = self._columns()
        head = tuple(t(f"fusion_col_{c}", self.lang) for c in cols)
        rows = self._rows()
        widths = [max(width(r[c]) for r in [head] + rows) for c in range(5)]

        def line(r, keep: tuple) -> str:
            cells = [ljust(r[c], widths[c]) if c < 3 else r[c].rjust(widths[c]) for c in keep]
            return "  ".join(cells + list(r[5:])).rstrip()     # the time last, never padded
        beside = [line(r, (0, 1, 2, 3, 4)) for r in [head] + rows]
        if max(width(x) for x in beside) <= WIDTH:
            return beside
        out = [line(head, (0, 1, 3, 4))]
        listed = [self._eqn_items(k.eqns) for k in self.map.kernels[:ROWS]]
        for i, r in enumerate(rows):
            out.append(line(r, (0, 1, 3, 4)))
            items = listed[i] if i < len(listed) else [r[2]] if r[2] else []
            out.extend(f"    {x}" for x in wrap_items(items, WIDTH - 4, t("list_sep", self.lang)))
        return out

    @property
    def needs(self) -> tuple:
        """The front end: a folded view opens its calls with the table's script (a flat one needs none)."""
        return ("table",) if self.fold.folded else ()

    def html(self) -> str:
        return output(self.body(), self.needs)

    def _eqn_row(self, eqn: Eqn) -> str:
        """An equation's row: its id, its line (indented by its depth), the kernels computing it, tinted by its
        kernel's colour."""
        lang, m = self.lang, self.map
        k = m.of.get(eqn.id)
        pad = "&nbsp;&nbsp;" * eqn.depth
        nowrap = "" if eqn.id in m.spread else ";white-space:nowrap"     # several kernels: one under another
        if k is None and eqn.id in m.absorbed:
            c = self.colour[m.absorbed[eqn.id]]
            tint = f"background:{c}14;"
            cell = (f'<span title="{html(t("fusion_absorbed", lang, items=eqn.id))}" '
                    f'style="border-left:6px dotted {c};padding-left:4px;opacity:.8">'
                    f'{html(t("fusion_absorbed_short", lang, kernel=m.absorbed[eqn.id]))}</span>')
        elif k is None:
            what = t("fusion_removed_short" if eqn.id in m.removed else "fusion_inlined_short", lang)
            tint, cell = "", f'<span style="opacity:.7">{html(what)}</span>'
        else:
            c = self.colour[k]
            tint = f"background:{c}33;"
            several = ";display:inline-block;white-space:nowrap" if eqn.id in m.spread else ""
            cell = " ".join(f'<span style="border-left:6px solid {self.colour[name]};padding-left:4px{several}">'
                            f'{html(name)}</span>' for name in m.spread.get(eqn.id, [k]))
            mark = self._mark(eqn.id)
            if mark:
                cell += f' <i class="jl-kernel-{mark}">({html(t(f"fusion_mark_{mark}", lang))})</i>'
        return (f'<tr class="jl-row" data-eqn="{html(eqn.id)}" data-primitive="{html(eqn.primitive)}" '
                f'style="{tint}"><td style="{CELL}">{html(eqn.id)}</td>'
                f'<td class="jl-eq" style="{CELL};white-space:pre-wrap">{pad}{html(eqn_text(eqn, 40))}</td>'
                f'<td style="{CELL}{nowrap}">{cell}</td></tr>')

    def _eqns_html(self) -> str:
        """The equations in program order, or (a program the table folds) its calls, each opening to its rows."""
        lang, m = self.lang, self.map
        head = "".join(f'<th style="{CELL}">{html(t(f"fusion_col_{c}", lang))}</th>' for c in ("eqn", "kernel"))
        if self.fold.folded:
            thead = Rows(lang).colgroup_html() + f'<thead><tr><th style="{CELL}">#</th>{head}</tr></thead>'
            return self.fold.html(thead, self._call_html, lambda e: "".join(self._eqn_row(x) for x in walk(e)),
                                  "jl-fusion-calls")
        eqn_rows = []
        for n, eqn in enumerate(self.program.walk()):
            if n >= ROWS:
                eqn_rows.append(f'<tr><td colspan="3" style="{CELL}">'
                                f'{html(t("memory_more", lang, n=m.n_eqns - ROWS))}</td></tr>')
                break
            eqn_rows.append(self._eqn_row(eqn))
        return (f'<table style="border-collapse:collapse;margin:.4em 0"><thead><tr><th style="{CELL}">#</th>{head}'
                f'</tr></thead><tbody>{"".join(eqn_rows)}</tbody></table>')

    def body(self) -> str:
        lang, m = self.lang, self.map
        legend = []
        rows = self._rows()
        for k, row in zip(m.kernels, rows):
            c = self.colour[k.name]
            legend.append(f'<tr data-kernel="{html(k.name)}"><td style="{CELL};white-space:nowrap">'
                          f'<span style="display:inline-block;'
                          f'width:.9em;height:.9em;background:{c};vertical-align:middle"></span> {html(row[0])}</td>'
                          + self._cells(row) + "</tr>")
        for k, row in zip(m.others, rows[len(m.kernels[:ROWS]):]):       # profiled: XLA's own kernels
            legend.append(f'<tr data-kernel="{html(k.name)}" class="jl-kernel-other">'
                          f'<td style="{CELL};white-space:nowrap">'
                          f'{html(row[0])}</td>' + self._cells(row) + "</tr>")
        if m.times:
            legend.append(f'<tr class="jl-kernel-total"><td style="{CELL}">{html(rows[-1][0])}</td>'
                          + self._cells(rows[-1]) + "</tr>")
        lhead = "".join(f'<th style="{CELL}">{html(t(f"fusion_col_{c}", lang))}</th>' for c in self._columns())
        profiled = "".join(f'<p style="margin:.3em 0" class="jl-kernel-profile">{html(x)}</p>'
                           for x in self._profile_lines())
        notes = "".join(f'<p style="margin:.3em 0">{html(x)}</p>' for x in self._notes())
        return (f'<div class="jaxprlens jl-fusion" lang="{lang}"{ROOT}>'
                f'<p style="margin:.3em 0"><b>{html(t("fusion_head", lang, device=self.device))}</b></p>'
                f'<p style="margin:.3em 0" class="jl-fusion-summary">{html(self.summary())}</p>'
                + "".join(f'<p style="margin:.3em 0" class="jl-fusion-again">{html(x)}</p>' for x in self._head_lines())
                + f'{profiled}{self._eqns_html()}'
                # the legend's numbers never wrap: in a narrow notebook the legend scrolls sideways, in its own box
                f'<div style="overflow-x:auto;max-width:100%">'
                f'<table class="jl-fusion-legend" style="border-collapse:collapse;margin:.4em 0"><thead><tr>{lhead}'
                f'</tr></thead><tbody>{"".join(legend)}</tbody></table></div>{notes}</div>')


    def _cells(self, row: tuple) -> str:
        """A kernel row's cells after its name: kind and equations left, FLOPs and bytes right, the time last."""
        return ("".join(f'<td style="{CELL}{";white-space:nowrap" * (j == 1)}">{html(x)}</td>'    # a kind whole
                        for j, x in enumerate(row[1:3], 1))
                + "".join(f'<td style="{CELL};text-align:right;white-space:nowrap">{html(x)}</td>' for x in row[3:5])
                + "".join(f'<td class="jl-time" style="{CELL};text-align:right;white-space:nowrap">{html(x)}</td>'
                          for x in row[5:]))


def fusion_view(program: Program, device=None, lang: str | None = None, profile: bool = False, repeat: int = REPEAT,
                budget: float = BUDGET) -> FusionView:
    return FusionView(program, device=device, lang=lang, profile=profile, repeat=repeat, budget=budget)


def part(cell) -> FusionView:
    """``--fusion``: the fusion map, compiled once for this part and the graph's outlines."""
    return cell.fused
