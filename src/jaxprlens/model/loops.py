"""Python loops in the user's source, so that the call tree tells a loop's next iteration from a new call.

A traceback holds where each frame was (file, line, column), not which frame it was: two iterations of a loop
inside ``predict`` read as ``predict`` called twice from the same line, since the position goes back to where
the call began.  Where both positions lie inside one loop of the same function (``for w, b in params:``,
``while``, a comprehension), the call tree reads it as the next iteration.

The one case no traceback can tell apart: a function whose whole body is a loop, called twice in a row from
one line with nothing traced between (``for _ in range(2): x = step(x)``) reads as one call.

Pure data: reads source with ``linecache`` and ``ast``, imports no JAX.
"""
from __future__ import annotations

import ast
import linecache

_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


class Loops:
    """The loops of the files one call tree reads (each file parsed once, on the first question about it)."""

    def __init__(self):
        self._files: dict = {}      # file -> [(function span or None, [loop span, ...])] or None (unreadable)
        self._targets: dict = {}    # file -> spans of the tuples and lists it assigns to

    def same_loop(self, file: str, a: tuple, b: tuple) -> bool:
        """Whether positions ``a`` and ``b`` (``(line, column)``) of ``file`` lie in one loop of the
        innermost function holding both (a loop around that function's ``def`` does not count)."""
        scopes = self._scopes(file)
        if not scopes:
            return False
        inner = None
        for span, loops in scopes:          # outermost first: the last one holding both is the innermost
            if span is None or (span[0] <= a <= span[1] and span[0] <= b <= span[1]):
                inner = loops
        return any(lo <= a <= hi and lo <= b <= hi for lo, hi in inner or ())

    def unpacks(self, file: str, start: tuple, end: tuple) -> bool:
        """Whether ``start``..``end`` of ``file`` is a tuple or list being assigned to (``a, b = split(k)``):
        Python unpacks after the call on the right, at a position before it."""
        if file not in self._targets:
            text = "".join(linecache.getlines(file))
            try:
                tree = ast.parse(text) if text else None
            except (SyntaxError, ValueError):
                tree = None
            self._targets[file] = set() if tree is None else {
                _span(n) for n in ast.walk(tree)
                if isinstance(n, (ast.Tuple, ast.List)) and isinstance(n.ctx, ast.Store)}
        return (start, end) in self._targets[file]

    def _scopes(self, file: str) -> list | None:
        if file not in self._files:
            self._files[file] = _read(file)
        return self._files[file]


def _read(file: str) -> list | None:
    text = "".join(linecache.getlines(file))
    if not text:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    scopes: list = []

    def visit(node: ast.AST, loops: list):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES):
                own: list = []
                scopes.append((_span(child), own))
                visit(child, own)
            else:
                if isinstance(child, _LOOPS):
                    loops.append(_span(child))
                visit(child, loops)

    top: list = []
    scopes.append((None, top))      # a cell's or a script's top level
    visit(tree, top)
    return scopes
