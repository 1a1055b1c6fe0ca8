"""The Python calls that tracing inlined, recovered from each equation's user frames: a tree of groups
(``model_loss › block (call 3 of 6) › attention``) that the graph and the table fold a big program by.

Pure data.  Tracing leaves no mark where one call of a function ends and the next call of it from the
same line begins (a loop calling ``block`` six times).  A new call starts where the position inside the
function goes back to where the current call began.  The position is where the running expression ends:
Python evaluates in post-order, so it only grows within one call (and only shrinks in a ``transpose``
scope, whose equations come in reverse order).  Each call is then named as the user wrote it (``callnames.py``).
"""
from __future__ import annotations

import functools
import inspect
import os
from dataclasses import dataclass, field, replace

from jaxprlens.model import _jax
from jaxprlens.model.callnames import callee_of, class_of, is_module, name_calls
from jaxprlens.model.errors import KeyedError
from jaxprlens.model.loops import Loops
from jaxprlens.model import program as _model
from jaxprlens.model.program import Eqn, Program, Var
from jaxprlens.model.marimocells import notebook
from jaxprlens.model.sources import Source, in_library, library_of, source_of

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
    parent: Group | None = field(default=None, repr=False)
    children: list = field(default_factory=list, repr=False)    # Group | Eqn, in program order
    call: int = 1                # call ``call`` of ``calls`` from this site under one parent
    calls: int = 1
    id: str = ""                 # ``model_loss/block.3/attention``; ``""`` for the program
    tree: CallTree | None = field(default=None, repr=False)
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
        name_calls(self)

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
        cells = notebook()           # a marimo notebook's cells (None elsewhere): a call site names its cell
        loops = Loops()              # a position gone back inside one loop: the next iteration, not a new call
        root = _code_of(self.program.fn)     # (file, qualname) of the traced function, if known
        stack = [self.root]
        last = None                  # (chain, phase) of the equation before
        phases: dict = {}            # id(name stack) -> phase: equations of one scope share their stack
        remat = False                # a remat's body, computed again for the backward pass: seen
        helpers: list = []           # calls of a library's plain functions from the library's own code
        for k, (e, chain) in enumerate(zip(eqns, chains)):
            frames = chain[cut:]
            if not frames:                 # made inside JAX with no user frame: where the trace was
                stack[-1].children.append(e)
                continue
            scope = _jax.name_stack_object(e.raw)
            phase = phases.get(id(scope))
            if phase is None:
                phase = phases[id(scope)] = phase_of(e) or (
                    "remat" if "rematted_computation" in _jax.name_stack(e.raw) else "")
            if phase == "remat":       # a remat's body under grad: the forward it computes again, then
                phase, remat = "forward", True      # the backward pass, which has no scope of its own
            elif remat and not phase:
                phase = "backward"
            same = 0                 # outer frames equal to the equation before's: the calls it was in
            if last is not None and last[1] == phase:
                if last[0] is chain:
                    stack[-1].children.append(e)      # the same stack as the equation before: the same call
                    continue
                before = last[0][cut:]
                n = min(len(frames), len(before))
                while same < n and frames[same] == before[same]:
                    same += 1
            last, before = (chain, phase), last
            self.phases.add(phase)
            back = phase == "backward"
            held = None
            for i in range(same, len(frames)):
                file, line, function, end, qualname = frames[i][:5]
                caller = frames[i][6]
                key = (phase, file, function, caller[:2] if caller else None)
                cur = stack[i + 1] if len(stack) > i + 1 else None
                at = end       # where the running expression ends: Python evaluates in post-order, so
                               # this never goes back within one call, even along one line
                # the traced function itself is called once: only the calls it makes can repeat (the first
                # frame left is one of those when the traced function's own frame was shared by all, and cut)
                once = qualname == root[1] and file == root[0] if root else not i
                if cur is not None and cur.key == key:
                    if once or not _restarts(cur, at, back) or loops.same_loop(file, at, cur.last):
                        cur.last = at
                        continue
                    # not a new call either: a tuple unpacked after the call that made it (``a, b =
                    # split(k)``), and what grad computes for the backward pass once the forward is done
                    # (a residual's zeros, traced with the frames of the call that asked for it, after the
                    # whole forward pass): kept in this call, the equations after it going on where they were
                    if at != cur.first and loops.unpacks(file, frames[i][5], at):
                        continue
                    if phase == "forward" and self._left_over(k):
                        held = cur
                        break
                del stack[i + 1:]
                # a library calling back into the user's code (``nnx.value_and_grad``'s wrapper calling
                # ``loss_fn``): the library's line says nothing the call's own name does not
                site = None if caller is None or (in_library(caller[0]) and not in_library(file)) \
                    else _source(caller, sources, cells)
                if site is not None and in_library(caller[0]):
                    # a call a library's code made (penzai's ``Sequential`` calling its layers): the user's
                    # line that led to it first, the library's line after it, as an equation's source says
                    mine = next((f[6] for f in reversed(frames[:i]) if f[6] and not in_library(f[6][0])), None)
                    if mine is not None:
                        site = replace(_source(mine, sources, cells), via=site)
                g = Group(function, phase, site, parent=stack[i], tree=self, key=key, first=at, last=at,
                          qualname=qualname, callee=callee_of(caller) if caller else "")
                stack[i].children.append(g)
                stack.append(g)
                if caller is not None and not class_of(qualname) and library_of(file) \
                        and library_of(file) == library_of(caller[0]):
                    helpers.append(g)       # a library's plain function its own code called
            if held is not None:
                held.children.append(e)
                last = before
                continue
            del stack[len(frames) + 1:]
            stack[-1].children.append(e)
        for g in helpers:
            # a library's helper making one equation (penzai's ``pz.nx.arange`` in its transformer's
            # ``__call__``): its equation's row says all the call's would, under a name the user never wrote
            if len(g.children) == 1 and isinstance(g.children[0], Eqn) and g.parent is not None:
                siblings = g.parent.children
                siblings[siblings.index(g)] = g.children[0]
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

    def _left_over(self, k: int) -> bool:
        """Whether equation ``k`` and the forward ones after it, up to the backward pass, only feed that pass
        (or nothing): what grad adds once the forward pass is done, not a call of the user's."""
        uses, eqns = self._uses[1], self.program.eqns
        for e in eqns[k:]:
            if phase_of(e) != "forward":
                break
            if not all(u < len(eqns) and phase_of(eqns[u]) == "backward" for v in e.outvars
                       for u in uses.get(v, ())):
                return False
        return True

    # ------------------------------------------------------------ crossing values
    @functools.cached_property
    def _uses(self) -> tuple:
        """``(def_at, uses)``: where each Var is made (eqn position; -1 for inputs) and used."""
        p = self.program
        def_at = dict.fromkeys(list(p.invars) + list(p.constvars), -1)
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
    modules' calls (``Linear``); the wrappers between (flax's ``grad_wrapper``, haiku's around each module's
    method) are left out.  Each frame carries its real caller last: ``(file, line, function, end, qualname,
    start, caller)``; a module's method entered through its library's wrapper carries the line that called
    the wrapper (``block(x)``)."""
    chain, outer, caller, in_module = [], None, None, False   # outer: the frame before's library (None:
    wrapped = None            # where the library frames entered from a user's or a module's frame begin
    named = False             # a frame of the user's or a module's call is kept
    for f in reversed(frames):                                 # the user's own code)
        if f[0].startswith(_OWN):
            continue
        lib = library_of(f[0]) or None
        cls = class_of(f[4])
        # a library's module, not its private wrappers (equinox's ``_ValueAndGradWrapper`` is a Module too)
        private = lib is not None and cls.startswith("_")    # equinox's _VmapWrapper
        module = lib is not None and not private and bool(is_module(f[0], f[4]))
        if wrapped is not None and cls and not cls.startswith("_") and (
                module or (lib is None and is_module(f[0], f[4]) is not False)):
            # a module's method entered through its library's wrapper (haiku's, linen's): the call the user
            # wrote is the wrapper's, and the wrapper itself says nothing
            caller = chain[wrapped][6]
            del chain[wrapped:]
        # kept: the user's code, a call into a library from elsewhere (optax's chain, entered from flax), a
        # module's call, and what a module's own code calls by name (``dot_product_attention``; a closure the
        # library made, penzai's ``nmap`` wrapper, is not)
        if lib is None or lib != outer or module or (in_module and not private and "<locals>" not in f[4]):
            if lib is not None and lib != outer and not module and (outer is None or in_module) \
                    and lib in _MODELS:
                wrapped = len(chain)
            elif lib is None or module:
                wrapped = None
            chain.append(f + (caller,))     # with the frame that really called it (a wrapper, left out)
            named = named or lib is None or module
        outer, caller, in_module = lib, f, module
    # a library's frames alone (what flax's ``ScanFn`` traced for the backward pass with none of the
    # user's frames on the stack) name no call the user made
    return tuple(chain) if named else ()


_MODELS = frozenset({"flax", "haiku", "equinox", "penzai"})     # whose wrappers call a module's method


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


def _source(frame: tuple, cache: dict, cells) -> Source:
    src = cache.get(frame[:3])
    if src is None:
        file, line, function = frame[:3]
        src = cache[frame[:3]] = source_of(file, line, function, notebook=cells)
    return src


def _root_name(p: Program) -> str:
    return p.title or getattr(p.fn, "__name__", None) or "program"


def _code_of(fn) -> tuple | None:
    """``(file, qualified name)`` of a traced function's code, through wrappers (``jax.jit``, ``nnx.jit``)."""
    try:
        code = inspect.unwrap(fn).__code__
    except (AttributeError, TypeError, ValueError):
        return None
    return code.co_filename, getattr(code, "co_qualname", code.co_name)


def _frames(e: Eqn) -> tuple:
    """``(file, line, function, end, qualname, start)`` of each user frame, innermost first."""
    return _jax.user_frames_named(_jax.traceback(e.raw))


def call_tree(program: Program) -> CallTree:
    """The call tree of ``program`` (built once per program, kept in its ``memo``: a weak-keyed cache would
    never let go, since the tree holds its program)."""
    tree = program.memo.get("calls.call_tree")
    if tree is None:
        tree = program.memo["calls.call_tree"] = CallTree(program)
    return tree
