"""The model: a traced program as plain data (``Program``, ``Eqn``, ``Var``, ``Lit``), the roles of
control-flow operands, the primitive taxonomy, explanations, the Python calls tracing inlined, and
``_jax``, the one module that touches JAX's private API.  Imports nothing above it."""
from jaxprlens.model.build import from_jaxpr
from jaxprlens.model.program import Eqn, Lit, Program, Var, count_eqns, param_text, path_id
from jaxprlens.model.sources import Source, where_label
from jaxprlens.model.tracing import TraceError, arg_names, trace

__all__ = ["Eqn", "Lit", "Program", "Source", "TraceError", "Var", "arg_names", "count_eqns", "from_jaxpr",
           "param_text", "path_id", "trace", "where_label"]
