"""The text view: the program exactly as JAX's printer writes it, without colour codes."""
from __future__ import annotations

from jaxprlens.present.escape import html


class TextView:
    def __init__(self, program):
        self.program = program

    @property
    def text(self) -> str:
        return str(self.program)        # a jit seen through: the call as traced (Program.text)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {
            "text/plain": self.text,
            "text/html": f'<pre class="jaxprlens jl-text">{html(self.text)}</pre>',
        }


def part(cell) -> TextView:
    """``--text``: the jaxpr as JAX prints it (a part of ``views.build_view``'s output)."""
    return TextView(cell.program)
