"""A notebook cell's lines as the reader typed them.  IPython compiles a cell transformed, one line for one
(``%load_ext jaxprlens`` becomes ``get_ipython().run_line_magic('load_ext', 'jaxprlens')``, ``!ls`` becomes
``get_ipython().system('ls')``), and that is what ``linecache`` holds: a source listing shows the typed line.
``source_context`` reads the lines around an equation's user source line so (the debugger's listing)."""
from __future__ import annotations

import ast
import linecache
import re

from jaxprlens.model import _jax
from jaxprlens.model.marimocells import notebook
from jaxprlens.model.program import where_label

_CALL = re.compile(r"^(?P<indent>\s*)(?P<lhs>[^=()'\"]+?\s*=\s*)?"
                   r"get_ipython\(\)\.(?P<fn>run_line_magic|system|getoutput)"
                   r"\((?P<args>.*)\)\s*$")
_HELP = {"pinfo": "?", "pinfo2": "??"}


def typed_line(text: str) -> str:
    """``text``, a line of a cell as IPython compiled it, as the reader typed it (other lines as they are)."""
    if "get_ipython()" not in text:
        return text
    m = _CALL.match(text)
    if m is None:
        return text
    try:
        args = ast.literal_eval(f"({m.group('args')},)")
    except (ValueError, SyntaxError):
        return text
    if not all(isinstance(a, str) for a in args):
        return text
    fn, lhs = m.group("fn"), m.group("lhs") or ""
    if fn == "run_line_magic" and len(args) == 2:
        name, line = args
        if name in _HELP and not lhs and line:
            typed = line + _HELP[name]
        else:
            typed = f"%{name} {line}".rstrip()
    elif fn in ("system", "getoutput") and len(args) == 1:
        typed = ("!!" if fn == "getoutput" and not lhs else "!") + args[0]
    else:
        return text
    return m.group("indent") + lhs + typed


def source_context(eqn, radius: int = 3) -> list:
    """Lines around the eqn's user source line: ``[(line number, text, is_current), ...]``; a notebook cell's
    as the reader typed them (``%load_ext jaxprlens``, not the ``get_ipython()`` call IPython compiled); a
    marimo notebook's cell's lines only, numbered within the cell as its source note numbers them."""
    if eqn is None:
        return []
    frame = _jax.user_frame(eqn.raw)
    if frame is None:
        return []
    lines = linecache.getlines(frame.file)
    if not lines:
        return [(frame.line, frame.text, True)]
    cells = notebook()
    place = cells.place(frame.file, frame.line) if cells is not None else None
    first, last, shift = (place.offset + 1, place.offset + place.lines, place.offset) if place else (1, len(lines), 0)
    lo, hi = max(first, frame.line - radius), min(last, len(lines), frame.line + radius)
    typed = typed_line if where_label(frame.file) == "cell" else (lambda text: text)
    cut = _indent(lines[first - 1:last]) if shift else 0     # a cell in its notebook's file: its body's indent
    return [(n - shift, typed(lines[n - 1].rstrip("\n")[cut:]), n == frame.line) for n in range(lo, hi + 1)]


def _indent(lines: list) -> int:
    return min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
