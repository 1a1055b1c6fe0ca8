"""The stepper's stop conditions on the values a step writes (``Stepper.add_condition``): their grammar, as data
a recorded replay carries to the script, and the one computation of the numbers each condition compares.

A condition is ``any NaN``, ``any Inf`` or ``STAT OP BOUND`` (``max > 1e3``).  ``stat(x, STAT)`` is the number a
value is compared by (NaN aside, Inf included: ``max`` of ``[1, inf]`` is ``inf``); ``stats(x)`` is every one of
them with the NaN/Inf flags, as a recorded replay stores them per step, so the script only compares those
stored numbers with the bound (``views/debugger/debugger.js`` computes no statistic of its own).  Computed on the host
(``engine.values.host``): no XLA compile per new shape, and the same answer on every backend."""
from __future__ import annotations

import re

import numpy as np

from jaxprlens.engine.values import CHUNK, chunks, host, kind_of, numbers
from jaxprlens.model.errors import KeyedError

# The grammar of a condition, as data: the stepper reads it here, and a recorded replay carries it to the
# script, which tests its stored value statistics with it (``views/debugger/debugger.js`` keeps no copy of it).
# Words are matched lower case, with runs of white space as one space.
CONDITIONS = {
    "nan": ["any nan", "nan"],
    "inf": ["any inf", "inf"],
    "compare": r"^(max|min|abs max) *(>=|<=|>|<) *([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)$",   # stat, op, bound
    "stats": ["max", "min", "abs max"],      # the order of a recorded value's numbers (``stats``)
}
STATS = tuple(CONDITIONS["stats"])
NAN, INF = 1, 2                  # a recorded value's flags: it holds a NaN, an Inf
_CONDITION = re.compile(CONDITIONS["compare"])
_COMPARE = {">": np.greater, "<": np.less, ">=": np.greater_equal, "<=": np.less_equal}


def parse(text: str) -> tuple:
    """``("nan",)``, ``("inf",)`` or ``("compare", stat, op, bound)`` for a condition's text."""
    low = " ".join(text.lower().split())
    if low in CONDITIONS["nan"]:
        return ("nan",)
    if low in CONDITIONS["inf"]:
        return ("inf",)
    m = _CONDITION.match(low)
    if m is None:
        raise KeyedError("condition_unknown", text=repr(text))
    return ("compare", m.group(1), m.group(2), float(m.group(3)))


def condition(text: str):
    """The predicate on one value for a condition's text (see ``Stepper.add_condition``)."""
    parsed = parse(text)
    if parsed[0] == "nan":
        return lambda x: has_nan([x])
    if parsed[0] == "inf":
        return lambda x: bool(flags(x) & INF)
    _, name, op, bound = parsed
    compare = _COMPARE[op]

    def test(x) -> bool:
        y = stat(x, name)
        return y is not None and bool(compare(y, bound))
    return test


def _host_numbers(x):
    """``x`` as float64 numbers on the host (a complex value as complex128), or None: no real or complex
    array (a key array, a token, bool) or empty."""
    k = kind_of(x)
    if k not in ("int", "float", "complex") or getattr(x, "size", 0) == 0:
        return None
    arr = host(x)
    return arr.astype(np.complex128) if k == "complex" else numbers(arr)


def stat(x, name: str, data=None) -> float | None:
    """The number ``name`` (``max``, ``min``, ``abs max``) of value ``x`` that a condition compares: over all its
    elements but NaN, Inf included; ``abs max`` of a complex value is its largest ``|z|``; None when there is
    none (not a real array, empty, all NaN; ``max``/``min`` of a complex value).  ``data``: ``x`` on the host
    already (``_host_numbers``)."""
    y = _host_numbers(x) if data is None else data
    if y is None:
        return None
    if np.iscomplexobj(y):
        if name != "abs max":
            return None
        y = np.abs(y)
    elif name == "abs max":
        y = np.abs(y)
    y = y[~np.isnan(y)]
    if not y.size:
        return None
    return float(y.max() if name != "min" else y.min())


def flags(x, data=None) -> int:
    """``NAN`` | ``INF``: whether a float or complex value holds a NaN, an Inf."""
    if kind_of(x) not in ("float", "complex"):
        return 0
    y = _host_numbers(x) if data is None else data
    if y is None:
        return 0
    return (NAN if bool(np.isnan(y).any()) else 0) | (INF if bool(np.isinf(y).any()) else 0)


def stats(x) -> tuple:
    """``(max, min, abs max, flags)`` of one value: what every condition compares (``stat``, ``flags``), as a
    recorded replay stores it for the values each step wrote.  A large real value a chunk at a time (no float64
    copy of it whole)."""
    k = kind_of(x)
    if k in ("int", "float") and getattr(x, "size", 0) > CHUNK:
        hi, lo, flag = -np.inf, np.inf, 0
        for d in chunks(host(x)):
            nan = np.isnan(d)
            if nan.any():
                flag |= NAN
                d = d[~nan]
            if d.size:
                hi, lo = max(hi, float(d.max())), min(lo, float(d.min()))
                if np.isinf(hi) or np.isinf(lo):
                    flag |= INF
        if lo > hi:                   # all NaN
            return None, None, None, flag
        return hi, lo, max(abs(hi), abs(lo)), flag     # abs max: the larger magnitude of the two ends
    y = _host_numbers(x)
    return tuple(stat(x, name, y) for name in STATS) + (flags(x, y),)


def has_nan(outs) -> bool:
    """Whether any float value of ``outs`` holds a NaN (``break_on_nan``): complex ones too."""
    return any(flags(x) & NAN for x in outs)
