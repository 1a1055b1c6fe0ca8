"""The registry that gives ``Program`` its view and engine methods (``program.table()``, ``.graph()``, ...).

``jaxprlens/__init__.py`` fills it and ``model/program.py`` reads it.  It lives apart from both and imports
nothing, so ``import jaxprlens`` (the server extension's route: ``jaxprlens.serverext``) imports no JAX."""
from __future__ import annotations

from collections.abc import Callable

PROVIDED: dict[str, Callable] = {}   # method name -> make(program, ...), registered by the facade
