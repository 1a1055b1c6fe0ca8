"""A Sphinx extension for sites that publish notebooks with jaxprlens outputs (myst-nb, Jupyter Book 1).

``extensions = ["myst_nb", "jaxprlens.sphinxext"]`` adds the package's ``jaxprlens_docs.css`` to every page: what
themes such as sphinx-book-theme do to notebook outputs (table layout, ``pre`` boxes, inline code colours, the dim
panel in dark mode), undone for the views.  The views' own styles come inline with each stored output; nothing
else is needed (a debugger's stored output is its recorded replay, which myst-nb shows by default).
It imports nothing of jaxprlens or JAX, so a docs build costs no JAX import.
"""
from __future__ import annotations

from pathlib import Path

CSS = "jaxprlens_docs.css"


def _add_static(app) -> None:
    here = str(Path(__file__).resolve().parent / "docs_static")     # only the stylesheet: Sphinx copies it
    if here not in app.config.html_static_path:
        app.config.html_static_path.append(here)


def setup(app) -> dict:
    app.connect("builder-inited", _add_static)
    app.add_css_file(CSS)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
