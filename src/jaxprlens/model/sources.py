"""Where an equation came from: the user's own line (a notebook cell or a file of theirs), and an installed
library's line when the equation was made inside one (flax, optax).

Pure data: reads source lines with ``linecache``, imports no JAX.
"""
from __future__ import annotations

import functools
import os
import re
import sys
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
    return bool(library_of(filename))


@functools.lru_cache(maxsize=4096)
def library_of(filename: str) -> str:
    """The library ``filename`` belongs to (``flax``, ``optax``, ``functools``), or ``""`` for the user's own
    code.  Decided by where Python imported the file's module from, not by a folder's name: a notebook's
    cells, the script, and modules found in the script's folder or the working folder (the notebook's) are
    the user's, as is an editable install's source; a module found anywhere else (``site-packages``, a ``pip
    install --target`` folder, a folder on ``PYTHONPATH``) is a library's."""
    if _CELL_FILE.search(filename):
        return ""
    module = _module_of(filename)
    name = module.__name__.split(".", 1)[0] if module is not None else ""
    if filename.startswith(_LIBRARY_DIRS) or f"{os.sep}site-packages{os.sep}" in filename \
            or f"{os.sep}dist-packages{os.sep}" in filename:
        return name or _folder_package(filename)
    if module is None or name == "__main__":
        return ""                   # not an imported module's (``exec``'d code, the script): the user's
    root = _import_root(sys.modules.get(name, module))
    if not _installed_in(root) and os.path.join(root, "").startswith(_user_roots()):
        return ""                   # found beside the notebook or the script
    return "" if root in _editable_roots() else name      # an editable install's source: the user's


def _folder_package(filename: str) -> str:
    parts = filename.replace(os.sep, "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts and parts.index(marker) + 1 < len(parts):
            return parts[parts.index(marker) + 1].removesuffix(".py")
    return os.path.dirname(filename)


_modules: dict = {}           # file -> module
_counted = [-1]               # how many modules were imported when ``_modules`` was made


def _module_of(filename: str):
    """The imported module whose file ``filename`` is (None: none is)."""
    if _counted[0] != len(sys.modules):
        _modules.clear()
        for m in list(sys.modules.values()):
            f = getattr(m, "__file__", None)
            if isinstance(f, str):
                _modules.setdefault(f, m)
        _counted[0] = len(sys.modules)
    return _modules.get(filename)


def _import_root(top) -> str:
    """The folder Python found a top-level module or package in (its ``sys.path`` entry)."""
    paths = list(getattr(top, "__path__", None) or ())
    where = paths[0] if paths else os.path.dirname(getattr(top, "__file__", None) or "")
    return os.path.dirname(os.path.abspath(where)) if paths else os.path.abspath(where)


@functools.lru_cache(maxsize=256)
def _installed_in(folder: str) -> bool:
    """Whether ``folder`` is where an installer put packages (``pip install --target`` leaves ``.dist-info``)."""
    try:
        return any(n.endswith((".dist-info", ".egg-info")) for n in os.listdir(folder))
    except OSError:
        return False


def _user_roots() -> tuple:
    """The working folder (a notebook's) and the running script's folder, each ending in a separator."""
    roots = set()
    cwd = os.getcwd()
    if os.path.dirname(cwd) != cwd:          # not the file system's root
        roots.add(cwd)
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if isinstance(main, str) and not main.startswith(_LIBRARY_DIRS):
        roots.add(os.path.dirname(os.path.abspath(main)))
    return tuple(os.path.join(r, "") for r in roots)


@functools.lru_cache(maxsize=1)
def _editable_roots() -> frozenset:
    """The folders editable installs (``pip install -e``) put on the path: each line of a ``.pth`` file in a
    site folder that names a folder, and the folders holding the packages a setuptools editable finder
    (``__editable___NAME_finder.py``) maps."""
    roots = set()
    for site in _LIBRARY_DIRS:
        try:
            names = os.listdir(site)
        except OSError:
            continue
        for n in names:
            if not (n.endswith(".pth") or (n.startswith("__editable__") and n.endswith("_finder.py"))):
                continue
            try:
                with open(os.path.join(site, n), encoding="utf-8") as f:
                    text = f.read(200_000)
            except (OSError, UnicodeDecodeError):
                continue
            if n.endswith(".pth"):
                roots.update(os.path.abspath(x.strip()) for x in text.splitlines()
                             if x.strip() and not x.startswith(("#", "import")) and os.path.isdir(x.strip()))
            else:
                roots.update(os.path.dirname(os.path.abspath(x)) for x in re.findall(r"'([^']+)'", text)
                             if os.path.isabs(x) and os.path.isdir(x))
    return frozenset(roots)


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
