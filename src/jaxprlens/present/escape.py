"""The one place where strings (which may come from the user) are escaped for HTML, SVG and DOT."""
from __future__ import annotations

import functools
import html as _html
import re

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def plain(s: object) -> str:
    """Text with ANSI colour codes removed (JAX's printer colours its output inside a kernel)."""
    s = str(s)
    return _ANSI.sub("", s) if "\x1b" in s else s


# the controls that reorder the text around them (bidi embeddings, overrides and isolates): a source line that
# holds one can show its code in another order than it runs (Trojan Source); written as Python's repr writes them
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def visible(s: object) -> str:
    """Text with each bidi control written as its escape (``\\u202e``), as a pytree path's repr writes it."""
    s = s if type(s) is str else str(s)
    return _BIDI.sub(lambda m: f"\\u{ord(m.group()):04x}", s) if _BIDI.search(s) else s


def html(s: object) -> str:
    """Escape for HTML/SVG text and attribute values (also Graphviz HTML-like labels)."""
    s = s if type(s) is str else str(s)
    return _short_html(s) if len(s) <= 200 else _escaped(s)


def _escaped(s: str) -> str:
    return _html.escape(visible(plain(s)), quote=True)


# short strings only, at most a few MB: a table escapes the same names, types and lines thousands of times
_short_html = functools.lru_cache(maxsize=1 << 15)(_escaped)


_UNIT = re.compile(r"(\d) ((?:[kMGTPE]?(?:FLOP|B)|ns|µs|ms|s)\b)")


def html_units(s: object) -> str:
    """``html(s)`` with a measure never wrapped between its number and its unit (``1.3&nbsp;MB``,
    ``45&nbsp;µs``): a narrow column, or a page whose stylesheet a sanitizer dropped, breaks at any space."""
    return _UNIT.sub("\\1&nbsp;\\2", html(s))


_JOINT = re.compile(r"(?<=[^\s_,])([_,])(?=[^\s_,)\]}])")


def html_breakable(s: object) -> str:
    """``html(s)`` with a line break allowed after each ``_`` and ``,`` inside a word (``<wbr>``): a name or a
    call wider than its column (``dimension_numbers``, ``f(x,y)``) breaks there, not in the middle of a word."""
    return _JOINT.sub("\\1<wbr>", html(s))


def dot(s: object) -> str:
    """Escape for a double-quoted DOT string: quotes, backslashes, newlines and angle brackets.

    Angle brackets and ampersands become entities too, so no markup from the user reaches an
    SVG that Graphviz writes from this label.
    """
    text = _html.escape(visible(plain(s)), quote=False)
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
