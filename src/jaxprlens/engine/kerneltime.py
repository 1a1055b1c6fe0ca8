"""Each compiled kernel's measured time, from the profiler (``program.fusion(profile=True)``,
``%%jaxpr --profile --fusion``).

The compiled program runs under ``jax.profiler.ProfileSession``; the trace it records (an XSpace: planes of lines of
events, in memory as ``jax.profiler.ProfileData``, on disk as ``*.xplane.pb``) has one event per kernel XLA ran,
naming the HLO instruction in its ``hlo_op`` stat and the module in ``hlo_module``:

- on a GPU, the kernels on the ``/device:GPU:N`` planes (CUPTI's start and end on the device), named by XLA's
  annotation of each launch (``Thunk:#name=…,hlo_op=fusion.3#``): every kernel an instruction launches, those of a
  loop's body too (once per iteration);
- on the CPU (JAX 0.12, measured), the thunks XLA's thunk executor runs, on the ``/host:CPU`` plane
  (``tf_XLAExecute`` lines): one event per thunk of the entry computation, and of a conditional's branch (nested
  in the conditional's event); a while loop's body runs with no events of its own, its time is its loop's.

A kernel's time is its own: an event's duration less those of the events nested in it on the same line, summed
per run and averaged over the runs.  Host events are read only when no device plane has any (on a GPU the host
plane holds the launches, not the kernels).  Returns data (``KernelTimes``); ``views.compiled.fusion`` shows it."""
from __future__ import annotations

import gzip
import json
import time
import warnings
from dataclasses import dataclass, field
from types import SimpleNamespace

import jax

from jaxprlens.engine.runner import Timings, _Series, time_calls
from jaxprlens.model.errors import KeyedError

DEVICE = "/device:"          # planes of accelerator activity (XSpace names: /device:GPU:0, /device:TPU:0)


@dataclass(frozen=True)
class Event:
    """One kernel event of the trace: the instruction it ran, where it was recorded, when (ns)."""
    op: str
    plane: str
    line: str
    start: float
    duration: float
    run: int | None = None       # the CPU client's ``run_id``: which execution it belongs to


@dataclass
class KernelTimes:
    """``seconds``: HLO instruction name -> its own time per run; ``runs``: executions the times average over
    (``asked``: how many were asked for, ``stopped``: the budget ended them early); ``source``: "device" or
    "host" (the planes read), "" when the trace has no kernel event of the module."""
    seconds: dict
    runs: int
    source: str
    planes: tuple = ()
    asked: int = 0
    stopped: bool = False
    nested: dict = field(default_factory=dict)     # instruction -> the instruction whose event holds its events
    profiled: Timings | None = None    # the runs under the profiler, each timed whole (its cost is in the kernels')
    plain: Timings | None = None       # as many runs without it, just before

    @property
    def total(self) -> float:
        """Seconds per run, all kernels' own times summed: what a share divides by."""
        return sum(self.seconds.values())


def _stat(stats, key):
    for k, v in stats:
        if k == key:
            return v
    return None


def events(data, module: str | None = None) -> list:
    """The kernel events of ``data`` (a ``ProfileData``) for the HLO module named ``module`` (any, when None):
    those of the device planes when they have any, else those of the host planes."""
    found: dict = {"device": [], "host": []}
    with warnings.catch_warnings():             # jaxlib 0.12's stats type warns that it has no __module__
        warnings.simplefilter("ignore", DeprecationWarning)
        for plane in data.planes:
            side = "device" if plane.name.startswith(DEVICE) else "host"
            for line in plane.lines:
                for e in line.events:
                    stats = list(e.stats)
                    op = _stat(stats, "hlo_op")
                    if not op or (module is not None and _stat(stats, "hlo_module") != module):
                        continue
                    run = str(_stat(stats, "run_id"))       # an int in ProfileData, a string in the JSON
                    found[side].append(Event(str(op), plane.name, line.name, float(e.start_ns),
                                             float(e.duration_ns), int(run) if run.lstrip("-").isdigit() else None))
    return found["device"] or found["host"]


def own_times(evs: list) -> tuple[list, dict]:
    """``([(event, own ns)], nested)``: each event's duration less those of the events directly inside it on
    the same line; ``nested``: instruction -> the instruction whose event first held one of its events."""
    by_line: dict = {}
    for e in evs:
        by_line.setdefault((e.plane, e.line), []).append(e)
    out, nested = [], {}
    for line in by_line.values():
        line.sort(key=lambda e: (e.start, -e.duration))
        stack: list = []                     # [event, own ns] of the events still open
        for e in line:
            while stack and e.start >= stack[-1][0].start + stack[-1][0].duration:
                out.append(tuple(stack.pop()))
            if stack:
                stack[-1][1] -= e.duration
                if e.op != stack[-1][0].op:
                    nested.setdefault(e.op, stack[-1][0].op)
            stack.append([e, e.duration])
        out.extend(tuple(x) for x in reversed(stack))
    return out, nested


def kernel_times(data, module: str | None = None, calls: int = 1, asked: int = 0,
                 stopped: bool = False) -> KernelTimes:
    """The kernel times of a trace of ``calls`` executions (the CPU's events say which run they belong to: their
    distinct ``run_id`` are counted instead)."""
    evs = events(data, module)
    if not evs:
        return KernelTimes({}, calls, "", asked=asked or calls, stopped=stopped)
    timed, nested = own_times(evs)
    ids = {e.run for e in evs if e.run is not None}
    runs = len(ids) if ids else max(calls, 1)
    total: dict = {}
    for e, ns in timed:
        total[e.op] = total.get(e.op, 0.0) + max(ns, 0.0)
    seconds = {op: ns * 1e-9 / runs for op, ns in total.items()}
    source = "device" if evs[0].plane.startswith(DEVICE) else "host"
    return KernelTimes(seconds, runs, source, tuple(sorted({e.plane for e in evs})), asked or runs, stopped,
                       nested)


def read_trace(path):
    """A recorded trace as ``jax.profiler.trace(dir)`` writes it: ``*.xplane.pb`` (read as ``ProfileData``) or
    ``*.trace.json.gz`` / ``*.json`` (the trace viewer's events, read into the same planes, lines and events)."""
    path = str(path)
    if not path.endswith((".json", ".json.gz")):
        return jax.profiler.ProfileData.from_file(path)
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return _planes(json.load(f))


def _planes(trace: dict) -> SimpleNamespace:
    """The trace viewer's JSON (``traceEvents``: ``M`` events naming processes and threads, ``X`` events with a
    start and duration in µs, their stats in ``args``) as ``ProfileData``'s shape: planes of lines of events."""
    names, lines = {}, {}
    for e in trace.get("traceEvents", []):
        if e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name"):
            names[(e.get("pid"), e.get("tid") if e["name"] == "thread_name" else None)] = e["args"]["name"]
        elif e.get("ph") == "X":
            ev = SimpleNamespace(name=e.get("name", ""), start_ns=round(e["ts"] * 1000), duration_ns=round(
                e.get("dur", 0) * 1000), stats=list(e.get("args", {}).items()))
            lines.setdefault((e.get("pid"), e.get("tid")), []).append(ev)
    planes: dict = {}
    for (pid, tid), evs in lines.items():
        plane = planes.setdefault(pid, SimpleNamespace(name=names.get((pid, None), str(pid)), lines=[]))
        plane.lines.append(SimpleNamespace(name=names.get((pid, tid), str(tid)), events=evs))
    return SimpleNamespace(planes=list(planes.values()))


def module_name(hlo_text: str) -> str | None:
    """The module name in a compiled program's HLO text (``HloModule jit_f, ...``): the events' ``hlo_module``."""
    head = hlo_text.split(",", 1)[0].split()
    return head[1] if len(head) > 1 and head[0] == "HloModule" else None


def profile(call, args: list, module: str | None, repeat: int, budget: float) -> KernelTimes:
    """Time ``call(*args)`` ``repeat`` times as ``--run`` does (after a warm-up), then as many times again under the
    profiler, each run waited for and timed whole; each half stops early when half of ``budget`` seconds is
    spent (one run at least).  The kernel times of what the profiler recorded, with both runs' timings: the
    profiler's own cost shows as the difference."""
    if not hasattr(jax.profiler, "ProfileSession"):     # JAX 0.10: no session to read the trace from in memory
        raise KeyedError("kernel_profile_needs", version=jax.__version__)
    plain = time_calls(call, args, repeat, budget / 2)
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0      # the kernels' events only: no event per Python call around them
    session = jax.profiler.ProfileSession(profiler_options=options)
    try:
        session.start()
    except RuntimeError as e:            # a profile the reader started is running: only one at a time
        raise KeyedError("kernel_profile_busy", error=str(e)) from None
    series, end = _Series(), time.perf_counter() + budget / 2
    try:
        while series.count < repeat:
            start = time.perf_counter()
            jax.block_until_ready(call(*args))
            now = time.perf_counter()
            series.add(now - start)
            if now >= end:
                break
    finally:
        data = session.stop()
    stopped = series.count < repeat
    times = kernel_times(data, module, calls=series.count, asked=repeat, stopped=stopped)
    times.profiled, times.plain = series.summary(repeat, stopped), plain
    return times
