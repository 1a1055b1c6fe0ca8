"""The recorded replay: a run of the program stepped once when the cell runs (into every sub-jaxpr), stored in
the output's HTML with the debugger's ES module, so a reopened notebook, nbconvert HTML, Sphinx or nbviewer
steps through it with no kernel.  Capped by steps and bytes, with a note saying so.
"""
from __future__ import annotations

import json

import numpy as np

from jaxprlens.views.debugger.panel import PIECES, notes_html
from jaxprlens.views.debugger.state import StateView, captured, frame_view
from jaxprlens.present.escape import html
from jaxprlens.present.front import DeflatedSize, deflated, inflated, output
from jaxprlens.present.i18n import resolve, t
from jaxprlens.model.errors import told
from jaxprlens.model.program import path_id
from jaxprlens.engine.jitcheck import eqn_host_calls, steps_into_host
from jaxprlens.engine.conditions import CONDITIONS, stats
from jaxprlens.engine.values import kind_of
from jaxprlens.engine.landings import activation, call_end, call_landings, landings
from jaxprlens.present.i18n import si
from jaxprlens.engine.memory import free_bytes, stepping_bytes
from jaxprlens.engine.stepper import Stepper

MAX_STEPS = 1000
MAX_KINDS = 32               # kinds of operation (primitive and types) run: XLA compiles each new one (~20 ms on a CPU)
MAX_BYTES = 900_000          # the replay as stored (``stored``): with the snapshot, style and module, <= 1 MB
MEMORY_SHARE = 0.8           # of the memory the kernel has free, what a recording may take (the rest is the notebook's)
REPLAY_LIMIT = 8             # elements of an array printed per recorded value (the rest summarised)
REPLAY_CHARS = 240           # characters of a recorded value's preview
SPARE_ROWS = 20              # rows kept past the last one a recorded run reached, in each frame

WORDS = ("btn_step", "btn_into", "btn_out", "btn_back", "btn_continue", "btn_reset", "tip_step", "tip_into",
         "tip_out", "tip_back", "tip_continue", "tip_reset", "stop_on_nan", "stop_when", "cond_example",
         "mode_live", "mode_replay", "tip_live", "tip_replay", "keys_hint", "printed", "tip_gutter", "histogram",
         "name", "shape", "dtype", "statistics", "edit_nan", "edit_zero", "edit_scale", "edit_eps", "edit_set",
         "tip_edit", "edit_needs_kernel", "changed_by_edit", "btn_jit", "tip_jit", "btn_call", "tip_call")


def labels(lang: str) -> dict:
    """The words the front end shows, in the reader's language."""
    return {k: t(k, lang) for k in WORDS}


def _json(x) -> bytes:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":")).encode()


def _size(x) -> int:
    return len(_json(x))


def stored(data: dict) -> str:
    """The recording as the output stores it: its JSON, deflated (raw, as the script's DecompressionStream reads
    it) and in base64.  The panels' HTML repeats itself from step to step: this stores a tenth of it."""
    return deflated(_json(data))


def unstored(text: str) -> dict:
    """The recording back from ``stored(data)`` (what the script reads, for tools and tests)."""
    return json.loads(inflated(text))


def stored_size(data: dict) -> int:
    """The bytes ``stored(data)`` takes in the output."""
    return len(stored(data))


class Meter(DeflatedSize):
    """The stored bytes of what was recorded so far, as it grows (each piece deflated after the others)."""

    def add(self, x) -> int:
        return super().add(x.encode() if isinstance(x, str) else _json(x))


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


def where_key(where: tuple) -> tuple:
    """``Stepper.where`` comparable across runs of one program: per frame the eqn entered, its sub-jaxpr and the
    loop iteration, then the position (an ``Edit`` says where it was made so)."""
    if not where:
        return ()
    return tuple((e.id if e is not None else None, s.key if s is not None else None,
                  loop.iteration if loop is not None else None) for e, s, loop in where[:-1]) + (where[-1],)


class Pieces:
    """The panel's pieces of HTML, each stored once (``pieces``) and named by its index in each step (``p``): a
    replay's steps share their crumbs, source lines and most notes."""

    def __init__(self):
        self.items: list = []
        self.index: dict = {}

    def refer(self, panel: dict) -> tuple[list, list]:
        """The indices of ``panel``'s pieces, and the pieces new here."""
        refs, added = [], []
        for name in PIECES:
            text = panel[name]
            k = self.index.get(text)
            if k is None:
                k = self.index[text] = len(self.items)
                self.items.append(text)
                added.append(text)
            refs.append(k)
        return refs, added


def record(program, *args, lang: str | None = None, device=None, max_steps: int = MAX_STEPS,
           max_bytes: int = MAX_BYTES, max_kinds: int | None = MAX_KINDS, edits=()) -> dict:
    """Step ``program`` into every sub-jaxpr from the start, keeping per step the state the front end draws
    (position, its panel as HTML, the values written, printed text); frames' rows once each.  Capped by steps,
    bytes and ``max_kinds`` kinds of operation (each new one costs an XLA compile while the cell runs: the cap
    keeps the first ``--debug`` of a large model within seconds, and is the same on every machine).
    ``edits``: a live stepper's ``Stepper.edits``, made again where each was made (the replay shows the edited
    values and marks what they changed); an edit whose place the edited run no longer reaches is said."""
    st = Stepper(program, *args, device=device, forward_only=True)    # holds the program's live values only
    lang = resolve(lang)
    view = StateView(st, lang)
    limits = {"limit": REPLAY_LIMIT, "chars": REPLAY_CHARS}
    programs: dict = {}                  # frame path -> its program
    todo = [(where_key(e.where), e) for e in edits]
    shared = Pieces()

    def visit():
        f = st.frame.program
        key = path_id(f.path)
        programs.setdefault(key, f)
        if todo:                              # the edits made at this place, in the order they were made
            here = where_key(st.where)
            for item in [x for x in todo if x[0] == here]:
                st.set_value(item[1].var, item[1].new)
                todo.remove(item)

    marks: list = []                     # per step where over call lands from it: (depth, activation, pc, end)

    def kept(state: dict) -> dict:
        s = view.message(state, live=False)
        s["p"], added = shared.refer(s.pop("view"))
        if not s.get("changed_eqns"):
            s.pop("changed_eqns", None)       # nothing an edit changed: nothing to mark
        if not s.get("call"):
            s.pop("call", None)               # in no call (or an unfolded frame)
        marks.append((st.depth, activation(st), st.frame.pc,
                      call_end(st.frame.program, st.frame.pc) if s.get("call") else None))
        return s, added

    visit()
    meter = Meter()
    first, added = kept(view.state(jit=False, **limits))
    steps = [first]
    meter.add([first, added])
    why = None
    need, free = stepping_bytes(program), free_bytes()
    if free is not None and need > free * MEMORY_SHARE:      # checked before the first step: nothing is made
        why = t("cap_memory", lang, need=si(need, "B"), free=si(free, "B"))
    kinds: set = set()
    while not st.done and why is None:
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
            why = told(exc, lang)          # ours in the reader's language; JAX's as JAX says it
            break
        written_now = st.written          # what this step wrote (an edit made here comes after)
        visit()
        s, added = kept(view.state(jit=False, inputs=False, **limits))   # no jax.jit compile while the cell runs
        if not edits:                     # what no later equation reads goes now (its summary is kept); with
            st.forget()                   # edits every value stays, so that each row an edit changed is marked
        del s["back"]                       # the replay knows it from the step's index
        if out.getvalue():
            s["out"] = out.getvalue()
        if written_now:
            s["w"] = written(written_now)   # what a condition tests, as the engine computes it
        if meter.add([s, added]) > max_bytes:    # frames' rows and landings come on top: trimmed below
            why = t("cap_bytes", lang, kb=max_bytes // 1000)
            break
        steps.append(s)
    steps[0].pop("back", None)
    made: dict = {}

    def pack(steps: list) -> dict:
        """The recording of ``steps``: the rows of the frames they show (up to the last row reached, and a few
        more), the pieces they name, where Step and Step out land (the engine's moves: the script follows them;
        null past the recording)."""
        reached: dict = {}
        opened: dict = {}                 # frame path -> the calls the steps are in, outer first (their bodies)
        for s in steps:
            reached[s["frame"]] = max(reached.get(s["frame"], 0), s["pc"])
            if s.get("call"):
                opened.setdefault(s["frame"], {}).update(
                    (g.id, g) for g in view.fold_of(programs[s["frame"]]).open_path(s["pc"]))
        frames = {}
        for key, pc in reached.items():   # rows the run never reached are neither made nor stored
            keep = pc + SPARE_ROWS
            calls = tuple(opened.get(key, {}))
            if (key, keep, calls) not in made:
                f = made[key, keep, calls] = frame_view(programs[key], lang, count=keep, upto=keep,
                                                        groups=list(opened.get(key, {}).values()))
                if f["n"] > keep:
                    f["more"] = t("more_rows", lang, n=f["n"] - keep)
            frames[key] = made[key, keep, calls]
        renumber: dict = {}
        over, up = landings([s["depth"] for s in steps])
        call = call_landings(marks[:len(steps)], over)
        packed = []
        for k, s in enumerate(steps):
            s = dict(s, p=[renumber.setdefault(i, len(renumber)) for i in s["p"]])
            if over[k] != k + 1:
                s["o"] = over[k]
            if s["depth"] > 1:
                s["u"] = up[k]
            if s.get("call") and call[k] != over[k]:
                s["c"] = call[k]
            packed.append(s)
        return {"frames": frames, "steps": packed, "pieces": [shared.items[i] for i in renumber], "panel": PIECES,
                "note": None,
                "capped": False, "labels": labels(lang), "conditions": CONDITIONS}   # the grammar of a condition

    out = pack(steps)
    while stored_size(out) + 400 > max_bytes and len(steps) > 1:    # the note, said below, fits in 400 bytes
        del steps[max(1, len(steps) - max(1, len(steps) // 10)):]
        why = why or t("cap_bytes", lang, kb=max_bytes // 1000)
        out = pack(steps)
    notes = []
    if todo and not why:                     # the edited run went elsewhere: an edit's place never came
        notes.append(t("replay_edit_unreached", lang, names=", ".join(e.name for _, e in todo)))
    if why:
        out["capped"] = True
        notes.append(t("replay_capped", lang, n=len(steps) - 1, why=why))
    if notes:
        out["note"] = notes_html([["capped", n] for n in notes], lang, live=False)
    return out


NEEDS = ("debugger",)        # the front end a replay uses (``front.assets``)


def replay_html(data: dict, lang: str, static: str = "") -> str:
    """The replay as one HTML output: the snapshot (shown where scripts do not run), the data, the front end."""
    return output(replay_body(data, lang, static), NEEDS)



def replay_body(data: dict, lang: str, static: str = "") -> str:
    """The replay without the front end: the snapshot and the recorded data, deflated (``stored``;
    ``views/debugger/dbgreplay.js`` inflates and replays it)."""
    return (f'<div class="jaxprlens jl-dbg-replay" data-jl-view="replay" lang="{html(lang)}">'
            f'<div class="jl-dbg-static">{static}</div><script type="application/octet-stream" class="jl-dbg-data" '
            f'data-z="deflate-raw">{stored(data)}</script></div>')
