"""The debugger widget: press its buttons in Python and read the highlighted row, breadcrumb and values."""
import re

import jax
import jax.numpy as jnp
import numpy as np

from jaxprlens.debugger import Debugger, describe, sparkline
from jaxprlens.model import trace
from seeds import SEEDS


def debugger(name, **options) -> Debugger:
    fn, args = SEEDS[name]
    return trace(fn, *args).debugger(**options)


def highlighted(d: Debugger) -> list:
    return re.findall(r'<tr class="[^"]*\bjl-hl\b[^"]*" data-eqn="([^"]*)"', d.table.value)


def done_rows(d: Debugger) -> list:
    return re.findall(r'<tr class="[^"]*\bjl-done\b[^"]*" data-eqn="([^"]*)"', d.table.value)


def crumbs(d: Debugger) -> str:
    inner = re.search(r'<div class="jl-crumbs"[^>]*>(.*?)</div>', d.crumbs.value).group(1)
    return re.sub(r"<[^>]+>", "", inner)


def value_rows(d: Debugger) -> dict:
    """{(role, name): (shape, dtype, stats, value)} from the value panel."""
    out = {}
    for m in re.finditer(r'<tr class="jl-value" data-var="[^"]*"><td>([^<]*)</td><td>([^<]*)</td>'
                         r'<td>([^<]*)</td><td>([^<]*)</td><td>[^<]*</td><td class="jl-stats">([^<]*)</td>'
                         r'<td><pre class="jl-val">([^<]*)</pre>', d.values.value):
        out[(m.group(1), m.group(2))] = m.group(3, 4, 5, 6)
    return out


def test_func10_step_into_while_body_counts_iterations():
    d = debugger("func10")
    assert highlighted(d) == ["0"] and crumbs(d) == "top › eqn 0"
    d.step_button.click()
    d.step_button.click()
    assert highlighted(d) == ["2"] and done_rows(d) == ["0", "1"]
    assert d.slider.value == 2
    d.into_button.click()
    assert crumbs(d) == "top › while[eqn 2] › cond › iteration 0 › eqn 0"
    assert highlighted(d) == ["2/cond/0"]
    for _ in range(1 + 5 + 2):      # cond, the body of iteration 0, cond, 2 eqns of the body
        d.into_button.click()
    assert crumbs(d) == "top › while[eqn 2] › body › iteration 1 › eqn 2"
    assert highlighted(d) == ["2/body/2"] and done_rows(d) == ["2/body/0", "2/body/1"]
    rows = value_rows(d)
    shape, dtype, stats, _ = rows[("input", "j")]       # the carry after one iteration: 2 + 3 + 1
    assert (shape, dtype) == ("(16,)", "float32")
    assert stats == "min 6  max 6  mean 6  NaN 0"
    assert rows[("input", "l")][2] == "min 3  max 3  mean 3  NaN 0"
    assert rows[("output of 2/body/1 (mul)", "l")][3].startswith("[3., 3., 3.")
    d.out_button.click()
    assert crumbs(d) == "top › done" and highlighted(d) == []
    assert value_rows(d)[("result", "out")][2] == "min 22  max 22  mean 22  NaN 0"
    assert d.step_button.disabled and not d.back_button.disabled
    d.back_button.click()
    assert crumbs(d) == "top › while[eqn 2] › cond › iteration 5 › eqn 0"
    d.reset_button.click()
    assert highlighted(d) == ["0"] and d.back_button.disabled


def test_func7_cond_branch_and_values():
    d = debugger("func7")
    d.step_button.click()
    rows = value_rows(d)
    assert rows[("output of 0 (ge)", "b")][3] == "True"
    d.step_button.click()
    d.into_button.click()
    assert crumbs(d) == "top › cond[eqn 2] › branch 1 (true) › eqn 0"
    assert highlighted(d) == ["2/branch1/0"]
    assert value_rows(d)[("input", "g")][3] == "5.0"
    assert "lambda xtrue: xtrue + 3." in re.search(r'<span class="jl-line jl-hl"[^>]*>([^<]*)', d.source.value).group(1)
    d.into_button.click()
    assert crumbs(d) == "top › done"
    assert value_rows(d)[("output of 2 (cond)", "d")][3] == "8.0"
    assert value_rows(d)[("result", "out")][3] == "8.0"


def test_source_line_is_highlighted_in_code():
    d = debugger("func10")
    d.step_button.click()
    code = d.source.value
    lines = re.findall(r'<span class="jl-line jl-hl" data-line="(\d+)">', code)
    src = d.stepper.current.source
    assert lines == [str(src.line)]
    assert "arg + ones" in code


def test_breakpoints_continue_and_slider():
    d = debugger("func10")
    d.breakpoints.value = ("2/body/1",)
    d.continue_button.click()
    assert crumbs(d) == "top › while[eqn 2] › body › iteration 0 › eqn 1"
    assert "jl-bp" in d.table.value and "breakpoint at eqn 2/body/1" in d.values.value
    d.continue_button.click()
    assert "iteration 1" in crumbs(d)
    d.breakpoints.value = ()
    d.break_primitives.value = "lt"
    d.continue_button.click()
    assert highlighted(d) == ["2/cond/0"]
    d.break_primitives.value = ""
    d.slider.value = 1
    assert crumbs(d) == "top › eqn 1" and highlighted(d) == ["1"]
    d.slider.value = 3
    assert crumbs(d) == "top › done"


def test_error_is_shown_and_debugger_stays_usable():
    def boom(x):
        raise RuntimeError("callback <failed>")

    def f(x):
        y = jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), x + 1.)
        return y * 2.

    d = trace(f, jnp.ones(2)).debugger()
    d.step_button.click()
    d.step_button.click()
    assert 'class="jl-error"' in d.values.value and "callback &lt;failed&gt;" in d.values.value
    assert highlighted(d) == ["1"]
    d.back_button.click()
    assert highlighted(d) == ["0"] and "jl-error" not in d.values.value


def test_mimebundle_has_widget_and_deterministic_fallback():
    a, b = debugger("func11"), debugger("func11")
    for d in (a, b):
        d.step_button.click()
        d.into_button.click()
        d.into_button.click()
    ba, bb = a._repr_mimebundle_(), b._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in ba
    assert ba["text/html"] == bb["text/html"] and ba["text/plain"] == bb["text/plain"]
    assert " at 0x" not in ba["text/html"] + ba["text/plain"]
    assert ba["text/plain"].startswith("jaxprlens debugger at scan[eqn 1] › body › iteration 0 › eqn 1")
    assert 'class="jl-row jl-done" data-eqn="1/body/0"' in ba["text/html"]
    assert 'class="jl-row jl-hl" data-eqn="1/body/1"' in ba["text/html"]


def test_fallback_says_finished_at_the_end():
    d = debugger("func1")
    d.continue_button.click()
    text = d._repr_mimebundle_()["text/plain"]
    assert text.splitlines()[0] == "jaxprlens debugger: finished"

def test_history_cap_is_said():
    d = debugger("func10", max_history=2)
    d.continue_button.click()
    assert "jl-truncated" in d.values.value and "capped at 2" in d._repr_mimebundle_()["text/plain"]


def test_describe_and_sparkline():
    big = describe(jnp.linspace(0., 1., 200))
    assert big["shape"] == "(200,)" and big["dtype"] == "float32" and big["device"] == "cpu:0"
    assert big["stats"] == "min 0  max 1  mean 0.5  NaN 0"
    assert "..." in big["value"] and big["spark"].startswith("▁") and big["spark"].endswith("█")
    small = describe(np.array([1., np.nan, 3.]))
    assert small["stats"] == "min 1  max 3  mean 2  NaN 1" and small["spark"] == ""
    assert sparkline(np.ones(100)) == "▁" * 32


def test_break_here_toggles_a_breakpoint_on_the_highlighted_row():
    d = debugger("func1")
    d.step_button.click()
    assert highlighted(d) == ["1"] and not d.here_button.value
    d.here_button.value = True                     # press "Break here" on row 1
    assert d.breakpoints.value == ("1",) and ("eqn", "1") in d.stepper.breakpoints
    d.reset_button.click()
    assert highlighted(d) == ["0"] and not d.here_button.value
    d.continue_button.click()
    assert highlighted(d) == ["1"] and d.here_button.value   # stopped on it, and the toggle says so
    d.here_button.value = False
    assert d.breakpoints.value == () and not d.stepper.breakpoints
    d.continue_button.click()
    assert d.stepper.done and d.here_button.disabled


def test_keyboard_shortcuts_press_the_buttons():
    d = debugger("func10")
    assert len(d.key_events) == 2 and all(ev.watched_events == ["keydown"] for ev in d.key_events)
    d._on_key({"type": "keydown", "key": "n"})
    assert highlighted(d) == ["1"]
    d._on_key({"type": "keydown", "key": "n"})
    d._on_key({"type": "keydown", "key": "i"})
    assert highlighted(d) == ["2/cond/0"]
    d._on_key({"type": "keydown", "key": "b"})
    assert highlighted(d) == ["2"]
    d._on_key({"type": "keydown", "key": "n", "ctrlKey": True})    # Ctrl+N is not ours
    d._on_key({"type": "keydown", "key": "x"})
    assert highlighted(d) == ["2"]
    d._on_key({"type": "keydown", "key": "c"})
    assert d.stepper.done
    d._on_key({"type": "keydown", "key": "n"})                     # disabled at the end: nothing happens
    assert d.stepper.done and d.error is None
    d._on_key({"type": "keydown", "key": "r"})
    assert highlighted(d) == ["0"]


def test_value_panel_says_when_a_step_ran_a_combiner_whole_and_agrees_with_jit():
    from jaxprlens.debugger import StateView

    def f(p, i):
        return jax.grad(lambda p: (p[i] ** 2).sum())(p)

    args = (jnp.arange(6.).reshape(3, 2), jnp.array([0, 2, 0]))
    st = trace(f, *args).stepper(*args)
    while st.current.primitive != "scatter-add":
        st.step()
    view = StateView(st)
    st.step_into()                    # a combiner has no body to enter: the step runs it whole
    assert "combiner" in st.note
    assert 'class="jl-note jl-over"' in view.values_html()
    st.run()
    assert st.done and "jl-jitdiff" not in view.values_html()   # eager equals jax.jit here
    np.testing.assert_allclose(st.outputs, jax.jit(f)(*args))
