"""The stepper's stop conditions on the values a step writes (``Stepper.add_condition``): their grammar, as data
a recorded replay carries to the script, and the predicate each one's text means."""
from __future__ import annotations

import re

import jax.numpy as jnp
import numpy as np

from jaxprlens.model.errors import KeyedError

# The grammar of a condition, as data: the stepper reads it here, and a recorded replay carries it to the
# script, which tests its stored value summaries with it (``static/debugger.js`` keeps no copy of it).
# Words are matched lower case, with runs of white space as one space.
CONDITIONS = {
    "nan": ["any nan", "nan"],
    "inf": ["any inf", "inf"],
    "compare": r"^(max|min|abs max) *(>=|<=|>|<) *([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)$",   # stat, op, bound
}
_CONDITION = re.compile(CONDITIONS["compare"])
_COMPARE = {">": np.greater, "<": np.less, ">=": np.greater_equal, "<=": np.less_equal}


def condition(text: str):
    """The predicate on one value for a condition's text (see ``Stepper.add_condition``)."""
    low = " ".join(text.lower().split())
    if low in CONDITIONS["nan"]:
        return lambda x: has_nan([x])
    if low in CONDITIONS["inf"]:
        return lambda x: _numeric(x) and bool(jnp.isinf(x).any())
    m = _CONDITION.match(low)
    if m is None:
        raise KeyedError("condition_unknown", text=repr(text))
    stat, op, bound = m.group(1).lower(), _COMPARE[m.group(2)], float(m.group(3))
    reduce = {"max": jnp.nanmax, "min": jnp.nanmin, "abs max": lambda x: jnp.nanmax(jnp.abs(x))}[stat]   # NaN aside
    return lambda x: _numeric(x) and bool(op(float(reduce(x)), bound))


def _numeric(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return (dtype is not None and getattr(x, "size", 0) > 0 and not jnp.issubdtype(dtype, jnp.complexfloating)
            and (jnp.issubdtype(dtype, jnp.inexact) or jnp.issubdtype(dtype, jnp.integer)))


def has_nan(outs) -> bool:
    """Whether any float value of ``outs`` holds a NaN (``break_on_nan``)."""
    for x in outs:
        dtype = getattr(x, "dtype", None)
        if dtype is not None and jnp.issubdtype(dtype, jnp.inexact) and bool(jnp.isnan(x).any()):
            return True
    return False
