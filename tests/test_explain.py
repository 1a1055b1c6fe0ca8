"""Tests for jaxprlens.explain: the hand-written table and the docstring fallback."""
import jax
import jax.extend.core
import jax.numpy as jnp
import pytest
from jax import lax

from jaxprlens.model.explain import explain, explain_rules


# ---------------------------------------------------------------- exact entries

@pytest.mark.parametrize("name, en, zh", [
    ("reduce_sum", "Sums the operand over the dimensions in `axes`.", "沿 axes 指定的维度对操作数求和。"),
    ("sin", "Sine of each element (in radians).", "逐元素求正弦（弧度制）。"),
    ("jit", "Calls a jit-compiled sub-jaxpr (`name`) with the operands as its arguments.",
     "以操作数为实参调用经 jit 编译的子 jaxpr（name）。"),
    ("while", "Runs body_jaxpr while cond_jaxpr is true; operands: cond consts, body consts, carry.",
     "当 cond_jaxpr 为真时反复运行 body_jaxpr；操作数依次为条件常量、循环体常量和携带值。"),
    ("cond", "Runs branches[index]; expects an index in range (lax.switch clamps first; lax.cond converts a bool).",
     "运行 branches[index]；索引须在范围内（lax.switch 先用 clamp 方程钳制索引，lax.cond 把布尔值转换为 0 或 1）。"),
    ("clamp", "Clips x into [min, max] elementwise; operands min, x, max (lax.switch clamps its index so).",
     "逐元素把 x 钳制到 [min, max] 内；操作数顺序为 min、x、max（lax.switch 就这样钳制分支索引）。"),
])
def test_exact_entries(name, en, zh):
    assert explain_rules[name] == (en, zh)
    assert explain(name) == en
    assert explain(name, "en") == en
    assert explain(name, lang="zh") == zh


def _switch3(i, x):
    return lax.switch(i, [lambda v: v + 1.0, lambda v: v - 2.0, lambda v: v + 3.0], x)


@pytest.mark.parametrize("index, compiled, batched", [(-3, 2, 0), (-1, 2, 0), (0, 0, 0), (1, 1, 1), (2, 2, 2),
                                                      (7, 2, 2)])
def test_cond_expects_an_index_in_range_and_switch_clamps(index, compiled, batched):
    # What the cond and clamp entries claim: cond gives an index out of range no meaning (compiled, XLA's case
    # runs the last branch; under vmap the same equation picks differently: -3 runs branch 0); lax.switch clamps
    # first with its own clamp equation, so through it any index is safe.
    closed = jax.make_jaxpr(_switch3)(1, 5.0)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["convert_element_type", "clamp", "cond"]
    params = closed.jaxpr.eqns[-1].params
    cond_p = jax.extend.core.primitives.cond_p
    direct = [float(v) for v in cond_p.bind(jnp.int32(index), jnp.float32(5.0), **params)]
    assert direct == [float(_switch3(compiled, 5.0))]
    vmapped = jax.vmap(lambda i, x: cond_p.bind(i, x, **params)[0])(jnp.array([index], jnp.int32),
                                                                     jnp.array([5.0], jnp.float32))
    assert [float(v) for v in vmapped] == [float(_switch3(batched, 5.0))]
    switched = float(_switch3(index, 5.0))
    assert switched == float(_switch3(min(max(index, 0), 2), 5.0))


def test_lax_cond_converts_a_bool_to_an_index():
    closed = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda v: v + 1.0, lambda v: v - 1.0, x))(True, 5.0)
    assert [e.primitive.name for e in closed.jaxpr.eqns] == ["convert_element_type", "cond"]
    assert closed.jaxpr.eqns[0].params["new_dtype"] == jnp.int32


def test_unknown_lang_falls_back_to_english():
    assert explain("add", "fr") == explain_rules["add"][0]
    assert explain("add", "") == explain_rules["add"][0]


# ---------------------------------------------------------------- real programs

@jax.custom_jvp
def _soft_relu(x):
    return jnp.log1p(jnp.exp(x))


@_soft_relu.defjvp
def _soft_relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _soft_relu(x), lax.logistic(x) * t


@jax.custom_vjp
def _double(x):
    return x * 2.0


_double.defvjp(lambda x: (x * 2.0, None), lambda _, g: (g * 2.0,))


def prog_elementwise(x):
    return jnp.sum(jnp.sin(x) * 2.0 + 1.0) - jnp.max(jnp.abs(x))


def prog_cond(x):
    return lax.cond(x.sum() > 0, lambda v: v - 1.0, lambda v: jnp.exp(v), x)


def prog_while(x):
    return lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * 2.0), (0, x))


def prog_scan(x):
    return lax.scan(lambda c, y: (c + y, jnp.tanh(c * y)), 0.0, x)


def prog_jit_matmul(x):
    m = x.reshape(2, -1)
    return jax.jit(lambda v: v @ v.T)(m)


def prog_custom_and_remat(x):
    return _soft_relu(x) + _double(x) + jax.checkpoint(jnp.tanh)(x)


def prog_debug_where(x):
    jax.debug.print("x = {x}", x=x)
    return jnp.where(x > 0, x, 0.0).astype(jnp.int32)


def prog_conv(x):
    img = x.reshape(1, 1, 2, -1)
    kernel = jnp.ones((1, 1, 2, 2))
    return lax.conv_general_dilated(img, kernel, (1, 1), "SAME")


def prog_grad_softmax(x):
    return jax.grad(lambda v: jnp.sum(jax.nn.softmax(v) ** 2))(x)


def prog_indexing_random(x):
    key = jax.random.key(0)
    noise = jax.random.normal(key, x.shape)
    y = jnp.concatenate([x[::-1], jnp.sort(x)]) + jnp.cumsum(jnp.pad(x, (2, 2)))
    return jnp.argmax(y), x.at[jnp.array([1, 2])].add(noise[:2]), jnp.sqrt(jnp.abs(x)).clip(0, 1)


PROGRAMS = [prog_elementwise, prog_cond, prog_while, prog_scan, prog_jit_matmul,
            prog_custom_and_remat, prog_debug_where, prog_conv, prog_grad_softmax,
            prog_indexing_random]


def _primitives(jaxpr, acc):
    for eqn in jaxpr.eqns:
        acc.add(eqn.primitive.name)
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            _primitives(sub, acc)
    return acc


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_programs_primitives_have_entries(fn):
    jaxpr = jax.make_jaxpr(fn)(jnp.arange(4.0)).jaxpr
    names = _primitives(jaxpr, set())
    assert names
    missing = sorted(n for n in names if n not in explain_rules)
    assert not missing, f"no hand-written entry for {missing}"


def test_programs_cover_the_required_primitives():
    seen = set()
    for fn in PROGRAMS:
        _primitives(jax.make_jaxpr(fn)(jnp.arange(4.0)).jaxpr, seen)
    required = {"sin", "mul", "add", "reduce_sum", "broadcast_in_dim", "convert_element_type", "cond",
                "while", "scan", "jit", "lt", "gt", "sub", "custom_jvp_call", "custom_vjp_call",
                "remat2", "debug_print", "dot_general", "conv_general_dilated"}
    assert required <= seen


# ---------------------------------------------------------------- fallbacks

def test_docstring_fallback_for_primitive_left_out():
    assert "igamma" not in explain_rules
    line = explain("igamma")
    assert line == "Elementwise regularized incomplete gamma function."
    assert line == lax.igamma.__doc__.strip().split("\n")[0]
    assert explain("igamma", "zh") == "jax.lax 文档：" + line  # the English docstring, said to be quoted


def test_docstring_fallback_name_variants():
    assert "scatter_mul" not in explain_rules
    assert explain("scatter_mul_p").startswith("Scatter-multiply")
    assert explain("bessel_i0e").startswith("Exponentially scaled modified Bessel function")


def test_generic_fallback_for_made_up_name():
    assert explain("frobnicate_xyz") == ("Primitive `frobnicate_xyz`, from no module loaded now (not a jax.lax "
                                         "primitive).")
    assert explain("frobnicate_xyz", "zh") == "原语 `frobnicate_xyz`，当前已加载的模块中没有它（不是 jax.lax 的原语）。"


def test_a_primitive_outside_jax_lax_says_where_it_comes_from():
    import jax.experimental.pallas  # noqa: F401 - registers the kernel primitives
    assert "semaphore_wait" not in explain_rules
    assert explain("semaphore_wait") == ("Primitive `semaphore_wait` of `jax.experimental.pallas` (see that "
                                         "module's documentation).")
    assert explain("semaphore_wait", "zh") == "`jax.experimental.pallas` 的原语 `semaphore_wait`（参见该模块的文档）。"
    for prim in ("pallas_call", "get", "swap", "addupdate", "run_state", "new_ref", "freeze", "program_id"):
        for lang in ("en", "zh"):
            assert "jax.lax" not in explain(prim, lang) and "参见" not in explain(prim, lang), (prim, lang)


def test_kernels_and_refs_are_explained():
    assert explain("pallas_call") == ("Runs the Pallas kernel `jaxpr` once per grid point, on refs to the blocks "
                                      "its block specs pick.")
    assert explain("pallas_call", "zh") == ("运行 Pallas 计算内核 jaxpr，每个网格点运行一次，"
                                            "作用于块规格选出的块的引用（pl.pallas_call）。")
    assert explain("get") == ("Reads a ref at an index, `c <- b[...]` (all of it) or `b[1]`, as a value "
                              "(ref[idx], jax.ref.get).")
    assert explain("swap") == ("Writes a value into a ref at an index, `b[...] <- d`; `g, b[...] <- b[...], d` "
                               "also returns the old.")
    assert explain("addupdate", "zh") == "就地把值加到引用的某个索引处，`b[1] += e`（jax.ref.addupdate）；没有结果。"
    assert explain("run_state") == ("Runs `jaxpr` on refs made from the operands; returns the refs' final contents "
                                    "(state made pure).")


# ---------------------------------------------------------------- table hygiene

def test_table_entries_well_formed():
    assert len(explain_rules) >= 70
    for name, entry in explain_rules.items():
        assert isinstance(entry, tuple) and len(entry) == 2, name
        en, zh = entry
        assert en.strip() and zh.strip(), name
        assert len(en) <= 100, name
        assert en.isascii(), name
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), name


def test_table_keys_are_real_primitives():
    """Every primitive the table explains is one a loaded module of this JAX defines, found as the explanation
    finds a primitive's home (among the modules loaded now): no hand list of JAX's private modules that goes
    stale, and no skip when JAX moves its primitives, so a key JAX renamed or dropped fails here."""
    import jax.experimental.pallas  # noqa: F401 - loads Pallas's primitives, which the table explains too
    from jaxprlens.model._jax import primitive_home
    assert primitive_home("add") == "jax.lax" and primitive_home("no-such-primitive") is None    # it can fail
    retired = {"closed_call"}          # still in JAX 0.10/0.11, removed in 0.12: kept for older JAX
    unknown = sorted(name for name in explain_rules if name not in retired and primitive_home(name) is None)
    assert not unknown, f"table keys that are not primitive names: {unknown}"


def test_never_empty():
    for name in ["add", "igamma", "fft", "no-such-thing", "", "scatter-add"]:
        for lang in ("en", "zh", "xx"):
            assert explain(name, lang)
