"""One summary of a value (``engine.values``) and the numbers conditions compare (``engine.conditions``): a large
value's, computed a chunk at a time, are the very numbers of the whole-array computation."""
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from jaxprlens.engine import conditions, values


def whole(a: np.ndarray) -> dict:
    """The summary's numbers as one float64 copy gives them (the small-value path)."""
    d = a.astype(np.float64)
    f = d[np.isfinite(d)]
    return {"nan": int(np.isnan(d).sum()), "inf": int(np.isinf(d).sum()), "min": float(f.min()),
            "max": float(f.max()), "mean": float(f.mean()), "hist": np.histogram(f, values.BINS)[0].tolist()}


def arrays():
    rng = np.random.default_rng(0)
    n = values.CHUNK * 2 + 12345                        # three chunks, the last one short
    out = {"float32": rng.standard_normal(n).astype(np.float32), "float64": rng.standard_normal(n) * 1e3,
           "int32": rng.integers(-7, 9, n).astype(np.int32),
           "bfloat16": rng.standard_normal(n).astype(ml_dtypes.bfloat16),
           "float16": None}
    with np.errstate(over="ignore"):
        out["float16"] = (rng.standard_normal(n) * 3e4).astype(np.float16)          # overflows: Inf of both signs
    for name in ("float32", "float64", "bfloat16"):
        out[name][[5, values.CHUNK + 3]] = np.nan
        out[name][values.CHUNK * 2 + 7] = -np.inf
    return out


def device(a: np.ndarray):
    """``a`` as a JAX array (a float64 one stays NumPy's: JAX would make it float32 without x64)."""
    return a if a.dtype == np.float64 else jnp.asarray(a)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "bfloat16", "float16"])
def test_a_large_values_summary_is_the_whole_arrays(name):
    a = arrays()[name]
    s = values.summarize(device(a))
    want = whole(a)
    assert (s.nan, s.inf, s.min, s.max, s.hist) == (want["nan"], want["inf"], want["min"], want["max"], want["hist"])
    assert s.mean == pytest.approx(want["mean"], rel=1e-12, abs=1e-12)
    assert s.size == a.size and s.dtype == name


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "bfloat16", "float16"])
def test_a_large_values_condition_numbers_are_the_whole_arrays(name):
    a = arrays()[name]
    d = a.astype(np.float64)
    y = d[~np.isnan(d)]
    flags = (conditions.NAN if np.isnan(d).any() else 0) | (conditions.INF if np.isinf(d).any() else 0)
    assert conditions.stats(device(a)) == (float(y.max()), float(y.min()), float(np.abs(y).max()), flags)


def test_an_all_nan_large_value_has_no_condition_numbers():
    a = np.full(values.CHUNK + 1, np.nan, np.float32)
    assert conditions.stats(a) == (None, None, None, conditions.NAN)
    s = values.summarize(a)
    assert s.nan == a.size and s.min is None and s.hist is None


def test_printing_alone_computes_no_statistics():
    s = values.summarize(jnp.arange(10.), full=False)
    assert s.data is not None and s.shape == (10,) and s.min is None and s.hist is None
