"""jaxprlens: see, step through and run JAX's jaxprs in Jupyter (``%load_ext jaxprlens``).

The facade over the layers (``model`` -> ``engine`` / ``present`` -> ``views`` -> ``magic``): ``trace``
returns a ``Program``, and the views and engines a ``Program`` offers as methods (``program.table()``,
``.graph()``, ``.stepper()``, ...) are registered here, imported when first used.

Importing this package imports no JAX: the model's names (``trace``, ``Program``, ...) are loaded on first
access (module ``__getattr__``), so the Jupyter server extension (``jaxprlens.serverext``, which every
``jupyter lab`` start imports through this package) costs no JAX import.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from jaxprlens._registry import PROVIDED as _PROVIDED

__all__ = ["trace", "show", "from_jaxpr", "Program", "Eqn", "Var", "Lit", "Source", "TraceError", "path_text",
           "load_ipython_extension"]
__version__ = "0.1.0"

_MODEL = ("trace", "from_jaxpr", "Program", "Eqn", "Var", "Lit", "Source", "TraceError")   # model/__init__.py


def __getattr__(name: str) -> Any:
    if name in _MODEL:
        value = getattr(importlib.import_module("jaxprlens.model"), name)
        importlib.import_module("jaxprlens.present.i18n")   # words the model's and engines' KeyedErrors
        globals()[name] = value            # once: later reads are plain attribute reads
        return value
    raise AttributeError(f"module 'jaxprlens' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _lazy(module: str, name: str) -> Callable[..., Any]:
    def make(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    make.__name__ = name
    return make


for _method, _module, _name in [
        ("table", "jaxprlens.views.table.live", "ServedTable"),     # a Table; live, it serves the rows not stored
        ("text_view", "jaxprlens.views.table.text", "TextView"),
        ("graph", "jaxprlens.views.graph.graph", "Graph"),
        ("debugger", "jaxprlens.views.debugger.debugger", "Debugger"),
        ("run", "jaxprlens.views.compiled.run", "run"),
        ("fusion", "jaxprlens.views.compiled.fusion", "fusion_view"),
        ("memory", "jaxprlens.views.compiled.memory", "memory_view"),
        ("sharding", "jaxprlens.views.compiled.sharding", "sharding_view"),
        ("stepper", "jaxprlens.engine.stepper", "Stepper"),
        ("transform", "jaxprlens.engine.transform", "transform")]:
    _PROVIDED[_method] = _lazy(_module, _name)       # what model.program.provide does, without importing JAX


path_text = _lazy("jaxprlens.present.words", "path_text")   # where a stepper is, in words: ``while[eqn 2] › body › …``


def show(fn: Callable[..., Any], *args: Any, kwargs: dict[str, Any] | None = None, **options: Any) -> Any:
    """What ``%%jaxpr`` shows for the call ``fn(*args, **kwargs)``, its options as keywords, for front ends without
    IPython's magics (marimo, scripts): ``jaxprlens.show(f, x, graph=True, lang="zh")`` is ``%%jaxpr --graph
    --lang zh`` over ``f(x)``.  Every option: ``jaxprlens.views.show.show``."""
    from jaxprlens.views.show import show as _show
    return _show(fn, *args, kwargs=kwargs, **options)


def load_ipython_extension(ipython: Any) -> None:
    """Register the ``%jaxpr`` / ``%%jaxpr`` magics (called by ``%load_ext jaxprlens``)."""
    from jaxprlens.magic import JaxprMagics
    ipython.register_magics(JaxprMagics)
