"""The debugger's frame folded by the program's Python calls (views/debugger/fold.py) and Over call
(engine/landings.py ``over_call``, ``call_landings``), on the nnx tutorial's jitted train step (issue 28)."""
from __future__ import annotations

import re

import jax
import numpy as np
import pytest

from jaxprlens.engine.jitcheck import compiled_outputs
from jaxprlens.engine.landings import call_end, over_call, state_key
from jaxprlens.engine.stepper import Stepper
from jaxprlens.model.calls import call_tree
from jaxprlens.model.tracing import trace
from jaxprlens.views.debugger.state import StateView, frame_view
from jaxprlens.views.debugger.replay import record

from fakecomm import command, reply
from libraries import nnx_jit_train_step

FWD = "train_step~fwd/update_context_manager_wrapper/loss_fn/__call__"     # model(tokens), in the forward pass
OPEN_PATH = ["train_step (forward)", "nnx.value_and_grad(…)", "loss_fn", "model · Transformer", "embed · Embed"]


@pytest.fixture(scope="module")
def step():
    fn, args = nnx_jit_train_step()
    return trace(fn, *args), args


def top_level(body: str) -> list:
    """The ids of the calls a body holds at its own level (the bodies inside are empty until drawn)."""
    return re.findall(r'<div class="jl-fgroup" data-group="([^"]*)">', body)


def test_the_nnx_step_frame_opens_with_its_calls_and_the_first_equation_on_the_first_screen(step):
    p, args = step
    assert len(p.eqns) > 1000
    view = StateView(Stepper(p, *args), "en")
    state = view.state()
    assert state["crumbs"] == ["top"] + OPEN_PATH + ["eqn 0"]
    assert state["call"] == FWD + "/__call__.1"
    frame = frame_view(p, "en", count=1000, groups=view.call_path())
    # the frame's own body: the forward pass, the backward pass, the optimizer update, one row each
    assert top_level(frame["body"]) == ["train_step~fwd", "train_step~bwd", "train_step"]
    assert "jl-fchunk" not in frame["body"]               # the jitted step's body makes no equation of its own
    assert [g for g, _ in frame["groups"]] == [g.id for g in view.call_path()]
    model = dict(frame["groups"])[FWD]
    assert top_level(model) == [FWD + "/__call__.1", FWD + "/__call__.2", FWD + "/__call__.3", FWD + "/attend"]
    assert "blocks[1] · Block" in model and "137 equations" in model
    assert dict(frame["groups"])[FWD + "/__call__.1"] == '<div class="jl-fchunk" data-from="0" data-count="1"></div>'
    # the snapshot shown without a script: the open calls' rows, eqn 0 (current), the other calls: 12 rows, not 1,118
    table = view.table_html()
    rows = re.findall(r'<tr class="(jl-grow|jl-row[^"]*)"[^>]*>(?:<td>([^<]*)</td>)?', table)
    assert rows[:6] == [("jl-grow", "▾")] * 5 + [("jl-row jl-hl", "0")]
    assert rows == [("jl-grow", "▾")] * 5 + [("jl-row jl-hl", "0")] + [("jl-grow", "▸")] * 6
    names = re.findall(r'<b class="jl-gname">([^<]*)</b> <span class="jl-type">([^<]*)</span>', table)
    assert names == [(n, c) for n, c in zip(OPEN_PATH, ["327 equations"] * 3 + ["283 equations", "7 equations"])] + [
        ("blocks[0] · Block", "137 equations"), ("blocks[1] · Block", "137 equations"),
        ("self.embed.attend", "2 equations"), ("_cross_entropy", "44 equations"),
        ("train_step (backward)", "299 equations"), ("train_step (optimizer update)", "607 equations")]
    assert "more rows" not in table


def test_over_call_lands_past_the_calls_last_equation_with_the_engines_values(step):
    p, args = step
    tree = call_tree(p)
    st = Stepper(p, *args)
    st.step()                                  # past the embedding: eqn 1 is in blocks[0]
    block = tree.group_of(p.eqns[1])
    assert StateView(st, "en").crumbs()[-2:] == ["blocks[0] · Block", "eqn 1"]
    last = tree.span(block)[1]
    assert call_end(p, 1) == last + 1 == 133
    over_call(st)
    assert st.frame.pc == last + 1 and st.last_eqn is p.eqns[last]
    assert StateView(st, "en").crumbs()[-2:] == ["blocks[1] · Block", "eqn 133"]
    ref = Stepper(p, *args)
    for _ in range(last + 1):
        ref.step()
    for e in p.eqns[:last + 1]:               # every value the call wrote, as plain steps write it
        for v in e.outvars:
            if v in ref.env:
                np.testing.assert_array_equal(np.asarray(st.env[v]), np.asarray(ref.env[v]))
    st.back()                                  # one move: Back undoes it whole
    assert st.frame.pc == 1
    moves = 0
    while not st.done:                         # over call to the end: far fewer moves than equations
        over_call(st)
        moves += 1
    assert moves < 200 < len(p.eqns)
    ref.run()                                  # every value (the new parameters too) as plain steps make it
    made = [v for e in p.eqns for v in e.outvars if v in ref.env]
    assert len(made) > 1000
    for v in made:
        np.testing.assert_array_equal(np.asarray(st.env[v]), np.asarray(ref.env[v]))
    out = jax.tree_util.tree_leaves(st.outputs)             # the loss, as jax.jit computes it: within rounding
    jitted = [x for x in compiled_outputs(p, st.args) if np.shape(x) == () and x.dtype == np.float32]
    assert len(out) == len(jitted) == 1 and np.isclose(float(out[0]), float(jitted[0]), rtol=1e-5)


def test_over_call_from_the_last_call_ends_the_run_and_past_the_end_is_none(step):
    p, args = step
    st = Stepper(p, *args)
    tree = call_tree(p)
    lo, hi = tree.span(tree.find("train_step/_check_grads_wrapper/apply_updates"))
    n = len(p.eqns)
    assert (hi, call_end(p, lo)) == (n - 2, n - 1)
    assert call_end(p, n - 1) == n and call_end(p, n) is None     # the last one: optimizer.update's own
    view = StateView(st, "en")
    while st.frame.pc < lo:
        over_call(st)
    assert st.frame.pc == lo and view.crumbs()[-3:] == ["optimizer.update", "apply_updates", f"eqn {lo}"]
    over_call(st)
    assert st.frame.pc == n - 1 and view.crumbs()[-2:] == ["optimizer.update", f"eqn {n - 1}"]
    over_call(st)
    assert st.done and view.state()["call"] is None and view.crumbs() == ["done"]


def test_the_replay_lands_over_a_call_where_the_live_move_does(step):
    p, args = step
    data = record(p, *args, lang="en")
    steps = data["steps"]
    keys, st = [], Stepper(p, *args)
    keys.append(state_key(st))
    for _ in steps[1:]:
        st.step_into()
        keys.append(state_key(st))
    checked = 0
    for k, s in enumerate(steps):
        if not s.get("call"):
            continue
        land = s["c"] if "c" in s else s["o"] if "o" in s else k + 1      # no c: where Step lands
        live = Stepper(p, *args)
        for _ in range(k):
            live.step_into()
        over_call(live)
        if land is None:                       # past the recording: the live move goes further
            assert len(state_key(live)) <= len(keys[k]) and live.frame.pc > s["pc"]
        else:
            assert state_key(live) == keys[land], k
        checked += 1
        if checked >= 6:
            break
    assert checked == 6
    frame = data["frames"][""]
    opened = [g for g, _ in frame["groups"]]
    assert opened[:5] == ["train_step~fwd", "train_step~fwd/update_context_manager_wrapper",
                          "train_step~fwd/update_context_manager_wrapper/loss_fn", FWD, FWD + "/__call__.1"]
    assert "btn_call" in data["labels"]


def test_the_live_debugger_sends_a_calls_body_once_when_a_move_goes_into_it(step):
    p, args = step
    d = p.debugger()
    sent: list = []
    d.send = lambda msg, buffers=None: sent.append(msg)
    first = d.press("ready")
    assert [g for g, _ in first["frame"]["groups"]] == [g.id for g in d.view.call_path()]
    moved = d.press("step")
    assert [g for g, _ in moved["bodies"]["groups"]] == [FWD + "/__call__.2"]
    assert moved["state"]["call"] == FWD + "/__call__.2" and moved["state"]["view"]["crumbs"].endswith(
        "<span>blocks[0] · Block</span> › <span>eqn 1</span>")
    over = d.press("call")
    assert over["state"]["pc"] == 133 and [g for g, _ in over["bodies"]["groups"]] == [FWD + "/__call__.3"]
    again = d.press("back")
    assert "bodies" not in again and again["state"]["pc"] == 1
    peek = d.press("body", path="", group="train_step~bwd")
    assert [g for g, _ in peek["bodies"]["groups"]] == ["train_step~bwd"]
    assert d.press("body", path="", group="<made up>") == {}


def test_a_frame_of_more_calls_than_rows_can_show_stays_unfolded():
    """A chain of 200 one-line calls (``lambda v: v * y``): a row per call would be no shorter than the rows."""
    import jax.numpy as jnp
    from jaxprlens.views.debugger.fold import MAX_CALLS

    def chain(x, y):
        ops = (jnp.sin, lambda v: v * y)
        for i in range(400):
            x = ops[i % 2](x)
        return x

    x = jnp.ones(4)
    p = trace(chain, x, x)
    assert len(call_tree(p).root.walk()[1].groups) > MAX_CALLS
    view = StateView(Stepper(p, x, x), "en")
    frame = frame_view(p, "en", count=400, groups=view.call_path())
    assert "jl-fgroup" not in frame["body"] and frame["body"].count("jl-fchunk") == 2 and "groups" not in frame
    assert view.state()["call"] is None and view.crumbs() == ["eqn 0"]


def test_the_folded_frames_first_message_sends_the_rows_its_open_calls_show_and_a_step_brings_the_rest(step, fake_comm):
    """Issue 27: the nnx step's first message held the frame's first 1,000 rows (394 kB) while the folded frame
    shows one; now the chunks its open calls' boxes show, and the rows of a call a move opens come with it."""
    from jaxprlens.views.debugger.state import CHUNK_ROWS
    p, args = step
    d = p.debugger(*args)
    sent = d.comm.custom
    frame = reply(command(d, "ask", {"do": "ready"}))["frame"]
    boxes = [int(i) for h in [frame["body"]] + [b for _, b in frame["groups"]]
             for i in re.findall(r'class="jl-fchunk" data-from="(\d+)"', h)]
    assert frame["from"] == 0 and len(frame["rows"]) == CHUNK_ROWS             # the one chunk they show
    assert boxes and {b // CHUNK_ROWS for b in boxes} == {0}
    assert d.comm.bytes[-1] < 150_000                       # as the kernel writes it, anywidget's reply around it
    have = set(range(CHUNK_ROWS))
    for k in range(1, 400):                   # Steps and Over calls through the forward pass into other chunks
        n = len(sent)
        command(d, "ask", {"do": "call" if k % 3 == 0 else "step"})
        for m in sent[n:]:
            rows = m.get("response", m).get("rows")
            if rows:
                have.update(range(rows["from"], rows["from"] + len(rows["rows"])))
        pc = d.stepper.frame.pc
        if d.stepper.depth == 1 and pc >= 2 * CHUNK_ROWS:
            break
    assert pc >= 2 * CHUNK_ROWS and pc in have        # the current row came with the move
    assert len(have) < pc + CHUNK_ROWS


def test_a_bodys_pieces_are_data_its_html_and_the_rows_it_shows_are_both_read_from(step):
    """``FrameFold.pieces``: calls and runs of rows; the body's HTML draws them and ``chunks_shown`` counts the chunks
    their placeholders show, with no HTML read back."""
    from jaxprlens.model.calls import Group
    from jaxprlens.views.debugger.fold import CHUNK_ROWS, frame_fold
    p, args = step
    view = StateView(Stepper(p, *args), "en")
    fold = frame_fold(p, "en")
    assert fold.folded()
    path = view.call_path()
    for g in [None, *path]:
        body = fold.body_html(g)
        pieces = fold.pieces(g)
        assert top_level(body) == [x.id for x in pieces if isinstance(x, Group)]
        shown = {int(i) // CHUNK_ROWS for i in re.findall(r'class="jl-fchunk" data-from="(\d+)"', body)}
        assert fold.chunks_shown([g]) == shown
    assert fold.chunks_shown([None, *path]) == {0}             # eqn 0, in the innermost open call
    assert fold.cols == "".join(re.findall(r"<colgroup>.*</colgroup>", view.table_html()))
