"""``printer_names`` names every value as JAX's printer does, by a walk of its own where it knows the printing
(hoisted jaxprs, jit's binder names, dropped results), and by the printer's own pass anywhere else."""
import functools

import jax
import jax.numpy as jnp
import pytest

from jaxprlens.model import _jax
from jaxprlens.model.printnames import _Unknown, _Walk, printer_names
from corpus import CORPUS
from seeds import SEEDS


def printer(closed) -> dict:
    return _jax.print_jaxpr(closed).names


def walked(closed) -> dict:
    """The walk's names, failing the test where the walk hands the program to the printer."""
    return _Walk(_jax.open_jaxpr(closed)).names


@pytest.mark.parametrize("name", sorted({**SEEDS, **CORPUS}))
def test_the_walk_names_every_library_program_as_the_printer_does(name):
    fn, args = {**SEEDS, **CORPUS}[name]
    closed = jax.make_jaxpr(fn)(*args)
    assert walked(closed) == printer(closed)
    assert printer_names(closed) == printer(closed)


@jax.jit
def a(x):            # a hoisted jaxpr named "a": no value may then be named "a"
    return jnp.sin(x) + 1


def long(x):
    for _ in range(6):
        x = jnp.cos(x) * 2
    return x


def _twice(x):
    return a(a(x)) * 2


def _long_body(x):
    return jax.jit(long)(x) + 1          # a body of over ten equations is hoisted even when called once


def _same_name_two_bodies(x):
    f1 = jax.jit(lambda v: v * 2)
    f2 = jax.jit(lambda v: v + 1.5)           # two hoisted jaxprs named "lambda": "lambda", "lambda1"
    return f1(f1(x)) + f2(f2(x))


def _dropped(x):
    y, _ = jnp.sin(x), jnp.cos(x)            # an unused result: the printer writes it "_"
    return y, x


def _unused_top(x):
    jnp.exp(x)
    return x * 2


def _jit_passes_through(x, y):
    return jax.jit(lambda u, v: (u, v * 2, u))(x, y)      # results that are operands lend names once


def _jit_of_literal(x):
    return jax.jit(lambda u, k: u * k)(x, 3.0)


@jax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


_softplus.defjvp(lambda p, t: (_softplus(p[0]), t[0] * jax.nn.sigmoid(p[0])))


@jax.custom_vjp
def _clip_grad(x):
    return x


_clip_grad.defvjp(lambda x: (x, None), lambda _, g: (jnp.clip(g, -1, 1),))


def _custom(x):
    return _softplus(x) + _clip_grad(x)


def _cond_in_jit(x):
    return jax.jit(lambda v: jax.lax.cond(v.sum() > 0, jnp.sin, jnp.cos, v))(x)


def _scan_of_jit(xs):
    return jax.lax.scan(lambda c, x: (a(c + x), c), 0.0, xs)


HAND = {
    "jit used twice": (_twice, (jnp.ones(3),)),
    "long jit body": (_long_body, (jnp.ones(3),)),
    "two bodies of one name": (_same_name_two_bodies, (jnp.ones(3),)),
    "dropped result": (_dropped, (jnp.ones(3),)),
    "unused top result": (_unused_top, (jnp.ones(3),)),
    "jit passes operands through": (_jit_passes_through, (jnp.ones(3), jnp.ones(3))),
    "jit of a literal": (_jit_of_literal, (jnp.ones(3),)),
    "custom_jvp and custom_vjp": (_custom, (jnp.ones(3),)),
    "grad of custom rules": (jax.grad(lambda x: _custom(x).sum()), (jnp.ones(3),)),
    "cond in jit": (_cond_in_jit, (jnp.ones(3),)),
    "scan of a hoisted jit": (_scan_of_jit, (jnp.ones(4),)),
    "vmap of jit used twice": (jax.vmap(_twice), (jnp.ones((2, 3)),)),
    "grad of jit used twice": (jax.grad(lambda x: _twice(x).sum()), (jnp.ones(3),)),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_the_walk_knows_hoisting_jit_names_and_dropped_results(name):
    fn, args = HAND[name]
    closed = jax.make_jaxpr(fn)(*args)
    assert walked(closed) == printer(closed)


def test_a_hoisted_jaxprs_name_is_never_a_values_name():
    closed = jax.make_jaxpr(_twice)(jnp.ones(3))
    text = closed.pretty_print(use_color=False)
    assert text.startswith("let a = { lambda ; b:f32[3]. let")        # the printer skips "a" for values
    assert "a" not in walked(closed).values() and sorted(walked(closed).values())[0] == "b"


def test_unused_results_are_written_as_the_printer_writes_them():
    closed = jax.make_jaxpr(_unused_top)(jnp.ones(3))
    assert "_:f32[3] = exp a" in closed.pretty_print(use_color=False)
    assert "_" in walked(closed).values()


def _ref_program(x):
    r = jax.new_ref(x)
    r[...] = r[...] + 1.0
    return jax.freeze(r)


def test_a_program_the_walk_does_not_know_is_named_by_the_printer():
    """A ref read or write prints by a rule of its own (``c:f32[3] <- b[...]``): the printer's pass names it."""
    closed = jax.make_jaxpr(_ref_program)(jnp.ones(3))
    with pytest.raises(_Unknown):
        walked(closed)
    assert printer_names(closed) == printer(closed)


WALKED_TOO = {
    # a namedtuple param (custom_linear_solve's ``jaxprs``), written with ``str``: each jaxpr named apart
    "custom_linear_solve": (functools.partial(jax.lax.custom_linear_solve, lambda v: v * 2.0,
                                              solve=lambda mv, b: b / 2.0), (jnp.ones(3),)),
    "jnp.linalg.solve": (jnp.linalg.solve, (jnp.eye(3) * 2, jnp.ones(3))),
    # a hijax primitive with plain params (``SearchSorted[side=left ...]``), and both in jax.scipy's expm
    "searchsorted": (lambda x: jnp.searchsorted(x, 0.5), (jnp.linspace(0.0, 1.0, 8),)),
    "expm": (jax.scipy.linalg.expm, (jnp.eye(4) * 0.3,)),
}


@pytest.mark.parametrize("name", sorted(WALKED_TOO))
def test_namedtuple_params_and_plain_hijax_primitives_are_walked_not_printed(name):
    fn, args = WALKED_TOO[name]
    closed = jax.make_jaxpr(fn)(*args)
    bodies = [closed] + [e.params["jaxpr"] for e in closed.eqns if e.primitive.name == "jit"]
    for j in bodies:
        walked(j)                                   # no _Unknown: the printer's pass is not needed
        assert printer_names(j) == printer(j)


def test_the_printer_is_read_never_patched():
    """The printer's names are read from a name context jaxprlens made and JAX's own printing parts filled while
    they wrote the text (byte-identical to JAX's); ``jax._src.core`` is left exactly as it was."""
    from jax._src import core
    solve = functools.partial(jax.lax.custom_linear_solve, lambda v: v * 2.0, solve=lambda mv, b: b / 2.0)
    closed = [jax.make_jaxpr(fn)(jnp.ones(3)) for fn in (_ref_program, solve, _unused_top)]
    before = dict(vars(core))
    for c in closed:
        printed = _jax.print_jaxpr(c)
        assert printed.text == str(c) == c.pretty_print(use_color=False)
        top = _jax.open_jaxpr(c)
        binders = [v for v in (*top.invars, *(v for e in top.eqns for v in e.outvars))
                   if printed.names.get(v, "_") != "_"]
        assert len(binders) >= len(top.eqns)
        for v in binders:        # each named as the text writes it
            assert f"{printed.names[v]}:{v.aval.str_short(short_dtypes=True)}" in printed.text
        assert _jax.print_jaxpr(c, text=False).names == printed.names
    assert all(vars(core).get(k) is v for k, v in before.items())
