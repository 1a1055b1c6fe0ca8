"""The Python calls that tracing inlined, recovered from each equation's user frames: a tree of groups
(``model_loss › block (call 3 of 6) › attention``) that the graph and the table fold a big program by.

Pure data.  Tracing leaves no mark where one call of a function ends and the next call of it from the
same line begins (a loop calling ``block`` six times).  A new call starts where the position inside the
function goes back to where the current call began.  The position is where the running expression ends:
Python evaluates in post-order, so it only grows within one call (and only shrinks in a ``transpose``
scope, whose equations come in reverse order).
"""
from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field

from jaxprlens.model import _jax
from jaxprlens.model.errors import KeyedError
from jaxprlens.model import program as _model
from jaxprlens.model.program import Eqn, Program, Source, Var, in_library, source_of

_OWN = os.path.dirname(os.path.abspath(__file__)) + os.sep      # jaxprlens's own frames (trace, the magic)
PHASES = ("", "forward", "backward")


def phase_of(eqn: Eqn) -> str:
    """``backward`` in a ``transpose(...)`` scope of grad, ``forward`` in a ``jvp(...)`` one, else ``""``."""
    stack = eqn.name_stack
    return "backward" if "transpose(" in stack else "forward" if "jvp(" in stack else ""


@dataclass(eq=False)
class Group:
    """One inlined call: its function, where it was called, and what it holds (groups and equations)."""
    function: str
    phase: str
    site: Source | None          # the caller's line; None for the program itself
    parent: "Group | None" = field(default=None, repr=False)
    children: list = field(default_factory=list, repr=False)    # Group | Eqn, in program order
    call: int = 1                # call ``call`` of ``calls`` from this site under one parent
    calls: int = 1
    id: str = ""                 # ``model_loss/block.3/attention``; ``""`` for the program
    tree: "CallTree | None" = field(default=None, repr=False)
    key: tuple = field(default=(), repr=False)
    first: tuple = (0, 0)        # position (end line, column) inside the function where this call began
    last: tuple = (0, 0)
    name: str = ""               # what the user wrote: ``blocks[0].attn · MultiHeadAttention``, ``optimizer.update``
    qualname: str = field(default="", repr=False)    # ``MultiHeadAttention.__call__``
    callee: str = field(default="", repr=False)      # the call's expression before its arguments: ``self.attn``
    params: tuple = field(default=(), repr=False)    # path of the parameters it reads, as tokens
    kind: str = ""               # "phase": the traced function re-entered for a phase of grad; "update": after it

    @functools.cached_property
    def memo(self) -> dict:
        """What views derive once per call (its row's words in a language, ...): made on first use."""
        return {}

    @functools.cached_property
    def groups(self) -> list:
        """The calls it makes, in order (read once its children are complete: after the tree is built)."""
        return [c for c in self.children if isinstance(c, Group)]

    @property
    def own(self) -> list:
        """Equations made directly by this call's function, not by a function it called."""
        return [c for c in self.children if isinstance(c, Eqn)]

    @functools.cached_property
    def eqns(self) -> list:
        """Every equation of the call, in program order."""
        out = []
        for c in self.children:
            out.extend(c.eqns if isinstance(c, Group) else [c])
        return out

    @functools.cached_property
    def size(self) -> int:
        """Equations in all, nested sub-jaxprs included (a call inside counts its own, once)."""
        n = 0
        for c in self.children:
            if isinstance(c, Group):
                n += c.size
            else:
                n += 1
                for s in c.subs:
                    n += _model.count_eqns(s.program)
        return n

    @functools.cached_property
    def depth(self) -> int:
        return 0 if self.parent is None else self.parent.depth + 1

    def adopt(self, children: list) -> None:
        """Make ``children`` this group's (a tree built top down, as the folds are): each call among them gets
        this group as its parent, and what was derived from the old children and parents is made again."""
        self.children = children
        self.__dict__.pop("groups", None)
        for c in children:
            if isinstance(c, Group):
                c.parent = self
                c.__dict__.pop("depth", None)

    def walk(self) -> list:
        """This group and every group below it, depth first."""
        out, todo = [], [self]
        while todo:
            g = todo.pop()
            out.append(g)
            todo.extend(reversed(g.groups))
        return out

    @functools.cached_property
    def _crossing(self) -> tuple:
        return self.tree.crossing(self)

    @property
    def inputs(self) -> list:
        """Vars used inside and defined outside (program inputs and constants too), first use first."""
        return self._crossing[0]

    @property
    def outputs(self) -> list:
        """Vars defined inside and used outside (or returned by the program), in definition order."""
        return self._crossing[1]

    def crumbs(self) -> list:
        """The groups from the program down to this one."""
        return ([] if self.parent is None else self.parent.crumbs()) + [self]


class CallTree:
    """The call tree of one program (top level or a sub-jaxpr): ``root`` is the program itself."""

    def __init__(self, program: Program):
        self.program = program
        self.phases: set = set()
        self.root = Group(_root_name(program), "", None, tree=self)
        self._build()
        self.every = self.root.walk()        # every group, the program first, depth first
        self.by_id = {g.id: g for g in self.every}
        self._index = {id(e): i for i, e in enumerate(program.eqns)}
        _name_all(self)

    # ------------------------------------------------------------ building
    def _build(self):
        eqns = self.program.eqns
        outer: dict = {}             # id(frames) -> the chain, outermost first (equal stacks share frames)
        chains = []
        for e in eqns:
            frames = _frames(e)
            chain = outer.get(id(frames))
            if chain is None:
                chain = outer[id(frames)] = (frames, _chain(frames))
            chains.append(chain[1])
        cut = _common(chains)
        sources: dict = {}
        stack = [self.root]
        last = None                  # (chain, phase) of the equation before
        phases: dict = {}            # id(name stack) -> phase: equations of one scope share their stack
        for e, chain in zip(eqns, chains):
            frames = chain[cut:]
            if not frames:                 # made inside JAX with no user frame: where the trace was
                stack[-1].children.append(e)
                continue
            scope = _jax.name_stack_object(e.raw)
            phase = phases.get(id(scope))
            if phase is None:
                phase = phases[id(scope)] = phase_of(e)
            same = 0                 # outer frames equal to the equation before's: the calls it was in
            if last is not None and last[1] == phase:
                if last[0] is chain:
                    stack[-1].children.append(e)      # the same stack as the equation before: the same call
                    continue
                before = last[0][cut:]
                n = min(len(frames), len(before))
                while same < n and frames[same] == before[same]:
                    same += 1
            last = (chain, phase)
            self.phases.add(phase)
            back = phase == "backward"
            for i in range(same, len(frames)):
                file, line, function, end, qualname = frames[i][:5]
                caller = frames[i][6]
                key = (phase, file, function, caller[:2] if caller else None)
                cur = stack[i + 1] if len(stack) > i + 1 else None
                at = end       # where the running expression ends: Python evaluates in post-order, so
                               # this never goes back within one call, even along one line
                # the traced function itself is called once: only the calls it makes can repeat
                if cur is not None and cur.key == key and not (i and _restarts(cur, at, back)):
                    cur.last = at
                    continue
                del stack[i + 1:]
                # a library calling back into the user's code (``nnx.value_and_grad``'s wrapper calling
                # ``loss_fn``): the library's line says nothing the call's own name does not
                site = None if caller is None or (in_library(caller[0]) and not in_library(file)) \
                    else _source(caller, sources)
                g = Group(function, phase, site, parent=stack[i], tree=self, key=key, first=at, last=at,
                          qualname=qualname, callee=_callee(caller) if caller else "")
                stack[i].children.append(g)
                stack.append(g)
            del stack[len(frames) + 1:]
            stack[-1].children.append(e)
        self._number(self.root)

    def _number(self, g: Group):
        seen: dict = {}
        for c in g.groups:                # calls of one function under one caller, from any line
            seen.setdefault((c.phase, c.function), []).append(c)
        for same in seen.values():      # backward calls come last first: number them as their forward
            for i, c in enumerate(same, 1):
                c.call, c.calls = (len(same) + 1 - i if c.phase == "backward" else i), len(same)
        for c in g.groups:
            twin = c.phase == "forward" and any(o.function == c.function and not o.phase for o in g.groups)
            seg = (c.function + (f".{c.call}" if c.calls > 1 else "")
                   + ("~bwd" if c.phase == "backward" else "~fwd" if twin else ""))
            c.id = f"{g.id}/{seg}" if g.id else seg
            self._number(c)

    # ------------------------------------------------------------ crossing values
    @functools.cached_property
    def _uses(self) -> tuple:
        """``(def_at, uses)``: where each Var is made (eqn position; -1 for inputs) and used."""
        p = self.program
        def_at = {v: -1 for v in list(p.invars) + list(p.constvars)}
        uses: dict = {}
        for i, e in enumerate(p.eqns):
            for a in e.invars:
                if isinstance(a, Var):
                    uses.setdefault(a, []).append(i)
            for v in e.outvars:
                def_at[v] = i
        end = len(p.eqns)
        for a in p.outvars:
            if isinstance(a, Var):
                uses.setdefault(a, []).append(end)     # returned: used after the last equation
        return def_at, uses

    def crossing(self, g: Group) -> tuple:
        """``(inputs, outputs)`` of a group: the vars that cross its border."""
        def_at, uses = self._uses
        lo, hi = self.span(g)
        ins, outs, seen = [], [], set()

        for e in g.eqns:          # one pass over its equations, not a crossing made for every call inside
            for a in e.invars:
                if isinstance(a, Var) and a not in seen and def_at.get(a, -1) < lo:
                    seen.add(a)
                    ins.append(a)
            for v in e.outvars:
                used = uses.get(v)
                if used and used[-1] > hi:             # uses are in program order: the last one decides
                    outs.append(v)
        return ins, outs

    def span(self, g: Group) -> tuple:
        """``(first, last)`` position of the group's equations: a call's equations are consecutive (the
        tree is built in program order and a call, once left, is never entered again)."""
        if not g.eqns:
            return (0, -1)
        return self._index[id(g.eqns[0])], self._index[id(g.eqns[-1])]

    def find(self, gid: str) -> Group:
        try:
            return self.by_id[str(gid).strip("/ ")]
        except KeyError:
            shown = [k for k in self.by_id if k][:12]
            if shown:
                raise KeyedError("group_unknown", group=repr(gid),
                                 shown=str(shown + (['...'] if len(self.by_id) > 13 else []))) from None
            raise KeyedError("group_none", group=repr(gid)) from None

    def maker(self, v: Var) -> Eqn | None:
        """The equation that defines ``v`` (None for inputs and constants)."""
        i = self._uses[0].get(v, -1)
        return self.program.eqns[i] if i >= 0 else None

    def first_use(self, v: Var, g: Group) -> Eqn | None:
        """The first equation outside ``g`` that uses ``v`` (None: only the program's results do)."""
        lo, hi = self.span(g)
        users = [u for u in self._uses[1].get(v, ()) if not lo <= u <= hi and u < len(self.program.eqns)]
        return self.program.eqns[users[0]] if users else None

    def group_of(self, eqn: Eqn) -> Group:
        """The innermost group holding a top-level equation."""
        return self._owner[id(eqn)]

    @functools.cached_property
    def _owner(self) -> dict:
        return {id(c): g for g in self.every for c in g.children if isinstance(c, Eqn)}


def _restarts(g: Group, at: tuple, back: bool) -> bool:
    """A new call of the same function from the same line: the position went back to where this one began."""
    if back:
        return at > g.last and at >= g.first
    return at < g.last and at <= g.first


def _chain(frames: tuple) -> tuple:
    """The frames a call tree nests by, outermost first: the user's own, and of an installed library's only
    its entry (``optimizer.update``, called from the user's line, or optax's, called from flax) and its
    modules' calls (``Linear``); the wrappers between (flax's ``grad_wrapper``) are left out.  Each frame
    carries its real caller last: ``(file, line, function, end, qualname, start, caller)``."""
    chain, outer, caller, in_module = [], None, None, False   # outer: the frame before's library (None:
    for f in reversed(frames):                                 # the user's own code)
        if f[0].startswith(_OWN):
            continue
        lib = _package(f[0]) if in_library(f[0]) else None
        # a library's module, not its private wrappers (equinox's ``_ValueAndGradWrapper`` is a Module too)
        private = lib is not None and _class_of(f[4]).startswith("_")    # equinox's _VmapWrapper
        module = lib is not None and not private and bool(_is_module(f[0], f[4]))
        # kept: the user's code, a call into a library from elsewhere (optax's chain, entered from flax), a
        # module's call, and what a module's own code calls (``dot_product_attention``)
        if lib is None or lib != outer or module or (in_module and not private):
            chain.append(f + (caller,))     # with the frame that really called it (a wrapper, left out)
        outer, caller, in_module = lib, f, module
    return tuple(chain)


@functools.lru_cache(maxsize=1024)
def _package(file: str) -> str:
    """The installed package a library file belongs to (``flax``, ``optax``)."""
    parts = file.replace(os.sep, "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            i = parts.index(marker)
            return parts[i + 1] if i + 1 < len(parts) else ""
    return os.path.dirname(file)


def _common(chains: list) -> int:
    """Frames shared by every equation's chain (the caller of the traced function), leaving each at least
    its innermost frame."""
    present = [c for c in chains if c]
    if not present:
        return 0
    n = min(len(c) for c in present) - 1
    first = present[0]
    for c in present[1:]:
        k = 0
        while k < n and c[k] == first[k]:
            k += 1
        n = k
    return max(n, 0)


def _source(frame: tuple, cache: dict) -> Source:
    src = cache.get(frame[:3])
    if src is None:
        import linecache
        file, line, function = frame[:3]
        src = cache[frame[:3]] = source_of(file, line, function)
    return src


def _root_name(p: Program) -> str:
    return p.title or getattr(p.fn, "__name__", None) or "program"


# ---------------------------------------------------------------- names: what the user wrote
# A module's call (flax.nnx, flax.linen, equinox) is named by its attribute path and class:
# ``blocks[0].attn · MultiHeadAttention``.  The path comes from the parameters the call reads (the pytree
# paths of the program's inputs, so it is the model's own structure: ``blocks[0]``, not the loop's ``blk``),
# relative to the module call around it; without parameters, from the call's own text (``self.attn``).

_TOKEN = re.compile(r"\.(\w+)|\[(-?\d+)\]|\[(['\"])(.*?)\3\]|^(\w+)")


def _frames(e: Eqn) -> tuple:
    """``(file, line, function, end, qualname, start)`` of each user frame, innermost first."""
    return _jax.user_frames_named(_jax.traceback(e.raw))


@functools.lru_cache(maxsize=4096)
def _callee_at(file: str, start: tuple, end: tuple) -> str:
    """The function part of the call expression between ``start`` and ``end`` (``self.attn`` of
    ``self.attn(self.ln1(x), mask=mask)``), or ``""``."""
    import ast
    import linecache
    (l0, c0), (l1, c1) = start, end
    if not l0 or l1 < l0 or l1 - l0 > 40 or c0 is None or c1 is None or c0 < 0 or c1 < 0:
        return ""
    lines = [linecache.getline(file, n).encode() for n in range(l0, l1 + 1)]
    lines[-1] = lines[-1][:c1]                  # columns count UTF-8 bytes
    lines[0] = lines[0][c0:]
    try:
        node = ast.parse(b"".join(lines).decode().strip(), mode="eval").body
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return ""
    return ast.unparse(node.func) if isinstance(node, ast.Call) else ""


def _callee(caller: tuple) -> str:
    return _callee_at(caller[0], caller[5], caller[3]) if len(caller) > 5 else ""


@functools.lru_cache(maxsize=4096)
def path_tokens(path: str) -> tuple:
    """``state[0]['hidden']['kernel'].value`` → ``("state", 0, "hidden", "kernel", "value")`` (a model's paths
    are read by its table's signature and by its calls' names, again on each re-run: kept)."""
    out, i = [], 0
    while i < len(path):
        m = _TOKEN.match(path, i)
        if m is None or m.end() == i:
            return tuple(out)
        attr, index, _, key, head = m.groups()
        out.append(int(index) if index is not None else attr or key or head)
        i = m.end()
    return tuple(out)


def _prefix(paths: list) -> tuple:
    """The path of the module that holds ``paths`` (parameter leaves): their common prefix; one leaf
    alone is a parameter of its module (``ln1.scale`` → ``ln1``)."""
    paths = [p[:-1] if p and p[-1] == "value" else p for p in set(paths)]      # nnx's Variable.value
    if not paths:
        return ()
    if len(paths) == 1:
        return paths[0][:-1]
    first, n = paths[0], min(len(p) for p in paths)
    k = 0
    while k < n and all(p[k] == first[k] for p in paths):
        k += 1
    return first[:k]


def _path_text(tokens: tuple) -> str:
    out = ""
    for x in tokens:
        out += f"[{x}]" if isinstance(x, int) else (f".{x}" if out else str(x))
    return out


def _class_of(qualname: str) -> str:
    """``Block`` of ``_block.<locals>.Block.__call__``; ``""`` for a plain function."""
    parts = qualname.split(".")
    return parts[-2] if len(parts) > 1 and not parts[-2].startswith("<") else ""


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def _name_all(tree: "CallTree") -> None:
    """Give every group its ``name`` (and ``kind``), then number calls of one name under one caller."""
    root, every = tree.root, tree.every
    root.name = root.function
    paths = {v: k for v in tree.program.invars if len(k := path_tokens(v.path or "")) > 1}   # leaves in a tree
    rel: dict = {}            # module group -> its path tokens relative to the outermost module call
    for g in every:
        if g.parent is None:
            continue
        cls = _class_of(g.qualname)
        # the user's call into a library (``optimizer.update``, ``nnx.value_and_grad(loss_fn)``): named as
        # the user wrote it, not by the library's wrapper it entered (``_check_grads_wrapper``)
        entry = bool(g.callee) and in_library(g.key[1]) and not (g.key[3] and in_library(g.key[3][0]))
        callee = g.callee.split("(", 1)[0] + "(…)" if "(" in g.callee else g.callee   # nnx.value_and_grad(…)
        if not cls or (entry and cls.startswith("_")):       # equinox's _ValueAndGradWrapper: not the model
            g.name = callee if entry else g.function
            continue
        if paths:
            g.params = _prefix([paths[v] for v in g.inputs if v in paths])
        module = _is_module(g.key[1], g.qualname)
        if module is None:                      # a class defined in a function: a module if it reads any
            module = bool(g.params) or g.callee.startswith("self.")
        g.name = _method_name(g, cls, rel) if module else callee if entry else f"{cls}.{g.function}"
    forward = {g.id.replace("~fwd", ""): g for g in every if g.phase == "forward"}
    for g in every:     # a backward call reads fewer parameters: named as the forward call it reverses
        twin = forward.get(g.id.replace("~bwd", "")) if g.phase == "backward" else None
        if twin is not None and twin.name != twin.function and " · " not in g.name and "." not in g.name:
            g.name = twin.name
    backward = {g.function for g in root.groups if g.phase == "backward"}
    for g in root.groups:     # the traced function re-entered for each phase of grad, and what follows
        if g.function == root.function and g.phase:
            g.kind = "phase"
        elif g.function in backward and not g.phase:
            g.kind = "update"
    for g in every:
        seen: dict = {}
        for c in g.groups:
            seen.setdefault((c.phase, c.name), []).append(c)
        for same in seen.values():
            for i, c in enumerate(same, 1):
                c.call, c.calls = (len(same) + 1 - i if c.phase == "backward" else i), len(same)


_MODULE_BASES = ("flax.", "equinox.", "haiku.", "penzai.")


def _is_module(file: str, qualname: str) -> bool | None:
    """Whether the class of method ``qualname`` defined in ``file`` is a model library's module (its
    classes derive from a ``Module`` of flax, equinox, ...); None when the class cannot be looked up."""
    cls = _lookup(file, qualname.rsplit(".", 1)[0])
    if cls is None:
        return None
    return any(b.__name__ == "Module" and b.__module__.startswith(_MODULE_BASES) for b in getattr(cls, "__mro__", ()))


@functools.lru_cache(maxsize=1024)
def _lookup(file: str, qualname: str):
    if "<" in qualname:
        return None
    module = next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == file), None)
    for part in qualname.split(".") if module is not None else ():
        module = getattr(module, part, None)
    return module if isinstance(module, type) else None


_FOR = (r"^\s*for\s+(?:\w+\s*,\s*)?{name}\s+in\s+(?:enumerate\()?self\.(\w+)(?:\[(-?\d*):[^\]]*\])?\)?"
        r"\s*:")


def _looped(g: Group) -> tuple | None:
    """``("layers", 2)`` for the third call of ``layer`` in ``for layer in self.layers[...]:`` just above
    the call's line (equinox's MLP); None when the call is not made by such a loop."""
    import linecache
    caller = g.key[3]
    if not caller:
        return None
    file, line = caller
    pattern = re.compile(_FOR.format(name=re.escape(g.callee)))
    for n in range(line - 1, max(0, line - 12), -1):
        m = pattern.match(linecache.getline(file, n))
        if m:
            same = [c for c in g.parent.groups if c.key == g.key]
            i = same.index(g)
            i = len(same) - 1 - i if g.phase == "backward" else i      # the backward pass runs them last first
            return (m.group(1), int(m.group(2) or 0) + i)
    return None


def _method_name(g: Group, cls: str, rel: dict) -> str:
    method = g.qualname.rsplit(".", 1)[-1]
    if method != "__call__":       # ``optimizer.update`` as written; a wrapper's ``f(...)`` says nothing
        return g.callee if g.callee.endswith("." + method) and _DOTTED.match(g.callee) else f"{cls}.{method}"
    outer = next((a for a in g.crumbs()[-2::-1] if a in rel), None)
    path = None
    # what the user wrote first (``self.layers[-1]``, ``for layer in self.layers: layer(x)``), then the
    # parameters the call reads (a model whose one attribute holds them all says nothing by its params)
    looped = _looped(g) if outer is not None and g.callee.isidentifier() else None
    if outer is not None and g.callee.startswith("self.") and path_tokens(g.callee[5:]):
        path = rel[outer] + path_tokens(g.callee[5:])          # ``self.attn``, ``self.layers[-1]``
    elif looped is not None:
        path = rel[outer] + looped
    elif outer is not None and g.params and g.params[:len(outer.params)] == outer.params and outer.params:
        path = rel[outer] + g.params[len(outer.params):]
    elif outer is None:
        rel[g] = ()            # the model itself: its parts are named from here
        callee = g.callee.removesuffix(".apply")      # flax.linen's ``model.apply(params, x)``
        return f"{callee} · {cls}" if _DOTTED.match(callee) else cls
    if path is None:
        return cls
    rel[g] = path
    return f"{_path_text(path)} · {cls}" if path else cls


def call_tree(program: Program) -> CallTree:
    """The call tree of ``program`` (built once per program, kept in its ``memo``: a weak-keyed cache would
    never let go, since the tree holds its program)."""
    tree = program.memo.get("calls.call_tree")
    if tree is None:
        tree = program.memo["calls.call_tree"] = CallTree(program)
    return tree
