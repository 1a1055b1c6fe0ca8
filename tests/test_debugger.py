"""The debugger: press its moves in Python and read the messages it sends its ES module (position, crumbs,
values), the recorded replay it stores, and the hook that saves a live output as its replay."""
import json
import re
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxprlens.views.debugger.debugger import COMPARE_MAX, Debugger, describe, sparkline
from jaxprlens.model import trace
from jaxprlens.views.debugger.replay import record, replay_html, stored_size
from jaxprlens.engine.stepper import CONDITIONS
from jaxprlens.serverext import WIDGET_VIEW, strip_live_widgets
from seeds import SEEDS
from memory import rss_mb
from pages import loaders


pytestmark = pytest.mark.usefixtures("fake_comm")     # every widget here records what it sends (conftest.py)


def debugger(name, **options) -> Debugger:
    fn, args = SEEDS[name]
    d = trace(fn, *args).debugger(**options)
    d.sent = d.comm.sent
    d.press("ready")
    return d


def at(d: Debugger) -> str | None:
    return d.sent[-1]["content"]["state"]["eqn"]


def read(state: dict) -> dict:
    """A state as sent, with what its panel's HTML shows read back as data: ``crumbs``, ``notes`` (``[kind,
    text]``, a note's button aside), ``values`` (``[{title, items: [{name, path, shape, dtype, stats, preview}]}]``)
    and ``changed`` (the values marked as changed by an edit)."""
    from bs4 import BeautifulSoup
    view = {k: BeautifulSoup(v, "html.parser") for k, v in state["view"].items()}
    notes = []
    for div in view["notes"].select("div.jl-note"):
        kind = next(c[3:] for c in div["class"] if c != "jl-note")
        notes.append([kind, "".join(x for x in div.contents if isinstance(x, str))])
    groups = []
    for tr in view["values"].select("tr.jl-value"):
        data = tr.find_next_sibling("tr")
        path = tr.select_one(".jl-path")
        stats = data.select_one(".jl-stats")
        item = {"name": tr.select_one("var").get_text(), "path": path.get_text() if path else "",
                "shape": tr.select("td")[2].get_text(), "dtype": tr.select("td")[3].get_text(),
                "stats": stats.get_text() if stats else "", "preview": data.select_one("pre.jl-val").get_text()}
        title = tr.select_one("td.jl-vtitle").get_text()
        if not groups or groups[-1]["title"] != title:
            groups.append({"title": title, "items": []})
        groups[-1]["items"].append(item)
    return dict(state, crumbs=[s.get_text() for s in view["crumbs"].select("span")], notes=notes, values=groups,
                changed=sorted({tr["data-var"] for tr in view["values"].select("tr.jl-value.jl-changed")}))


def state(d: Debugger) -> dict:
    return read(d.sent[-1]["content"]["state"])


def replayed(rec: dict, k: int) -> dict:
    """Step ``k`` of a recorded replay, its panel put together from the shared pieces and read back."""
    from jaxprlens.views.debugger.panel import PIECES
    step = rec["steps"][k]
    return read(dict(step, view={name: rec["pieces"][i] for name, i in zip(PIECES, step["p"])}))


def note(rec: dict) -> str | None:
    """The text of a recorded replay's closing note (why it ends), or None."""
    from bs4 import BeautifulSoup
    return None if rec["note"] is None else BeautifulSoup(rec["note"], "html.parser").get_text()


def row_id(row_html: str) -> str:
    return re.match(r'<tr class="jl-row[^"]*" data-eqn="([^"]*)"', row_html).group(1)


def crumbs(d: Debugger) -> str:
    return " › ".join(state(d)["crumbs"])


def values(d: Debugger) -> dict:
    """{(title, name): (shape, dtype, stats, preview)} from the last state sent."""
    return {(g["title"], it["name"]): (it["shape"], it["dtype"], it["stats"], it["preview"])
            for g in state(d)["values"] for it in g["items"]}


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
        sizes[n] = max(len(json.dumps(m)) for m in d.sent[1:])
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


def test_replay_records_the_path_values_and_caps():
    fn, args = SEEDS["func10"]
    p = trace(fn, *args)
    rec = record(p)
    steps = rec["steps"]
    assert rec["note"] is None and not rec["capped"] and steps[-1]["done"]
    assert [s["eqn"] for s in steps[:5]] == ["0", "1", "2", "2/cond/0", "2/body/0"]
    assert set(rec["frames"]) == {"", "2/cond", "2/body"}
    last = replayed(rec, -1)["values"][-1]
    assert last["title"] == "result" and last["items"][0]["stats"] == "min 22  max 22  mean 22  NaN 0"
    capped = record(p, max_steps=5)
    assert len(capped["steps"]) == 6 and capped["capped"]
    assert note(capped) == "recording stopped after 5 steps (the cap of 5 steps): the replay ends there"
    small = record(p, max_bytes=5_000)                       # the whole recording stores 6.2 kB (pictures too)
    assert small["capped"] and "the cap of 5 kB" in note(small)
    assert stored_size(small) <= 5_000 and 1 < len(small["steps"]) < len(steps)


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


def test_the_server_extension_names_its_process_for_its_kernels(monkeypatch):
    import os
    from types import SimpleNamespace
    ioloop = pytest.importorskip("tornado.ioloop")
    from jaxprlens import serverext
    monkeypatch.delenv(serverext.SERVER_PID, raising=False)
    hooked = []
    monkeypatch.setattr(serverext, "_hook", hooked.append)
    monkeypatch.setattr(ioloop.IOLoop, "current", lambda: SimpleNamespace(add_callback=lambda *a: None))
    app = SimpleNamespace(log=SimpleNamespace(info=lambda *a: None))
    serverext._load_jupyter_server_extension(app)
    assert os.environ[serverext.SERVER_PID] == str(os.getpid()) and hooked == [app]


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


def test_replay_html_cannot_be_closed_by_data():
    data = {"steps": [], "frames": {}, "x": "</script><b>"}
    html = replay_html(data, "en")
    assert "</script><b>" not in html and _stored_data(html) == data       # base64: no `<` to close the tag


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


def test_describe_sparkline_histogram():
    big = describe(jnp.linspace(0., 1., 200))
    assert big["shape"] == "(200,)" and big["dtype"] == "float32" and big["device"] == "cpu:0"
    assert big["stats"] == "min 0  max 1  mean 0.5  NaN 0"
    assert "..." in big["value"] and big["spark"].startswith("▁") and big["spark"].endswith("█")
    assert sum(big["hist"]) == 200 and len(big["hist"]) == 16
    small = describe(np.array([1., np.nan, 3., np.inf]))
    assert small["stats"] == "min 1  max 3  mean 2  NaN 1  Inf 1" and small["spark"] == ""
    assert (small["nan"], small["inf"], small["hist"]) == (1, 1, None)
    assert sparkline(np.ones(100)) == "▁" * 32
    assert len(describe(np.arange(10_000.), limit=10_000, chars=50)["value"]) == 50
    # beside the frame at ~970 px the panel holds ~45 columns: an array's rows wrap there, never scroll sideways
    wide = describe(np.linspace(-1.2590712, 1.9602613, 24).reshape(3, 8))["value"]
    assert max(map(len, wide.splitlines())) <= 44 < len(wide.replace("\n", ""))


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
    from bs4 import BeautifulSoup        # the snapshot's values read left to right untrusted too (inline style)
    cells = BeautifulSoup(view.values_html(), "html.parser").select("tr.jl-value td")
    assert cells and all("text-align:left" in td.get("style", "") for td in cells)
    st.run()
    assert st.done and "jitdiff" not in [n[0] for n in view.notes()]    # eager equals jax.jit here
    np.testing.assert_allclose(st.outputs, jax.jit(f)(*args))


@pytest.mark.parametrize("bad", ["step", "ready"])
def test_unknown_message_is_refused_politely(bad):
    d = debugger("func1")
    d._on_msg(d, {"do": "jump"}, [])
    assert state(d)["notes"][0] == ["error", "unknown action 'jump' (must be one of ['back', 'call', 'continue', "
                                             "'into', 'out', 'reset', 'step'])"]
    d.press(bad)
    assert state(d)["notes"] == []


def test_saving_through_jupyter_server_drops_only_the_live_widget_output(tmp_path):
    """The server extension's hook, on the contents manager in use (jupytext replaces it after load)."""
    import asyncio
    import concurrent.futures
    import logging
    from types import SimpleNamespace

    pytest.importorskip("jupyter_server", reason="the save hook runs inside a Jupyter server (make test has one)")
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    from jaxprlens import serverext

    app = SimpleNamespace(contents_manager=AsyncLargeFileManager(root_dir=str(tmp_path)), log=logging.getLogger())
    serverext._hook(app)
    serverext._hook(app)                    # once the server runs: the same manager is not hooked twice
    assert app.contents_manager._pre_save_hooks.count(serverext.pre_save) == 1
    d = debugger("func1")
    data, metadata = d._repr_mimebundle_()
    live, lmeta = d.widget_bundle()
    outputs = [{"output_type": "display_data", "data": data, "metadata": metadata},
               {"output_type": "display_data", "data": live, "metadata": lmeta},
               {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "abc", "version_major": 2,
                                                                      "version_minor": 1}, "text/plain": "w"},
                "metadata": {}}]
    nb = {"cells": [{"cell_type": "code", "id": "c0", "source": "", "metadata": {}, "execution_count": 1,
                     "outputs": outputs}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    save = app.contents_manager.save({"type": "notebook", "content": nb}, "saved.ipynb")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:    # its own loop: another test may have one running
        pool.submit(asyncio.run, save).result()
    saved = json.loads((tmp_path / "saved.ipynb").read_text())["cells"][0]["outputs"]
    assert len(saved) == 2 and sorted(saved[0]["data"]) == ["text/html", "text/plain"]
    assert "jl-dbg-replay" in "".join(saved[0]["data"]["text/html"])
    assert WIDGET_VIEW in saved[1]["data"]                   # another library's widget is left alone


def test_the_server_extension_hooks_the_contents_manager_in_use_once_the_server_runs(tmp_path):
    """JupyterHub's single-user extension runs the loop while extensions load (its hub version check), so the
    load-time callback can fire before jupytext, loaded after us, replaces the contents manager: Jupyter
    Server's start hook, called after every extension has loaded, hooks the one in use."""
    import asyncio
    import concurrent.futures
    import logging
    from types import SimpleNamespace

    pytest.importorskip("jupyter_server", reason="the save hook runs inside a Jupyter server (make test has one)")
    from jupyter_server.extension.manager import ExtensionPoint
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    from jaxprlens import serverext

    app = SimpleNamespace(contents_manager=AsyncLargeFileManager(root_dir=str(tmp_path)), log=logging.getLogger())
    serverext._hook(app)                                    # at load (and the early callback)
    loaded = app.contents_manager
    app.contents_manager = AsyncLargeFileManager(root_dir=str(tmp_path))   # jupytext's, loaded after us
    assert serverext.pre_save not in app.contents_manager._pre_save_hooks
    starter = ExtensionPoint(metadata={"module": "jaxprlens.serverext"})._get_starter()
    assert starter is serverext._start_jupyter_server_extension   # Jupyter Server finds our start hook
    with concurrent.futures.ThreadPoolExecutor(1) as pool:    # its own loop: another test may have one running
        pool.submit(asyncio.run, starter(app)).result()
    assert app.contents_manager._pre_save_hooks.count(serverext.pre_save) == 1
    assert loaded._pre_save_hooks.count(serverext.pre_save) == 1


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


def test_save_hook_survives_malformed_notebooks_and_touches_only_its_outputs():
    from jaxprlens.serverext import pre_save
    live = {"output_type": "display_data", "metadata": {"jaxprlens": {"live": True}},
            "data": {WIDGET_VIEW: {"model_id": "m"}, "text/html": "<div>replay</div>", "text/plain": "d"}}
    foreign = [
        {"output_type": "display_data", "metadata": None, "data": {WIDGET_VIEW: {}}},       # metadata not a dict
        {"output_type": "display_data", "metadata": {"jaxprlens": "live"}, "data": {WIDGET_VIEW: {},
                                                                                   "text/html": "x"}},
        {"output_type": "display_data", "metadata": {"jaxprlens": {"live": True}}, "data": ["not", "a", "dict"]},
        {"output_type": "display_data", "metadata": {"jaxprlens": {"live": 1}}, "data": {WIDGET_VIEW: {},
                                                                                        "text/html": "y"}},
        "an output that is a string", None, 42,
        {"output_type": "stream", "name": "stdout", "text": "hi"},
    ]
    nb = {"cells": [
        {"cell_type": "code", "outputs": list(foreign[:4]) + [json.loads(json.dumps(live))] + foreign[4:]},
        {"cell_type": "code", "outputs": "not a list"},
        "a cell that is a string",
        {"cell_type": "markdown", "source": "# x", "outputs": [json.loads(json.dumps(live))]},
        {"cell_type": "code", "outputs": [json.loads(json.dumps(live))]},
        None]}
    before = json.dumps(nb, sort_keys=True)
    model = {"type": "notebook", "content": nb}
    pre_save(model)
    outs = nb["cells"][0]["outputs"]
    assert WIDGET_VIEW not in outs[4]["data"] and WIDGET_VIEW not in nb["cells"][4]["outputs"][0]["data"]
    # everything else byte-identical: put the two stripped views back and compare with what came in
    outs[4]["data"][WIDGET_VIEW] = {"model_id": "m"}
    nb["cells"][4]["outputs"][0]["data"][WIDGET_VIEW] = {"model_id": "m"}
    assert json.dumps(nb, sort_keys=True) == before
    for bad in (None, 3, {"type": "notebook", "content": None}, {"type": "notebook", "content": {"cells": 7}},
                {"type": "notebook", "content": {"cells": [{"cell_type": "code", "outputs": [{"metadata": 5}]}]}},
                {"type": "file", "content": "text"}):
        pre_save(bad)                       # never raises
    assert strip_live_widgets([]) == 0 and strip_live_widgets({"cells": None}) == 0


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
        d._on_msg(d, {"do": "rows", "path": "", "from": len(got)}, [])
        chunk = d.sent[-1]["content"]["rows"]
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


def test_the_untrusted_snapshot_says_how_to_get_the_replay():
    from bs4 import BeautifulSoup
    from jaxprlens.views.debugger.debugger import StateView
    fn, args = SEEDS["func1"]
    program = trace(fn, *args)
    for lang, said in (("en", "run the cell, or trust the notebook (JupyterLab, Notebook 7: command palette › Trust "
                              "Notebook; nbclassic: File › Trust Notebook; VS Code: trust the folder), to step through "
                              "it"),
                       ("zh", "运行此单元格，或信任此笔记本（JupyterLab、Notebook 7：命令面板 › 信任笔记本；nbclassic：文件 › "  # noqa: E501 - the exact text a reader sees, kept whole
                              "信任笔记本；VS Code：信任该文件夹），即可逐步执行")):
        note = BeautifulSoup(StateView(program.stepper(), lang).html(), "html.parser").select_one(".jl-snapshot")
        assert note.select_one(".jl-snapshot-how").get_text() == said


def test_the_snapshot_of_a_large_frame_makes_only_the_rows_it_shows():
    """The static snapshot shows 100 rows around the current one, built alone but as the whole table's rows
    (a run of one source line shows it once; a primitive is explained at its first row in the program)."""
    from jaxprlens.present.nouns import block
    from jaxprlens.views.debugger.state import window_rows

    def chain(x):
        for i in range(300):
            x = jnp.sin(x) if i % 3 else x + 0.5
        return x

    program = trace(chain, jnp.ones(3))
    whole = block(program, "en").rows
    for lo, hi in ((0, 100), (1, 50), (150, 250), (250, 400)):
        part = window_rows(program, "en", lo, hi)
        assert [(r.eqn, r.same_source, r.explain) for r in part] == \
            [(r.eqn, r.same_source, r.explain) for r in whole[lo:hi]]


def test_the_replay_makes_only_the_rows_its_run_reached():
    def chain(x):
        for i in range(1500):
            x = jnp.sin(x) if i % 2 else x + 0.5
        return x

    stored = record(trace(chain, jnp.ones(3)), max_steps=3)
    frame = stored["frames"][""]
    assert frame["n"] == 1500 and len(frame["rows"]) == 3 + 20 and frame["more"].startswith("1477 more")


def _stored_data(html: str) -> dict:
    """The recorded replay as the page's script reads it from the stored output."""
    from jaxprlens.views.debugger.replay import unstored
    m = re.findall(r'<script type="application/octet-stream" class="jl-dbg-data" data-z="deflate-raw">(.*?)</script>',
                   html, re.S)
    assert len(m) == 1, "the replay stores its data in one script tag"
    return unstored(m[0])


def test_replay_records_the_engines_condition_numbers_and_landings():
    """Per step: the numbers the engine's conditions compare for the values it wrote (Inf kept, as a string),
    and where Step and Step out land (the engine's moves, engine/landings.py): the script defines neither."""
    from jax import lax
    from jaxprlens.engine.conditions import stats
    from jaxprlens.engine.landings import landings
    from jaxprlens.views.debugger.replay import written
    p = trace(lambda x: lax.fori_loop(0, 2, lambda i, c: c * 2., x * 1.), jnp.array([1., np.inf]))
    steps = json.loads(json.dumps(record(p, lang="en")))["steps"]          # as the page reads it back
    assert steps[1]["w"] == [["inf", 1.0, "inf", 2 | 4]]                  # x * 1. wrote [1, inf] (float32: 4)
    assert tuple(float(v) for v in steps[1]["w"][0][:3]) + (2,) == stats(jnp.array([1., np.inf]))
    x = np.random.default_rng(0).normal(size=2000).astype(np.float32) * np.float32(1e-3) ** np.arange(-4, 4)[
        np.arange(2000) % 8].astype(np.float32)
    for row, v in zip(written([jnp.asarray(a) for a in x.reshape(-1, 1)]), x):
        stored = json.loads(json.dumps(row[0]))          # short float32 digits; the script's Math.fround:
        assert row[3] == 4 and float(np.float32(stored)) == float(v) == stats(jnp.asarray([v]))[0]
    assert "w" not in steps[2]                                            # entering the loop writes nothing
    over, out = landings([s["depth"] for s in steps])
    assert steps[1]["o"] == over[1] == len(steps) - 1 and "o" not in steps[0]          # over the loop: the end
    inside = [k for k, s in enumerate(steps) if s["depth"] > 1]
    assert inside and all(steps[k]["u"] == out[k] == inside[-1] + 1 for k in inside)   # out: after the loop
    assert all("u" not in s for s in steps if s["depth"] == 1)


def test_replay_carries_the_condition_grammar_and_the_script_keeps_no_copy():
    """The stepper's condition grammar is stated once (engine.stepper.CONDITIONS): the stored replay carries it
    and views/debugger/debugger.js builds its matcher from that data, so the two can never disagree."""
    fn, args = SEEDS["func10"]
    stored = _stored_data(replay_html(record(trace(fn, *args), max_steps=3), "en"))
    assert stored["conditions"] == CONDITIONS
    scripts = {p.name: p.read_text(encoding="utf-8") for p in Path(str(files("jaxprlens"))).rglob("*.js")}
    assert "data.conditions" in scripts["dbgreplay.js"]
    for name, js in scripts.items():
        for copy in (CONDITIONS["compare"], "abs max", "max|min", ">=|<=", "any nan", "any inf"):
            assert copy not in js, f"static/{name} keeps its own copy of the condition grammar ({copy!r})"


CONDITION_TEXTS = ["max > 1e3", "MAX>1E3", "min < -1", "abs max >= 10", "abs  max<=.5", "max > +2.5e-3",
                   "max > x", "mean > 1", "max >> 1", "max > 1.", "any NaN"]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the grammar as the browser does")
def test_the_condition_grammar_reads_the_same_in_python_and_in_javascript():
    """A JavaScript RegExp made from CONDITIONS["compare"] (as debugger.js makes it) matches what the stepper's
    re matches, with the same groups: the grammar uses no syntax only one of them knows."""
    norm = [" ".join(x.lower().split()) for x in CONDITION_TEXTS]
    py = [list(m.groups()) if (m := re.match(CONDITIONS["compare"], x)) else None for x in norm]
    js = ("const [re, texts] = JSON.parse(process.argv[1]);"
          "console.log(JSON.stringify(texts.map((t) => { const m = new RegExp(re).exec(t);"
          " return m ? m.slice(1) : null; })));")
    out = subprocess.run(["node", "-e", js, json.dumps([CONDITIONS["compare"], norm])], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert json.loads(out) == py
    assert [g is not None for g in py] == [True] * 6 + [False] * 3 + [True, False]


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
    from jaxprlens.views.debugger import state as dbgstate
    from jaxprlens.views.debugger import debugger as dbg
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


def test_replay_is_capped_by_kinds_of_operation():
    """Each new kind of operation costs an XLA compile while the cell runs: the recording stops at a cap (the
    same on every machine, unlike a time budget) and says why."""
    fn, args = SEEDS["func10"]
    p = trace(fn, *args)
    full = record(p)
    capped = record(p, max_kinds=2)
    assert capped["capped"] and 1 < len(capped["steps"]) < len(full["steps"])
    assert "the cap of 2 kinds of operation" in note(capped)
    assert record(p, max_kinds=None)["steps"] == full["steps"]


# ---------------------------------------------------------------- every JAX dtype summarised right (issue 28)

def _with_nans(dtype):
    """100 values of ``dtype`` with 8 NaNs and 2 Infs where the dtype has them, and their float32 copy."""
    x = np.linspace(-3., 5., 100).astype(np.float32)
    if jnp.issubdtype(dtype, jnp.floating):
        x[:8] = np.nan
        if dtype is not jnp.float8_e4m3fn:              # e4m3fn has no Inf (it would be a NaN)
            x[8], x[9] = np.inf, -np.inf
    a = jnp.asarray(x).astype(dtype)
    return a, np.asarray(a).astype(np.float32)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.int4,
                                   jnp.uint4, jnp.int8, jnp.float32])
def test_value_summary_of_narrow_dtypes_matches_numpy_on_a_float32_copy(dtype):
    a, f32 = _with_nans(dtype)
    d = describe(a)
    finite = f32[np.isfinite(f32)]
    nan, inf = int(np.isnan(f32).sum()), int(np.isinf(f32).sum())
    assert (d["shape"], d["dtype"], d["nan"], d["inf"]) == ("(100,)", jnp.dtype(dtype).name, nan, inf)
    if jnp.issubdtype(dtype, jnp.floating):
        assert nan == 8
    want = f"min {finite.min():.6g}  max {finite.max():.6g}  mean {finite.mean():.6g}  NaN {nan}"
    assert d["stats"] == want + (f"  Inf {inf}" if inf else "")
    assert (d["min"], d["max"]) == (float(f"{finite.min():.6g}"), float(f"{finite.max():.6g}"))
    assert d["hist"] == np.histogram(finite.astype(np.float64), 16)[0].tolist()
    assert d["spark"] and set(d["spark"]) <= set("▁▂▃▄▅▆▇█")
    zh = describe(a, "zh")["stats"]
    assert zh.startswith(f"最小值 {finite.min():.6g}") and f"NaN {nan}" in zh


def test_a_bfloat16_value_with_8_nans_says_8_nans_in_the_panel_and_the_snapshot():
    from jaxprlens.views.debugger.debugger import StateView
    x = jnp.linspace(-1., 1., 32).at[:8].set(jnp.nan).astype(jnp.bfloat16)
    st = trace(lambda x: x * 2, x).stepper()
    st.run()
    item = StateView(st).values()[-1]["items"][0]
    assert item.nan == 8 and item.stats.endswith("NaN 8") and item.hist is not None
    assert "NaN 8" in StateView(st).values_html()


def test_key_arrays_show_their_implementation_shape_and_key_data():
    keys = jax.random.split(jax.random.key(0), 3)
    d = describe(keys)
    data = np.asarray(jax.random.key_data(keys))
    assert (d["shape"], d["dtype"]) == ("(3,)", "key<fry>")
    assert d["stats"] == "PRNG key (threefry2x32), key data uint32[3, 2]"
    assert d["value"].replace(" ", "").replace("\n", "") == str(data.tolist()).replace(" ", "")
    assert (d["nan"], d["hist"], d["spark"]) == (0, None, "")
    assert describe(keys, "zh")["stats"] == "PRNG 密钥（threefry2x32），密钥数据 uint32[3, 2]"
    rbg = describe(jax.random.key(1, impl="rbg"))
    assert (rbg["shape"], rbg["dtype"], rbg["stats"]) == ("()", "key<rbg>", "PRNG key (rbg), key data uint32[4]")


def test_complex_and_bool_values_are_summarised():
    z = jnp.array([3 + 4j, -1 - 2j, 0.5j, complex(np.nan, 0)], jnp.complex64)
    d = describe(z)
    assert d["stats"] == "|x| max 5  real [-1, 3]  imag [-2, 4]  NaN 1" and (d["nan"], d["hist"]) == (1, None)
    assert describe(jnp.array([1 + 1j, complex(np.inf, 0)]))["stats"] == "|x| max 1.41421  real [1, 1]  imag [1, 1]  NaN 0  Inf 1"  # noqa: E501 - the exact text a reader sees, kept whole
    b = describe(jnp.arange(10) % 3 == 0)
    assert (b["stats"], b["nan"], b["hist"]) == ("True 4 of 10", 0, None)
    assert describe(jnp.arange(10) > 20, "zh")["stats"] == "10 个中 True 0 个"
    one = describe(jnp.array(True))
    assert (one["stats"], one["value"], one["min"]) == ("", "True", None)    # one bool: its value says it


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


def test_the_jit_comparison_reads_keys_and_narrow_dtypes():
    from jaxprlens.views.debugger.debugger import StateView

    def f(key):
        k1, k2 = jax.random.split(key)
        y = jax.random.normal(k2, (20,)).at[:4].set(jnp.nan)
        return k1, y.astype(jnp.bfloat16), y.astype(jnp.float8_e4m3fn), (y * 3).astype(jnp.int4), y * 1j
    st = trace(f, jax.random.key(0)).stepper()
    st.run()
    assert st.jit_check().status == "equal" and st.compare_with_jit() is None
    assert StateView(st).notes() == []
    text = StateView(st).text()
    assert f"out[0] = key<fry>[] [{', '.join(map(str, jax.random.key_data(st.outputs[0]).tolist()))}]" in text


# ---------------------------------------------------------------- host functions are not called behind your back

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
    assert "io_callback(count)" in note(_stored_data(bundle["text/html"]))
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


def test_the_snapshot_and_the_slide_keep_values_whole_and_readable():
    """Untrusted, JupyterLab's ``pre`` breaks anywhere (mid-number): the snapshot's previews say
    ``word-break:normal`` inline. In a reveal slide the debugger stacks (its query in em, so a slide's larger text
    counts) and reveal's small, 90%-wide, shadowed ``pre`` is undone for the values and the source."""
    import re
    from bs4 import BeautifulSoup
    from jaxprlens.views.debugger.debugger import StateView
    from jaxprlens.present.front import css
    fn, args = SEEDS["func1"]
    st = trace(fn, *args).stepper(*args)
    pres = BeautifulSoup(StateView(st).values_html(), "html.parser").select("pre.jl-val")
    assert pres and all("word-break:normal" in p.get("style", "") for p in pres)
    sheet = css(frozenset({"debugger"}))
    assert "@container (max-width:800px) or (max-width:64em)" in sheet
    reset = re.search(r"\.jaxprlens pre\.jl-val,\.jaxprlens pre\.jl-code\{([^}]*)\}", sheet).group(1)
    assert {"font-size:inherit", "width:auto", "box-shadow:none"} <= set(reset.split(";"))


# ---------------------------------------------------------------- one renderer of the panel (issue 27 item 1)

def _soup(text: str):
    from bs4 import BeautifulSoup
    return BeautifulSoup(text, "html.parser")


def _unstyled(text: str) -> str:
    """HTML without its inline alignment (the snapshot's, for pages where none of our CSS runs)."""
    return re.sub(r' style="[^"]*"', "", text)


def test_the_panel_is_one_rendering_for_the_snapshot_the_widget_and_the_replay():
    """The live message, the replay's steps and the static snapshot carry the same HTML pieces for the same
    state (the widget's adds only its edit buttons); a value is a head row and a data row: its name and Python
    path, shape, dtype, then statistics, histogram (its counts in its title) and preview, NaN and Inf marked."""
    from jaxprlens.views.debugger.panel import PIECES
    fn, args = SEEDS["func10"]
    p = trace(fn, *args)
    d = p.debugger()
    d.sent = d.comm.sent
    d.press("ready")
    live = d.sent[-1]["content"]["state"]["view"]
    assert sorted(live) == sorted(PIECES)
    rec = record(p)
    first = {name: rec["pieces"][i] for name, i in zip(PIECES, rec["steps"][0]["p"])}
    no_buttons = re.sub(r'<span class="jl-edit".*?</span>', "", live["values"])
    assert no_buttons == first["values"] and live["crumbs"] == first["crumbs"] and live["source"] == first["source"]
    snapshot = _soup(StateViewOf(p, *args).html())
    assert _unstyled(str(snapshot.select_one("table.jl-values"))) == str(_soup(first["values"]).table)
    assert [s.get_text() for s in snapshot.select(".jl-crumbs span")] == ["top", "eqn 0"]
    d.press("step")                                   # eqn 1 (add a c) next: its inputs, and eqn 0's output c
    values = _soup(d.sent[-1]["content"]["state"]["view"]["values"])
    heads, datas = values.select("tr.jl-value"), values.select("tr.jl-value-data")
    assert len(heads) == len(datas) == 3 and all(h.find_next_sibling("tr") is v for h, v in zip(heads, datas))
    assert [(h.select_one("td.jl-vtitle").get_text(), h.select_one("var").get_text()) for h in heads] == [
        ("input", "a"), ("input", "c"), ("output of 0 (broadcast_in_dim)", "c")]
    assert heads[0].select_one(".jl-path").get_text() == "arg"                      # a's Python path
    assert [[td.get_text() for td in h.select("td")[2:]] for h in heads] == [["(16,)", "float32"]] * 3
    assert [e["data-edit"] for e in datas[0].select(".jl-edit button")] == ["nan", "zero", "scale", "eps"]
    x = jnp.arange(-1., 11.)                            # a histogram from HIST_MIN (9) elements on
    bad = _soup(StateViewOf(trace(jnp.log, x), x, done=True).panel()["values"])
    assert [s.get_text() for s in bad.select("pre.jl-val .jl-bad")] == ["nan", "-inf"] * 2   # last output, result
    title = bad.select_one("tr.jl-value-data img.jl-pic-hist")["alt"]        # of the 10 finite ones: the picture's
    assert title.startswith("histogram of the finite values: ") and sum(map(int, title.split(": ")[1].split())) == 10
    assert bad.select_one("tr.jl-value-data svg.jl-hist") is None     # drawn once: the picture holds the histogram
    assert bad.select_one("tr.jl-value.jl-nonfinite") is not None


def StateViewOf(program, *args, done: bool = False):
    from jaxprlens.views.debugger.state import StateView
    st = program.stepper(*args)
    if done:
        st.run()
    return StateView(st, "en")


def test_a_replay_recorded_after_live_edits_makes_them_again_and_marks_what_they_changed():
    """Issue 30 item 4: edits made live are made again in the recording, where they were made: the edited
    value and those it changed are marked in the replay as live, and the replay says that a new edit needs the
    kernel."""
    from jaxprlens.views.debugger.panel import PIECES
    d = debugger("func10")
    plain = d.replay()
    d.press("step")                                               # eqn 0 wrote c
    name = state(d)["values"][-1]["items"][0]["name"]
    d.press("edit", var=name, op="nan")
    d.press("step")
    live = state(d)
    rec = d.replay()
    assert rec is not plain and d.replay() is rec                # recorded again once, for these edits
    steps = [replayed(rec, k) for k in range(len(rec["steps"]))]
    at1 = steps[1]
    assert at1["changed"] == [name] and "nan" in at1["values"][-1]["items"][0]["preview"]
    assert [n[0] for n in at1["notes"]] == ["edit"]
    edit_note = _soup(rec["pieces"][rec["steps"][1]["p"][PIECES.index("notes")]]).select_one(".jl-edit-kernel")
    assert edit_note.get_text() == "editing a value needs the kernel (this is a recorded replay)"
    assert rec["steps"][2]["changed_eqns"] == ["0", "1"] == d.view.changed_eqns()
    shown = lambda groups: [(g["title"], [(i["name"], i["stats"]) for i in g["items"]]) for g in groups  # noqa: E731 - a one-line reader
                            if g["title"] != "input"]                # the replay stores no inputs
    assert shown(steps[2]["values"]) == shown(live["values"]) == [("output of 1 (add)", [("d", "NaN 16")])]
    assert steps[2]["changed"] == ["d"] and set(live["changed"]) == {"c", "d"}    # live shows c as an input too
    assert "nan" in steps[-1]["values"][-1]["items"][0]["preview"]           # the result the edit reached
    assert all("changed_eqns" not in s for s in plain["steps"]) and not any(
        "jl-changed" in piece for piece in plain["pieces"])
    assert rec["note"] is None


def test_a_replay_says_which_edits_its_run_never_reached():
    d = debugger("func10")
    d.press("step")
    d.press("edit", var="c", op="zero")
    edit = d.stepper.edits[0]
    rec = record(d.stepper.program, *SEEDS["func10"][1], edits=[edit._replace(where=(99,))])
    assert note(rec) == "the edited run never reached where these edits were made: c"
    assert not rec["capped"] and not any("jl-changed" in piece for piece in rec["pieces"])
    zh = record(d.stepper.program, *SEEDS["func10"][1], lang="zh", edits=[edit._replace(where=(99,))])
    assert note(zh) == "修改后的运行没有到达这些修改所在的位置：c"


# ---------------------------------------------------------------- a kernel interrupt during a move

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
    d.press("continue", seq="k:1")
    sent = [m["content"] for m in d.sent[before:]]
    reports, answer = [m for m in sent if "seq" not in m], [m for m in sent if m.get("seq") == "k:1"]
    assert len(reports) >= 10 and answer                  # (the end's comparison with jax.jit comes after it)
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
