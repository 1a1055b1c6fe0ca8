"""Real models (flax.nnx, flax.linen, optax, equinox, diffrax) and multi-device maps through every entry point:
the text is JAX's printer's, table and graph build, the stepper (run, and random step/into/out/back mixes) and
``run()`` give ``jax.jit``'s outputs. The cases and checks are in tests/libraries.py."""
import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from libraries import CASES, CHECKS, CHECKS_OF, DEVICE_CASES, STEPS, Case

HERE = os.path.dirname(os.path.abspath(__file__))
_cases: dict = {}


def traced(name) -> Case:
    if name not in _cases:
        # JAX keeps the jaxprs of the jitted library helpers it traced (optax's tree math, equinox's filters),
        # their equations' source lines with them: traced first by another test module in this process, they
        # would name that module's lines.  A notebook meets the same: a re-traced step keeps the lines of the
        # first trace.  Each case starts from empty caches, as a fresh kernel does.
        jax.clear_caches()
        _cases[name] = Case(name)         # skips when the case's library is not installed
    return _cases[name]


@pytest.fixture(scope="module", autouse=True)
def eight_devices():
    """Every check on the multi-device cases, in a child process with 8 simulated CPU devices, started first
    so that it runs beside the in-process cases."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.Popen([sys.executable, "libraries.py", *DEVICE_CASES], env=env, cwd=HERE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outcomes = {}

    def wait():
        if not outcomes:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err[-3000:]
            outcomes.update(json.loads(out.splitlines()[-1]))
        return outcomes
    yield wait
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


# cases whose checks took 17-21 s each on a loaded 2-core machine (3-8 s quiet): tracing the model is the cost
SLOW = {"transformer_block_grad", "nnx_mlp_train_step"}


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow if n in SLOW else ())
                                  for n in CASES if n not in DEVICE_CASES])
def test_real_model(name, check):
    CHECKS[check](traced(name))


@pytest.mark.parametrize("name", [n for n in STEPS if n not in DEVICE_CASES])
def test_a_jitted_step_as_a_reader_meets_it(name):
    """linen's ResNet block with BatchNorm state, an optax multi_transform step, equinox's filter_jit step, a
    Pallas kernel in interpret mode (libraries.check_step; the in_shardings step runs it on 8 devices)."""
    CHECKS_OF[name]["step"](traced(name))


KNOWN: dict = {}    # (case, check) -> pytest mark for a known failure; none today


@pytest.mark.parametrize("name,check", [pytest.param(n, c, marks=KNOWN.get((n, c), ()))
                                        for n in DEVICE_CASES for c in CHECKS_OF.get(n, CHECKS)])
def test_on_eight_devices(eight_devices, name, check):
    outcome = eight_devices()[name][check]
    if outcome.startswith("skip: "):
        pytest.skip(outcome.removeprefix("skip: "))
    assert outcome == "ok", outcome


# ---------------------------------------------------------------- call groups named by what the user wrote

def _labels(tree, phase=None) -> list:
    from jaxprlens.present.words import group_label
    return [group_label(g, phases=False) for g in tree.root.walk() if g.parent is not None
            and (phase is None or g.phase == phase)]


def test_nnx_groups_named_by_attribute_path_and_class():
    from jaxprlens.model.calls import call_tree
    tree = call_tree(traced("transformer_block_grad").program)
    fwd = _labels(tree, "forward")
    for name in ("m · Block", "ln1 · LayerNorm", "attn · MultiHeadAttention", "attn.query · LinearGeneral",
                 "attn.out · LinearGeneral", "ln2 · LayerNorm", "up · Linear", "down · Linear",
                 "m.embed.attend", "dot_product_attention"):      # a plain function keeps its name
        assert name in fwd, (name, fwd)
    assert not any(x.startswith("__call__") for x in _labels(tree))
    bwd = _labels(tree, "backward")               # the backward pass names each call as the forward one
    assert "attn.key · LinearGeneral" in bwd and "down · Linear" in bwd


def test_train_step_top_level_is_forward_backward_update():
    from jaxprlens.model.calls import call_tree
    from jaxprlens.present.words import group_label
    for name in ("nnx_mlp_train_step", "linen_mlp_train_step"):
        tree = call_tree(traced(name).program)
        top = tree.root.groups
        assert [group_label(g) for g in top] == ["train_step (forward)", "train_step (backward)",
                                                 "train_step (optimizer update)"], name
        assert [group_label(g, "zh") for g in top][2] == "train_step（优化器更新）"
        assert len({g.id for g in tree.root.walk()}) == len(list(tree.root.walk()))     # ids stay unique
    tree = call_tree(traced("nnx_mlp_train_step").program)
    assert {"m · MLP", "hidden · Linear", "out · Linear", "optimizer.update"} <= set(_labels(tree))
    tree = call_tree(traced("linen_mlp_train_step").program)     # linen names its submodules Dense_0, ...
    assert {"model · MLP", "Dense_0 · Dense", "Dense_1 · Dense"} <= set(_labels(tree, "forward"))
    assert {"Dense_0 · Dense", "Dense_1 · Dense"} <= set(_labels(tree, "backward"))


def test_equinox_groups_named_by_class():
    from jaxprlens.model.calls import call_tree
    program = traced("equinox_mlp_train_step").program        # filter_jit: one pjit, seen through
    assert program.outer is not None and [e.primitive for e in program.outer.eqns] == ["jit"]
    tree = call_tree(program)
    labels = _labels(tree)
    assert "MLP" in labels and "layers[-1] · Linear" in labels          # ``self.layers[-1](x)``
    # ``for i, layer in enumerate(self.layers[:-1]): layer(x)``: the loop's list, indexed by the call
    assert [x for x in _labels(tree, "backward") if "Linear" in x] == [
        "layers[-1] · Linear", "layers[1] · Linear", "layers[0] · Linear"]
    assert not any(x.startswith("__call__") for x in labels)
    assert [group_label_of(g) for g in tree.root.groups][-1] == "train_step (optimizer update)"


def group_label_of(g):
    from jaxprlens.present.words import group_label
    return group_label(g)


@pytest.fixture(scope="module")
def train2():
    """The 2-block nnx transformer's train step with optax adam (issue 19)."""
    from libraries import nnx_transformer_train_step
    fn, args = nnx_transformer_train_step(2)
    import jaxprlens
    return jaxprlens.trace(fn, *args)


def test_train_step_opens_on_forward_backward_update(train2):
    import re
    from bs4 import BeautifulSoup
    from jaxprlens.model.calls import call_tree
    tree = call_tree(train2)
    fwd = _labels(tree, "forward")
    assert {"m · Transformer", "embed · Embed", "blocks[0] · Block", "blocks[1] · Block",
            "blocks[0].attn · MultiHeadAttention", "blocks[1].attn.query · LinearGeneral",
            "blocks[1].ln2 · LayerNorm"} <= set(fwd), fwd
    graph = train2.graph()
    assert [g.id for g in graph._draw.closed] == ["train_step~fwd", "train_step~bwd", "train_step"]
    assert "update_context_manager_wrapper" not in graph.source          # a library's wrappers: seen through
    assert "optimizer.update · " in graph.source and "m · Transformer" in graph.source
    width = float(re.search(r'<svg width="([\d.]+)pt"', graph.svg()).group(1))
    assert width * 4 / 3 <= 970                                  # legend and all, at 1:1
    costed = train2.graph(cost="flops")
    width = float(re.search(r'<svg width="([\d.]+)pt"', costed.svg()).group(1))
    assert width * 4 / 3 <= 970 and "train_step (optimizer update) · " in costed.source
    page = BeautifulSoup(train2.table()._repr_mimebundle_()["text/html"], "html.parser")
    assert [b.get_text() for b in page.select("tr.jl-grow b.jl-gname")] == [
        "train_step (forward)", "train_step (backward)", "train_step (optimizer update)"]


# ---------------------------------------------------------------- a jitted step, seen through (issue 28)

@pytest.fixture(scope="module")
def jitted_step():
    from libraries import nnx_jit_train_step
    import jaxprlens
    fn, args = nnx_jit_train_step(2)
    return fn, args, jaxprlens.trace(fn, *args)


def test_a_jitted_step_opens_on_its_body_named_by_python_paths(jitted_step):
    from bs4 import BeautifulSoup
    from jaxprlens.model.calls import call_tree
    from jaxprlens.present.words import group_label
    fn, args, p = jitted_step
    assert [e.primitive for e in p.outer.eqns] == ["jit"] and len(p.eqns) > 100
    assert str(p) == str(p.outer)                        # print / --text: JAX's own text of the call
    heads = {v.path.split(".", 1)[0] for v in p.invars}
    assert heads == {"model", "optimizer", "tokens", "targets"}
    assert "model.blocks[0].attn.query.kernel.value" in [v.path for v in p.invars]
    # nnx returns its whole state: each returned value named by the input it is the new value of
    updated = [u for u in p.out_updates if u]
    assert len(updated) == len(p.outvars) - 1 and all(u.startswith(("model.", "optimizer.")) for u in updated)
    assert [group_label(g) for g in call_tree(p).root.groups] == [
        "train_step (forward)", "train_step (backward)", "train_step (optimizer update)"]
    page = BeautifulSoup(p.table()._repr_mimebundle_()["text/html"], "html.parser")
    seen = page.select_one(".jl-seen")           # names and options set as code, no raw backticks
    assert seen.get_text().startswith("train_step is one jit equation")
    assert [c.get_text() for c in seen.select("code")] == ["train_step", "%%jaxpr --outer", "--text"]
    graph_seen = BeautifulSoup(p.graph()._repr_mimebundle_()["text/html"], "html.parser").select_one(".jl-seen")
    assert str(graph_seen.decode_contents()) == str(seen.decode_contents())     # the graph's note: the same one
    sig = page.select_one("table.jl-sig")       # inputs and results: one folded tree each, not 200 rows
    assert [tr["class"] for tr in sig.select(":scope > tr")] == [["jl-invar", "jl-sigtree"],
                                                                ["jl-outvar", "jl-sigtree"]]
    results = sig.select_one("tr.jl-outvar").get_text()
    assert "model" in results and "optimizer" in results
    rows = [tr for tr in page.select("table.jl-eqns tr") if "jl-more-note" not in tr.get("class", [])][1:]
    assert rows[0]["class"] == ["jl-grow"] and "train_step (forward)" in rows[0].get_text()   # first: a call


def test_a_jitted_step_s_sources_name_the_user_s_line(jitted_step):
    from jaxprlens.model.program import in_library
    _, _, p = jitted_step
    sources = [e.source for e in p.walk() if e.source is not None]
    own = [s for s in sources if s.where == "libraries.py"]     # this test's own file is the user's code
    # (main had 53 of 1,337; a few of optax's equations are traced with no frame of the user's at all)
    assert len(own) >= 0.9 * len(sources), {s.where for s in sources} - {"libraries.py"}
    via = [s for s in sources if s.via is not None]
    assert via and all(s.via.where.endswith(".py") for s in via)        # flax's line kept after the user's
    assert any(s.via.where in ("linear.py", "attention.py", "normalization.py") for s in via)
    assert " › " in str(via[0])
    assert not in_library(__file__)


def test_a_jitted_step_steps_and_runs_as_jit_does(jitted_step):
    fn, args, p = jitted_step
    got = p.stepper().run().outputs
    ran = p.run(repeat=1).outputs
    want = fn(*args)                          # nnx.jit updates the model in place: called last
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ran), np.asarray(want), rtol=1e-5)


def test_a_jitted_step_s_graph_opens_on_its_calls(jitted_step):
    import re
    _, _, p = jitted_step
    graph = p.graph()
    assert [g.id for g in graph._draw.closed] == ["train_step~fwd", "train_step~bwd", "train_step"]
    src = graph.source
    assert src.count("->") <= 80 and not re.search(r'label="input \d', src)
    assert len(re.findall(r'^\t"grp-[^"]+" \[label=', src, re.M)) == 3               # the calls, as boxes
    inputs = [lab.split("\\n") for lab in re.findall(r'"p/arg\d+" \[label="([^"]*)"', src)]
    n_model = sum(v.path.startswith("model.") for v in p.invars)
    n_opt = sum(v.path.startswith("optimizer.") for v in p.invars)
    assert [x[0] for x in inputs] == ["model", "optimizer", "tokens", "targets"]      # by path head, in order
    assert inputs[0][1] == f"{n_model} values" and inputs[1][1] == f"{n_opt} values"
    # nnx returns the whole state: one returned-state node per argument, never an edge per value
    results = [lab.split("\\n") for lab in re.findall(r'"p/out\d+" \[label="([^"]*)"', src)]
    assert sorted(x[0] for x in results) == ["model", "optimizer", "out"]
    assert "dashed" not in src
    for view in graph.views()[:3]:           # what a click on forward, backward, update opens: a screenful
        assert view.source.count("->") <= 80 and not re.search(r'label="(from )?input \d', view.source)
    page = graph.html()
    assert "<code>train_<wbr>step</code> is one jit equation" in page     # a name may break after its _
    assert 'data-l-notdrawn="' in page
    assert "program › program" not in page and "(1 nodes)" not in src


def test_outer_shows_the_jit_equation_itself(jitted_step):
    import jaxprlens
    fn, args, _ = jitted_step
    p = jaxprlens.trace(fn, *args, see_through=False)
    assert p.outer is None and [e.primitive for e in p.eqns] == ["jit"]


def test_a_jitted_step_s_results_are_what_the_call_returns(jitted_step):
    """The debugger's results and run()'s outputs are what ``train_step(...)`` returns (the loss, ``out``),
    not every result of the body (nnx's state comes back too, into the model, not to the caller)."""
    _, _, p = jitted_step
    from jaxprlens.views.debugger.state import StateView
    st = p.stepper().run()
    assert p.returned_paths == ["out"] and len(p.out_paths) == len(p.outvars) > 100
    ran = p.run(repeat=1)
    assert ran.out_paths == ["out"] and len(ran.flat_outputs) == 1
    results = StateView(st, "en").values()[-1]
    assert [item.name for item in results["items"]] == ["out"]


def test_an_optimistix_root_find_names_its_namedtuple_sub_jaxprs_as_the_printer_does():
    """optimistix reaches lineax's ``linear_solve`` primitive, whose ``static`` param is a tuple mixing a jaxpr with
    other values: its binders get the printer's names (they were ``?89``, ``?91`` ...), and the root steps right."""
    jax = pytest.importorskip("jax")
    optx = pytest.importorskip("optimistix")
    import jaxprlens

    def root(y0):
        return optx.root_find(lambda y, args: y - jax.numpy.cos(y), optx.Newton(1e-6, 1e-6), y0).value
    y0 = jax.numpy.array(1.0)
    p = jaxprlens.trace(root, y0)
    names = [v.name for e in p.walk() for v in [*e.outvars, *e.invars] if hasattr(v, "raw")]
    names += [v.name for e in p.walk() for s in e.subs for v in [*s.program.invars, *s.program.constvars]]
    assert names and not [n for n in names if n.startswith("?")]
    solves = [e for e in p.walk() if e.primitive == "linear_solve"]
    assert solves and all(s.key == "static0" and s.program.eqns for e in solves for s in e.subs)
    np.testing.assert_allclose(np.asarray(p.stepper().run().outputs), np.asarray(jax.jit(root)(y0)), rtol=1e-6)


# ---------------------------------------------------------------- every library family, named as the user wrote it

def _line(text) -> int:
    """The line of tests/libraries.py holding ``text`` (the user's line a source note names)."""
    with open(os.path.join(HERE, "libraries.py")) as f:
        return next(i for i, x in enumerate(f, 1) if text in x)


def _named(name, *args):
    import libraries
    from jaxprlens.model.calls import call_tree
    from jaxprlens.present.words import group_label
    jax.clear_caches()
    import jaxprlens
    fn, fargs = getattr(libraries, name)(*args)
    p = jaxprlens.trace(fn, *fargs)
    subs = {}
    for e in p.walk():
        for s in e.subs:
            labels = [group_label(g) for g in call_tree(s.program).root.walk() if g.parent is not None]
            if labels:
                subs.setdefault(e.primitive, labels)
    return p, [group_label(g) for g in call_tree(p).root.walk() if g.parent is not None], subs


def test_nnx_lifted_transforms_read_as_the_user_s_calls():
    """``nnx.jit`` over ``nnx.scan`` of ``nnx.remat``: one forward, one backward, one update; flax's wrappers
    (``JitFn``, ``ScanFn``) are no groups; the remat body's forward and backward each counted once."""
    p, labels, subs = _named("nnx_scan_remat_train_step")
    assert labels == [
        "train_step (forward)", "nnx.value_and_grad(…) (forward)", "loss_fn (forward)", "model · Model (forward)",
        "forward (forward)", "head · Linear (forward)", "optax.softmax_cross_entropy_with_integer_labels (forward)",
        "train_step (backward)", "nnx.value_and_grad(…) (backward)", "loss_fn (backward)",
        "optax.softmax_cross_entropy_with_integer_labels (backward)", "model · Model (backward)",
        "head · Linear (backward)", "forward (backward)",
        "train_step (optimizer update)", "optimizer.update", "update_fn", "apply_updates"]
    assert subs["scan"] == ["layer · Block", "norm · LayerNorm", "_compute_stats", "_normalize", "linear · Linear"]
    assert subs["remat2"] == [
        "layer · Block (forward)", "norm · LayerNorm (forward)", "_compute_stats (forward)", "_normalize (forward)",
        "linear · Linear (forward)", "layer · Block (backward)", "linear · Linear (backward)",
        "norm · LayerNorm (backward)", "_normalize (backward)", "_compute_stats (backward)"]
    line = _line("return x + nnx.gelu")
    sources = {str(e.source) for e in p.walk() if e.source is not None}
    assert f"libraries.py line {line}: return x + nnx.gelu(self.linear(self.norm(x))) › linear.py:422 " \
           "y = self.dot_general(" in sources        # the user's line first, flax's after it


def test_penzai_layers_are_modules_named_by_their_place():
    _, labels, _ = _named("penzai_sequential")
    assert labels == ["sublayers[0] · Linear", "contract", "sublayers[1] · Elementwise", "sublayers[2] · Linear",
                      "contract"]


def test_penzai_s_transformer_folds_by_its_layers():
    """penzai's own llama-like transformer: each layer a group named by its place in the model (it was one flat
    group citing one line)."""
    from jaxprlens.model.calls import call_tree
    from jaxprlens.present.words import group_label
    p, labels, _ = _named("penzai_transformer")
    top = call_tree(p).root.groups
    assert [group_label(g) for g in top] == ["model · TransformerLM"]
    assert [group_label(g) for g in top[0].groups] == ["body · Sequential"]
    body = top[0].groups[0]
    assert [group_label(g) for g in body.groups] == [
        "body.sublayers[0] · EmbeddingLookup", "body.sublayers[1] · ConstantRescale",
        "body.sublayers[2] · Sequential", "body.sublayers[3] · EmbeddingDecode"]
    assert [group_label(g) for g in body.groups[2].groups] == [
        "body.sublayers[2].sublayers[0] · Residual", "body.sublayers[2].sublayers[1] · Residual",
        "body.sublayers[2].sublayers[2] · RMSStandardize", "body.sublayers[2].sublayers[3] · Linear"]
    assert [group_label(g) for g in body.groups[2].groups[0].groups[0].groups] == [
        "body.sublayers[2].sublayers[0].delta.sublayers[0] · Sequential",
        "body.sublayers[2].sublayers[0].delta.sublayers[1] · Attention"]
    assert len(labels) == 54


def test_penzai_s_transformer_table_opens_on_its_layers_cited_from_the_user_s_line():
    """The folded table's top level: no row named after penzai's own helper (``pz.nx.arange``, one equation,
    shown as that equation), and each call penzai's code made cites the user's line first, penzai's after it."""
    from jaxprlens.present.rows import group_data
    from jaxprlens.model.program import count_eqns
    from jaxprlens.views.table.layout import Layout
    p, _, _ = _named("penzai_transformer", 3)
    layout = Layout(p, count_eqns(p))
    assert layout.folded
    tree = layout.tree
    rows = [group_data(c, "en")[1:4] if hasattr(c, "site") else c.primitive for c in layout.items]
    user = "libraries.py line 710: return model(tokens).unwrap(\"seq\", \"vocabulary\")"
    assert rows == ["iota", ["body · Sequential", "418 equations",
                             user + " › model_parts.py line 150: return self.body(tokens, "
                             "token_positions=token_positions, **side_inputs)"]]
    assert group_data(tree.find("__call__/__call__/__call__.1"), "en")[1:4] == [
        "body.sublayers[0] · EmbeddingLookup", "9 equations",
        user + " › grouping.py line 77: value = layer(value, **side_inputs)"]


def test_haiku_blocks_made_in_a_loop_are_named_by_the_loop():
    p, labels, _ = _named("haiku_blocks_in_a_loop")
    assert labels == ["forward", "blocks[0] · Block", "Linear", "blocks[1] · Block", "Linear", "blocks[2] · Block",
                      "Linear", "blocks[3] · Block", "Linear", "Linear"]
    block, head = (f"libraries.py line {_line(t)}: {t}" for t in (
        "return x + jax.nn.relu(hk.Linear(x.shape[-1])(x))", "return hk.Linear(CLASSES)(x)"))
    assert sorted({str(e.source) for e in p.walk() if e.source is not None}) == [
        block, f"{block} › basic.py:180 out = jnp.dot(inputs, w, precision=precision)",
        f"{block} › basic.py:184 b = jnp.broadcast_to(b, out.shape)", f"{block} › basic.py:185 out = out + b",
        f"{head} › basic.py:180 out = jnp.dot(inputs, w, precision=precision)",
        f"{head} › basic.py:184 b = jnp.broadcast_to(b, out.shape)", f"{head} › basic.py:185 out = out + b"]


def test_one_mctx_search_is_one_call():
    """mctx unpacks ``rng_key, a, b = split(rng_key, 3)`` after the split: not a second call."""
    _, labels, subs = _named("mctx_muzero_search")
    assert labels == ["search", "mctx.muzero_policy"]
    assert subs["scan"] == ["recurrent_fn"]


def test_a_library_installed_outside_site_packages_is_a_library(tmp_path):
    """``pip install --target`` (or a folder on PYTHONPATH): found by where Python imported it from, so the
    source notes keep the user's line first and its call reads as written."""
    from jaxprlens.model.sources import in_library, library_of
    p, labels, _ = _named("installed_elsewhere", tmp_path)
    try:
        assert labels == ["model", "tinylib.dense (call 1 of 2)", "tinylib.dense (call 2 of 2)"]
        first, second = _line("h = tinylib.dense(x, w)"), _line("return tinylib.dense(h, w).sum()")
        assert sorted({str(e.source) for e in p.walk() if e.source is not None}) == [
            f"libraries.py line {first}: h = tinylib.dense(x, w) › __init__.py:5 y = x @ w",
            f"libraries.py line {first}: h = tinylib.dense(x, w) › __init__.py:6 return jnp.tanh(y)",
            f"libraries.py line {second}: return tinylib.dense(h, w).sum()",
            f"libraries.py line {second}: return tinylib.dense(h, w).sum() › __init__.py:5 y = x @ w",
            f"libraries.py line {second}: return tinylib.dense(h, w).sum() › __init__.py:6 return jnp.tanh(y)"]
        assert library_of(str(tmp_path / "tinylib" / "__init__.py")) == "tinylib"
        assert not in_library(__file__) and library_of(jax.__file__) == "jax"
    finally:
        sys.modules.pop("tinylib", None)


def test_a_package_on_pythonpath_is_a_library_and_the_user_s_own_files_are_not(tmp_path, monkeypatch):
    import importlib
    import libraries
    from jaxprlens.model.sources import library_of
    (tmp_path / "onpath").mkdir()
    (tmp_path / "onpath" / "__init__.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "onpath" / "inner.py").write_text("def g(x):\n    return x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.import_module("onpath.inner")
        assert library_of(str(tmp_path / "onpath" / "inner.py")) == "onpath"
        # the same folder put on the path by an editable install (``pip install -e``): the user's source
        from jaxprlens.model import sources
        monkeypatch.setattr(sources, "_editable_roots", lambda: frozenset({str(tmp_path)}))
        library_of.cache_clear()
        assert library_of(str(tmp_path / "onpath" / "inner.py")) == ""
    finally:
        library_of.cache_clear()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("onpath.inner", None)
        sys.modules.pop("onpath", None)
    # the user's: a module beside the working folder (this suite's), a cell, code no module holds
    assert library_of(libraries.__file__) == "" and library_of("/tmp/ipykernel_4242/123456.py") == ""
    assert library_of(str(tmp_path / "never_imported.py")) == ""
