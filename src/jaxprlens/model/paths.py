"""Pytree paths as the user writes them, read as tokens: ``state[0]['hidden']['kernel'].value`` is
``("state", 0, "hidden", "kernel", "value")``.  A model's parameters are named by these paths (the program's
inputs), so the calls that read them are named by their common prefix (``callnames.py``).

Pure data: no JAX.
"""
from __future__ import annotations

import functools
import re

_TOKEN = re.compile(r"\.(\w+)|\[(-?\d+)\]|\[(['\"])(.*?)\3\]|^(\w+)")


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


def module_prefix(paths: list) -> tuple:
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


def tokens_text(tokens: tuple) -> str:
    out = ""
    for x in tokens:
        out += f"[{x}]" if isinstance(x, int) else (f".{x}" if out else str(x))
    return out
