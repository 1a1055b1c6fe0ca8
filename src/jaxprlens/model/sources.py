"""Where an equation came from: the user's own line (a notebook cell or a file of theirs), and an installed
library's line when the equation was made inside one (flax, optax).

Pure data: reads source lines with ``linecache``, imports no JAX.
"""
from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """Where an equation came from: the innermost line of the user's own code (``where`` is ``cell`` for
    notebook cells, else a file name) and, when the equation was made inside an installed library
    (flax's ``Linear``, optax), ``via``: that library's line."""
    where: str
    line: int
    function: str
    text: str
    via: Source | None = None

    def __str__(self) -> str:
        own = f"{self.where} line {self.line}: {self.text}" if self.text else f"{self.where} line {self.line}"
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
_CELL_FILE = re.compile(r"^<ipython-input-|/ipykernel_\d+/|^<jaxprlens-cell|__marimo__cell_\w+_\.py$")


@functools.lru_cache(maxsize=4096)
def where_label(filename: str) -> str:
    """``cell`` for code from a notebook cell, else the file's base name (deterministic)."""
    if _CELL_FILE.search(filename):
        return "cell"
    return os.path.basename(filename)


def source_of(file: str, line: int, function: str, text: str | None = None) -> Source:
    """The ``Source`` of a line of ``file`` (its text read from the file when not given)."""
    if text is None:
        import linecache
        text = linecache.getline(file, line).strip()
    return Source(where_label(file), line, function, text)
