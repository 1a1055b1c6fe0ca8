"""Running a traced program on a device: device choice, one compile, timed steady-state runs, per-equation
profiles beside the cost estimates.

Timings are the only varying text in these views; they always read ``compile 12.3 ms``,
``run median 45.6 µs ± 7.8 µs`` or ``measured 1.2 µs (12% of time)`` so ``notebooks/sanitize.cfg``
can mask them for nbval.
"""
from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from typing import Any

import jax
import jax.extend.core as jex
import numpy as np

from jaxprlens.engine.cost import Costs, costs, si
from jaxprlens.present.display import View, array_text
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import ljust, resolve, t, width
from jaxprlens.model.program import Lit, Program

SMALL = 64          # arrays with at most this many elements are shown in full
_SPEC = re.compile(r"^\s*([a-zA-Z]+)\s*(?::\s*(\d+))?\s*$")
_PLATFORMS = ("cpu", "gpu", "tpu")
_ALIASES = {"cuda": "gpu", "rocm": "gpu"}


# ---------------------------------------------------------------- devices

def _platform_devices(platform: str) -> list:
    try:
        return list(jax.local_devices(backend=platform))
    except RuntimeError:          # no such backend on this machine
        return []


def available_devices() -> list:
    """Every local device of every backend JAX can start here (default backend first)."""
    seen, out = set(), []
    for d in list(jax.local_devices()) + [d for p in _PLATFORMS for d in _platform_devices(p)]:
        if (d.platform, d.id) not in seen:
            seen.add((d.platform, d.id))
            out.append(d)
    return out


def default_device():
    """The device JAX uses when none is given (``jax.default_device`` / config, else the first)."""
    chosen = jax.config.jax_default_device
    if isinstance(chosen, str):
        return resolve_device(chosen)
    return chosen if chosen is not None else jax.local_devices()[0]


def device_name(d) -> str:
    """``cpu:0``, ``gpu:1``: the platform and the device's index among that platform's local devices."""
    platform = _ALIASES.get(d.platform, d.platform)
    same = [x for x in _platform_devices(platform)] or [d]
    index = next((i for i, x in enumerate(same) if x == d), d.id)
    return f"{platform}:{index}"


def _listing() -> str:
    return ", ".join(f"{device_name(d)} ({d.device_kind})" for d in available_devices())


def resolve_device(spec: str | None):
    """``None`` -> JAX's default device; ``"cpu"``, ``"gpu"``, ``"gpu:1"``, ``"tpu:0"`` -> that device.

    Raises ValueError naming the devices that exist when ``spec`` is malformed or absent here.
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return default_device()
    if not isinstance(spec, str):
        if hasattr(spec, "platform") and hasattr(spec, "id"):     # already a jax Device
            return spec
        raise ValueError(f"device must be a string such as 'cpu' or 'gpu:1', got {type(spec).__name__}")
    m = _SPEC.match(spec)
    if not m:
        raise ValueError(f"unknown device {spec!r} (write platform[:index], e.g. cpu, gpu:1, tpu:0); "
                         f"devices here: {_listing()}")
    platform = _ALIASES.get(m.group(1).lower(), m.group(1).lower())
    index = int(m.group(2)) if m.group(2) is not None else 0
    found = _platform_devices(platform)
    if not found:
        raise ValueError(f"no {platform} device here for {spec!r}; devices here: {_listing()}")
    if index >= len(found):
        raise ValueError(f"no device {spec!r}: there are {len(found)} {platform} device(s) "
                         f"(indices 0..{len(found) - 1}); devices here: {_listing()}")
    return found[index]


@dataclass(frozen=True)
class DeviceInfo:
    platform: str
    kind: str
    id: int
    name: str          # cpu:0

    @classmethod
    def of(cls, d) -> "DeviceInfo":
        return cls(_ALIASES.get(d.platform, d.platform), d.device_kind, d.id, device_name(d))

    def __str__(self) -> str:
        return self.text()

    def text(self, lang: str = "en") -> str:
        return t("device_info", lang, name=self.name, platform=self.platform, kind=self.kind, id=self.id)


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

def fmt_time(seconds: float) -> str:
    """Three significant digits: ``850 ns``, ``45.6 µs``, ``1.23 ms``, ``2.50 s``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            v = seconds / scale
            break
    else:
        unit, v = "ns", seconds / 1e-9
    digits = 2 if v < 10 else 1 if v < 100 else 0
    return f"{v:.{digits}f} {unit}"


def value_text(value, small: int = SMALL, lang: str = "en") -> str:
    """A value as text: small arrays in full, large ones summarised (shape, dtype, range, preview)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return str(arr.item())
    type_ = f"{arr.dtype}{list(arr.shape)}"
    if arr.size <= small:
        return f"{type_} {array_text(arr, small + 1)}"
    preview = array_text(arr, 6)
    if np.issubdtype(arr.dtype, np.number) and not np.issubdtype(arr.dtype, np.complexfloating):
        stats = t("stats", lang, min=f"{arr.min():.4g}", max=f"{arr.max():.4g}", mean=f"{arr.mean():.4g}")
        return f"{type_} {{{stats}}} {preview}"
    return f"{type_} {preview}"


def _cost_analysis(compiled) -> dict | None:
    """``compiled.cost_analysis()`` as one dict (older JAX returned a list of dicts), or None."""
    try:
        ca = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - not every backend implements it
        return None
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else None
    return dict(ca) if ca else None


def cost_analysis_text(ca: dict | None, lang: str = "en") -> str:
    if not ca:
        return t("xla_none", lang)
    n = ca.get("transcendentals")
    bits = [f"{si(ca['flops'], 'FLOP')}" if "flops" in ca else None,
            t("transcendentals", lang, n=si(n, "").strip()) if n else None,
            t("accessed", lang, bytes=si(ca["bytes accessed"], "B")) if "bytes accessed" in ca else None]
    return t("xla_cost", lang, items=t("sep", lang).join(b for b in bits if b))


# ---------------------------------------------------------------- run

@dataclass
class RunResult(View):
    """What ``program.run()`` / ``%%jaxpr --run`` returns."""
    outputs: Any                 # the function's own output pytree
    device: DeviceInfo
    compile_time: float          # seconds: lower + compile
    times: list                  # seconds per steady-state run
    median: float
    spread: float                # half the interquartile range of ``times``
    cost_analysis: dict | None = None
    out_paths: list = field(default_factory=list)
    flat_outputs: list = field(default_factory=list, repr=False)
    estimate: Any = None         # our own cost.Cost total, for comparison
    lang: str = "en"

    @property
    def repeat(self) -> int:
        return len(self.times)

    def timing_parts(self) -> tuple[str, str]:
        """``compile 12.3 ms`` and ``run median 45.6 µs ± 7.8 µs`` (masked by notebooks/sanitize.cfg)."""
        return (t("compile_time", self.lang, t=fmt_time(self.compile_time)),
                t("run_median", self.lang, median=fmt_time(self.median), spread=fmt_time(self.spread)))

    def timing_text(self) -> str:
        return t("semi", self.lang).join(self.timing_parts())

    def timing_html(self) -> str:
        return t("semi", self.lang).join(f'<span class="jl-time">{html(p)}</span>' for p in self.timing_parts())

    def _output_rows(self) -> list:
        paths = self.out_paths or [f"out[{i}]" for i in range(len(self.flat_outputs))]
        return [(p, value_text(v, lang=self.lang)) for p, v in zip(paths, self.flat_outputs)]

    def _estimate_text(self) -> str:
        return t("estimate_is", self.lang, cost=self.estimate.text(self.lang))

    def text(self) -> str:
        lang = self.lang
        lines = [t("ran_on", lang, device=self.device.text(lang)),
                 f"{self.timing_text()}  {t('iqr_note', lang, n=self.repeat)}"]
        if self.estimate is not None:
            lines.append(self._estimate_text())
        lines.append(cost_analysis_text(self.cost_analysis, lang))
        lines.append(t("outputs_head", lang))
        lines.extend(f"  {p} = {v}" for p, v in self._output_rows())
        return "\n".join(lines)

    def html(self) -> str:
        lang = self.lang
        outs = "".join(f'<tr class="jl-output"><td>{html(p)}</td><td><code>{html(v)}</code></td></tr>'
                       for p, v in self._output_rows())
        est = (f'<div class="jl-estimate">{html(self._estimate_text())}</div>'
               if self.estimate is not None else "")
        return (f'<div class="jaxprlens jl-run" lang="{lang}" data-device="{html(self.device.name)}">'
                f'<div class="jl-device">{html(t("ran_on", lang, device=self.device.text(lang)))}</div>'
                f"<div>{self.timing_html()} {html(t('iqr_note', lang, n=self.repeat))}</div>{est}"
                f'<div class="jl-xla">{html(cost_analysis_text(self.cost_analysis, lang))}</div>'
                f"<table><thead><tr><th>{t('output', lang)}</th><th>{t('value', lang)}</th></tr></thead>"
                f"<tbody>{outs}</tbody></table></div>")


def _check_args(program: Program):
    if len(program.args) != len(program.invars):
        raise ValueError(f"this program has {len(program.invars)} input(s) but {len(program.args)} recorded "
                         "argument(s); run a program made by trace(fn, *args) (from_jaxpr keeps no arguments)")


MAPPED = ("shard_map", "xla_pmap")     # primitives whose bodies run on several devices at once


def place(program: Program, device, explicit: bool) -> list:
    """The program's arguments on ``device``, once.  Without an explicit device, arrays that are
    already placed (e.g. sharded over a mesh) stay where they are."""
    if not explicit and any(e.primitive in MAPPED for e in program.walk()):
        return list(program.args)          # a shard_map/pmap spans devices: let jax.jit place the args
    out = []
    for a in program.args:
        if not explicit and isinstance(a, jax.Array) and len(a.sharding.device_set) > 1:
            out.append(a)
        else:
            out.append(jax.device_put(a, device))
    return out


def compile_program(program: Program, args: list, device):
    """``jax.jit`` of the closed jaxpr, lowered and compiled once for ``args``.

    Returns (jitted, compiled, seconds).  Calls go through ``jitted``: JAX reuses the executable it has
    just compiled ahead of time, and the jitted function's C++ dispatch is the same path as a user's
    ``jax.jit(fn)(*args)`` (``Compiled.__call__`` adds a Python frame per call).
    """
    jitted = jax.jit(jex.jaxpr_as_fun(program.jaxpr))
    start = time.perf_counter()
    with on_device(device, args):
        compiled = jitted.lower(*args).compile()
    return jitted, compiled, time.perf_counter() - start


def on_device(device, args: list):
    """Where the args live decides the device; without args, ``jax.default_device`` does.  (Set only
    then: the context costs a few hundred ns per call, and must be the same at compile and call time.)"""
    return jax.default_device(device) if not args else contextlib.nullcontext()


def time_calls(call, args: list, repeat: int) -> list:
    """Seconds per call of ``call(*args)``, each waited for with ``block_until_ready``, after one warm-up."""
    jax.block_until_ready(call(*args))
    times = []
    for _ in range(max(int(repeat), 1)):
        start = time.perf_counter()
        jax.block_until_ready(call(*args))
        times.append(time.perf_counter() - start)
    return times


def _stats(times: list) -> tuple[float, float]:
    q1, med, q3 = np.percentile(np.asarray(times), [25, 50, 75])
    return float(med), float(q3 - q1) / 2


def run(program: Program, device=None, repeat: int = 20, estimate: bool = True,
        lang: str | None = None) -> RunResult:
    """Execute ``program`` compiled on ``device`` (see ``resolve_device``) and time ``repeat`` runs."""
    lang = resolve(lang)
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    dev = resolve_device(device)
    _check_args(program)
    args = place(program, dev, explicit=device is not None)
    jitted, compiled, compile_time = compile_program(program, args, dev)
    with on_device(dev, args):      # the same context as at compile time, so the cache entry matches
        times = time_calls(jitted, args, repeat)
        flat = list(jitted(*args))
    median, spread = _stats(times)
    return RunResult(outputs=program.unflatten_outputs(flat), device=DeviceInfo.of(dev),
                     compile_time=compile_time, times=times, median=median, spread=spread,
                     cost_analysis=_cost_analysis(compiled), out_paths=list(program.out_paths),
                     flat_outputs=flat, estimate=costs(program).total if estimate else None, lang=lang)


# ---------------------------------------------------------------- profile

@dataclass
class ProfileRow:
    eqn: Any
    estimate: Any                # cost.Cost
    median: float
    spread: float


class Profile(View):
    """``--profile``: each top-level equation compiled and timed on its own, beside its estimate."""

    def __init__(self, program: Program, device: DeviceInfo, rows: list, whole: RunResult,
                 table_costs: Costs, lang: str = "en"):
        self.program, self.device, self.rows, self.whole = program, device, rows, whole
        self.costs, self.lang = table_costs, lang

    @property
    def measured_total(self) -> float:
        return sum(r.median for r in self.rows)

    def _share(self, seconds: float) -> str:
        total = self.measured_total
        pct = int(round(100 * seconds / total)) if total else 0
        return t("measured_share", self.lang, t=fmt_time(seconds), pct=pct)

    def _cells(self, r: ProfileRow) -> list:
        outs = " ".join(f"{v.name}:{v.type}" for v in r.eqn.outvars)
        return [str(r.eqn.index), outs, r.eqn.primitive, r.estimate.text(self.lang), self._share(r.median)]

    def _head(self) -> list:
        return ["#"] + [t(k, self.lang) for k in ("outputs", "primitive", "estimate", "measured_alone")]

    def _intro(self) -> str:
        return t("profile_head", self.lang, device=self.device.text(self.lang), n=self.whole.repeat)

    def _total(self) -> str:
        total = self.costs.total
        return t("estimated_total", self.lang, cost=total.text(self.lang), intensity=total.intensity_text(self.lang))

    def text(self) -> str:
        head = self._head()
        rows = [self._cells(r) for r in self.rows]
        # The varying measured column is last and never padded, so sanitized outputs line up.
        widths = [max(width(x[i]) for x in [head] + rows) for i in range(4)]
        lines = [self._intro()]
        for cells in [head] + rows:
            lines.append("  ".join(ljust(c, w) for c, w in zip(cells[:4], widths)) + "  " + cells[4])
        lines.append(self._total())
        lines.append(t("whole_program", self.lang, timing=self.whole.timing_text()))
        lines.append(cost_analysis_text(self.whole.cost_analysis, self.lang))
        return "\n".join(lines)

    def html(self) -> str:
        body = []
        for r in self.rows:
            c = self._cells(r)
            body.append(f'<tr data-eqn="{html(r.eqn.id)}"><td>{html(c[0])}</td><td>{html(c[1])}</td>'
                        f'<td class="jl-prim">{html(c[2])}</td><td class="jl-cost">{html(c[3])}</td>'
                        f'<td class="jl-time">{html(c[4])}</td></tr>')
        head = "".join(f"<th>{html(h)}</th>" for h in self._head())
        return (f'<div class="jaxprlens jl-profile" lang="{self.lang}" data-device="{html(self.device.name)}">'
                f"<div>{html(self._intro())}</div>"
                f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
                f'<div class="jl-total">{html(self._total())}</div>'
                f"<div>{t('whole_program', self.lang, timing=self.whole.timing_html())}</div>"
                f'<div class="jl-xla">{html(cost_analysis_text(self.whole.cost_analysis, self.lang))}</div></div>')


def _one_eqn_fun(eqn):
    """A function running just ``eqn`` (its literal operands baked in), taking its Var operands."""
    raw = eqn.raw
    lits = {i: a.val for i, a in enumerate(eqn.invars) if isinstance(a, Lit)}
    n = len(eqn.invars)

    def fun(*vals):
        it = iter(vals)
        operands = [lits[i] if i in lits else next(it) for i in range(n)]
        out = raw.primitive.bind(*operands, **raw.params)
        return list(out) if raw.primitive.multiple_results else [out]
    return fun


def profile(program: Program, device=None, repeat: int = 20, lang: str | None = None) -> Profile:
    """Time every top-level equation on its own on ``device`` (compiled, warm, median of ``repeat``),
    feeding each the values the previous ones computed, beside the estimate of ``cost.costs``."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    lang = resolve(lang)
    whole = run(program, device=device, repeat=repeat, lang=lang)
    dev = resolve_device(device)
    env = {}
    for v, a in zip(program.invars, place(program, dev, explicit=device is not None)):
        env[v] = a
    for v, c in zip(program.constvars, program.consts):
        env[v] = jax.device_put(c, dev)
    table_costs = costs(program)
    rows = []
    for eqn in program.eqns:
        ins = [env[a] for a in eqn.invars if not isinstance(a, Lit)]
        jitted = jax.jit(_one_eqn_fun(eqn))
        with on_device(dev, ins):
            times = time_calls(jitted, ins, repeat)      # the warm-up call compiles
            for v, val in zip(eqn.outvars, jitted(*ins)):
                env[v] = val
        median, spread = _stats(times)
        rows.append(ProfileRow(eqn, table_costs.get(eqn.id), median, spread))
    return Profile(program, whole.device, rows, whole, table_costs, lang)
