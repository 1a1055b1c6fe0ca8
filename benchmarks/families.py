"""Programs of every library family issue 40 tried, written as their docs write them, for bench_families.py.

``FAMILIES[label]`` is ``() -> (fn, args)`` (or ``(fn, args, (jax_fn, jax_args))``: bench_small.sides), a program
built anew (a re-run cell defines its functions again), or raises ``ImportError`` when its library is not installed
here.  tests/libraries.py's real programs are added by
bench_families.py; these are the families it does not hold: haiku, penzai, mctx, lineax, optimistix, jax.scipy,
more optax and diffrax, plain jnp.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


# ---------------------------------------------------------------- plain jnp and jax.scipy

def jnp_sin():
    return (lambda x: jnp.sin(x) * 2), (jnp.linspace(-1.0, 1.0, 8),)


def jnp_softmax_grad():
    def loss(w, x):
        logits = x @ w
        e = jnp.exp(logits - logits.max(-1, keepdims=True))
        return -jnp.log(e / e.sum(-1, keepdims=True))[:, 0].mean()
    return jax.grad(loss), (jnp.ones((8, 4)), jnp.ones((16, 8)))


def jnp_scan_rnn():
    def rnn(w, xs):
        def step(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()
        return lax.scan(step, jnp.zeros(8), xs)
    return rnn, (jnp.eye(8), jnp.ones((12, 8)))


def scipy_logsumexp():
    import jax.scipy.special as jss
    return (lambda x: jss.logsumexp(x, axis=-1) + jss.gammaln(x).sum(-1)), (jnp.ones((4, 8)),)


def scipy_cho_solve():
    import jax.scipy.linalg as jsl

    def solve(a, b):
        spd = a @ a.T + 4 * jnp.eye(a.shape[0])
        return jsl.cho_solve(jsl.cho_factor(spd), b)
    return solve, (jnp.ones((6, 6)) * 0.1, jnp.ones(6))


def scipy_expm():
    import jax.scipy.linalg as jsl
    return jsl.expm, (jnp.eye(4) * 0.3,)


def scipy_minimize():
    import jax.scipy.optimize as jso

    def rosen(x):
        return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    return (lambda x0: jso.minimize(rosen, x0, method="BFGS").x), (jnp.zeros(4),)


def scipy_norm_logpdf():
    import jax.scipy.stats as jst
    return (lambda x, mu: jst.norm.logpdf(x, mu, 2.0).sum() + jst.multivariate_normal.logpdf(
        x[:3], mu[:3], jnp.eye(3))), (jnp.ones(8), jnp.zeros(8))


# ---------------------------------------------------------------- optax and diffrax beyond tests/libraries.py

def optax_update(name: str):
    """One ``optax.<name>`` update of an MLP's params (the optimizer's own program, no model)."""
    import optax
    keys = iter(jax.random.split(jax.random.key(0), 8))
    params = {f"layer{i}": {"w": jax.random.normal(next(keys), (16, 16)), "b": jnp.zeros(16)} for i in range(3)}
    tx = getattr(optax, name)(1e-3)
    state = tx.init(params)

    def update(grads, state, params):
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    return update, (params, state, params)


def optax_chain_clip_schedule():
    import optax
    params = {"w": jnp.ones((8, 4)), "b": jnp.zeros(4)}
    tx = optax.chain(optax.clip_by_global_norm(1.0),
                     optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100)))
    state = tx.init(params)

    def step(params, state, x, y):
        def loss(p):
            return optax.l2_loss(x @ p["w"] + p["b"], y).mean()
        value, grads = jax.value_and_grad(loss)(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    return step, (params, state, jnp.ones((16, 8)), jnp.zeros((16, 4)))


def diffrax_tsit5_pid():
    """An adaptive diffrax solve: Tsit5 with a PID step-size controller, saving 8 points."""
    import diffrax

    def solve(y0, k):
        term = diffrax.ODETerm(lambda t, y, k: -k * y + jnp.sin(t))
        sol = diffrax.diffeqsolve(term, diffrax.Tsit5(), t0=0.0, t1=2.0, dt0=0.1, y0=y0, args=k,
                                  stepsize_controller=diffrax.PIDController(rtol=1e-5, atol=1e-5, pcoeff=0.3,
                                                                            icoeff=0.4),
                                  saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, 2.0, 8)), max_steps=64)
        return sol.ys

    return solve, (jnp.array([1.0, 2.0, -0.5]), jnp.float32(0.7))


# ---------------------------------------------------------------- lineax and optimistix

def lineax_lu():
    import lineax as lx

    def solve(a, b):
        return lx.linear_solve(lx.MatrixLinearOperator(a), b, lx.LU()).value
    return solve, (jnp.eye(6) * 2 + 0.1, jnp.ones(6))


def lineax_cg():
    import lineax as lx

    def solve(a, b):
        op = lx.MatrixLinearOperator(a @ a.T + jnp.eye(6), lx.positive_semidefinite_tag)
        return lx.linear_solve(op, b, lx.CG(rtol=1e-5, atol=1e-5)).value
    return solve, (jnp.ones((6, 6)) * 0.1, jnp.ones(6))


def optimistix_newton():
    import optimistix as optx

    def root(y0, k):
        return optx.root_find(lambda y, k: jnp.tanh(y) + k * y - 1.0, optx.Newton(rtol=1e-6, atol=1e-6), y0,
                              args=k).value
    return root, (jnp.zeros(4), jnp.float32(0.5))


def optimistix_bfgs():
    import optimistix as optx

    def fit(y0):
        return optx.minimise(lambda y, _: jnp.sum((y - jnp.arange(4.0)) ** 2 + jnp.cos(y)),
                             optx.BFGS(rtol=1e-6, atol=1e-6), y0, max_steps=64).value
    return fit, (jnp.zeros(4),)


# ---------------------------------------------------------------- haiku

def haiku_mlp_grad():
    import haiku as hk

    def forward(x):
        return hk.nets.MLP([32, 32, 4])(x)
    model = hk.without_apply_rng(hk.transform(forward))
    x = jnp.ones((8, 16))
    params = model.init(jax.random.key(0), x)

    def loss(params, x, y):
        return jnp.mean((model.apply(params, x) - y) ** 2)
    return jax.value_and_grad(loss), (params, x, jnp.zeros((8, 4)))


def haiku_blocks_in_a_loop():
    """Residual blocks made in a loop, as haiku's docs build a deep net, with a LayerNorm each."""
    import haiku as hk

    class Block(hk.Module):
        def __call__(self, x):
            h = hk.LayerNorm(-1, True, True)(x)
            return x + hk.Linear(x.shape[-1])(jax.nn.gelu(hk.Linear(2 * x.shape[-1])(h)))

    def forward(x):
        for _ in range(4):
            x = Block()(x)
        return x
    model = hk.without_apply_rng(hk.transform(forward))
    x = jnp.ones((4, 16))
    return model.apply, (model.init(jax.random.key(0), x), x)


# ---------------------------------------------------------------- penzai

def _penzai_lm():
    """penzai's own llama-like transformer, 2 blocks, and its tokens."""
    from penzai import pz
    from penzai.models.transformer.variants import llamalike_common as ll
    config = ll.LlamalikeTransformerConfig(num_kv_heads=2, query_head_multiplier=1, embedding_dim=16,
                                           projection_dim=8, mlp_hidden_dim=32, num_decoder_blocks=2,
                                           vocab_size=11, mlp_variant="swiglu", tie_embedder_and_logits=False)
    model = ll.build_llamalike_transformer(config, init_base_rng=jax.random.key(0))
    return model, pz.nx.wrap(jnp.arange(6) % 11).tag("seq")


def penzai_transformer():
    """penzai's transformer unfolded: the issue's ~300-equation case.  Frozen parameters are pytrees of arrays,
    as penzai passes a model to JAX's transforms."""
    from penzai import pz
    model, tokens = _penzai_lm()
    return (lambda model, tokens: model(tokens)), (pz.freeze_params(model), tokens)


def penzai_transformer_held():
    """The same transformer called with its mutable ``Parameter`` leaves, which ``trace`` holds fixed; JAX's side
    closes over the model, as ``make_jaxpr`` needs."""
    model, tokens = _penzai_lm()
    return (lambda model, tokens: model(tokens)), (model, tokens), ((lambda tokens: model(tokens)), (tokens,))


def penzai_sequential():
    """A pz.nn.Sequential MLP: Linear, add bias, activation, twice."""
    from penzai import pz
    mlp = pz.nn.Sequential([
        pz.nn.Affine.from_config(name="l1", init_base_rng=jax.random.key(0), input_axes={"features": 8},
                                 output_axes={"features_out": 16}),
        pz.nn.Elementwise(jax.nn.relu),
        pz.nn.Affine.from_config(name="l2", init_base_rng=jax.random.key(1), input_axes={"features_out": 16},
                                 output_axes={"features": 8}),
    ])
    x = pz.nx.wrap(jnp.ones((4, 8))).tag("batch", "features")
    return (lambda mlp, x: mlp(x)), (pz.freeze_params(mlp), x)


# ---------------------------------------------------------------- mctx

def mctx_muzero():
    import mctx
    batch, actions = 2, 4

    def recurrent(params, rng, action, embedding):
        out = mctx.RecurrentFnOutput(reward=jnp.ones(batch), discount=jnp.full(batch, 0.9),
                                     prior_logits=jnp.zeros((batch, actions)) + embedding[:, :1],
                                     value=embedding.sum(-1))
        return out, embedding * 0.5 + action[:, None]

    def policy(rng, embedding):
        root = mctx.RootFnOutput(prior_logits=jnp.zeros((batch, actions)), value=jnp.zeros(batch),
                                 embedding=embedding)
        return mctx.muzero_policy(params=(), rng_key=rng, root=root, recurrent_fn=recurrent,
                                  num_simulations=4).action
    return policy, (jax.random.key(0), jnp.ones((batch, 3)))


def mctx_gumbel():
    import mctx
    batch, actions = 2, 4

    def recurrent(params, rng, action, embedding):
        out = mctx.RecurrentFnOutput(reward=jnp.ones(batch), discount=jnp.full(batch, 0.9),
                                     prior_logits=jnp.zeros((batch, actions)), value=embedding.sum(-1))
        return out, embedding * 0.5

    def policy(rng, embedding):
        root = mctx.RootFnOutput(prior_logits=jnp.zeros((batch, actions)), value=jnp.zeros(batch),
                                 embedding=embedding)
        return mctx.gumbel_muzero_policy(params=(), rng_key=rng, root=root, recurrent_fn=recurrent,
                                         num_simulations=4).action_weights
    return policy, (jax.random.key(0), jnp.ones((batch, 3)))


# ---------------------------------------------------------------- flax nnx, equinox beyond tests/libraries.py

def nnx_scan_remat():
    """An ``nnx.jit`` step over layers made by ``nnx.vmap`` and run by ``nnx.scan`` with ``nnx.remat``."""
    from flax import nnx

    class Layer(nnx.Module):
        def __init__(self, rngs):
            self.linear = nnx.Linear(8, 8, rngs=rngs)

        def __call__(self, x):
            return jax.nn.relu(self.linear(x))

    @nnx.vmap(in_axes=0, out_axes=0)
    def make(key):
        return Layer(nnx.Rngs(key))

    layers = make(jax.random.split(jax.random.key(0), 3))

    @nnx.jit
    def forward(layers, x):
        @nnx.scan(in_axes=(0, nnx.Carry), out_axes=nnx.Carry)
        @nnx.remat
        def body(layer, x):
            return layer(x)
        return body(layers, x).sum()
    return forward, (layers, jnp.ones((4, 8)))


def equinox_mlp_grad():
    import equinox as eqx
    model = eqx.nn.MLP(8, 4, 32, 2, key=jax.random.key(0))

    params, static = eqx.partition(model, eqx.is_array)

    @eqx.filter_value_and_grad
    def loss(params, x, y):
        return jnp.mean((jax.vmap(eqx.combine(params, static))(x) - y) ** 2)
    return loss, (params, jnp.ones((16, 8)), jnp.zeros((16, 4)))


FAMILIES = {
    "jnp sin * 2": jnp_sin,
    "jnp softmax grad": jnp_softmax_grad,
    "jnp scan rnn": jnp_scan_rnn,
    "jax.scipy logsumexp+gammaln": scipy_logsumexp,
    "jax.scipy cho_solve": scipy_cho_solve,
    "jax.scipy expm": scipy_expm,
    "jax.scipy minimize BFGS": scipy_minimize,
    "jax.scipy stats logpdf": scipy_norm_logpdf,
    "optax lamb update": lambda: optax_update("lamb"),
    "optax adamw update": lambda: optax_update("adamw"),
    "optax chain clip+schedule step": optax_chain_clip_schedule,
    "diffrax Tsit5 + PID": diffrax_tsit5_pid,
    "lineax LU": lineax_lu,
    "lineax CG": lineax_cg,
    "optimistix Newton": optimistix_newton,
    "optimistix BFGS": optimistix_bfgs,
    "haiku MLP value_and_grad": haiku_mlp_grad,
    "haiku blocks in a loop": haiku_blocks_in_a_loop,
    "penzai transformer": penzai_transformer,
    "penzai transformer, Parameters held": penzai_transformer_held,
    "penzai Sequential": penzai_sequential,
    "mctx muzero_policy": mctx_muzero,
    "mctx gumbel_muzero": mctx_gumbel,
    "nnx scan+remat jit": nnx_scan_remat,
    "equinox MLP grad": equinox_mlp_grad,
}
