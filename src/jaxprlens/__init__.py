"""jaxprlens: see, step through and run JAX's jaxprs in Jupyter (``%load_ext jaxprlens``).

The facade over the layers (``model`` -> ``engine`` / ``present`` -> ``views`` -> ``magic``): ``trace``
returns a ``Program``, and the views and engines a ``Program`` offers as methods (``program.table()``,
``.graph()``, ``.stepper()``, ...) are registered here, imported when first used.
"""
from __future__ import annotations

import importlib

from jaxprlens.model.program import Eqn, Lit, Program, Source, TraceError, Var, from_jaxpr, provide, trace
from jaxprlens.present import i18n as _i18n  # noqa: F401 - words the model's and engines' KeyedErrors (str(e): English)

__all__ = ["trace", "from_jaxpr", "Program", "Eqn", "Var", "Lit", "Source", "TraceError", "path_text",
           "load_ipython_extension"]
__version__ = "0.1.0"


def _lazy(module: str, name: str):
    def make(*args, **kwargs):
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    make.__name__ = name
    return make


for _method, _module, _name in [
        ("table", "jaxprlens.views.live", "ServedTable"),     # a Table; live, it serves the rows not stored
        ("text_view", "jaxprlens.views.text", "TextView"),
        ("graph", "jaxprlens.views.graph", "Graph"),
        ("debugger", "jaxprlens.views.debugger", "Debugger"),
        ("run", "jaxprlens.views.run", "run"),
        ("stepper", "jaxprlens.engine.stepper", "Stepper"),
        ("transform", "jaxprlens.engine.transform", "transform")]:
    provide(_method, _lazy(_module, _name))


path_text = _lazy("jaxprlens.present.words", "path_text")   # where a stepper is, in words: ``while[eqn 2] › body › …``


def load_ipython_extension(ipython):
    """Register the ``%jaxpr`` / ``%%jaxpr`` magics (called by ``%load_ext jaxprlens``)."""
    from jaxprlens.magic import JaxprMagics
    ipython.register_magics(JaxprMagics)
