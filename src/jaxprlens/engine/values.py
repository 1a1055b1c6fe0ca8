"""One summary of a value, whatever its JAX dtype, as data: kind, shape, dtype, NaN/Inf counts, min/max/mean, a
histogram, and what to print.  ``views.debugger.state`` (the debugger's value panel), ``views.compiled.run``
(``run()``'s outputs) and ``present.display.array_text`` say it; ``engine.conditions`` and ``engine.jitcheck`` classify
values with ``kind``.

NumPy calls bfloat16, float8_* and int4/uint4 arrays kind ``'V'`` and cannot turn a key array into an array at
all, so dtypes are read with ``jnp.issubdtype`` / ``jax.dtypes``, statistics are computed on a float64 copy
(exact for every float and int type up to 32 bits), and a key array prints its key data
(``jax.random.key_data``) beside its type as JAX writes it (``key<fry>[2]``)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

BINS = 16           # histogram bars of an array's finite values
HIST_MIN = 9        # elements an array needs for a histogram


def kind(dtype) -> str:
    """``bool``, ``int``, ``float``, ``complex``, ``key`` (a PRNG key array) or ``other`` (tokens, float0, ...)."""
    if dtype is None:
        return "other"
    try:
        return _kind(dtype)
    except TypeError:       # unhashable: not a dtype
        return "other"


@functools.lru_cache(maxsize=256)
def _kind(dtype) -> str:
    try:
        if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
            return "key"
        if jax.dtypes.issubdtype(dtype, jax.dtypes.extended):
            return "other"
        for name, base in (("bool", jnp.bool_), ("int", jnp.integer), ("float", jnp.floating),
                           ("complex", jnp.complexfloating)):
            if jnp.issubdtype(dtype, base):
                return name
    except TypeError:       # not a dtype NumPy or JAX knows
        pass
    return "other"


def kind_of(value) -> str:
    """``kind`` of a value's dtype (``other`` for a value without one)."""
    return kind(getattr(value, "dtype", None))


def is_key(value) -> bool:
    return kind_of(value) == "key"


def host(value) -> np.ndarray:
    """``value`` as a NumPy array to print or compare: a key array as its key data (raises for a value that is
    no array, e.g. a token or a tracer)."""
    if is_key(value):
        return np.asarray(jax.random.key_data(value))
    return np.asarray(value)


def numbers(arr: np.ndarray, dtype=np.float64) -> np.ndarray:
    """A float64 (or ``dtype``: pictures use float32) copy of a real array of any dtype (bool, int4, bfloat16,
    float8_*, ...)."""
    return np.asarray(arr).astype(dtype)


@dataclass(frozen=True)
class Summary:
    """One value, summarised.

    ``kind``: see ``kind``; ``dtype`` as JAX names it (``bfloat16``, ``key<fry>``); ``data``: the NumPy array to
    print (a key array's key data; None when the value is no array: ``text`` is then its ``str``).  ``nan``/
    ``inf``: counts; ``min``/``max``/``mean``: of the finite values (a complex value: of their magnitudes);
    ``hist``: ``BINS`` counts of the finite values, or None; ``re``/``im``: a complex value's ranges of real and
    imaginary parts; ``true``: a bool value's count of True; ``impl``: a key array's implementation
    (``threefry2x32``)."""
    kind: str
    shape: tuple = ()
    dtype: str = ""
    size: int = 0
    data: np.ndarray | None = None
    text: str = ""
    nan: int = 0
    inf: int = 0
    min: float | None = None
    max: float | None = None
    mean: float | None = None
    hist: list | None = None
    re: tuple | None = None
    im: tuple | None = None
    true: int | None = None
    impl: str = ""
    held: tuple | None = None    # kind "spread": (devices of this process holding blocks, devices, processes)

    @property
    def type(self) -> str:
        """The dtype and shape, e.g. ``float32[3]``, ``key<fry>[2]``."""
        return f"{self.dtype}{list(self.shape)}"


def summarize(value, bins: int = BINS, full: bool = True) -> Summary:
    """The ``Summary`` of one value: a JAX or NumPy array of any dtype, a Python scalar, or anything else;
    not ``full``: what prints it alone (kind, shape, dtype, data), no statistics."""
    k = kind_of(value)
    if k == "key":
        data = np.asarray(jax.random.key_data(value))
        impl = jax.random.key_impl(value)
        return Summary("key", tuple(value.shape), str(value.dtype), int(np.prod(value.shape, dtype=int)), data,
                       impl=str(getattr(impl, "name", impl)))
    if getattr(value, "is_fully_addressable", True) is False and not value.is_fully_replicated:
        # a global array of a multi-process program, split across processes: each sees its own blocks only
        devices = value.sharding.device_set
        held = (len(value.addressable_shards), len(devices), len({d.process_index for d in devices}))
        shape = tuple(value.shape)
        return Summary("spread", shape, str(value.dtype), math.prod(shape), text=f"{value.dtype}{list(shape)}",
                       held=held)
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - tokens, abstract values, tracers of another trace
        return Summary("other", dtype=type(value).__name__, text=str(value))
    dtype = getattr(value, "dtype", arr.dtype)
    k = kind(dtype) if k == "other" else k
    base = dict(shape=tuple(arr.shape), dtype=str(dtype), size=int(arr.size), data=arr)
    if not arr.size or k == "other" or not full:
        return Summary(k, **base)
    if k == "bool":
        n = int(np.count_nonzero(arr))
        return Summary(k, min=float(arr.min()), max=float(arr.max()), mean=n / arr.size, true=n, **base)
    if k == "complex":
        z = arr.astype(np.complex128)
        bad = ~np.isfinite(z)
        nan = int((np.isnan(z.real) | np.isnan(z.imag)).sum())
        ok = z[~bad]
        stats = {}
        if ok.size:
            mag = np.abs(ok)
            stats = dict(min=float(mag.min()), max=float(mag.max()), mean=float(mag.mean()),
                         re=(float(ok.real.min()), float(ok.real.max())),
                         im=(float(ok.imag.min()), float(ok.imag.max())))
        return Summary(k, nan=nan, inf=int(bad.sum()) - nan, **stats, **base)
    if arr.size > CHUNK:
        return Summary(k, **_real_stats(arr, bins), **base)
    data = numbers(arr)
    finite = data[np.isfinite(data)]
    stats = dict(nan=int(np.isnan(data).sum()), inf=int(np.isinf(data).sum()))
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        stats.update(min=lo, max=hi, mean=float(finite.mean()))
        if arr.size >= HIST_MIN and hi > lo:
            stats["hist"] = np.histogram(finite, bins)[0].tolist()
    return Summary(k, **stats, **base)


CHUNK = 1 << 20     # elements converted to float64 at a time: a large value's statistics need no copy of it whole


EXACT = (np.dtype(np.float32), np.dtype(np.float64))   # compared, summed in float64 and binned as they are


def chunks(arr: np.ndarray, dtype=np.float64):
    """``arr`` flattened, ``CHUNK`` elements at a time: float64 (or ``dtype``) copies (``numbers``), or, for a
    float32/float64 array read as float64 (the default), its own slices (their minimum, maximum and float64 sum,
    NaN and Inf tests are the copy's, with no copy made)."""
    flat = arr.reshape(-1)
    same = dtype == np.float64 and flat.dtype in EXACT
    for i in range(0, flat.size, CHUNK):
        yield flat[i:i + CHUNK] if same else numbers(flat[i:i + CHUNK], dtype)


def _real_stats(arr: np.ndarray, bins: int) -> dict:
    """``summarize``'s statistics of a large real array, a chunk at a time (the same numbers: the histogram over
    the finite values' own range, as ``np.histogram`` takes it)."""
    nan = inf = count = 0
    lo, hi, total = np.inf, -np.inf, 0.0
    for d in chunks(arr):
        f = _finite(d)
        if f.size < d.size:
            n_nan = int(np.isnan(d).sum())
            nan, inf = nan + n_nan, inf + d.size - f.size - n_nan
        if f.size:
            lo, hi = min(lo, float(f.min())), max(hi, float(f.max()))
            total, count = total + float(f.sum(dtype=np.float64)), count + f.size
    stats = dict(nan=nan, inf=inf)
    if count:
        stats.update(min=lo, max=hi, mean=total / count)
        if hi > lo:
            hist = np.zeros(bins, dtype=np.int64)
            for d in chunks(arr):
                hist += np.histogram(_finite(d), bins, range=(np.float64(lo), np.float64(hi)))[0]   # float64 edges
            stats["hist"] = hist.tolist()
    return stats


def _finite(d: np.ndarray) -> np.ndarray:
    ok = np.isfinite(d)
    return d if ok.all() else d[ok]
