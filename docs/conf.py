"""Sphinx configuration: myst-nb renders the course notebooks with their stored outputs (never re-executed).

Two pages are generated here before each build, so they cannot drift from their sources:
``options.md`` from the ``%%jaxpr`` magic's own help, and ``course/{en,zh}/NN_*.ipynb`` copied from
``notebooks/{en,zh}/``.  ``_templates/page.html`` puts a language switch at the top of every course page.
"""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))
sys.path.insert(0, str(ROOT / "src"))

from _generate import copy_notebooks, write_options  # noqa: E402 - the docs folder and src/ on sys.path first

write_options(DOCS / "options.md")
copy_notebooks(ROOT / "notebooks", DOCS / "course")

project = "jaxprlens"
author = "the jaxprlens authors"
copyright = "the jaxprlens authors"
# jaxprlens.sphinxext: its CSS undoes what the theme does to outputs
extensions = ["myst_nb", "sphinx.ext.autodoc", "jaxprlens.sphinxext"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
html_static_path = ["_static"] if (DOCS / "_static").is_dir() else []
html_theme = "sphinx_book_theme"   # what JAX's docs use
html_theme_options = {
    "navbar_persistent": [],   # one search box (the sidebar's), no header bar above the article
    "show_toc_level": 2,
    "toc_title": "Contents / 目录",   # the site is bilingual, like its section titles
    "use_download_button": True,   # a lecture's page offers its .ipynb
}
templates_path = ["_templates"]
html_context = {"teacher_notes": sorted(p.stem for p in (DOCS / "teachers").glob("*.md"))}
html_title = "jaxprlens"

nb_execution_mode = "off"   # a debugger's stored output is its recorded replay: no mimetype priority to set
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["myst.header"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"
