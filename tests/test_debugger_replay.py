"""The recorded replay (views/debugger/replay.py): what a run records and where it stops, the condition grammar
it carries, the edits it makes again."""
import json
import re
import shutil
import subprocess
from importlib.resources import files
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from debugging import debugger, note, read, soup, state, stored_data
from seeds import SEEDS

from jaxprlens.engine.stepper import CONDITIONS
from jaxprlens.model import trace
from jaxprlens.views.debugger.replay import record, replay_html, stored_size

pytestmark = pytest.mark.usefixtures("fake_comm")     # every widget here records what it sends (conftest.py)


def replayed(rec: dict, k: int) -> dict:
    """Step ``k`` of a recorded replay, its panel put together from the shared pieces and read back."""
    from jaxprlens.views.debugger.panel import PIECES
    step = rec["steps"][k]
    return read(dict(step, view={name: rec["pieces"][i] for name, i in zip(PIECES, step["p"])}))


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


def test_replay_html_cannot_be_closed_by_data():
    data = {"steps": [], "frames": {}, "x": "</script><b>"}
    html = replay_html(data, "en")
    assert "</script><b>" not in html and stored_data(html) == data       # base64: no `<` to close the tag


def test_the_replay_makes_only_the_rows_its_run_reached():
    def chain(x):
        for i in range(1500):
            x = jnp.sin(x) if i % 2 else x + 0.5
        return x

    stored = record(trace(chain, jnp.ones(3)), max_steps=3)
    frame = stored["frames"][""]
    assert frame["n"] == 1500 and len(frame["rows"]) == 3 + 20 and frame["more"].startswith("1477 more")


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
    stored = stored_data(replay_html(record(trace(fn, *args), max_steps=3), "en"))
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
    edit_note = soup(rec["pieces"][rec["steps"][1]["p"][PIECES.index("notes")]]).select_one(".jl-edit-kernel")
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
