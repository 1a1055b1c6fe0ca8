"""jaxprlens: see, step through and run JAX's jaxprs in Jupyter (``%load_ext jaxprlens``)."""
from __future__ import annotations

from jaxprlens.model.program import Eqn, Lit, Program, Source, TraceError, Var, from_jaxpr, trace

__all__ = ["trace", "from_jaxpr", "Program", "Eqn", "Var", "Lit", "Source", "TraceError",
           "load_ipython_extension"]
__version__ = "0.1.0"


def load_ipython_extension(ipython):
    """Register the ``%jaxpr`` / ``%%jaxpr`` magics (called by ``%load_ext jaxprlens``)."""
    from .magic import JaxprMagics
    ipython.register_magics(JaxprMagics)
