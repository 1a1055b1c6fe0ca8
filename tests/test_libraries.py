"""Real models (flax.nnx, flax.linen, optax, equinox, diffrax) and multi-device maps through every entry point:
the text is JAX's printer's, table and graph build, the stepper (run, and random step/into/out/back mixes) and
``run()`` give ``jax.jit``'s outputs. The cases and checks are in tests/libraries.py."""
import json
import os
import subprocess
import sys

import pytest

from libraries import CASES, CHECKS, DEVICE_CASES, Case

HERE = os.path.dirname(os.path.abspath(__file__))
_cases: dict = {}


def traced(name) -> Case:
    if name not in _cases:
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


KNOWN: dict = {}    # (case, check) -> pytest mark for a known failure; none today


@pytest.mark.parametrize("name,check", [pytest.param(n, c, marks=KNOWN.get((n, c), ()))
                                        for n in DEVICE_CASES for c in CHECKS])
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
    assert {"m · MLP", "hidden · Linear", "out · Linear", "Optimizer.update"} <= set(_labels(tree))
    tree = call_tree(traced("linen_mlp_train_step").program)     # linen names its submodules Dense_0, ...
    assert {"model · MLP", "Dense_0 · Dense", "Dense_1 · Dense"} <= set(_labels(tree, "forward"))
    assert {"Dense_0 · Dense", "Dense_1 · Dense"} <= set(_labels(tree, "backward"))


def test_equinox_groups_named_by_class():
    from jaxprlens.model.calls import call_tree
    program = traced("equinox_mlp_train_step").program        # filter_jit: one pjit, the step inside
    tree = call_tree(program.eqns[0].subs[0].program)
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
    assert "Optimizer.update · " in graph.source and "m · Transformer" in graph.source
    width = float(re.search(r'<svg width="([\d.]+)pt"', graph.svg()).group(1))
    assert width * 4 / 3 <= 970                                  # legend and all, at 1:1
    costed = train2.graph(cost="flops")
    width = float(re.search(r'<svg width="([\d.]+)pt"', costed.svg()).group(1))
    assert width * 4 / 3 <= 970 and "train_step (optimizer update) · " in costed.source
    page = BeautifulSoup(train2.table()._repr_mimebundle_()["text/html"], "html.parser")
    assert [b.get_text() for b in page.select("tr.jl-grow b.jl-gname")] == [
        "train_step (forward)", "train_step (backward)", "train_step (optimizer update)"]
