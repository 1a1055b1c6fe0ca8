"""Eager against compiled (engine/jitcheck.py): the tolerance, low precision, the budget, and the comparison
as an explicit step (a view that shows the state reads its result and compiles nothing)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from corpus import CORPUS
from jaxprlens.model import trace
from stepping import traced


def test_jit_check_rounding_is_calm_and_a_real_difference_warns():
    from jaxprlens.views.debugger.state import jit_note
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
                                             "most 2.4e-07")
    assert "within the tolerance (rtol 0.0001, atol 1e-06)" in text
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
    from jaxprlens.views.debugger.state import jit_note
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
    from jaxprlens.views.debugger.state import jit_note
    program, _ = traced("func1")
    st = program.stepper(jit_budget=1).run()
    check = st.jit_check()
    assert (check.status, check.eqns, check.budget) == ("skipped", len(list(program.walk())), 1)
    assert jit_note(check, "en")[1].startswith(f"Not compared with jax.jit: the program has {check.eqns} "
                                               "equations, past the budget of 1")
    assert st.jit_check(budget=None).status in ("equal", "close")


# ---------------------------------------------------------------- the comparison is a step the debugger asks for

def _counting(monkeypatch, scale=1.0):
    """Count jax.jit compiles of whole programs (``jitcheck.compiled_outputs``; its outputs times ``scale``)."""
    from jaxprlens.engine import jitcheck
    calls = []
    real = jitcheck.compiled_outputs

    def compiled(program, args, device=None):
        calls.append(program)
        return [x * scale for x in real(program, args, device)]
    monkeypatch.setattr(jitcheck, "compiled_outputs", compiled)
    return calls


def test_showing_the_state_compiles_nothing_and_reads_the_kept_comparison(monkeypatch):
    from jaxprlens.views.debugger.state import StateView
    calls = _counting(monkeypatch, scale=2.0)              # a "jax.jit" that differs: its note is visible
    program = trace(lambda x: jnp.sin(x) * 3., jnp.arange(4.0))
    st = program.stepper().run()
    view = StateView(st, "en")
    for show in (view.notes, view.state, view.html, view.text, view.jit_note):
        show()
    assert calls == [] and st.jit_result is None and view.jit_note() is None
    check = st.jit_check()                                  # the explicit step: it compiles, once
    assert len(calls) == 1 and check.status == "differ" and st.jit_result is check
    kind, text = view.jit_note()
    assert kind == "jitdiff" and "beyond the tolerance" in text
    assert [n for n in view.notes() if n[0] == "jitdiff"] == [[kind, text]]
    assert [n[0] for n in view.state()["notes"]] == ["jitdiff"] and "beyond the tolerance" in view.html()
    assert len(calls) == 1
    st.back()                                               # the run undone: the kept result is about other values
    assert st.jit_result is None and view.notes() == []
    st.run()
    assert st.jit_result is None and view.notes() == [] and len(calls) == 1
    assert st.jit_check().status == "differ" and len(calls) == 1       # compiled once: compared again
    st.set_value(program.outvars[0].name, jnp.zeros(4))     # an edit at the end: not what was compared
    assert st.jit_result is None and st.jit_check().status == "edited" and len(calls) == 1
    st.release()
    assert st.jit_result is None


def test_the_debugger_asks_for_the_comparison_at_the_end_and_draws_the_end_first(monkeypatch):
    calls = _counting(monkeypatch, scale=2.0)
    program = trace(lambda x: jnp.sin(x) * 3., jnp.arange(4.0))
    d = program.debugger()
    sent = []                                                # each message, with the comparison known when sent
    d.send = lambda msg: sent.append((msg, d.stepper.jit_result))
    d.press("ready")
    d.press("step")
    assert calls == [] and d.view.jit_note() is None         # not done: nothing compiled
    d.press("continue")
    assert len(calls) == 1 and d.stepper.jit_result.status == "differ"
    (end, before), (compared, after) = sent[-2:]             # the end first, then the comparison
    assert end["state"]["done"] and before is None and "state" in compared and after.status == "differ"
    assert d.view.jit_note()[0] == "jitdiff"
    d.view.state(), d.view.html(), d.view.text()
    d.press("back")
    assert sent[-1][1] is None and d.view.jit_note() is None
    n = len(sent)
    d.press("continue")                                      # compiled once: compared again, in the same message
    assert len(sent) == n + 1 and sent[-1][1].status == "differ" and len(calls) == 1


# ---------------------------------------------------------------- one compile per program and device

def _backend_compiles() -> list:
    """A list that gets an item per XLA compile from now on (jax.monitoring's compile event: every compile JAX
    makes, ``jax.jit``'s own included)."""
    import jax.monitoring
    seen: list = []

    def listen(event, duration, **kw):
        if event == "/jax/core/compile/backend_compile_duration":
            seen.append(event)
    jax.monitoring.register_event_duration_secs_listener(listen)
    return seen


def test_the_comparison_with_jit_runs_the_program_s_one_compile():
    """--fusion/--memory/--run compile the program once (engine.compiled.scoped); the debugger's comparison with
    jax.jit is the same computation and runs that compile: no compile of its own (it made one before)."""
    from jaxprlens.engine import compiled
    from jaxprlens.engine.fusion import fusion_map
    from libraries import nnx_mlp_train_step
    fn, args = nnx_mlp_train_step()
    program = trace(fn, *args)
    seen = _backend_compiles()
    fusion_map(program)
    assert len(seen) == 1
    st = program.stepper().run()
    before = len(seen)
    check = st.jit_check()
    assert check.status in ("equal", "close") and len(seen) == before      # was 1: jax.jit compiled it again
    made = compiled.scoped(program)
    assert [np.asarray(x).tolist() for x in jitcheck_outputs(program, st.args)] == \
        [np.asarray(x).tolist() for x in made.compiled(*st.args)]


def jitcheck_outputs(program, args):
    from jaxprlens.engine.jitcheck import compiled_outputs
    return compiled_outputs(program, args)


def test_the_comparison_alone_compiles_once_and_a_run_after_it_reuses_that(monkeypatch):
    from jaxprlens.engine import compiled
    from jaxprlens.engine.runner import measure
    calls, real = [], compiled.compile_lowered
    monkeypatch.setattr(compiled, "compile_lowered", lambda *a, **k: calls.append(1) or real(*a, **k))
    program = trace(lambda x: jnp.sin(x) * 3., jnp.arange(4.0))
    st = program.stepper().run()
    assert st.jit_check().status == "equal" and len(calls) == 1
    measure(program, repeat=1)
    assert len(calls) == 1


def test_other_inputs_than_those_compiled_for_are_compared_with_a_jit_of_their_own():
    program = trace(lambda x: jnp.sin(x) * 3., jnp.arange(4.0))
    st = program.stepper(jnp.arange(4, dtype=jnp.int32).astype(jnp.float32) + 1).run()
    assert st.jit_check().status == "equal"
