"""The stepping engine's moves and history (engine/stepper.py, engine/history.py): values equal jax.jit's under any
mix of moves; back undoes a move exactly; paths, loops, branches, kernels; the inputs it refuses."""
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from corpus import CORPUS
from jaxprlens.model import trace
from jaxprlens.engine.stepper import Stepper, resolve_device
from jaxprlens.present.words import path_text
from stepping import PROGRAMS, assert_same, assert_stepped, drive, traced


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



def test_step_out_at_the_top_level_says_it_ran_to_the_end():
    from jaxprlens.views.debugger.state import StateView
    program, want = traced("func1")
    st = program.stepper()
    st.step_out()
    assert st.done and st.ended == "out_top" and st.stop is None
    assert StateView(st, "en").ended_text() == ("Step out at the top level: there is no caller to return to, so it "
                                                "ran on to the end, like Continue")
    st.back()
    assert st.ended is None


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
        "pallas_call 计算内核作为一步运行：计算内核在每个网格点上对操作数和结果的块的引用运行一次，单步执行器不逐步进入"
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
