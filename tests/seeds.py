"""The seed article's example programs, with the arguments it traces them with."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)


def func2(inner, first, second):
    temp = first + inner(second) * 3.
    return jnp.sum(temp)


def inner(second):
    if second.shape[0] > 4:
        return jnp.sin(second)
    else:
        raise AssertionError("inner is traced with more than 4 elements")


def func3(first, second):
    return func2(inner, first, second)


def func4(arg):  # The arg is a pair.
    temp = arg[0] + jnp.sin(arg[1]) * 3.
    return jnp.sum(temp)


def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1.,
                              lambda x: x - 2.,
                              lambda x: x + 3.],
                      arg)


def func7(arg):
    return lax.cond(arg >= 0.,
                    lambda xtrue: xtrue + 3.,
                    lambda xfalse: xfalse - 3.,
                    arg)


def func8(arg1, arg2):  # Where `arg2` is a pair.
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)


def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant.
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)


def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant.

    def body(carry, aelems):
        # carry: running dot-product of the two arrays
        # aelems: a pair with corresponding elements from the two arrays
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))


def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)  # Include a constant in the inner function.
    return arg + inner(arg - 2.)


SEEDS = {
    "func1": (func1, (jnp.zeros(8), jnp.ones(8))),
    "func3": (func3, (jnp.zeros(8), jnp.ones(8))),
    "func4": (func4, ((jnp.zeros(8), jnp.ones(8)),)),
    "one_of_three": (one_of_three, (1, 5.)),
    "func7": (func7, (5.,)),
    "func8": (func8, (5., (jnp.zeros(1), 2.))),
    "func10": (func10, (np.ones(16), 5)),
    "func11": (func11, (np.ones(16), 5.)),
    "func12": (func12, (1.,)),
}
