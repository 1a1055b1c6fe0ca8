"""Memory along the program (``%%jaxpr --memory``, ``program.memory()``): the bytes of the values live after
each top-level equation, the peak and what is live there, and for a program with a backward pass the
residuals: the forward values the backward pass reads.  Returns data (``Memory``); ``views.compiled.memory`` shows it.

A value is live from the equation that makes it to its last reader (or to the end when the program returns
it); inputs and constants are live throughout (the caller holds them).  Its bytes are its type's: size ×
itemsize.  This is the jaxpr's own count, before XLA reuses buffers, fuses or rematerialises."""
from __future__ import annotations

from dataclasses import dataclass, field

from jaxprlens.engine.cost import nbytes
from jaxprlens.model.program import Program, Var


@dataclass(frozen=True)
class Value:
    """One value of the program: its name, type and bytes; ``path`` for an input (its Python path) or a
    returned value (the output's path); ``eqn``: the id of the equation that makes it (None: an input or a
    constant)."""
    name: str
    type: str
    bytes: int
    kind: str                    # "input", "const" or "value"
    path: str | None = None
    eqn: str | None = None


@dataclass
class Memory:
    """``live[i]``: bytes live after top-level equation ``i``; ``peak``, ``peak_eqn`` (the first equation
    after which it is reached; None for a program with no equation), ``at_peak``: the values live there,
    biggest first; ``base``: the inputs' and constants' bytes; ``residuals``: for a program with a backward
    pass, the forward values (inputs included) the backward pass reads, else None."""
    live: list
    peak: int
    peak_eqn: int | None
    at_peak: list
    base: int
    residuals: list | None = None
    compiled: dict | None = field(default=None)     # XLA's memory_analysis(), when asked for
    compile_failed: str | None = None                # why there is none: the compile's error, as Python says it

    @property
    def residual_bytes(self) -> int:
        return sum(v.bytes for v in self.residuals or ())


@dataclass
class Stretch:
    """Memory along a stretch of top-level equations (a call's, ``stretch``): ``peak`` the most bytes live after
    one of them, ``peak_eqn`` the first after which it is reached, ``residuals`` the values made there that the
    backward pass reads (of ``Memory.residuals``, in its order)."""
    peak: int
    peak_eqn: int | None
    residuals: list

    @property
    def residual_bytes(self) -> int:
        return sum(v.bytes for v in self.residuals)


def stretch(result: Memory, first: int, last: int) -> Stretch:
    """``result`` along top-level equations ``first`` to ``last`` (a call's: they are consecutive)."""
    live = result.live[first:last + 1]
    peak = max(live) if live else 0
    made = [v for v in result.residuals or () if v.eqn is not None and first <= int(v.eqn.split("/")[0]) <= last]
    return Stretch(peak, first + live.index(peak) if live else None, made)


def _is_backward(eqn) -> bool:
    """Whether JAX made ``eqn`` by transposing (the backward pass of ``grad`` / ``vjp``)."""
    try:
        return "transpose(" in eqn.name_stack
    except Exception:  # noqa: BLE001 - an equation without source info
        return False


def _values(program: Program):
    """``(values, last_read)``: a ``Value`` per variable (keyed by ``id``) and the index of the last top-level
    equation reading it (``len(eqns)`` when the program returns it; -1 when nothing reads it)."""
    n = len(program.eqns)
    values, last = {}, {}
    out_path = {id(v): p for v, p in zip(program.outvars, program.out_paths or [None] * len(program.outvars))}
    for v, p in zip(program.invars, program.in_paths or [None] * len(program.invars)):
        values[id(v)] = Value(v.name, v.type, nbytes(v.aval), "input", v.path or p)
    for v in program.constvars:
        values[id(v)] = Value(v.name, v.type, nbytes(v.aval), "const")
    for i, eqn in enumerate(program.eqns):
        for a in eqn.invars:
            if isinstance(a, Var):
                last[id(a)] = i
        for v in eqn.outvars:
            values[id(v)] = Value(v.name, v.type, nbytes(v.aval), "value", out_path.get(id(v)), eqn.id)
    for v in program.outvars:
        if isinstance(v, Var):
            last[id(v)] = n
    return values, last


def memory(program: Program) -> Memory:
    """Bytes live along ``program``'s top-level equations (see the module's docstring); XLA's own figures of
    the compiled program are ``engine.fusion.with_compiled``'s, which compiles it."""
    values, last = _values(program)
    base = sum(values[id(v)].bytes for v in list(program.invars) + list(program.constvars))
    fixed = {id(v) for v in list(program.invars) + list(program.constvars)}
    # each value made by equation i adds its bytes from i to its last reader (itself when nothing reads it)
    n = len(program.eqns)
    delta = [0] * (n + 1)
    for i, eqn in enumerate(program.eqns):
        for v in eqn.outvars:
            end = last.get(id(v), -1)
            if end > i:
                delta[i] += values[id(v)].bytes
                delta[min(end, n)] -= values[id(v)].bytes
    live, running = [], base
    for i in range(n):
        running += delta[i]
        live.append(running)
        # a value last read by equation i+1 stays live after i and goes after i+1: delta at its reader
    peak = max(live) if live else base
    peak_eqn = live.index(peak) if live else None
    at_peak = []
    if peak_eqn is not None:
        for key, value in values.items():
            if key in fixed:
                at_peak.append(value)
                continue
            made = value.eqn
            if made is None:
                continue
            i = int(made.split("/")[0])
            if i <= peak_eqn < last.get(key, -1):
                at_peak.append(value)
    else:
        at_peak = [values[id(v)] for v in list(program.invars) + list(program.constvars)]
    at_peak.sort(key=lambda v: (-v.bytes, v.kind != "input", v.name))
    return Memory(live, peak, peak_eqn, at_peak, base, residuals(program, values))


def residuals(program: Program, values: dict | None = None) -> list | None:
    """The forward values the backward pass reads, in the order the program makes them (inputs first), as
    ``jax.ad_checkpoint.print_saved_residuals`` lists them for the function differentiated; None when the
    program has no backward pass."""
    backward = [_is_backward(e) for e in program.eqns]
    if not any(backward):
        return None
    if values is None:
        values, _ = _values(program)
    forward_made = {id(v) for e, b in zip(program.eqns, backward) if not b for v in e.outvars}
    inputs = {id(v) for v in list(program.invars) + list(program.constvars)}
    read = set()
    for e, b in zip(program.eqns, backward):
        if b:
            read.update(id(a) for a in e.invars if isinstance(a, Var) and (id(a) in forward_made
                                                                             or id(a) in inputs))
    order = [id(v) for v in list(program.invars) + list(program.constvars)]
    order += [id(v) for e, b in zip(program.eqns, backward) if not b for v in e.outvars]
    return [values[k] for k in order if k in read]


SUMMARY_COPIES = 3       # copies of one value that summarising it takes at once (on the host, and as float32 with
                         # a mask for its picture; its statistics go a chunk at a time)


def stepping_bytes(program: Program) -> int:
    """The bytes that stepping ``program`` forward holds at most (a recorded replay: ``Stepper(forward_only=True)``
    drops each value after its last reader): its top level's peak, the largest peak of a body it steps into on
    top, and the copies summarising its largest value takes (computed once per program)."""
    known = program.memo.get("memory.stepping")
    if known is not None:
        return known
    inner, largest = 0, 0
    for eqn in program.walk():
        for v in eqn.outvars:
            largest = max(largest, nbytes(v.aval))
        for sub in eqn.subs:
            inner = max(inner, memory(sub.program).peak)
    for v in list(program.invars) + list(program.constvars):
        largest = max(largest, nbytes(v.aval))
    program.memo["memory.stepping"] = need = memory(program).peak + inner + SUMMARY_COPIES * largest
    return need


def free_bytes() -> int | None:
    """The memory this process may still take: the system's available memory, or less where a container's
    cgroup caps it (a hub's kernel); None where neither says (not Linux)."""
    out = []
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    out.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    v1 = "/sys/fs/cgroup/memory/memory."
    for limit, usage in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                         (v1 + "limit_in_bytes", v1 + "usage_in_bytes")):
        try:
            with open(limit) as f:
                cap = f.read().strip()
            with open(usage) as f:
                used = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if cap.isdigit() and int(cap) < 1 << 60:            # "max", or cgroup v1's "no limit" (a huge number)
            out.append(max(0, int(cap) - used))
        break
    return min(out) if out else None


def deaths(program: Program) -> list:
    """Per equation index ``i`` of ``program``, the variables no equation after ``i`` reads (nor the results):
    ``dies[i]`` may go once the position is past ``i``; inputs and constants nothing reads go at the start."""
    dies = program.memo.get("memory.deaths")
    if dies is None:
        n = len(program.eqns)
        last: dict = dict.fromkeys((*program.constvars, *program.invars), -1)
        for i, eqn in enumerate(program.eqns):
            for a in eqn.invars:
                if isinstance(a, Var):
                    last[a] = i
            for v in eqn.outvars:
                last.setdefault(v, i)
        for v in program.outvars:
            if isinstance(v, Var):
                last[v] = n
        dies = [[] for _ in range(n + 1)]
        for v, i in last.items():
            dies[max(i, 0)].append(v)
        program.memo["memory.deaths"] = dies = dies[:n]          # index n: the results, never dropped
    return dies


def device_free_bytes(device) -> int | None:
    """The memory still free on ``device``: its allocator's limit less what is in use where it says (GPU, TPU),
    the process's (``free_bytes``) on a CPU; None where nothing says."""
    try:
        stats = device.memory_stats()
    except Exception:  # noqa: BLE001 - a backend without memory statistics
        stats = None
    if stats and stats.get("bytes_limit"):
        return max(0, int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0)))
    return free_bytes() if getattr(device, "platform", "") == "cpu" else None
