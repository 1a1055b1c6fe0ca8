"""The live debugger: an anywidget whose ES module (``static/debugger.js``) draws the frame and the values.

All logic is in ``stepper.py``; this module mirrors the stepper's state to the front end as small messages
(a frame's rows once, then per move the position, crumbs and the current equation's values).

Displayed, a debugger is two outputs (``_ipython_display_``): first its recorded replay (``replay.py``), an
ordinary ``text/html`` + ``text/plain`` output that every page without a kernel steps through (nbconvert,
nbviewer, Sphinx, a reopened notebook), then, only where a front end that draws widgets runs the cell, the
live widget's view alone (``{"jaxprlens": {"live": true, "debugger": true}}``, no ``text/html``).  The live
view shows itself once its kernel answers, and the replay beside it then steps aside (``debugger.css``): one
debugger live, the replay wherever the notebook is saved or converted, with or without the server's save hook
(which only drops the widget's output as a clean-up).  A kernel run by no such front end (``nbconvert
--execute``, papermill, myst-nb, Jupyter Book) opens no widget at all: its notebook stores the replay and no
widget state.
"""
from __future__ import annotations

import itertools
import os
import time

import anywidget
import traitlets
from anywidget.experimental import command

from jaxprlens.views.debugger.state import (CHUNK_ROWS, COMPARE_MAX, ROWS_PER_MESSAGE, StateView,  # noqa: F401 - the debugger's API
                                            captured, describe, frame_data, frame_view, sparkline)
from jaxprlens.engine.landings import over_call
from jaxprlens.present.front import (LIVE_KEY, LIVE_META, REPLAY_META, WIDGET_VIEW, output, output_key, widget_css,
                                     widget_module)
from jaxprlens.model.errors import told
from jaxprlens.model.program import Program, path_id
from jaxprlens.views.debugger.replay import NEEDS as REPLAY_NEEDS, labels, record, replay_body
from jaxprlens.engine.stepper import Stepper
from jaxprlens.views.cells import cell_key, close_layout, draws_widgets, in_marimo, replace_in_cell  # noqa: F401 - public here too
from jaxprlens.present.i18n import t
from jaxprlens.present.words import path_text

ERROR_CHARS = 500          # an error note is cut here
PROGRESS_S = 1.0           # seconds between the reports of a long move's progress
_cells: dict = {}          # cell id -> [(execution's message id, weakref to a Debugger)]
_made = itertools.count(1)  # the debuggers this kernel made: each one's key on a page (Debugger.instance)


class Debugger(anywidget.AnyWidget):
    """``program.debugger()`` / ``%%jaxpr --debug``: step through the program with real values."""

    _esm = widget_module()       # static/main.js bundled with the debugger (and the table rows it draws)
    _css = widget_css()
    labels = traitlets.Dict().tag(sync=True)
    lang = traitlets.Unicode("en").tag(sync=True)
    replay_box = traitlets.Unicode("").tag(sync=True)    # the key of the replay's output (front.output_key)
    # the replay inside the widget, for a front end that shows the widget alone and may store it with no kernel
    # to answer (marimo, and its export html): drawn until the kernel answers
    fallback = traitlets.Unicode("").tag(sync=True)
    # this debugger among every kernel's on one page: a page may draw its widget twice (a shared notebook whose
    # outputs another collaborator's trust copied, jupyter-collaboration), and its views then show one of them
    instance = traitlets.Unicode("").tag(sync=True)

    def __init__(self, program: Program, *args, device=None, lang: str | None = None, cell: tuple | None = None,
                 **options):
        """``options`` go to the ``Stepper`` (``break_on_nan``, ``max_history``, ``jit_rtol``, ``jit_atol``,
        ``jit_budget``).  ``cell``: ``(cell id, execution id)``, found by itself in a notebook; a debugger
        made by a later run of the same cell closes this one (its widget, stepper and values go)."""
        self.stepper = Stepper(program, *args, device=device, **options)
        self.view = StateView(self.stepper, lang)
        self._args, self._device = args, device
        super().__init__(labels=labels(self.view.lang), lang=self.view.lang, instance=f"{os.getpid()}-{next(_made)}")
        self.error: str | None = None
        self.printed = ""               # everything jax.debug.print/callback printed while stepping
        self._sent: dict = {}           # frames whose rows the front end has (or is being sent): path -> program
        self._bodies: dict = {}         # frame path -> ids of the calls whose bodies the front end has
        self._chunks: dict = {}         # folded frame path -> the chunks of rows (CHUNK_ROWS) the front end has
        self._bps: list | None = None   # breakpoints as last sent
        self._marks: dict = {}          # frame path -> ids of the rows the front end marks as changed by an edit
        self._replay: tuple | None = None   # (the edits it was recorded with, the replay)
        self._compared = False          # the end's comparison with jax.jit was sent
        self._running: list | None = None  # [the last progress report's time] while a move runs
        self.stepper.progress = self._progress
        if in_marimo():
            self.fallback = self._replay_body()
        self._replaces(cell if cell is not None else cell_key())

    def open(self):
        """Open the widget's channel, except in a kernel whose client draws no widget (nbclient would store
        the widget's state, ES module included, in the notebook, and converters would show it dead)."""
        if draws_widgets() is not False:
            super().open()

    # ---------------------------------------------------------- moves (the front end's messages)
    @property
    def moves(self) -> dict:
        st = self.stepper
        return {"step": st.step, "into": st.step_into, "out": st.step_out, "call": lambda: over_call(st),
                "back": st.back, "continue": st.run, "reset": st.reset}

    @command
    def ask(self, msg, _buffers) -> tuple[dict, list]:
        """The front end's asks, anywidget's command ``ask`` (``static/rpc.js``): ``{"do": name, ...}``, answered
        by ``answer``.  While a long move runs its progress reports are sent on their own (``_progress``)."""
        if not isinstance(msg, dict):
            return {}, []
        arg = {k: v for k, v in msg.items() if k in ("eqn", "text", "on", "var", "op", "value", "path", "from",
                                                     "count", "group")}
        return self.answer(str(msg.get("do")), **arg), []

    def press(self, name: str, **arg) -> dict:
        """``answer`` and send it, as a front end's ask gets it, then, the first time the end is reached, the
        comparison with jax.jit the front end then asks for (a debugger driven from Python)."""
        msg = self.answer(name, **arg)
        if msg:
            self.send(msg)
        if msg.get("compare"):
            self.send(self.answer("compare"))
        return msg

    def answer(self, name: str, **arg) -> dict:
        """Do what the front end asks (``step``, ``into``, ``out``, ``back``, ``continue``, ``reset``,
        ``toggle`` with ``eqn=``, ``cond`` with ``text=`` and ``on=``, ``edit`` with ``var=``, ``op=``, ``value=``
        (see ``edit``), ``ready``, ``rows``, ``body``, ``compare``) and return the delta.  The end, reached the
        first time, is answered before its comparison with jax.jit (which compiles the whole program): its answer
        says ``compare``, and the front end asks for it (``compare``) once the end is drawn."""
        self.error, text = None, ""
        if name == "rows":                  # rows of a large frame the front end scrolled to: nothing else changes
            program = self._sent.get(str(arg.get("path")))
            start, count = arg.get("from"), arg.get("count", ROWS_PER_MESSAGE)
            if program is None or not isinstance(start, int) or not isinstance(count, int) or start < 0:
                return {}
            start, count = start // CHUNK_ROWS * CHUNK_ROWS, max(0, min(count, ROWS_PER_MESSAGE))
            msg = {"rows": frame_data(program, self.view.lang, start=start, count=count)}
            self._chunks.setdefault(str(arg.get("path")), set()).update(
                range(start // CHUNK_ROWS, -(-(start + count) // CHUNK_ROWS)))
            return msg
        if name == "body":                  # a folded call the reader opened: its body, nothing else changes
            program = self._sent.get(str(arg.get("path")))
            fold = program is not None and self.view.fold_of(program)
            g = fold.find(arg.get("group", "")) if fold else None
            if g is None:
                return {}
            bodies, new = self._bodies_of(program, [g])
            msg = {"bodies": bodies}
            rows = self._rows_of(program, new)
            if rows:
                msg["rows"] = rows
            return msg
        if name == "ready":                 # a new view: it has no frames yet
            self._sent.clear()
            self._bodies.clear()
            self._chunks.clear()
            self._marks.clear()
            self._bps = None
        elif name == "toggle":
            self._guard(lambda: self.stepper.toggle_breakpoint(eqn=str(arg.get("eqn"))[:100]))
        elif name == "jit":                 # "compare now": the comparison past its budget, asked for (up to a size)
            self.stepper.jit_budget = max(self.stepper.jit_budget or 0, COMPARE_MAX)
            self._compared = False          # drawn first, compared after (below)
        elif name == "compare":             # the end is drawn: its comparison now
            self._compared = self.stepper.done
        elif name == "edit":
            self._guard(lambda: self.edit(str(arg.get("var")), str(arg.get("op")), arg.get("value")))
        elif name == "cond":
            self._guard(lambda: (self.stepper.add_condition if arg.get("on") else self.stepper.remove_condition)(
                arg["text"]))
        elif name in self.moves:
            self._running = [time.monotonic()]
            try:
                with captured() as out:
                    self._guard(self.moves[name])
            finally:
                self._running = None
            text = out.getvalue()
            self.printed += text
        else:
            self.error = t("dbg_unknown_action", self.view.lang, name=repr(name), names=str(sorted(self.moves)))
        late = self.stepper.done and not self._compared     # eager vs jax.jit compiles the program once:
        if self.stepper.done and not late:
            self.compare()                  # compiled already: only the outputs are compared
        msg = self.delta(full=name == "ready", jit=not late)  # the end is drawn first, the comparison after
        if text or name == "ready":
            msg["out"], msg["clear"] = (self.printed, True) if name == "ready" else (text, False)
        if late:
            msg["compare"] = True
        return msg

    def _progress(self):
        """During a long move (Continue, Step out through a long loop), at most every ``PROGRESS_S`` seconds:
        where it has got to, drawn as a state is (the kernel answers nothing else until the move ends), with
        how to stop it."""
        running = self._running
        if running is None or time.monotonic() - running[0] < PROGRESS_S:
            return
        running[0] = time.monotonic()
        try:
            msg = self.delta(jit=False, running=True)
        except Exception:  # noqa: BLE001 - a progress report never stops the move
            return
        self.send(msg)

    def compare(self):
        """The comparison of the stepped outputs with jax.jit's (``Stepper.jit_check``), the one step that
        compiles the whole program (once): asked for at the end of a run, or by the "compare now" button; the
        panel then shows its kept result (``Stepper.jit_result``)."""
        with captured():                    # jit's own run prints again: not the reader's output
            self.stepper.jit_check()

    def _guard(self, action):
        try:
            action()
        except KeyboardInterrupt:      # the kernel interrupted: the move stops where it was, and the panel says so
            self.error = t("dbg_interrupted", self.view.lang, where=path_text(self.stepper, self.view.lang))
        except Exception as exc:  # noqa: BLE001 - shown in the panel; the stepper state is unchanged
            text = told(exc, self.view.lang)    # ours in the reader's language; anything else as Python says it
            # bounded: the start says what failed, the end (a callback's traceback) says why
            self.error = text if len(text) <= ERROR_CHARS else f"{text[:200]} … {text[-(ERROR_CHARS - 203):]}"

    def edit(self, name: str, op: str, value=None):
        """The value panel's edit of value ``name``: ``nan``, ``zero``, ``scale`` (by ``value``), ``eps`` (add
        ``value``) or ``set`` (to the number ``value``): ``Stepper.edit``, which checks and records it."""
        self.stepper.edit(name, op, value)

    def delta(self, full: bool = False, jit: bool = True, running: bool = False) -> dict:
        """What changed since the last message: the frame's rows if the front end lacks them,
        breakpoints if they changed, the state (position, crumbs, values) always."""
        st, msg = self.stepper, {}
        program = st.frame.program
        key = path_id(program.path)
        if key not in self._sent:          # a large frame: its first rows now, the rest as the reader scrolls to them
            pc, n = st.frame.pc, len(program.eqns)      # from a little above the current row, at a chunk's start
            start = 0 if n <= ROWS_PER_MESSAGE else max(0, pc - ROWS_PER_MESSAGE // 4) // CHUNK_ROWS * CHUNK_ROWS
            path = self.view.call_path()
            msg["frame"] = frame = frame_view(program, self.view.lang, start=start, count=0, groups=path)
            self._sent[key] = program
            self._bodies[key] = {g.id for g in path}
            if self.view.fold_of(program).folded():     # folded by calls: the rows of the calls it opens
                rows = self._rows_of(program, [None, *path])
            else:
                rows = frame_data(program, self.view.lang, start=start, count=ROWS_PER_MESSAGE)
            if rows:
                frame["rows"], frame["from"] = rows["rows"], rows["from"]
        else:                              # a move into calls whose bodies the front end lacks: those, outer first
            bodies, new = self._bodies_of(program, self.view.call_path())
            if new:
                msg["bodies"] = bodies
                rows = self._rows_of(program, new)
                if rows:
                    msg["rows"] = rows
        bps = sorted(e.id for e in st.breakpoint_eqns)
        if bps != self._bps:
            msg["bps"] = self._bps = bps
        if full:
            msg["conds"] = list(st.conditions)
        msg["state"] = self._state(jit, running)
        return msg

    def _bodies_of(self, program: Program, groups: list) -> tuple[dict, list]:
        """``({path, groups: [[id, body], ...]}, those calls)``: the bodies of ``groups`` the front end has not
        been sent."""
        key = path_id(program.path)
        new = self._new_bodies(program, groups)
        self._bodies.setdefault(key, set()).update(g.id for g in new)
        return {"path": key, "groups": self.view.fold_of(program).bodies(new)}, new

    def _rows_of(self, program: Program, groups: list) -> dict | None:
        """The rows (``frame_data``, whole chunks) that the bodies of ``groups`` (calls; None: the frame's own)
        show and the front end lacks, or None: a folded frame sends the rows of the calls it opens, not its
        first 1,000 (the rest come as calls open, or are asked for as they are scrolled to)."""
        have = self._chunks.setdefault(path_id(program.path), set())
        want = sorted(self.view.fold_of(program).chunks_shown(groups) - have)
        if not want:
            return None
        lo = want[0]
        hi = max(k for k in want if k < lo + ROWS_PER_MESSAGE // CHUNK_ROWS)
        have.update(range(lo, hi + 1))
        return frame_data(program, self.view.lang, start=lo * CHUNK_ROWS, count=(hi - lo + 1) * CHUNK_ROWS)

    def _new_bodies(self, program: Program, groups: list) -> list:
        sent = self._bodies.get(path_id(program.path), ())
        return [g for g in groups if g.id not in sent]

    def _state(self, jit: bool = True, running: bool = False) -> dict:
        """``StateView.state`` as the front end draws it (``StateView.message``), with the rows an edit changed
        as a change of marks (``marks``: ids to ``add`` and to ``drop``), not all of them each move (an edit
        early in 100k equations marks 50k rows)."""
        state = self.view.state(self.error, jit)
        if running:                              # a long move on its way: say so, and how to stop it
            state["notes"].append(["stop", t("dbg_running", self.view.lang, n=self.stepper._ticks)])
        state = self.view.message(state, live=True)
        ids = state.pop("changed_eqns")          # in program order, so a move forward adds at the end, back
        sent = self._marks.get(state["frame"], [])   # drops from the end
        if ids != sent:
            n = min(len(ids), len(sent))
            if ids[:n] == sent[:n]:
                add, drop = ids[n:], sent[n:]
            else:
                now, old = set(ids), set(sent)
                add, drop = [e for e in ids if e not in old], [e for e in sent if e not in now]
            state["marks"] = {"add": add, "drop": drop}
        self._marks[state["frame"]] = ids
        return state

    # ---------------------------------------------------------- a bounded session
    def _replaces(self, cell: tuple | None):
        """Close the debuggers earlier runs of ``cell`` made (not those of this same run)."""
        replace_in_cell(_cells, cell, self)

    def close(self):
        """Close the widget and drop the values its stepper computed (the inputs stay: a stored output or
        ``Out[n]`` may still show it)."""
        super().close()
        close_layout(self)
        stepper = getattr(self, "stepper", None)
        if stepper is not None:
            stepper.release()
        self._replay = None

    # ---------------------------------------------------------- display
    def replay(self) -> dict:
        """The recorded run stored with the output (made from the start, again only when the edits in effect
        changed): the what-if edits made live are made again in it, where they were made."""
        edits = self.stepper.edits
        key = tuple(map(id, edits))
        if self._replay is None or self._replay[0] != key:
            self._replay = key, record(self.stepper.program, *self._args, lang=self.view.lang,
                                       device=self._device, edits=edits)
        return self._replay[1]

    def _replay_body(self) -> str:
        """The replay's HTML without its loader: the snapshot where no script runs, the recorded run."""
        return replay_body(self.replay(), self.view.lang, static=StateView(
            Stepper(self.stepper.program, *self._args, device=self._device), self.view.lang).html())

    def _repr_mimebundle_(self, **kwargs):
        """The stored form: the recorded replay (``text/html``: its snapshot where no script runs) and the
        debugger's state as text; the live widget is a display of its own (``widget_bundle``)."""
        body = self._replay_body()
        self.replay_box = output_key(body)         # the live view hides this box once its kernel answers
        data = {"text/plain": self.view.text(self.error), "text/html": output(body, REPLAY_NEEDS)}
        return data, {LIVE_KEY: dict(REPLAY_META)}

    def widget_bundle(self) -> tuple[dict, dict] | None:
        """The live widget's display: its view and an empty text (where no widget is drawn it shows nothing:
        the replay before it is the debugger there); None without a channel to a front end."""
        if self.comm is None:
            return None
        data, metadata = super()._repr_mimebundle_() or ({}, {})
        if WIDGET_VIEW not in data:
            return None
        metadata = dict(metadata or {}, **{LIVE_KEY: dict(LIVE_META)})     # (anywidget's: Colab's widget manager)
        return {WIDGET_VIEW: data[WIDGET_VIEW], "text/plain": ""}, metadata

    def _ipython_display_(self):
        """Two outputs: the replay, then the live widget where the front end draws widgets."""
        from IPython.display import display  # noqa: TID251 - IPython's display protocol, called by IPython
        data, metadata = self._repr_mimebundle_()
        display(data, raw=True, metadata=metadata)
        live = self.widget_bundle() if draws_widgets() else None
        if live is not None:
            display(live[0], raw=True, metadata=live[1])

    def __repr__(self) -> str:
        return f"<jaxprlens.Debugger at {path_text(self.stepper, self.view.lang)}>"


def part(cell) -> Debugger:
    """``--debug``: the debugger on the program's example arguments (a part that displays itself: its replay, then
    the live widget)."""
    return Debugger(cell.program, device=cell.opts.device, lang=cell.opts.lang)
