import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxprlens
from jaxprlens.model import TraceError, arg_names, count_eqns
from jaxprlens.present.i18n import role_summary
from corpus import CORPUS
from seeds import SEEDS

ALL = {**SEEDS, **CORPUS}


def traced(name):
    fn, args = ALL[name]
    return jaxprlens.trace(fn, *args)


@pytest.mark.parametrize("name", sorted(ALL))
def test_names_match_jax_printer(name):
    p = traced(name)
    text = str(p)
    # every binder the model names appears in the printed text as "name:type"
    for eqn in p.walk():
        for v in eqn.outvars:
            assert f"{v.name}:{v.type}" in text
    for v in p.invars + p.constvars:
        assert f"{v.name}:{v.type}" in text


def test_func1_model():
    p = traced("func1")
    assert [v.name for v in p.invars] == ["a", "b"]
    assert [v.path for v in p.invars] == ["first", "second"]
    assert [v.type for v in p.invars] == ["f32[8]", "f32[8]"]
    assert [e.primitive for e in p.eqns] == ["sin", "mul", "add", "reduce_sum"]
    mul = p.eqns[1]
    assert [a.name for a in mul.invars] == ["c", "3.0:f32[]"]
    assert isinstance(mul.invars[1], jaxprlens.Lit) and mul.invars[1].val == 3.0
    assert p.eqns[3].params["axes"] == (0,)
    assert p.out_paths == ["out"]
    src = p.eqns[0].source
    assert src.where == "seeds.py" and src.function == "func1"
    assert src.text == "temp = first + jnp.sin(second) * 3."


def test_func4_pytree_paths():
    p = traced("func4")
    assert [v.path for v in p.invars] == ["arg[0]", "arg[1]"]
    assert str(p) == str(traced("func1"))


def test_nested_paths_and_dict_names():
    def f(params, x):
        return jnp.tanh(x @ params["w"] + params["b"]), x.sum()
    p = jaxprlens.trace(f, {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}, jnp.ones((4, 3)))
    assert [v.path for v in p.invars] == ["params['b']", "params['w']", "x"]
    assert p.out_paths == ["out[0]", "out[1]"]


def test_varargs_and_kwargs_names():
    def f(a, *rest, scale=1.0):
        return a * scale + sum(rest)
    p = jaxprlens.trace(f, 1., 2., 3., scale=2.)
    assert [v.path for v in p.invars] == ["a", "rest[0]", "rest[1]", "scale"]
    assert arg_names(len, 2, {}) == ["obj", "arg1"]


def test_arg_names_read_off_code_as_signature_says():
    """The plain-function path (read off ``__code__``) names what ``inspect.signature`` names, through
    ``functools.wraps`` chains, positional-only and keyword-only parameters; a ``__signature__`` wins."""
    import functools
    import inspect

    def f(a, b, /, c, *more, d=1, **kw):
        return a

    def g(x, *, k):
        return x

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        return f(*args, **kwargs)

    def told(a):
        return a
    told.__signature__ = inspect.Signature([inspect.Parameter("said", inspect.Parameter.POSITIONAL_ONLY)])
    assert arg_names(f, 5, {}) == ["a", "b", "c", "more[0]", "more[1]"]
    assert arg_names(wrapped, 4, {}) == ["a", "b", "c", "more[0]"]
    assert arg_names(g, 2, {}) == ["x", "arg1"]
    assert arg_names(functools.partial(f, 1), 2, {}) == ["b", "c"]
    assert arg_names(told, 1, {}) == ["said"]
    assert arg_names(functools.wraps(told)(lambda *a: a), 2, {}) == ["said", "arg1"]
    assert arg_names(jax.jit(g), 1, {}) == ["x"]


def test_static_argnums():
    def f(x, n):
        for _ in range(n):
            x = x * 2
        return x
    p = jaxprlens.trace(f, 1., 3, static_argnums=1)
    assert [e.primitive for e in p.eqns] == ["mul", "mul", "mul"]
    assert [v.path for v in p.invars] == ["x"]
    assert len(p.args) == 1



def test_unhashable_static_argument_is_a_trace_error():
    with pytest.raises(TraceError, match=r"argument `x` \(position 0\) is static, but its value of type "
                                         r"ArrayImpl is not hashable"):
        jaxprlens.trace(lambda x: x * 2, jnp.ones(3), static_argnums=-1)


def test_param_text_is_one_line_without_dumps():
    from jaxprlens.model import param_text
    p = jaxprlens.trace(jax.nn.relu, jnp.ones(3))
    assert param_text(p.eqns[0].params["jvp_jaxpr_fun"]) == "<function jvp>"

def test_func8_hoisted_constant():
    p = traced("func8")
    assert [v.name for v in p.constvars] == ["a"]
    np.testing.assert_array_equal(np.asarray(p.consts[0]), [1])
    cond = p.eqns[2]
    assert cond.primitive == "cond"
    assert [s.label for s in cond.subs] == ["branch 0 (false)", "branch 1 (true)"]
    assert cond.invars[1] is p.constvars[0]


def test_func10_while_roles():
    p = traced("func10")
    w = p.eqns[2]
    assert w.primitive == "while"
    assert role_summary(w.roles) == "0 cond consts, 2 body consts, 3 carry"
    assert [s.key for s in w.subs] == ["cond", "body"]
    body = w.subs[1]
    assert body.in_map == [0, 1, 2, 3, 4]
    assert body.out_map == [0, 1, 2]
    assert w.subs[0].in_map == [2, 3, 4] and w.subs[0].out_map == [None]
    assert [v.name for v in w.outvars] == ["_", "_", "e"]
    assert w.outvars[0].dropped
    # the fori_loop counter increment has no user frame
    assert body.program.eqns[0].primitive == "add" and body.program.eqns[0].source is None
    assert body.program.eqns[0].id == "2/body/0"
    assert p.find("2/body/3").primitive == "add"


def test_func11_scan_roles():
    p = traced("func11")
    s = p.eqns[1]
    assert s.roles.groups == [("consts", 1), ("carry", 1), ("xs", 2)]
    assert role_summary(s.roles) == "1 const, 1 carry, 2 xs; length=16; reverse=False"
    assert role_summary(s.roles, "zh") == "1 个常量、1 个携带值、2 个 xs 数组；length=16；reverse=False"


def test_switch_and_jit_roles():
    p = traced("one_of_three")
    c = p.eqns[-1]
    assert role_summary(c.roles) == "1 index, 1 operand; 3 branches, the index must be in [0, 2]"
    assert [s.label for s in c.subs] == ["branch 0", "branch 1", "branch 2"]
    p = traced("func12")
    j = next(e for e in p.eqns if e.primitive == "jit")
    assert role_summary(j.roles) == "2 args; calls inner"
    assert j.subs[0].label == "jit inner"
    assert isinstance(j.params["jaxpr"], jaxprlens.Program)
    assert count_eqns(p) == len(p.eqns) + len(j.subs[0].program.eqns)


def test_custom_jvp_vjp_checkpoint_subprograms():
    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)
    f.defjvp(lambda p, t: (f(p[0]), t[0] * jnp.cos(p[0])))

    def h(x):
        return jax.checkpoint(lambda y: jnp.sin(y) * 2)(f(x))
    p = jaxprlens.trace(h, 1.)
    prims = [e.primitive for e in p.eqns]
    assert prims == ["custom_jvp_call", "remat2"]
    assert [s.label for s in p.eqns[0].subs] == ["custom_jvp f"]
    assert [s.label for s in p.eqns[1].subs] == ["checkpoint lambda"]
    assert [e.primitive for e in p.eqns[1].subs[0].program.eqns] == ["sin", "mul"]


def test_effects_have_no_addresses():
    def f(x):
        jax.debug.print("x={}", x)
        return x
    p = jaxprlens.trace(f, 1.)
    assert p.effects == ("Debug",)
    assert p.eqns[0].effects == ("Debug",)


def test_bad_inputs_are_explained():
    with pytest.raises(TraceError, match="not callable"):
        jaxprlens.trace(3, 1.)
    with pytest.raises(TraceError, match=r"argument `s` \(position 1\) is static, but its value of type list"):
        jaxprlens.trace(lambda x, s: x, 1., [1], static_argnums=1)
    with pytest.raises(TraceError, match="static_argnums has 5"):
        jaxprlens.trace(lambda x: x, 1., static_argnums=5)


def test_leaves_that_are_not_arrays_are_held_fixed():
    """A string in the arguments, an Equinox module's activation function: held fixed, as eqx.filter_jit
    holds them; the arrays are the program's inputs, named by their paths."""
    def f(x, cfg):
        return x * cfg["scale"] if cfg["mode"] == "scale" else x
    p = jaxprlens.trace(f, jnp.ones(3), {"mode": "scale", "scale": 2.0})
    assert [v.path for v in p.invars] == ["x", "cfg['scale']"]
    assert [e.primitive for e in p.eqns][-1] == "mul"
    assert p.stepper().run().outputs.tolist() == [2.0, 2.0, 2.0]


def test_from_jaxpr_and_repr():
    closed = jax.make_jaxpr(SEEDS["func1"][0])(*SEEDS["func1"][1])
    p = jaxprlens.from_jaxpr(closed)
    assert str(p) == closed.pretty_print(use_color=False)
    assert repr(p) == "<jaxprlens.Program: 2 inputs, 0 constants, 4 equations, 4 in all>"


def test_empty_program():
    p = jaxprlens.trace(lambda x: x, jnp.zeros((0, 3)))
    assert p.eqns == [] and p.outvars[0] is p.invars[0]
    assert str(p) == textwrap.dedent("""\
        { lambda ; a:f32[0,3]. let  in (a,) }""")


def test_attribute_paths_of_registered_dataclasses():
    import dataclasses

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: jax.Array
        b: jax.Array

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Net:
        layers: list

    def f(x, net):
        for layer in net.layers:
            x = jnp.tanh(x @ layer.w + layer.b)
        return x
    net = Net([Layer(jnp.ones((2, 2)), jnp.zeros(2)) for _ in range(3)])
    p = jaxprlens.trace(f, jnp.ones(2), net)
    assert [v.path for v in p.invars] == [
        "x", "net.layers[0].w", "net.layers[0].b", "net.layers[1].w", "net.layers[1].b",
        "net.layers[2].w", "net.layers[2].b"]


@pytest.mark.parametrize("name", sorted({**SEEDS, **CORPUS}))
def test_trace_names_every_value_as_jax_printer_does_and_prints_on_demand(name):
    """``trace`` takes the printer's names without laying its text out (a sixth of the printer's time);
    the text is printed on first use, byte-identical to JAX's."""
    from jaxprlens.model import _jax
    fn, args = {**SEEDS, **CORPUS}[name]
    closed = jax.make_jaxpr(fn)(*args)
    p = jaxprlens.trace(fn, *args)
    assert p._text == ""                                      # not printed yet
    printed = _jax.print_jaxpr(closed)
    assert _jax.print_jaxpr(closed, text=False).names == printed.names
    assert [v.name for v in p.invars] == [printed.names[v] for v in closed.jaxpr.invars]
    assert str(p) == printed.text == closed.pretty_print(use_color=False) and p.text == printed.text


@pytest.mark.parametrize("name", sorted({**SEEDS, **CORPUS}))
def test_every_source_is_the_innermost_user_frame_jax_finds(name):
    """Each equation's line (kept per code location, shared by re-traces) is JAX's ``user_frame``'s, its
    text the file's line; a second trace of the same code gives the same frames."""
    import linecache

    from jax._src import source_info_util
    from jaxprlens.model import _jax
    fn, args = {**SEEDS, **CORPUS}[name]
    want = []
    for e in jax.make_jaxpr(fn)(*args).jaxpr.eqns:
        f = source_info_util.user_frame(e.source_info.traceback)
        want.append(None if f is None else (f.file_name, f.start_line, f.function_name,
                                            linecache.getline(f.file_name, f.start_line).strip()))
    for _ in range(2):
        got = [_jax.user_frame(e) for e in jax.make_jaxpr(fn)(*args).jaxpr.eqns]
        assert [None if f is None else (f.file, f.line, f.function, f.text) for f in got] == want


def test_names_flow_through_call_boundaries():
    """A sub-jaxpr's binder bound from a value with a Python path carries that path, at any depth (issue 28)."""
    @jax.jit
    def inner(x):
        return jax.jit(jnp.sin)(x) * 2

    def f(params, x):
        return inner(params["w"]) + x
    p = jaxprlens.trace(f, {"w": jnp.ones(3)}, jnp.ones(3))
    sub = p.eqns[0].subs[0].program
    assert sub.invars[0].path == "params['w']"
    assert sub.eqns[0].subs[0].program.invars[0].path == "params['w']"       # two calls down
    text = p.table().text()
    assert "input: a:f32[3]  bound from a(arg)  params['w']" in text


# ---------------------------------------------------------------- refs, kernels, namedtuple params, modules

def _refs(x):
    r = jax.new_ref(x)
    r[...] = r[...] + 1.0
    jax.ref.addupdate(r, 1, 2.0)
    r[2] += 3.0
    return jax.ref.freeze(r)


def _add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def add_one(x):
    """A Pallas kernel in interpret mode: x + 1 over a grid of 2 blocks of 4."""
    from jax.experimental import pallas as pl
    spec = pl.BlockSpec((4,), lambda i: (i,))
    return pl.pallas_call(_add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                          in_specs=[spec], out_specs=spec, interpret=True)(x)


def _printed_lines(program) -> list:
    return [line.strip() for line in program.text.splitlines()]


JAX_012 = tuple(int(x) for x in jax.__version__.split(".")[:2]) >= (0, 12)    # refs' params as 0.12 prints them


def test_ref_reads_and_writes_are_written_as_jax_prints_them():
    from jaxprlens.model.program import statement
    from jaxprlens.present.nouns import eqn_text
    p = jaxprlens.trace(_refs, jnp.zeros(3))
    said = [eqn_text(e) for e in p.eqns]
    if JAX_012:          # every JAX: each ref statement equals its line in JAX's printout (below)
        assert said == ["b:Ref{f32[3]} = new_ref[pin=False] a", "c:f32[3] <- b[...]", "d:f32[3] = add c 1.0:f32[]",
                        "b[...] <- d", "b[1] += 2.0:f32[]", "e:f32[] <- b[2]", "f:f32[] = add e 3.0:f32[]",
                        "b[2] <- f", "g:f32[3] = freeze b"]
    lines = _printed_lines(p)
    for e in p.eqns:
        if e.primitive in ("get", "swap", "addupdate"):
            assert statement(e) == eqn_text(e) and eqn_text(e) in lines, eqn_text(e)
        else:
            assert statement(e) is None
    np.testing.assert_allclose(np.asarray(p.stepper().run().outputs), [1.0, 3.0, 4.0])


def test_a_pallas_kernel_is_written_as_jax_prints_it_with_its_grid_and_blocks():
    from jaxprlens.present.nouns import eqn_text
    p = jaxprlens.trace(add_one, jnp.arange(8.0))
    (call,) = p.eqns
    (kernel,) = call.subs
    assert (kernel.key, kernel.label, kernel.kind, kernel.in_map, kernel.out_map) == \
        ("kernel", "kernel", "kernel", [None, None], [])
    assert [eqn_text(e) for e in kernel.program.eqns] == ["e:f32[4] <- c[...]", "f:f32[4] = add e 1.0:f32[]",
                                                           "g:f32[4], d[...] <- d[...], f"]
    lines = _printed_lines(p)
    assert all(eqn_text(e) in lines for e in kernel.program.eqns)
    assert role_summary(call.roles) == ("1 kernel input; a run per point of grid (2,); input blocks f32[4]; "
                                        "output blocks f32[4]")
    assert role_summary(call.roles, "zh") == ("1 个计算内核输入；网格 (2,) 的每个点运行一次；"
                                              "输入块 f32[4]；输出块 f32[4]")


def test_table_rows_of_refs_mark_names_and_keep_no_params():
    from jaxprlens.present.rows import Rows
    from jaxprlens.present.nouns import block
    p = jaxprlens.trace(_refs, jnp.zeros(3))
    rows = block(p).rows
    html = Rows("en").row_html(rows[3], set())
    assert "<var>b</var>[...] &lt;- <var>d</var>" in html and "tree=" not in html
    read = Rows("en").row_html(rows[1], set())                  # a ref read: JAX's statement, no prim, no params
    assert "<var>c</var>:f32[3] &lt;- <var>b</var>[...]" in read
    assert "jl-prim" not in read and "jl-param" not in read
    text = p.table().text()
    assert "c:f32[3] <- b[...]" in text and "get[" not in text and "swap[" not in text


def _solve(x, m):
    return jax.lax.custom_linear_solve(lambda v: m @ v, x, lambda mv, b: b / jnp.diag(m))


def test_sub_jaxprs_in_a_namedtuple_param_get_the_printers_names():
    m = jnp.diag(jnp.array([2.0, 4.0, 5.0]))
    p = jaxprlens.trace(_solve, jnp.ones(3), m)
    eqn = next(e for e in p.eqns if e.primitive == "custom_linear_solve")
    assert [(s.key, s.in_map, s.out_map) for s in eqn.subs] == [("matvec", [0, None], [None]),
                                                                 ("solve", [1, 2], [0])]
    assert role_summary(eqn.roles) == "2 consts, 1 operand"
    names = [v.name for e in p.walk() for v in [*e.outvars, *e.invars] if hasattr(v, "raw")]
    names += [v.name for s in eqn.subs for v in s.program.invars]
    assert not [n for n in names if n.startswith("?")]
    matvec = eqn.subs[0].program
    assert [f"{v.name}:{v.type}" for v in matvec.invars] == ["a:f32[3,3]", "b:f32[3]"]
    assert "matvec={ lambda ; a:f32[3,3] b:f32[3]. let" in p.text
    params = eqn.params["jaxprs"]
    assert type(params).__name__ == "_LinearSolveTuple" and params.vecmat is None and params.matvec is matvec


def test_a_static_module_holding_arrays_is_told_what_works():
    import jaxprlens.present.i18n  # words the keyed errors
    eqx = pytest.importorskip("equinox")
    mlp = eqx.nn.MLP(2, 2, 4, 1, key=jax.random.PRNGKey(0))
    with pytest.raises(TraceError) as info:
        jaxprlens.trace(lambda model, x: model(x), mlp, jnp.ones(2), static_argnums=0)
    assert info.value.key == "trace_static_arrays"
    assert str(info.value) == (
        "argument `model` (position 0) is static, but its value of type MLP holds 4 array(s), and a static "
        "argument must be a hashable Python value: take position 0 out of static_argnums (jaxprlens traces its "
        "arrays and holds its other leaves fixed, as eqx.filter_jit does); a jax.jit'd function that takes it "
        "wants eqx.filter_jit, or `params, static = eqx.partition(model, eqx.is_array)`; for a flax nnx Module, "
        "nnx.jit or `graphdef, state = nnx.split(model)`")
    assert jaxprlens.trace(lambda model, x: model(x), mlp, jnp.ones(2)).eqns     # not static: traced


def test_a_jitted_function_given_a_module_is_told_what_works():
    import jaxprlens.present.i18n  # words the keyed errors
    eqx = pytest.importorskip("equinox")
    mlp = eqx.nn.MLP(2, 2, 4, 1, key=jax.random.PRNGKey(0))

    @jax.jit
    def step(model, x):
        return model(x)
    with pytest.raises(TraceError) as info:
        jaxprlens.trace(step, mlp, jnp.ones(2))
    e = info.value
    assert (e.key, e.fields) == ("trace_jit_non_array", {"fn": "step", "kind": "custom_jvp",
                                                         "path": "model.activation"})
    assert "eqx.filter_jit" in str(e) and "eqx.partition" in str(e) and "nnx.split" in str(e)
    assert e.text("zh").startswith("`step` 经过 jax.jit，而它位于 `model.activation` 的实参是 custom_jvp 类型")
    assert isinstance(e.__cause__, TypeError)
    assert jaxprlens.trace(eqx.filter_jit(step.__wrapped__), mlp, jnp.ones(2)).eqns    # what the advice says


def test_literals_that_compare_equal_keep_their_own_text_across_traces():
    """The literal text kept across traces is keyed by the value as printed: -0.0 is not 0.0, True is not 1,
    and a weak-typed 2 is not a float32 2.0."""
    def f(x, i, b):
        return x * -0.0 + x * 0.0 + x * 2, i + 1, jnp.logical_and(b, True)
    args = (jnp.ones(2), jnp.ones(2, jnp.int32), jnp.ones(2, bool))
    for _ in range(2):                        # the second trace reads the texts the first one kept
        p = jaxprlens.trace(f, *args)
        expected = jax.make_jaxpr(f)(*args).pretty_print(use_color=False)
        assert str(p) == expected
        lits = [a.text for e in p.eqns for a in e.invars if isinstance(a, jaxprlens.Lit)]
        assert [x for x in lits if x in expected] == lits and len(set(lits)) == len(lits) >= 4
