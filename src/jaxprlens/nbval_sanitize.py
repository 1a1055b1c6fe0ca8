"""The nbval sanitizer that checking a course needs, shipped with the package: it replaces the times that
``--run`` and ``--profile`` print (they differ on every run) and the front end's inlined stylesheet and
script, so that strict ``pytest --nbval`` compares what a lecture shows.

``python -m jaxprlens.nbval_sanitize`` prints the file's path, for the command line::

    pytest --nbval --nbval-sanitize-with "$(python -m jaxprlens.nbval_sanitize)" my_course/

The same file is ``notebooks/sanitize.cfg`` in the repository (tests/test_nbval_sanitize.py keeps them equal).
"""
from __future__ import annotations

from importlib.resources import files

NAME = "nbval_sanitize.cfg"


def path() -> str:
    """The path of the sanitizer file installed with jaxprlens (``--nbval-sanitize-with`` takes it)."""
    return str(files("jaxprlens").joinpath(NAME))


if __name__ == "__main__":
    print(path())
