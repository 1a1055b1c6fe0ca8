"""Helpers of the stepper's tests (tests/test_stepper*.py, test_breakpoints, test_whatif, test_jitcheck): the
programs, their jax.jit values, and a driver that mixes moves at random."""
import linecache
import random

import jax
import jax.numpy as jnp
import numpy as np

from corpus import CORPUS
from jaxprlens.engine.stepper import Stepper
from jaxprlens.model import trace
from seeds import SEEDS


PROGRAMS = {**SEEDS, **CORPUS}


_traced: dict = {}


def traced(name):
    if name not in _traced:
        fn, args = PROGRAMS[name]
        _traced[name] = (trace(fn, *args), jax.jit(fn)(*args))
    return _traced[name]


def assert_same(got, want, what=""):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want), what
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), what
        if g.dtype.kind in "fc" or g.dtype == jnp.bfloat16:
            np.testing.assert_allclose(g.astype(w.dtype) if g.dtype.kind == "c" else g.astype(np.float64),
                                       w if w.dtype.kind == "c" else w.astype(np.float64),
                                       rtol=1e-5, atol=1e-6, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def drive(st: Stepper, policy, seed=0, limit=100_000):
    rng = random.Random(seed)
    n = 0
    while not st.done and n < limit:
        n += 1
        if policy == "into":
            st.step_into()
        elif policy == "step":
            st.step()
        else:
            r = rng.random()
            if r < 0.4:
                st.step_into()
            elif r < 0.7:
                st.step()
            elif r < 0.8:
                st.step_out()
            elif r < 0.95:
                st.back()
            else:
                st.run() if rng.random() < 0.3 else st.step()
    assert st.done


def assert_stepped(st: Stepper, want, what=""):
    """The stepper's outputs equal jax.jit's ``want`` (``assert_same``).  Off the CPU, a program that computes in
    a float type below float32 may differ by that type's rounding: XLA keeps excess precision and elides a cast
    round trip (``casts`` on a GPU, issue 22), so there the values need only be within ``jit_check``'s tolerance
    (twice that type's epsilon of each output's largest magnitude); types and structure stay exact."""
    if not st.low_precision() or jax.default_backend() == "cpu":
        return assert_same(st.outputs, want, what)
    assert jax.tree_util.tree_structure(st.outputs) == jax.tree_util.tree_structure(want), what
    for g, w in zip(jax.tree_util.tree_leaves(st.outputs), jax.tree_util.tree_leaves(want)):
        assert (np.asarray(g).dtype, np.shape(g)) == (np.asarray(w).dtype, np.shape(w)), what
    check = st.jit_check(want=want)
    assert check.status in ("equal", "close"), (what, check)


CELL = "import jax.numpy as jnp\ndef f(x):\n    y = jnp.sin(x)\n    return y * 2.\n"


def traced_cell(cell: str = CELL, name: str = "<ipython-input-7-abcdef>"):
    """``f`` of a notebook cell's source (its lines where IPython keeps them), traced on f32[3]."""
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    ns: dict = {}
    exec(compile(cell, name, "exec"), ns)
    return trace(ns["f"], jnp.ones(3))
