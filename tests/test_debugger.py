"""The debugger widget (views/debugger/debugger.py): press its moves in Python and read the messages it sends
its ES module (position, crumbs, values), what it displays where, and the cell it belongs to."""
import json
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fakecomm import command, reply
from debugging import debugger, note, read, state, stored_data, values
from memory import rss_mb
from pages import loaders
from seeds import SEEDS

from jaxprlens.model import trace
from jaxprlens.serverext import WIDGET_VIEW, strip_live_widgets
from jaxprlens.views.debugger.debugger import COMPARE_MAX, Debugger
from jaxprlens.views.debugger.replay import record

pytestmark = pytest.mark.usefixtures("fake_comm")     # every widget here records what it sends (conftest.py)


def at(d: Debugger) -> str | None:
    return d.sent[-1]["content"]["state"]["eqn"]


def row_id(row_html: str) -> str:
    return re.match(r'<tr class="jl-row[^"]*" data-eqn="([^"]*)"', row_html).group(1)


def crumbs(d: Debugger) -> str:
    return " › ".join(state(d)["crumbs"])


def test_func10_step_into_while_body_counts_iterations():
    d = debugger("func10")
    assert at(d) == "0" and crumbs(d) == "top › eqn 0"
    d.press("step")
    d.press("step")
    assert at(d) == "2" and state(d)["pc"] == 2 and state(d)["frame"] == ""
    d.press("into")
    assert crumbs(d) == "top › while[eqn 2] › cond › iteration 0 › eqn 0"
    assert at(d) == "2/cond/0" and state(d)["frame"] == "2/cond"
    for _ in range(1 + 5 + 2):      # cond, the body of iteration 0, cond, 2 eqns of the body
        d.press("into")
    assert crumbs(d) == "top › while[eqn 2] › body › iteration 1 › eqn 2"
    assert at(d) == "2/body/2" and state(d)["pc"] == 2
    rows = values(d)
    shape, dtype, stats, _ = rows[("input", "j")]       # the carry after one iteration: 2 + 3 + 1
    assert (shape, dtype) == ("(16,)", "float32")
    assert stats == "min 6  max 6  mean 6  NaN 0"
    assert rows[("input", "l")][2] == "min 3  max 3  mean 3  NaN 0"
    assert rows[("output of 2/body/1 (mul)", "l")][3].startswith("[3., 3., 3.")
    d.press("out")
    assert crumbs(d) == "top › done" and at(d) is None and state(d)["done"]
    assert values(d)[("result", "out")][2] == "min 22  max 22  mean 22  NaN 0"
    d.press("back")                 # Back undoes the whole Step out (not the loop's last cond check)
    assert crumbs(d) == "top › while[eqn 2] › body › iteration 1 › eqn 2" and at(d) == "2/body/2"
    assert values(d)[("input", "j")][2] == "min 6  max 6  mean 6  NaN 0"
    d.press("reset")
    assert at(d) == "0" and not state(d)["back"]


def test_rows_are_sent_once_per_frame_and_moves_send_only_the_state():
    d = debugger("func10")
    first = d.sent[0]["content"]
    assert first["frame"]["path"] == "" and len(first["frame"]["rows"]) == 3
    assert 'data-eqn="2"' in first["frame"]["rows"][2]
    d.press("step")
    assert set(d.sent[-1]["content"]) == {"state"}
    frames = []
    for _ in range(2 + 1 + 5 + 1 + 5):               # into the loop: cond, body, cond, body again
        d.press("into")
        frames += [m["content"]["frame"]["path"] for m in d.sent[-1:] if "frame" in m["content"]]
    assert frames == ["2/cond", "2/body"]             # iteration 1's body was drawn already
    d.press("ready")                                   # a new view (a second display): rows again
    assert d.sent[-1]["content"]["frame"]["path"] == "2/body"


def test_bytes_per_step_do_not_grow_with_the_program():
    def chain(n):
        def f(x, y):
            for i in range(n):
                x = jnp.sin(x) * y if i % 2 else x + y
            return x
        return f

    sizes = {}
    for n in (20, 1000):
        d = trace(chain(n), jnp.ones(64), jnp.ones(64)).debugger()
        d.sent = d.comm.sent
        d.press("ready")
        for _ in range(5):
            d.press("step")
        d.press("back")
        sizes[n] = max(d.comm.bytes[1:])               # as the kernel writes them (and the benchmarks count)
    assert sizes[1000] <= 20_000
    assert sizes[1000] < sizes[20] + 64            # the eqn ids grow by a digit or two, nothing else


def test_breakpoint_toggle_and_continue():
    d = debugger("func10")
    d.press("toggle", eqn="2/body/1")
    assert d.sent[-1]["content"]["bps"] == ["2/body/1"] and ("eqn", "2/body/1") in d.stepper.breakpoints
    d.press("continue")
    assert crumbs(d) == "top › while[eqn 2] › body › iteration 0 › eqn 1"
    assert ["stop", "breakpoint at eqn 2/body/1 (mul)"] in state(d)["notes"]
    d.press("continue")
    assert "iteration 1" in crumbs(d)
    d.press("toggle", eqn="2/body/1")
    assert d.sent[-1]["content"]["bps"] == []
    d.press("continue")
    assert state(d)["done"]


def test_conditional_breakpoints_stop_at_the_first_value_that_meets_them():
    def f(x):
        a = x * 2.
        b = jnp.log(a - 3.)          # NaN where a < 3
        c = jnp.exp(b * 10.)
        return c + 1.

    x = jnp.array([1., 2., 4.])
    d = trace(f, x).debugger()
    d.sent = d.comm.sent
    d.press("cond", text="any NaN", on=True)
    d.press("continue")
    assert d.stepper.last_eqn.primitive == "log" and at(d) == "3"
    assert state(d)["notes"] == [["stop", "any NaN in the outputs of eqn 2 (log)"]]
    (_, _, stats, preview), = [v for k, v in values(d).items() if k[0].startswith("output of 2")]
    assert "NaN 1" in stats and "nan" in preview
    d.press("cond", text="any NaN", on=False)
    d.press("cond", text="max > 1e3", on=True)
    d.press("continue")
    assert d.stepper.last_eqn.primitive == "exp"        # exp(10 log 5) = 5**10
    d.press("cond", text="max > > 3", on=True)
    assert state(d)["notes"][0][0] == "error" and "must be one of" in state(d)["notes"][0][1]


def test_debug_print_output_is_sent_in_order_while_stepping(capsys):
    def f(x):
        y = jnp.sin(x)
        jax.debug.print("first {y}", y=y[0])
        z = y * 2.
        jax.debug.print("second {z}", z=z[0])
        return z

    jax.block_until_ready(jax.jit(f)(jnp.ones(3)))
    jax.effects_barrier()
    want = capsys.readouterr().out                     # what JAX itself prints
    first, second = want.splitlines(keepends=True)
    assert first.startswith("first 0.84") and second.startswith("second 1.68")
    d = trace(f, jnp.ones(3)).debugger()
    d.sent = d.comm.sent
    outs = []
    while not d.stepper.done:
        n = len(d.sent)
        d.press("step")
        outs.append("".join(m["content"].get("out", "") for m in d.sent[n:]))
    assert "".join(outs) == want and outs.index(first) < outs.index(second)
    assert outs.index(first) == 3 and outs.index(second) == 7       # by the step that ran debug_print
    assert [read(m["content"]["state"])["notes"] for m in d.sent[-2:]] == [[], []]   # the end, then eager == jit
    d.press("ready")                                   # a new view gets everything printed so far
    assert d.sent[-1]["content"]["out"] == want
    replay = d.replay()
    assert "".join(s.get("out", "") for s in replay["steps"]) == want
    assert capsys.readouterr().out == ""               # nothing leaked to the log console


def test_python_paths_beside_names():
    def mlp(params, x):
        return jnp.tanh(x @ params["W1"] + params["b1"])

    params = {"W1": jnp.ones((3, 4)), "b1": jnp.zeros(4)}
    d = trace(mlp, params, jnp.ones((2, 3))).debugger()
    d.sent = d.comm.sent
    d.press("ready")
    paths = {it["name"]: it["path"] for g in state(d)["values"] for it in g["items"]}
    assert "params['W1']" in paths.values() and "x" in paths.values()


def test_error_is_shown_and_debugger_stays_usable():
    def boom(x):
        raise RuntimeError("callback <failed>")

    def f(x):
        y = jax.pure_callback(boom, jax.ShapeDtypeStruct(x.shape, x.dtype), x + 1.)
        return y * 2.

    d = trace(f, jnp.ones(2)).debugger()
    d.sent = d.comm.sent
    d.press("step")
    d.press("step")
    kind, text = state(d)["notes"][0]
    assert kind == "error" and "callback <failed>" in text and at(d) == "1"
    d.press("back")
    assert at(d) == "0" and state(d)["notes"] == []


def test_mimebundle_replay_then_live_widget_and_saved_form():
    a, b = debugger("func11"), debugger("func11")
    for d in (a, b):
        d.press("step")
        d.press("into")
        d.press("into")
    (da, ma), (db, _) = a._repr_mimebundle_(), b._repr_mimebundle_()
    assert sorted(da) == ["text/html", "text/plain"] and ma == {"jaxprlens": {"replay": True}}
    assert da["text/html"] == db["text/html"] and da["text/plain"] == db["text/plain"]
    assert " at 0x" not in da["text/html"] + da["text/plain"]
    assert da["text/plain"].startswith("jaxprlens debugger at scan[eqn 1] › body › iteration 0 › eqn 1")
    html = da["text/html"]
    assert 'class="jaxprlens jl-dbg-replay"' in html and len(loaders(html)) == 1   # the front end's loader
    assert html.startswith(f'<div class="jl-out" data-jl-out="{a.replay_box}">')   # the box the live view hides
    assert html.count("</script>") == 2 and 'data-jl-view="replay"' in html   # the data, then the loader
    assert 'class="jl-row jl-hl" data-eqn="0"' in html          # the snapshot: the replay's start
    live, lmeta = a.widget_bundle()                              # the live widget: its view alone, no replay
    assert sorted(live) == [WIDGET_VIEW, "text/plain"] and live["text/plain"] == ""
    assert live[WIDGET_VIEW]["model_id"] == a.model_id and lmeta == {"jaxprlens": {"live": True, "debugger": True}}
    nb = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "display_data", "data": dict(da), "metadata": ma},
        {"output_type": "display_data", "data": dict(live), "metadata": lmeta},
        {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "x"}, "text/plain": "w"},
         "metadata": {}}]}]}
    before = json.dumps(nb["cells"][0]["outputs"][0], sort_keys=True)
    assert strip_live_widgets(nb) == 1
    saved, other = nb["cells"][0]["outputs"]                     # the live widget's output is gone, nothing else
    assert json.dumps(saved, sort_keys=True) == before and WIDGET_VIEW in other["data"]
    old = {"output_type": "display_data", "metadata": {"jaxprlens": {"live": True}},   # an older jaxprlens' output:
           "data": dict(da, **{WIDGET_VIEW: {"model_id": "y"}})}                         # its widget view goes
    nb = {"cells": [{"cell_type": "code", "outputs": [old]}]}
    assert strip_live_widgets(nb) == 1 and sorted(nb["cells"][0]["outputs"][0]["data"]) == ["text/html", "text/plain"]


class _Kernel:
    """An IPython shell in a kernel, as ``draws_widgets`` sees it: the request's metadata and its published
    displays."""

    def __init__(self, metadata=None):
        self.kernel = object()
        self.parent_header = {"header": {"msg_id": "m1"}, "metadata": metadata or {}}
        self.shown = []


def _in_kernel(monkeypatch, metadata=None):
    import IPython
    import IPython.display
    shell = _Kernel(metadata)
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    monkeypatch.setattr(IPython.display, "display",
                        lambda data, raw=False, metadata=None: shell.shown.append((data, metadata)))
    monkeypatch.delitem(__import__("sys").modules, "google.colab", raising=False)
    for name in ("VOILA_BASE_URL", "SERVER_SOFTWARE", "JAXPRLENS_SERVER_PID", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    return shell


def test_draws_widgets_tells_a_front_end_from_nbclient(monkeypatch):
    import IPython
    from ipywidgets import Widget

    from jaxprlens.views.debugger.debugger import draws_widgets
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert draws_widgets() is None                               # no kernel: a script, a test
    monkeypatch.setattr(Widget, "_control_comm", None)
    _in_kernel(monkeypatch, {"cellId": "c-1"})
    assert draws_widgets() is True                               # JupyterLab, Notebook 7, VS Code
    _in_kernel(monkeypatch, {})
    assert draws_widgets() is False                              # nbclient: no cell id, no widget manager
    monkeypatch.setattr(Widget, "_control_comm", object())
    assert draws_widgets() is True                               # a widget manager opened the control channel
    monkeypatch.setattr(Widget, "_control_comm", None)
    monkeypatch.setitem(__import__("sys").modules, "google.colab", object())
    assert draws_widgets() is True                               # Colab
    _in_kernel(monkeypatch, {})
    monkeypatch.setenv("VOILA_BASE_URL", "/")
    assert draws_widgets() is True                               # Voilà (nbclassic: below)


def test_a_kernel_its_server_started_for_a_page_draws_widgets():
    """nbclassic names no cell in its requests: its kernel is known by the environment the Jupyter server gave it
    (the server extension's pid is the kernel's parent, and a notebook's session started it); nbclient started
    from inside such a kernel (``!papermill``) inherits both names but has another parent; Voilà names itself."""
    from jaxprlens import serverext
    from jaxprlens.views.cells import SERVER_PID, served_to_a_page
    assert serverext.SERVER_PID == SERVER_PID
    page = {SERVER_PID: "41", "JPY_PARENT_PID": "41", "JPY_SESSION_NAME": "/course/lecture.ipynb"}
    assert served_to_a_page(page) is True
    assert served_to_a_page(dict(page, JPY_PARENT_PID="97")) is False          # nbclient inside that kernel
    assert served_to_a_page({k: v for k, v in page.items() if k != "JPY_SESSION_NAME"}) is False   # no notebook
    assert served_to_a_page({"JPY_PARENT_PID": "41", "JPY_SESSION_NAME": "a.ipynb"}) is False     # no extension
    assert served_to_a_page({}) is False                                       # nbconvert --execute, papermill
    assert served_to_a_page({"SERVER_SOFTWARE": "voila/0.5.13"}) is True
    assert served_to_a_page({"VOILA_BASE_URL": "/", "VOILA_PREHEAT": "True"}) is True   # a preheated Voilà kernel


def test_displayed_in_a_front_end_it_is_the_replay_then_the_live_widget(monkeypatch):
    from ipywidgets import Widget
    monkeypatch.setattr(Widget, "_control_comm", None)
    fn, args = SEEDS["func1"]
    p = trace(fn, *args)
    shell = _in_kernel(monkeypatch, {"cellId": "c-1"})
    d = Debugger(p, *args)
    assert d.comm is not None
    d._ipython_display_()
    (replay, rmeta), (live, lmeta) = shell.shown
    assert (replay, rmeta) == d._repr_mimebundle_() and "jl-dbg-replay" in replay["text/html"]
    assert sorted(live) == [WIDGET_VIEW, "text/plain"] and lmeta == {"jaxprlens": {"live": True, "debugger": True}}
    d.close()


def test_run_by_nbclient_it_opens_no_widget_and_shows_the_replay_only(monkeypatch):
    from ipywidgets import Widget
    monkeypatch.setattr(Widget, "_control_comm", None)
    fn, args = SEEDS["func1"]
    p = trace(fn, *args)
    shell = _in_kernel(monkeypatch, {})
    d = Debugger(p, *args)
    assert d.comm is None and d.widget_bundle() is None          # no widget state for nbclient to store
    d._ipython_display_()
    assert [sorted(data) for data, _ in shell.shown] == [["text/html", "text/plain"]]
    d.press("step")                                              # still steps from Python (nothing is sent)
    assert d.stepper.position == 1
    d.close()


def test_fallback_says_finished_at_the_end():
    d = debugger("func1")
    d.press("continue")
    assert d._repr_mimebundle_()[0]["text/plain"].splitlines()[0] == "jaxprlens debugger: finished"


def test_history_cap_is_said():
    d = debugger("func10", max_history=2)
    for _ in range(3):              # three moves (a Continue is one move: Back undoes it whole)
        d.press("into")
    assert state(d)["notes"][-1][0] == "truncated"
    assert "capped at 2" in d._repr_mimebundle_()[0]["text/plain"]


def test_value_panel_says_when_a_step_ran_a_combiner_whole_and_agrees_with_jit():
    from jaxprlens.views.debugger.debugger import StateView

    def f(p, i):
        return jax.grad(lambda p: (p[i] ** 2).sum())(p)

    args = (jnp.arange(6.).reshape(3, 2), jnp.array([0, 2, 0]))
    st = trace(f, *args).stepper(*args)
    while st.current.primitive != "scatter-add":
        st.step()
    view = StateView(st)
    st.step_into()                    # a combiner has no body to enter: the step runs it whole
    assert st.note.kind == "combiner"
    assert [n[0] for n in view.notes()] == ["over"] and 'class="jl-note jl-over"' in view.values_html()
    from bs4 import BeautifulSoup  # the snapshot's values read left to right untrusted too (inline style)
    cells = BeautifulSoup(view.values_html(), "html.parser").select("tr.jl-value td")
    assert cells and all("text-align:left" in td.get("style", "") for td in cells)
    st.run()
    assert st.done and "jitdiff" not in [n[0] for n in view.notes()]    # eager equals jax.jit here
    np.testing.assert_allclose(st.outputs, jax.jit(f)(*args))


@pytest.mark.parametrize("bad", ["step", "ready"])
def test_unknown_message_is_refused_politely(bad):
    d = debugger("func1")
    answer = reply(command(d, "ask", {"do": "jump"}))           # as the page asks: anywidget's command
    assert read(answer["state"])["notes"][0] == ["error", "unknown action 'jump' (must be one of ['back', 'call', "
                                                 "'continue', 'into', 'out', 'reset', 'step'])"]
    d.press(bad)
    assert state(d)["notes"] == []


def test_user_markup_in_the_stored_debugger_is_escaped_once():
    def f(x):
        jax.debug.print("<script>alert(1)</script> {}", x)
        return x * 2.

    data, _ = trace(f, jnp.ones(2)).debugger(jnp.ones(2))._repr_mimebundle_()
    page = data["text/html"]
    assert "<script>alert(1)</script>" not in page          # neither in the snapshot HTML nor in the replay data
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&amp;lt;" not in page


# ---------------------------------------------------------------- bounded sessions and what-if edits


@pytest.mark.slow                  # 6 s quiet: debuggers made and freed one after another
def test_rerunning_a_debug_cell_frees_the_debugger_it_replaces():
    """A 20-eqn program on 1M-element arrays, re-run and continued 10 times in the same cell: the kernel
    stays flat (each run computes ~80 MB of values; IPython's Out[n] keeps every debugger object)."""
    import gc

    def f(x):
        for _ in range(20):
            x = jnp.sin(x) * 1.01
        return x

    x = jnp.linspace(0., 1., 1_000_000)
    p = trace(f, x)
    kept, sizes = [], []
    for run in range(10):
        d = Debugger(p, cell=("cell-1", f"run-{run}"))
        d.sent = d.comm.sent
        d.press("ready")
        d.press("continue")
        assert state(d)["done"]
        kept.append(d)                      # as Out[n] would
        gc.collect()
        sizes.append(rss_mb())
    assert all(k.comm is None for k in kept[:-1])               # closed: the front end's view goes too
    assert all(k.stepper.history_length == 0 and k.stepper.position == 0 for k in kept[:-1])
    assert kept[-1].stepper.done
    assert sizes[-1] - sizes[1] < 100, sizes
    same = Debugger(p, cell=("cell-1", "run-9"))    # a second debugger made by the same run: both stay
    assert kept[-1].stepper.done and same.stepper.position == 0
    other = Debugger(p, cell=("cell-2", "run-10"))  # another cell's debugger: untouched
    assert kept[-1].stepper.done and other is not None


def test_a_bad_toggle_gives_a_bounded_note():
    d = debugger("func10")
    d.press("toggle", eqn="9/" * 5000)
    kind, text = state(d)["notes"][0]
    assert kind == "error" and len(text) <= 500
    assert text.startswith("no equation '9/9/9/") and "ids like 0, 1, 2" in text          # ours: no Python type


def test_an_edit_of_an_unknown_value_is_said_in_the_debuggers_language():
    for lang, said in (("en", "no value 'zz' is defined at eqn 0 (the values defined here: a, b)"),
                       ("zh", "在方程 0 处没有定义值 'zz'（这里已定义的值：a, b）")):
        d = trace(lambda x, y: jnp.sin(x) * y, jnp.ones(3), jnp.ones(3)).debugger(lang=lang)
        d.sent = d.comm.sent
        d.press("ready")
        d.press("edit", var="zz", op="zero")
        assert state(d)["notes"][0] == ["error", said]
    d.press("edit", var="a", op="nope")                      # the last one, in Chinese
    assert state(d)["notes"][0] == ["error", "未知的修改 'nope'（必须是以下之一：['nan', 'zero', 'scale', 'eps', 'set']）"]  # noqa: E501 - the exact text a reader sees, kept whole
    d.press("edit", var="a", op="set", value=" ")
    assert state(d)["notes"][0] == ["error", "请输入要设置的数值"]
    d.press("toggle", eqn="9/9")
    assert state(d)["notes"][0] == ["error", "没有方程 '9/9'（程序共有 2 个方程，编号形如 0, 1）"]


def test_edit_actions_go_through_set_value_and_mark_what_changed():
    d = debugger("func10")
    d.press("step")
    name = state(d)["values"][-1]["items"][0]["name"]          # the value eqn 0 wrote
    d.press("edit", var=name, op="nan")
    s = state(d)
    assert s["changed"] == [name] and s["marks"] == {"add": ["0"], "drop": []}
    d.press("step")                                            # eqn 1 reads it: its row is marked too
    assert state(d)["marks"] == {"add": ["1"], "drop": []} and d.view.changed_eqns() == ["0", "1"]
    assert [n[0] for n in s["notes"]] == ["edit"] and s["notes"][0][1].startswith(f"1 edit in effect ({name})")
    assert d.stepper.edits[0].name == name
    d.press("continue")
    s = state(d)
    assert s["done"] and "nan" in s["values"][-1]["items"][0]["preview"]
    assert ["jit", "Not compared with jax.jit: an edit (set_value) changed this run."] in s["notes"]
    d.press("edit", var=name, op="nope")
    assert state(d)["notes"][0] == ["error", "unknown edit 'nope' (must be one of ['nan', 'zero', "
                                             "'scale', 'eps', 'set'])"]
    d.press("reset")
    d.press("edit", var="a", op="scale", value=2)
    d.press("edit", var="a", op="set", value="oops")
    assert state(d)["notes"][0][0] == "error" and len(d.stepper.edits) == 1
    d.press("back")
    assert not d.stepper.edits and state(d)["changed"] == []


def test_marks_of_an_edit_are_kept_between_moves_and_sent_as_changes():
    """Issue 21: with an edit in effect a move looks only at the equations it crossed and sends only the rows
    whose mark changes (an edit early in 100k equations used to cost O(n) and resend every changed id a Step)."""
    def chain(x, y):
        for _ in range(10):
            x = jnp.sin(x) + y
        return x

    program = trace(chain, jnp.ones(3), jnp.ones(3))
    d = program.debugger()
    d.sent = d.comm.sent
    d.press("ready")
    d.press("step")                                   # eqn 0: c = sin a
    d.press("edit", var="c", op="scale", value=2)
    assert state(d)["marks"] == {"add": ["0"], "drop": []}
    for _ in range(4):
        d.press("step")
    assert state(d)["marks"] == {"add": ["4"], "drop": []}     # eqn 4 = sin(eqn 3's result), computed from a
    full = [op.eqn.id for op in d.stepper.frame.ops[:d.stepper.frame.pc]
            if any(d.stepper.is_changed(d.stepper.env[v]) for v in op.outvars)]
    assert d.view.changed_eqns() == full == ["0", "1", "2", "3", "4"]
    d.press("back")
    d.press("back")
    assert state(d)["marks"] == {"add": [], "drop": ["3"]} and d.view.changed_eqns() == ["0", "1", "2"]
    d.press("reset")
    assert state(d)["marks"] == {"add": [], "drop": ["0", "1", "2"]} and state(d)["changed"] == []


def test_step_out_at_the_top_level_is_disabled_and_said():
    d = debugger("func10")
    assert state(d)["depth"] == 1
    d.press("out")
    s = state(d)
    assert s["done"] and ["stop", "Step out at the top level: there is no caller to return to, so it ran on to "
                          "the end, like Continue"] in s["notes"]


def test_a_large_frame_is_sent_in_chunks_under_a_megabyte(monkeypatch):
    from jaxprlens.views.debugger import debugger as dbg

    def chain(x):
        for i in range(1500):
            x = jnp.sin(x) * 1.001 if i % 2 else x + 0.5
        return x

    monkeypatch.setattr(dbg, "ROWS_PER_MESSAGE", 1000)
    d = trace(chain, jnp.ones(3)).debugger()
    d.sent = d.comm.sent
    d.press("ready")
    first = d.sent[-1]["content"]
    frame = first["frame"]
    n = frame["n"]
    assert n > 2000 and frame["from"] == 0 and len(frame["rows"]) == 1000 and frame["per"] == 1000
    per_row = len(json.dumps(frame["rows"]).encode()) / 1000
    assert per_row * dbg.ROWS_PER_MESSAGE < 600_000               # 1,000 HTML rows a message: well under 1 MB
    got = list(frame["rows"])
    while len(got) < n:                                              # what the front end asks for, chunk by chunk
        chunk = reply(command(d, "ask", {"do": "rows", "path": "", "from": len(got)}))["rows"]
        assert chunk["from"] == len(got) and len(chunk["rows"]) <= 1000 and set(chunk) >= {"rows", "n", "path"}
        got += chunk["rows"]
    assert [row_id(r) for r in got] == [str(i) for i in range(n)]
    assert d.press("rows", path="nope", **{"from": 0}) == {} and d.press("rows", path="") == {}
    d.press("step")
    assert "frame" not in d.sent[-1]["content"]                    # sent once


def test_a_large_frame_sends_the_rows_around_the_current_one_and_those_asked_for(monkeypatch):
    """Issue 21: rows come per visible chunk.  A view that opens mid-way gets the rows from a little above the
    current one (at a chunk's start), any chunk the reader scrolls to comes on request with at most
    ``ROWS_PER_MESSAGE`` rows, and a request off a chunk's start is moved back to it."""
    from jaxprlens.views.debugger import debugger as dbg
    from jaxprlens.views.debugger.state import CHUNK_ROWS

    def chain(x):
        for i in range(3000):
            x = jnp.sin(x) if i % 2 else x + 0.5
        return x

    monkeypatch.setattr(dbg, "ROWS_PER_MESSAGE", 1000)
    program = trace(chain, jnp.ones(3))
    d = program.debugger()
    d.sent = d.comm.sent
    d.stepper.goto(1700)
    d.press("ready")
    frame = d.sent[-1]["content"]["frame"]
    assert frame["chunk"] == CHUNK_ROWS and frame["from"] == 1400 and len(frame["rows"]) == 1000
    assert [row_id(r) for r in frame["rows"][:2]] == ["1400", "1401"] and "data-same" in frame["rows"][0]
    rows = d.press("rows", path="", count=CHUNK_ROWS, **{"from": 2801})["rows"]
    assert rows["from"] == 2800 and [row_id(r) for r in rows["rows"]] == [str(i) for i in range(2800, 3000)]
    assert len(d.press("rows", path="", count=10**6, **{"from": 0})["rows"]["rows"]) == 1000
    assert d.press("rows", path="", count="all", **{"from": 0}) == {}


def test_the_jit_comparison_past_its_budget_is_a_button():
    fn, args = SEEDS["func10"]
    d = trace(fn, *args).debugger(jit_budget=2)
    d.sent = d.comm.sent
    d.press("ready")
    d.press("continue")
    notes = dict(state(d)["notes"])
    assert notes["jitskip"].startswith("Not compared with jax.jit: the program has ") and "budget of 2" in notes["jitskip"]  # noqa: E501 - the exact text a reader sees, kept whole
    d.press("jit")
    assert d.stepper.jit_budget == COMPARE_MAX
    assert "jitskip" not in dict(state(d)["notes"]) and "jitdiff" not in dict(state(d)["notes"])
    assert d.stepper.jit_check().status in ("equal", "close")


def test_past_its_size_the_jit_comparison_is_not_offered(monkeypatch):
    """Issue 21: XLA's compile grows faster than the program (20k equations: 2 minutes), so past COMPARE_MAX
    the debugger says why it does not compare and offers no button; pressing it anyway compiles nothing."""
    from jaxprlens.views.debugger import debugger as dbg
    from jaxprlens.views.debugger import state as dbgstate
    monkeypatch.setattr(dbgstate, "COMPARE_MAX", 5)
    monkeypatch.setattr(dbg, "COMPARE_MAX", 5)
    fn, args = SEEDS["func10"]
    d = trace(fn, *args).debugger(jit_budget=2)
    d.sent = d.comm.sent
    d.press("ready")
    d.press("continue")
    notes = state(d)["notes"]
    assert "jitskip" not in dict(notes)
    assert ["jit", "Not compared with jax.jit: the program has 8 equations, and XLA's compile time grows faster "
            "than the program (minutes past 5 equations, holding up the kernel). To compare anyway, outside the "
            "debugger: stepper.jit_check(budget=None)."] in notes
    d.press("jit")
    assert d.stepper.jit_check().status == "skipped" and d.stepper._jit_outputs is None


def test_the_cell_is_found_from_the_kernels_request(monkeypatch):
    """In JupyterLab the execute request's metadata names the cell: a second run of it closes the first
    debugger; the same run may make two; outside a notebook nothing is closed."""
    import IPython

    from jaxprlens.views.debugger import debugger as dbg

    class Shell:
        parent_header = {}

    shell = Shell()
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    assert dbg.cell_key() is None
    fn, args = SEEDS["func1"]
    p = trace(fn, *args)
    shell.parent_header = {"header": {"msg_id": "m1"}, "metadata": {"cellId": "c-9"}}
    assert dbg.cell_key() == ("c-9", "m1")
    a, b = Debugger(p), Debugger(p)
    a.stepper.run()
    assert a.comm is not None and a.stepper.done
    shell.parent_header = {"header": {"msg_id": "m2"}, "metadata": {"cellId": "c-9"}}
    c = Debugger(p)
    assert a.comm is None and b.comm is None and c.comm is not None and a.stepper.position == 0
    shell.parent_header = {}
    d = Debugger(p)
    assert c.comm is not None and d.comm is not None


def test_conditions_read_every_dtype():
    from jaxprlens.engine.conditions import condition, has_nan
    for dtype in (jnp.bfloat16, jnp.float8_e4m3fn, jnp.int4, jnp.uint4, jnp.int32):
        x = jnp.array([1, 6, 2]).astype(dtype)
        assert condition("max > 5")(x) and condition("abs max >= 6")(x) and condition("min < 2")(x)
        assert not condition("max > 6")(x) and not condition("any NaN")(x)
    bf = jnp.array([1., jnp.nan, 7.], jnp.bfloat16)
    assert condition("max > 5")(bf) and has_nan([bf]) and condition("any NaN")(bf)    # NaN aside, max is 7
    z = jnp.array([3 + 4j])
    assert condition("abs max >= 5")(z) and not condition("max > 0")(z)               # complex: |z| only
    keys = jax.random.split(jax.random.key(0))
    assert not condition("max > 0")(keys) and not has_nan([keys]) and not condition("any Inf")(keys)


def _counting():
    from jax.experimental import io_callback
    calls = []

    def count(v):
        calls.append(1)
        return (v + len(calls)).astype(np.float32)

    def f(x):
        y = jnp.sin(x)
        return io_callback(count, jax.ShapeDtypeStruct((3,), jnp.float32), y, ordered=True) * 2
    return trace(f, jnp.ones(3)), calls


def test_showing_the_debugger_calls_no_host_function():
    p, calls = _counting()
    d = p.debugger()
    bundle, _ = d._repr_mimebundle_()
    assert calls == []                            # the stored replay and the snapshot ran no callback
    data = record(p)
    assert calls == [] and data["capped"] and len(data["steps"]) == 2      # recorded up to the callback, not past it
    assert note(data) == ("recording stopped after 1 step (eqn 1 calls host functions (io_callback(count)): the "
                            "recording stops before it, so that showing the debugger calls none; the live debugger "
                            "steps on): the replay ends there")
    assert "io_callback(count)" in note(stored_data(bundle["text/html"]))
    assert "方程 1 调用宿主函数（io_callback(count)）" in note(record(p, lang="zh")) and calls == []


def test_the_jit_comparison_does_not_rerun_host_functions_and_says_so():
    from jaxprlens.present.words import jit_diff_text
    from jaxprlens.views.debugger.debugger import StateView
    p, calls = _counting()
    st = p.stepper()
    st.run()
    assert len(calls) == 1 and st.host_calls() == ("io_callback(count)",)
    check = st.jit_check()
    assert (check.status, check.host, len(calls)) == ("host", "io_callback(count)", 1)
    assert StateView(st).notes() == [["jit", (
        "Not compared with jax.jit: the program calls host functions (io_callback(count)), and compiling it to "
        "compare would call them once more (a counter, a file or a log would see a second run). To compare anyway: "
        "stepper.jit_check(host=True).")]]
    assert st.compare_with_jit().kind == "host" and "host=True" in jit_diff_text(st.compare_with_jit())
    assert len(calls) == 1
    ran = st.jit_check(host=True)                 # asked for: jax.jit runs it once, and says it did
    assert len(calls) == 2 and (ran.status, ran.host) == ("differ", "io_callback(count)")
    for lang in ("en", "zh"):
        [[kind, text]] = StateView(st, lang).notes()
        assert kind == "jit" and "io_callback(count)" in text
        assert "may be a stepper bug" not in text and "please report" not in text and "请报告" not in text
    assert st.jit_check().status == "differ" and len(calls) == 2                 # once: kept, not run again
    assert st.compare_with_jit().kind == "values"


def test_host_functions_are_named_and_debug_print_is_none_of_them():
    import functools

    from jaxprlens.engine.jitcheck import host_calls

    def log(v):
        return v

    def f(x):
        jax.debug.print("x {}", x)                # prints only (captured while compared): no host function
        jax.debug.callback(lambda v: None, x)
        y = jax.pure_callback(functools.partial(log), jax.ShapeDtypeStruct((2,), jnp.float32), x)
        return jax.jit(lambda y: y + 1)(y)
    p = trace(f, jnp.ones(2))
    assert host_calls(p) == ("debug_callback(lambda)", "pure_callback(log)")
    assert host_calls(trace(lambda x: jax.debug.print("{}", x) or x * 2, jnp.ones(2))) == ()


@pytest.mark.parametrize("lang, words", [("en", "interrupted (the kernel was interrupted): stopped at "),
                                         ("zh", "已中断（内核被中断）：停在 ")])
def test_an_interrupted_continue_answers_where_it_stopped(monkeypatch, lang, words):
    from jaxprlens.engine.stepper import Stepper

    def f(x):
        return jax.lax.fori_loop(0, 1000, lambda i, c: c * 0.5 + 1.0, x)
    d = trace(f, jnp.ones(4)).debugger(lang=lang)
    d.sent = d.comm.sent
    d.press("ready")
    d.stepper.add_condition("max > 1e9")           # never met: Continue steps into every iteration
    steps, step = [0], Stepper.step

    def interrupted(st):
        steps[0] += 1
        if steps[0] == 40:
            raise KeyboardInterrupt
        return step(st)
    monkeypatch.setattr(Stepper, "step", interrupted)
    d.press("continue")
    state = d.sent[-1]["content"]["state"]
    assert not state["done"] and state["depth"] > 1 and state["back"]       # inside the loop, undoable
    notes = state["view"]["notes"]
    assert words in notes and "error" in notes
    monkeypatch.setattr(Stepper, "step", step)
    d.press("back")
    assert d.sent[-1]["content"]["state"]["depth"] == 1 and d.sent[-1]["content"]["state"]["pc"] == 0


@pytest.mark.parametrize("lang, words", [("en", "steps so far; interrupt the kernel (■) to stop here"),
                                         ("zh", "中断内核（■）可停在此处")])
def test_a_long_continue_reports_where_it_has_got_to(monkeypatch, lang, words):
    from jaxprlens.views.debugger import debugger as dv

    def f(x):
        return jax.lax.fori_loop(0, 2000, lambda i, c: c * 0.5 + 1.0, x)
    d = trace(f, jnp.ones(4)).debugger(lang=lang)
    d.sent = d.comm.sent
    d.press("ready")
    d.stepper.add_condition("max > 1e9")           # never met: Continue steps into every iteration
    monkeypatch.setattr(dv, "PROGRESS_S", 0.0)     # a report at every PROGRESS_STEPS steps
    before = len(d.sent)
    sent = command(d, "ask", {"do": "continue"})         # as the page asks: anywidget's command
    assert [m["content"] for m in d.sent[before:]] == sent
    reports, answer = sent[:-1], [reply(sent)]           # reports on their own, the command's reply last
    assert len(reports) >= 10 and answer[0]["compare"]   # (the end's comparison with jax.jit is asked for after it)
    first = reports[0]["state"]
    assert words in first["view"]["notes"] and first["depth"] > 1 and not first["done"]
    assert reports[0]["frame"]["path"] == first["frame"]          # the loop body's rows come with its first report
    if lang == "en":
        steps = [int(re.search(r"running… (\d+) steps so far", r["state"]["view"]["notes"]).group(1)) for r in reports]
        assert steps == list(range(256, 256 * (len(steps) + 1), 256))
    assert answer[0]["state"]["done"] and words not in answer[0]["state"]["view"]["notes"]


def test_in_marimo_the_widget_carries_its_replay(monkeypatch):
    """marimo shows the widget alone (no replay output before it) and its export stores the widget with no kernel:
    there the widget carries the replay's HTML, which its script draws until the kernel answers."""
    import jaxprlens.views.debugger.debugger as dbg
    monkeypatch.setattr(dbg, "in_marimo", lambda: True)
    d = debugger("func10")
    assert 'data-jl-view="replay"' in d.fallback and 'class="jl-dbg-data"' in d.fallback
    assert not loaders(d.fallback)                               # the widget's own module draws it
    d.close()
    monkeypatch.setattr(dbg, "in_marimo", lambda: False)
    d = debugger("func10")
    assert d.fallback == ""                                       # elsewhere the replay is an output of its own
    d.close()
