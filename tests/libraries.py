"""Real programs from the libraries people train with, and the checks tests/test_libraries.py runs on them.

Each case builds ``(fn, args)``: a pure function of arrays, as ``jax.jit`` would take it. A case whose library
is missing skips (``pytest.importorskip``): scripts/jax_compat.sh runs the suite on JAX versions without them.
Each check takes one traced case through one entry point and compares it with JAX. The multi-device cases run
in a child process with 8 simulated CPU devices (``python tests/libraries.py pmap_pmean ...``), which prints
one line of JSON: ``{case: {check: "ok" | "skip: why" | "traceback"}}``.
"""
import base64
import json
import re
import sys
import traceback

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from bs4 import BeautifulSoup

import jaxprlens
from jaxprlens.views.table.table import stored
from stepping import assert_same, drive

N, D, CLASSES = 8, 4, 3


def _data(seed=0):
    kx, ky = jax.random.split(jax.random.key(seed))
    return jax.random.normal(kx, (N, D)), jax.random.randint(ky, (N,), 0, CLASSES)


def _cross_entropy(logits, labels):
    optax = pytest.importorskip("optax")
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()   # grad: a scatter-add


def nnx_mlp_train_step():
    """flax.nnx's functional train step: split, merge, nnx.value_and_grad, nnx.Optimizer with optax adam."""
    nnx = pytest.importorskip("flax.nnx")
    optax = pytest.importorskip("optax")

    class MLP(nnx.Module):
        def __init__(self, rngs):
            self.hidden = nnx.Linear(D, 8, rngs=rngs)
            self.out = nnx.Linear(8, CLASSES, rngs=rngs)

        def __call__(self, x):
            return self.out(nnx.relu(self.hidden(x)))

    model = MLP(nnx.Rngs(0))
    graphdef, state = nnx.split((model, nnx.Optimizer(model, optax.adam(1e-2), wrt=nnx.Param)))

    def train_step(state, x, y):
        model, optimizer = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(lambda m: _cross_entropy(m(x), y))(model)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    return train_step, (state, *_data())


def _linen_mlp(nn):
    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            return nn.Dense(CLASSES)(nn.relu(nn.Dense(8)(x)))
    return MLP()


def linen_mlp_train_step():
    """flax.linen MLP: model.apply inside jax.value_and_grad, optax adam update."""
    nn = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")

    model, tx = _linen_mlp(nn), optax.adam(1e-2)
    x, y = _data()
    params = model.init(jax.random.key(1), x)

    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(lambda p: _cross_entropy(model.apply(p, x), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, optax.apply_updates(params, updates), opt_state

    return train_step, (params, tx.init(params), x, y)


def _block(nnx, d=16, heads=2, vocab=None):
    """A pre-norm transformer block (causal attention + MLP + layer norms), with an embedding if ``vocab``."""
    class Block(nnx.Module):
        def __init__(self, rngs):
            self.embed = nnx.Embed(vocab, d, rngs=rngs) if vocab else None
            self.ln1, self.ln2 = nnx.LayerNorm(d, rngs=rngs), nnx.LayerNorm(d, rngs=rngs)
            self.attn = nnx.MultiHeadAttention(heads, d, decode=False, rngs=rngs)
            self.up, self.down = nnx.Linear(d, 4 * d, rngs=rngs), nnx.Linear(4 * d, d, rngs=rngs)

        def __call__(self, x):
            mask = nnx.make_causal_mask(jnp.ones(x.shape[:2]))
            x = x + self.attn(self.ln1(x), mask=mask)
            return x + self.down(nnx.gelu(self.up(self.ln2(x))))

    return nnx.split(Block(nnx.Rngs(0)))


def transformer_block_grad():
    """A block's output, and the grad of a next-token loss through embedding, block and tied output (so the
    grad holds the scatter-adds of the embedding lookup and the integer-label cross-entropy)."""
    nnx = pytest.importorskip("flax.nnx")
    graphdef, state = _block(nnx, vocab=11)

    def loss(state, tokens):
        m = nnx.merge(graphdef, state)
        h = m(m.embed(tokens[:, :-1]))
        return _cross_entropy(m.embed.attend(h), tokens[:, 1:]), h

    def value_and_grad(state, tokens):
        (value, h), grads = jax.value_and_grad(loss, has_aux=True)(state, tokens)
        return h, value, grads

    return value_and_grad, (state, jax.random.randint(jax.random.key(3), (2, 7), 0, 11))


def equinox_mlp_train_step():
    """equinox's style: partition the model, filter_jit, filter_value_and_grad, optax adam on the arrays."""
    eqx = pytest.importorskip("equinox")
    optax = pytest.importorskip("optax")
    model = eqx.nn.MLP(D, CLASSES, width_size=8, depth=2, key=jax.random.key(4))
    params, static = eqx.partition(model, eqx.is_array)
    tx = optax.adam(1e-2)

    @eqx.filter_jit
    def train_step(params, opt_state, x, y):
        model = eqx.combine(params, static)
        loss, grads = eqx.filter_value_and_grad(lambda m: _cross_entropy(jax.vmap(m)(x), y))(model)
        updates, opt_state = tx.update(grads, opt_state, params)
        return loss, eqx.apply_updates(params, updates), opt_state

    return train_step, (params, tx.init(params), *_data())


def diffrax_ode_solve():
    """dy/dt = -k y with Heun, two fixed steps, saving y(1)."""
    diffrax = pytest.importorskip("diffrax")

    def solve(y0, k):
        term = diffrax.ODETerm(lambda t, y, k: -k * y)
        sol = diffrax.diffeqsolve(term, diffrax.Heun(), t0=0.0, t1=1.0, dt0=0.5, y0=y0, args=k,
                                  saveat=diffrax.SaveAt(t1=True), max_steps=4)
        return sol.ys

    return solve, (jnp.array([1.0, 2.0, -0.5]), jnp.float32(0.7))


def _eight():
    assert len(jax.devices()) == 8, "run with XLA_FLAGS=--xla_force_host_platform_device_count=8"


def pmap_pmean():
    """Data-parallel SGD: per-device grads averaged with pmean (psum / 8) over the mapped axis."""
    _eight()

    def step(w, xs):
        def one(w, x):
            g = jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)
            return w - 0.1 * jax.lax.pmean(g, "i"), jax.lax.psum(jnp.sum(x), "i")
        return jax.pmap(one, axis_name="i", in_axes=(None, 0))(w, xs)

    return step, (jnp.linspace(-1.0, 1.0, 6).reshape(3, 2), jnp.arange(48.0).reshape(8, 2, 3) / 48)


def jit_in_shardings():
    """A data-parallel SGD step as jax's sharding docs write it: ``jax.jit`` with ``in_shardings`` and
    ``out_shardings``, the batch sharded over 8 devices, the weights replicated, called with one sharded and one
    plain argument (the runner places them as ``jax.jit`` does)."""
    _eight()
    from functools import partial
    from jax.sharding import NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
    rows, whole = NamedSharding(mesh, P("data")), NamedSharding(mesh, P())

    @partial(jax.jit, in_shardings=(whole, rows, rows), out_shardings=(whole, whole))
    def sgd_step(w, x, y):
        loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
        return w - 0.1 * g, loss

    x = jax.device_put(jnp.arange(32.0).reshape(16, 2) / 32, rows)
    return sgd_step, (jnp.array([0.5, -0.25]), x, jnp.linspace(0.0, 1.0, 16))


def shard_map_psum():
    """A row-parallel matmul: each shard multiplies its slice, psum adds the partial products."""
    _eight()
    from jax.sharding import Mesh, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def matmul(a, w):
        return jax.shard_map(lambda a, w: jax.lax.psum(a @ w, "x"), mesh=mesh,
                             in_specs=(P(None, "x"), P("x", None)), out_specs=P())(a, w)

    return matmul, (jnp.arange(32.0).reshape(2, 16) / 32, jnp.linspace(-1.0, 1.0, 48).reshape(16, 3))


CASES = {f.__name__: f for f in (nnx_mlp_train_step, linen_mlp_train_step, transformer_block_grad,
                                 equinox_mlp_train_step, diffrax_ode_solve, pmap_pmean, shard_map_psum,
                                 jit_in_shardings)}
DEVICE_CASES = ("pmap_pmean", "shard_map_psum", "jit_in_shardings")


class Case:
    """One case, traced once: its function, arguments, Program and ``jax.jit``'s outputs."""

    def __init__(self, name):
        self.name = name
        self.fn, self.args = CASES[name]()
        self.program = jaxprlens.trace(self.fn, *self.args)
        self.want = jax.jit(self.fn)(*self.args)


def check_text(case):
    assert str(case.program) == jax.make_jaxpr(case.fn)(*case.args).pretty_print(use_color=False)


def check_table(case):
    bundle = case.program.table()._repr_mimebundle_()
    page = BeautifulSoup(bundle["text/html"], "html.parser")
    drawn = [r["data-eqn"] for r in page.select("tr.jl-row")]
    data = stored(bundle["text/html"])                          # only when the script inserts rows
    # a model-sized program folds by its inlined calls: each equation is then in one call's rows
    frags = [h for items in data.get("groups", {}).values() for h in items] + data.get("rows", [])
    later = [r["data-eqn"] for h in frags
             for r in BeautifulSoup(f"<table>{h}</table>", "html.parser").select("tr.jl-row")]
    assert sorted(drawn + later) == sorted(e.id for e in case.program.walk())
    invars = case.program.invars
    lines = bundle["text/plain"].splitlines()
    if case.program.outer is not None:       # a jitted step: its body, said in one line first
        assert lines.pop(0).startswith(f"`{case.program.outer.eqns[0].params['name']}` is one jit equation")
    lines = lines[len(case.program.constvars):]           # the body's own constants come first
    if len(invars) <= 6:
        assert lines[:len(invars)] == [f"input: {v.name}:{v.type}  ({v.path})" for v in invars]
    else:                  # a model's leaves: a line per subtree, counted, with the values it holds
        heads = list(dict.fromkeys(v.path.split(".")[0].split("[")[0] for v in invars))
        said = [x for x in lines if x.startswith("input: ")]
        assert len(said) <= len(heads) + 6 and all(
            any(x.startswith(f"input: {h}") or x.endswith(f"({h})") or f"({h}[" in x or f"({h}." in x
                for h in heads) for x in said), (said, heads)
        counted = sum(int(m.group(1)) for x in said if (m := re.search(r" · (\d+) values · ", x)))
        assert counted + sum(1 for x in said if " values · " not in x) == len(invars)


def _pictures(page: str) -> str:
    """The SVG of a graph output's pictures (``<img src="data:image/svg+xml;base64,...">``)."""
    return "".join(base64.b64decode(b).decode("utf-8")
                   for b in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page))


def check_graph(case):
    bundle = case.program.graph()._repr_mimebundle_()      # past 60 equations: drawn by inlined calls
    assert bundle["text/plain"].startswith("Dataflow graph of the program")
    assert "</svg>" in _pictures(bundle["text/html"])
    flat = _pictures(case.program.graph(max_nodes=10**6)._repr_mimebundle_()["text/html"])
    for eqn in case.program.eqns:
        assert f'id="eqn&#45;{eqn.id}"' in flat


def check_stepper_run(case):
    st = case.program.stepper(*case.args)
    st.run()
    assert_same(st.outputs, case.want, f"{case.name} stepper run")


class _Watched:
    """The stepper as drive() sees it, counting how deep its moves went."""

    def __init__(self, st):
        self.st, self.deepest = st, 1

    def __getattr__(self, name):
        attr = getattr(self.st, name)
        if name not in ("step", "step_into", "step_out", "back", "run"):
            return attr

        def move():
            attr()
            self.deepest = max(self.deepest, len(self.st.frames))
        return move


def check_stepper_mix(case):
    st = case.program.stepper(*case.args)
    deepest = {}
    for policy, seed in (("into", 0), *(("mix", seed) for seed in range(1, 7)), ("mix", 1)):
        st.reset()
        if policy in deepest and seed == 1:    # once more from the first equation with a body (a big program's
            while st.current is not None and not st.current.subs:      # few are seldom met before a Continue)
                st.step()
        watched = _Watched(st)
        drive(watched, policy, seed)
        assert_same(st.outputs, case.want, f"{case.name} {policy} {seed}")
        deepest[policy] = max(deepest.get(policy, 1), watched.deepest)
    assert deepest["mix"] > 1 or deepest["into"] == 1, deepest      # the mixes went inside what can be entered


def check_run(case):
    assert_same(case.program.run(repeat=1).outputs, case.want, f"{case.name} run()")


CHECKS = {f.__name__.removeprefix("check_"): f for f in (check_text, check_table, check_graph,
                                                          check_stepper_run, check_stepper_mix, check_run)}



VOCAB = 11


def _transformer(nnx, blocks: int, d: int = 16):
    """A ``blocks``-block nnx transformer: embedding, pre-norm blocks, tied output."""
    graphdef, block_state = _block(nnx, d=d)
    Block = type(nnx.merge(graphdef, block_state))

    class Transformer(nnx.Module):
        def __init__(self, rngs):
            self.embed = nnx.Embed(VOCAB, d, rngs=rngs)
            self.blocks = nnx.List([Block(rngs) for _ in range(blocks)])

        def __call__(self, tokens):
            x = self.embed(tokens)
            for block in self.blocks:
                x = block(x)
            return self.embed.attend(x)

    return Transformer(nnx.Rngs(0))


def nnx_transformer_train_step(blocks=2):
    """A ``blocks``-block nnx transformer (embedding, pre-norm blocks, tied output) and its train step with
    optax adam: the model-size program of issue 19 (names, signature tree, default view)."""
    nnx = pytest.importorskip("flax.nnx")
    optax = pytest.importorskip("optax")
    model = _transformer(nnx, blocks)
    graphdef, state = nnx.split((model, nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)))

    def train_step(state, tokens):
        model, optimizer = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(lambda m: _cross_entropy(m(tokens[:, :-1]), tokens[:, 1:]))(model)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    return train_step, (state, jax.random.randint(jax.random.key(5), (2, 9), 0, VOCAB))


def nnx_jit_train_step(blocks=2):
    """The flax tutorial's shape: ``@nnx.jit def train_step(model, optimizer, tokens, targets)`` with
    ``nnx.value_and_grad`` and ``optimizer.update`` (issue 28): one jit equation, seen through."""
    nnx = pytest.importorskip("flax.nnx")
    optax = pytest.importorskip("optax")
    model, vocab = _transformer(nnx, blocks), VOCAB
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3), wrt=nnx.Param)

    def loss_fn(model, tokens, targets):
        return _cross_entropy(model(tokens), targets)

    @nnx.jit
    def train_step(model, optimizer, tokens, targets):
        loss, grads = nnx.value_and_grad(loss_fn)(model, tokens, targets)
        optimizer.update(model, grads)
        return loss

    tokens = jax.random.randint(jax.random.key(5), (2, 9), 0, vocab)
    return train_step, (model, optimizer, tokens[:, :-1], tokens[:, 1:])


def linen_resnet_train_step():
    """flax.linen's ResNet block with BatchNorm, trained as linen's docs write it: a ``TrainState`` holding
    ``batch_stats``, ``@jax.jit def train_step(state, batch)``, ``apply_fn(..., train=True,
    mutable=['batch_stats'])`` inside ``jax.value_and_grad(..., has_aux=True)`` (issue 28)."""
    nn = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")
    from flax.training import train_state

    class ResNetBlock(nn.Module):
        filters: int

        @nn.compact
        def __call__(self, x, train: bool):
            residual = x
            y = nn.Conv(self.filters, (3, 3), dtype=jnp.bfloat16)(x)        # mixed precision: bf16 compute
            y = nn.BatchNorm(use_running_average=not train)(y)
            y = nn.relu(y)
            y = nn.Conv(self.filters, (3, 3), dtype=jnp.bfloat16)(y)
            y = nn.BatchNorm(use_running_average=not train, scale_init=nn.initializers.zeros)(y)
            if residual.shape != y.shape:
                residual = nn.Conv(self.filters, (1, 1), name="conv_proj")(residual)
                residual = nn.BatchNorm(use_running_average=not train, name="norm_proj")(residual)
            return nn.relu(residual + y)

    class TrainState(train_state.TrainState):
        batch_stats: dict

    model = ResNetBlock(filters=4)
    image = jax.random.normal(jax.random.key(6), (2, 6, 6, 3))
    variables = model.init(jax.random.key(7), image, train=False)
    state = TrainState.create(apply_fn=model.apply, params=variables["params"], tx=optax.sgd(0.1, momentum=0.9),
                              batch_stats=variables["batch_stats"])

    @jax.jit
    def train_step(state, batch):
        def loss_fn(params):
            out, updates = state.apply_fn({"params": params, "batch_stats": state.batch_stats}, batch["image"],
                                          train=True, mutable=["batch_stats"])
            loss = jnp.mean((out.mean(axis=(1, 2)) - batch["label"]) ** 2)
            return loss, updates
        (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        state = state.apply_gradients(grads=grads)
        state = state.replace(batch_stats=updates["batch_stats"])
        return state, loss

    batch = {"image": image, "label": jnp.linspace(0.0, 1.0, 8).reshape(2, 4)}
    return train_step, (state, batch)


def optax_multi_transform_step():
    """optax.multi_transform as its docs write it: adam on the kernels, sgd on the biases, the labels made from
    each parameter's path; a linen MLP's loss and update under ``jax.jit`` (issue 28)."""
    nn = pytest.importorskip("flax.linen")
    optax = pytest.importorskip("optax")

    def label(path, _):
        return "sgd" if path[-1].key == "bias" else "adam"

    model = _linen_mlp(nn)
    x, y = _data()
    params = model.init(jax.random.key(8), x)
    tx = optax.multi_transform({"adam": optax.adam(1e-2), "sgd": optax.sgd(1e-1)},
                               lambda params: jax.tree_util.tree_map_with_path(label, params))

    @jax.jit
    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(lambda p: _cross_entropy(model.apply(p, x), y))(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return train_step, (params, tx.init(params), x, y)


def pallas_add_one():
    """A Pallas kernel in interpret mode, called from a jitted function: x + 1 over a grid of 2 blocks of 4."""
    from jax.experimental import pallas as pl

    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1.0

    @jax.jit
    def add_one(x):
        spec = pl.BlockSpec((4,), lambda i: (i,))
        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                              in_specs=[spec], out_specs=spec, interpret=True)(x) * 2.0

    return add_one, (jnp.arange(8.0),)


CASES.update((f.__name__, f) for f in (linen_resnet_train_step, optax_multi_transform_step, pallas_add_one))
# jitted steps as their libraries' docs write them: seen through, checked as a reader meets them (check_step)
STEPS = ("linen_resnet_train_step", "optax_multi_transform_step", "equinox_mlp_train_step", "pallas_add_one",
         "jit_in_shardings")


def check_step(case):
    """A jitted step as a reader meets it (issue 28): the table opens on a real row, every binder named by its
    Python path (a sub-jaxpr's too), results grouped, sources on the user's lines, the graph's first view a
    screenful of named nodes (the calls as boxes), run() and the debugger's results as calling the function."""
    from jaxprlens.engine import values
    from jaxprlens.model.program import Var
    from jaxprlens.views.debugger.state import StateView
    p = case.program
    assert p.outer is not None and [e.primitive for e in p.outer.eqns] == ["jit"], "seen through"
    import inspect
    heads = {re.split(r"[.\[]", v.path, maxsplit=1)[0] for v in p.invars}
    assert all(v.path for v in p.invars) and heads <= set(inspect.signature(case.fn).parameters), heads
    for e in p.walk():                                     # names flow through every call boundary
        for s in e.subs:
            for binder, j in zip(s.program.invars, s.in_map):
                outer = e.invars[j] if j is not None else None
                if isinstance(outer, Var) and outer.path:
                    assert binder.path == outer.path, (e.id, binder.name, binder.path, outer.path)
    page = BeautifulSoup(p.table()._repr_mimebundle_()["text/html"], "html.parser")
    rows = [tr for tr in page.select("table.jl-eqns > tr, table.jl-eqns > tbody > tr, table.jl-eqns > thead > tr")
            if "jl-more-note" not in tr.get("class", [])]           # a line saying how the rows are folded
    first = next(i for i, tr in enumerate(rows) if {"jl-row", "jl-grow"} & set(tr.get("class", [])))
    assert first == 1, first                         # after the head row: an equation or a call
    sig = page.select_one("table.jl-sig")
    kinds = [tr["class"] for tr in sig.select(":scope > tr")]
    if len(p.outvars) > 6:                         # returned state: a folded tree, counted by subtree
        assert ["jl-outvar", "jl-sigtree"] in kinds and len(kinds) <= 3, kinds
    text = p.table().text().splitlines()
    assert sum(x.startswith("result: ") for x in text) <= 6
    sources = [e.source for e in p.walk() if e.source is not None]
    own = [s for s in sources if s.where == "libraries.py"]           # this file is the user's code
    assert len(own) >= 0.9 * len(sources), {s.where for s in sources} - {"libraries.py"}
    graph = p.graph()
    for src in [graph.source] + [v.source for v in graph.views()[:3]]:
        assert src.count("->") <= 80 and not re.search(r'label="(from |to )?(input|output) \d', src), src
    if len(list(p.walk())) > graph.max_nodes:                   # drawn by its calls: forward, backward, update
        assert len(re.findall(r'^\t"grp-[^"]+" \[label=', graph.source, re.M)) >= 2
        # results: a node per returned argument (``out[0] · 31 values``), none for a result the call drops
        said = [lab.split("\\n")[0] for lab in re.findall(r'"p/out\d+" \[label="([^"]*)"', graph.source)]
        assert said == list(dict.fromkeys(re.match(r"out(\[\d+\])?", x).group() for x in p.returned_paths)), said
    assert_same(p.run(repeat=1).outputs, case.want, f"{case.name} run()")
    st = p.stepper()
    st.run()
    assert_same(st.outputs, case.want, f"{case.name} stepper")
    results = StateView(st, "en").values()[-1]["items"]
    got = jax.tree_util.tree_leaves(st.outputs)
    assert [it.name for it in results] == (p.returned_paths or [it.name for it in results])
    assert len(results) == len(got) == len(jax.tree_util.tree_leaves(case.want))
    for it, x in zip(results, got):                # the value panel's numbers: NumPy's, on float32 copies
        if values.summarize(x).kind in ("int", "float") and np.size(x):
            _same_numbers(it, x)
    low = next((e for e in p.eqns if e.outvars and str(e.outvars[0].aval.dtype) in LOW), None)
    if low is not None:              # bf16 compute (mixed precision): a value of it in the panel, as NumPy says
        st.reset()
        while st.last_eqn is not low:
            st.step()
        item = StateView(st, "en").values()[-1]["items"][0]
        assert item.dtype == str(low.outvars[0].aval.dtype) and item.hist is not None, item
        _same_numbers(item, st.last_outputs[0])


def _same_numbers(item: dict, value):
    """A value panel item's min, max, mean and NaN count are NumPy's on a float32 copy of ``value``."""
    f = np.asarray(value).astype(np.float32)
    assert (item.min, item.max) == (float(f"{f.min():.6g}"), float(f"{f.max():.6g}")), item
    assert f"mean {f.mean(dtype=np.float64):.6g}" in item.stats, item
    assert f"NaN {int(np.isnan(f).sum())}" in item.stats, item


LOW = ("bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4")    # NumPy's kind 'V' dtypes


CHECKS_OF = {name: {**CHECKS, "step": check_step} for name in STEPS}


def outcomes(names):
    """``{case: {check: "ok" | "skip: why" | traceback text}}``, every check tried on every case."""
    result = {}
    for name in names:
        checks = CHECKS_OF.get(name, CHECKS)
        try:
            case = Case(name)
        except pytest.skip.Exception as e:
            result[name] = dict.fromkeys(checks, f"skip: {e.msg}")
            continue
        except Exception:  # noqa: BLE001 - a library that fails to load is reported, the others still run
            result[name] = {check: traceback.format_exc() for check in checks}
            continue
        result[name] = {}
        for check, fn in checks.items():
            try:
                fn(case)
                result[name][check] = "ok"
            except Exception:  # noqa: BLE001 - a failing check is reported with its traceback, the others still run
                result[name][check] = traceback.format_exc()
    return result


if __name__ == "__main__":
    print(json.dumps(outcomes(sys.argv[1:])))


# ---------------------------------------------------------------- one program per library family, as its docs
# write it: the names its calls read by (tests/test_libraries.py, "names")

def nnx_scan_remat_train_step():
    """flax.nnx's lifted transforms: layers made by ``nnx.vmap``, run by ``nnx.scan`` over ``nnx.remat``, a train
    step under ``nnx.jit`` with ``nnx.value_and_grad`` and ``nnx.Optimizer``."""
    nnx = pytest.importorskip("flax.nnx")
    optax = pytest.importorskip("optax")

    class Block(nnx.Module):
        def __init__(self, d, rngs):
            self.linear = nnx.Linear(d, d, rngs=rngs)
            self.norm = nnx.LayerNorm(d, rngs=rngs)

        def __call__(self, x):
            return x + nnx.gelu(self.linear(self.norm(x)))

    class Model(nnx.Module):
        def __init__(self, d, layers, rngs):
            @nnx.split_rngs(splits=layers)
            @nnx.vmap(in_axes=(0,), out_axes=0)
            def make(rngs):
                return Block(d, rngs)
            self.layers = make(rngs)
            self.head = nnx.Linear(d, CLASSES, rngs=rngs)

        def __call__(self, x):
            @nnx.scan(in_axes=(nnx.Carry, 0), out_axes=nnx.Carry)
            @nnx.remat
            def forward(x, layer):
                return layer(x)
            return self.head(forward(x, self.layers))

    model = Model(D, 3, nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)

    def loss_fn(model, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()

    @nnx.jit
    def train_step(model, optimizer, x, y):
        loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
        optimizer.update(model, grads)
        return loss

    return train_step, (model, optimizer, *_data())


def penzai_sequential():
    """penzai's layers: a ``pz.nn.Sequential`` of ``Linear`` and ``Elementwise`` on named axes."""
    pz = pytest.importorskip("penzai.pz")
    model = pz.nn.Sequential([
        pz.nn.Linear.from_config(name="hidden", init_base_rng=jax.random.key(0), input_axes={"features": D},
                                 output_axes={"hidden": 8}),
        pz.nn.Elementwise(jax.nn.relu),
        pz.nn.Linear.from_config(name="out", init_base_rng=jax.random.key(1), input_axes={"hidden": 8},
                                 output_axes={"classes": CLASSES}),
    ])

    def forward(model, x):
        return model(x).unwrap("batch", "classes")

    return forward, (model, pz.nx.wrap(_data()[0]).tag("batch", "features"))


def haiku_blocks_in_a_loop():
    """haiku: ``hk.transform`` of a function that makes its blocks in a list comprehension and runs them in a
    loop."""
    hk = pytest.importorskip("haiku")

    class Block(hk.Module):
        def __call__(self, x):
            return x + jax.nn.relu(hk.Linear(x.shape[-1])(x))

    def forward(x):
        blocks = [Block() for _ in range(4)]
        for block in blocks:
            x = block(x)
        return hk.Linear(CLASSES)(x)

    f = hk.transform(forward)
    x = _data()[0]
    params = f.init(jax.random.key(0), x)

    def apply(params, x):
        return f.apply(params, None, x)
    return apply, (params, x)


def mctx_muzero_search():
    """mctx: one ``muzero_policy`` search with a tiny recurrent function."""
    mctx = pytest.importorskip("mctx")
    batch, actions = 2, 3

    def recurrent_fn(params, rng_key, action, embedding):
        out = mctx.RecurrentFnOutput(reward=jnp.zeros(batch), discount=jnp.full(batch, 0.9),
                                     prior_logits=jnp.zeros((batch, actions)), value=jnp.sum(embedding, -1))
        return out, embedding + action[:, None]

    def search(params, rng_key):
        root = mctx.RootFnOutput(prior_logits=jnp.zeros((batch, actions)), value=jnp.zeros(batch),
                                 embedding=jnp.zeros((batch, D)))
        out = mctx.muzero_policy(params, rng_key, root, recurrent_fn, num_simulations=4)
        return out.action

    return search, ((), jax.random.key(0))


def installed_elsewhere(folder):
    """A library installed outside any ``site-packages`` (``pip install --target FOLDER``, then FOLDER on
    ``sys.path``): ``tinylib.dense`` called twice from the user's code."""
    import importlib
    import os
    os.makedirs(os.path.join(folder, "tinylib"))
    os.makedirs(os.path.join(folder, "tinylib-1.0.dist-info"))
    with open(os.path.join(folder, "tinylib", "__init__.py"), "w") as f:
        f.write("import jax.numpy as jnp\n\n\ndef dense(x, w):\n    y = x @ w\n    return jnp.tanh(y)\n")
    sys.path.insert(0, str(folder))
    try:
        tinylib = importlib.import_module("tinylib")
    finally:
        sys.path.remove(str(folder))

    def model(x, w):
        h = tinylib.dense(x, w)
        return tinylib.dense(h, w).sum()

    return model, (_data()[0], jnp.ones((D, D)))


def penzai_transformer(blocks=1):
    """penzai's own transformer (``llamalike_common``, one decoder block unless told): layers inside layers, each
    a module."""
    pz = pytest.importorskip("penzai.pz")
    llamalike = pytest.importorskip("penzai.models.transformer.variants.llamalike_common")
    config = llamalike.LlamalikeTransformerConfig(
        num_kv_heads=2, query_head_multiplier=1, embedding_dim=16, projection_dim=8, mlp_hidden_dim=32,
        num_decoder_blocks=blocks, vocab_size=VOCAB, mlp_variant="swiglu", tie_embedder_and_logits=True)
    model = llamalike.build_llamalike_transformer(config, init_base_rng=jax.random.key(0))

    def logits(model, tokens):
        return model(tokens).unwrap("seq", "vocabulary")

    return logits, (model, pz.nx.wrap(jnp.arange(5) % VOCAB).tag("seq"))
