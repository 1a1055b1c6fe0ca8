"""Where a program's data lives on the device mesh, and which equation made each collective
(``%%jaxpr --sharding``, ``program.sharding()``).

The program is compiled once as ``--fusion`` compiles it (``engine.fusion._scoped``: each equation under its own
name scope, so every HLO instruction's ``op_name`` names the equation it comes from), with one more thing kept: the
module as XLA's SPMD partitioner received it, where every instruction carries the ``sharding={...}`` sharding
propagation chose.  From the two texts:

- ``collectives``: each all-reduce, all-gather, reduce-scatter, all-to-all and collective-permute of the optimized
  (partitioned) module, the equation whose scope its ``op_name`` holds, the mesh axes its devices talk over (read
  from its replica groups or source-target pairs), and the bytes each device exchanges;
- ``layout``: for each equation, how its first result is laid out over the mesh (a ``PartitionSpec`` over mesh
  axes, the shape each device holds, replicated or not), from the partitioner's input.

Returns data (``ShardingMap``); ``views.compiled.sharding`` shows it."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from jax.sharding import PartitionSpec

from jaxprlens.engine import fusion
from jaxprlens.model.program import Program

KINDS = ("all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute")
# async forms (GPU, TPU): the start carries the replica groups and op_name; the done is the same collective
_OPCODES = {k: k for k in KINDS} | {f"{k}-start": k for k in KINDS}


@dataclass(frozen=True)
class Mesh:
    """The device mesh as the compiled module names it: axis names and sizes, in order (device ``i`` of the
    module sits at ``np.unravel_index(i, sizes)``)."""
    names: tuple = ()
    sizes: tuple = ()

    @property
    def devices(self) -> int:
        return math.prod(self.sizes) if self.sizes else 1

    def size(self, axes) -> int:
        return math.prod(self.sizes[self.names.index(a)] for a in axes if a in self.names)

    def coords(self, device: int) -> tuple:
        return tuple(int(c) for c in np.unravel_index(device, self.sizes)) if self.sizes else ()


@dataclass(frozen=True)
class Layout:
    """How one value is laid out over the mesh: ``spec`` names the mesh axes each dimension is split over
    (``PartitionSpec('data', None)``), ``shape`` the global shape, ``local`` the shape each device holds;
    ``manual``: a value inside a ``shard_map`` body (each device's own block, ``local == shape``); ``device``: a
    value placed on one device (``maximal``), else ``None``."""
    spec: PartitionSpec
    shape: tuple
    local: tuple
    manual: bool = False
    device: int | None = None
    replicated_over: tuple = ()     # mesh axes every device along which holds the same block

    @property
    def replicated(self) -> bool:
        """Every device holds the whole value."""
        return not self.manual and self.device is None and all(p is None for p in self.spec)

    def axes(self, dim: int) -> tuple:
        """The mesh axes dimension ``dim`` is split over."""
        if dim >= len(self.spec) or self.spec[dim] is None:
            return ()
        p = self.spec[dim]
        return tuple(p) if isinstance(p, tuple) else (p,)


@dataclass(frozen=True)
class Collective:
    """One collective of the compiled program: ``kind`` (all-reduce, all-gather, reduce-scatter, all-to-all,
    collective-permute), ``eqn`` the id of the equation that made it (``None``: no equation's scope in its
    ``op_name``), ``axes`` the mesh axes it talks over, ``bytes`` the larger of the buffers each device sends in and
    gets back (an all-reduce's operand, an all-gather's result), ``name`` its HLO instruction, ``groups`` the device
    groups (or, for a collective-permute, the source-target pairs), ``case`` a classic cause when the program shows
    one (``"contracting"``: a dot_general contracting over an axis split across the mesh; ``"reduction"``: a
    reduction over a dimension split across the mesh), ``in_loop``: inside a loop's body (it runs every
    iteration)."""
    kind: str
    eqn: str | None
    axes: tuple
    bytes: int
    name: str
    groups: tuple = ()
    op_name: str = ""
    case: str | None = None
    in_loop: bool = False
    eqns: tuple = ()        # every equation whose values it carries: XLA combines collectives of several
                            # equations into one (a data-parallel step's gradient and loss in one all-reduce)


@dataclass(frozen=True)
class Total:
    count: int = 0
    bytes: int = 0

    def __add__(self, other: Total) -> Total:
        return Total(self.count + other.count, self.bytes + other.bytes)


@dataclass
class ShardingMap:
    """``program.sharding()``: ``collectives`` in the optimized module's order; ``layout``: equation id -> ``Layout``
    of its first result, for every equation the partitioner saw an instruction of; ``inputs``: the program's
    arguments' layouts; ``mesh``; ``total``: the collectives of one call (those in a loop's body counted once);
    ``per_axes``: mesh axes -> their collectives' total; ``partitions``: how many devices the program runs on."""
    mesh: Mesh
    collectives: list
    layout: dict
    inputs: list
    partitions: int
    hlo: str = field(repr=False, default="")
    partitioned: str = field(repr=False, default="")
    _of: dict | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def total(self) -> Total:
        return sum((Total(1, c.bytes) for c in self.collectives), Total())

    @property
    def per_axes(self) -> dict:
        out: dict = {}
        for c in self.collectives:
            out[c.axes] = out.get(c.axes, Total()) + Total(1, c.bytes)
        return out

    def of(self, eqn_id: str) -> list:
        """The collectives equation ``eqn_id`` made, one it shares with other equations too."""
        if self._of is None:
            self._of = {}
            for c in self.collectives:
                for e in c.eqns or (c.eqn,):
                    self._of.setdefault(e, []).append(c)
        return self._of.get(eqn_id, [])


# ---------------------------------------------------------------- reading HLO text

_DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4, "f32": 4,
                "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16, "s4": 1, "u4": 1, "s2": 1, "u2": 1,
                "f8e4m3fn": 1, "f8e5m2": 1, "f8e4m3": 1, "f8e3m4": 1, "f8e4m3b11fnuz": 1, "f8e4m3fnuz": 1,
                "f8e5m2fnuz": 1, "f8e8m0fnu": 1, "f4e2m1fn": 1, "token": 0}
_ARRAY = re.compile(r"\b([a-z]+[0-9a-z]*)\[([0-9,]*)\]")


def shapes(type_text: str) -> list:
    """``[(dtype, shape)]`` of every array in an HLO type (``f32[4,32]{1,0}``, ``(f32[2], s32[])``)."""
    return [(d, tuple(int(x) for x in dims.split(",") if x)) for d, dims in _ARRAY.findall(type_text)
            if d in _DTYPE_BYTES]


def type_bytes(type_text: str) -> int:
    return sum(_DTYPE_BYTES[d] * math.prod(s) for d, s in shapes(type_text))


def braced(text: str, start: int) -> str:
    """The ``{...}`` group that opens at ``text[start]``, braces nested, without its outer braces."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
    return text[start + 1:]


def attr(attrs: str, key: str) -> str | None:
    """An instruction attribute's text, ``key={...}`` (without the braces) or ``key=word``."""
    m = re.search(r"(?<![\w.])" + re.escape(key) + r"=", attrs)
    if not m:
        return None
    at = m.end()
    if at < len(attrs) and attrs[at] == "{":
        return braced(attrs, at)
    end = re.match(r"\[[\d,]*\](?:<=\[[\d,]*\](?:T\([\d,]*\))?)?|mesh\[[^\]]*\]\s*\{[^}]*\}|[^,\s]*", attrs[at:])
    return end.group(0) if end else ""


_MESH = re.compile(r"mesh\[([^\]]*)\]")
_MESH_AXIS = re.compile(r"'([^']*)'\s*=\s*(\d+)")


def read_mesh(text: str) -> Mesh | None:
    """The first named mesh an HLO text writes (``mesh['data'=4,'model'=2]``)."""
    for m in _MESH.finditer(text):
        axes = _MESH_AXIS.findall(m.group(1))
        if axes:
            return Mesh(tuple(a for a, _ in axes), tuple(int(n) for _, n in axes))
    return None


def _iota(text: str) -> np.ndarray:
    """An iota tile assignment, ``[4,2]<=[2,4]T(1,0)``: devices ``0..n-1`` reshaped, transposed, reshaped."""
    m = re.match(r"\[([\d,]+)\]<=\[([\d,]+)\](?:T\(([\d,]+)\))?", text.strip())
    out = [int(x) for x in m.group(1).split(",")]
    dims = [int(x) for x in m.group(2).split(",")]
    ids = np.arange(math.prod(dims)).reshape(dims)
    if m.group(3):
        ids = ids.transpose([int(x) for x in m.group(3).split(",")])
    return ids.reshape(out)


def groups(attrs: str, partitions: int, mesh: Mesh | None) -> tuple:
    """The device groups of a collective: ``replica_groups`` written as lists (``{{0,1},{2,3}}``), as an iota
    (``[4,2]<=[8]``) or over a named mesh (``mesh['a'=4,'b'=2] {'b'}``: the devices that differ along the named
    axes only, the mesh's axes in the module's order); no groups: every device in one."""
    text = attr(attrs, "replica_groups")
    if text is None or text.strip() in ("", "{}"):
        return (tuple(range(partitions)),)
    text = text.strip()
    if text.startswith("mesh["):
        m = re.match(r"mesh\[([^\]]*)\]\s*\{([^}]*)\}", text)
        axes = _MESH_AXIS.findall(m.group(1))
        names = [a for a, _ in axes]
        sizes = [int(n) for _, n in axes]
        over = [names.index(a) for a in re.findall(r"'([^']*)'", m.group(2))]
        ids = np.arange(math.prod(sizes)).reshape(sizes)
        rest = [i for i in range(len(sizes)) if i not in over]
        ids = ids.transpose(rest + over).reshape(-1, math.prod(sizes[i] for i in over) if over else 1)
        return tuple(tuple(int(d) for d in g) for g in ids)
    if text.startswith("["):
        return tuple(tuple(int(d) for d in g) for g in _iota(text))
    return tuple(tuple(int(d) for d in re.findall(r"\d+", g)) for g in re.findall(r"\{([^{}]*)\}", text))


def axes_of(device_groups: tuple, mesh: Mesh) -> tuple:
    """The mesh axes along which the devices of each group differ (in the mesh's order)."""
    if not mesh.sizes:
        return ()
    varying = set()
    for g in device_groups:
        coords = [mesh.coords(d) for d in g if d < mesh.devices]
        for i in range(len(mesh.sizes)):
            if len({c[i] for c in coords}) > 1:
                varying.add(i)
    return tuple(mesh.names[i] for i in sorted(varying))


def pairs(attrs: str) -> tuple:
    text = attr(attrs, "source_target_pairs") or ""
    return tuple(tuple(int(d) for d in re.findall(r"\d+", p)) for p in re.findall(r"\{([^{}]*)\}", text))


# ---------------------------------------------------------------- shardings

def read_sharding(text: str, shape: tuple, mesh: Mesh) -> Layout:
    """A ``sharding={...}`` text read as a ``Layout`` of a value of global ``shape``: the named-mesh form
    (``{mesh['data'=4,'model'=2], [{'data'}, {}]}``, ``{mesh['i'=8], manual}``, ``{mesh[], replicated}``) and the
    tiled form (``{devices=[4,1,2]<=[8] last_tile_dim_replicate}``, ``{replicated}``, ``{maximal device=0}``)."""
    text = text.strip()
    if text.startswith("{"):                       # a tuple's shardings: its first element's
        text = braced(text, 0).strip()
    none = PartitionSpec(*([None] * len(shape)))
    if "manual" in text.split("]")[-1] or text == "manual":
        return Layout(none, shape, shape, manual=True)
    m = re.search(r"maximal device=(\d+)", text)
    if m:
        return Layout(none, shape, shape, device=int(m.group(1)))
    if text.startswith("mesh["):
        after = text[text.index("]") + 1:].lstrip(", ")
        if not after.startswith("["):
            return _layout(none, shape, mesh)
        dims = re.findall(r"\{([^{}]*)\}", after[:after.index("]") + 1] if "]" in after else after)
        parts = []
        for d in dims:
            names = tuple(re.findall(r"'([^']*)'", d))
            parts.append(None if not names else names[0] if len(names) == 1 else names)
        parts += [None] * (len(shape) - len(parts))
        return _layout(PartitionSpec(*parts[:len(shape)]), shape, mesh)
    m = re.search(r"devices=(\[[\d,]+\](?:<=\[[\d,]+\](?:T\([\d,]+\))?|[\d,]*))", text)
    if m:
        return _layout(_tiled_spec(m.group(1), len(shape), mesh), shape, mesh)
    return _layout(none, shape, mesh)


def _tiled_spec(text: str, rank: int, mesh: Mesh) -> PartitionSpec:
    """The mesh axes each dimension of a tiled sharding is split over: for each dimension, the mesh axes whose
    coordinate changes along that dimension's tiles, slowest first."""
    if "<=" in text:
        tiles = _iota(text)
    else:
        dims = [int(x) for x in re.match(r"\[([\d,]+)\]", text).group(1).split(",")]
        tiles = np.array([int(x) for x in text[text.index("]") + 1:].split(",") if x]).reshape(dims)
    parts = []
    for d in range(rank):
        if d >= tiles.ndim or tiles.shape[d] == 1 or not mesh.sizes:
            parts.append(None)
            continue
        line = np.moveaxis(tiles, d, 0).reshape(tiles.shape[d], -1)[:, 0]
        coords = [mesh.coords(int(x)) for x in line]
        changing = [i for i in range(len(mesh.sizes)) if len({c[i] for c in coords}) > 1]
        changing.sort(key=lambda i: -len([1 for a, b in zip(coords, coords[1:]) if a[i] != b[i]]))
        names = tuple(mesh.names[i] for i in changing)
        parts.append(None if not names else names[0] if len(names) == 1 else names)
    return PartitionSpec(*parts)


def _layout(spec: PartitionSpec, shape: tuple, mesh: Mesh) -> Layout:
    local, used = [], set()
    for n, p in zip(shape, tuple(spec) + (None,) * (len(shape) - len(spec))):
        axes = () if p is None else (p if isinstance(p, tuple) else (p,))
        used.update(axes)
        local.append(-(-n // mesh.size(axes)) if axes else n)
    rest = tuple(a for a, s in zip(mesh.names, mesh.sizes) if a not in used and s > 1)
    return Layout(spec, tuple(shape), tuple(local), replicated_over=rest)


# ---------------------------------------------------------------- the map

def sharding_map(program: Program, device=None) -> ShardingMap:
    """Compile ``program`` as ``--fusion`` does (once, shared with it) and read its collectives and layouts."""
    made = fusion._scoped(program, device, partitioning=True)
    tokens, text, before = made.tokens, made.text, made.partitioned or ""
    instructions, _, called = made.parsed
    m = re.search(r"num_partitions=(\d+)", text)
    partitions = int(m.group(1)) if m else 1
    mesh = _mesh_of(program, before) or Mesh(("devices",), (partitions,)) if partitions > 1 else Mesh()
    by_name = {ins.name: ins for ins in instructions}
    loops = _in_loop(instructions, called, by_name)
    layout, inputs = _layouts(program, before, tokens, mesh)
    makers = _makers(program, layout, inputs)
    out = []
    for ins in instructions:
        kind = _OPCODES.get(ins.opcode)
        if kind is None:
            continue
        if kind == "collective-permute":
            grp = pairs(ins.attrs)
        else:
            grp = groups(ins.attrs, partitions, mesh)
        axes = axes_of(grp, mesh)
        size = type_bytes(ins.type) if not ins.opcode.endswith("-start") else max(
            (_DTYPE_BYTES[d] * math.prod(s) for d, s in shapes(ins.type)), default=0)
        operand = re.match(r"\s*%([\w.\-]+)", ins.attrs)
        if operand and operand.group(1) in by_name:
            size = max(size, type_bytes(by_name[operand.group(1)].type))
        eid = fusion._eqn_of(ins.op_name, tokens) if ins.op_name else None
        out.append(Collective(kind, eid, axes, size, ins.name, grp, ins.op_name,
                              _case(program, eid, kind, axes, makers), ins.computation in loops,
                              combined(ins.op_name, tokens, eid)))
    return ShardingMap(mesh, out, layout, inputs, partitions, text, before)


_COMBINED = re.compile(r"^(.*?/)?\((.*)\)$")


def combined(op_name: str, tokens: dict, eid: str | None) -> tuple:
    """The equations of a collective XLA combined from several (``jit(f)/(transpose(jvp(e12))/dot_general:jvp(e5)/
    reduce_sum)``: the combiner joins their ``op_name``s with ``:`` in parentheses), ``eid`` first; ``()`` for a
    collective of one equation."""
    m = _COMBINED.match(op_name or "")
    if not m:
        return ()
    found = [fusion._eqn_of((m.group(1) or "") + part, tokens) for part in m.group(2).split(":")]
    eqns = tuple(dict.fromkeys([eid] + [e for e in found if e is not None and e != eid]))
    return eqns if len(eqns) > 1 and eid is not None else ()


def _mesh_of(program: Program, before: str) -> Mesh | None:
    """The program's mesh: its arguments' or its equations' (a ``shard_map``'s ``mesh``), else the one the
    partitioned module names."""
    for a in program.args:
        m = getattr(getattr(a, "sharding", None), "mesh", None)
        if m is not None and getattr(m, "axis_names", None):
            return Mesh(tuple(m.axis_names), tuple(m.devices.shape))
    for e in program.walk():
        m = e.raw.params.get("mesh") if hasattr(e.raw, "params") else None
        if m is not None and getattr(m, "axis_names", None):
            return Mesh(tuple(m.axis_names), tuple(m.axis_sizes))
    return read_mesh(before)


def _in_loop(instructions: list, called: dict, by_name: dict) -> set:
    """The computations that run inside a ``while`` (at any depth)."""
    out = set()
    for comp in {ins.computation for ins in instructions}:
        c, seen = comp, 0
        while c in called and seen < 64:
            caller = by_name.get(called[c][0])
            if caller is None:
                break
            if caller.opcode == "while":
                out.add(comp)
                break
            c, seen = caller.computation, seen + 1
    return out


def _layouts(program: Program, before: str, tokens: dict, mesh: Mesh) -> tuple:
    """``({eqn id: Layout of its first result}, [Layout of each argument])`` read from the partitioner's input:
    for each equation the last instruction of its scope whose type is its first result's (the one that holds
    the result, after any the equation needs on the way), outside fused or applied computations."""
    want = {}
    for e in program.walk():
        for v in e.outvars:
            aval = getattr(v, "aval", None)
            if hasattr(aval, "shape"):
                want[e.id] = tuple(aval.shape)
                break
    found: dict = {}
    inputs: dict = {}
    if before:
        ins_all, entry, called = fusion.parse_hlo(before)
        for ins in ins_all:
            if ins.computation in called and called[ins.computation][1]:
                continue                                   # a reduce's combiner, a fusion's body
            sh = attr(ins.attrs, "sharding")
            if ins.computation == entry and ins.opcode == "parameter":
                k = re.match(r"\s*(\d+)\)", ins.attrs)
                arr = shapes(ins.type)
                if k and arr:
                    inputs[int(k.group(1))] = read_sharding(sh, arr[0][1], mesh) if sh else \
                        _layout(PartitionSpec(*([None] * len(arr[0][1]))), arr[0][1], mesh)
                continue
            eid = fusion._eqn_of(ins.op_name, tokens) if ins.op_name else None
            if eid is None or eid not in want:
                continue
            arr = shapes(ins.type)
            if not arr or arr[0][1] != want[eid] and not ins.type.startswith("("):
                continue
            shape = arr[0][1]
            if sh:
                found[eid] = read_sharding(sh, shape, mesh)
            elif eid not in found or not found[eid].manual:
                found[eid] = _layout(PartitionSpec(*([None] * len(shape))), shape, mesh)
    layout = {e.id: found[e.id] for e in program.walk() if e.id in found}
    args = []
    for i, v in enumerate(program.invars):
        shape = tuple(getattr(v.aval, "shape", ()))
        args.append(inputs.get(i) or _layout(PartitionSpec(*([None] * len(shape))), shape, mesh))
    return layout, args


# ---------------------------------------------------------------- classic causes

def _makers(program: Program, layout: dict, inputs: list) -> dict:
    """``id(var)`` -> the layout of each top-level value: an argument's, or its making equation's first result."""
    out = {id(v): inputs[i] for i, v in enumerate(program.invars) if i < len(inputs)}
    for e in program.eqns:
        if e.outvars and e.id in layout:
            out[id(e.outvars[0])] = layout[e.id]
    return out


def _case(program: Program, eid: str | None, kind: str, axes: tuple, makers: dict) -> str | None:
    """``"contracting"``: an all-reduce of a ``dot_general`` whose contracting dimensions are split over the
    collective's axes; ``"reduction"``: an all-reduce of a reduction over a dimension split over them."""
    if eid is None or kind != "all-reduce" or "/" in eid:
        return None
    eqn = program.eqns[int(eid)]

    def split(k: int, dims) -> bool:
        lay = makers.get(id(eqn.invars[k])) if k < len(eqn.invars) else None
        return lay is not None and any(set(lay.axes(d)) & set(axes) for d in dims)
    if eqn.primitive == "dot_general":
        (lc, rc), _ = eqn.raw.params["dimension_numbers"]
        return "contracting" if split(0, lc) or split(1, rc) else None
    if eqn.primitive.startswith(("reduce_", "argmax", "argmin")) and "axes" in eqn.raw.params:
        return "reduction" if split(0, eqn.raw.params["axes"]) else None
    return None
