"""The debugger's state as data: value summaries, a frame's rows as the table draws them (sent once per frame),
the state after a move, and its text; ``dbgpanel`` renders a state's panel as HTML, the one rendering the
snapshot shown where no script runs, the live widget's messages and the recorded replay all carry.

Pure over a ``Stepper`` (no widgets): the live widget sends this, the recorded replay stores it.
"""
from __future__ import annotations

import bisect
import contextlib
import io

import jax
import numpy as np

from jaxprlens.present.display import array_text
from jaxprlens.present.escape import html
from jaxprlens.present.picture import CELLS, SMALL_CELLS, edited_mask, summary_html
from jaxprlens.present.i18n import resolve, t
from jaxprlens.model.program import Program, path_id
from jaxprlens.present.nouns import atom_text, eqn_text
from jaxprlens.engine import values
from jaxprlens.engine.stepper import Stepper, source_context
from jaxprlens.present.rows import Rows
from jaxprlens.views.debugger import panel as dbgpanel
from jaxprlens.views.debugger.fold import CHUNK_ROWS, frame_fold, window_rows
from jaxprlens.present.words import crumbs, over_text, stop_text

SMALL = 64          # arrays up to this many elements are shown in full
BLOCKS = "▁▂▃▄▅▆▇█"
SPARK = 32          # sparkline width in characters
BINS = values.BINS  # histogram bars of an array's finite values
PREVIEW_CHARS = 2000   # a value's printed preview is cut here (it scrolls inside its cell)
TEXT_RESULTS = 40   # results the text lists, one a line (then how many more)
STATIC_ROWS = 100   # rows around the current one in the snapshot shown without a script
ROWS_PER_MESSAGE = 1000   # a frame's rows per message (an HTML row is ~430 bytes: a message stays under 1 MB)
COMPARE_MAX = 2_000   # equations: past this "compare now" (jax.jit of the whole program) is not offered: XLA's
                      # compile grows faster than the program (a chain on a CPU: 1k eqns 1.2 s, 2k ~4 s, 3k ~10 s,
                      # 5k 10-20 s, 20k 2 min), and it holds up the kernel


# ---------------------------------------------------------------- value summaries

@contextlib.contextmanager
def captured():
    """Text printed while stepping (``jax.debug.print``/``callback`` output), collected in order."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            yield buf
        finally:
            jax.effects_barrier()      # callbacks run on the host, maybe on another thread: wait for them


def sparkline(value, width: int = SPARK) -> str:
    """Unicode blocks for the mean of ``width`` equal chunks of a flattened real array (any JAX dtype: computed
    on a float64 copy)."""
    flat = values.numbers(values.host(value)).ravel()
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


def stats_text(s: values.Summary, lang: str) -> str:
    """A summary's statistics in the reader's words (``min 1  max 3  mean 2  NaN 0``, a key array's
    implementation and key data type, a complex value's magnitude and ranges, a bool value's count of True)."""
    if s.kind == "key":
        return t("dbg_key", lang, impl=s.impl, data=f"{s.data.dtype}{list(s.data.shape)}")
    if not s.size or s.kind == "other":
        return ""
    if s.kind == "bool":                 # one bool says itself in its preview
        return t("dbg_bool", lang, n=s.true, size=s.size) if s.size > 1 else ""
    if s.min is None:
        text = t("dbg_nan", lang, nan=s.nan)
    elif s.kind == "complex":
        text = t("dbg_complex", lang, max=_num(s.max), re=_range(s.re), im=_range(s.im), nan=s.nan)
    else:
        text = t("dbg_stats", lang, min=_num(s.min), max=_num(s.max), mean=_num(s.mean), nan=s.nan)
    if s.inf:
        text += "  " + t("dbg_inf", lang, n=s.inf)
    return text


def _range(lo_hi: tuple) -> str:
    return f"[{_num(lo_hi[0])}, {_num(lo_hi[1])}]"


def describe(value, lang: str = "en", limit: int = SMALL, chars: int = PREVIEW_CHARS, spark: bool = True,
             picture: int = 0, edits=(), name: str = "") -> dict:
    """Shape, dtype, device, statistics, NaN/Inf counts, a histogram and a printable value (full, or
    summarised past ``limit`` elements and cut at ``chars`` characters) of one value, of any JAX dtype
    (``engine.values.summarize``: bfloat16, float8_*, int4 as numbers, a key array as its key data); with
    ``picture`` (cells a side), its picture (``present.picture``: HTML, ``edits`` marked, ``name`` in its alt)."""
    s = values.summarize(value, BINS)
    info = {"shape": "", "dtype": s.dtype, "device": "", "stats": "", "value": "", "spark": "",
            "nan": s.nan, "inf": s.inf, "hist": None, "min": None, "max": None}
    devices = getattr(value, "devices", None)
    if callable(devices):
        try:
            info["device"] = ", ".join(sorted(f"{d.platform}:{d.id}" for d in devices()))
        except Exception:  # noqa: BLE001 - deleted or abstract arrays
            pass
    if s.data is None:
        info["value"] = s.text[:chars]
        return info
    info["shape"] = str(s.shape)
    if picture:
        info["picture"] = summary_html(s, lang, edited_mask(value, edits), picture, name)
    info["stats"] = stats_text(s, lang)
    if s.min is not None and s.kind in ("int", "float"):
        info["min"], info["max"] = float(_num(s.min)), float(_num(s.max))
        info["hist"] = s.hist
    # the value panel is ~45 monospace characters wide beside the frame (970 px of output): rows wrap, not scroll
    text = array_text(s.data, limit, precision=5, one_line=False, linewidth=VALUE_COLUMNS)
    info["value"] = text if len(text) <= chars else text[:chars - 1] + "…"
    if spark and s.size > limit and s.kind in ("int", "float"):
        info["spark"] = sparkline(s.data)
    return info


VALUE_COLUMNS = 44


def _num(x: float) -> str:
    return f"{x:.6g}"


def value_item(name: str, path: str, value, lang: str, limit: int = SMALL, chars: int = PREVIEW_CHARS,
               edits=(), side: int = CELLS, role: str = "result") -> dbgpanel.Item:
    """One value of the panel (``dbgpanel.Item``: its HTML and its text line render it); ``path``: its Python
    path; min/max of the finite values; ``side``: its picture's cells a side (0: none)."""
    d = describe(value, lang, limit, chars, spark=False, picture=side, edits=edits, name=name)   # no sparkline
    typed = f"{value.dtype}{list(value.shape)} " if values.is_key(value) else ""
    line = " ".join((typed + d["value"]).split())[:dbgpanel.TEXT_CHARS]
    return dbgpanel.Item(role, name, path or "", d["shape"], d["dtype"], d["stats"], d["value"], line, d["nan"],
                         d["inf"], d["hist"], d["min"], d["max"], d.get("picture", ""))


# ---------------------------------------------------------------- frames and state as data

def frame_data(program: Program, lang: str, start: int = 0, count: int | None = None) -> dict:
    """A frame's rows as the table draws them (``Rows.row_html``), sent once per frame the front end has not
    seen: ``count`` rows from ``start`` (all by default), built alone (``window_rows``: a chunk costs its own
    rows, whatever the frame's size); ``from`` and ``n`` (the frame's row count) let the front end ask for
    the rows it scrolls to, ``chunk`` rows to a box and at most ``per`` rows a message."""
    n = len(program.eqns)
    stop = n if count is None else min(n, start + max(0, count))
    table, consts = Rows(lang), set(program.constvars)
    body = [table.row_html(r, consts) for r in window_rows(program, lang, start, stop)] if stop > start else []
    return {"path": path_id(program.path), "head": table.header_html(), "rows": body, "n": n, "from": start,
            "chunk": CHUNK_ROWS, "per": ROWS_PER_MESSAGE}


def frame_view(program: Program, lang: str, start: int = 0, count: int | None = None, groups=(),
               upto: int | None = None) -> dict:
    """A frame as the front end first draws it: ``frame_data``'s rows, its ``body`` (``dbgfold``: a box per call
    it makes, placeholders for its rows) and the bodies of the calls in ``groups`` (those the current equation
    is in, outer first); nothing at or past row ``upto`` (a replay's frame)."""
    fold = frame_fold(program, lang)
    out = frame_data(program, lang, start, count)
    out["body"] = fold.body_html(None, upto)
    if groups:
        out["groups"] = fold.bodies(groups, upto)
    return out


def _g(x: float) -> str:
    return f"{x:.2g}"


def jit_note(check, lang: str) -> list | None:
    """A ``JitCheck`` (``Stepper.jit_check``) in the reader's words: ``[kind, text]`` or None when equal."""
    status = check.status
    ran = t("jit_host_ran", lang, names=check.host) if check.host else ""      # jax.jit called host functions again
    if status == "host":
        return ["jit", t("jit_host", lang, names=check.host)]
    if status == "equal" and ran:
        return ["jit", t("jit_equal_host", lang) + ran]
    if status in ("equal", "running"):
        return None
    if status == "skipped":      # the live front end offers a button that runs it (``press("jit")``), up to a size
        if check.eqns > COMPARE_MAX:
            return ["jit", t("jit_too_large", lang, n=check.eqns, max=COMPARE_MAX)]
        return ["jitskip", t("jit_skipped", lang, n=check.eqns, budget=check.budget)]
    if status == "edited":
        return ["jit", t("jit_edited", lang)]
    if status == "failed":
        return ["jitdiff", t("jit_failed", lang, detail=check.detail) + ran]
    if status == "mismatch":
        detail = (t("jitdiff_type", lang, path=check.path, got=check.got, want=check.want) if check.path
                  else t("jitdiff_count", lang, got=check.got, want=check.want))
        return ["jitdiff", t("jit_mismatch", lang, detail=detail) + ran]
    why = t("jit_why", lang) + (t("jit_why_low", lang, low=check.low) if check.low else "")
    rel = f"{check.max_rel:.1e}" if check.max_rel < 0.01 else f"{check.max_rel:.0%}"
    host = status == "differ" and check.host          # jax.jit called host functions again: expected, no stepper bug
    key = "jit_differ_host" if host else f"jit_{status}"
    text = t(key, lang, n=check.differing, total=check.total, abs=_g(check.max_abs), rel=rel, path=check.path,
             rtol=_g(check.rtol), atol=_g(check.atol), why=why, beyond=check.beyond, names=check.host,
             after=t("jit_report", lang) if status == "differ" else "") + (ran if status == "close" else "")
    return ["jitdiff" if status == "differ" and not host else "jit", text]


MESSAGE = ("frame", "pc", "eqn", "call", "done", "back", "depth", "changed_eqns")   # a state's data the script reads


class StateView:
    """A stepper's state in the reader's words: crumbs, stop reason, values (data), static HTML and text."""

    def __init__(self, stepper: Stepper, lang: str | None = None):
        self.stepper, self.lang = stepper, resolve(lang)

    def crumbs(self) -> list:
        """Where the stepper is in the reader's words: ``['while[eqn 2] › body › iteration 3', 'eqn 1']``; in a
        frame folded by calls, the calls holding the current equation before it (``['train_step (forward)', …,
        'blocks[1] · Block', 'eqn 140']``)."""
        out = crumbs(self.stepper.where, self.lang)
        calls = self.fold().labels(self.stepper.frame.pc) if not self.stepper.done else []
        return out[:-1] + calls + out[-1:] if calls else out

    def fold(self):
        """The current frame's calls (``dbgfold.FrameFold``)."""
        return frame_fold(self.stepper.frame.program, self.lang)

    def fold_of(self, program: Program):
        """A frame's calls, in this view's language."""
        return frame_fold(program, self.lang)

    def call_path(self) -> list:
        """The calls the frame opens around the current equation, outer first (``[]``: none, or an unfolded
        frame)."""
        return self.fold().open_path(self.stepper.frame.pc)

    def stop_text(self) -> str | None:
        """Why the last move stopped, in the reader's language."""
        return stop_text(self.stepper.stop, self.lang)

    def ended_text(self) -> str | None:
        """How the last run or step out ended when nothing stopped it (``Stepper.ended``), or None."""
        st, lang = self.stepper, self.lang
        if st.ended == "out_top":
            return t("stop_out_top", lang)
        if st.ended == "no_stop":
            what = list(st.conditions) + (["NaN"] if st.break_on_nan and "any NaN" not in st.conditions else [])
            n = len(st.breakpoints)
            if n:
                what.append(t("no_stop_bps", lang, n=n))
            return t("stop_no_stop", lang, what=t("list_sep", lang).join(what))
        return None

    def jit_note(self) -> list | None:
        """``[kind, text]`` for the comparison of the stepped outputs with jax.jit's, or None (equal, or not
        done, or not compared yet: ``Stepper.jit_result`` is read, never computed): ``jitdiff`` (beyond the
        tolerance, or jit failed), ``jit`` (within it, skipped, edited)."""
        check = self.stepper.jit_result
        return None if check is None else jit_note(check, self.lang)

    def notes(self, error: str | None = None, jit: bool = True) -> list:
        """``[[kind, text], ...]``: error, stop reason, a step run whole, eager vs jit (when ``jit``: the
        comparison already made, ``Stepper.jit_check``), history cap."""
        st, out = self.stepper, []
        if error:
            out.append(["error", error])
        if st.stop is not None:
            out.append(["stop", self.stop_text()])
        ended = self.ended_text()
        if ended:
            out.append(["stop", ended])
        if getattr(st, "note", None):          # e.g. a combiner or a shard_map body run as one step
            out.append(["over", over_text(st.note, self.lang)])
        if st.edits:
            names = ", ".join(dict.fromkeys(e.name for e in st.edits))
            out.append(["edit", t("edit_note", self.lang, n=len(st.edits), names=names)])
        if st.done and jit:
            note = self.jit_note()
            if note:
                out.append(note)
        if st.history_truncated:
            out.append(["truncated", t("history_capped", self.lang, n=st.max_history)])
        return out

    def values(self, limit: int = SMALL, chars: int = PREVIEW_CHARS, inputs: bool = True,
               pictures: bool = True) -> list:
        """``[{role, title, items: [dbgpanel.Item, ...]}, ...]``: the current eqn's inputs, the last outputs, the
        results (``pictures``: each value drawn; the text shows none)."""
        st, lang, groups = self.stepper, self.lang, []
        side = 0 if not pictures else CELLS if limit >= SMALL else SMALL_CELLS       # the replay's are small
        pic = {"edits": st.edits, "side": side}
        eqn = st.current
        if eqn is not None and inputs:
            groups.append({"role": "input", "title": t("inputs_title", lang), "items": [
                value_item(atom_text(a), getattr(a, "path", "") or "", x, lang, limit, chars, **pic, role="input")
                for a, x in zip(eqn.invars, st.current_inputs)]})
        if st.last_eqn is not None and st.last_outputs is not None:
            last = st.last_eqn
            groups.append({"role": "output", "title": t("output_of", lang, id=last.id, prim=last.primitive),
                           "items": [value_item(v.name, "", x, lang, limit, chars, **pic, role="output")
                                     for v, x in zip(last.outvars, st.last_outputs)]})
        if st.done:
            groups.append({"role": "result", "title": t("results", lang), "items": [
                value_item(n, path, x, lang, limit, chars, **pic) for n, path, x in self.results()]})
        return groups

    def results(self) -> list:
        """``[(name, path, value), ...]``: every result once done (``[]`` before), named as the value panel and the
        text both name it: its Python path when the program has them, else its variable as the table prints it."""
        st = self.stepper
        if not st.done:
            return []
        top = st.program
        paths = top.returned_paths
        names = paths or [atom_text(a) for a in top.outvars]
        return [(n, n if paths else "", x) for n, x in zip(names, jax.tree_util.tree_leaves(st.outputs))]

    def source(self) -> list | None:
        """``[where, [[line, text, is_current], ...]]`` around the current eqn's source line."""
        st = self.stepper
        eqn = next((e for e in (st.current, st.frame.eqn, st.last_eqn) if e is not None and e.source), None)
        lines = source_context(eqn)
        return [eqn.source.where if eqn.source else "", [list(x) for x in lines]] if lines else None

    def state(self, error: str | None = None, jit: bool = True, **limits) -> dict:
        """The state after a move, as the front end draws it (no rows: those are sent once per frame)."""
        st = self.stepper
        return {"frame": path_id(st.frame.program.path), "pc": st.frame.pc,
                "eqn": st.current.id if st.current is not None else None, "call": self.fold().call(st.frame.pc),
                "crumbs": [t("top", self.lang)]
                + self.crumbs(), "done": st.done, "back": st.can_back, "notes": self.notes(error, jit),
                "values": self.values(**limits), "source": self.source(), "position": st.position,
                "depth": st.depth, "changed": self.changed(),
                "changed_eqns": self.changed_eqns()}

    def changed(self) -> list:
        """Names of the values shown (the current eqn's inputs, the last outputs) that an edit changed: what the
        value panel marks (not every changed value of the frame: at 100k equations that is O(n) a move)."""
        st = self.stepper
        if not st.edits:
            return []
        names = set()
        eqn = st.current
        if eqn is not None:
            names.update(atom_text(a) for a, x in zip(eqn.invars, st.current_inputs) if st.is_changed(x))
        if st.last_eqn is not None and st.last_outputs is not None:
            names.update(v.name for v, x in zip(st.last_eqn.outvars, st.last_outputs) if st.is_changed(x))
        return sorted(names)

    def changed_eqns(self) -> list:
        """Ids of the current frame's eqns (run so far) whose results an edit changed.  Kept between moves: a
        move within the same frame activation and edits looks only at the eqns between the old and the new
        position (a value's mark never changes once it is written, but by an edit or its undo)."""
        st = self.stepper
        if not st.edits:
            self._marked = None
            return []
        frame, edits = st.frame, tuple(map(id, st.edits))
        env, pc, ops = frame.env, frame.pc, frame.ops
        memo = getattr(self, "_marked", None)
        if memo is not None and memo[0] is env and memo[1] == edits:
            start, at, ids = memo[2], memo[3], memo[4]
            if pc < start:                         # back: drop the marks at or past the new position
                k = bisect.bisect_left(at, pc)
                del at[k:], ids[k:]
                start = pc
        else:
            start, at, ids = 0, [], []
        for i in range(start, pc):
            op = ops[i]
            if any(v in env and st.is_changed(env[v]) for v in op.outvars):
                at.append(i)
                ids.append(op.eqn.id)
        self._marked = (env, edits, pc, at, ids)
        return list(ids)

    # ---------------------------------------------------------- static snapshot (no script) and text
    def row_marks(self, i: int, eqn, changed=()) -> list:
        """The marks of the current frame's row ``i`` (equation ``eqn``): run (``jl-done``), the current one
        (``jl-hl``), a breakpoint (``jl-bp``), its value changed by an edit (``jl-changed``, ``changed``: the ids
        ``changed_eqns`` gives).  The snapshot writes them; ``views/debugger/dbgview.js`` keeps them as moves go (a
        test compares the two on every recorded move, tests/js/debugger.test.mjs)."""
        pc = self.stepper.frame.pc
        out = ["jl-done"] if i < pc else ["jl-hl"] if i == pc else []
        if self.stepper.is_breakpoint(eqn):
            out.append("jl-bp")
        if eqn.id in changed:
            out.append("jl-changed")
        return out

    def marks(self) -> dict:
        """``{eqn id: row_marks}`` of the current frame's rows that have a mark."""
        changed = set(self.changed_eqns())
        eqns = self.stepper.frame.program.eqns
        return {e.id: m for i, e in enumerate(eqns) if (m := self.row_marks(i, e, changed))}

    def table_html(self) -> str:
        st = self.stepper
        frame = st.frame
        program: Program = frame.program
        table = Rows(self.lang)
        consts = set(program.constvars)
        n = len(program.eqns)

        changed = set(self.changed_eqns())

        def rows_html(lo: int, hi: int) -> list:
            return [table.row_html(row, consts, " ".join(self.row_marks(i, row.eqn, changed)))
                    for i, row in enumerate(window_rows(program, self.lang, lo, hi), lo)]

        fold = self.fold()
        if fold.tree is not None:          # folded by calls: the ones holding the current row open
            body, total = fold.static_html(frame.pc, rows_html, STATIC_ROWS)
            more = total - min(total, STATIC_ROWS)
        else:
            lo = max(0, min(frame.pc - STATIC_ROWS // 4, n - STATIC_ROWS))
            rows = rows_html(lo, lo + STATIC_ROWS)
            body, more = "".join(rows), n - len(rows)
        if not body:
            return f'<div class="jl-empty">{html(t("no_eqns", self.lang))}</div>'
        note = f'<div class="jl-note">{html(t("more_rows", self.lang, n=more))}</div>' if more else ""
        return (f'<table class="jl-eqns jl-frame" data-path="{html(path_id(program.path))}">'
                f"{table.header_html()}<tbody>{body}</tbody></table>{note}")

    def panel(self, state: dict | None = None, live: bool = False, static: bool = False) -> dict:
        """The panel's four pieces of HTML (``dbgpanel.pieces``) for ``state`` (this state by default)."""
        return dbgpanel.pieces(self.state() if state is None else state, self.lang, live, static)

    def message(self, state: dict, live: bool) -> dict:
        """What a move sends (or a replay stores) of a state: where it is, and its panel as HTML; the script
        draws nothing of its own."""
        out = {k: state[k] for k in MESSAGE if k in state}
        out["view"] = self.panel(state, live)
        return out

    def values_html(self, error: str | None = None) -> str:
        """The notes and the value panel, as the snapshot shows them."""
        p = self.panel(self.state(error), static=True)
        return p["notes"] + p["values"]

    def html(self, error: str | None = None) -> str:
        """The state as static HTML (what a page without scripts shows, said to be a snapshot): the same
        pieces the live widget and the replay insert."""
        p = self.panel(self.state(error), static=True)
        return (f'<div class="jaxprlens jl-debugger" lang="{self.lang}">'
                f'<div class="jl-note jl-snapshot">{html(t("dbg_snapshot", self.lang))}'
                f'<div class="jl-snapshot-how">{html(t("dbg_snapshot_how", self.lang))}</div></div>'
                f'<div class="jl-crumbs" data-depth="{self.stepper.depth}">{p["crumbs"]}</div>'
                + self.table_html() + dbgpanel.side_html(p) + "</div>")

    def text(self, error: str | None = None) -> str:
        """The state as text/plain: the value panel's items (``values``), each as ``dbgpanel.value_text``
        renders it, under the words for its role; past ``TEXT_RESULTS`` results, how many more."""
        st, lang = self.stepper, self.lang
        lines = [t("dbg_finished", lang) if st.done else t("dbg_at", lang, path=" › ".join(self.crumbs()))]
        for g in self.values(pictures=False):
            items = g["items"]
            if g["role"] == "input":
                lines.append("  " + t("dbg_next", lang, line=eqn_text(st.current)))
            elif g["role"] == "output":
                lines.append("  " + t("dbg_last", lang, id=st.last_eqn.id, prim=st.last_eqn.primitive))
            else:
                items = items[:TEXT_RESULTS]
            pad = "  " if g["role"] == "result" else "    "
            lines.extend(pad + dbgpanel.value_text(it) for it in items)
            if len(g["items"]) > len(items):
                lines.append("  " + t("dbg_more_results", lang, n=len(g["items"]) - len(items)))
        if st.stop is not None:
            lines.append("  " + t("dbg_stopped", lang, reason=self.stop_text()))
        if st.ended:
            lines.append("  " + self.ended_text())
        if st.history_truncated:
            lines.append("  " + t("dbg_capped", lang, n=st.max_history))
        if error:
            lines.append("  " + t("dbg_error", lang, error=error))
        return "\n".join(lines)
