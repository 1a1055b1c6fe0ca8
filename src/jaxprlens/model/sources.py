"""Where an equation came from: the user's own line (a notebook cell or a file of theirs), and an installed
library's line when the equation was made inside one (flax, optax).

Pure data: reads source lines with ``linecache``, imports no JAX.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass

from jaxprlens.model.marimocells import CELL_FILE, Notebook


@dataclass(frozen=True)
class Source:
    """Where an equation came from: the innermost line of the user's own code (``where`` is ``cell`` for
    notebook cells, else a file name; ``cell`` the cell's place in a notebook whose cells are known by it, a
    marimo notebook's, ``line`` then the line within that cell) and, when the equation was made inside an
    installed library (flax's ``Linear``, optax), ``via``: that library's line."""
    where: str
    line: int
    function: str
    text: str
    via: Source | None = None
    cell: int | None = None

    def __str__(self) -> str:
        where = f"{self.where} {self.cell}" if self.cell else self.where
        own = f"{where} line {self.line}: {self.text}" if self.text else f"{where} line {self.line}"
        return own + (f" › {self.via.where}:{self.via.line} {self.via.text}" if self.via else "")


def _library_dirs() -> tuple:
    import site
    import sysconfig
    dirs = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    try:
        dirs.update(site.getsitepackages())
    except AttributeError:          # an old virtualenv's site module
        pass
    return tuple(sorted(os.path.join(d, "") for d in dirs if d))


_LIBRARY_DIRS = _library_dirs()


@functools.lru_cache(maxsize=4096)
def in_library(filename: str) -> bool:
    """Whether ``filename`` is an installed library's (flax, optax, the standard library), not the user's own
    code (a notebook cell, a script or package of their own, an editable install's source)."""
    return (filename.startswith(_LIBRARY_DIRS) or f"{os.sep}site-packages{os.sep}" in filename
            or f"{os.sep}dist-packages{os.sep}" in filename)


# IPython's and ipykernel's cell files, ours (tests), marimo's (``__marimo__cell_MJUe_.py``)
_CELL_FILE = re.compile(r"^<ipython-input-|/ipykernel_\d+/|^<jaxprlens-cell|" + CELL_FILE.pattern)


@functools.lru_cache(maxsize=4096)
def where_label(filename: str) -> str:
    """``cell`` for code from a notebook cell, else the file's base name (deterministic)."""
    if _CELL_FILE.search(filename):
        return "cell"
    return os.path.basename(filename)


def located(file: str, line: int, notebook: Notebook | None = None) -> tuple[str, int, int | None]:
    """``(where, line, cell)`` of a line of ``file`` as a ``Source`` says it: in a marimo ``notebook``
    (``marimocells.notebook()``) the cell's place and the line within it, else ``where_label`` and the line."""
    place = notebook.place(file, line) if notebook is not None else None
    if place is not None:
        return "cell", place.line, place.position
    return where_label(file), line, None


def source_of(file: str, line: int, function: str, text: str | None = None,
              notebook: Notebook | None = None) -> Source:
    """The ``Source`` of a line of ``file`` (its text read from the file when not given), placed in its cell of
    a marimo ``notebook`` when given."""
    if text is None:
        import linecache
        text = linecache.getline(file, line).strip()
    where, at, cell = located(file, line, notebook)
    return Source(where, at, function, text, cell=cell)
