"""Which cell of a marimo notebook a line of code is in, counted as its reader counts: ``cell 3 line 2``.

marimo compiles a cell in one of two ways: in ``marimo edit`` (and ``marimo export``) from a file of its own,
``__marimo__cell_MJUe_.py`` (``MJUe`` the cell's id, its lines the cell's lines); in ``marimo run`` from the
notebook file itself, each line numbered as in that file.  Neither name says the cell's place in the notebook,
so that is read from the notebook file as saved (marimo's own parser, the one that loads it): the cell of a
cell file is the one whose code it holds, the cell of a notebook file's line the one whose lines hold it.

Pure data: imports marimo only when a marimo notebook runs this (so it is imported already), no JAX.
"""
from __future__ import annotations

import functools
import linecache
import os
import re
import sys
from dataclasses import dataclass

CELL_FILE = re.compile(r"__marimo__cell_\w+_\.py$")


@dataclass(frozen=True)
class Place:
    """Where a line is in a notebook: the cell's ``position`` (1 for the first), the ``line`` within the cell,
    ``offset`` (the line's number in its file minus ``line``) and how many ``lines`` the cell has."""
    position: int
    line: int
    offset: int
    lines: int


@dataclass(frozen=True, eq=False)     # hashed by identity: one per version of the file (``notebook``)
class Notebook:
    """The cells of a marimo notebook file as saved, in order: each one's code and the number of the file's
    line before its first (the ``lineno`` marimo adds to a cell's lines when it compiles the file itself)."""
    path: str
    cells: tuple      # ((code stripped, lineno, how many lines), ...)

    def place(self, file: str, line: int) -> Place | None:
        """The cell ``line`` of ``file`` is in, or None when it is in none of the notebook's cells (a cell
        edited since the notebook was saved, or a file that is no cell)."""
        if CELL_FILE.search(file):
            lines = linecache.getlines(file)
            code = "".join(lines).strip()
            found = [i for i, (text, _, _) in enumerate(self.cells) if text == code]
            if len(found) != 1:          # none, or two cells of the same code: no way to say which
                return None
            return Place(found[0] + 1, line, 0, len(lines))
        if not _same_file(file, self.path):
            return None
        for i, (_, lineno, count) in enumerate(self.cells):
            if lineno < line <= lineno + count:
                return Place(i + 1, line - lineno, lineno, count)
        return None


def _same_file(a: str, b: str) -> bool:
    return a == b or os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def running() -> bool:
    """Whether a marimo notebook (``marimo edit``, ``run``, ``export``) runs this (marimo is not imported
    when it is not imported already)."""
    return _context() is not None


def _context():
    marimo = sys.modules.get("marimo")
    try:         # marimo's public test first: its runtime's modules are imported only inside a notebook
        if marimo is None or not marimo.running_in_notebook():
            return None
        from marimo._runtime.context import get_context
        return get_context()
    except Exception:  # noqa: BLE001 - no context in this thread, or a marimo that moved these names
        return None


def notebook() -> Notebook | None:
    """The cells of the marimo notebook that runs this, or None outside one (or when its file cannot be read):
    read again only when the file changed."""
    ctx = _context()
    path = getattr(ctx, "filename", None) if ctx is not None else None
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return read(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def read(path: str, mtime_ns: int = 0, size: int = 0) -> Notebook | None:
    """The ``Notebook`` of the marimo file at ``path`` (``mtime_ns`` and ``size`` name its version), or None
    when marimo cannot parse it."""
    try:
        from marimo._ast.parse import parse_notebook
        with open(path, encoding="utf-8") as f:
            parsed = parse_notebook(f.read())
        if parsed is None or not parsed.valid:
            return None
        cells = tuple((cell.code.strip(), int(cell.lineno), len(cell.code.splitlines())) for cell in parsed.cells)
    except Exception:  # noqa: BLE001 - an unreadable file, or a marimo whose parser moved
        return None
    return Notebook(path, cells)
