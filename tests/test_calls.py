"""The call tree (calls.py): the Python calls that tracing inlined (names: test_callnames, paths: test_paths)."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jaxprlens.model.calls import CallTree, call_tree, phase_of
from jaxprlens.model import Var, trace
from jaxprlens.present.words import group_label, group_summary

D = 16


# ---------------------------------------------------------------- a 6-block transformer toy (also used by
# tests/browser/test_folding.py and benchmarks/bench_fold.py)

def layer_norm(x, g):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean((x - m) ** 2, -1, keepdims=True)
    return g * (x - m) / jnp.sqrt(v + 1e-5)


def attention(x, p):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    s = jax.nn.softmax(q @ k.T / 4.0)
    return (s @ v) @ p["wo"]


def mlp(x, p):
    return jax.nn.gelu(x @ p["w1"]) @ p["w2"]


def block(x, p):
    x = x + attention(layer_norm(x, p["g1"]), p)
    return x + mlp(layer_norm(x, p["g2"]), p)


def model_loss(params, x):
    for p in params:
        x = block(x, p)
    return jnp.mean(x ** 2)


def make_params(n=6, d=D, seed=0):
    r = np.random.RandomState(seed)
    out = []
    for _ in range(n):
        p = {k: r.randn(d, d).astype("f4") * 0.1 for k in ("wq", "wk", "wv", "wo")}
        p["w1"] = r.randn(d, 2 * d).astype("f4") * 0.1
        p["w2"] = r.randn(2 * d, d).astype("f4") * 0.1
        p["g1"], p["g2"] = np.ones(d, "f4"), np.ones(d, "f4")
        out.append(p)
    return out


def transformer(blocks=6, grad=True):
    """The traced program: ``jax.grad(model_loss)`` (or the loss itself) of ``blocks`` blocks."""
    fn = jax.grad(model_loss) if grad else model_loss
    return trace(fn, make_params(blocks), np.ones((8, D), "f4"))


@pytest.fixture(scope="module")
def loss():
    return transformer(grad=False)


@pytest.fixture(scope="module")
def grad():
    return transformer(grad=True)


def _kids(g):
    return [c.function for c in g.groups]


# ---------------------------------------------------------------- the tree

def test_six_blocks_each_with_attention_mlp_layer_norm(loss):
    tree = CallTree(loss)
    (top,) = tree.root.groups
    assert top.function == "model_loss" and top.id == "model_loss"
    blocks = top.groups
    assert [b.function for b in blocks] == ["block"] * 6
    assert [(b.call, b.calls) for b in blocks] == [(i, 6) for i in range(1, 7)]
    assert [b.id for b in blocks] == [f"model_loss/block.{i}" for i in range(1, 7)]
    for b in blocks:
        assert _kids(b) == ["layer_norm", "attention", "layer_norm", "mlp"]
        assert b.site.where == "test_calls.py" and b.site.text == "x = block(x, p)"
        assert group_summary(b) == "layer_norm ×2, attention, mlp"
    assert group_label(blocks[2]) == "block (call 3 of 6)"
    assert group_label(blocks[2], "zh") == "block（第 3 次调用，共 6 次）"
    assert [e.primitive for e in top.own] == ["integer_pow", "reduce_sum", "div"]      # jnp.mean(x ** 2)
    assert sum(len(g.own) for g in tree.root.walk()) == len(loss.eqns)              # every eqn once
    assert tree.root.eqns == loss.eqns                                                # in program order
    ids = [g.id for g in tree.root.walk()]
    assert len(set(ids)) == len(ids)                                                  # one id per call
    assert [g.id for g in blocks[0].groups] == ["model_loss/block.1/layer_norm.1", "model_loss/block.1/attention",
                                                "model_loss/block.1/layer_norm.2", "model_loss/block.1/mlp"]
    assert group_label(blocks[0].groups[2]) == "layer_norm (call 2 of 2)"


def test_forward_and_backward_told_apart(grad):
    tree = CallTree(grad)
    fwd, bwd = tree.root.groups
    assert (fwd.id, fwd.phase, bwd.id, bwd.phase) == ("model_loss", "forward", "model_loss~bwd", "backward")
    assert group_label(fwd) == "model_loss (forward)" and group_label(bwd, "zh") == "model_loss（反向）"
    assert all(phase_of(e) == "forward" for e in fwd.eqns)
    assert all(phase_of(e) == "backward" and "transpose(" in e.name_stack for e in bwd.eqns)
    assert [b.function for b in bwd.groups] == ["block"] * 6
    # the backward pass runs the blocks last first; each is numbered as the forward call it reverses
    assert [b.call for b in bwd.groups] == [6, 5, 4, 3, 2, 1]
    assert group_label(bwd.groups[0]) == "block (call 6 of 6, backward)"
    assert bwd.groups[0].id == "model_loss~bwd/block.6~bwd"
    for b in fwd.groups:
        assert _kids(b) == ["layer_norm", "attention", "layer_norm", "mlp"]
    for b in bwd.groups:
        assert sorted(_kids(b)) == ["attention", "layer_norm", "layer_norm", "mlp"]
        assert _kids(b)[0] == "mlp"                                                  # reversed order
    assert len(tree.root.eqns) == len(grad.eqns) > 1000


def _crossing_by_hand(program, group):
    inside = {id(e) for e in group.eqns}
    made_inside = {v for e in group.eqns for v in e.outvars}
    used_outside = {a for e in program.eqns if id(e) not in inside for a in e.invars if isinstance(a, Var)}
    used_outside |= {a for a in program.outvars if isinstance(a, Var)}
    ins = {a for e in group.eqns for a in e.invars if isinstance(a, Var) and a not in made_inside}
    return ins, made_inside & used_outside


def test_crossing_values_exactly(grad):
    tree = call_tree(grad)
    checked = 0
    for g in tree.root.walk():
        lo, hi = tree.span(g)                                    # a call's equations are consecutive
        assert g.eqns == grad.eqns[lo:hi + 1]
        ins, outs = _crossing_by_hand(grad, g)
        assert set(g.inputs) == ins and len(g.inputs) == len(ins)
        assert set(g.outputs) == outs and len(g.outputs) == len(outs)
        checked += 1
    assert checked > 60
    attn = tree.find("model_loss/block.1/attention")
    assert [v.type for v in attn.inputs][:1] == ["f32[8,16]"] and len(attn.outputs) >= 1
    assert tree.find("model_loss").outputs                 # residuals cross to the backward pass


def test_sub_jaxprs_have_their_own_tree():
    def helper(c):
        return jnp.sin(c) * 2.

    def f(x):
        return lax.fori_loop(0, 3, lambda i, c: helper(c) + 1., x)

    p = trace(f, jnp.ones(4))
    loop = next(e for e in p.eqns if e.subs)
    body = next(s for s in loop.subs if s.key == "body").program
    kids = [g.function for g in call_tree(body).root.walk()]
    assert "helper" in kids and "<lambda>" in kids


def test_small_and_frameless_programs():
    p = trace(lambda x: x, 1.)
    assert CallTree(p).root.groups == [] and CallTree(p).root.eqns == []
    p = trace(jnp.sin, 1.)                               # made inside JAX: no user frame at all
    tree = CallTree(p)
    assert len(tree.root.own) == len(p.eqns) and tree.root.groups == []
    with pytest.raises(ValueError, match="no inlined calls"):
        tree.find("nope")
    tree = CallTree(trace(model_loss, make_params(2), np.ones((8, D), "f4")))
    with pytest.raises(ValueError, match=r"unknown group 'x' \(must be one of \['model_loss', "):
        tree.find("x")


def test_one_tree_per_program(loss):
    assert call_tree(loss) is call_tree(loss)


# ---------------------------------------------------------------- the table folded by the same groups

def _groups(page):
    """A folded table's stored rows of each call, each row parsed (the stored fragments, views.table.table.stored)."""
    from bs4 import BeautifulSoup
    from jaxprlens.views.table.table import stored
    return {g: [BeautifulSoup(f"<table>{h}</table>", "html.parser").select_one("tr") for h in items]
            for g, items in stored(page)["groups"].items()}


def test_table_of_a_big_program_is_folded_by_calls(grad, loss):
    page = grad.table().html()
    tree = call_tree(grad)
    assert re.findall(r'<tr class="jl-grow" data-group="([^"]+)"', page) == ["model_loss", "model_loss~bwd"]
    assert page.count('class="jl-row"') == 0                     # no equation row until a call is opened
    fwd = tree.find("model_loss")
    assert f"{fwd.size} equations" in page and f"in: {fwd.inputs[0].name}:f32[8,16] " in page
    assert f"+{len(fwd.inputs) - 4} more" in page and f"+{len(fwd.outputs) - 4} more" in page
    groups = _groups(page)
    assert set(groups) == {g.id for g in tree.root.walk() if g.parent is not None}
    for g in tree.root.walk():
        if g.parent is None:
            continue
        items = groups[g.id]
        assert len(items) == len(g.children)
        for tr, child in zip(items, g.children):
            if tr.get("data-group"):                             # a call: its id, label, count, site, values
                said = [tr["data-group"], tr.select_one(".jl-gname").get_text(), tr.select_one(".jl-type").get_text()]
                assert said == [child.id, group_label(child, phases=False), f"{child.size} equations"]
                assert tr.select_one(".jl-src").get_text() == f"test_calls.py line {child.site.line}: {child.site.text}"
            else:                                                # an equation: its row, as the HTML writes it
                assert tr["data-eqn"] == child.id and tr["data-primitive"] == child.primitive
        rows = [tr for tr in items if tr.get("data-eqn")]
        srcs = [tr.select_one(".jl-src") for tr in rows]
        assert all(not (a and b and a.get_text() == b.get_text()) for a, b in zip(srcs, srcs[1:])), g.id
    attention = [tr for tr in groups["model_loss/block.1/attention"] if tr.get("data-eqn")]   # a line once a run
    assert 0 < sum(1 for tr in attention if tr.select_one(".jl-src")) < len(attention)
    assert all(tr.has_attr("data-same") != bool(tr.select_one(".jl-src")) for tr in attention)
    block3 = groups["model_loss/block.3"]
    assert [tr.select_one(".jl-gname").get_text() for tr in block3 if tr.get("data-group")] == [
        "layer_norm (call 1 of 2)", "attention", "layer_norm (call 2 of 2)", "mlp"]
    zh = grad.table(lang="zh").html()
    assert "model_loss（前向）" in zh and "输入：" in zh and "方程按 trace 时内联的 Python 调用折叠" in zh
    top = re.findall(r'<tr class="jl-grow" data-group="([^"]+)"', loss.table().html())   # 345 equations
    assert top == [f"model_loss/block.{i}" for i in range(1, 7)]   # below the single call, its own 3 rows too
    assert loss.table().html().count('class="jl-row"') == 3


def test_small_programs_and_programs_without_calls_stay_open():
    small = transformer(blocks=2, grad=False)                    # 115 equations: the table as before
    small_html = small.table().html()
    assert 'class="jl-grow"' not in small_html and small_html.count('class="jl-row"') == len(small.eqns)

    def chain(x, y):                                             # 600 equations from one function
        for _ in range(300):
            x = jnp.sin(x) * y
        return x
    flat = trace(chain, jnp.ones(4), jnp.ones(4)).table().html()
    assert 'class="jl-grow"' not in flat and flat.count('class="jl-row"') == 600


def test_calls_of_a_one_line_helper_in_a_loop_are_told_apart():
    def norm(x):
        return x / jnp.sqrt(jnp.mean(x * x))

    def layer(x, w):
        return norm(jnp.tanh(x @ w))                            # one line: the line alone cannot tell calls apart

    def net(ws, x):
        for w in ws:
            x = layer(x, w)
        return jnp.sum(x)

    tree = CallTree(trace(jax.grad(net), [np.full((3, 3), 0.1, "f4")] * 4, np.ones(3, "f4")))
    fwd, bwd = tree.root.groups
    assert [(g.function, g.call, g.calls) for g in fwd.groups] == [("layer", i, 4) for i in range(1, 5)]
    assert [g.call for g in bwd.groups] == [4, 3, 2, 1]
    assert all([c.function for c in g.groups] == ["norm"] for g in fwd.groups + bwd.groups)


def test_adopting_children_makes_a_groups_calls_and_depths_again():
    """``groups`` and ``depth`` are made once; a group given new children (the folds build top down) makes
    them again from the new ones, never keeps the old answer."""
    from jaxprlens.model.calls import Group
    top, a, b = Group("top", "", None), Group("a", "", None), Group("b", "", None)
    assert top.groups == [] and a.depth == 0               # read before: cached
    top.adopt([a])
    a.adopt([b])
    assert top.groups == [a] and a.parent is top and a.depth == 1 and b.depth == 2
    top.adopt([b])                                          # moved up a level
    assert top.groups == [b] and b.parent is top and b.depth == 1


# ---------------------------------------------------------------- a loop's iterations are not calls (loops.py)

def predict(params, x):            # the tutorials' MLP: the loop is the function's first statement
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


def mse(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


def dense(x, w):
    return jnp.tanh(x @ w)


def stack(ws, x):                  # every equation is made from one line of the traced function
    for w in ws:
        x = dense(x, w)
    return x


def doubled(x):
    for _ in range(2):
        x = x * 2 + 1
    return x


def twice(x):
    for _ in range(2):
        x = doubled(x)
    return x



def test_a_loop_inside_a_function_is_one_call_forward_and_backward():
    params = [(jnp.ones((4, 4)), jnp.ones(4))] * 3
    x = y = jnp.ones((2, 4))
    tree = call_tree(trace(mse, params, x, y))
    assert [g.id for g in tree.every] == ["", "mse", "mse/predict"]
    assert len(tree.by_id["mse/predict"].eqns) == 12             # 3 iterations of dot, add, tanh (+ a cast)
    tree = call_tree(trace(jax.grad(mse), params, x, y))
    assert [g.id for g in tree.every] == ["", "mse", "mse/predict", "mse~bwd", "mse~bwd/predict~bwd"]


def test_calls_from_a_loop_of_the_traced_function_are_calls_even_when_its_frame_is_shared():
    tree = call_tree(trace(stack, [jnp.ones((3, 3))] * 3, jnp.ones(3)))
    assert [g.id for g in tree.every] == ["", "dense.1", "dense.2", "dense.3"]
    assert [len(tree.by_id[f"dense.{i}"].eqns) for i in (1, 2, 3)] == [2, 2, 2]


def test_a_loop_calling_a_function_with_a_loop_of_its_own():
    def inner(x):
        for _ in range(3):
            x = jnp.cos(x) + 1
        return x

    def outer(x):
        for _ in range(2):
            x = inner(x) * 2
        return x

    def top(x):
        return jnp.sin(outer(x))

    tree = call_tree(trace(top, jnp.ones(3)))
    assert [g.id for g in tree.every] == ["", "top", "top/outer", "top/outer/inner.1", "top/outer/inner.2"]
    assert [len(tree.by_id[f"top/outer/inner.{i}"].eqns) for i in (1, 2)] == [6, 6]


def test_the_one_case_a_traceback_cannot_tell():
    # a function whose whole body is a loop, called twice in a row from one line with nothing traced between:
    # the positions are those of one call's iterations (loops.py says so); it reads as one call
    tree = call_tree(trace(twice, jnp.ones(3)))
    assert [g.id for g in tree.every] == ["", "doubled"]
    assert len(tree.by_id["doubled"].eqns) == 8


def _halves(x):
    a, b = jnp.sin(x).reshape(2, -1)        # unpacked after the reshape, at a position before it
    return a * b


def test_a_tuple_unpacked_after_its_call_is_not_a_second_call():
    """``a, b = split(...)`` as a function's first line (mctx's ``muzero_policy``): one call, not "call 1 of 2"."""
    p = trace(lambda x: _halves(x) + 1.0, jnp.ones(4))
    assert [e.primitive for e in p.eqns][:2] == ["sin", "reshape"]
    assert [group_label(g) for g in call_tree(p).root.walk()[1:]] == ["<lambda>", "_halves"]
    twice = trace(lambda x: _halves(_halves(x)), jnp.ones(4))
    assert [group_label(g) for g in call_tree(twice).root.walk()[1:]] == ["<lambda>",
        "_halves (call 1 of 2)", "_halves (call 2 of 2)"]
