"""The stepping engine: values equal jax.jit's under any mix of moves; back, breakpoints, paths."""
import linecache
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from corpus import CORPUS
from jaxprlens.model import trace
from jaxprlens.engine.stepper import Stepper, resolve_device, source_context
from jaxprlens.present.words import stop_text
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


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_policy_gives_jit_values(name):
    program, want = traced(name)
    st = program.stepper()
    st.run()
    assert_same(st.outputs, want, f"{name} run")
    for policy, seed in (("into", 0), ("mix", 1)):
        st.reset()
        drive(st, policy, seed)
        assert_same(st.outputs, want, f"{name} {policy} {seed}")


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 40


def _snapshot(st: Stepper):
    return (st.path_text, st.frames, [dict(f.env) for f in st.frames], st.last_eqn, st.current)


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
        assert st.path_text == path
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
    assert st.path_text == "eqn 0"
    st.step().step()
    assert st.current.primitive == "while" and st.position == 2
    st.step_into()
    assert st.path_text == "while[eqn 2] › cond › iteration 0 › eqn 0"
    st.step_into()
    assert st.path_text == "while[eqn 2] › body › iteration 0 › eqn 0"
    assert st.last_eqn.id == "2/cond/0" and bool(st.last_outputs[0])
    for _ in range(3 * 5 + 1):
        st.step_into()
    assert st.path_text == "while[eqn 2] › body › iteration 3 › eqn 1"
    assert st.frame.iteration == 3 and st.current.id == "2/body/1"
    assert set(st.env_names) >= {"f", "g", "h", "i", "j", "k"}
    assert int(st.env_names["h"]) == 3 and int(st.env_names["k"]) == 4
    np.testing.assert_allclose(st.current_inputs[0], np.ones(16))
    st.step()
    np.testing.assert_allclose(st.last_outputs[0], 3 * np.ones(16))
    st.step_out()
    assert st.done and st.path_text == "done" and st.current is None
    assert_same(st.outputs, want)
    st.step(), st.step_into(), st.step_out(), st.run()     # at the end nothing happens
    assert st.done


def test_step_out_returns_to_caller_and_top_level_runs():
    program, want = traced("func12")
    st = program.stepper()
    st.step().step_into()
    assert st.path_text == "jit[eqn 1] › jit inner › eqn 0"
    st.step().step_out()
    assert st.path_text == "eqn 2" and st.last_eqn.id == "1"
    st.step_out()
    assert st.done
    assert_same(st.outputs, want)


def test_cond_enters_selected_branch_and_clamps():
    program, _ = traced("func7")
    st = program.stepper().step().step().step_into()
    assert st.path_text == "cond[eqn 2] › branch 1 (true) › eqn 0"
    program, _ = traced("switch_clamp_high")
    st = program.stepper()
    while st.current.primitive != "cond":
        st.step()
    st.step_into()
    assert "branch 2" in st.path_text
    program, _ = traced("switch_clamp_low")
    st = program.stepper()
    while st.current.primitive != "cond":
        st.step()
    st.step_into()
    assert "branch 0" in st.path_text


def test_scan_reverse_slices_from_the_end():
    program, want = traced("scan_reverse")
    st = program.stepper().step_into()
    assert st.path_text.startswith("scan[eqn 0] › body › iteration 0 (xs[4])")
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
    assert st.path_text == "while[eqn 2] › body › iteration 0 › eqn 1"
    assert st.stop.kind == "breakpoint"
    assert (st.stop.kind, st.stop.eqn.id) == ("breakpoint", "2/body/1")
    assert stop_text(st.stop, "en") == "breakpoint at eqn 2/body/1 (mul)"
    assert stop_text(st.stop, "zh") == "在方程 2/body/1（mul）处遇到断点"      # said from the stop, not parsed
    st.run()
    assert st.path_text == "while[eqn 2] › body › iteration 1 › eqn 1"
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
    assert st.position == 0 and st.path_text == "eqn 0"


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
    before = st.path_text
    with pytest.raises(Exception, match="callback failed"):
        st.step()
    assert st.path_text == before and st.last_eqn.id == "0"
    assert st.back() and st.path_text == "eqn 0"


def test_break_on_nan():
    program = trace(lambda x: jnp.log(x) * 2., jnp.array([1., -1.]))
    st = program.stepper(break_on_nan=True)
    st.run()
    assert "NaN" in stop_text(st.stop, "en") and st.path_text == "eqn 1"
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
