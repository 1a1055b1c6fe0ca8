"""The stepping engine: values equal jax.jit's under any mix of moves; back, breakpoints, paths."""
import linecache
import random

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
import pytest

from corpus import CORPUS
from jaxprlens.model import trace
from jaxprlens.engine.stepper import Stepper, resolve_device, source_context
from jaxprlens.present.words import path_text, stop_text
from seeds import SEEDS

PROGRAMS = {**SEEDS, **CORPUS}
_traced: dict = {}


def traced(name):
    if name not in _traced:
        fn, args = PROGRAMS[name]
        _traced[name] = (trace(fn, *args), jax.jit(fn)(*args))
    return _traced[name]


def assert_same(got, want, what=""):
    assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want), what
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), what
        if g.dtype.kind in "fc" or g.dtype == jnp.bfloat16:
            np.testing.assert_allclose(g.astype(w.dtype) if g.dtype.kind == "c" else g.astype(np.float64),
                                       w if w.dtype.kind == "c" else w.astype(np.float64),
                                       rtol=1e-5, atol=1e-6, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def drive(st: Stepper, policy, seed=0, limit=100_000):
    rng = random.Random(seed)
    n = 0
    while not st.done and n < limit:
        n += 1
        if policy == "into":
            st.step_into()
        elif policy == "step":
            st.step()
        else:
            r = rng.random()
            if r < 0.4:
                st.step_into()
            elif r < 0.7:
                st.step()
            elif r < 0.8:
                st.step_out()
            elif r < 0.95:
                st.back()
            else:
                st.run() if rng.random() < 0.3 else st.step()
    assert st.done


def assert_stepped(st: Stepper, want, what=""):
    """The stepper's outputs equal jax.jit's ``want`` (``assert_same``).  Off the CPU, a program that computes in
    a float type below float32 may differ by that type's rounding: XLA keeps excess precision and elides a cast
    round trip (``casts`` on a GPU, issue 22), so there the values need only be within ``jit_check``'s tolerance
    (twice that type's epsilon of each output's largest magnitude); types and structure stay exact."""
    if not st.low_precision() or jax.default_backend() == "cpu":
        return assert_same(st.outputs, want, what)
    assert jax.tree_util.tree_structure(st.outputs) == jax.tree_util.tree_structure(want), what
    for g, w in zip(jax.tree_util.tree_leaves(st.outputs), jax.tree_util.tree_leaves(want)):
        assert (np.asarray(g).dtype, np.shape(g)) == (np.asarray(w).dtype, np.shape(w)), what
    check = st.jit_check(want=want)
    assert check.status in ("equal", "close"), (what, check)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_policy_gives_jit_values(name):
    program, want = traced(name)
    st = program.stepper()
    st.run()
    assert_stepped(st, want, f"{name} run")
    for policy, seed in (("into", 0), ("mix", 1)):
        st.reset()
        drive(st, policy, seed)
        assert_stepped(st, want, f"{name} {policy} {seed}")


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 40


def _snapshot(st: Stepper):
    return (path_text(st), st.frames, [dict(f.env) for f in st.frames], st.last_eqn, st.current)


def test_back_restores_exactly():
    program, want = traced("nested_cond_in_scan")
    st = program.stepper()
    rng = random.Random(3)
    snaps = [_snapshot(st)]
    while not st.done:
        rng.choice([st.step, st.step_into, st.step_into])()
        snaps.append(_snapshot(st))
    while snaps:
        path, frames, envs, last, cur = snaps.pop()
        assert path_text(st) == path
        assert st.frames is frames or st.frames == frames
        assert st.last_eqn is last and st.current is cur
        for f, env in zip(st.frames, envs):
            assert f.env.keys() == env.keys()
            assert all(f.env[k] is env[k] for k in env)      # references, not copies
        if snaps:
            assert st.back()
    assert not st.back()
    st.run()
    assert_same(st.outputs, want)


def test_while_paths_and_iterations():
    program, want = traced("func10")
    st = program.stepper()
    assert path_text(st) == "eqn 0"
    st.step().step()
    assert st.current.primitive == "while" and st.position == 2
    st.step_into()
    assert path_text(st) == "while[eqn 2] › cond › iteration 0 › eqn 0"
    st.step_into()
    assert path_text(st) == "while[eqn 2] › body › iteration 0 › eqn 0"
    assert st.last_eqn.id == "2/cond/0" and bool(st.last_outputs[0])
    for _ in range(3 * 5 + 1):
        st.step_into()
    assert path_text(st) == "while[eqn 2] › body › iteration 3 › eqn 1"
    assert path_text(st, "zh") == "while[方程 2] › 循环体 › 第 3 次迭代 › 方程 1"      # the engine holds data only
    eqn, sub, loop = st.where[0]
    assert (eqn.id, sub.key, loop.iteration, st.where[-1]) == ("2", "body", 3, 1)
    assert st.frame.iteration == 3 and st.current.id == "2/body/1"
    assert set(st.env_names) >= {"f", "g", "h", "i", "j", "k"}
    assert int(st.env_names["h"]) == 3 and int(st.env_names["k"]) == 4
    np.testing.assert_allclose(st.current_inputs[0], np.ones(16))
    st.step()
    np.testing.assert_allclose(st.last_outputs[0], 3 * np.ones(16))
    st.step_out()
    assert st.done and path_text(st) == "done" and st.current is None
    assert_same(st.outputs, want)
    st.step(), st.step_into(), st.step_out(), st.run()     # at the end nothing happens
    assert st.done


def test_step_out_returns_to_caller_and_top_level_runs():
    program, want = traced("func12")
    st = program.stepper()
    st.step().step_into()
    assert path_text(st) == "jit[eqn 1] › jit inner › eqn 0"
    st.step().step_out()
    assert path_text(st) == "eqn 2" and st.last_eqn.id == "1"
    st.step_out()
    assert st.done
    assert_same(st.outputs, want)


def test_cond_enters_selected_branch_and_clamps():
    program, _ = traced("func7")
    st = program.stepper().step().step().step_into()
    assert path_text(st) == "cond[eqn 2] › branch 1 (true) › eqn 0"
    program, _ = traced("switch_clamp_high")
    st = program.stepper()
    while st.current.primitive != "cond":
        st.step()
    st.step_into()
    assert "branch 2" in path_text(st)
    program, _ = traced("switch_clamp_low")
    st = program.stepper()
    while st.current.primitive != "cond":
        st.step()
    st.step_into()
    assert "branch 0" in path_text(st)


def test_scan_reverse_slices_from_the_end():
    program, want = traced("scan_reverse")
    st = program.stepper().step_into()
    assert path_text(st).startswith("scan[eqn 0] › body › iteration 0 (xs[4])")
    xs = PROGRAMS["scan_reverse"][1][0]
    body = st.frame.program
    np.testing.assert_allclose(st.env[body.invars[-1]], xs[4])
    st.step_out()
    assert st.done
    assert_same(st.outputs, want)


def test_breakpoints_by_id_primitive_and_line():
    program, want = traced("func10")
    st = program.stepper()
    st.add_breakpoint("2/body/1")
    st.run()
    assert path_text(st) == "while[eqn 2] › body › iteration 0 › eqn 1"
    assert st.stop.kind == "breakpoint"
    assert (st.stop.kind, st.stop.eqn.id) == ("breakpoint", "2/body/1")
    assert stop_text(st.stop, "en") == "breakpoint at eqn 2/body/1 (mul)"
    assert stop_text(st.stop, "zh") == "在方程 2/body/1（mul）处遇到断点"      # said from the stop, not parsed
    st.run()
    assert path_text(st) == "while[eqn 2] › body › iteration 1 › eqn 1"
    st.remove_breakpoint("2/body/1")
    st.run()
    assert st.done
    assert_same(st.outputs, want)

    st.reset()
    st.add_breakpoint(primitive="lt")
    st.run()
    assert st.current.id == "2/cond/0" and st.frame.iteration == 0
    st.clear_breakpoints()

    src = program.find("2/body/1").source
    st.reset()
    assert st.toggle_breakpoint(line=src.line, where=src.where)
    st.run()
    assert st.current.source.line == src.line and st.current.id == "2/body/1"
    with pytest.raises(ValueError, match="no equation"):
        st.add_breakpoint("9/body/9")
    for wrong in ("2/body", "2/nope/1", "2/body/99", "2//1", "12"):          # found along the path, or not at all
        assert st._locate(wrong) is None
        with pytest.raises(ValueError, match="no equation"):
            st.add_breakpoint(wrong)
    eqn, above = st._locate("2/body/1")
    assert eqn is program.find("2/body/1") and [e.id for e in above] == ["2"]
    st.clear_breakpoints()
    st.add_breakpoint("2/body/1")
    assert st.breakpoint_eqns == {eqn} and st._bp_inside == {program.find("2")}
    st.add_breakpoint(primitive="lt")                         # a primitive: every eqn is visited as before
    assert st.breakpoint_eqns == {eqn, program.find("2/cond/0")}


def test_breakpoint_in_cell_source():
    cell = "import jax.numpy as jnp\ndef f(x):\n    y = jnp.sin(x)\n    return y * 2.\n"
    name = "<ipython-input-7-abcdef>"
    linecache.cache[name] = (len(cell), None, cell.splitlines(True), name)
    ns: dict = {}
    exec(compile(cell, name, "exec"), ns)
    program = trace(ns["f"], jnp.ones(3))
    st = program.stepper()
    st.add_breakpoint(line=4)
    st.run()
    assert st.current.primitive == "mul" and st.current.source.where == "cell"
    ctx = source_context(st.current)
    assert (4, "    return y * 2.", True) in ctx
    assert [n for n, _, cur in ctx if not cur] == [1, 2, 3]


def test_history_cap_is_reported():
    program, want = traced("func10")
    st = program.stepper(max_history=3)
    while not st.done:
        st.step_into()
    assert st.history_truncated and st.history_length == 3
    assert st.back() and st.back() and st.back() and not st.back()
    st.run()
    assert_same(st.outputs, want)
    st.reset()
    assert not st.history_truncated


def test_goto_moves_over_top_level_eqns():
    program, want = traced("func11")
    st = program.stepper()
    st.step_into().step_into()
    st.goto(1)
    assert st.depth == 1 and st.position == 1
    st.goto(2)
    assert st.done
    assert_same(st.outputs, want)
    st.goto(0)
    assert st.position == 0 and path_text(st) == "eqn 0"


def test_error_in_a_step_leaves_state_usable():
    def boom(x):
        raise RuntimeError("callback failed")

    def f(x):
        y = x + 1.
        z = jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), y)
        return z * 2.

    program = trace(f, jnp.ones(2))
    st = program.stepper()
    st.step()
    before = path_text(st)
    with pytest.raises(Exception, match="callback failed"):
        st.step()
    assert path_text(st) == before and st.last_eqn.id == "0"
    assert st.back() and path_text(st) == "eqn 0"


def test_break_on_nan():
    program = trace(lambda x: jnp.log(x) * 2., jnp.array([1., -1.]))
    st = program.stepper(break_on_nan=True)
    st.run()
    assert "NaN" in stop_text(st.stop, "en") and path_text(st) == "eqn 1"
    st.run()
    assert st.done


def test_args_and_devices():
    program, _ = traced("func1")
    st = program.stepper(jnp.ones(8), jnp.zeros(8), device="cpu")
    st.run()
    assert float(st.outputs) == 8.0
    assert st.args[0].devices() == {jax.devices("cpu")[0]}
    assert resolve_device(None) is None
    with pytest.raises(ValueError, match="cpu"):
        program.stepper(device="cpu:99")
    with pytest.raises(ValueError, match="2 inputs"):
        program.stepper(jnp.ones(8))


# ---------------------------------------------------------------- what if: set_value, edits, changed

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
    assert str(info.value) == "c is computed by eqn 1 (mul), which has not run yet (at eqn 0): step past it first, then set it"
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


# ---------------------------------------------------------------- endings and the comparison with jax.jit

def test_step_out_at_the_top_level_says_it_ran_to_the_end():
    from jaxprlens.views.dbgstate import StateView
    program, want = traced("func1")
    st = program.stepper()
    st.step_out()
    assert st.done and st.ended == "out_top" and st.stop is None
    assert StateView(st, "en").ended_text() == ("Step out at the top level: there is no caller to return to, so it "
                                                "ran on to the end, like Continue")
    st.back()
    assert st.ended is None


def test_a_run_whose_condition_never_fires_says_so():
    from jaxprlens.views.dbgstate import StateView
    program, want = traced("func1")
    st = program.stepper()
    st.add_condition("max > 1e9")
    st.run()
    assert st.done and st.stop is None and st.ended == "no_stop"
    assert StateView(st, "en").ended_text() == "ran to the end: no breakpoint or condition fired (max > 1e9)"
    assert "max > 1e9" in StateView(st, "zh").ended_text()
    st.reset().add_breakpoint(primitive="no_such_primitive")
    st.run()
    assert StateView(st, "en").ended_text() == ("ran to the end: no breakpoint or condition fired (max > 1e9, "
                                                "1 breakpoint)")
    st.reset().add_condition("any NaN")
    st.step()
    st.remove_condition("max > 1e9"), st.remove_condition("any NaN"), st.clear_breakpoints()
    st.run()
    assert st.ended is None                 # nothing was set to fire: nothing to say


def test_jit_check_rounding_is_calm_and_a_real_difference_warns():
    from jaxprlens.views.dbgstate import jit_note
    program = trace(lambda x: (jnp.sin(x) * 3., x.astype(jnp.int32)), jnp.arange(4.0))
    st = program.stepper()
    assert st.jit_check().status == "running"
    st.run()
    assert st.jit_check().status == "equal" and jit_note(st.jit_check(), "en") is None
    good = jnp.sin(jnp.arange(4.0)) * 3.
    rounding = [good.at[1].add(3e-7), jnp.arange(4, dtype=jnp.int32)]
    check = st.jit_check(want=rounding)
    assert (check.status, check.differing, check.total, check.outputs, check.path) == ("close", 1, 8, 1, "out[0]")
    assert 1e-7 < check.max_abs < 1e-6
    kind, text = jit_note(check, "en")
    assert kind == "jit" and text.startswith("Compared with jax.jit: 1 of 8 values differ in the last digits, by at "
                                             "most 2.4e-07") and "within the tolerance (rtol 0.0001, atol 1e-06)" in text
    assert "reassociate" in text and "bfloat16" not in text
    wrong = [good.at[1].add(0.5), jnp.arange(4, dtype=jnp.int32)]
    check = st.jit_check(want=wrong)
    assert check.status == "differ" and check.max_abs == pytest.approx(0.5)
    kind, text = jit_note(check, "en")
    assert kind == "jitdiff" and "beyond the tolerance" in text and "jit_rtol=" in text
    assert st.jit_check(want=wrong, rtol=0.5).status == "close"           # a tolerance the user sets
    assert program.stepper(jit_rtol=0.5).run().jit_check(want=wrong).status == "close"
    ints = st.jit_check(want=[good, jnp.array([0, 1, 3, 3], jnp.int32)])
    assert (ints.status, ints.path) == ("differ", "out[1]")
    typed = st.jit_check(want=[good.astype(jnp.float16), rounding[1]])
    assert (typed.status, typed.path, typed.got, typed.want) == ("mismatch", "out[0]", "f32[4]", "f16[4]")
    assert jit_note(typed, "en") == ["jitdiff", "The stepped outputs do not match jax.jit's: out[0] is f32[4] "
                                                "stepped but f16[4] compiled"]
    assert jit_note(typed, "zh") == ["jitdiff", "逐步执行的输出与 jax.jit 的不一致：out[0] 逐步执行得到 f32[4]，"
                                                "编译后却是 f16[4]"]
    count = st.jit_check(want=[good])
    assert jit_note(count, "en")[1].endswith("jax.jit gives 1 outputs, the stepper 2")


def test_casts_eager_vs_a_jit_that_elides_the_round_trip():
    """On a GPU XLA elides f32 -> bf16 -> f32: jax.jit's third output is x itself, the stepper's is x
    rounded to bf16.  That is accepted (and named); a stepping bug of the same size as a real one is not."""
    from jaxprlens.views.dbgstate import jit_note
    fn, args = CORPUS["casts"]
    program = trace(fn, *args)
    st = program.stepper().run()
    assert st.low_precision() == "bfloat16"
    x = args[0]
    elided = list(jax.jit(fn)(*args))
    elided[2] = x                                           # what a compiler that keeps excess precision gives
    assert not np.array_equal(np.asarray(elided[2]), np.asarray(st.outputs[2]))
    check = st.jit_check(want=elided)
    assert check.status == "close" and check.low == "bfloat16" and check.rtol == pytest.approx(2 ** -6)
    kind, text = jit_note(check, "en")
    assert kind == "jit" and "float32 → bfloat16 → float32" in text and "GPU" in text
    buggy = list(elided)
    buggy[2] = x * 1.1                                      # e.g. a wrong constant: 10%, far past bf16 rounding
    assert st.jit_check(want=buggy).status == "differ"
    buggy = list(elided)
    buggy[0] = buggy[0] + 1                                 # an int output off by one
    assert st.jit_check(want=buggy).status == "differ"


def test_jit_check_is_skipped_past_its_budget():
    from jaxprlens.views.dbgstate import jit_note
    program, _ = traced("func1")
    st = program.stepper(jit_budget=1).run()
    check = st.jit_check()
    assert (check.status, check.eqns, check.budget) == ("skipped", len(list(program.walk())), 1)
    assert jit_note(check, "en")[1].startswith(f"Not compared with jax.jit: the program has {check.eqns} "
                                               "equations, past the budget of 1")
    assert st.jit_check(budget=None).status in ("equal", "close")


def test_a_callback_that_raises_asynchronously_raises_at_its_own_eqn(monkeypatch):
    """On a GPU the callback's step returns and its error comes when the result is used (the next eqn).
    Simulated on CPU: its bind gives a value whose error shows only when waited for."""
    class Late:
        def __init__(self, aval):
            self.aval, self.shape, self.dtype = aval, aval.shape, aval.dtype

        def block_until_ready(self):
            raise RuntimeError("callback failed (asynchronously)")

    def f(x):
        y = x + 1.
        z = jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), y)
        return z * 2.

    program = trace(f, jnp.ones(2))
    prim = program.eqns[1].raw.primitive
    assert program.eqns[1].primitive == "pure_callback"
    monkeypatch.setattr(prim, "bind", lambda *a, **k: [Late(jax.typeof(jnp.ones(2)))])
    st = program.stepper()
    st.step()
    with pytest.raises(RuntimeError, match="asynchronously"):
        st.step()
    assert st.position == 1 and st.last_eqn.id == "0"     # raised at eqn 1, nothing written
    assert st.back() and st.position == 0
    monkeypatch.undo()
    st.run()
    assert_same(st.outputs, jax.jit(f)(jnp.ones(2)))


def test_a_callback_inside_a_jit_raises_at_the_jit_eqn():
    def boom(v):
        raise RuntimeError("inner callback failed")

    def f(x):
        y = jax.jit(lambda v: jax.pure_callback(boom, jax.ShapeDtypeStruct(v.shape, v.dtype), v) * 3.)(x + 1.)
        return y - 1.

    program = trace(f, jnp.ones(2))
    st = program.stepper()
    st.step()
    with pytest.raises(Exception, match="inner callback failed"):
        st.step()
    assert st.position == 1


def test_assert_stepped_accepts_what_a_gpu_does_to_casts_and_nothing_more(monkeypatch):
    fn, args = CORPUS["casts"]
    program = trace(fn, *args)
    st = program.stepper().run()
    elided = list(jax.jit(fn)(*args))
    elided[2] = args[0]                                   # XLA on a GPU: the bf16 round trip elided
    with pytest.raises(AssertionError):
        assert_stepped(st, tuple(elided))                 # on the CPU the stepper must equal jit exactly
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert_stepped(st, tuple(elided))
    wrong = list(elided)
    wrong[1] = wrong[1] * 0.5                             # a stepping bug in another output
    with pytest.raises(AssertionError):
        assert_stepped(st, tuple(wrong))


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


# ---------------------------------------------------------------- one meaning of moves and conditions (issue 27)

def _key(st):
    from jaxprlens.engine.landings import state_key
    return state_key(st)


@pytest.mark.parametrize("name", ["func10", "func11", "nested_cond_in_scan", "func3", "func12"])
def test_recorded_landings_are_the_engines_step_and_step_out(name):
    """From every state of a step_into run, step() and step_out() land where engine/landings.py says (the
    replay follows those landings instead of defining the moves again)."""
    from jaxprlens.engine.landings import landings
    program, want = traced(name)
    st = program.stepper()
    keys, depths = [_key(st)], [st.depth]
    while not st.done:
        st.step_into()
        keys.append(_key(st))
        depths.append(st.depth)
    over, out = landings(depths)
    assert any(o != k + 1 for k, o in enumerate(over[:-1])) or max(depths) == 1
    st.reset()
    for k in range(len(keys) - 1):
        assert _key(st) == keys[k]
        st.step()
        assert _key(st) == keys[over[k]], (name, k)
        st.back()
        if depths[k] > 1:
            st.step_out()
            assert _key(st) == keys[out[k]], (name, k)
            st.back()
        else:
            assert out[k] is None
        assert _key(st) == keys[k]
        st.step_into()
    assert over[-1] is None and st.done


def test_back_after_step_out_or_run_undoes_the_whole_move():
    program, want = traced("func10")
    st = program.stepper()
    st.step().step().step_into().step_into()
    assert path_text(st) == "while[eqn 2] › body › iteration 0 › eqn 0"
    before, n = _snapshot(st), st.history_length
    st.step_out()
    assert st.done and st.history_length == n + 1
    assert st.back() and path_text(st) == "while[eqn 2] › body › iteration 0 › eqn 0"
    assert st.frames == before[1] and all(f.env.keys() == e.keys() for f, e in zip(st.frames, before[2]))
    assert st.last_eqn is before[3]
    st.reset().step()
    st.run()
    assert st.done and st.history_length == 2
    assert st.back() and path_text(st) == "eqn 1" and st.back() and path_text(st) == "eqn 0"
    st.run()
    assert_same(st.outputs, want)


def test_a_run_grouped_in_history_keeps_only_what_an_undo_needs():
    program, want = traced("func10")
    st = program.stepper()
    st.step().step()
    st.run()
    frames, writes, _, _ = st._history[-1]
    kept = {id(f.env) for f in frames}
    assert writes and all(id(w[0]) in kept for w in writes)      # no write into a loop body's own env


def test_a_condition_stops_inside_the_loop_at_the_first_iteration_it_holds():
    program, want = traced("func10")        # carry 2, then m = carry + 3 (5, then 9), n = m + 1 (6, 10, ...)
    st = program.stepper()
    st.add_condition("max > 7")
    st.run()
    assert st.stop.kind == "condition" and st.stop.eqn.id == "2/body/2"       # m = 9 in iteration 1
    assert path_text(st) == "while[eqn 2] › body › iteration 1 › eqn 3"
    assert float(jnp.max(st.written[0])) == 9.0
    st.run()                                # the very next value, n = 10, holds too
    assert st.stop.eqn.id == "2/body/3" and st.history_length == 2
    st.remove_condition("max > 7")
    st.run()
    assert st.done and st.stop is None
    assert_same(st.outputs, want)


def test_a_nan_stops_inside_the_loop_at_the_first_iteration():
    def f(x):
        return lax.fori_loop(0, 5, lambda i, c: jnp.log(c - 1.5), x)      # log(2.5) ~ 0.92; log(-0.58): NaN
    program = trace(f, jnp.array([4.0]))
    for st in (program.stepper(break_on_nan=True), program.stepper()):
        if not st.break_on_nan:
            st.add_condition("any NaN")
        st.run()
        assert st.stop.kind in ("nan", "condition") and st.stop.eqn.primitive == "log"
        assert st.frame.loop.iteration == 2 and bool(jnp.isnan(st.written[0]).all())


def test_conditions_compare_inf_and_stats_are_the_recorded_numbers():
    from jaxprlens.engine.conditions import INF, NAN, condition, stats
    x = jnp.array([1.0, jnp.inf])
    assert condition("max > 1e3")(x) and condition("abs max > 1e3")(x) and not condition("min > 1")(x)
    assert stats(x) == (float("inf"), 1.0, float("inf"), INF)
    assert stats(jnp.array([jnp.nan, -2.0])) == (-2.0, -2.0, 2.0, NAN)
    assert stats(jnp.array([jnp.nan])) == (None, None, None, NAN) and not condition("max > 0")(jnp.array([jnp.nan]))
    assert stats(jnp.array([3 + 4j])) == (None, None, 5.0, 0)
    assert stats(jnp.arange(3) > 0) == (None, None, None, 0) and stats(jnp.zeros(0)) == (None, None, None, 0)


# ---------------------------------------------------------------- kernels, refs, linear solves

def _add_one_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 1.0


def _add_one(x):
    from jax.experimental import pallas as pl
    spec = pl.BlockSpec((4,), lambda i: (i,))
    return pl.pallas_call(_add_one_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(2,),
                          in_specs=[spec], out_specs=spec, interpret=True)(x)


def test_step_into_a_pallas_kernel_runs_it_whole_and_says_why():
    from jaxprlens.present.words import over_text
    x = jnp.arange(8.0)
    st = trace(_add_one, x).stepper()
    st.step_into()
    assert st.done and (st.note.kind, st.note.eqn.id) == ("kernel", "0")
    assert over_text(st.note, "en") == (
        "pallas_call kernels run as one step: the kernel runs once per grid point on refs to blocks of the operands "
        "and results, which the stepper does not step through (eqn 0 ran whole, 2 grid points)")
    assert over_text(st.note, "zh") == (
        "pallas_call 内核作为一步运行：内核在每个网格点上对操作数和结果的块的引用运行一次，单步执行器不逐步进入"
        "（方程 0 整体运行，共 2 个网格点）")
    np.testing.assert_array_equal(np.asarray(st.outputs), np.arange(8.0) + 1.0)
    assert st.compare_with_jit() is None
    st.back()
    assert st.note is None and st.position == 0


def test_step_into_run_state_runs_it_whole_and_says_why():
    from jax._src.state.discharge import run_state     # no public name yet: run_state as JAX 0.12 has it
    from jaxprlens.present.words import over_text

    def double(x):
        return run_state(lambda refs: refs[0].__setitem__(..., refs[0][...] * 2.0))((x,))[0]
    st = trace(double, jnp.arange(3.0)).stepper()
    st.step_into()
    assert st.note.kind == "refs"
    assert over_text(st.note, "en") == ("run_state bodies run as one step: their binders are refs holding the "
                                        "operands, which the stepper does not step through (eqn 0 ran whole)")
    np.testing.assert_array_equal(np.asarray(st.outputs), [0.0, 2.0, 4.0])


def test_step_into_a_linear_solve_enters_its_solve():
    m = jnp.diag(jnp.array([2.0, 4.0, 5.0]))

    def solve(x, m):
        return jax.lax.custom_linear_solve(lambda v: m @ v, x, lambda mv, b: b / jnp.diag(m))
    p = trace(solve, jnp.ones(3), m)
    st = p.stepper()
    while st.current.primitive != "custom_linear_solve":
        st.step()
    st.step_into()
    assert path_text(st).startswith(f"custom_linear_solve[eqn {st._frames[0].pc}] › solve › eqn 0")
    st.run()
    np.testing.assert_allclose(np.asarray(st.outputs), [0.5, 0.25, 0.2])
    assert st.compare_with_jit() is None
