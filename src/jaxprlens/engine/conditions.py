"""The stepper's stop conditions on the values a step writes (``Stepper.add_condition``): their grammar, as data
a recorded replay carries to the script, and the predicate each one's text means."""
from __future__ import annotations

import re

import jax.numpy as jnp
import numpy as np

from jaxprlens.engine.values import kind_of
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
        return lambda x: _inexact(x) and bool(jnp.isinf(x).any())
    m = _CONDITION.match(low)
    if m is None:
        raise KeyedError("condition_unknown", text=repr(text))
    stat, op, bound = m.group(1).lower(), _COMPARE[m.group(2)], float(m.group(3))
    reduce = {"max": jnp.nanmax, "min": jnp.nanmin, "abs max": lambda x: jnp.nanmax(jnp.abs(x))}[stat]   # NaN aside

    def test(x) -> bool:
        y = x if stat == "abs max" and kind_of(x) == "complex" and x.size else _real(x)   # |z| of a complex value
        return y is not None and bool(op(float(reduce(y)), bound))
    return test


def _real(x):
    """``x`` as real numbers to reduce (bool, int4, bfloat16, float8_* on a float32 copy), or None: not a real
    array (complex, a key array, a token) or empty."""
    k = kind_of(x)
    if k not in ("int", "float") or getattr(x, "size", 0) == 0:
        return None
    return x.astype(jnp.float32) if jnp.dtype(x.dtype).itemsize < 4 else x


def _inexact(x) -> bool:
    """A float or complex array with elements: one that can hold NaN and Inf."""
    return kind_of(x) in ("float", "complex") and getattr(x, "size", 0) > 0


def has_nan(outs) -> bool:
    """Whether any float value of ``outs`` holds a NaN (``break_on_nan``): complex ones too."""
    for x in outs:
        if _inexact(x) and bool(jnp.isnan(x).any()):
            return True
    return False
