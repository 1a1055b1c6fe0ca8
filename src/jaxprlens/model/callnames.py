"""Calls named as the user wrote them: a module's call (flax.nnx, flax.linen, equinox) by its attribute
path and class, ``blocks[0].attn · MultiHeadAttention``; a call into a library as written,
``optimizer.update``.  The path comes from the parameters the call reads (the pytree paths of the program's
inputs, so it is the model's own structure: ``blocks[0]``, not the loop's ``blk``), relative to the module
call around it; without parameters, from the call's own text (``self.attn``).

Pure data: reads the groups of a call tree (``calls.py``, which calls ``name_calls`` once built; this module
imports it not) and the user's source lines.
"""
from __future__ import annotations

import functools
import re
import sys

from jaxprlens.model.paths import module_prefix, path_tokens, tokens_text
from jaxprlens.model.sources import in_library


@functools.lru_cache(maxsize=4096)
def callee_at(file: str, start: tuple, end: tuple) -> str:
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


def callee_of(caller: tuple) -> str:
    return callee_at(caller[0], caller[5], caller[3]) if len(caller) > 5 else ""


def class_of(qualname: str) -> str:
    """``Block`` of ``_block.<locals>.Block.__call__``; ``""`` for a plain function."""
    parts = qualname.split(".")
    return parts[-2] if len(parts) > 1 and not parts[-2].startswith("<") else ""


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


def name_calls(tree) -> None:
    """Give every group of ``tree`` (a ``calls.CallTree``, named as it is built) its ``name`` (and ``kind``),
    then number calls of one name under one caller."""
    root, every = tree.root, tree.every
    root.name = root.function
    paths = {v: k for v in tree.program.invars if len(k := path_tokens(v.path or "")) > 1}   # leaves in a tree
    rel: dict = {}            # module group -> its path tokens relative to the outermost module call
    for g in every:
        if g.parent is None:
            continue
        cls = class_of(g.qualname)
        # the user's call into a library (``optimizer.update``, ``nnx.value_and_grad(loss_fn)``): named as
        # the user wrote it, not by the library's wrapper it entered (``_check_grads_wrapper``)
        entry = bool(g.callee) and in_library(g.key[1]) and not (g.key[3] and in_library(g.key[3][0]))
        callee = g.callee.split("(", 1)[0] + "(…)" if "(" in g.callee else g.callee   # nnx.value_and_grad(…)
        if not cls or (entry and cls.startswith("_")):       # equinox's _ValueAndGradWrapper: not the model
            g.name = callee if entry else g.function
            continue
        if paths:
            g.params = module_prefix([paths[v] for v in g.inputs if v in paths])
        module = is_module(g.key[1], g.qualname)
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


def is_module(file: str, qualname: str) -> bool | None:
    """Whether the class of method ``qualname`` defined in ``file`` is a model library's module (its
    classes derive from a ``Module`` of flax, equinox, haiku, or penzai's ``Layer``); None when the class
    cannot be looked up."""
    cls = _lookup(file, qualname.rsplit(".", 1)[0])
    if cls is None:
        return None
    return any(b.__name__ in ("Module", "Layer") and b.__module__.startswith(_MODULE_BASES)
               for b in getattr(cls, "__mro__", ()))


@functools.lru_cache(maxsize=1024)
def _lookup(file: str, qualname: str):
    if "<" in qualname:
        return None
    module = next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == file), None)
    for part in qualname.split(".") if module is not None else ():
        module = getattr(module, part, None)
    return module if isinstance(module, type) else None


_FOR = (r"^\s*for\s+(?:\w+\s*,\s*)?{name}\s+in\s+(?:enumerate\()?((?:self\.)?\w+)(?:\[(-?\d*):[^\]]*\])?\)?"
        r"\s*:")


def _looped(g) -> tuple | None:
    """``("layers", 2)`` for the third call of ``layer`` in ``for layer in self.layers[...]:`` just above
    the call's line (equinox's MLP; ``for block in blocks:`` over a list of haiku modules); None when the
    call is not made by such a loop."""
    import linecache
    caller = g.key[3]
    if not caller:
        return None
    file, line = caller
    pattern = re.compile(_FOR.format(name=re.escape(g.callee)))
    for n in range(line - 1, max(0, line - 12), -1):
        m = pattern.match(linecache.getline(file, n))
        if m:
            same = [c for c in g.parent.groups if c.key[0] == g.key[0] and c.key[3] == g.key[3]]   # any class
            i = same.index(g)
            i = len(same) - 1 - i if g.phase == "backward" else i      # the backward pass runs them last first
            return (m.group(1).removeprefix("self."), int(m.group(2) or 0) + i)
    return None


def _method_name(g, cls: str, rel: dict) -> str:
    method = g.qualname.rsplit(".", 1)[-1]
    if method != "__call__":       # ``optimizer.update`` as written; a wrapper's ``f(...)`` says nothing
        return g.callee if g.callee.endswith("." + method) and _DOTTED.match(g.callee) else f"{cls}.{method}"
    outer = next((a for a in g.crumbs()[-2::-1] if a in rel), None)
    path = None
    # what the user wrote first (``self.layers[-1]``, ``for layer in self.layers: layer(x)``), then the
    # parameters the call reads (a model whose one attribute holds them all says nothing by its params)
    looped = _looped(g) if g.callee.isidentifier() else None
    if outer is not None and g.callee.startswith("self.") and path_tokens(g.callee[5:]):
        path = rel[outer] + path_tokens(g.callee[5:])          # ``self.attn``, ``self.layers[-1]``
    elif looped is not None and outer is not None:
        path = rel[outer] + looped
    elif outer is not None and g.params and g.params[:len(outer.params)] == outer.params and outer.params:
        path = rel[outer] + g.params[len(outer.params):]
    elif outer is None:
        rel[g] = ()            # the model itself: its parts are named from here
        if looped is not None:                  # ``for block in blocks: x = block(x)``
            return f"{tokens_text(looped)} · {cls}"
        callee = g.callee.removesuffix(".apply")      # flax.linen's ``model.apply(params, x)``
        return f"{callee} · {cls}" if _DOTTED.match(callee) else cls
    if path is None:
        return cls
    rel[g] = path
    return f"{tokens_text(path)} · {cls}" if path else cls
