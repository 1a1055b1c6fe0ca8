"""The model: a traced program as plain data (``Program``, ``Eqn``, ``Var``, ``Lit``), the roles of
control-flow operands, the primitive taxonomy, explanations, the Python calls tracing inlined, and
``_jax``, the one module that touches JAX's private API.  Imports nothing above it."""
from jaxprlens.model.build import from_jaxpr  # noqa: F401
from jaxprlens.model.program import (Eqn, Lit, Program, Var, count_eqns, param_text, path_id)  # noqa: F401
from jaxprlens.model.sources import Source, where_label  # noqa: F401
from jaxprlens.model.tracing import TraceError, arg_names, trace  # noqa: F401
