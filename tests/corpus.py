"""A corpus of small JAX programs beyond the seeds, for tests that run or step every program.

``CORPUS``: name -> (fn, args).  Each is traceable with ``jaxprlens.model.trace(fn, *args)`` and
callable as ``jax.jit(fn)(*args)``.  Loops are short so that stepping into every iteration is fast.
"""
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_rng = np.random.default_rng(0)


def _f32(*shape):
    return jnp.asarray(_rng.standard_normal(shape), dtype=jnp.float32)


X8, Y8 = _f32(8), _f32(8)
M34, M45 = _f32(3, 4), _f32(4, 5)


# ---------------------------------------------------------------- elementwise and reductions

def elementwise(x, y):
    return jnp.tanh(x) * jnp.exp(-y ** 2) + jnp.log1p(jnp.abs(x)) - jnp.sqrt(jnp.abs(y) + 1.)


def reductions(m):
    return jnp.sum(m, axis=0), jnp.max(m, axis=1), jnp.mean(m), jnp.argmax(m, axis=1)


def softmax(x):
    return jax.nn.softmax(x)


def integer_ops(a, b):
    return (a // 3) * b % 7 + (a << 1) - (b >> 1), a & b, a | b


def bool_ops(x, y):
    return jnp.where((x > 0) & ~(y > 0), x, y), jnp.any(x > 1.), jnp.all(y < 3.)


def casts(x):
    return x.astype(jnp.int32), (x > 0).astype(jnp.float32) * 2, x.astype(jnp.bfloat16).astype(jnp.float32)


def reshape_transpose(m):
    return m.T.reshape(2, 6)[:, ::2], jnp.concatenate([m, m * 2], axis=0)


def indexing(x, i):
    return x[i], x[2:5], x.at[3].set(10.), x[jnp.array([0, 2, 4])]


def cumulative(x):
    return jnp.cumsum(x), jnp.cumprod(x[:4]), jnp.sort(x), jnp.argsort(x)


def broadcast(x, m):
    return x[:4, None] * m.T[:, :3] + 1.


def matmul(a, b):
    return a @ b


def dot_general(a, b):
    return lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))


def einsum(a, b):
    return jnp.einsum("ij,jk->ik", a, b), jnp.einsum("ij->", a)


def conv(x, w):
    return lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="SAME")


def conv1d(x, w):
    return jnp.convolve(x, w, mode="same")


def pad_slice(x):
    return lax.dynamic_slice(jnp.pad(x, 2), (3,), (4,)), lax.dynamic_update_slice(x, jnp.ones(2), (5,))


def clamp_select(x):
    return lax.clamp(-0.5, x, 0.5), lax.select(x > 0, x, -x)


def rng_normal(seed):
    key = jax.random.key(seed)
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (4,)) + jax.random.uniform(k2, (4,))


def complex_ops(x):
    z = x + 1j * x[::-1]
    return jnp.abs(z), jnp.angle(z), (z * z.conj()).real


def pytree_io(params, x):
    return {"y": params["w"] * x + params["b"], "n": (jnp.sum(x), x.shape[0] * 1.)}


# ---------------------------------------------------------------- control flow

def cond_tuple(p, x):
    return lax.cond(p > 0, lambda a: (a * 2., a.sum()), lambda a: (a - 1., a.max()), x)


def switch_clamp_high(x):
    return lax.switch(7, [lambda a: a + 1., lambda a: a * 2., lambda a: a - 3.], x)


def switch_clamp_low(i, x):
    return lax.switch(i, [lambda a: a + 1., lambda a: a * 2., lambda a: a - 3.], x)


def fori_sum(n):
    return lax.fori_loop(0, n, lambda i, acc: acc + i * i, 0)


def while_consts(x, limit):
    w = jnp.arange(8.)

    def body(c):
        v, k = c
        return v * 0.5 + w, k + 1

    return lax.while_loop(lambda c: (c[1] < 4) & (jnp.sum(c[0]) < limit), body, (x, 0))


def while_empty_body(x):
    return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), (0, x))


def scan_cumsum(xs):
    return lax.scan(lambda c, x: (c + x, c * x), 0., xs)


def scan_reverse(xs):
    return lax.scan(lambda c, x: (c * 0.9 + x, c), 1., xs, reverse=True)


def scan_multi(xs, ys):
    def body(carry, xy):
        a, b = carry
        x, y = xy
        return (a + x * y, b * 2.), {"p": a - x, "q": b}

    return lax.scan(body, (0., 1.), (xs, ys))


def nested_cond_in_scan(xs):
    def body(c, x):
        c = lax.cond(x > 0, lambda v: v + x, lambda v: v - x, c)
        return c, c * 2.

    return lax.scan(body, 0., xs)


def nested_scan_in_while(x):
    def body(c):
        v, k = c
        v, _ = lax.scan(lambda a, b: (a + b * v[0], None), v, jnp.ones(3))
        return v, k + 1

    return lax.while_loop(lambda c: c[1] < 2, body, (x, 0))


def nested_while_in_cond(p, x):
    def looped(v):
        return lax.fori_loop(0, 3, lambda i, a: a * 1.5 + i, v)

    return lax.cond(p, looped, lambda v: v * -1., x)


def nested_jit(x):
    @jax.jit
    def inner(a):
        @jax.jit
        def innermost(b):
            return jnp.sin(b) * 2.
        return innermost(a) + a

    return inner(x) * inner(x + 1.)


def jit_static(x):
    @functools.partial(jax.jit, static_argnums=1)
    def f(a, n):
        return a ** n
    return f(x, 3)


def map_loop(xs):
    return lax.map(lambda x: jnp.dot(x, x), xs)


def associative_scan(x):
    return lax.associative_scan(jnp.add, x)


# ---------------------------------------------------------------- transformations

def vmapped(m):
    return jax.vmap(lambda row: jnp.dot(row, row) + jnp.sin(row).sum())(m)


def vmapped_cond(xs):
    return jax.vmap(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(xs)


def vmapped_while(xs):
    return jax.vmap(lambda x: lax.while_loop(lambda v: v < 10., lambda v: v * 2. + 1., x))(xs)


def grad_tanh(x):
    return jax.grad(lambda v: jnp.sum(jnp.tanh(v) ** 2))(x)


def grad_scan(xs):
    def loss(w):
        c, _ = lax.scan(lambda c, x: (c * w + x, None), 0., xs)
        return c
    return jax.grad(loss)(0.7)


def value_and_grad_cond(x):
    return jax.value_and_grad(lambda v: lax.cond(v > 0, jnp.sin, jnp.cos, v))(x)


def jacfwd(x):
    return jax.jacfwd(lambda v: jnp.sin(v) * v[::-1])(x)


@jax.custom_jvp
def softplus(x):
    return jnp.log1p(jnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * jax.nn.sigmoid(x)


def custom_jvp(x):
    return softplus(x) * 2.


def custom_jvp_grad(x):
    return jax.grad(lambda v: jnp.sum(softplus(v)))(x)


@jax.custom_vjp
def clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -1., 1.),)


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def custom_vjp(x):
    return jnp.sum(clip_gradient(x * 3.))


def checkpointed(x):
    return jax.checkpoint(lambda v: jnp.sin(jnp.sin(v)) * v)(x)


def checkpoint_grad(x):
    return jax.grad(lambda v: jnp.sum(jax.checkpoint(lambda u: jnp.sin(u) ** 2)(v)))(x)


def hessian(x):
    return jax.hessian(lambda v: jnp.sum(v ** 3))(x)


# ---------------------------------------------------------------- a bigger one

def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.mean(x ** 2)


def mlp_grad(params, x):
    return jax.grad(mlp)(params, x)


_MLP = [(_f32(4, 5), _f32(5)), (_f32(5, 3), _f32(3))]


CORPUS = {
    "elementwise": (elementwise, (X8, Y8)),
    "reductions": (reductions, (M34,)),
    "softmax": (softmax, (X8,)),
    "integer_ops": (integer_ops, (jnp.arange(10, dtype=jnp.int32), jnp.arange(10, 20, dtype=jnp.int32))),
    "bool_ops": (bool_ops, (X8, Y8)),
    "casts": (casts, (X8 * 4,)),
    "reshape_transpose": (reshape_transpose, (M34,)),
    "indexing": (indexing, (X8, 3)),
    "cumulative": (cumulative, (X8,)),
    "broadcast": (broadcast, (X8, M34)),
    "matmul": (matmul, (M34, M45)),
    "dot_general": (dot_general, (_f32(2, 3, 4), _f32(2, 4, 5))),
    "einsum": (einsum, (M34, M45)),
    "conv": (conv, (_f32(1, 2, 6, 6), _f32(3, 2, 3, 3))),
    "conv1d": (conv1d, (X8, _f32(3))),
    "pad_slice": (pad_slice, (X8,)),
    "clamp_select": (clamp_select, (X8,)),
    "rng_normal": (rng_normal, (42,)),
    "complex_ops": (complex_ops, (X8,)),
    "pytree_io": (pytree_io, ({"w": X8, "b": 1.5}, Y8)),
    "cond_tuple": (cond_tuple, (1.0, X8)),
    "cond_tuple_false": (cond_tuple, (-1.0, X8)),
    "switch_clamp_high": (switch_clamp_high, (X8,)),
    "switch_clamp_low": (switch_clamp_low, (-5, X8)),
    "fori_sum": (fori_sum, (5,)),
    "while_consts": (while_consts, (X8, 100.)),
    "while_empty_body": (while_empty_body, (X8,)),
    "scan_cumsum": (scan_cumsum, (X8[:5],)),
    "scan_reverse": (scan_reverse, (X8[:5],)),
    "scan_multi": (scan_multi, (X8[:4], Y8[:4])),
    "nested_cond_in_scan": (nested_cond_in_scan, (X8[:5],)),
    "nested_scan_in_while": (nested_scan_in_while, (X8[:3],)),
    "nested_while_in_cond": (nested_while_in_cond, (True, X8[:3])),
    "nested_jit": (nested_jit, (X8,)),
    "jit_static": (jit_static, (X8,)),
    "map_loop": (map_loop, (M34,)),
    "associative_scan": (associative_scan, (X8,)),
    "vmapped": (vmapped, (M34,)),
    "vmapped_cond": (vmapped_cond, (X8[:4],)),
    "vmapped_while": (vmapped_while, (jnp.abs(X8[:4]),)),
    "grad_tanh": (grad_tanh, (X8,)),
    "grad_scan": (grad_scan, (X8[:4],)),
    "value_and_grad_cond": (value_and_grad_cond, (0.3,)),
    "jacfwd": (jacfwd, (X8[:3],)),
    "custom_jvp": (custom_jvp, (X8,)),
    "custom_jvp_grad": (custom_jvp_grad, (X8,)),
    "custom_vjp": (custom_vjp, (X8,)),
    "checkpointed": (checkpointed, (X8,)),
    "checkpoint_grad": (checkpoint_grad, (X8,)),
    "hessian": (hessian, (X8[:3],)),
    "mlp_grad": (mlp_grad, (_MLP, _f32(2, 4))),
}


def lambda_chain(n: int = 2000):
    """``n`` steps cycling through jnp calls and lambdas: a long top level of equations and one-equation calls
    (the shape of an unrolled model's chain of small functions)."""
    def chain(x, y):
        ops = (jnp.sin, lambda v: v * y, jnp.cos, lambda v: v + y)
        for i in range(n):
            x = ops[i % 4](x)
        return x
    return chain
