"""The recorded replay: a run of the program stepped once when the cell runs (into every sub-jaxpr), stored in
the output's HTML with the debugger's ES module, so a reopened notebook, nbconvert HTML, Sphinx or nbviewer
steps through it with no kernel.  Capped by steps and bytes, with a note saying so.
"""
from __future__ import annotations

import json

import numpy as np

from jaxprlens.views.dbgstate import StateView, captured, frame_data
from jaxprlens.present.escape import html
from jaxprlens.present.front import assets, data as front_data
from jaxprlens.present.i18n import resolve, t
from jaxprlens.model.program import path_id
from jaxprlens.engine.jitcheck import eqn_host_calls, steps_into_host
from jaxprlens.engine.conditions import CONDITIONS, stats
from jaxprlens.engine.values import kind_of
from jaxprlens.engine.landings import landings
from jaxprlens.engine.stepper import Stepper

MAX_STEPS = 1000
MAX_KINDS = 32               # kinds of operation (primitive and types) run: XLA compiles each new one (~20 ms on a CPU)
MAX_BYTES = 900_000          # the replay's JSON (with the snapshot, style and module the output stays <= 1 MB)
HTML_ROWS = 200              # a recorded frame of more rows stores them compact
REPLAY_LIMIT = 8             # elements of an array printed per recorded value (the rest summarised)
REPLAY_CHARS = 240           # characters of a recorded value's preview
SPARE_ROWS = 20              # rows kept past the last one a recorded run reached, in each frame

WORDS = ("btn_step", "btn_into", "btn_out", "btn_back", "btn_continue", "btn_reset", "tip_step", "tip_into",
         "tip_out", "tip_back", "tip_continue", "tip_reset", "stop_on_nan", "stop_when", "cond_example",
         "mode_live", "mode_replay", "tip_live", "tip_replay", "keys_hint", "printed", "tip_gutter", "histogram",
         "name", "shape", "dtype", "statistics", "edit_nan", "edit_zero", "edit_scale", "edit_eps", "edit_set",
         "tip_edit", "edit_needs_kernel", "changed_by_edit", "btn_jit", "tip_jit")


def labels(lang: str) -> dict:
    """The words the front end shows, in the reader's language."""
    return {k: t(k, lang) for k in WORDS}


def _size(x) -> int:
    return len(json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode())


F32 = 4                      # a recorded value's flag: its numbers are float32 ones, stored short (the script rounds
                             # them back with Math.fround: the very float32, so the very double the engine compares)


def _number(x, short: bool):
    """A statistic as JSON keeps it: Inf as a string (JSON has no Inf), None as null; a float32 one in its
    shortest float32 digits (``0.84147096``, not ``0.8414709568023682``)."""
    if x is None:
        return None
    if abs(x) == float("inf"):
        return "inf" if x > 0 else "-inf"
    return float(str(np.float32(x))) if short else x


def written(outs) -> list:
    """What the conditions compare, for the values a step wrote: per value ``[max, min, abs max, flags]``
    (``engine.conditions.stats``, the very numbers the live stepper's conditions compare)."""
    rows = []
    for x in outs:
        *numbers, flags = stats(x)
        short = kind_of(x) == "float" and np.dtype(x.dtype).itemsize <= 4      # every number a float32 exactly
        rows.append([_number(v, short) for v in numbers] + [flags | (F32 if short else 0)])
    return rows


def _kind(eqn) -> tuple | None:
    """What makes XLA compile anew when ``eqn`` runs eagerly: its primitive and types (None: it is entered)."""
    if eqn is None or eqn.subs:
        return None
    return (eqn.primitive, tuple(getattr(a, "type", "") for a in eqn.invars), tuple(v.type for v in eqn.outvars))


def record(program, *args, lang: str | None = None, device=None, max_steps: int = MAX_STEPS,
           max_bytes: int = MAX_BYTES, max_kinds: int | None = MAX_KINDS) -> dict:
    """Step ``program`` into every sub-jaxpr from the start, keeping per step the state the front end draws
    (position, crumbs, the values written, printed text); frames' rows once each.  Capped by steps, bytes and
    ``max_kinds`` kinds of operation (each new one costs an XLA compile while the cell runs: the cap keeps the
    first ``--debug`` of a large model within seconds, and is the same on every machine)."""
    st = Stepper(program, *args, device=device, max_history=max_steps + 1)
    lang = resolve(lang)
    view = StateView(st, lang)
    limits = {"limit": REPLAY_LIMIT, "chars": REPLAY_CHARS}
    frames, reached = {}, {}

    def visit():
        f = st.frame.program
        key = path_id(f.path)
        frames.setdefault(key, f)
        reached[key] = max(reached.get(key, 0), st.frame.pc)

    visit()
    steps = [view.state(**limits)]
    last_source = steps[0]["source"]
    used, why = _size(steps[0]), None
    kinds: set = set()
    while not st.done:
        if len(steps) > max_steps:
            why = t("cap_steps", lang, n=max_steps)
            break
        if steps_into_host(st.current):    # showing the debugger calls no host function: the recording ends here
            why = t("cap_host", lang, id=st.current.id, names=", ".join(eqn_host_calls(st.current)))
            break
        kind = _kind(st.current)
        if kind is not None and max_kinds is not None and kind not in kinds:
            if len(kinds) >= max_kinds:
                why = t("cap_kinds", lang, n=max_kinds)
                break
            kinds.add(kind)
        try:
            with captured() as out:
                st.step_into()
        except Exception as exc:  # noqa: BLE001 - the replay ends where the run failed, and says why
            why = f"{type(exc).__name__}: {exc}"
            break
        visit()
        s = view.state(jit=False, inputs=False, **limits)   # no jax.jit compile while the cell runs
        del s["back"], s["position"]        # the replay knows both from the step's index
        for key in ("changed", "changed_eqns"):
            if not s[key]:
                del s[key]                  # a recording has no edits: nothing to mark
        if s["source"] == last_source:
            s["source"] = 0                 # the same lines as the step before: not stored again
        else:
            last_source = s["source"]
        s["out"] = out.getvalue()
        if st.written:
            s["w"] = written(st.written)        # what a condition tests, as the engine computes it
        used += _size(s) + 12                   # + the step's landings (below)
        if used > max_bytes:                # frames' rows come on top: trimmed below
            why = t("cap_bytes", lang, kb=max_bytes // 1000)
            break
        steps.append(s)
    for key, program in frames.items():   # rows the run never reached are neither made nor stored
        keep = reached[key] + SPARE_ROWS
        f = frames[key] = frame_data(program, lang, HTML_ROWS, count=keep)
        if f["n"] > keep:
            f["more"] = t("more_rows", lang, n=f["n"] - keep)
    over, up = landings([s["depth"] for s in steps])
    for k, s in enumerate(steps):        # where Step and Step out land (the engine's moves): the script follows them
        if over[k] != k + 1:
            s["o"] = over[k]             # null: past the recording
        if s["depth"] > 1:
            s["u"] = up[k]
    out = {"frames": frames, "steps": steps, "note": None, "capped": False, "labels": labels(lang),
           "conditions": CONDITIONS}          # the grammar the script reads a typed condition with
    spare = _size(out) + 400                 # the note, said below, fits in 400 bytes
    while spare > max_bytes and len(steps) > 1:
        spare -= _size(steps.pop()) + 1
        why = why or t("cap_bytes", lang, kb=max_bytes // 1000)
    for s in steps:                          # a landing among the steps trimmed off: past the recording
        for key in ("o", "u"):
            if isinstance(s.get(key), int) and s[key] >= len(steps):
                s[key] = None
    if why:
        out["note"], out["capped"] = t("replay_capped", lang, n=len(steps) - 1, why=why), True
    return out


NEEDS = ("debugger",)        # the front end a replay uses (``front.assets``)


def replay_html(data: dict, lang: str, static: str = "") -> str:
    """The replay as one HTML output: the snapshot (shown where scripts do not run), the data, the front end."""
    return replay_body(data, lang, static) + assets(NEEDS)


def replay_body(data: dict, lang: str, static: str = "") -> str:
    """The replay without the front end: the snapshot and the recorded data (``static/debugger.js`` replays it)."""
    return (f'<div class="jaxprlens jl-dbg-replay" data-jl-view="replay" lang="{html(lang)}">'
            f'<div class="jl-dbg-static">{static}</div>{front_data(data, "jl-dbg-data")}</div>')
