"""The ipywidgets debugger: buttons, slider and panels that mirror a ``Stepper``'s state.

All logic is in ``stepper.py``; this module only renders the stepper's state into widgets and static
HTML (the fallback in the mimebundle, so saved notebooks show the state they were saved in).
"""
from __future__ import annotations

import re

import ipywidgets as widgets
import jax
import numpy as np

from .display import array_text
from .escape import html
from .model import Lit, Program
from .stepper import Stepper, source_context
from .i18n import resolve, sub_label, t, where_text
from .present import block
from .table import CSS, Table

try:   # keyboard shortcuts; the debugger works without them
    from ipyevents import Event
except ImportError:  # pragma: no cover - ipyevents is a dependency
    Event = None

SMALL = 64          # arrays up to this many elements are shown in full
BLOCKS = "▁▂▃▄▅▆▇█"
SPARK = 32          # sparkline width in characters

DEBUG_CSS = """
<style>
.jaxprlens tr.jl-bp>td:first-child::before{content:"● ";color:var(--jp-error-color1,#c00);}
.jaxprlens .jl-crumbs{font-weight:bold;margin:2px 0;}
.jaxprlens .jl-error{color:var(--jp-error-color1,#c00);white-space:pre-wrap;}
.jaxprlens .jl-note{color:var(--jp-warn-color1,#a60);}
.jaxprlens .jl-code{margin:2px 0;padding:2px 4px;background:var(--jp-layout-color2,#f6f6f6);}
.jaxprlens .jl-code .jl-hl{background:var(--jp-warn-color3,#fff3c4);display:inline-block;min-width:100%;}
.jaxprlens .jl-spark{letter-spacing:-1px;}
</style>
"""


# ---------------------------------------------------------------- value summaries (pure helpers)

def sparkline(values, width: int = SPARK) -> str:
    """Unicode blocks for the mean of ``width`` equal chunks of a flattened float array."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    flat = flat[np.isfinite(flat)]
    if flat.size == 0:
        return ""
    chunks = np.array_split(flat, min(width, flat.size))
    means = np.array([c.mean() for c in chunks])
    lo, hi = means.min(), means.max()
    if hi == lo:
        return BLOCKS[0] * len(means)
    idx = np.round((means - lo) / (hi - lo) * (len(BLOCKS) - 1)).astype(int)
    return "".join(BLOCKS[i] for i in idx)


def describe(value, lang: str = "en") -> dict:
    """Shape, dtype, device, statistics and a printable value (full or summarised) of one value."""
    info = {"shape": "", "dtype": type(value).__name__, "device": "", "stats": "", "value": "", "spark": ""}
    devices = getattr(value, "devices", None)
    if callable(devices):
        try:
            info["device"] = ", ".join(sorted(f"{d.platform}:{d.id}" for d in devices()))
        except Exception:  # noqa: BLE001 - deleted or abstract arrays
            pass
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - tokens, key arrays
        info["value"] = str(value)
        return info
    info["shape"] = str(tuple(arr.shape))
    info["dtype"] = str(getattr(value, "dtype", arr.dtype))
    if arr.dtype.kind in "biuf" and arr.size:
        data = arr.astype(np.float64)
        nan = int(np.isnan(data).sum())
        finite = data[~np.isnan(data)]
        if finite.size:
            info["stats"] = t("dbg_stats", lang, min=_num(finite.min()), max=_num(finite.max()),
                              mean=_num(finite.mean()), nan=nan)
        else:
            info["stats"] = t("dbg_nan", lang, nan=nan)
    info["value"] = array_text(arr, SMALL, precision=5, one_line=False, linewidth=100)
    if arr.size > SMALL and arr.dtype.kind == "f":
        info["spark"] = sparkline(arr)
    return info


def _num(x: float) -> str:
    return f"{x:.6g}"


def _atom_name(a) -> str:
    return a.text if isinstance(a, Lit) else a.name


# ---------------------------------------------------------------- rendering of a stepper's state

class StateView:
    """HTML and text of a stepper's state: breadcrumb, frame table, values, source. Used by the widget."""

    def __init__(self, stepper: Stepper, lang: str | None = None):
        self.stepper, self.lang = stepper, resolve(lang)

    def _frame_label(self, frame) -> str:
        """``while[eqn 2] › body › iteration 3`` in the reader's words (the stepper's ``Frame.label``)."""
        lang, loop = self.lang, frame.loop
        text = f"{t('frame_eqn', lang, prim=frame.eqn.primitive, i=frame.eqn.index)} › {sub_label(frame.sub, lang)}"
        if loop is not None:
            text += " › " + t("iteration_n", lang, n=loop.iteration)
            if getattr(loop, "reverse", False):
                text += f" (xs[{loop.length - 1 - loop.iteration}])"
        return text

    def crumbs(self) -> list:
        """The stepper's ``crumbs`` in the reader's words: ``['while[eqn 2] › body › iteration 3', 'eqn 1']``."""
        st = self.stepper
        if st.done:
            return [t("done", self.lang)]
        return [self._frame_label(f) for f in st.frames[1:]] + [t("at_eqn", self.lang, i=st.frame.pc)]

    def stop_text(self) -> str | None:
        """Why the last move stopped.  The stepper says it in English; the two kinds of stop are said
        again here from its state (anything else is shown as the stepper wrote it)."""
        st, reason = self.stepper, self.stepper.stop_reason
        if not reason or self.lang == "en":
            return reason
        if reason.startswith("breakpoint") and st.current is not None:
            return t("stop_breakpoint", self.lang, id=st.current.id, prim=st.current.primitive)
        if reason.startswith("NaN") and st.last_eqn is not None:
            return t("stop_nan", self.lang, id=st.last_eqn.id, prim=st.last_eqn.primitive)
        return reason

    def crumbs_html(self) -> str:
        st = self.stepper
        parts = [t("top", self.lang)] + self.crumbs()
        return (f'<div class="jl-crumbs" data-depth="{st.depth}">'
                + " › ".join(f"<span>{html(p)}</span>" for p in parts) + "</div>")

    def table_html(self) -> str:
        st = self.stepper
        frame = st.frame
        program: Program = frame.program
        table = Table(program, lang=self.lang)
        consts = set(program.constvars)
        rows = []
        for i, row in enumerate(block(program, self.lang).rows):
            cls = ("jl-done" if i < frame.pc else "") + (" jl-hl" if i == frame.pc else "")
            if st.is_breakpoint(row.eqn):
                cls += " jl-bp"
            rows.append(table.row_html(row, consts, cls.strip()))
        if not rows:
            return f'<div class="jl-empty">{html(t("no_eqns", self.lang))}</div>'
        pid = "/".join(str(x) for x in program.path)
        return (f'<table class="jl-eqns jl-frame" data-path="{html(pid)}">'
                f"{table.header_html()}<tbody>{''.join(rows)}</tbody></table>")

    def _value_rows(self, title: str, names: list, values: list) -> str:
        rows = []
        for name, value in zip(names, values):
            d = describe(value, self.lang)
            spark = (f'<div class="jl-spark" title="{t("sparkline", self.lang)}">{html(d["spark"])}</div>'
                     if d["spark"] else "")
            rows.append(
                f'<tr class="jl-value" data-var="{html(name)}"><td>{html(title)}</td><td>{html(name)}</td>'
                f'<td>{html(d["shape"])}</td><td>{html(d["dtype"])}</td><td>{html(d["device"])}</td>'
                f'<td class="jl-stats">{html(d["stats"])}</td>'
                f'<td><pre class="jl-val">{html(d["value"])}</pre>{spark}</td></tr>')
        return "".join(rows)

    def values_html(self, error: str | None = None) -> str:
        st = self.stepper
        parts = []
        if error:
            parts.append(f'<div class="jl-error">{html(error)}</div>')
        if st.stop_reason:
            parts.append(f'<div class="jl-note jl-stop">{html(self.stop_text())}</div>')
        if getattr(st, "note", None):          # e.g. a combiner or a shard_map body run as one step
            parts.append(f'<div class="jl-note jl-over">{html(st.note)}</div>')
        if st.done and hasattr(st, "compare_with_jit"):
            diff = st.compare_with_jit()
            if diff:
                parts.append(f'<div class="jl-note jl-jitdiff">{html(diff)}</div>')
        if st.history_truncated:
            note = t("history_capped", self.lang, n=st.max_history)
            parts.append(f'<div class="jl-note jl-truncated">{html(note)}</div>')
        rows = []
        eqn = st.current
        if eqn is not None:
            rows.append(self._value_rows(t("inputs_title", self.lang), [_atom_name(a) for a in eqn.invars],
                                         st.current_inputs))
        if st.last_eqn is not None and st.last_outputs is not None:
            last = st.last_eqn
            rows.append(self._value_rows(t("output_of", self.lang, id=last.id, prim=last.primitive),
                                         [v.name for v in last.outvars], st.last_outputs))
        if st.done:
            top = st.program
            names = top.out_paths or [_atom_name(a) for a in top.outvars]
            rows.append(self._value_rows(t("results", self.lang), names, jax.tree_util.tree_leaves(st.outputs)))
        if any(rows):
            head = "<th></th>" + "".join(f"<th>{t(h, self.lang)}</th>" for h in
                                         ("name", "shape", "dtype", "device", "statistics", "value"))
            parts.append(f'<table class="jl-values"><thead><tr>{head}</tr></thead>'
                         f"<tbody>{''.join(rows)}</tbody></table>")
        return "".join(parts)

    def source_html(self) -> str:
        st = self.stepper
        eqn = next((e for e in (st.current, st.frame.eqn, st.last_eqn) if e is not None and e.source), None)
        lines = source_context(eqn)
        if not lines:
            return ""
        where = eqn.source.where if eqn.source else ""
        body = "\n".join(
            f'<span class="jl-line{" jl-hl" if cur else ""}" data-line="{n}">{n:>4}  {html(text)}</span>'
            for n, text, cur in lines)
        return f'<pre class="jl-code" data-where="{html(where)}">{body}</pre>'

    def html(self, error: str | None = None) -> str:
        return (CSS + DEBUG_CSS + f'<div class="jaxprlens jl-debugger" lang="{self.lang}">' + self.crumbs_html()
                + self.table_html() + self.values_html(error) + self.source_html() + "</div>")

    def text(self, error: str | None = None) -> str:
        st, lang = self.stepper, self.lang
        lines = [t("dbg_finished", lang) if st.done else t("dbg_at", lang, path=" › ".join(self.crumbs()))]
        eqn = st.current
        if eqn is not None:
            outs = " ".join(f"{v.name}:{v.type}" for v in eqn.outvars)
            line = f"{outs} = {eqn.primitive} {' '.join(_atom_name(a) for a in eqn.invars)}"
            lines.append("  " + t("dbg_next", lang, line=line))
            for a, x in zip(eqn.invars, st.current_inputs):
                lines.append(f"    {_atom_name(a)} = {' '.join(describe(x)['value'].split())[:80]}")
        if st.last_eqn is not None and st.last_outputs is not None:
            lines.append("  " + t("dbg_last", lang, id=st.last_eqn.id, prim=st.last_eqn.primitive))
            for v, x in zip(st.last_eqn.outvars, st.last_outputs):
                lines.append(f"    {v.name} = {' '.join(describe(x)['value'].split())[:80]}")
        if st.done:
            for name, x in zip(st.program.out_paths or ["out"] * 99, jax.tree_util.tree_leaves(st.outputs)):
                lines.append(f"  {name} = {' '.join(describe(x)['value'].split())[:80]}")
        if st.stop_reason:
            lines.append("  " + t("dbg_stopped", lang, reason=self.stop_text()))
        if st.history_truncated:
            lines.append("  " + t("dbg_capped", lang, n=st.max_history))
        if error:
            lines.append("  " + t("dbg_error", lang, error=error))
        return "\n".join(lines)


# ---------------------------------------------------------------- the widget

def _button(key: str, lang: str, icon: str) -> widgets.Button:
    """A button labelled ``btn_<key>`` with tooltip ``tip_<key>`` from the catalogue."""
    return widgets.Button(description=t(f"btn_{key}", lang), tooltip=t(f"tip_{key}", lang), icon=icon,
                          layout=widgets.Layout(width="auto"))


class Debugger(widgets.VBox):
    """``program.debugger()`` / ``%%jaxpr --debug``: step through the program with real values."""

    def __init__(self, program: Program, *args, device=None, lang: str | None = None, **options):
        self.stepper = Stepper(program, *args, device=device, **options)
        self.view = StateView(self.stepper, lang)
        self.lang = lang = self.view.lang
        self.error: str | None = None
        self._syncing = False

        self.step_button = _button("step", lang, "step-forward")
        self.into_button = _button("into", lang, "sign-in")
        self.out_button = _button("out", lang, "sign-out")
        self.back_button = _button("back", lang, "step-backward")
        self.continue_button = _button("continue", lang, "play")
        self.reset_button = _button("reset", lang, "refresh")
        self.actions = {"n": (self.step_button, self.stepper.step), "i": (self.into_button, self.stepper.step_into),
                        "o": (self.out_button, self.stepper.step_out), "b": (self.back_button, self.stepper.back),
                        "c": (self.continue_button, self.stepper.run), "r": (self.reset_button, self.stepper.reset)}
        for button, action in self.actions.values():
            button.on_click(lambda _b, action=action: self._act(action))

        self.slider = widgets.IntSlider(value=0, min=0, max=len(program.eqns), description=t("position", lang),
                                        tooltip=t("tip_position", lang), continuous_update=False)
        self.slider.observe(self._on_slider, names="value")
        options_ = [(f"{e.id}  {e.primitive}" + (f"  {t('paren', lang, x=where_text(e.source, lang))}"
                                                 if e.source else ""), e.id) for e in program.walk()]
        self.breakpoints = widgets.SelectMultiple(options=options_, value=(), description=t("breakpoints", lang),
                                                  rows=min(8, max(2, len(options_))))
        self.breakpoints.observe(self._on_breakpoints, names="value")
        self.break_primitives = widgets.Text(value="", description=t("on_primitive", lang),
                                             placeholder=t("primitive_example", lang))
        self.break_primitives.observe(self._on_breakpoints, names="value")
        self.here_button = widgets.ToggleButton(value=False, description=t("break_here", lang), icon="circle",
                                                tooltip=t("tip_break_here", lang))
        self.here_button.observe(self._on_here, names="value")
        self.stop_on_nan = widgets.Checkbox(value=False, description=t("stop_on_nan", lang))
        self.stop_on_nan.observe(self._on_nan, names="value")

        self.crumbs = widgets.HTML()
        self.table = widgets.HTML()
        self.values = widgets.HTML()
        self.source = widgets.HTML()
        buttons = widgets.HBox([self.step_button, self.into_button, self.out_button, self.back_button,
                                self.continue_button, self.reset_button, self.here_button])
        hint = widgets.HTML(f'<span class="jl-note" title="{t("keys_title", lang)}">{t("keys_hint", lang)}</span>'
                            if self.key_events_supported() else "")
        controls = widgets.HBox([self.slider, self.stop_on_nan, hint])
        breaks = widgets.HBox([self.breakpoints, self.break_primitives])
        state = widgets.VBox([self.crumbs, self.table, self.values, self.source])
        super().__init__(children=[buttons, controls, breaks, state])
        # Keys work while the pointer is over the buttons or the state panels (not the breakpoint box,
        # so typing a primitive name there does not step).
        self.key_events = [] if Event is None else [
            Event(source=w, watched_events=["keydown"], prevent_default_action=True) for w in (buttons, state)]
        for ev in self.key_events:
            ev.on_dom_event(self._on_key)
        self._refresh()

    # ---------------------------------------------------------- actions
    def _act(self, action):
        self.error = None
        try:
            action()
        except Exception as exc:  # noqa: BLE001 - shown in the panel; the stepper state is unchanged
            self.error = f"{type(exc).__name__}: {exc}"
        self._refresh()

    @staticmethod
    def key_events_supported() -> bool:
        return Event is not None

    def _on_key(self, event: dict):
        """n/i/o/b/c/r press Step, Step into, Step out, Back, Continue, Reset (when enabled)."""
        if event.get("type") != "keydown" or event.get("ctrlKey") or event.get("altKey") or event.get("metaKey"):
            return
        button, action = self.actions.get(str(event.get("key", "")).lower(), (None, None))
        if button is not None and not button.disabled:
            self._act(action)

    def _on_slider(self, change):
        if not self._syncing:
            self._act(lambda: self.stepper.goto(change["new"]))

    def _on_breakpoints(self, _change=None):
        st = self.stepper
        for spec in list(st.breakpoints):
            if spec[0] in ("eqn", "primitive"):
                st.remove_breakpoint(spec)
        for eqn_id in self.breakpoints.value:
            st.add_breakpoint(eqn=eqn_id)
        for name in filter(None, re.split(r"[\s,，、]+", self.break_primitives.value)):   # zh IMEs type ，、
            st.add_breakpoint(primitive=name)
        self._refresh()

    def _on_here(self, change):
        """Toggle a breakpoint on the current (highlighted) row."""
        eqn = self.stepper.current
        if self._syncing or eqn is None:
            return
        wanted = set(self.breakpoints.value) ^ {eqn.id}
        self.breakpoints.value = tuple(i for _, i in self.breakpoints.options if i in wanted)

    def _on_nan(self, change):
        self.stepper.break_on_nan = bool(change["new"])

    def _refresh(self):
        st, view = self.stepper, self.view
        self._syncing = True
        try:
            self.slider.value = st.position
            current = st.current
            self.here_button.value = current is not None and current.id in self.breakpoints.value
            self.here_button.disabled = current is None
        finally:
            self._syncing = False
        for b in (self.step_button, self.into_button, self.out_button, self.continue_button):
            b.disabled = st.done
        self.back_button.disabled = not st.can_back
        self.crumbs.value = CSS + DEBUG_CSS + f'<div class="jaxprlens">{view.crumbs_html()}</div>'
        self.table.value = f'<div class="jaxprlens">{view.table_html()}</div>'
        self.values.value = f'<div class="jaxprlens">{view.values_html(self.error)}</div>'
        self.source.value = f'<div class="jaxprlens">{view.source_html()}</div>'

    # ---------------------------------------------------------- display
    def _repr_mimebundle_(self, **kwargs):
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = self.view.text(self.error)
        bundle["text/html"] = self.view.html(self.error)
        return bundle

    def __repr__(self) -> str:
        return f"<jaxprlens.Debugger at {self.stepper.path_text}>"
