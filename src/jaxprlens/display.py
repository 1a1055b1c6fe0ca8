"""The display protocol shared by every view: ``text()`` and ``html()`` make the mimebundle."""
from __future__ import annotations


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
