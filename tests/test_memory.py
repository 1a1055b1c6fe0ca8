"""engine/memory.py and views/compiled/memory.py:
bytes live along the program, its peak, a backward pass's residuals."""
import base64
import contextlib
import io
import re

import jax
import jax.ad_checkpoint
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
import pytest
from bs4 import BeautifulSoup

import jaxprlens
from jaxprlens.present.i18n import si
from jaxprlens.present.nouns import eqn_text
from jaxprlens.engine.fusion import compiled_memory, with_compiled
from jaxprlens.engine.memory import memory
from jaxprlens.views.compiled.memory import MemoryView
from seeds import SEEDS


def _bytes(aval):
    return int(np.prod(aval.shape)) * np.dtype(aval.dtype).itemsize


def independent_live(closed) -> list:
    """Liveness on the raw jaxpr, one equation at a time: after equation i, the inputs and constants, and every
    value made so far that a later equation reads or the program returns."""
    j = closed.jaxpr
    always = list(j.invars) + list(j.constvars)
    outs = {v for v in j.outvars if isinstance(v, jex.Var)}
    live = []
    for i in range(len(j.eqns)):
        later = {a for e in j.eqns[i + 1:] for a in e.invars if isinstance(a, jex.Var)}
        made = [v for e in j.eqns[:i + 1] for v in e.outvars]
        kept = set(always) | {v for v in made if v in later or v in outs}
        live.append(sum(_bytes(v.aval) for v in kept))
    return live


def block_forward():
    nnx = pytest.importorskip("flax.nnx")
    from libraries import _block
    graphdef, state = _block(nnx)
    return (lambda state, x: nnx.merge(graphdef, state)(x)), (state, jnp.ones((2, 5, 16)))


@pytest.mark.parametrize("name", list(SEEDS))
def test_live_bytes_match_an_independent_count_on_the_seeds(name):
    fn, args = SEEDS[name]
    program = jaxprlens.trace(fn, *args)
    m = memory(program)
    assert m.live == independent_live(program.jaxpr)
    assert m.peak == max(m.live) and m.live[m.peak_eqn] == m.peak and m.live.index(m.peak) == m.peak_eqn


def test_live_bytes_of_a_transformer_block():
    fn, args = block_forward()
    program = jaxprlens.trace(fn, *args)
    m = memory(program)
    assert len(m.live) == len(program.eqns) > 50
    assert m.live == independent_live(program.jaxpr)
    assert sum(v.bytes for v in m.at_peak) == m.peak        # what is live at the peak adds up to it
    named = {v.path for v in m.at_peak if v.kind == "input"}
    assert "args[1]" in named or any(p and "x" in p for p in named)


def mlp(params, x):
    for w in params:
        x = jnp.tanh(x @ w)
    return jnp.sum(x)


PARAMS, X = [jnp.ones((4, 4)) * .1] * 3, jnp.ones((2, 4))


def saved(fn):
    """``print_saved_residuals``'s lines: [(type, what)]."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        jax.ad_checkpoint.print_saved_residuals(fn, PARAMS, X)
    return [tuple(line.split(" ", 1)) for line in out.getvalue().splitlines()]


def test_residuals_are_the_values_print_saved_residuals_lists():
    res = memory(jaxprlens.trace(jax.grad(mlp), PARAMS, X)).residuals
    theirs = saved(mlp)
    made = [(v.type, v.eqn) for v in res if v.kind == "value"]
    program = jaxprlens.trace(jax.grad(mlp), PARAMS, X)
    assert [(ty, program.find(e).primitive) for ty, e in made] == [
        (ty, re.match(r"output of (\w+)", what).group(1)) for ty, what in theirs if what.startswith("output")]
    # inputs: those the backward pass of grad (argnums=0) reads; JAX's list has every argument
    ours_in = {v.path for v in res if v.kind == "input"}
    assert ours_in <= {re.match(r"from the argument (\S+)", w).group(1) for _, w in theirs if "argument" in w}


def test_checkpoint_keeps_fewer_residuals():
    plain = memory(jaxprlens.trace(jax.grad(mlp), PARAMS, X))
    remat = memory(jaxprlens.trace(jax.grad(jax.checkpoint(mlp)), PARAMS, X))
    assert len(remat.residuals) == len(saved(jax.checkpoint(mlp))) < len(plain.residuals)   # 4 < 8 on JAX 0.12
    assert remat.residual_bytes < plain.residual_bytes
    assert {v.kind for v in remat.residuals} == {"input"}


def test_no_backward_pass_no_residuals():
    assert memory(jaxprlens.trace(mlp, PARAMS, X)).residuals is None


def test_the_compiled_numbers_are_xla_s():
    program = jaxprlens.trace(mlp, PARAMS, X)
    stats = jax.jit(mlp).lower(PARAMS, X).compile().memory_analysis()
    c = compiled_memory(program)
    assert (c["argument"], c["output"], c["temp"]) == (stats.argument_size_in_bytes, stats.output_size_in_bytes,
                                                       stats.temp_size_in_bytes)


def test_the_compiled_numbers_of_a_linear_solve_are_xla_s():
    def solved(a, b):
        return jnp.sum(jnp.linalg.solve(a, b) ** 2)
    args = (jnp.array([[3., 1.], [1., 2.]]), jnp.array([1., 2.]))
    stats = jax.jit(solved).lower(*args).compile().memory_analysis()
    c = compiled_memory(jaxprlens.trace(solved, *args))
    assert c is not None and (c["argument"], c["output"]) == (stats.argument_size_in_bytes,
                                                               stats.output_size_in_bytes)


def test_a_compile_that_fails_is_said_not_left_out(monkeypatch):
    import jaxprlens.engine.fusion as fusion

    def failing(program, device=None):
        raise AttributeError("'tuple' object has no attribute 'solve'")
    monkeypatch.setattr(fusion, "_scoped", failing)
    program = jaxprlens.trace(mlp, PARAMS, X)
    m = with_compiled(memory(program), program)
    assert m.compiled is None and m.compile_failed == "AttributeError: 'tuple' object has no attribute 'solve'"
    assert MemoryView(program).text().splitlines()[-2:] == [
        "XLA's compiled program (memory_analysis): not shown, its compile failed (AttributeError: 'tuple' object "
        "has no", "attribute 'solve')"]
    zh = MemoryView(program, lang="zh").text().splitlines()
    assert zh[-2].startswith("XLA 编译后的程序（memory_analysis）：未显示") and zh[-1] == "'solve'）"


def f(x):
    return jnp.sum(jnp.sin(x) * 2 + jnp.cos(x))


def test_the_text_is_exact():
    view = jaxprlens.trace(f, jnp.ones(8)).memory()
    assert view.text() == """\
memory along the program: bytes live after each top-level equation (inputs and constants, and results still to
be read or returned)
peak 96 B after equation 2 (d:f32[8] = cos a)
0:64 B 1:64 B 2:96 B 3:64 B 4:36 B
inputs and constants: 32 B
live at the peak: a:f32[8] 32 B (input x), c:f32[8] 32 B (from equation 1), d:f32[8] 32 B (from equation 2)
XLA's compiled program (memory_analysis): arguments 32 B + outputs 4 B + temporaries 0 B = 36 B
They differ: this count keeps every value of the jaxpr from the equation that makes it to its last reader; XLA
reuses a buffer once its value's last reader has run, fuses equations so their intermediate values are never
stored, and may rematerialise a cheap value instead of keeping it."""


@pytest.mark.skipif(tuple(int(x) for x in jax.__version__.split(".")[:2]) < (0, 12),
                    reason="the exact names and residuals as JAX 0.12 traces them")
def test_the_text_in_chinese_with_residuals():
    text = jaxprlens.trace(jax.grad(jax.checkpoint(mlp)), PARAMS, X).memory(lang="zh").text()
    assert ("残差：反向过程读取的 4 个前向值（224 B）：ba:f32[4,4] 64 B（输入 params[0]）、bb:f32[4,4] 64 B（输入 "
            "params[1]）、bc:f32[4,4] 64 B（输入 params[2]）、bd:f32[2,4] 32 B（输入 x）").replace(" ", "") in \
        "".join(text.split())             # wrapped at 110 columns: a break between characters, or at a space


def test_the_chart_is_an_svg_picture_with_the_peak_marked():
    view = jaxprlens.trace(f, jnp.ones(8)).memory()
    soup = BeautifulSoup(view.html(), "html.parser")
    assert not soup.find_all(["script", "style"])
    img = soup.find("img")
    assert img["alt"] == "live bytes over 5 equations, peak 96 B after equation 2"
    svg = base64.b64decode(img["src"].split(",", 1)[1]).decode()
    pts = [tuple(map(float, p.split(","))) for p in
           BeautifulSoup(svg, "html.parser").find("polyline")["points"].split()]
    ys = [y for _, y in pts]
    assert len(pts) == 10 and min(ys) == ys[4] == ys[5]        # the third equation's step is the highest
    assert BeautifulSoup(svg, "html.parser").find("circle") is not None
    assert not BeautifulSoup(svg, "html.parser").find_all(["text", "rect"])   # no words, no card: no theme's colour
    labels = soup.select(".jl-mem-chart > span.jl-mem-label")                 # the words: HTML, in the page's colour
    assert [x.get_text() for x in labels] == ["0 B", "96 B", "equation 0", "4", "peak 96 B after equation 2"]
    assert all("position:absolute" in x["style"] and "color" not in x["style"] for x in labels)


def test_hovering_the_chart_tells_each_equation_and_sizes_keep_their_unit():
    view = jaxprlens.trace(f, jnp.ones(8)).memory()
    soup = BeautifulSoup(view.html(), "html.parser")
    strips = soup.select(".jl-mem-chart > .jl-mem-hover > span")
    assert [s["data-eqn"] for s in strips] == ["0", "1", "2", "3", "4"]          # one per equation, in order
    assert strips[2]["title"] == "96 B live after equation 2 (d:f32[8] = cos a)"
    assert "position:absolute" in soup.select_one(".jl-mem-hover")["style"]       # over the picture, in percent
    assert all("\u00a0B" in p.get_text() for p in soup.select("p")[1:3])        # "64 B" never wraps inside
    assert "\u00a0" not in view.text()
    zh = BeautifulSoup(jaxprlens.trace(f, jnp.ones(8)).memory(lang="zh").html(), "html.parser")
    assert zh.select(".jl-mem-hover > span")[2]["title"] == "方程 2（d:f32[8] = cos a）之后存活 96 B"


def test_the_magic_option(ip):
    view = ip.run_cell_magic("jaxpr", "--memory", "import jax.numpy as jnp\n"
                             "def g(x):\n    return jnp.sin(x) * 2\ng(jnp.ones(3))")
    assert isinstance(view, MemoryView)
    assert view.live == [24, 24] and view.peak_eqn == 0


def test_a_program_with_no_equation():
    view = jaxprlens.trace(lambda x: x, jnp.ones(3)).memory()
    assert view.live == [] and view.peak == 12 and view.peak_eqn is None
    assert view.text().splitlines()[2:4] == ["inputs and constants: 12 B", "live at the peak: a:f32[3] 12 B (input x)"]


# ---------------------------------------------------------------- folded by the table's calls

@pytest.fixture(scope="module")
def train_step():
    """The flax tutorial's nnx.jit train step (a 2-block transformer, optax adamw), its memory view."""
    from libraries import nnx_jit_train_step
    fn, args = nnx_jit_train_step()
    program = jaxprlens.trace(fn, *args)
    return program, MemoryView(program)


def test_a_train_step_s_memory_folds_by_the_table_s_calls_with_each_call_s_peak_and_residuals(train_step):
    from jaxprlens.model.program import Eqn
    from jaxprlens.views.table.table import Table, stored
    program, view = train_step
    m, tree = view.memory, view.fold.layout.tree
    live = independent_live(program.jaxpr)
    assert view.fold.folded and Table(program).layout.folded
    made = {v.name: int(v.eqn) for v in m.residuals if v.eqn is not None}
    for g in tree.every[1:]:                   # a call's peak and residuals, from the jaxpr's own liveness
        first, last = tree.span(g)
        s = view.stretch(g)
        assert s.peak == max(live[first:last + 1]) and live[s.peak_eqn] == s.peak and first <= s.peak_eqn <= last
        assert [v.name for v in s.residuals] == [n for n, i in made.items() if first <= i <= last]
    top = view.fold.items                      # the top rows and the inputs share out the residuals
    inputs = [v for v in m.residuals if v.eqn is None]
    assert sum(view.stretch(c).residual_bytes for c in top) + sum(v.bytes for v in inputs) == m.residual_bytes
    assert max(view.stretch(c).peak for c in top) == m.peak
    page = view.html()
    soup = BeautifulSoup(page, "html.parser")
    rows = soup.select('div.jl-callfold[data-jl-view="fold"] tbody tr.jl-grow')
    calls = [c for c in top if not isinstance(c, Eqn)]
    assert [r["data-group"] for r in rows] == [c.id for c in calls]
    detail = rows[0].select_one(".jl-detail").get_text().replace("\xa0", " ")     # 1.2\xa0kB: kept whole
    assert detail == view.call_words(calls[0])
    forward = calls[0]
    while len(forward.children) == 1 and forward.groups:
        forward = forward.groups[0]
    inside = BeautifulSoup("<table>" + "".join(stored(page)["groups"][forward.id]) + "</table>", "html.parser")
    assert [r["data-group"] for r in inside.select("tr.jl-grow")] == [g.id for g in forward.groups]
    own = [e for e in forward.children if isinstance(e, Eqn)]
    assert [r["data-eqn"] for r in inside.select("tr.jl-row")] == [e.id for e in own]
    for r, e in zip(inside.select("tr.jl-row"), own):
        note = r.select_one("td.jl-note").get_text().replace("\xa0", " ")
        assert note.startswith(f"{si(live[e.index], 'B')} live after")


def test_a_train_step_s_memory_text_is_indented_by_call(train_step):
    program, view = train_step
    lines = view.text().splitlines()
    at = lines.index("By call, as the table folds the program: each call's peak (the most bytes live after one of "
                     "its equations) and")
    forward = view.fold.items[0]
    s = view.stretch(forward)
    assert lines[at + 1:at + 4] == [
        "its residuals (the values it makes that the backward pass reads)",
        f"  ▸  train_step (forward) › nnx.value_and_grad(…) › loss_fn  {forward.size} equations",
        f"       peak {si(s.peak, 'B')} after equation {s.peak_eqn}, residuals: {len(s.residuals)} values, "
        f"{si(s.residual_bytes, 'B')}"]
    assert "    ▸  model · Transformer  283 equations" in lines
    m = view.memory                                           # the optimizer's update of every leaf, cut
    eqn = eqn_text(program.eqns[m.peak_eqn])
    assert len(eqn) > 60 and lines[2] == f"peak {si(m.peak, 'B')} after equation {m.peak_eqn} ({eqn[:59]}…)"
    assert max(len(line) for line in lines) <= 110
    last = view.fold.items[-1].groups[0].groups[-1]          # the update's last call
    assert lines[-2:] == ["    ▸  apply_updates  33 equations", f"         {view.call_words(last)}"]


def test_a_small_program_s_memory_stays_flat():
    view = MemoryView(jaxprlens.trace(lambda x: jnp.sin(x) * 2, jnp.ones(4)), compiled=False)
    assert not view.fold.folded and view.needs == () and "jl-callfold" not in view.html()
