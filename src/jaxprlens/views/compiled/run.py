"""The run views: ``--run`` (outputs and timings on a device), ``--profile`` (each equation timed on its own
beside its estimate) and ``--devices``.

Timings are the only varying text in these views; they always read ``compile 12.3 ms``,
``run median 45.6 µs ± 7.8 µs``, ``measured 1.2 µs (12% of sum)`` or ``run on their own 3.4 µs`` so
``notebooks/sanitize.cfg`` can mask them for nbval.  (A run the time budget stopped also says how many
runs it made, which varies too; the course's cells never reach the budget.)
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from jaxprlens.engine import runner, values
from jaxprlens.engine.cost import Costs
from jaxprlens.present.i18n import si
from jaxprlens.engine.devices import DeviceInfo, available_devices, default_device
from jaxprlens.engine.runner import BUDGET, REPEAT, ProfileRow, Run
from jaxprlens.model.program import Program
from jaxprlens.present.display import View, array_text
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import ljust, resolve, t, width
from jaxprlens.present.picture import picture_html
from jaxprlens.present.nouns import vars_text
from jaxprlens.present.rows import LEFT
from jaxprlens.present.words import cost_text, device_text, fmt_time, intensity_text

SMALL = 64          # arrays with at most this many elements are shown in full

NOWRAP = ' style="text-align:left;white-space:nowrap"'  # "输出" over a narrow column: one word, not one per line


class DevicesView(View):
    """``%jaxpr --devices``: the devices JAX can use here, the default one marked."""

    def __init__(self, lang: str | None = None):
        default = default_device()
        self.lang = resolve(lang)
        self.rows = [(DeviceInfo.of(d), d == default) for d in available_devices()]

    def text(self) -> str:
        lines = [t("devices_head", self.lang)]
        for info, is_default in self.rows:
            mark = "  " + t("is_default", self.lang) if is_default else ""
            lines.append(f"  {info.name:<8} {info.platform:<5} {info.kind:<20} {info.id}{mark}")
        return "\n".join(lines)

    def html(self) -> str:
        lang = self.lang
        rows = "".join(
            f'<tr data-device="{html(i.name)}"><td>{html(i.name)}</td><td>{html(i.platform)}</td>'
            f"<td>{html(i.kind)}</td><td>{i.id}</td><td>{t('default', lang) if d else ''}</td></tr>"
            for i, d in self.rows)
        head = "".join(f"<th>{t(k, lang)}</th>" for k in ("device", "platform", "kind", "id"))
        return (f'<div class="jaxprlens jl-devices"><table><thead><tr>{head}<th></th></tr></thead>'
                f"<tbody>{rows}</tbody></table></div>")


def devices_view(lang: str | None = None) -> DevicesView:
    return DevicesView(lang)


# ---------------------------------------------------------------- formatting

def value_text(value, small: int = SMALL, lang: str = "en") -> str:
    """A value as text: small arrays in full, large ones summarised (type, range, preview); a key array as its
    type, as JAX writes it (``key<fry>[2]``), and its key data (``engine.values.summarize``)."""
    s = values.summarize(value)
    if s.kind == "spread":      # a multi-process program's global array: this process sees its own blocks only
        here, n, processes = s.held
        return t("spread_value", lang, type=s.type, processes=processes, here=here, n=n)
    if s.data is None:
        return s.text
    if s.kind == "key":
        stats = t("key_value", lang, impl=s.impl, data=f"{s.data.dtype}{list(s.data.shape)}")
        return f"{s.type} {{{stats}}} {array_text(s.data, small + 1)}"
    if not s.shape:            # numpy's scalar of its own dtype: a float32 with float32's digits, not float64's
        return str(s.data[()])
    if s.size <= small:
        return f"{s.type} {array_text(s.data, small + 1)}"
    preview = array_text(s.data, 6)
    bits = []
    if s.min is not None and s.kind in ("int", "float"):
        bits.append(t("stats", lang, min=f"{s.min:.4g}", max=f"{s.max:.4g}", mean=f"{s.mean:.4g}"))
    elif s.min is not None and s.kind == "complex":
        bits.append(t("complex_stats", lang, max=f"{s.max:.4g}", re=f"[{s.re[0]:.4g}, {s.re[1]:.4g}]",
                      im=f"[{s.im[0]:.4g}, {s.im[1]:.4g}]"))
    bits += [t("nan_inf", lang, n=n, what=what) for n, what in ((s.nan, "NaN"), (s.inf, "Inf")) if n]
    return f"{s.type} {{{t('sep', lang).join(bits)}}} {preview}" if bits else f"{s.type} {preview}"


def cost_analysis_text(ca: dict | None, lang: str = "en") -> str:
    if not ca:
        return t("xla_none", lang)
    n = ca.get("transcendentals")
    bits = [f"{si(ca['flops'], 'FLOP')}" if "flops" in ca else None,
            t("transcendentals", lang, n=si(n, "").strip()) if n else None,
            t("accessed", lang, bytes=si(ca["bytes accessed"], "B")) if "bytes accessed" in ca else None]
    return t("xla_cost", lang, items=t("sep", lang).join(b for b in bits if b))


def _differ(a: float, b: float) -> bool:
    return abs(a - b) > 0.01 * max(abs(a), abs(b))


def cost_gap_text(r: Run, lang: str = "en") -> str | None:
    """Why our estimate and XLA's cost analysis disagree (None when they agree or one is missing): they
    count different programs, and XLA does not see inside the library calls it makes (cuBLAS on a GPU)."""
    ca, est = r.cost_analysis, r.estimate
    if not ca or est is None:
        return None
    xla_flops = ca.get("flops", 0) + ca.get("transcendentals", 0)
    if not (_differ(est.flops, xla_flops) or _differ(est.bytes, ca.get("bytes accessed", est.bytes))):
        return None
    text = t("cost_gap", lang)
    if r.custom_calls:
        text += t("cost_gap_calls", lang, calls=t("sep", lang).join(r.custom_calls))
    return text


def budget_text(budget: float, lang: str = "en") -> str:
    return t("seconds", lang, n=f"{budget:g}")


# ---------------------------------------------------------------- run

@dataclass
class RunResult(Run, View):
    """What ``program.run()`` / ``%%jaxpr --run`` returns: the ``Run`` and how it reads."""
    lang: str = "en"

    def timing_parts(self) -> tuple[str, str]:
        """``compile 12.3 ms`` and ``run median 45.6 µs ± 7.8 µs`` (masked by notebooks/sanitize.cfg)."""
        return (t("compile_time", self.lang, t=fmt_time(self.compile_time)),
                t("run_median", self.lang, median=fmt_time(self.median), spread=fmt_time(self.spread)))

    def timing_text(self) -> str:
        return t("semi", self.lang).join(self.timing_parts())

    def timing_html(self) -> str:
        return t("semi", self.lang).join(f'<span class="jl-time">{html(p)}</span>' for p in self.timing_parts())

    def _paths(self) -> list:
        return self.out_paths or [f"out[{i}]" for i in range(len(self.flat_outputs))]

    def _output_rows(self) -> list:
        return [(p, value_text(v, lang=self.lang)) for p, v in zip(self._paths(), self.flat_outputs)]

    def _estimate_text(self) -> str:
        return t("estimate_is", self.lang, cost=cost_text(self.estimate, self.lang))

    def _stopped_text(self) -> str | None:
        """The budget ended the timed runs early: how many of how many, and how to allow more."""
        if not self.timings.stopped:
            return None
        return t("budget_stopped", self.lang, budget=budget_text(self.budget, self.lang), n=self.repeat,
                 asked=self.timings.asked)

    def _notes(self) -> list:
        """What follows the timing line: early stop, our estimate, XLA's count, why those two differ."""
        lines = [self._stopped_text()]
        if self.estimate is not None:
            lines.append(self._estimate_text())
        lines += [cost_analysis_text(self.cost_analysis, self.lang), cost_gap_text(self, self.lang)]
        return [x for x in lines if x]

    def text(self) -> str:
        lang = self.lang
        lines = [t("ran_on", lang, device=device_text(self.device, lang)),
                 f"{self.timing_text()}  {t('iqr_note', lang, n=self.repeat)}"]
        lines.extend(self._notes())
        lines.append(t("outputs_head", lang))
        lines.extend(f"  {p} = {v}" for p, v in self._output_rows())
        return "\n".join(lines)

    def html(self) -> str:
        lang = self.lang
        pictures = [picture_html(x, lang, name=p) for p, x in zip(self._paths(), self.flat_outputs)]
        outs = "".join(f'<tr class="jl-output"><td{LEFT}>{html(p)}</td><td{LEFT}><code>{html(v)}</code>{pic}</td></tr>'
                       for (p, v), pic in zip(self._output_rows(), pictures))   # left inline: kept untrusted
        stopped = self._stopped_text()
        est = (f'<div class="jl-estimate">{html(self._estimate_text())}</div>'
               if self.estimate is not None else "")
        gap = cost_gap_text(self, lang)
        return (f'<div class="jaxprlens jl-run" lang="{lang}" data-device="{html(self.device.name)}">'
                f'<div class="jl-device">{html(t("ran_on", lang, device=device_text(self.device, lang)))}</div>'
                f"<div>{self.timing_html()} {html(t('iqr_note', lang, n=self.repeat))}</div>"
                + (f'<div class="jl-stopped">{html(stopped)}</div>' if stopped else "") + est +
                f'<div class="jl-xla">{html(cost_analysis_text(self.cost_analysis, lang))}</div>'
                + (f'<div class="jl-cost-gap">{html(gap)}</div>' if gap else "") +
                f"<table><thead><tr><th{NOWRAP}>{t('output', lang)}</th><th{LEFT}>{t('value', lang)}</th></tr></thead>"
                f"<tbody>{outs}</tbody></table></div>")



class Profile(View):
    """``--profile``: each top-level equation compiled and timed on its own, beside its estimate."""

    def __init__(self, program: Program, device: DeviceInfo, rows: list, whole: RunResult,
                 table_costs: Costs, lang: str = "en"):
        self.program, self.device, self.rows, self.whole = program, device, rows, whole
        self.costs, self.lang = table_costs, lang

    @property
    def measured_total(self) -> float:
        """The sum of the equations' times, each run on its own: what the share column divides by."""
        return sum(r.median for r in self.rows if r.timings is not None)

    def _share(self, seconds: float | None) -> str:
        if seconds is None:
            return t("not_timed", self.lang)
        total = self.measured_total
        pct = int(round(100 * seconds / total)) if total else 0
        return t("measured_share", self.lang, t=fmt_time(seconds), pct=pct)

    def _cells(self, r: ProfileRow) -> list:
        outs = vars_text(r.eqn.outvars, self.lang)
        return [str(r.eqn.index), outs, r.eqn.primitive, cost_text(r.estimate, self.lang), self._share(r.median)]

    def _head(self) -> list:
        return ["#"] + [t(k, self.lang) for k in ("outputs", "primitive", "estimate", "measured_alone")]

    def _intro(self) -> str:
        return t("profile_head", self.lang, device=device_text(self.device, self.lang), n=self.whole.timings.asked)

    def _total(self) -> str:
        total = self.costs.total
        return t("estimated_total", self.lang, cost=cost_text(total, self.lang),
                 intensity=intensity_text(total, self.lang))

    def _stopped_text(self) -> str | None:
        """The budget ended the profile early: how many equations were not timed, or timed fewer times."""
        asked = self.whole.timings.asked
        untimed = sum(r.timings is None for r in self.rows)
        fewer = sum(r.timings is not None and r.timings.count < asked for r in self.rows)
        if not (untimed or fewer or self.whole.timings.stopped):
            return None
        lang = self.lang
        parts = [t("untimed_rows", lang, n=untimed, total=len(self.rows))] if untimed else []
        parts += [t("fewer_runs", lang, n=fewer, asked=asked)] if fewer else []
        if self.whole.timings.stopped:
            parts.append(t("whole_fewer_runs", lang, n=self.whole.repeat, asked=asked))
        return t("profile_stopped", lang, budget=budget_text(self.whole.budget, lang),
                 detail=t("sep", lang).join(parts))

    def _sum(self, timing: str) -> str:
        """The sum the share column divides, beside the whole program compiled as one (usually less)."""
        whole = t("whole_compiled", self.lang, timing=timing)
        if all(r.timings is None for r in self.rows):
            return whole
        return t("sum_and_whole", self.lang, t=fmt_time(self.measured_total), whole=whole)

    def _after(self) -> list:
        """``(class, line)`` under the table after the timings: total estimate, XLA's count, why they differ,
        an early stop."""
        w = self.whole
        lines = (("jl-total", self._total()), ("jl-xla", cost_analysis_text(w.cost_analysis, self.lang)),
                 ("jl-cost-gap", cost_gap_text(w, self.lang)), ("jl-stopped", self._stopped_text()))
        return [(cls, x) for cls, x in lines if x]

    def text(self) -> str:
        head = self._head()
        rows = [self._cells(r) for r in self.rows]
        # The varying measured column is last and never padded, so sanitized outputs line up.
        widths = [max(width(x[i]) for x in [head] + rows) for i in range(4)]
        lines = [self._intro()]
        for cells in [head] + rows:
            lines.append("  ".join(ljust(c, w) for c, w in zip(cells[:4], widths)) + "  " + cells[4])
        lines.append(self._sum(self.whole.timing_text()))
        lines.extend(x for _, x in self._after())
        return "\n".join(lines)

    def html(self) -> str:
        body = []
        for r in self.rows:
            c = self._cells(r)
            body.append(f'<tr data-eqn="{html(r.eqn.id)}"><td>{html(c[0])}</td><td{LEFT}>{html(c[1])}</td>'
                        f'<td class="jl-prim"{LEFT}>{html(c[2])}</td><td class="jl-cost">{html(c[3])}</td>'
                        f'<td class="jl-time">{html(c[4])}</td></tr>')
        head = "".join(f"<th{LEFT if i in (1, 2) else ''}>{html(h)}</th>" for i, h in enumerate(self._head()))
        return (f'<div class="jaxprlens jl-profile" lang="{self.lang}" data-device="{html(self.device.name)}">'
                f"<div>{html(self._intro())}</div>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
                f'<div class="jl-sum">{self._sum(self.whole.timing_html())}</div>'
                + "".join(f'<div class="{cls}">{html(x)}</div>' for cls, x in self._after()) + "</div>")


def run(program: Program, device=None, repeat: int = REPEAT, estimate: bool = True,
        lang: str | None = None, budget: float = BUDGET) -> RunResult:
    """Execute ``program`` compiled on ``device`` (see ``engine.devices.resolve_device``) and time ``repeat``
    runs, or as many as ``budget`` seconds allow (the result says when the budget stopped them)."""
    return _shown(runner.measure(program, device=device, repeat=repeat, estimate=estimate, budget=budget),
                  resolve(lang))


def _shown(r: Run, lang: str) -> RunResult:
    return RunResult(**{f.name: getattr(r, f.name) for f in fields(Run)}, lang=lang)


def profile(program: Program, device=None, repeat: int = REPEAT, lang: str | None = None,
            budget: float = BUDGET) -> Profile:
    """``--profile``: every top-level equation timed on its own (``engine.runner.measure_each``), in about
    ``budget`` seconds at most."""
    whole, rows, table_costs = runner.measure_each(program, device=device, repeat=repeat, budget=budget)
    lang = resolve(lang)
    return Profile(program, whole.device, rows, _shown(whole, lang), table_costs, lang)


def run_part(cell) -> RunResult:
    """``--run``: the program compiled and timed."""
    o = cell.opts
    return run(cell.program, device=o.device, repeat=o.repeat, lang=o.lang, budget=o.budget)


def profile_part(cell) -> Profile | None:
    """``--profile``: each equation timed; with ``--fusion`` (and no graph to colour) the fusion part times each
    kernel instead."""
    o = cell.opts
    return None if o.fusion and not o.graph else cell.measured
