"""The course's content: the corrected statements (both languages), the cond explanation, and every exercise's
check cell, which must fail on a wrong answer, pass on the stored solution and not fail on the placeholder.

Reads the jupytext sources (notebooks/src) directly and runs only the exercise cells, not whole notebooks."""
from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from jaxprlens.exercise import avoided
from jaxprlens.model.explain import explain
from jaxprlens.present.i18n import role_summary, set_default_lang
from jaxprlens.model.roles import Roles

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "notebooks" / "src"
sys.path.insert(0, str(ROOT / "scripts"))
import editions  # noqa: E402 - scripts/ on sys.path first


@pytest.fixture(autouse=True)
def _keep_explanations():
    """A lecture may teach the table a new primitive (lecture 14 adds ``running_sum``): undo it after each
    test, so no other test sees a primitive JAX does not have."""
    from jaxprlens.model.explain import explain_rules
    saved = dict(explain_rules)
    yield
    explain_rules.clear()
    explain_rules.update(saved)
LECTURES = sorted(SOURCES.glob("[0-9][0-9]_*.py"))
_HEADER = re.compile(r"^# %%(.*)$", re.MULTILINE)
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def cells(path: Path) -> list[dict]:
    """The percent-format cells of a lecture source: kind, tags, header, source."""
    text = path.read_text(encoding="utf-8")
    heads = list(_HEADER.finditer(text))
    out = []
    for m, nxt in zip(heads, heads[1:] + [None]):
        body = text[m.end() + 1: nxt.start() if nxt else len(text)].rstrip("\n")
        header = m.group(1)
        kind = "markdown" if "[markdown]" in header else "code"
        if kind == "markdown":
            body = "\n".join(re.sub(r"^# ?", "", ln) for ln in body.splitlines())
        tags = re.search(r'tags=\[([^\]]*)\]', header)
        out.append({"kind": kind, "header": header, "source": body,
                    "tags": re.findall(r'"([^"]+)"', tags.group(1)) if tags else []})
    return out


def lecture(prefix: str) -> list[dict]:
    return cells(next(p for p in LECTURES if p.name.startswith(prefix)))


def _squash(text: str) -> str:
    """Without line wraps, spaces and blockquote marks: prose wraps differently from the phrases we look for."""
    return re.sub(r"\s+", "", re.sub(r"(?m)^> ?", "", text))


def prose(prefix: str, errata: bool = True) -> str:
    """A lecture's markdown with whitespace removed (line wraps differ); without the errata boxes if asked."""
    return _squash("\n".join(c["source"] for c in lecture(prefix) if c["kind"] == "markdown"
                             and (errata or "Errata / 勘误" not in c["source"])))


# ---------------------------------------------------------------- corrected statements

@pytest.mark.parametrize("prefix, wrong", [
    # issue 43
    ("14", "keeps what it traced in a **cache** keyed by the types of the arguments"),
    ("14", "以实参类型为键的**缓存**"),
    ("05", "`lax.fori_loop`, a helper that builds one"),
    ("05", "基于它的辅助函数 `lax.fori_loop`"),
    ("00", "A jaxpr names its values `a`, `b`, `c`, ... in the order they appear: the inputs first"),
    ("00", "jaxpr 按出现的顺序为值命名 `a`、`b`、`c`……：先是输入"),
    ("11", "That is why a scan's carry must keep its type (lecture 6)"),
    ("11", "所以 scan 的携带值必须保持类型不变（第 6 讲）"),
    ("13", "Forward mode adds a tangent for every floating-point carry"),
    ("13", "前向模式给每个浮点携带值都加上一个切向量"),
    ("13", "`jvp` adds a tangent beside every floating-point value, loop carries included"),
    ("12", "`linearize` is two steps. First the JVP"),
    ("12", "`linearize` 分两步"),
    ("12", "and `linearize` = JVP + partial evaluation"),
    ("12", "而 `linearize` = JVP + 部分求值"),
    ("12", "a JVP, partially evaluated: only the *linear* tangent equations remain"),
    ("12", "对 JVP 做部分求值，只留下**线性**的切向量方程"),
    ("12", "only two residuals remain, and the peak is less than half"),
    ("12", "残差只剩两个，峰值不到原来的一半"),
    ("01", "then interpret it with rules specific to each transformation"),
    ("01", "再用各自的解释规则去解释它"),
    ("12", "trace it to a jaxpr and then **interpret** that jaxpr"),
    ("12", "它们先把函数 trace 成 jaxpr，再按每个原语的规则去**解释**这个 jaxpr"),
    ("07", "restarts names inside the sub-jaxpr"),
    ("07", "JAX 的打印器在子 jaxpr 中重新命名"),
    ("04", "index clamped"),
    # issue 31: each of these is wrong on JAX 0.12 (see the lecture's new sentence in the test below)
    ("04", "an index out of range runs the last"),
    ("04", "越界的索引会执行**最后一个**分支"),
    ("04", "索引越界时执行最后一个分支"),
    ("04", "JAX 0.10 and later no longer have it"),
    ("09", "an index out of range runs the last branch"),
    ("09", "索引越界时运行最后一个分支"),
    ("11", "binding it yourself gives the same equation"),
    ("11", "得到的方程完全一样"),
    ("11", "older JAX used a `JVPTracer`"),
    ("03", "Three ways to write the same three numbers"),
    ("03", "同样三个数的三种写法"),
    ("15", "`jax.grad` traces `predict` with JVP tracers"),
    ("15", "`jax.grad` 用 JVP tracer trace `predict`"),
    ("10", "an upper bound on the traffic"),
    ("10", "访存量的上界"),
    ("01", "JAX 0.10 to 0.12"),
])
def test_wrong_statements_are_gone(prefix, wrong):
    assert _squash(wrong) not in prose(prefix)


def test_anf_is_a_normal_form_with_an_errata_box():
    assert "代数正规形式" not in prose("01", errata=False)
    assert _squash("**A 范式**") in prose("01") and _squash("**A-normal form**") in prose("01")
    box = next(c["source"] for c in lecture("01") if "Errata / 勘误" in c["source"])
    assert "Algebraic Normal Form" in box and "「代数正规形式」" in box and "「A 范式」" in box


@pytest.mark.parametrize("prefix, right", [
    ("01", "their JVP and batching rules are applied *while* the function is being traced"),
    ("01", "它们的 JVP 规则和批处理规则是在 trace 函数的**过程中**施加的"),
    ("01", "because `make_jaxpr` traced the transformed function `jax.grad(f)`"),
    ("12", "handled on the spot by that transformation's rule (a JVP rule, a batching rule) **while tracing**"),
    ("12", "该变换的规则（JVP 规则、批处理规则）就**在 trace 过程中**当场处理它"),
    ("12", "because `make_jaxpr` traces the *transformed* function"),
    ("07", "it does **not** restart names inside the sub-jaxpr. `jit`'s printing rule *suggests* the caller's names"),
    ("07", "它**不会**在子 jaxpr 中重新开始命名。`jit` 的打印规则让被调函数的绑定变量和结果沿用调用方的名字"),
    ("07", "`cond`, `while` and `scan` bodies get no suggestion: their binders simply continue the sequence"),
    ("07", "它们的绑定变量直接沿序列继续编号"),
    ("04", "The clamping is `lax.switch`'s work, not `cond`'s."),
    ("04", "钳制是 `lax.switch` 做的，不是 `cond` 做的。"),
    ("04", "it **expects** an index in `[0, len(branches) - 1]`"),
    ("04", "它**要求**索引落在 `[0, len(branches) - 1]` 内"),
    ("04", "under `vmap` the `cond` becomes a `select_n` over every branch's result, and there `-3` picks the "
           "**first**"),
    ("04", "在 `vmap` 下，`cond` 变成对各分支结果的 `select_n`，`-3` 选中的是**第一个**分支"),
    ("04", "JAX 0.4.31 removed it."),
    ("04", "JAX 0.4.31 删除了该参数。"),
    ("09", "`cond` expects an index in range"),
    ("09", "`cond` 要求索引不越界"),
    ("09", "Before JAX 0.9.2 `get_bind_params` returned a pair `(subfuns, params)`"),
    ("09", "JAX 0.9.2 之前 `get_bind_params` 返回二元组 `(subfuns, params)`"),
    ("11", "an equation is its primitive, its operands **and its params**"),
    ("11", "方程由原语、操作数**以及参数**组成"),
    ("11", "before 0.7 it used a `JVPTracer`"),
    ("11", "0.7 之前用的是 `JVPTracer`"),
    ("03", "`jnp.ones(3)` (`[1, 1, 1]`), `jnp.arange(3.)` (`[0, 1, 2]`) and `jnp.array([1., 2., 3.])` (`[1, 2, 3]`)"),
    ("03", "a `jax.Array` that already exists is a **constvar**, **whatever its shape**"),
    ("03", "已经存在的 `jax.Array` **不论形状**都是 **constvar**"),
    ("12", "Here `3.0` is not a literal but the constvar `b:f32[]`"),
    ("12", "这里的 `3.0` 不是字面量，而是 constvar `b:f32[]`"),
    ("15", "it traces it with `LinearizeTracer`s (direct linearization, the default since JAX 0.7"),
    ("15", "它用 `LinearizeTracer` trace `predict`（直接线性化，自 JAX 0.7 起为默认"),
    ("10", "nor a bound on it either way"),
    ("10", "也不是它的上界或下界"),
    ("06", "`Right` marks an output the `scan` equation computes and returns"),
    ("06", "`Right` 表示由 `scan` 方程计算并返回的输出"),
    ("01", "Since JAX 0.8 it also prints `out_sharding=None`"),
    ("01", "自 JAX 0.8 起它还会打印`out_sharding=None`"),
    ("06", "**Weak types / 弱类型.** The body's `convert_element_type[new_dtype=float32 weak_type=False]`"),
    ("06", "它只是去掉**弱类型**"),
    ("13", "This happens **only when the predicate is batched**."),
    ("13", "**只有谓词被批处理时**才会这样"),
])
def test_right_statements_are_there(prefix, right):
    assert _squash(right) in prose(prefix)


@pytest.mark.parametrize("prefix, facts", [
    ("07", ["renamed `jit` in **JAX 0.7.0**", "**JAX 0.7.0** 中更名为 `jit`", "**backend and device**",
            "`xla_call`", "JAX 0.4.4", "before 0.3.10", "`*` for a *unit*", "**as a constvar**",
            "**以 constvar 的形式**"]),
    ("03", ["Since JAX 0.11 a jaxpr is one class, `Jaxpr`", "`ClosedJaxpr` survives as another name",
            "`closed.jaxpr` returns the jaxpr itself", "`literals` is an old name for `consts`",
            "**Older JAX (≤ 0.10) / 旧版 JAX（≤ 0.10）**", "appears as a constvar before the `;`",
            "该常量是**外层** jaxpr 的 constvar"]),
    ("06", ["JAX 0.11 and later no longer print `num_consts` and `num_carry`", "`ft_in`"]),
])
def test_outdated_article_boxes_name_their_versions(prefix, facts):
    text = prose(prefix)
    assert _squash("Outdated in the article / 原文已过时") in text
    for fact in facts:
        assert _squash(fact) in text, fact


def _setup_namespace(prefix: str) -> dict:
    """A lecture's setup cells run, as its exercises see them."""
    ns: dict = {"__name__": "__course__"}
    for c in lecture(prefix):
        if "setup" in c["tags"]:
            _run(c["source"], ns)
    return ns


def test_the_mini_jvp_trace_applies_its_rules_while_tracing_as_jax_does():
    """L11's hand-built JVP trace: numbers agree with jax.jvp, the rules run in program order while the jaxpr trace
    below records, and the recorded primitives are jax.jvp's."""
    import jax
    import jax.numpy as jnp
    ns = _setup_namespace("11")
    sin, reduce_sum = ns["sin"], ns["reduce_sum"]

    def func1(first, second):
        return reduce_sum(first + sin(second) * 3.)

    x, y, tx, ty = jnp.zeros(8), jnp.ones(8), jnp.zeros(8), jnp.ones(8)
    mine = ns["mini_jvp"](func1, (x, y), (tx, ty))
    theirs = jax.jvp(func1, (x, y), (tx, ty))
    assert all(jnp.allclose(a, b) for a, b in zip(mine, theirs))
    ns["SHOW_RULES"][0] = True
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        jaxpr = ns["mini_make_jaxpr"](lambda *a: ns["mini_jvp"](func1, a[:2], a[2:]))(x, y, tx, ty)
    assert printed.getvalue().split("\n")[:4] == [f"jvp rule of {p}" for p in ("sin", "mul", "add", "reduce_sum")]
    want = jax.make_jaxpr(lambda *a: jax.jvp(func1, a[:2], a[2:]))(x, y, tx, ty)
    assert jaxpr.primitives() == [e.primitive.name for e in want.jaxpr.eqns]


@pytest.mark.skipif(not __import__("importlib.metadata").metadata.version("jax").startswith("0.12"),
                    reason="the lecture states JAX 0.12's residual counts (0.10 keeps one more)")
def test_residual_counts_the_lectures_state_are_jaxs():
    """L12: f keeps 3 residuals (cos a, a, sin a); four tanh layers keep nine, their checkpoint two."""
    import jax
    import jax.numpy as jnp

    def count(fn, *args):
        return len(jax.tree_util.tree_leaves(jax.vjp(fn, *args)[1]))

    def layers(x, W):
        for _ in range(4):
            x = jnp.tanh(x @ W)
        return jnp.sum(x)

    xs, W = jnp.ones((64, 128)), jnp.full((128, 128), 0.01)
    assert count(lambda x: jnp.sum(jnp.sin(x) * x), jnp.arange(3.)) == 3
    assert (count(layers, xs, W), count(jax.checkpoint(layers), xs, W)) == (9, 2)
    text = prose("12")
    assert _squash("Four `tanh` layers keep nine residuals") in text and _squash("only\ntwo residuals remain") in text


@pytest.mark.skipif(tuple(int(x) for x in __import__("jax").__version__.split(".")[:2]) < (0, 12),
                    reason="L12 teaches how JAX 0.12 linearizes (one run on LinearizeTracers)")
def test_jax_linearizes_in_one_run_on_linearize_tracers_with_the_models_residuals():
    """L12: on JAX 0.12, vjp, linearize and grad call f once each, on a LinearizeTracer (no JVP jaxpr is traced and
    split), and keep the residuals the model (JVP, then partial evaluation) finds: cos a, a and sin a."""
    import jax
    import jax.numpy as jnp
    from jax.interpreters import partial_eval as pe

    def f(x):
        return jnp.sum(jnp.sin(x) * x)

    seen = []

    def f_seen(x):
        seen.append(type(x).__name__)
        return f(x)

    x = jnp.array([0., 1., 2.])
    _, f_vjp = jax.vjp(f_seen, x)
    jax.linearize(f_seen, x)
    jax.grad(f_seen)(x)
    assert seen == ["LinearizeTracer"] * 3
    jvp_jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(x, jnp.ones(3))
    known, _, _, residuals = pe.partial_eval_jaxpr_nounits(jvp_jaxpr, [False, True], instantiate=False)
    model = jax.core.eval_jaxpr(known.jaxpr, known.consts, x)[-len(residuals):]
    held = jax.tree_util.tree_leaves(f_vjp)
    assert len(residuals) == len(held) == 3

    def as_sets(arrays):
        return sorted(tuple(round(v, 5) for v in a.tolist()) for a in arrays)

    assert as_sets(model) == as_sets(held)


def test_forward_mode_gives_a_tangent_carry_only_where_the_tangent_can_be_nonzero():
    """L13: a while with two float carries, one meeting the input, gains one tangent carry (zeros stay
    symbolic), as the lecture's `two` prints."""
    import jax
    from jax import lax
    code = next(c["source"] for c in lecture("13") if c["kind"] == "code" and "def two(x)" in c["source"])
    before, after = _run(code, {"jax": jax, "lax": lax}).strip().split("\n")
    assert len(eval(before)) == 3 and len(eval(after)) == 4
    assert _squash("Its JVP's `while` gains one tangent carry, not two") in prose("13")


def test_a_scan_carry_keeps_shape_and_dtype_but_may_change_weak_type():
    """L11: the body must return the carry's shape and dtype (a TypeError otherwise); lecture 6's carry, the weak
    Python scalar 0., comes back a strong f32 and JAX accepts it."""
    import jax.numpy as jnp
    from jax import lax
    for body in (lambda c, _: (c.astype(jnp.int32), None), lambda c, _: (jnp.stack([c, c]), None)):
        with pytest.raises(TypeError, match="carry input and carry output must have equal types"):
            lax.scan(body, 0., None, length=3)
    strong = jnp.ones(3, dtype=jnp.float32)
    out, _ = lax.scan(lambda c, x: (c + x, None), 0., strong)
    assert out.dtype == jnp.float32 and not out.weak_type and float(out) == 3.
    assert _squash("A change of weak type alone is accepted: in lecture 6 the carry starts as the weakly typed "
                   "Python scalar `0.`") in prose("11")
    assert _squash("A Python scalar such as the initial carry `0.`") in prose("06")


def test_the_let_form_is_shown_before_lecture_0s_naming_exercise():
    """L0: a sub-jaxpr used twice is printed once, first, as `let inner = {...} in`, so the program's inputs start
    at d; the cell that shows it comes before exercise 2, which now says its rule holds without a let."""
    import jax
    import jax.numpy as jnp
    from jax import make_jaxpr
    source = lecture("00")
    at = next(i for i, c in enumerate(source) if c["kind"] == "code" and "def twice" in c["source"])
    assert at < next(i for i, c in enumerate(source) if "exercise-2" in c["tags"])
    printed = _run(source[at]["source"], {"jax": jax, "jnp": jnp, "make_jaxpr": make_jaxpr})
    assert printed.startswith("let inner = { lambda ; a:f32[3]. let")
    assert "{ lambda ; d:f32[3] e:f32[3]. let" in printed and "jaxpr=inner" in printed
    assert _squash("so the program's own inputs start at `d`") in prose("00")


def test_fori_loop_builds_a_while_for_a_runtime_bound_and_a_scan_for_static_ones():
    """L5's opening: what lax.fori_loop builds depends on its bounds."""
    from jax import lax, make_jaxpr

    def loops(f, *args):
        return [e.primitive.name for e in make_jaxpr(f)(*args).jaxpr.eqns if e.primitive.name in ("while", "scan")]

    assert loops(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2., x), 1., 5) == ["while"]
    assert loops(lambda x: lax.fori_loop(0, 5, lambda i, c: c * 2., x), 1.) == ["scan"]
    assert _squash("builds a `while` when a bound is a runtime value, and a `scan` when both bounds are known "
                   "while tracing") in prose("05")


def test_jits_cache_is_keyed_by_the_function_as_lecture_14_prints():
    import jax
    code = next(c["source"] for c in lecture("14") if c["kind"] == "code" and "def double" in c["source"])
    assert _run(code, {"jax": jax}).strip() == "['double', 'lambda', 'lambda']"
    assert _squash("keyed by the function and the types of its arguments") in prose("14")


def test_l15s_three_counts_of_normalize_are_jaxs_at_two_depths():
    """L15: normalize made 5 equations at its own level and 20 at every depth (15 inside jnp.std's jit); the
    program has 10 at the top level and 25 in all."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.extend.core import jaxprs_in_params

    def every(jaxpr):
        return sum(1 + sum(every(s) for s in jaxprs_in_params(e.params)) for e in jaxpr.eqns)

    def normalize(x):
        m = jnp.mean(x)
        return (x - m) / jnp.std(x)

    x = np.arange(4.0, dtype="f4")
    mine = jax.make_jaxpr(normalize)(x).jaxpr
    assert (len(mine.eqns), every(mine)) == (5, 20)
    std = next(e for e in mine.eqns if e.primitive.name == "jit")
    assert every(std.params["jaxpr"].jaxpr) == 15

    def predict(w1, w2, x):
        h = jnp.tanh(normalize(x) @ w1)
        return jnp.tanh(h @ w2).sum()

    whole = jax.make_jaxpr(predict)(np.ones((4, 3), "f4"), np.ones((3, 2), "f4"), x).jaxpr
    assert (len(whole.eqns), every(whole)) == (10, 25)
    text = prose("15")
    assert _squash("those 5 plus the 15 inside `jnp.std`'s `jit`") in text
    assert _squash("10 equations at the top level, 25 with every sub-jaxpr's") in text


def test_l10s_profile_is_read_at_its_precision():
    """L10: the profile takes the median of 100 runs and says which of its numbers mean something: the product's
    500-fold FLOPs, not the order of three elementwise equations of tens of µs each."""
    cell = next(c["source"] for c in lecture("10") if c["kind"] == "code" and "--profile" in c["source"])
    assert int(re.search(r"--repeat (\d+)", cell).group(1)) >= 100
    assert round(16.8e6 / 32.8e3, -2) == 500
    assert _squash("their order among themselves changes with the machine and its load") in prose("10")


def test_l1_shows_make_jaxprs_own_parameters_as_jax_prints_them():
    """L1: static_argnums unrolls and drops n, return_shape gives a ShapeDtypeStruct, axis_env lets psum trace."""
    import jax
    import jax.numpy as jnp
    from jax import make_jaxpr
    code = next(c["source"] for c in lecture("01") if c["kind"] == "code" and "axis_env" in c["source"])

    def func1(first, second):
        return jnp.sum(first + jnp.sin(second) * 3.)

    lines = _run(code, {"make_jaxpr": make_jaxpr, "jnp": jnp, "func1": func1}).strip().split("\n")
    assert lines[0] == "{ lambda ; a:f32[]. let b:f32[] = mul a a; c:f32[] = mul b b in (c,) }"
    assert lines[1] == "ShapeDtypeStruct(shape=(), dtype=float32)"
    assert "psum[axes=('batch',)" in lines[3]
    with pytest.raises(NameError):
        make_jaxpr(lambda x: jax.lax.psum(x, "batch"))(1.)
    assert _squash("`static_argnums` marks arguments that are not traced") in prose("01")


def test_the_capstone_states_what_jax_and_the_stepper_find():
    """L19: the step is 131 equations in three parts; Adam holds 10 of the 14 arrays; with a learning rate of 1e38
    the first NaN is the output product (its input t holds inf and no NaN, the weights d both signs), with 1e19
    it is optax's last subtraction."""
    pytest.importorskip("flax.nnx")
    pytest.importorskip("optax")
    import numpy as np
    import jax
    from jaxprlens.model.calls import call_tree
    from jaxprlens.present.words import group_label
    ns: dict = {}
    for c in lecture("19"):
        if "setup" in c["tags"]:
            _run(c["source"], ns)
    import jaxprlens
    step, state, x, y = ns["make_step"](1e-2)[0], ns["make_step"](1e-2)[1], ns["x"], ns["y"]
    program = jaxprlens.trace(step, state, x, y)
    parts = [(group_label(c), len(c.eqns)) for c in call_tree(program).root.walk() if c.depth == 1]
    assert len(program.eqns) == 131 and parts == [("train_step (forward)", 42), ("train_step (backward)", 27),
                                                 ("train_step (optimizer update)", 62)]
    assert len(jax.tree_util.tree_leaves(state)) == 14 and len(jax.tree_util.tree_leaves(state[1])) == 10

    def first_nan(lr):
        step, state = ns["make_step"](lr)
        first, state = step(state, x, y)
        second, _ = step(state, x, y)
        stepper = jaxprlens.trace(step, state, x, y).stepper(break_on_nan=True)
        stepper.run()
        return float(first), float(second), stepper

    first, second, stepper = first_nan(1e38)
    assert np.isfinite(first) and np.isnan(second)
    eqn = stepper.stop.eqn
    assert (eqn.id, eqn.primitive, [v.name for v in eqn.invars]) == ("6", "dot_general", ["t", "d"])
    t, d = (np.asarray(stepper.env_names[n]) for n in ("t", "d"))
    assert np.isinf(t).any() and not np.isnan(t).any() and (d > 0).any() and (d < 0).any()
    step, state = ns["make_step"](1e38)
    first_step = jaxprlens.trace(step, state, x, y)
    _, state = step(state, x, y)
    second_step = jaxprlens.trace(step, state, x, y)

    def stop_of(program, condition):
        finder = program.stepper()
        finder.add_condition(condition)
        finder.run()
        return finder.stop and finder.stop.eqn

    inf = stop_of(second_step, "any Inf")      # the debugger's second question: the hidden product q overflows
    assert (inf.id, inf.primitive, [v.name for v in inf.outvars]) == ("0", "dot_general", ["q"])
    assert stop_of(first_step, "any NaN") is None and stop_of(first_step, "any Inf") is None
    damage = stop_of(first_step, "abs max > 1e30")
    assert (damage.id, damage.primitive, float(damage.invars[0].val)) == ("122", "mul", np.float32(-1e38))
    assert "step_size * g" in damage.source.via.text and stop_of(first_step, "max > 1e30").id == "122"
    assert _squash("it stops after equation 0, the hidden\nlayer's product `q`") in prose("19")
    graph = program.graph(max_nodes=8, ahead=False).summary()
    assert "165 equations" in graph and "train_step (77 eqns)" in graph
    assert _squash("The update stays the largest: 77 of 165 equations.") in prose("19")
    _, second, stepper = first_nan(1e19)
    assert np.isnan(second) and stepper.stop.eqn.primitive == "sub" and stepper.stop.eqn.id == "39"
    assert np.isfinite(np.asarray(stepper.env_names["q"])).all()        # the hidden product stays finite
    assert np.isinf(np.asarray(stepper.env_names["y"])).any()           # the output product overflows
    assert not np.isnan(np.asarray(stepper.env_names["y"])).any()


def _xla_bytes(fn, *args):
    import jax
    return jax.jit(jax.grad(fn, argnums=1)).lower(*args).compile().memory_analysis().temp_size_in_bytes


def test_a_whole_function_checkpoint_leaves_xla_s_memory_and_a_checkpointed_loop_body_lowers_it():
    """L12: checkpointing all four layers hides the backward pass in one remat2 equation (the gradient is its
    result) and leaves XLA's temporaries as they were; checkpointing a scan body cuts them by more than half."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def layers(x, W):
        for _ in range(4):
            x = jnp.tanh(x @ W)
        return jnp.sum(x)

    xs, W = jnp.ones((64, 128)), jnp.full((128, 128), 0.01)
    last = jax.make_jaxpr(jax.grad(jax.checkpoint(layers), argnums=1))(xs, W).jaxpr.eqns[-1]
    assert last.primitive.name == "remat2" and str(last.outvars[0].aval) == "float32[128,128]"
    assert _xla_bytes(jax.checkpoint(layers), xs, W) == _xla_bytes(layers, xs, W)

    def block(x, W1, W2):
        return x + jnp.tanh(x @ W1) @ W2

    def deep(body):
        return lambda x, W1, W2: jnp.sum(lax.scan(lambda x, _: (body(x, W1, W2), None), x, None, length=8)[0])

    args = (jnp.ones((64, 128)), jnp.full((128, 1024), 0.01), jnp.full((1024, 128), 0.01))
    plain, remat = _xla_bytes(deep(block), *args), _xla_bytes(deep(jax.checkpoint(block)), *args)
    assert remat * 2 < plain

    def count(fn):
        return sum(a.size * 4 for a in jax.tree_util.tree_leaves(jax.vjp(fn, *args)[1]))

    assert count(deep(jax.checkpoint(block))) < count(deep(block)) / 2


def _code_cell(prefix: str, marker: str) -> str:
    """The code cell of a lecture holding ``marker``, without its ``%%jaxpr`` line."""
    code = next(c["source"] for c in lecture(prefix) if c["kind"] == "code" and marker in c["source"])
    return re.sub(r"^%%jaxpr.*\n", "", code)


@pytest.mark.skipif(tuple(int(x) for x in __import__("jax").__version__.split(".")[:2]) < (0, 12),
                    reason="L12 states JAX 0.12's remat2 parameters and XLA's memory on the CPU")
def test_checkpoint_policies_keep_what_lecture_12_says():
    """L12: per policy, the forward scan of deep's gradient stacks what the lecture prints (dots_saveable: the first
    product, through an identity reduce_precision; nothing_saveable: the carries only) and XLA's temporaries are 3.2,
    1.1, 3.2 and 3.2 MB; the backward scan's remat2 (differentiated=True, the policy as a parameter) recomputes the
    first product only without dots_saveable."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jaxprlens.exercise import say

    def block(x, W1, W2):
        return x + jnp.tanh(x @ W1) @ W2

    ns = {"jax": jax, "jnp": jnp, "lax": lax, "say": say, "block": block}
    lines = _run(_code_cell("12", "def stacked(grad)"), ns).strip().split("\n")
    assert [" ".join(line.split()) for line in lines] == [
        "block input f32[8,64,128], one_minus_square f32[8,64,1024] XLA temporaries 3.2 MB",
        "nothing_saveable input f32[8,64,128] XLA temporaries 1.1 MB",
        "dots_saveable dot_general f32[8,64,1024], input f32[8,64,128] XLA temporaries 3.2 MB",
        "everything_saveable one_minus_square f32[8,64,1024], input f32[8,64,128] XLA temporaries 3.2 MB"]
    policies = jax.checkpoint_policies
    recomputed = {}
    for policy in (policies.nothing_saveable, policies.dots_saveable):
        grad = jax.grad(ns["deep_with"](jax.checkpoint(block, policy=policy)), argnums=1)
        eqns = jax.make_jaxpr(grad)(*ns["args"]).jaxpr.eqns
        saved = {e.primitive.name for e in eqns[0].params["jaxpr"].jaxpr.eqns}
        remat = next(e for e in eqns[-1].params["jaxpr"].jaxpr.eqns if e.primitive.name == "remat2")
        assert remat.params["differentiated"] is True and remat.params["policy"] is policy
        assert ("reduce_precision" in saved) == (policy is policies.dots_saveable)
        recomputed[policy.__name__] = [e.primitive.name for e in remat.params["jaxpr"].jaxpr.eqns]
    assert recomputed["dots_saveable"][:2] == ["tanh", "one_minus_square"]
    assert recomputed["nothing_saveable"] == ["dot_general"] + recomputed["dots_saveable"]
    assert recomputed["dots_saveable"].count("dot_general") == 3
    pe = jax.make_jaxpr(jax.checkpoint(block, policy=policies.dots_saveable))(*ns["args"]).jaxpr.eqns[0]
    assert pe.primitive.name == "remat2" and set(pe.params) >= {"policy", "prevent_cse", "differentiated"}
    text = prose("12")
    assert _squash("`dots_saveable` keeps a stack as large as the plain gradient's") in text
    assert _squash("`dots_saveable` 保存的堆叠和普通梯度的一样大") in text


@pytest.mark.skipif(tuple(int(x) for x in __import__("jax").__version__.split(".")[:2]) < (0, 12),
                    reason="L16 prints JAX 0.12's checkify jaxpr and messages")
def test_checkify_returns_the_error_as_lecture_16_reads_it():
    """L16: checkify's jaxpr tests each sub, log and mul result with ne, folds the flags with or, keeps the first
    failed check's code with select_n and returns flag, code and result; the host's messages are JAX's; a bare
    checkify.check is a `check` equation that jit refuses."""
    import jax
    import jax.numpy as jnp
    from jax import make_jaxpr
    from jaxprlens.exercise import show_error

    def risky(x):
        return jnp.log(x - 1.) * 2.

    ns = {"jax": jax, "jnp": jnp, "make_jaxpr": make_jaxpr, "show_error": show_error, "risky": risky}
    _run(_code_cell("16", "checked_risky = checkify.checkify"), ns)
    closed = make_jaxpr(ns["checked_risky"])(jnp.array([2., 0.5]))
    eqns = closed.jaxpr.eqns
    tested = [eqns[i - 1].primitive.name for i, e in enumerate(eqns) if e.primitive.name == "ne"]
    assert tested == ["sub", "log", "mul"]
    assert [e.primitive.name for e in eqns].count("select_n") == 3
    assert [str(v.aval) for v in closed.jaxpr.outvars] == ["bool[]", "int32[]", "float32[2]"]
    lines = _run(_code_cell("16", "err, out = jax.jit(checked_risky)"), ns).split("\n")
    assert lines[0] == "[ 0. nan] nan generated by primitive: log."
    assert lines[1] == "JaxRuntimeError: nan generated by primitive: log."
    assert lines[2].startswith("4.0 out-of-bounds indexing for array of shape (5,): index 10 is out of bounds")
    assert "check[debug=False]" in "\n".join(lines) and "not functionalized" in "\n".join(lines)
    assert lines[-2] == "x must be > 1, got 0.5 (`check` failed)"
    assert _squash("Only by\nreturning the error as a value") in prose("16")
    assert _squash("只能把错误作为值返回") in prose("16")


@pytest.mark.parametrize("prefix, right", [
    ("11", "the JVP trace steps off the stack while its rule runs"),
    ("11", "规则运行期间，JVP trace 暂时离开栈顶"),
    ("11", "`lax.scan` instead calls its body **once**"),
    ("12", "`jax.vjp` is `linearize` followed by the transpose of the linear jaxpr"),
    ("12", "`jax.vjp` 就是 `linearize` 再对线性 jaxpr 做转置"),
    ("12", "No JVP jaxpr is built and nothing is split: `linearize`, `vjp` and `grad` run `f` **once**, on "
           "`LinearizeTracer`s"),
    ("12", "不构造 JVP jaxpr，也不拆分任何东西：`linearize`、`vjp`、`grad` 在 `LinearizeTracer` 上把 `f` **运行一次**"),
    ("12", "Partial evaluation survives only in the fallback for a primitive that has a JVP rule and no "
           "linearization rule"),
    ("12", "Yet XLA's own `memory_analysis`, the last line of both outputs, is 426.0 kB both times"),
    ("14", "jit traces once per **abstract signature** of its arguments"),
    ("14", "`jax.extend.core.check_jaxpr` is JAX's type checker"),
    ("14", "what was exported is the lowered module, not the jaxpr"),
    ("14", "导出的是 lower 之后的模块，而不是 jaxpr"),
    ("10", "`--fusion` reads that HLO back onto the equations"),
])
def test_the_new_topics_are_stated(prefix, right):
    assert _squash(right) in prose(prefix)


def test_no_lecture_is_called_a_capstone_with_lectures_after_it():
    titles = [editions.lecture_info(p.read_text(encoding="utf-8"), "en")[1] for p in LECTURES]
    assert not any("Capstone" in title for title in titles[:-1]), titles


def test_cond_explanation_and_roles_credit_clamping_to_switch():
    # cond expects an index in range (compiled, XLA clamps; vmap's lowering picks differently): no text may
    # promise "the last branch"; lax.switch clamps, lax.cond converts a bool (tests/test_explain.py runs both)
    assert explain("cond") == ("Runs branches[index]; expects an index in range "
                               "(lax.switch clamps first; lax.cond converts a bool).")
    assert explain("cond", "zh") == ("运行 branches[index]；索引须在范围内"
                                     "（lax.switch 先用 clamp 方程钳制索引，lax.cond 把布尔值转换为 0 或 1）。")
    roles = Roles([("index", 1), ("operands", 1)], {"branches": 3})
    assert role_summary(roles) == "1 index, 1 operand; 3 branches, the index must be in [0, 2]"
    assert role_summary(roles, "zh").endswith("3 个分支，索引须在 [0, 2] 内")


# ---------------------------------------------------------------- the two editions, goals and times

def edition_of(path: Path, lang: str):
    nb = jupytext.read(path, fmt="py:percent")
    return editions.edition(nb, lang, path.name, LECTURES)


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_zh_edition_has_no_english_paragraph_and_en_no_chinese_one(path):
    for cell in edition_of(path, "zh").cells:
        if cell.cell_type == "markdown":
            assert editions.english_runs(cell.source) == [], cell.source[:80]
    for cell in edition_of(path, "en").cells:
        if cell.cell_type == "markdown":
            assert all(editions.language_of(p) != "zh" for p in cell.source.split("\n\n")), cell.source[:80]


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_both_editions_have_the_same_code_and_the_same_slides(path):
    en, zh = edition_of(path, "en"), edition_of(path, "zh")
    code = [[editions.code_only(c.source) for c in nb.cells if c.cell_type == "code"] for nb in (en, zh)]
    assert code[0] == code[1]
    first = next(c for c in zh.cells if c.cell_type == "code")
    assert editions.without_device_flags(first.source) == "%load_ext jaxprlens\n" + editions.ZH_CONFIG
    for nb in (en, zh):
        kinds = [c.metadata["slideshow"]["slide_type"] for c in nb.cells]
        assert kinds[0] == "slide" and set(kinds) <= {"slide", "subslide", "-", "skip"}
        hidden = [c for c in nb.cells if any(t.startswith("solution-") for t in c.metadata.get("tags", []))]
        assert all(c.metadata["slideshow"]["slide_type"] == "skip" for c in hidden)


def test_a_mixed_paragraph_is_refused_and_labels_move_to_the_chinese_paragraph():
    with pytest.raises(editions.SplitError, match="mixes English and Chinese"):
        editions.split_markdown("**Takeaway / 小结**: a jaxpr is a list of equations.\n"
                                "jaxpr 是一列带类型的方程。", "en")
    text = "**Exercise 1 / 练习 1.** How many equations are there?\n\n一共有几个方程？"
    assert editions.split_markdown(text, "en") == "**Exercise 1.** How many equations are there?"
    assert editions.split_markdown(text, "zh") == "**练习 1**：一共有几个方程？"
    code = "x = None  # an int / 一个整数\n# English.\n# 中文。"
    assert editions.split_code(code, "zh") == "x = None  # 一个整数\n# 中文。"


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_lecture_states_its_goal_and_time_in_both_languages(path):
    text = path.read_text(encoding="utf-8")
    assert "**Goal.**" in text and "**目标**：" in text
    times = [editions.lecture_info(text, lang)[2] for lang in editions.LANGS]
    assert times[0] and times[0] == times[1], f"{path.name}: time {times}"


def test_the_syllabus_lists_every_lecture_with_its_time():
    for lang, unit in (("en", "min"), ("zh", "分钟")):
        table = editions.lecture_table(LECTURES, lang)
        for path in LECTURES:
            number, title, minutes = editions.lecture_info(path.read_text(encoding="utf-8"), lang)
            assert f"| {number} | [{title}]({path.stem}.ipynb) | {minutes} {unit} |" in table
    syllabus = next(c for c in edition_of(LECTURES[0], "zh").cells if "讲次" in c.source)
    assert editions.LECTURES_MARK not in syllabus.source and "合计" in syllabus.source


def test_the_teachers_notes_state_each_lectures_time_and_split_the_long_ones():
    """Each notes page heads with the lecture's own time; the kit's syllabus lists every lecture with it, in both
    languages; a lecture over 60 minutes is taught in two sessions, which its notes and the syllabus say."""
    syllabus = (ROOT / "docs" / "teachers" / "00_syllabus.md").read_text(encoding="utf-8")
    for path in LECTURES:
        text = path.read_text(encoding="utf-8")
        (number, title, minutes), (_, title_zh, _) = (editions.lecture_info(text, lang) for lang in editions.LANGS)
        notes = (ROOT / "docs" / "teachers" / f"{path.stem}.md").read_text(encoding="utf-8")
        assert f"· {minutes} min / {minutes} 分钟" in notes.split("\n")[2], path.stem
        for shown in (title, title_zh):
            assert f"| {number} | {shown} | {minutes} |" in syllabus, (path.stem, shown)
        if minutes > 60:
            assert "two sessions" in notes and "分两次上" in notes, path.stem
    assert "0-7, 16 (session 1), 8, 16 (session 2), 9-15, 17-20" in syllabus
    assert _squash("so take it right after lecture 7") in prose("00")


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_lecture_has_a_teachers_notes_page_in_both_languages(path):
    notes = ROOT / "docs" / "teachers" / f"{path.stem}.md"
    assert notes.exists(), f"docs/teachers/{path.stem}.md: what students get wrong, what to show live"
    text = notes.read_text(encoding="utf-8")
    for heading in ("## What students get wrong", "## What to show live", "## 学生常见的错误", "## 现场演示"):
        section = text.split(heading, 1)[1].split("\n## ", 1)[0] if heading in text else ""
        assert section.count("\n- ") >= 2, f"{notes.name}: {heading} needs at least two points"
    for lang in editions.LANGS:
        assert f"](../course/{lang}/{path.stem}.ipynb)" in text


def _avoided_in(text: str, where: str, in_prose: bool = False) -> list[str]:
    """Each avoided synonym in a Chinese ``text`` (an English one as a whole word), named with ``where``;
    ``in_prose``: an English one only next to Chinese (``传递 carry；``), not in code beside it
    (``lambda i, carry:``)."""
    found = []
    cjk = CJK.pattern
    for term, synonyms in avoided().items():
        for word in synonyms:
            w = re.escape(word)
            pattern = (w if not word.isascii() else
                       rf"(?:(?<={cjk})|(?<={cjk} )){w}(?![\w`])|(?<![\w`]){w}(?= ?{cjk})" if in_prose else
                       rf"(?<![\w`]){w}(?![\w`])")
            found += [f"{where}: {word} (say {term})" for _ in re.finditer(pattern, text)]
    found += [f"{where}: a bare 体 (say 循环体 or 函数体)" for _ in BARE_BODY.finditer(text)]
    return found


# A bare 体 reads as the start of 体重 or 体现 ("把体重新变成函数"): a body is a 循环体 or a 函数体.
BARE_BODY = re.compile(r"(?<![函数循环具整个实载字媒主身立物总一合固液气])体(?![现积验系])")


def test_chinese_prose_keeps_to_one_term_per_concept():
    """Every markdown paragraph of the zh edition, however it is phrased: the test compares no sentence with the
    English one (a zh paragraph may split, merge or reorder the English sentences), it only looks for synonyms."""
    found = []
    for path in LECTURES:
        for cell in edition_of(path, "zh").cells:
            if cell.cell_type == "markdown":
                plain = editions.CODE_SPAN.sub(" ", editions.FENCE.sub(" ", cell.source))
                found += _avoided_in(editions.join_soft_breaks(plain), path.stem)
    assert found == []


def test_chinese_teachers_notes_keep_to_one_term_per_concept():
    """The Chinese half of every teacher's page (from its first Chinese heading on), code spans left out: the
    notes speak the students' words (进入, not 步入; lowering kept in English, not 降级)."""
    found = []
    for path in LECTURES:
        text = (ROOT / "docs" / "teachers" / f"{path.stem}.md").read_text(encoding="utf-8")
        zh = text[text.index("## 学生常见的错误"):]
        zh = editions.join_soft_breaks(editions.CODE_SPAN.sub(" ", zh))
        found += _avoided_in(zh, f"teachers/{path.stem}", in_prose=True)
    assert found == []


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_a_label_moves_to_the_chinese_paragraph_it_heads(path):
    """A label that opens an English paragraph moves to the first Chinese paragraph after the English run: that is
    its translation only when the run is that one paragraph (lecture 7's 再谈弱类型, the last of two English
    paragraphs, once headed the translation of the first); a Chinese paragraph may also carry its own label."""
    wrong = []
    for i, cell in enumerate(jupytext.read(path, fmt="py:percent").cells):
        if cell.cell_type != "markdown":
            continue
        blocks = editions._blocks(cell.source)
        langs = [editions._block_language(b, "") for b in blocks]
        for k, block in enumerate(blocks):
            if langs[k] == "en" and editions._zh_label("\n".join(block)):
                start, zh = k, k + 1
                while start and langs[start - 1] == "en":
                    start -= 1
                while zh < len(blocks) and langs[zh] != "zh":
                    zh += 1
                own_label = zh < len(blocks) and blocks[zh][0].lstrip("> ").startswith("**")
                if not own_label and (start != k or zh != k + 1):
                    wrong.append(f"cell {i}: {block[0][:50]}")
    assert wrong == []


def test_l7s_weak_type_label_heads_its_own_paragraph():
    zh = [c.source for c in edition_of(next(p for p in LECTURES if p.name.startswith("07")), "zh").cells
          if c.cell_type == "markdown" and "再谈弱类型" in c.source][0]
    assert re.search(r"\*\*再谈弱类型\*\*：`a`、`b` 上的 `convert_element_type", zh)
    assert "**再谈弱类型**：`inner`" not in zh


def test_a_term_split_by_a_line_break_is_still_found():
    """The term tests read text with its soft breaks joined: a line break inside 单步引擎 once hid it."""
    assert _avoided_in(editions.join_soft_breaks("jaxprlens 自己的单步\n引擎"), "x") == ["x: 单步引擎 (say 单步执行器)"]
    assert _avoided_in(editions.join_soft_breaks("> 自己的单步\n> 引擎"), "x") == ["x: 单步引擎 (say 单步执行器)"]


@pytest.mark.parametrize("text, joined", [
    ("第一行\n第二行", "第一行第二行"),
    ("> 引用的第一行，\n> 第二行", "> 引用的第一行，第二行"),
    ("中文\n`code` 后", "中文\n`code` 后"),             # a break next to code stays (a space there is right)
    ("中文：\n- 列表项", "中文：\n- 列表项"),            # a list item keeps its own line
    ("English\nwords", "English\nwords"),
])
def test_the_zh_edition_joins_soft_breaks_between_chinese_characters(text, joined):
    assert editions.join_soft_breaks(text) == joined
    assert editions.split_markdown(text, "zh") == (joined if editions.language_of(text) == "zh" else "")


def test_no_zh_lecture_keeps_a_break_between_chinese_characters():
    """Markdown renders a soft break as a space; Chinese has none between characters."""
    left = [f"{path.stem}: {m.group(0)!r}" for path in LECTURES for cell in edition_of(path, "zh").cells
            if cell.cell_type == "markdown"
            for m in re.finditer(rf".{{0,6}}{CJK.pattern}\n(?:> ?)?{CJK.pattern}.{{0,6}}", cell.source)]
    assert left == []


def test_the_glossary_names_the_stepper_as_the_views_do():
    """The debugger's engine is 单步执行器 in every view's message (present/i18n.py), so the course says the same."""
    from jaxprlens.exercise import TERMS
    from jaxprlens.present import i18n
    assert TERMS["stepper"][1] == "单步执行器" and "单步引擎" in avoided()["单步执行器"]
    texts = [v for v in vars(i18n).values() if isinstance(v, dict) for v in v.values()]
    zh = "\n".join(x[-1] for x in texts if isinstance(x, tuple) and x and isinstance(x[-1], str))
    assert "单步执行器" in zh and "单步引擎" not in zh


def _python(source: str) -> str:
    """A code cell as Python: IPython's magic and shell lines blanked (line numbers kept)."""
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.split("\n"))


def code_texts(source: str) -> dict[str, list[str]]:
    """What a zh code cell shows the reader besides its code: ``strings`` (string literals with Chinese in them),
    ``comments`` (every comment), ``line_comments`` (comments after code on the same line: on a traced line the
    table's source column shows them) and ``labels`` (the literal parts of a ``print`` call's arguments)."""
    import ast
    import tokenize
    code = _python(source)
    out: dict[str, list[str]] = {"strings": [], "comments": [], "line_comments": [], "labels": []}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            out["comments"].append(tok.string)
            if tok.line[:tok.start[1]].strip():
                out["line_comments"].append(tok.string)
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CJK.search(node.value):
            out["strings"].append(node.value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "print":
            for arg in node.args:
                parts = arg.values if isinstance(arg, ast.JoinedStr) else [arg]
                out["labels"] += [p.value for p in parts if isinstance(p, ast.Constant) and isinstance(p.value, str)]
    return out


def _names(source: str) -> set[str]:
    """The identifiers and keywords of a cell: a print label made of them is code (``"params:"``), not prose."""
    import keyword
    return set(re.findall(r"[A-Za-z_]\w*", _python(source))) - {""} | set(keyword.kwlist)


def _labels_in_english(source: str, names: set[str] = frozenset()) -> list[str]:
    """A print label with an English word that is not a name of the code (the cell's, or ``names``: the
    lecture's): the zh edition prints it. ``"params:"`` and ``"log ←"`` name code; ``"holding"`` does not."""
    names = set(names) | set(re.findall(r"[A-Za-z_]\w*", re.sub(r"(['\"]).*?\1", "", _python(source))))
    return [label for label in code_texts(source)["labels"] if not CJK.search(label)
            and {w for w in re.findall(r"[A-Za-z_]\w*", label) if len(w) > 1} - names]


def _code_names(path: Path) -> set[str]:
    """Every identifier in a lecture's code, string literals left out."""
    return {n for c in cells(path) if c["kind"] == "code"
            for n in re.findall(r"[A-Za-z_]\w*", re.sub(r"(['\"]).*?\1", "", _python(c["source"])))}


def _english_comment(comment: str) -> bool:
    """A comment in English, code in it (``c = broadcast_in_dim 1.0``, `spans`) not counted as words."""
    return editions.language_of(re.sub(r"`[^`]*`|\w*_\w*", " ", comment)) == "en"


def test_chinese_code_keeps_to_the_glossary_and_speaks_chinese():
    """The zh edition's code cells: Chinese strings and comments keep to the glossary; every comment (one on a line
    of code reaches the table's source column) and every print label is Chinese, not English."""
    found = []
    for path in LECTURES:
        names = _code_names(path)
        for i, cell in enumerate(edition_of(path, "zh").cells):
            if cell.cell_type != "code":
                continue
            texts = code_texts(cell.source)
            where = f"{path.stem} cell {i}"
            for text in texts["strings"] + [c for c in texts["comments"] if CJK.search(c)]:
                found += _avoided_in(text, where)
            found += [f"{where}: English comment: {c}" for c in texts["comments"] if _english_comment(c)]
            found += [f"{where}: English print label: {label!r}" for label in _labels_in_english(cell.source, names)]
    assert found == []


def test_code_texts_finds_comments_strings_and_print_labels():
    cell = ('%%jaxpr\nx = f(y)  # the body\n# 循环体\nprint("holding", x, f"{x} 个", "params:")\n'
            's = "carry 是二元组"\nparams = 1')
    texts = code_texts(cell)
    assert texts["line_comments"] == ["# the body"] and texts["comments"] == ["# the body", "# 循环体"]
    assert sorted(texts["strings"]) == sorted([" 个", "carry 是二元组"])
    assert _labels_in_english(cell) == ["holding"] and _labels_in_english(cell, {"holding"}) == []
    assert _labels_in_english('print("f_inv(x):", g)\nf_inv = 1') == []       # code, not words
    assert _english_comment("# the body") and not _english_comment("# 执行方程 c = broadcast_in_dim 1.0")
    assert _avoided_in("carry 是二元组", "x") == ["x: carry (say 携带值)"]
    assert _avoided_in("把体重新变成函数", "x") == ["x: a bare 体 (say 循环体 or 函数体)"]
    assert _avoided_in("把循环体与函数体重新变成函数，体现在", "x") == []
    said = _avoided_in("第 4 行：lambda i, carry: carry + 1  — 传递 carry；", "x", in_prose=True)
    assert said == ["x: carry (say 携带值)"]


def _zh_outputs(path: Path) -> list[str]:
    """The text a stored zh notebook shows: every code cell's text/plain and stream output, line by line."""
    nb = nbformat.read(str(path), as_version=4)
    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text") if out.get("output_type") == "stream" else out.get("data", {}).get("text/plain")
            if text:
                lines += ("".join(text) if isinstance(text, list) else text).split("\n")
    return lines


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.stem)
def test_stored_chinese_outputs_keep_to_the_glossary(path):
    """The stored zh notebook's outputs (after scripts/build_notebooks.py): a line in Chinese keeps to the glossary,
    English synonyms included where they stand in the Chinese text (code beside it, a jaxpr or a value, may say
    ``carry``)."""
    found = []
    for n, line in enumerate(_zh_outputs(path)):
        if CJK.search(line):
            found += _avoided_in(line, f"{path.stem} output line {n}", in_prose=True)
    assert found == []


# ---------------------------------------------------------------- exercises

def exercises(path: Path) -> dict[int, dict]:
    """{N: {"exercise": cell, "check": cell, "solution": cell}} from the cells tagged exercise-N, check-N,
    solution-N."""
    found: dict[int, dict] = {}
    for c in cells(path):
        for tag in c["tags"]:
            m = re.fullmatch(r"(exercise|check|solution)-(\d+)", tag)
            if m:
                found.setdefault(int(m.group(2)), {})[m.group(1)] = c
    return found


EXERCISES = [(p, n) for p in LECTURES for n in sorted(exercises(p))]


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_lecture_has_two_exercises_with_hidden_solutions(path):
    found = exercises(path)
    assert len(found) >= 2, f"{path.name}: {len(found)} exercise(s)"
    order = [t for c in cells(path) for t in c["tags"] if re.fullmatch(r"(exercise|check|solution)-\d+", t)]
    assert order == [f"{k}-{n}" for n in sorted(found) for k in ("exercise", "check", "solution")]
    for n, parts in found.items():
        assert '"source_hidden": true' in parts["solution"]["header"], f"solution-{n} is not folded"
    assert sum("checks" in c["tags"] for c in cells(path)) == 1


def _is_solution(tags) -> bool:
    return any(re.fullmatch(r"solution-\d+", t) for t in tags)


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_a_folded_solution_shows_a_fixed_line_not_its_answer(path):
    """JupyterLab and Notebook 7 show a folded cell's first line: every solution opens with the same comment, in
    the source (English then Chinese) and in each edition (its own language)."""
    solutions = [c for c in cells(path) if _is_solution(c["tags"])]
    assert solutions
    for c in solutions:
        assert c["source"].split("\n")[:2] == [editions.SOLUTION_LINES["en"], editions.SOLUTION_LINES["zh"]]
    for lang in editions.LANGS:
        built = [c for c in edition_of(path, lang).cells if _is_solution(c.metadata.get("tags", []))]
        assert [c.source.split("\n")[0] for c in built] == [editions.SOLUTION_LINES[lang]] * len(solutions)


def _run(code: str, ns: dict) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<cell>", "exec"), ns)
    return out.getvalue()


def _wrong(value) -> list:
    """Answers near a right one, each of them wrong."""
    if isinstance(value, bool):
        cands = [not value]
    elif isinstance(value, int):
        cands = [value + 1, value - 1]
    elif isinstance(value, str):
        cands = [value + "s", "add", *avoided().get(value, ())]     # a Chinese term's synonyms are wrong too
    elif isinstance(value, (list, tuple)):
        cands = [value[:-1], type(value)([*value, value[-1]]), type(value)(reversed(value))]
    elif isinstance(value, (set, frozenset)):       # one left out, one too many (a set has no wrong order)
        extra = next(x for x in ("a", "b", "e", "f", "i", "z", 0, -1) if x not in value)
        cands = [value - {sorted(value)[-1]}, value | {extra}]
    elif isinstance(value, dict):
        first = next(iter(value))
        cands = [{**value, first: value[first] + 1}, {k: v for k, v in value.items() if k != first}]
    else:
        raise TypeError(f"no wrong answers for {value!r}")
    return [c for c in cands if c != value]


# Lecture 9's answers are interpreters; these are the wrong ones its checks must reject.
LITERAL_UNREAD = """
def my_eval_jaxpr(jaxpr, consts, *args):   # reads a Literal from env
    env = {**dict(zip(jaxpr.constvars, consts)), **dict(zip(jaxpr.invars, args))}
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*[env[a] for a in eqn.invars], **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [env[a] for a in jaxpr.outvars]
"""
OLD_BIND_PARAMS = """
def my_eval_jaxpr(jaxpr, consts, *args):   # get_bind_params as JAX before 0.9.2 returned it
    env = {**dict(zip(jaxpr.constvars, consts)), **dict(zip(jaxpr.invars, args))}
    read = lambda a: a.val if isinstance(a, jcore.Literal) else env[a]
    for eqn in jaxpr.eqns:
        subfuns, params = eqn.primitive.get_bind_params(eqn.params)
        outs = eqn.primitive.bind(*subfuns, *map(read, eqn.invars), **params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(a) for a in jaxpr.outvars]
"""
# A right recursive evaluator written another way: one helper that recurses on itself, never through the
# global name my_eval_recursive.
HELPER_RECURSION = """
def _walk(jaxpr, consts, args):
    env = {**dict(zip(jaxpr.constvars, consts)), **dict(zip(jaxpr.invars, args))}
    read = lambda a: a.val if isinstance(a, jcore.Literal) else env[a]
    sub = lambda closed, *xs: _walk(closed.jaxpr, closed.consts, xs)
    for eqn in jaxpr.eqns:
        xs, p = [read(a) for a in eqn.invars], eqn.params
        if eqn.primitive.name == "cond":
            outs = sub(p["branches"][int(xs[0])], *xs[1:])
        elif eqn.primitive.name == "while":
            cn, bn = p["cond_nconsts"], p["body_nconsts"]
            carry = xs[cn + bn:]
            while sub(p["cond_jaxpr"], *xs[:cn], *carry)[0]:
                carry = sub(p["body_jaxpr"], *xs[cn:cn + bn], *carry)
            outs = list(carry)
        elif eqn.primitive.name in ("jit", "pjit"):
            outs = sub(p["jaxpr"], *xs)
        else:
            outs = eqn.primitive.bind(*xs, **eqn.primitive.get_bind_params(p))
            outs = outs if eqn.primitive.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(a) for a in jaxpr.outvars]

def my_eval_recursive(jaxpr, consts, *args):
    return _walk(jaxpr, consts, args)
"""


@pytest.mark.parametrize("n, code, said", [
    (1, LITERAL_UNREAD, "read must return atom.val when atom is a jcore.Literal"),
    (1, OLD_BIND_PARAMS, "Since JAX 0.9.2 get_bind_params returns the params alone"),
    (1, WRONG_CODE_FORGETS_CONSTS := """
def my_eval_jaxpr(jaxpr, consts, *args):   # forgets the constvars
    env = dict(zip(jaxpr.invars, args))
    read = lambda a: a.val if isinstance(a, jcore.Literal) else env[a]
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(a) for a in jaxpr.outvars]
""", "write the constvars and the invars before the first equation"),
    (2, "my_eval_recursive = my_eval_jaxpr", "bound cond instead of running its sub-jaxprs itself"),
])
def test_l9s_evaluator_check_names_the_bug_it_found(n, code, said):
    """Each bug gets its own hint, not one hint for every bug."""
    path = next(p for p in LECTURES if p.name.startswith("09"))
    trial = _prepared(path, n)
    _run(exercises(path)[n]["solution"]["source"], trial)
    _run(code, trial)
    with pytest.raises(AssertionError) as err:
        _run(exercises(path)[n]["check"]["source"], trial)
    assert said in str(err.value)
    others = ["read must return atom.val", "Since JAX 0.9.2", "write the constvars and the invars", "bound cond"]
    assert [o for o in others if o in str(err.value)] == [o for o in others if o in said]


@pytest.mark.parametrize("answer, right", [
    (["c", "d", "g", "h"], True), (["h", "g", "d", "c"], True), ({"d", "c", "h", "g"}, True),
    (("g", "c", "h", "d"), True),
    (["c", "d", "g"], False), (["c", "d", "e", "g", "h"], False), (["c", "d", "g", "h", "i"], False),
])
def test_l8s_nan_exercise_takes_the_names_in_any_order(answer, right):
    """L8 exercise 2: the answer is a set of names; another order is right, a missing or an extra name is not."""
    path = next(p for p in LECTURES if p.name.startswith("08"))
    trial = _prepared(path, 2)
    trial["answer_2"] = answer
    check = exercises(path)[2]["check"]["source"]
    if right:
        assert "Correct!" in _run(check, trial)
    else:
        with pytest.raises(AssertionError, match="Follow the dataflow from b"):
            _run(check, trial)


@pytest.mark.parametrize("answer, right", [
    (("model", "data"), True), (["model", "data"], True), ("P", True),
    (("data", "model"), False), ("P-reversed", False), (("model", None), False), (("model",), False),
])
def test_l20s_spec_exercise_takes_a_tuple_a_list_or_a_partition_spec(answer, right):
    """L20 exercise 1: the sharding of ``(x @ w1).T`` as a tuple of axis names, a list or a ``PartitionSpec``;
    the spec of ``x @ w1`` itself (the dimensions not swapped) or a dimension left out is wrong."""
    from jax.sharding import PartitionSpec as P
    answer = {"P": P("model", "data"), "P-reversed": P("data", "model")}.get(answer, answer) \
        if isinstance(answer, str) else answer
    path = next(p for p in LECTURES if p.name.startswith("20"))
    trial = _prepared(path, 1)
    trial["answer_1"] = answer
    check = exercises(path)[1]["check"]["source"]
    if right:
        assert "Correct!" in _run(check, trial)
    else:
        with pytest.raises(AssertionError, match="A transpose moves the dimensions"):
            _run(check, trial)


@pytest.mark.parametrize("prefix, natural, keys", [
    ("05", [1, 1, 2], "'cond_consts', 'body_consts', 'carry'"),
    ("05", (1, 1, 2), "'cond_consts', 'body_consts', 'carry'"),
    ("06", [2, 2, 1], "'consts', 'carry', 'xs'"),
    ("06", {"const": 2, "carries": 2, "x": 1}, "'consts', 'carry', 'xs'"),
])
def test_l5_and_l6_group_counts_in_another_form_get_a_form_message(prefix, natural, keys):
    """Exercise 1 of lectures 5 and 6: the right counts as a list or under other keys are told the keys, not
    the hint on what the groups hold."""
    path = next(p for p in LECTURES if p.name.startswith(prefix))
    trial = _prepared(path, 1)
    trial["answer_1"] = natural
    with pytest.raises(AssertionError) as err:
        _run(exercises(path)[1]["check"]["source"], trial)
    assert str(err.value).endswith(f"right values, wrong form: you answered {natural!r}; the answer is a dict "
                                   f"with the keys {keys}.")


def test_l9s_recursive_check_takes_a_right_evaluator_that_recurses_through_a_helper():
    path = next(p for p in LECTURES if p.name.startswith("09"))
    trial = _prepared(path, 2)
    _run(HELPER_RECURSION, trial)
    assert "Correct!" in _run(exercises(path)[2]["check"]["source"], trial)


WRONG_EVALUATORS = {
    1: ["""
def my_eval_jaxpr(jaxpr, consts, *args):   # forgets the constvars
    env = dict(zip(jaxpr.invars, args))
    read = lambda a: a.val if isinstance(a, jcore.Literal) else env[a]
    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(a) for a in jaxpr.outvars]
""", """
def my_eval_jaxpr(jaxpr, consts, *args):   # returns the inputs
    return list(args)[:len(jaxpr.outvars)]
""", """
def my_eval_jaxpr(jaxpr, consts, *args):   # right values, but JAX's own interpreter, not one of yours
    return jax.core.eval_jaxpr(jaxpr, consts, *args)
""", """
from jax.core import eval_jaxpr as run_it
def my_eval_jaxpr(jaxpr, consts, *args):   # the same under another name
    return run_it(jaxpr, consts, *args)
""", """
def my_eval_jaxpr(jaxpr, consts, *args):   # the same through jaxpr_as_fun
    return jcore.jaxpr_as_fun(jcore.ClosedJaxpr(jaxpr, consts))(*args)
""", LITERAL_UNREAD, OLD_BIND_PARAMS],
    2: ["""
my_eval_recursive = my_eval_jaxpr          # right values, but binds cond/while/jit instead of recursing
""", """
_right = my_eval_recursive
def _first_branch(params, index, *ops):    # always runs branch 0
    return run_sub(params["branches"][0], *ops)
sub_rules["cond"] = _first_branch
"""],
}


# Lecture 17's exercise 4 is a JVP rule; check_grads must reject these.
WRONG_RULES = ["""
def smooth_abs_jvp(primals, tangents):     # the derivative of x**2 + 1, not of its square root
    (x,), (t,) = primals, tangents
    return smooth_abs(x), ad.instantiate_zeros(t) * 2. * x
""", """
def smooth_abs_jvp(primals, tangents):     # the tangent alone, not the pair
    (x,), (t,) = primals, tangents
    return ad.instantiate_zeros(t) * x / smooth_abs(x)
"""]

# Lecture 11's exercise 4 teaches the mini make_jaxpr tanh; these must fail its check.
WRONG_TANH = ["""
def tanh(x):                               # the wrong primitive
    return bind("sin", x)
""", """
def tanh(x):                               # jax.numpy does not know our tracers
    return jnp.tanh(x)
""", """
IMPL.pop("tanh", None)
def tanh(x):                               # a primitive bind cannot compute or type
    return bind("tanh", x)
""", """
IMPL["tanh"] = lax.sin
def tanh(x):                               # named right, computed wrong
    return bind("tanh", x)
"""]

# Exercises whose answer is code: the wrong programs their check must reject, by (lecture number, exercise).
WRONG_CODE = {("09", 1): WRONG_EVALUATORS[1], ("09", 2): WRONG_EVALUATORS[2], ("17", 4): WRONG_RULES,
              ("11", 4): WRONG_TANH}


def _prepared(path: Path, n: int) -> dict:
    """A namespace as a student has it at exercise n: the setup and checks cells, earlier exercises solved,
    exercise n run."""
    found = exercises(path)
    ns: dict = {"__name__": "__course__"}
    for c in cells(path):       # what the exercises build on (tagged setup), then the checks' imports
        if "setup" in c["tags"] or "checks" in c["tags"]:
            try:
                _run(c["source"], ns)
            except ModuleNotFoundError as e:     # a lecture on a library of the dev extras (flax, optax)
                pytest.skip(f"{path.stem} needs {e.name}, in the dev extras (pip install -e '.[dev]')")
    for k in sorted(found):
        if k < n:
            _run(found[k]["exercise"]["source"], ns)
            _run(found[k]["solution"]["source"], ns)
    _run(found[n]["exercise"]["source"], ns)
    return ns


@pytest.mark.parametrize("path, n", EXERCISES, ids=lambda x: x.stem if isinstance(x, Path) else str(x))
def test_check_fails_on_wrong_answers_and_passes_on_the_solution(path, n):
    parts = exercises(path)[n]
    check, solution = parts["check"]["source"], parts["solution"]["source"]
    ns = _prepared(path, n)
    assert "Not answered yet" in _run(check, ns), "the placeholder must not fail the check"
    _run(solution, ns)
    assert "Correct!" in _run(check, ns)
    code = WRONG_CODE.get((path.name[:2], n))
    wrongs = code if code is not None else _wrong(ns[f"answer_{n}"])
    assert wrongs
    for wrong in wrongs:
        trial = _prepared(path, n)
        _run(solution, trial)
        if code is not None:
            _run(wrong, trial)
        else:
            trial[f"answer_{n}"] = wrong
        with pytest.raises(AssertionError, match=r"^Not quite: ") as err:
            _run(check, trial)
        assert not CJK.search(str(err.value).replace(repr(wrong), "")), "the English edition's message is English"
        set_default_lang("zh")          # as %jaxpr_config --lang zh does in the Chinese edition
        try:
            with pytest.raises(AssertionError, match=r"^还不对：") as err_zh:
                _run(check, trial)
        finally:
            set_default_lang(None)
        assert CJK.search(str(err_zh.value)) and str(err_zh.value) != str(err.value)


@pytest.mark.parametrize("path, n", EXERCISES, ids=lambda x: x.stem if isinstance(x, Path) else str(x))
def test_an_untouched_exercise_fails_when_graded_and_its_solution_passes(path, n, monkeypatch):
    """Under nbgrader (NBGRADER_EXECUTION set) a blank answer scores nothing: the check of the untouched
    exercise fails, "not answered"; the solution still passes."""
    from jaxprlens import exercise
    monkeypatch.setattr(exercise, "GRADED", None)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    parts = exercises(path)[n]
    ns = _prepared(path, n)
    with pytest.raises(AssertionError, match=r"^Not answered: "):
        _run(parts["check"]["source"], ns)
    _run(parts["solution"]["source"], ns)
    assert "Correct!" in _run(parts["check"]["source"], ns)


# ---------------------------------------------------------------- the stored notebooks

NOTEBOOK_BYTES = 500_000        # GitHub's notebook preview gives up on larger files


def test_the_course_has_lectures_00_to_18_at_least():
    numbers = [int(p.name[:2]) for p in LECTURES]
    assert numbers == list(range(len(numbers))) and len(numbers) >= 19, [p.name for p in LECTURES]


@pytest.mark.parametrize("lang", editions.LANGS)
def test_every_stored_solution_shows_the_fixed_line_first(lang):
    shown = {}
    for path in sorted((ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        firsts = [c.source.split("\n")[0] for c in nb.cells if _is_solution(c.metadata.get("tags", []))]
        assert firsts, path.name
        shown.update({f"{path.stem} solution {i + 1}": line for i, line in enumerate(firsts)
                      if line != editions.SOLUTION_LINES[lang]})
    assert shown == {}, "a folded solution shows its answer: rebuild the notebooks (scripts/build_notebooks.py)"


@pytest.mark.parametrize("lang", editions.LANGS)
def test_every_stored_notebook_exists_and_is_light_enough_for_githubs_preview(lang):
    stored = {p.stem: p.stat().st_size for p in (ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb")}
    assert sorted(stored) == [p.stem for p in LECTURES]
    heavy = {name: size for name, size in stored.items() if size > NOTEBOOK_BYTES}
    assert heavy == {}, f"notebooks/{lang}: over {NOTEBOOK_BYTES} bytes"
