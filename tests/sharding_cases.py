"""Programs over 8 CPU devices, read by ``engine.sharding`` and shown by ``views.compiled.sharding``: run as a script
(``python tests/sharding_cases.py``), it prints one JSON object that ``tests/test_sharding.py`` checks.

XLA fixes the device count when JAX starts, and the rest of the suite runs on one device, so these cases run in
a process of their own: the flag is set here, before JAX is imported."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

import jaxprlens
from jaxprlens.engine.sharding import sharding_map


def mlp(x, w1, w2):
    return jnp.mean((jnp.tanh(x @ w1) @ w2) ** 2)


def mlp_case():
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(jnp.linspace(0, 1, 16 * 8).reshape(16, 8), NamedSharding(mesh, P("data", None)))
    w1 = jax.device_put(jnp.linspace(-1, 1, 8 * 32).reshape(8, 32), NamedSharding(mesh, P(None, "model")))
    w2 = jax.device_put(jnp.linspace(-1, 1, 32 * 32).reshape(32, 32), NamedSharding(mesh, P("model", None)))
    return mlp, (x, w1, w2)


def ring_case():
    mesh = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Explicit,))

    def ring(x):
        def body(b):
            total = jax.lax.psum(b, "i")
            return jax.lax.ppermute(b, "i", [(j, (j + 1) % 8) for j in range(8)]) + total
        return jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    return ring, (jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("i"))),)


def explicit_case():
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
    a = jax.device_put(jnp.linspace(0, 1, 16 * 8).reshape(16, 8), NamedSharding(mesh, P("data", None)))
    w = jax.device_put(jnp.linspace(-1, 1, 8 * 32).reshape(8, 32), NamedSharding(mesh, P(None, "model")))

    def explicit(a, w):
        h = a @ w
        h = jax.sharding.reshard(h, P("data", None))
        return h.sum(axis=0)
    return explicit, (a, w), mesh


def quiet_case():
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, P("data", "model")))

    def quiet(x):
        return jnp.sin(x) * 2.0 + x
    return quiet, (x,)


def attention_case():
    """A transformer block's attention with its heads split over ``model`` and the batch over ``data``."""
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)

    def put(a, *spec):
        return jax.device_put(a, NamedSharding(mesh, P(*spec)))

    x = put(jnp.linspace(-1, 1, 8 * 4 * 16).reshape(8, 4, 16), "data", None, None)
    wq, wk, wv = (put(jnp.linspace(-s, s, 16 * 4 * 4).reshape(16, 4, 4), None, "model", None) for s in (.1, .2, .3))
    wo = put(jnp.linspace(-.2, .2, 4 * 4 * 16).reshape(4, 4, 16), "model", None, None)

    def attention(x, wq, wk, wv, wo):
        q = jnp.einsum("bsd,dhk->bhsk", x, wq)
        k = jnp.einsum("bsd,dhk->bhsk", x, wk)
        v = jnp.einsum("bsd,dhk->bhsk", x, wv)
        p = jax.nn.softmax(jnp.einsum("bhsk,bhtk->bhst", q, k) / 2.0, axis=-1)
        out = jnp.einsum("bhst,bhtk->bhsk", p, v)
        y = jnp.einsum("bhsk,hkd->bsd", out, wo)
        return jnp.mean((x + y) ** 2)
    return attention, (x, wq, wk, wv, wo)


def constraint_case():
    """``with_sharding_constraint`` asking for another layout than the argument's (an all-to-all or a gather)."""
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(jnp.linspace(0, 1, 16 * 8).reshape(16, 8), NamedSharding(mesh, P(None, "model")))

    def constrained(x):
        y = jax.lax.with_sharding_constraint(x * 2.0, NamedSharding(mesh, P("data", None)))
        return jnp.sin(y).sum(axis=1)
    return constrained, (x,)


def full_text(eqn) -> str:
    """An equation on one line with every param it shows in full (the table cuts long ones at 48 characters)."""
    from jaxprlens.model.program import Var, var_text
    from jaxprlens.present.nouns import params_of
    params = " ".join(f"{p.key}={p.text}" for p in params_of(eqn) if not p.default)    # as the table hides them
    ins = " ".join(a.name if isinstance(a, Var) else a.text for a in eqn.invars)
    return f"{' '.join(var_text(v) for v in eqn.outvars)} = {eqn.primitive}{f'[{params}]' if params else ''} {ins}"


def same(a, b) -> bool:
    return all(np.allclose(np.asarray(x), np.asarray(y)) for x, y in
               zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True))


def spec_list(spec) -> list:
    return [list(p) if isinstance(p, tuple) else p for p in spec]


def read(fn, args, mesh=None) -> dict:
    """The engine's reading of one program, the texts it read, JAX's own compile of the function, JAX's printer."""
    def trace():
        return jaxprlens.trace(fn, *args)
    if mesh is not None:
        with jax.set_mesh(mesh):
            program = trace()
            printed = str(jax.make_jaxpr(fn)(*args))
            plain = jax.jit(fn).lower(*args).compile().as_text()
            expected = np.asarray(jax.jit(fn)(*args))
    else:
        program = trace()
        printed = str(jax.make_jaxpr(fn)(*args))
        plain = jax.jit(fn).lower(*args).compile().as_text()
        expected = np.asarray(jax.jit(fn)(*args))
    smap = sharding_map(program)
    ran = np.asarray(jax.jit(jax.extend.core.jaxpr_as_fun(program.jaxpr))(*args)[0])
    wanted = jax.jit(fn)(*args) if mesh is None else None
    if mesh is not None:
        with jax.set_mesh(mesh):
            wanted = jax.jit(fn)(*args)
    stepper = program.stepper()
    stepper.run()
    table = program.table(lang="en")
    return {
        "mesh": [list(smap.mesh.names), list(smap.mesh.sizes)],
        "partitions": smap.partitions,
        "collectives": [{"kind": c.kind, "eqn": c.eqn, "axes": list(c.axes), "bytes": c.bytes, "name": c.name,
                         "case": c.case, "groups": [list(g) for g in c.groups]} for c in smap.collectives],
        "layout": {k: {"spec": spec_list(v.spec), "shape": list(v.shape), "local": list(v.local),
                       "replicated": v.replicated, "manual": v.manual} for k, v in smap.layout.items()},
        "inputs": [spec_list(v.spec) for v in smap.inputs],
        "total": [smap.total.count, smap.total.bytes],
        "per_axes": [[list(k), v.count, v.bytes] for k, v in smap.per_axes.items()],
        "hlo": smap.hlo, "partitioned": smap.partitioned, "plain": plain,
        "printed": printed, "table_text": table.text(), "program_text": program.text,
        "same_as_jit": bool(np.allclose(ran, expected)),
        "run_same_as_jit": same(program.run(repeat=2, estimate=False).outputs, wanted),
        "stepped_same_as_jit": same(stepper.outputs, wanted),
        "full": {e.id: full_text(e) for e in program.walk()},
        "eqns": {e.id: e.primitive for e in program.walk()},
    }


def main() -> dict:
    out = {"devices": jax.device_count()}
    fn, args = mlp_case()
    out["mlp"] = read(fn, args)
    fn, args = ring_case()
    out["ring"] = read(fn, args)
    fn, args, mesh = explicit_case()
    out["explicit"] = read(fn, args, mesh)
    fn, args = attention_case()
    out["attention"] = read(fn, args)
    fn, args = quiet_case()
    out["quiet"] = read(fn, args)
    fn, args = constraint_case()
    out["constraint"] = read(fn, args)
    out["stepping"] = stepping()
    out["views"] = views()
    out["magic"] = magic()
    out["graph"] = graphs()
    return out


def stepping() -> dict:
    """The stepper on the ring: a step into the shard_map runs it whole, and the debugger's panel says why, in both
    languages; then the run to the end equals ``jax.jit``."""
    from jaxprlens.views.debugger.state import StateView
    fn, args = ring_case()
    program = jaxprlens.trace(fn, *args)
    st = program.stepper()
    st.step_into()
    notes = {lang: StateView(st, lang).notes() for lang in ("en", "zh")}
    html = StateView(st, "zh").values_html()
    st.run()
    return {"notes": notes, "html": html, "done": st.done, "same": same(st.outputs, jax.jit(fn)(*args))}


def graphs() -> dict:
    """The graph marked by communication: ``program.graph(sharding=...)`` as DOT and SVG for the MLP (en, zh) and
    the ring (its body open, then folded), and ``%%jaxpr --graph --sharding`` (one compile for both parts)."""
    out = {}
    fn, args = mlp_case()
    program = jaxprlens.trace(fn, *args)
    view = program.sharding(lang="en")
    for lang in ("en", "zh"):
        g = program.graph(sharding=view, lang=lang)
        out[f"mlp_{lang}"] = {"dot": g.source, "svg": g.svg()}
    out["mlp_plain"] = program.graph().source
    fn, args = ring_case()
    program = jaxprlens.trace(fn, *args)
    out["ring"] = program.graph(sharding=True).source
    out["ring_folded"] = program.graph(sharding=True, depth=0).source
    import jaxprlens.views.compiled.sharding as sharding_views
    calls = []
    real = sharding_views.sharding_map
    sharding_views.sharding_map = lambda *a, **k: calls.append(1) or real(*a, **k)
    shell = ipython()
    fn, args = mlp_case()
    shell.user_ns.update(mlp=fn, args=args)
    both = shell.run_cell_magic("jaxpr", "--graph --sharding --lang en", "mlp(*args)")
    sharding_views.sharding_map = real
    graph, shown = both.parts
    out["magic"] = {"compiles": len(calls), "same_map": graph.comms.map is shown.map, "dot": graph.source}
    return out


def ipython():
    """IPython with the extension loaded, once (a second ``load_ext`` prints to stdout, where the JSON goes)."""
    from IPython.testing.globalipapp import get_ipython
    shell = get_ipython()
    if "jaxprlens" not in shell.extension_manager.loaded:
        shell.run_line_magic("load_ext", "jaxprlens")
    return shell


def magic() -> str:
    """``%%jaxpr --sharding`` on the MLP, as a reader runs it: the view's text."""
    shell = ipython()
    fn, args = mlp_case()
    shell.user_ns.update(mlp=fn, args=args)
    view = shell.run_cell_magic("jaxpr", "--sharding --lang en", "mlp(*args)")
    return view._repr_mimebundle_()["text/plain"]


def views() -> dict:
    """``program.sharding()`` as text and HTML, in both languages, for the MLP and the ring."""
    out = {}
    for name, case in (("mlp", mlp_case), ("ring", ring_case)):
        fn, args = case()
        program = jaxprlens.trace(fn, *args)
        for lang in ("en", "zh"):
            view = program.sharding(lang=lang)
            bundle = view._repr_mimebundle_()
            out[f"{name}_{lang}"] = {"text": bundle["text/plain"], "html": bundle["text/html"]}
    return out


if __name__ == "__main__":
    json.dump(main(), sys.stdout)
