"""Which of the jaxpr's equations became which compiled kernel (``%%jaxpr --fusion``, ``program.fusion()``).

The program is compiled once, shared with ``--run`` (``engine.compiled``), each equation (at every depth) under its
own name scope: its id as a scope name (``e3``, ``e2_body_1``) added to the equation's name stack.  XLA keeps the name
stack in every instruction's ``op_name`` metadata (``jit(run)/e2/while/body/e2_body_1/sin``), inside fusions too,
so reading the optimized HLO maps each equation to the kernel its instructions landed in: the top-level
instruction of a computation the program runs (the entry, a loop's body, a branch), or the fusion an
instruction was fused into.  With ``profile=True`` the same compiled program then runs under the profiler and
each kernel gets its measured time (``engine.kerneltime``).  The compile is most of a map's time (XLA's: a minute
at 10,000 equations; benchmarks/bench_fusion.py), so it is made once per program and device and kept in
``program.memo``: ``--run``, a map made again, a profile after it and ``engine.memory``'s ``memory_analysis()``
reuse it.
Returns data (``FusionMap``); ``views.compiled.fusion`` shows it."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import jax

from jaxprlens.engine.compiled import key as compile_key, on_device, scoped
from jaxprlens.engine.compiled import scope_name  # noqa: F401 - public here too (the map's tests, the sharding map)
from jaxprlens.engine.cost import ZERO, Cost, costs, nbytes
from jaxprlens.engine import kerneltime
from jaxprlens.engine.memory import Memory
from jaxprlens.engine.runner import BUDGET, REPEAT, _check, _check_args, memory_analysis
from jaxprlens.model.program import Program, Var

# instructions that are no kernel: they name values, they compute nothing
PLUMBING = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "after-all", "partition-id",
                      "replica-id", "opt-barrier"})
_FUSION_KINDS = {"kLoop": "loop fusion", "kInput": "input fusion", "kOutput": "output fusion",
                 "kCustom": "custom fusion"}


@dataclass(frozen=True)
class Scoped:
    """The shared compile (``engine.compiled.Scoped``) with its optimized HLO read (``parse_hlo``): what the map,
    XLA's memory figures and the sharding map read of it."""
    compiled: object
    tokens: dict
    args: list
    device: object
    text: str
    parsed: tuple
    partitioned: str | None = None


def compile_scoped(program: Program, device=None):
    """``(compiled, tokens)``: the program compiled as ``--run`` compiles it (its arguments placed on
    ``device``; a program without recorded arguments on their types), each equation under its scope name;
    ``tokens``: scope name -> equation id."""
    made = _scoped(program, device)
    return made.compiled, made.tokens


def _scoped(program: Program, device=None, partitioning: bool = False) -> Scoped:
    """The program's one compile (``engine.compiled.scoped``: kept in ``program.memo``, shared with ``--run``), its
    HLO read once beside it: a second map, a profile, XLA's ``memory_analysis()``, a sharding map (``engine.sharding``)
    and a view made again reuse both."""
    made = scoped(program, device, partitioning)
    key = ("fusion.parsed", compile_key(program, device))
    kept = program.memo.get(key)
    if kept is None or kept[0] is not made:
        kept = program.memo[key] = (made, parse_hlo(made.text))
    return Scoped(made.compiled, made.tokens, made.args, made.device, made.text, kept[1], made.partitioned)


def compiled_program(program: Program, device=None):
    """The program compiled as ``fusion_map`` (and ``--run``) compiles it, shared with them: what
    ``engine.memory``'s figures ask XLA's ``memory_analysis()`` of."""
    return _scoped(program, device).compiled


# ---------------------------------------------------------------- the optimized HLO, read

@dataclass
class Instruction:
    name: str
    opcode: str
    computation: str
    op_name: str = ""
    attrs: str = ""
    type: str = ""               # its result type as the HLO writes it: ``f32[4,32]{1,0}``, a tuple ``(f32[2], s32[])``

    @property
    def operands(self) -> list:
        """The instructions it reads, by name, in order (a ``parameter``: none)."""
        return re.findall(r"%([\w.\-]+)", self.attrs.split(")", 1)[0])

    @property
    def shape(self) -> str:
        """Its result type without the layout: ``f32[4,32]``."""
        return re.sub(r"\{[^}]*\}", "", self.type)


_COMPUTATION = re.compile(r"^(ENTRY\s+)?%([\w.\-]+)\s.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%([\w.\-]+)\s*=\s*(.+?)\s([a-z][a-z0-9\-]*)\((.*)$")
_WORD = re.compile(r"\w+")
_OP_NAME = re.compile(r'op_name="([^"]*)"')
_CALLED = re.compile(r"\b(calls|to_apply|body|condition|branch_computations|true_computation|"
                     r"false_computation)=\{?([^,}\s]+(?:,\s*%[\w.\-]+)*)\}?")


def parse_hlo(text: str) -> tuple[list, str, dict]:
    """``(instructions, entry, called)``: every instruction of the module in text order, the entry
    computation's name, and for each called computation ``(caller instruction, embedded)``: embedded when
    its instructions run inside the caller's kernel (a fusion's body, a reduce's combiner), not when it is a
    computation of its own that the caller runs (a loop's body, a branch, a call)."""
    instructions, entry, called, current = [], "", {}, None
    for line in text.splitlines():
        m = _COMPUTATION.match(line)
        if m and "=" not in line.split("(")[0]:
            current = m.group(2)
            if m.group(1):
                entry = current
            continue
        if current is None:
            continue
        if line.strip() == "}":
            current = None
            continue
        m = _INSTRUCTION.match(line)
        if not m:
            continue
        name, opcode, rest = m.group(1), m.group(3), m.group(4)
        op = _OP_NAME.search(rest)
        instructions.append(Instruction(name, opcode, current, op.group(1) if op else "", rest, m.group(2)))
        for key, names in _CALLED.findall(rest):
            embedded = key == "calls" or (key == "to_apply" and opcode != "call")
            for callee in re.findall(r"%?([\w.\-]+)", names):
                called.setdefault(callee, (name, embedded))
    return instructions, entry, called


# ---------------------------------------------------------------- the map

@dataclass
class Kernel:
    """One compiled kernel: an HLO instruction XLA runs (a fusion, a dot, a copy, a custom call, a loop)."""
    name: str
    kind: str                    # "loop fusion", "input fusion", "custom-call __onednn$matmul", "copy", ...
    computation: str             # the HLO computation it runs in (the entry, a loop body, ...)
    eqns: list = field(default_factory=list)       # equation ids whose results it computes
    cost: Cost = ZERO            # the cost rules summed over its equations (those without nested programs)
    saved: int = 0               # bytes of values made and used inside it only: never written to memory
    time: float | None = None    # profiled: its own measured seconds per run (None: no event of it recorded)
    parts: dict = field(default_factory=dict, repr=False)    # equation id -> its cost counted in ``cost``

    @property
    def flops(self) -> int:
        return self.cost.flops

    @property
    def bytes(self) -> int:
        return self.cost.bytes


@dataclass
class FusionMap:
    """``program.fusion()``: the kernels in the order XLA lists them, ``of``: equation id -> kernel name,
    ``removed``: equations no instruction comes from (folded into constants, simplified away, dead),
    ``absorbed``: the removed equations whose results feed one kernel only (it likely computes them: XLA
    merged them into an instruction that kept another equation's name, or into constants it placed there),
    ``inlined``: equations holding nested programs with no instruction of their own (a ``pjit`` call whose
    body's equations are in kernels).  Every equation id is in ``removed``, ``inlined`` or the ``eqns`` of every
    kernel that computes it: ``of`` names one of those (the outermost, one that bears the equation's own name);
    ``spread``: equation id -> every kernel computing it, when more than one, in the HLO's order; ``recomputed``:
    those of them where XLA computes the same thing again in each kernel (an instruction of the same opcode and
    shape in each: a cheap producer copied into every consumer's fusion), the others are computed in parts (a
    reduction in two passes, a loop's counter and test).  A recomputed equation's cost is in each kernel's."""
    kernels: list
    of: dict
    removed: list
    inlined: list
    spread: dict
    n_eqns: int
    absorbed: dict = field(default_factory=dict)    # removed equation id -> the one kernel its results feed
    hlo: str = field(repr=False, default="")
    times: kerneltime.KernelTimes | None = None     # profiled: what the profiler measured (``engine.kerneltime``)
    others: list = field(default_factory=list)      # profiled: kernels no equation comes from that took time
    looped: dict = field(default_factory=dict)      # kernel in a loop's body -> the entry's kernel that runs the loop
    parsed: tuple | None = field(default=None, repr=False, compare=False)   # ``parse_hlo(hlo)``, when read already
    recomputed: dict = field(default_factory=dict)  # equation id -> the kernels that each compute it again

    def kernel(self, name: str) -> Kernel:
        return next(k for k in self.kernels if k.name == name)

    @property
    def saved(self) -> int:
        """Bytes of intermediate values that stay inside a kernel (never written to memory), summed."""
        return sum(k.saved for k in self.kernels)


def _kind(ins: Instruction) -> str:
    if ins.opcode == "fusion":
        m = re.search(r"kind=(k\w+)", ins.attrs)
        return _FUSION_KINDS.get(m.group(1), m.group(1)) if m else "fusion"
    if ins.opcode == "custom-call":
        m = re.search(r'custom_call_target="([^"]+)"', ins.attrs)
        return f"custom-call {m.group(1)}" if m else "custom-call"
    return ins.opcode


def _eqn_of(op_name: str, tokens: dict) -> str | None:
    """The equation an instruction comes from: the innermost scope name of ours in its ``op_name``
    (``jit(f)/e2/while/body/e2_body_1/sin``; under a transform the name is wrapped: ``transpose(jvp(e12))``)."""
    for part in reversed(_WORD.findall(op_name)):
        if part in tokens:
            return tokens[part]
    return None


def _readers(prog: Program) -> tuple[dict, set]:
    """``({id(var): [ids of the equations reading it]}, {id of each var the program returns})``."""
    readers: dict = {}
    for eqn in prog.eqns:
        for a in eqn.invars:
            if isinstance(a, Var):
                readers.setdefault(id(a), []).append(eqn.id)
    return readers, {id(v) for v in prog.outvars if isinstance(v, Var)}


def _saved_bytes(program: Program, of: dict) -> dict:
    """Per kernel, the bytes of values an equation makes that only equations of the same kernel read (and
    that the (sub)program does not return): such a value stays in registers or cache, never written."""
    saved: dict = {}

    def visit(prog: Program):
        readers, returned = _readers(prog)
        for eqn in prog.eqns:
            k = of.get(eqn.id)
            for v in eqn.outvars:
                users = readers.get(id(v), [])
                if k and users and id(v) not in returned and all(of.get(u) == k for u in users):
                    saved[k] = saved.get(k, 0) + nbytes(v.aval)
            for sub in eqn.subs:
                visit(sub.program)
    visit(program)
    return saved


def _absorbed(program: Program, of: dict, removed: set) -> dict:
    """Removed equations whose results are read by equations of one kernel only (through other such
    equations), and not returned by their (sub)program: equation id -> that kernel."""
    out: dict = {}

    def visit(prog: Program):
        readers, returned = _readers(prog)
        for eqn in reversed(prog.eqns):
            for sub in eqn.subs:
                visit(sub.program)
            if eqn.id not in removed:
                continue
            users = [u for v in eqn.outvars for u in readers.get(id(v), [])]
            kernels = {of.get(u) or out.get(u) for u in users}
            if users and len(kernels) == 1 and None not in kernels and \
                    not any(id(v) in returned for v in eqn.outvars):
                out[eqn.id] = kernels.pop()
    visit(program)
    return out


# instructions that carry a value on without computing it: where one of an equation's lands, the equation is not
# computed (XLA's fusions bitcast their operands and keep the producer's name on the bitcast)
FREE = frozenset({"bitcast", "reshape"}) | PLUMBING
# an opcode that computes one primitive: an instruction of it whose name XLA lost is matched to that primitive
_COMPUTES = {"dot": "dot_general", "convolution": "conv_general_dilated", "fft": "fft", "sort": "sort",
             "cholesky": "cholesky", "triangular-solve": "triangular_solve"}


def _in_combiner(ins: Instruction, called: dict, by_name: dict) -> bool:
    """Whether ``ins`` is in a reduction's combiner (``to_apply`` of a reduce, a scatter, a sort): the combiner
    runs inside the reduction's kernel, and the same combiner in two kernels is a reduction in two passes, not one
    computed twice."""
    caller = called.get(ins.computation)
    return caller is not None and caller[1] and by_name[caller[0]].opcode not in ("fusion", "call")


def _lost_names(instructions: list, by_name: dict, called: dict, tokens: dict, eqns: dict) -> dict:
    """Instruction name -> the equation it computes, for instructions of a loop's or call's body that XLA left with
    the loop's name only (on the CPU, a ``dot`` rewritten from a vector-matrix product keeps ``…/e1/while``): the one
    equation of that body, of the primitive the opcode computes, that names the values next to it: what it reads
    or what reads it, through bitcasts and into the fusions that read it (XLA keeps the name on the bitcast)."""
    lost = []                           # (instruction, the loop or call whose name it has) to match
    for ins in instructions:
        eid = _eqn_of(ins.op_name, tokens) if ins.opcode in _COMPUTES else None
        if eid is not None and eqns[eid].subs:
            lost.append((ins, eid))
    if not lost:
        return {}
    readers: dict = {}
    params: dict = {}
    for ins in instructions:
        for i, name in enumerate(ins.operands):
            readers.setdefault(name, []).append((ins, i))
        if ins.opcode == "parameter":
            m = re.match(r"\s*(\d+)", ins.attrs)
            if m:
                params[(ins.computation, int(m.group(1)))] = ins
    fused = {caller: comp for comp, (caller, embedded) in called.items() if embedded}

    def near(ins: Instruction) -> set:
        seen, todo, out = set(), [ins], set()
        while todo:
            x = todo.pop()
            for y in [by_name[o] for o in x.operands if o in by_name]:          # what it reads
                if y.name not in seen:
                    seen.add(y.name)
                    out.add(_eqn_of(y.op_name, tokens))
                    if y.opcode in FREE:
                        todo.append(y)
            for y, i in readers.get(x.name, ()):                                 # what reads it
                if y.opcode == "fusion" and (fused.get(y.name), i) in params:
                    y = params[(fused[y.name], i)]
                if y.name not in seen:
                    seen.add(y.name)
                    out.add(_eqn_of(y.op_name, tokens))
                    if y.opcode in FREE:
                        todo.append(y)
        return out

    out = {}
    for ins, eid in lost:
        primitive = _COMPUTES[ins.opcode]
        found = {e for e in near(ins) if e and e.startswith(eid + "/") and eqns[e].primitive == primitive}
        if len(found) == 1:
            out[ins.name] = found.pop()
    return out


def fusion_map(program: Program, device=None, profile: bool = False, repeat: int = REPEAT,
               budget: float = BUDGET) -> FusionMap:
    """Compile ``program`` (see ``compile_scoped``) and map every equation to its kernel; with ``profile``, run
    it ``repeat`` times (at most about ``budget`` seconds) under the profiler and time each kernel."""
    if profile:
        _check(repeat, budget)
        _check_args(program)
    made = _scoped(program, device)
    compiled, tokens, args, dev, text = made.compiled, made.tokens, made.args, made.device, made.text
    instructions, entry, called = made.parsed
    by_name = {ins.name: ins for ins in instructions}

    def kernel_of(ins: Instruction) -> Instruction | None:
        seen = 0
        while ins.computation in called and called[ins.computation][1] and seen < 64:
            ins, seen = by_name[called[ins.computation][0]], seen + 1
        return None if ins.opcode in PLUMBING else ins

    def depth(comp: str) -> int:
        d = 0
        while comp in called and d < 64:
            comp, d = by_name[called[comp][0]].computation, d + 1
        return d

    eqns = {e.id: e for e in program.walk()}
    lost = _lost_names(instructions, by_name, called, tokens, eqns)
    found: dict = {}          # eqn id -> [(free, depth, not own, -order, kernel name, instruction)]
    order = {ins.name: i for i, ins in enumerate(instructions)}
    for ins in instructions:
        eid = lost.get(ins.name) or (_eqn_of(ins.op_name, tokens) if ins.op_name else None)
        if eid is None:
            continue
        k = kernel_of(ins)
        if k is None:
            continue
        own = (lost.get(k.name) or _eqn_of(k.op_name, tokens)) == eid
        free = ins.opcode in FREE
        found.setdefault(eid, []).append((free, depth(k.computation), not own, -order[k.name], k.name, ins))
    of, spread, recomputed, where = {}, {}, {}, {}
    for eid, places in found.items():
        if not all(p[0] for p in places):      # where it computes something, not where a bitcast of it went
            places = [p for p in places if not p[0]]
        of[eid] = min(places, key=lambda p: p[:5])[4]     # the outermost, one that names the equation itself, the last
        names = where[eid] = list(dict.fromkeys(p[4] for p in sorted(places, key=lambda p: -p[3])))
        if eqns[eid].subs:              # a loop, a branch, a call: its own kernel; its counter and test are its own
            names = where[eid] = [of[eid]]
        if len(names) > 1:
            spread[eid] = names
            makers: dict = {}              # (opcode, shape) of what it computes -> the kernels computing it
            for p in places:
                ins = p[5]
                if not p[0] and not _in_combiner(ins, called, by_name):
                    makers.setdefault((ins.opcode, ins.shape), set()).add(p[4])
            again = {k for ks in makers.values() if len(ks) > 1 for k in ks}
            if again:
                recomputed[eid] = [k for k in names if k in again]
    table = program.memo.get("fusion.costs")
    if table is None:
        table = program.memo["fusion.costs"] = costs(program)
    kernels: dict = {}
    used = {k for names in where.values() for k in names}
    for ins in instructions:
        if ins.name in used and ins.name not in kernels:
            kernels[ins.name] = Kernel(ins.name, _kind(ins), ins.computation)
    removed, inlined, n = [], [], 0
    for eqn in program.walk():
        n += 1
        if eqn.id in of:
            for k in where[eqn.id]:
                kernels[k].eqns.append(eqn.id)
                if not eqn.subs and (k == of[eqn.id] or k in recomputed.get(eqn.id, ())):
                    kernels[k].cost = kernels[k].cost + table.get(eqn.id, ZERO)
                    kernels[k].parts[eqn.id] = table.get(eqn.id, ZERO)
        elif eqn.subs and any(e.id in of for sub in eqn.subs for e in sub.program.walk()):
            inlined.append(eqn.id)
        else:
            removed.append(eqn.id)
    absorbed = _absorbed(program, of, set(removed))
    absorbed = {e: absorbed[e] for e in removed if e in absorbed}          # in program order
    for k, b in _saved_bytes(program, of).items():
        kernels[k].saved = b
    first = {}
    for i, eqn in enumerate(program.walk()):
        for k in where.get(eqn.id, ()):
            first.setdefault(k, i)
    ordered = sorted(kernels.values(), key=lambda k: first[k.name])      # in the order the program reads
    fmap = FusionMap(ordered, of, removed, inlined, spread, n, absorbed=absorbed, hlo=text,
                     parsed=made.parsed, recomputed=recomputed)
    if profile:
        with on_device(dev, [a for a in args if isinstance(a, jax.Array)]):
            times = kerneltime.profile(compiled, args, kerneltime.module_name(text), repeat, budget)
        timed(fmap, times)
    return fmap


@dataclass
class Share:
    """What the kernels spend on some of the program's equations (a call's, ``share``): ``kernels`` that compute
    any of them, in XLA's order; ``cost`` the part of those kernels' cost that is these equations' (each counted as
    its kernels count it: a recomputed one in each); ``time`` (profiled) each kernel's measured time split between
    its equations by their part of its FLOPs (of its bytes, where it has none; evenly, where it has neither).
    Shares of equations that do not overlap add up to the kernels' totals."""
    kernels: list
    cost: Cost = ZERO
    time: float | None = None


def share(fmap: FusionMap, eqn_ids) -> Share:
    """The kernels computing any of ``eqn_ids`` (equations at any depth: a call's, with the loop bodies in it) and
    their cost and time spent on them (``Share``); an equation XLA removed but whose results feed one kernel
    counts that kernel too (it likely computes it), for nothing."""
    ids = set(eqn_ids)
    names: set = set()
    for e in ids:
        names.update(fmap.spread.get(e, ()) or ([fmap.of[e]] if e in fmap.of else []))
        if e in fmap.absorbed:
            names.add(fmap.absorbed[e])
    kernels = [k for k in fmap.kernels if k.name in names]
    cost, time = ZERO, None
    for k in kernels:
        mine = [e for e in k.eqns if e in ids]
        for e in mine:
            if e in k.parts:
                cost = cost + k.parts[e]
        if k.time is not None:
            time = (time or 0.0) + k.time * _fraction(k, mine)
    return Share(kernels, cost, time)


def _fraction(k: Kernel, mine: list) -> float:
    """The part of ``k``'s work that is the equations ``mine`` (by FLOPs, else bytes, else equations)."""
    for whole, part in ((k.cost.flops, sum(k.parts[e].flops for e in mine if e in k.parts)),
                        (k.cost.bytes, sum(k.parts[e].bytes for e in mine if e in k.parts))):
        if whole:
            return part / whole
    return len(mine) / len(k.eqns) if k.eqns else 0.0


def _looped(kernels: list, instructions: dict, called: dict) -> dict:
    """Kernel name -> the entry computation's instruction that runs it, for the kernels inside a loop's body
    (a ``while`` among the instructions that call their computation, at any depth)."""
    out = {}
    for k in kernels:
        comp, caller, loop, seen = k.computation, None, False, 0
        while comp in called and seen < 64:
            caller = instructions[called[comp][0]]
            loop, comp, seen = loop or caller.opcode == "while", caller.computation, seen + 1
        if loop:
            out[k.name] = caller.name
    return out


def timed(fmap: FusionMap, times: kerneltime.KernelTimes) -> FusionMap:
    """``fmap`` with the measured ``times`` (of a run of the program it maps, or a trace of it read with
    ``kerneltime.read_trace``): each kernel's ``time``, as ``others`` the instructions that took time but that no
    equation comes from (XLA's copies, layout changes) in the HLO's order (names its text lacks last), and
    ``looped``."""
    found, _, called = fmap.parsed or parse_hlo(fmap.hlo)
    instructions = {ins.name: ins for ins in found}
    fmap.times = times
    fmap.looped = _looped(fmap.kernels, instructions, called)
    for k in fmap.kernels:
        k.time = times.seconds.get(k.name)
    known = {k.name for k in fmap.kernels}
    names = [n for n in instructions if n in times.seconds] + sorted(set(times.seconds) - set(instructions))
    for name in (n for n in names if n not in known):
        ins = instructions.get(name)
        fmap.others.append(Kernel(name, _kind(ins) if ins else "", ins.computation if ins else "",
                                  time=times.seconds[name]))
    return fmap


def compiled_memory(program: Program, device=None) -> dict | None:
    """XLA's ``memory_analysis()`` of the program compiled as ``--run`` compiles it: argument, output,
    temporary and alias bytes (None where the backend does not say).  The compile is the fusion map's
    (``compiled_program``: the same program, its equations under name scopes, which XLA's
    buffers do not see): ``--fusion --memory`` compiles once."""
    return memory_analysis(compiled_program(program, device))   # a compile that fails raises: not figures left out


def with_compiled(result: Memory, program: Program, device=None) -> Memory:
    """``result`` (``engine.memory.memory(program)``) with XLA's figures of the compiled program: ``.compiled``,
    or ``.compile_failed`` saying why they are missing (the jaxpr's own count stands)."""
    try:
        result.compiled = compiled_memory(program, device)
    except Exception as e:  # noqa: BLE001 - the jaxpr's own count stands; the view says why XLA's is missing
        result.compile_failed = f"{type(e).__name__}: {e}".splitlines()[0]
    return result
