"""Where a run stops (engine/breakpoints.py, engine/conditions.py, engine/landings.py): breakpoints by eqn id,
primitive and line, conditions and NaN (inside loops, at the first iteration that meets them), and the landings
of Step and Step out a recorded replay follows."""
import jax.numpy as jnp
from jax import lax
import pytest

from jaxprlens.model import trace
from jaxprlens.present.words import path_text, stop_text
from stepping import assert_same, traced, traced_cell


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
    st = traced_cell().stepper()
    st.add_breakpoint(line=4)
    st.run()
    assert st.current.primitive == "mul" and st.current.source.where == "cell"


def test_break_on_nan():
    program = trace(lambda x: jnp.log(x) * 2., jnp.array([1., -1.]))
    st = program.stepper(break_on_nan=True)
    st.run()
    assert "NaN" in stop_text(st.stop, "en") and path_text(st) == "eqn 1"
    st.run()
    assert st.done


def test_a_run_whose_condition_never_fires_says_so():
    from jaxprlens.views.debugger.state import StateView
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
