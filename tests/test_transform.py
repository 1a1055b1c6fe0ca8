"""Transformation views: transformed programs equal JAX's own jaxprs, alignment, lowering, diff, magic."""
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from bs4 import BeautifulSoup
from IPython.core.error import UsageError

import jaxprlens
from jaxprlens.views.compiled.diff import diff
from jaxprlens.views.compiled.lower import clean_compiled, lowering_view, parse_stablehlo
from jaxprlens.views.compiled.compare import Compare, alignment
from jaxprlens.engine.transform import (TRANSFORMS, batched_call, comma_items, describe, int_list, parse_argnums,
                                        parse_axes, rebuilt)
from seeds import SEEDS


def program(name):
    f, args = SEEDS[name]
    return jaxprlens.trace(f, *args)


def ones(tree):
    return jax.tree_util.tree_map(jnp.ones_like, tree)


def printed(closed):
    return closed.pretty_print(use_color=False)


# ---------------------------------------------------------------- oracles: JAX's own printer

def _linearize(f, args):
    return jax.linearize(f, *args)


ORACLES = {
    ("func1", "grad", ()): lambda f, a: jax.make_jaxpr(jax.grad(f))(*a),
    ("func1", "jacfwd", ()): lambda f, a: jax.make_jaxpr(jax.jacfwd(f))(*a),
    ("func1", "jacrev", ()): lambda f, a: jax.make_jaxpr(jax.jacrev(f))(*a),
    ("func1", "hessian", ()): lambda f, a: jax.make_jaxpr(jax.hessian(f))(*a),
    ("func1", "grad", (("argnums", "0,1"),)): lambda f, a: jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(*a),
    ("func1", "jvp", ()): lambda f, a: jax.make_jaxpr(lambda p, t: jax.jvp(f, p, t))(a, ones(a)),
    ("func1", "vjp", ()): lambda f, a: jax.make_jaxpr(jax.vjp(f, *a)[1])(1.0),
    ("func1", "linearize", ()): lambda f, a: jax.make_jaxpr(_linearize(f, a)[1])(*ones(a)),
    ("func1", "transpose", ()): lambda f, a: jax.make_jaxpr(
        jax.linear_transpose(_linearize(f, a)[1], *a))(jnp.ones_like(_linearize(f, a)[0])),
    ("func4", "grad", ()): lambda f, a: jax.make_jaxpr(jax.grad(f))(*a),
    ("func11", "grad", (("has_aux", True),)): lambda f, a: jax.make_jaxpr(jax.grad(f, has_aux=True))(*a),
    ("func11", "vmap", (("in_axes", "0,None"),)): lambda f, a: jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(
        jnp.stack([a[0]] * 2), a[1]),
    ("func7", "vmap", ()): lambda f, a: jax.make_jaxpr(jax.vmap(f))(jnp.stack([jnp.asarray(a[0])] * 2)),
    ("func7", "grad", ()): lambda f, a: jax.make_jaxpr(jax.grad(f))(*a),
    ("func10", "jvp", ()): lambda f, a: jax.make_jaxpr(
        lambda p, t: jax.jvp(lambda x: f(x, p[1]), (p[0],), t))(a, (ones(jnp.asarray(a[0], jnp.float32)),)),
    ("func10", "vmap", (("in_axes", "0,None"),)): lambda f, a: jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(
        jnp.stack([a[0]] * 2), a[1]),
    ("func1", "vmap", (("batched", True),)): lambda f, a: jax.make_jaxpr(jax.vmap(f))(*a),
    ("func1", "vmap", (("in_axes", "0,None"), ("batched", True))): lambda f, a: jax.make_jaxpr(
        jax.vmap(f, in_axes=(0, None)))(*a),
    ("one_of_three", "grad", (("argnums", 1),)): lambda f, a: jax.make_jaxpr(jax.grad(f, argnums=1))(*a),
    ("func12", "jvp", ()): lambda f, a: jax.make_jaxpr(lambda p, t: jax.jvp(f, p, t))(a, ones(a)),
}


@pytest.mark.parametrize("seed,name,options", list(ORACLES), ids=lambda x: str(x))
def test_transformed_text_is_jax_printer(seed, name, options):
    f, args = SEEDS[seed]
    got = program(seed).transform(name, **dict(options))
    assert got.text == printed(ORACLES[seed, name, options](f, args))
    assert str(got) == got.text


def test_seed_shapes_of_the_transformations():
    scans = [e for e in program("func11").transform("grad", has_aux=True).walk() if e.primitive == "scan"]
    assert [e.params["reverse"] for e in scans] == [False, True]        # the transposed scan runs backwards
    assert "select_n" in [e.primitive for e in program("func7").transform("vmap").walk()]
    loop = next(e for e in program("func10").transform("jvp").eqns if e.primitive == "while")
    assert len(loop.outvars) == 4          # i, n, the primal carry and its tangent carry
    assert program("func10").transform("jvp").in_paths == ["primals[0]", "primals[1]", "tangents[0]"]
    lin = program("func1").transform("linearize")
    assert [e.primitive for e in lin.eqns] == ["mul", "mul", "add", "reduce_sum"]
    assert [e.primitive for e in program("func1").transform("transpose").eqns] == ["broadcast_in_dim", "mul", "mul"]


# ---------------------------------------------------------------- alignment

ALIGNED = [(s, "grad", {}) for s in ("func1", "func3", "func4", "func7")] + [("func11", "grad", {"has_aux": True})] + \
          [("one_of_three", "grad", {"argnums": 1})] + \
          [(s, "jvp", {}) for s in SEEDS]


@pytest.mark.parametrize("seed,name,options", ALIGNED, ids=lambda x: str(x))
def test_alignment_covers_every_sourced_equation(seed, name, options):
    original = program(seed)
    transformed = original.transform(name, **options)
    al = alignment(original, transformed)
    sourced = [e.id for e in original.walk() if e.source]
    assert sourced and sorted(al) == sorted(sourced)
    assert all(al[i] for i in sourced), {i: al[i] for i in sourced if not al[i]}
    ids = {e.id for e in transformed.walk()}
    assert all(j in ids for js in al.values() for j in js)
    # equations made by the transformation machinery carry no jaxprlens source line
    assert all(e.source is None or e.source.where != "transform.py" for e in transformed.walk())


def test_compare_view_marks_new_equations_and_counts():
    original = program("func11")
    view = Compare(original, original.transform("grad", has_aux=True), "grad(func11)")
    bundle = view._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    text = bundle["text/plain"]
    assert text.splitlines()[0].startswith(f"original: {len(original.eqns)} equations")
    assert "grad(func11): 4 equations" in text
    soup = BeautifulSoup(bundle["text/html"], "html.parser")
    orig = soup.select('[data-side="orig"]')
    made = soup.select('[data-side="made"]') + soup.select('[data-side="new"]')
    assert len(orig) == len(list(original.walk()))
    assert len(made) == len(list(view.transformed.walk()))
    # the second (reverse) scan comes from the same source line as the forward scan
    scan_line = next(e.source.line for e in original.eqns if e.primitive == "scan")
    grouped = [g for g in view.groups() if g[0] and g[0].line == scan_line][0]
    assert [e.id for e in grouped[2]] == ["2", "3"]


def test_compare_escapes_source_text():
    def lt(x):
        return jnp.sum(jnp.where(x < 0., -x, x))  # <b>bold</b> & more
    p = jaxprlens.trace(lt, jnp.ones(3))
    html = Compare(p, p.transform("grad"))._repr_mimebundle_()["text/html"]
    assert "<b>bold" not in html and "&lt;b&gt;bold" in html and "x &lt; 0." in html


# ---------------------------------------------------------------- stepping equals jax.jit

def _close(a, b):
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=1e-6)


STEPPED = [("func1", "grad", {}), ("func11", "grad", {"has_aux": True}), ("func7", "vmap", {}), ("func10", "jvp", {}),
           ("func1", "linearize", {}), ("func1", "transpose", {}), ("func1", "vjp", {}),
           ("func8", "vmap", {"in_axes": "0,None"}), ("func12", "jacrev", {}),
           ("func1", "vmap", {"batched": True})]


@pytest.mark.parametrize("seed,name,options", STEPPED, ids=lambda x: str(x))
def test_stepping_transformed_program_equals_jit(seed, name, options):
    p = program(seed).transform(name, **options)
    fn, args, kwargs = rebuilt(p)
    expected = jax.jit(fn)(*args, **kwargs)
    flat = jax.extend.core.jaxpr_as_fun(p.jaxpr)(*p.args)
    _close(p.unflatten_outputs(flat), expected)
    _close(p.stepper().run().outputs, expected)


# ---------------------------------------------------------------- errors

def test_bad_transform_and_options():
    p = program("func1")
    with pytest.raises(ValueError, match="must be one of.*'grad'.*'hessian'"):
        p.transform("gradd")
    with pytest.raises(ValueError, match="vmap does not take argnums"):
        p.transform("vmap", argnums=0)
    with pytest.raises(ValueError, match=r"^jax.grad refuses grad\(func10\): Gradient only defined for scalar-output "
                                         r"functions. Output had shape: \(16,\)\."):
        program("func10").transform("grad")
    with pytest.raises(ValueError, match=r"choose argnums from \[1\]"):
        program("one_of_three").transform("grad")
    with pytest.raises(ValueError, match=r"no argument is, so pass floats \(e.g. jnp.arange\(3.\)"):
        jaxprlens.trace(lambda i: jnp.sum(i * 2), jnp.arange(3)).transform("grad")
    with pytest.raises(ValueError, match="in_axes has 1 entries"):
        p.transform("vmap", in_axes=(0,))
    with pytest.raises(ValueError, match=r"argument 1 is static \(static_argnums\), so grad cannot take it"):
        jaxprlens.trace(SEEDS["func10"][0], *SEEDS["func10"][1], static_argnums=1).transform("grad", argnums=1)
    with pytest.raises(ValueError, match="from_jaxpr"):
        jaxprlens.from_jaxpr(jax.make_jaxpr(SEEDS["func1"][0])(*SEEDS["func1"][1])).transform("grad")


def test_in_axes_as_written_is_checked_on_its_own():
    assert parse_axes("0, None") == (0, None) and parse_axes("-1") == (-1,)
    with pytest.raises(ValueError, match=r"--in-axes takes integers or None separated by commas, such as 0,None; "
                                         r"got '0,x'"):
        parse_axes("0,x")
    with pytest.raises(ValueError, match="--in-axes takes integers"):
        parse_axes(" , ")
    with pytest.raises(ValueError, match="in_axes maps no argument"):
        parse_axes("None,None")


def test_a_title_writes_the_options_as_the_magic_line_does():
    p = program("func11")
    assert describe("vmap", p, {"in_axes": (0, None)}) == "vmap(func11, in_axes=0,None)"
    assert describe("grad", p, {"argnums": 0, "has_aux": None}) == "grad(func11, argnums=0)"
    assert describe("vmap", p, {"in_axes": "0,None", "batched": True}) == "vmap(func11, in_axes=0,None, batched=True)"
    assert p.transform("vmap", in_axes=(0, None)).title == p.transform("vmap", in_axes="0,None").title


# ---------------------------------------------------------------- lowering

def test_stablehlo_links_equations_to_ops():
    p = program("func1")
    view = lowering_view(p)
    lines = view.hlo.lines
    ops = {eid: [lines[n - 1].split("=")[1].split()[0] for n in ns] for eid, ns in view.links.items()}
    assert ops["0"] == ["stablehlo.sine"]
    assert "stablehlo.multiply" in ops["1"] and ops["2"] == ["stablehlo.add"]
    assert "stablehlo.reduce(%3" in " ".join(ops["3"])
    text = view._repr_mimebundle_()["text/plain"]
    assert "loc(" not in text and "#loc" not in text and "/work" not in text
    html = view._repr_mimebundle_()["text/html"]
    soup = BeautifulSoup(html, "html.parser")
    assert soup.select_one('[data-eqns="0"]').get_text().strip().endswith("tensor<8xf32>")
    assert html == lowering_view(p)._repr_mimebundle_()["text/html"]        # deterministic ids


def test_stablehlo_links_nested_and_transformed():
    p = program("func10").transform("jvp")
    view = lowering_view(p)
    assert "stablehlo.while" in " ".join(view.hlo.lines)
    assert any(eid.startswith("2/body/") for eid in view.links)


def test_compiled_hlo_is_clean():
    view = lowering_view(program("func1"), compiled=True)
    assert view.compiled.startswith("HloModule jit_func1")
    assert "FileNames" not in view.compiled and "stack_frame_id" not in view.compiled
    assert "/" + "work" not in view.compiled
    assert clean_compiled('x "/a/b/c.py" fingerprint=abc123 y\n') == 'x "c.py" y\n'


def test_parse_stablehlo_locations():
    text = textwrap.dedent('''\
        #loc1 = loc("x")
        module @m {
          %0 = stablehlo.sine %arg0 : tensor<f32> loc(#loc4)
        } loc(#loc)
        #loc = loc(unknown)
        #loc2 = loc("/some/where/my.py":7:3 to :9)
        #loc3 = loc(callsite(#loc2 at #loc1))
        #loc4 = loc("jit(f)/sin"(#loc3))
        ''')
    hlo = parse_stablehlo(text)
    assert hlo.lines == ["module @m {", "  %0 = stablehlo.sine %arg0 : tensor<f32>", "}"]
    assert hlo.where[1] == ("sin", "my.py", 7)


# ---------------------------------------------------------------- diff

def test_diff_of_two_vmaps():
    p = program("func11")
    d = diff(p.transform("vmap", in_axes="0,None"), p.transform("vmap", in_axes="None,0"), labels=("x", "extra"))
    c = d.counts
    assert c["added"] and c["removed"] and c["changed"] and c["same"]
    assert d.text().splitlines()[0] == f"diff x → extra: {d.summary()}"
    soup = BeautifulSoup(d._repr_mimebundle_()["text/html"], "html.parser")
    assert len(soup.select("tr[data-status]")) == len(d.rows)
    assert sum(c.values()) == len(d.rows)


def test_diff_of_a_program_with_itself_is_all_same():
    p = program("func10")
    d = diff(p, program("func10"), context=False)
    assert d.counts["same"] == len(list(p.walk())) and d.text().count("\n") == 0


# ---------------------------------------------------------------- the magic

FUNC11_CELL = textwrap.dedent("""\
    import jax.numpy as jnp
    from jax import lax
    def func11(arr, extra):
        ones = jnp.ones(arr.shape)
        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)
        return lax.scan(body, 0., (arr, ones))
    func11(jnp.ones(16), 5.)""")


def test_magic_transform_grad(ip):
    view = ip.run_cell_magic("jaxpr", "--transform grad --has-aux", FUNC11_CELL)
    assert "reverse=True" in view._repr_mimebundle_()["text/plain"]
    assert "jl-table" in view._repr_mimebundle_()["text/html"]


def test_magic_transform_vmap_compare(ip):
    view = ip.run_cell_magic("jaxpr", "--transform vmap --in-axes 0,None --compare", FUNC11_CELL)
    assert isinstance(view, Compare)
    text = view._repr_mimebundle_()["text/plain"]
    assert "vmap(func11, in_axes=0,None)" in text and "cell line 7" in text


def test_magic_lower_and_compiled(ip):
    view = ip.run_cell_magic("jaxpr", "--lower --compiled", FUNC11_CELL)
    text = view._repr_mimebundle_()["text/plain"]
    assert "stablehlo.while" in text           # the scan lowers to a while loop
    assert "optimized HLO" in text and "→ L" in text


FUNC10_STATIC_CELL = """import jax.numpy as jnp
def powers(x, n):
    for _ in range(n):
        x = x * x
    return jnp.sum(x)
powers(jnp.arange(3.), 3)"""


def test_lowering_keeps_static_arguments(ip):
    view = ip.run_cell_magic("jaxpr", "--lower --compiled --static-argnums 1", FUNC10_STATIC_CELL)
    text = view._repr_mimebundle_()["text/plain"]
    assert text.count("stablehlo.multiply") == 3          # the loop over n=3, unrolled as the call traced it
    assert "optimized HLO" in text
    x = jnp.arange(3.)
    p = jaxprlens.trace(lambda x, n, scale: jnp.sum(x ** n) * scale, x, 2, 1.5, static_argnums=(1,))
    assert lowering_view(p).hlo.lines == lowering_view(jaxprlens.trace(
        lambda x, scale: jnp.sum(x ** 2) * scale, x, 1.5)).hlo.lines


def test_magic_bad_transform(ip):
    with pytest.raises(UsageError, match="unknown transformation 'gard'.*grad.*vmap.*hessian"):
        ip.run_cell_magic("jaxpr", "--transform gard", FUNC11_CELL)
    with pytest.raises(UsageError, match="--in-axes does not apply to grad; it applies to vmap"):
        ip.run_cell_magic("jaxpr", "--transform grad --in-axes 0", FUNC11_CELL)
    with pytest.raises(UsageError, match="argument 1 is static"):
        ip.run_cell_magic("jaxpr", "--transform grad --argnums 1 --static-argnums 1", FUNC11_CELL)


@pytest.mark.parametrize("opts, zh", [
    ("--transform gard", "未知变换 'gard'（必须是以下之一：{names}）"),
    ("--transform grad --in-axes 0", "--in-axes 不适用于 grad；它适用于 vmap"),
    ("--transform grad --argnums 1 --static-argnums 1",
     "实参 1 是静态的（static_argnums），grad 不能作用于它；请选择一个被 trace 的实参"),
    ("--transform grad --argnums 5", "argnums 含有 5，但调用只有 2 个位置实参；请从 [0, 1] 中选择"),
    ("--transform vmap --in-axes 0,x", "--in-axes 接受以逗号分隔的整数或 None，例如 0,None；收到的是 '0,x'"),
    ("--transform vmap --in-axes None,None", "in_axes 没有映射任何实参；请至少给出一个轴，例如 0"),
])
def test_magic_bad_transform_in_chinese(ip, opts, zh):
    """The engine raises a key and fields; the magic says them in the cell's language."""
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"--lang zh {opts}", FUNC11_CELL)
    assert str(info.value) == zh.format(names=list(TRANSFORMS))


def test_transform_keeps_static_arguments():
    def f(x, n, scale):
        for _ in range(n):              # Python loop over a static int: unrolled at trace time
            x = jnp.sin(x) * scale
        return jnp.sum(x)
    x = jnp.arange(3.)
    p = jaxprlens.trace(f, x, 2, 1.5, static_argnums=1)
    assert p.static == {1: 2}
    g = p.transform("grad", argnums=2)             # argnums count positions as the call is written
    expected = jax.make_jaxpr(jax.grad(f, argnums=2), static_argnums=1)(x, 2, 1.5)
    assert str(g) == expected.pretty_print(use_color=False)
    np.testing.assert_allclose(g.stepper().run().outputs, jax.grad(f, argnums=2)(x, 2, 1.5), rtol=1e-5)
    v = p.transform("vmap", in_axes="0,None,None")  # one entry per positional argument, static included
    assert v.invars[0].type == "f32[2,3]"
    np.testing.assert_allclose(v.stepper().run().outputs, jax.vmap(lambda x: f(x, 2, 1.5))(jnp.stack([x, x])),
                               rtol=1e-5)


def test_magic_transform_with_static_argnums(ip):
    view = ip.run_cell_magic("jaxpr", "--transform grad --static-argnums 1", FUNC10_STATIC_CELL)
    assert [e.primitive for e in view.program.eqns].count("mul") >= 3


def test_every_transform_is_listed():
    assert list(TRANSFORMS) == ["grad", "jvp", "vjp", "vmap", "linearize", "transpose", "jacfwd", "jacrev",
                                "hessian"]


def test_transformed_program_says_what_it_is():
    p = program("func7").transform("vmap")
    assert p.title == "vmap(func7)" and p.title_note == (("note_vmap", {}),)
    assert p.table().text().splitlines()[0] == "vmap(func7): a batch of 2, each mapped argument stacked twice along its axis"  # noqa: E501 - the exact text a reader sees, kept whole
    assert p.table(lang="zh").text().splitlines()[0] == "vmap(func7)：批大小为 2，每个被映射的实参沿其轴堆叠两次"
    caption = BeautifulSoup(p.table()._repr_mimebundle_()["text/html"], "html.parser").select_one(".jl-cap")
    assert caption.get_text().startswith("vmap(func7): a batch of 2") and "signature" in caption.get_text()
    assert program("func1").transform("grad").title == "grad(func1)"


# ---------------------------------------------------------------- vmap over a call that is already a batch

def piecewise(x):
    return jax.lax.cond(x > 0, jnp.sin, jnp.cos, x)


def scaled(x, n, *, scale):
    for _ in range(n):                 # a static loop count
        x = piecewise(jnp.sum(x)) * scale * x
    return x


def test_batched_vmap_maps_the_arguments_as_written():
    xs, s = jnp.array([[-1., 0.5], [2., 3.], [0., 1.]]), jnp.array([2., 3.])
    # piecewise(xs) itself cannot trace (cond on an array), so the call is traced as vmap's example
    with pytest.raises(TypeError, match="Pred must be a scalar"):
        jaxprlens.trace(piecewise, xs)
    original, batched = batched_call(scaled, (xs, 2), {"scale": s}, in_axes="1,None", static_argnums=(1,))
    expected = jax.make_jaxpr(jax.vmap(lambda x, scale: scaled(x, 2, scale=scale), in_axes=(1,)))(xs, scale=s)
    assert batched.text == printed(expected)
    assert [v.type for v in original.invars] == ["f32[3]", "f32[]"] and original.static == {1: 2}
    assert batched.title == "vmap(scaled, in_axes=1,None, batched=True)"
    assert batched.table().text().splitlines()[0] == batched.title + ": a batch of 2, the arguments as written"
    _close(batched.stepper().run().outputs, jax.vmap(lambda x, scale: scaled(x, 2, scale=scale), in_axes=(1,))(
        xs, scale=s))


def test_batched_keeps_the_traced_call_as_one_example_otherwise():
    p = jaxprlens.trace(jnp.multiply, jnp.ones((3, 2)), 2.)
    assert p.transform("vmap", in_axes="0,None").invars[0].type == "f32[2,3,2]"       # stacked twice
    assert p.transform("vmap", in_axes="0,None", batched=True).invars[0].type == "f32[3,2]"
    p = jaxprlens.trace(jnp.multiply, jnp.ones((3, 2)), jnp.ones(2))
    assert p.transform("vmap", in_axes="1,0", batched=True).text == printed(
        jax.make_jaxpr(jax.vmap(jnp.multiply, in_axes=(1, 0)))(jnp.ones((3, 2)), jnp.ones(2)))


@pytest.mark.parametrize("args, options, message", [
    ((jnp.ones(3), 2.), {}, r"^cannot vmap over the arguments as written: argument 1 is f32\[\], which has no "
                            r"axis 0 to map; give it a batch axis, map it with None in --in-axes"),
    ((jnp.ones((3, 2)), jnp.ones(2)), {},
     r"the batch sizes differ \(argument 0 has 3 along axis 0, argument 1 has 2 along axis 0\)"),
    ((jnp.ones((3, 2)), jnp.ones(2)), {"in_axes": "-3,None"}, r"argument 0 is f32\[3,2\], which has no axis -3"),
])
def test_batched_vmap_says_why_there_is_no_batch(args, options, message):
    p = jaxprlens.trace(jnp.multiply, *args)
    with pytest.raises(ValueError, match=message):
        p.transform("vmap", batched=True, **options)


def test_only_vmap_takes_batched():
    with pytest.raises(ValueError, match=r"grad does not take batched"):
        program("func1").transform("grad", batched=True)


def test_comma_separated_options_are_read_one_way():
    assert comma_items(" 0 , None ,, 1 ") == ["0", "None", "1"] and comma_items("") == []
    assert int_list("0,1") == int_list(" 0 , 1 ,") == (0, 1) and int_list("") == () and int_list("-1") == (-1,)
    with pytest.raises(ValueError) as e:
        int_list("0,x", "--static-argnums")
    assert str(e.value) == "--static-argnums takes comma-separated integers such as 0 or 0,1; got '0,x'"
    assert e.value.text("zh") == "--static-argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 '0,x'"
    with pytest.raises(ValueError, match=r"^--argnums takes comma-separated integers such as 0 or 0,1; got '1.5'$"):
        parse_argnums("1.5", (jnp.ones(2), jnp.ones(2)), 0)
    assert parse_argnums(" 1 ", (jnp.ones(2), jnp.ones(2)), 0) == (1,)


# ---------------------------------------------------------------- what users trace: jitted calls, held leaves

@jax.jit
def jitted_loss(w, x):
    return jnp.sum(jnp.tanh(x @ w))


def calls_a_library(w, x):
    """A plain function whose library jits inside (lineax, optimistix, ott do)."""
    return jax.jit(lambda a, b: jnp.sum(jnp.tanh(b @ a)), )(w, x)


W, X = jnp.linspace(-1., 1., 6).reshape(3, 2), jnp.linspace(0., 2., 12).reshape(4, 3)


def outputs(p):
    return p.stepper().run().outputs


@pytest.mark.parametrize("fn", [jitted_loss, calls_a_library], ids=["jax.jit", "jit inside"])
def test_transforms_of_a_call_that_is_one_jit(fn):
    p = jaxprlens.trace(fn, W, X)
    assert p.outer is not None                          # seen through: the program is the jit's body
    g = p.transform("grad")
    _close(outputs(g), jax.grad(fn)(W, X))
    _close(outputs(p.transform("grad", argnums="0,1")), jax.grad(fn, argnums=(0, 1))(W, X))
    _close(outputs(p.transform("vmap")), jax.vmap(fn)(jnp.stack([W, W]), jnp.stack([X, X])))
    _close(outputs(p.transform("jvp")), jax.jvp(fn, (W, X), (jnp.ones_like(W), jnp.ones_like(X))))
    assert g.title == f"grad({fn.__name__})"


def test_a_jitted_call_says_its_function_was_transformed_whole():
    g = jaxprlens.trace(jitted_loss, W, X).transform("grad")
    assert g.table().text().splitlines()[0] == ("grad(jitted_loss): the jitted function as passed, transformed "
                                                "whole (its jit equations kept)")
    assert g.table(lang="zh").text().splitlines()[0] == "grad(jitted_loss)：变换的是所传入的 jit 函数本身（保留其 jit 方程）"  # noqa: E501 - the exact text a reader sees, kept whole
    inner = jaxprlens.trace(calls_a_library, W, X).transform("vmap")
    assert inner.title_note[0] == ("note_passed_jit_inside", {"fn": "calls_a_library", "jit": "<lambda>"})
    assert inner.table().text().splitlines()[0] == (
        "vmap(calls_a_library): `calls_a_library` as passed, transformed whole (the jit `<lambda>` inside it kept)"
        "; a batch of 2, each mapped argument stacked twice along its axis")
    plain = program("func1").transform("grad")        # a call that is no jit: nothing more to say
    assert plain.title_note == () and plain.table().text().splitlines()[0] == "grad(func1)"


def test_transforms_of_a_jitted_call_with_static_arguments():
    def powers(x, n):
        for _ in range(n):
            x = jnp.sin(x) * x
        return jnp.sum(x)
    jitted = jax.jit(powers, static_argnums=1)
    x = jnp.arange(3.)
    p = jaxprlens.trace(jitted, x, 3, static_argnums=1)
    _close(outputs(p.transform("grad")), jax.grad(powers)(x, 3))
    _close(outputs(p.transform("vmap", in_axes="0,None")), jax.vmap(powers, in_axes=(0, None))(jnp.stack([x, x]), 3))


def test_transforms_hold_the_leaves_that_are_not_arrays():
    eqx = pytest.importorskip("equinox")
    model = eqx.nn.MLP(3, 2, 4, 1, activation=jax.nn.relu, key=jax.random.PRNGKey(0))

    def loss(model, x):
        return jnp.sum(jax.vmap(model)(x) ** 2)
    for fn in (loss, eqx.filter_jit(loss)):
        p = jaxprlens.trace(fn, model, X)
        g = p.transform("grad")
        expected = eqx.filter_grad(loss)(model, X)
        _close(outputs(g), expected)
        assert g.unflatten_outputs(list(outputs_flat(g))).__class__ is type(model)   # the module's own shape
        dx = p.transform("grad", argnums=1)
        _close(outputs(dx), jax.grad(lambda x: loss(model, x))(X))
        v = p.transform("vmap", in_axes="None,0")
        _close(outputs(v), jax.vmap(lambda x: loss(model, x))(jnp.stack([X, X])))
        j = p.transform("jvp", argnums=1)
        _close(outputs(j), jax.jvp(lambda x: loss(model, x), (X,), (jnp.ones_like(X),)))


def outputs_flat(p):
    return jax.tree_util.tree_leaves(outputs(p))


def returns_aux(x):
    return jnp.sum(x ** 2), x * 2


def test_grad_refuses_what_jax_grad_refuses_with_its_reason():
    p = jaxprlens.trace(returns_aux, jnp.ones(3))
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        jax.grad(returns_aux)(jnp.ones(3))
    with pytest.raises(ValueError) as e:
        p.transform("grad")
    assert str(e.value) == ("jax.grad refuses grad(returns_aux): Gradient only defined for scalar-output functions. "
                            "Output was (float32[], float32[3]). When the rest is auxiliary output, say so: "
                            "has_aux=True (%%jaxpr --has-aux)")
    assert e.value.text("zh").startswith("jax.grad 拒绝 grad(returns_aux)：Gradient only defined for scalar-output")
    g = p.transform("grad", has_aux=True)
    _close(outputs(g), jax.grad(returns_aux, has_aux=True)(jnp.ones(3)))
    assert g.title == "grad(returns_aux, has_aux=True)"
    with pytest.raises(ValueError, match=r"^jax.grad refuses grad\(<lambda>\): Gradient only defined for "
                                         r"scalar-output functions. Output had shape: \(3,\)"):
        jaxprlens.trace(lambda x: x * 2, jnp.ones(3)).transform("grad")


def test_magic_transforms_a_jitted_call(ip):
    cell = textwrap.dedent("""\
        import jax, jax.numpy as jnp
        @jax.jit
        def step(w, x):
            return jnp.sum(jnp.tanh(x @ w))
        step(jnp.ones((3, 2)), jnp.ones((4, 3)))""")
    view = ip.run_cell_magic("jaxpr", "--transform grad", cell)
    assert view.text().splitlines()[0].startswith("grad(step): the jitted function as passed")
    view = ip.run_cell_magic("jaxpr", "--transform vmap --compare", cell)
    assert isinstance(view, Compare) and "vmap(step)" in view.text()
    view = ip.run_cell_magic("jaxpr", "--transform jvp", cell)
    assert view.program.title == "jvp(step)"


def test_magic_grad_of_a_scalar_and_aux(ip):
    cell = "import jax.numpy as jnp\ndef f(x):\n    return jnp.sum(x), x * 2\nf(jnp.ones(3))"
    with pytest.raises(UsageError, match=r"^jax.grad refuses grad\(f\): Gradient only defined"):
        ip.run_cell_magic("jaxpr", "--transform grad", cell)
    view = ip.run_cell_magic("jaxpr", "--transform grad --has-aux", cell)
    assert view.program.title == "grad(f, has_aux=True)"
    for opts in ("--transform vmap --has-aux", "--has-aux"):
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", opts, cell)
        assert str(info.value) == "--has-aux only works with --transform grad, e.g. `%%jaxpr --transform grad --has-aux`"  # noqa: E501 - the exact text a reader sees, kept whole
