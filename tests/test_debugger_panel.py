"""The debugger's panel (views/debugger/panel.py): one rendering for the snapshot, the live widget and the
replay."""
import re

import jax.numpy as jnp
import pytest
from debugging import soup
from seeds import SEEDS

from jaxprlens.model import trace
from jaxprlens.views.debugger.replay import record

pytestmark = pytest.mark.usefixtures("fake_comm")     # every widget here records what it sends (conftest.py)


def _unstyled(text: str) -> str:
    """HTML without its inline alignment (the snapshot's, for pages where none of our CSS runs)."""
    return re.sub(r' style="[^"]*"', "", text)


def StateViewOf(program, *args, done: bool = False):
    from jaxprlens.views.debugger.state import StateView
    st = program.stepper(*args)
    if done:
        st.run()
    return StateView(st, "en")


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
    snapshot = soup(StateViewOf(p, *args).html())
    assert _unstyled(str(snapshot.select_one("table.jl-values"))) == str(soup(first["values"]).table)
    assert [s.get_text() for s in snapshot.select(".jl-crumbs span")] == ["top", "eqn 0"]
    d.press("step")                                   # eqn 1 (add a c) next: its inputs, and eqn 0's output c
    values = soup(d.sent[-1]["content"]["state"]["view"]["values"])
    heads, datas = values.select("tr.jl-value"), values.select("tr.jl-value-data")
    assert len(heads) == len(datas) == 3 and all(h.find_next_sibling("tr") is v for h, v in zip(heads, datas))
    assert [(h.select_one("td.jl-vtitle").get_text(), h.select_one("var").get_text()) for h in heads] == [
        ("input", "a"), ("input", "c"), ("output of 0 (broadcast_in_dim)", "c")]
    assert heads[0].select_one(".jl-path").get_text() == "arg"                      # a's Python path
    assert [[td.get_text() for td in h.select("td")[2:]] for h in heads] == [["(16,)", "float32"]] * 3
    assert [e["data-edit"] for e in datas[0].select(".jl-edit button")] == ["nan", "zero", "scale", "eps"]
    x = jnp.arange(-1., 11.)                            # a histogram from HIST_MIN (9) elements on
    bad = soup(StateViewOf(trace(jnp.log, x), x, done=True).panel()["values"])
    assert [s.get_text() for s in bad.select("pre.jl-val .jl-bad")] == ["nan", "-inf"] * 2   # last output, result
    title = bad.select_one("tr.jl-value-data img.jl-pic-hist")["alt"]        # of the 10 finite ones: the picture's
    assert title.startswith("histogram of the finite values: ") and sum(map(int, title.split(": ")[1].split())) == 10
    assert bad.select_one("tr.jl-value-data svg.jl-hist") is None     # drawn once: the picture holds the histogram
    assert bad.select_one("tr.jl-value.jl-nonfinite") is not None
