"""What if (engine/whatif.py): ``set_value`` and ``Stepper.edit`` on real values, each compared with running the
edited program under jax.jit; what an edit changed; the refusals, in English and Chinese."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxprlens.model import trace
from jaxprlens.present.words import path_text
from stepping import assert_same, traced


def _mlp(x, w, b):
    h = jnp.tanh(x @ w + b)
    def body(c, xi):
        return c * 0.5 + xi, c
    c, ys = jax.lax.scan(body, jnp.zeros(h.shape[1:]), h)
    return c.sum(), ys * 2.0


MLP_ARGS = (jnp.linspace(-1., 1., 12).reshape(3, 4), jnp.linspace(0., 1., 20).reshape(4, 5), jnp.ones(5))


def test_set_value_on_an_input_equals_jit_with_that_input():
    program = trace(_mlp, *MLP_ARGS)
    st = program.stepper()
    x2 = MLP_ARGS[0].at[1, 2].set(jnp.nan)
    st.set_value("a", x2)                  # the first input, before any step
    assert [(e.name, path_text(e.where)) for e in st.edits] == [("a", "eqn 0")]
    st.run()
    assert_same(st.outputs, jax.jit(_mlp)(x2, *MLP_ARGS[1:]))
    assert st.jit_check().status == "edited"
    while st.edits:                        # back past the edit undoes it
        st.back()
    assert st.position == 0 and not st.changed
    st.run()
    assert_same(st.outputs, jax.jit(_mlp)(*MLP_ARGS))
    assert st.jit_check().status in ("equal", "close")


def test_set_value_on_a_computed_value_equals_jit_of_the_rest():
    def f(x, y):
        a = jnp.sin(x) * y
        return jnp.cos(a) + x, a.sum()

    def rest(x, a):                        # f from `a` on
        return jnp.cos(a) + x, a.sum()

    x, y = jnp.arange(4.), jnp.full(4, 2.)
    program = trace(f, x, y)
    st = program.stepper()
    mul = next(e for e in program.eqns if e.primitive == "mul")
    a = mul.outvars[0].name                                   # the program's name for `a`
    st.goto(mul.index + 1)
    new = jnp.array([1., -2., 3., 0.5], jnp.float32)
    st.set_value(a, new)
    assert np.array_equal(st.last_outputs[0], new)          # the panel shows the edited value
    assert {v.name for v in st.changed} == {a}
    st.run()
    assert_same(st.outputs, jax.jit(rest)(x, new))
    assert {v.name for v in st.changed} == {a} | {v.name for e in program.eqns[mul.index + 1:] for v in e.outvars}
    assert not {v.name for v in program.invars} & {v.name for v in st.changed}    # upstream: unchanged
    while st.edits:                                           # back over the run, then over the edit
        st.back()
    assert st.position == mul.index + 1 and not st.edits and not st.changed
    assert np.array_equal(st.env_names[a], jnp.sin(x) * y)


def test_changed_goes_into_and_out_of_loop_bodies():
    program = trace(_mlp, *MLP_ARGS)
    st = program.stepper()
    scan = next(e for e in program.eqns if e.primitive == "scan")
    st.goto(scan.index)
    h = scan.invars[-1]                    # the xs of the scan: the tanh
    st.set_value(h.name, jnp.zeros(h.aval.shape, h.aval.dtype).at[2, 0].set(jnp.nan))
    st.step_into()
    body = st.frame.program
    xs_binder = body.invars[-1]
    assert xs_binder in st.changed         # iteration 0's slice of the edited xs
    assert not st.changed & set(body.invars[:-1])           # the consts and the carry of iteration 0 are not
    while st.depth > 1:
        st.step_into()
    assert {v.name for v in scan.outvars} <= {v.name for v in st.changed}
    st.run()
    h_edited = jnp.zeros(h.aval.shape, h.aval.dtype).at[2, 0].set(jnp.nan)

    def tail(h):                           # _mlp from the scan on
        c, ys = jax.lax.scan(lambda c, xi: (c * 0.5 + xi, c), jnp.zeros(h.shape[1:]), h)
        return c.sum(), ys * 2.0

    assert_same(st.outputs, jax.jit(tail)(h_edited))
    ys = np.asarray(st.outputs[1])
    assert np.isnan(ys[3:, 0]).all() and not np.isnan(ys[:3]).any()     # the NaN enters the carry at iteration 2


def test_set_value_in_a_while_cond_frame_reaches_the_body():
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, c[1] * 2.), (0, x))

    program = trace(f, jnp.ones(3))
    st = program.stepper()
    st.step_into()                          # into the cond of iteration 0
    assert st.frame.kind == "while_cond"
    carry = st.frame.program.invars[-1]
    st.set_value(carry.name, jnp.full(3, 3., jnp.float32))
    st.run()
    assert_same(st.outputs, jax.jit(f)(jnp.full(3, 3.)))


def test_set_value_refuses_what_it_cannot_set():
    program = trace(lambda x: (jnp.sin(x) * 2.).sum(), jnp.ones(3))
    st = program.stepper()
    with pytest.raises(ValueError) as info:
        st.set_value("a", jnp.ones(4))
    assert str(info.value) == ("a is f32[3], but the value given is f32[4]: pass a value of the same shape and "
                               "dtype, e.g. jnp.asarray(value, jnp.float32)")
    assert info.value.text("zh") == ("a 的类型是 f32[3]，但给出的值是 f32[4]：请给出形状和 dtype 都相同的值，例如 "
                                     "jnp.asarray(value, jnp.float32)")
    with pytest.raises(ValueError, match="a is f32.3., but the value given is i32.3."):
        st.set_value("a", jnp.ones(3, jnp.int32))
    with pytest.raises(ValueError) as info:
        st.set_value("c", jnp.ones(3))
    assert str(info.value) == ("c is computed by eqn 1 (mul), which has not run yet (at eqn 0): "
                               "step past it first, then set it")
    assert info.value.text("zh") == "c 由方程 1（mul）计算，它还没有运行（当前在方程 0）：请先单步越过它，再设置该值"
    with pytest.raises(ValueError) as info:
        st.set_value("zz", 1.)
    assert str(info.value) == "no value 'zz' is defined at eqn 0 (the values defined here: a)"
    assert info.value.text("zh") == "在方程 0 处没有定义值 'zz'（这里已定义的值：a）"
    with pytest.raises(ValueError, match="shape"):
        st.set_value("a", [1., 2.])
    st.set_value("a", [1, 2, 3])                              # a list of numbers becomes f32[3]
    assert st.env_names["a"].dtype == jnp.float32 and not st.history_truncated
    st.run()
    assert float(st.outputs) == pytest.approx(2 * float(jnp.sin(jnp.array([1., 2., 3.])).sum()))


def test_stepper_errors_are_data_the_catalogue_words_in_both_languages():
    """The engine raises a key and fields (``KeyedError``); ``str`` is English, ``text("zh")`` Chinese."""
    program, _ = traced("func10")
    st = program.stepper()
    st.step().step().step_into().step_into()                      # in the loop's body, at its eqn 0
    with pytest.raises(ValueError) as info:
        st.set_value("zz", 1.)
    assert info.value.key == "value_undefined_in" and info.value.fields["path"] == "2/body"
    names = info.value.fields["shown"]
    assert str(info.value) == f"no value 'zz' is defined at eqn 0 of 2/body (the values defined here: {names})"
    assert info.value.text("zh") == f"在 2/body 的方程 0 处没有定义值 'zz'（这里已定义的值：{names}）"
    with pytest.raises(ValueError) as info:
        st.add_condition("max >> 3")
    assert str(info.value) == ("unknown condition 'max >> 3' (must be one of 'any NaN', 'any Inf', 'max > 1e3', "
                               "'min < -1', 'abs max >= 10')")
    assert info.value.text("zh") == ("未知条件 'max >> 3'（必须是以下之一：'any NaN'、'any Inf'、'max > 1e3'、"
                                     "'min < -1'、'abs max >= 10'）")


# ---------------------------------------------------------------- Stepper.edit: the value panel's actions

def _two_part(x, y):
    a = jnp.sin(x) * y
    return jnp.cos(a) + x, a.sum()


def _rest(x, a):                            # _two_part from `a` on
    return jnp.cos(a) + x, a.sum()


X, Y = jnp.linspace(-1., 2., 4), jnp.full(4, 2.)


def _at_a():
    """A stepper just past the eqn that computes ``a`` of ``_two_part``, and a's printed name there."""
    program = trace(_two_part, X, Y)
    mul = next(e for e in program.eqns if e.primitive == "mul")
    return program.stepper().goto(mul.index + 1), mul.outvars[0].name


A = np.asarray(jnp.sin(X) * Y)              # a, as the program computes it


@pytest.mark.parametrize("op, value, want", [
    ("nan", None, np.full(4, np.nan, np.float32)),
    ("zero", None, np.zeros(4, np.float32)),
    ("scale", "2.5", A * np.float32(2.5)),
    ("scale", 0.5, A * np.float32(0.5)),
    ("eps", None, A + np.float32(1e-3 * np.abs(A).max())),
    ("eps", "0.25", A + np.float32(0.25)),
    ("set", "-1.5", np.full(4, -1.5, np.float32)),
    ("set", 3, np.full(4, 3., np.float32)),
    ("set", [1., -2., 3., 0.5], np.array([1., -2., 3., 0.5], np.float32)),
])
def test_each_edit_steps_on_as_jit_of_the_edited_program(op, value, want):
    st, a = _at_a()
    st.edit(a, op, value)
    np.testing.assert_allclose(np.asarray(st.env_names[a]), want, rtol=1e-6)
    assert [e.name for e in st.edits] == [a] and st.env_names[a].dtype == jnp.float32
    st.run()
    assert_same(st.outputs, jax.jit(_rest)(X, jnp.asarray(want)))
    assert st.jit_check().status == "edited"
    while st.edits:                         # back over the run, then over the edit
        st.back()
    np.testing.assert_array_equal(np.asarray(st.env_names[a]), A)
    st.run()
    assert_same(st.outputs, jax.jit(_two_part)(X, Y))


def test_an_edit_of_an_integer_value_keeps_its_dtype():
    def f(x, n):
        m = n * 2
        return x * m.astype(jnp.float32)

    x, n = jnp.ones(3), jnp.arange(3, dtype=jnp.int32)
    program = trace(f, x, n)
    st = program.stepper().goto(1)           # past m = n * 2
    m = program.eqns[0].outvars[0].name
    st.edit(m, "set", "7")
    assert st.env_names[m].dtype == jnp.int32 and st.env_names[m].tolist() == [7, 7, 7]
    st.run()
    assert_same(st.outputs, jax.jit(lambda x, m: x * m.astype(jnp.float32))(x, jnp.full(3, 7, jnp.int32)))
    st.back(), st.back()
    st.edit(m, "zero")
    assert st.env_names[m].tolist() == [0, 0, 0] and st.env_names[m].dtype == jnp.int32


def _refused(st, *edit) -> tuple:
    """The English and Chinese text of what ``st.edit(*edit)`` raises; the stepper unchanged."""
    before = (st.history_length, st.edits, dict(st.env))
    with pytest.raises(ValueError) as info:
        st.edit(*edit)
    assert (st.history_length, st.edits, dict(st.env)) == before
    return str(info.value), info.value.text("zh")


def test_an_edit_that_cannot_be_made_is_refused_in_the_readers_language():
    st, a = _at_a()
    assert st.position == 3 and [v.name for v in st.env] == ["a", "b", "c", "d", "e"]
    assert _refused(st, "zz", "nan") == ("no value 'zz' is defined at eqn 3 (the values defined here: a, b, c, d, e)",
                                         "在方程 3 处没有定义值 'zz'（这里已定义的值：a, b, c, d, e）")
    assert _refused(st, a, "double") == ("unknown edit 'double' (must be one of ['nan', 'zero', 'scale', 'eps', "
                                         "'set'])", "未知的修改 'double'（必须是以下之一：['nan', 'zero', 'scale', "
                                                    "'eps', 'set']）")
    assert _refused(st, a, "scale", "twice") == (
        f"scale of {a} needs a number; 'twice' is not one (write e.g. 2, 0.5, 1e-3 or nan)",
        f"对 {a} 的 scale 需要一个数；'twice' 不是数（请写成例如 2、0.5、1e-3 或 nan）")
    assert _refused(st, a, "eps", [1, 2])[0].startswith(f"eps of {a} needs a number; [1, 2] is not one")
    assert _refused(st, a, "set", " ") == ("type a number to set the value to", "请输入要设置的数值")
    assert _refused(st, a, "set", [1., 2.]) == (
        f"{a} is f32[4], but the value given has shape (2,): pass a value of shape (4,)",
        f"{a} 的类型是 f32[4]，但给出的值形状为 (2,)：请给出形状为 (4,) 的值")
    assert _refused(st, a, "set", "1+2j") == (f"{a} is f32[4]; (1+2j) is not a float32 value",
                                              f"{a} 的类型是 f32[4]；(1+2j) 不是 float32 值")


def test_nan_and_a_fraction_are_refused_for_an_integer_value():
    program = trace(lambda n: n * 2, jnp.arange(3, dtype=jnp.int32))
    st = program.stepper()
    assert _refused(st, "a", "nan") == ("a is i32[3]: only a float value can be NaN",
                                        "a 的类型是 i32[3]：只有浮点值可以设为 NaN")
    assert _refused(st, "a", "set", "2.5") == ("a is i32[3]; 2.5 is not a int32 value",
                                               "a 的类型是 i32[3]；2.5 不是 int32 值")
