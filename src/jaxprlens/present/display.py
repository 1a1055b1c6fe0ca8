"""The display protocol shared by every view: ``text()`` and ``html()`` make the mimebundle."""
from __future__ import annotations

import jax
import numpy as np

from jaxprlens.engine import values
from jaxprlens.present.i18n import t


class View:
    """A view returns data from ``_repr_mimebundle_`` (always with ``text/plain``), with no side effects."""

    def text(self) -> str:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return self.text()

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.text(), "text/html": self.html()}


def shorten(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters, ending in ``…`` when cut."""
    return text if len(text) <= n else text[: n - 1] + "…"


def array_text(value, limit: int, edgeitems: int = 3, precision: int = 4, one_line: bool = True,
               linewidth: int = 75, lang: str | None = None) -> str:
    """An array as NumPy prints it with ``limit`` elements before summarising (``[1., ..., 9.]``);
    a scalar as its item.  Deterministic (fixed print options), on one line unless asked.
    A tracer kept from another trace (JAX prints it as a constant like any other) has no value (said in
    ``lang``); a key array is its type as JAX writes it (``key<fry>[2]``) and its key data."""
    if isinstance(value, jax.core.Tracer):
        return t("leaked_value", lang)
    if values.is_key(value):
        return (f"{value.dtype}{list(value.shape)} "
                + array_text(values.host(value), limit, edgeitems, precision, one_line, linewidth))
    arr = np.asarray(value)
    if not arr.ndim:
        return str(arr[()])        # NumPy's shortest repr for the dtype, as JAX prints: 1.1144837, not 1.11448371...
    with np.printoptions(threshold=limit, edgeitems=min(edgeitems, limit), precision=precision,
                         suppress=True, linewidth=linewidth):
        text = np.array2string(arr, separator=", ")
    return " ".join(text.split()) if one_line else text
