"""Calls named as the user wrote them (model/callnames.py): the callee's text, plain functions by their name
(library modules by their path and class: tests/test_libraries.py)."""
import pytest

from jaxprlens.model.callnames import callee_at, class_of
from jaxprlens.model.calls import call_tree
from test_calls import transformer


def test_call_text_names_the_callee(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("x = 1\n    x = x + self.attn(self.ln1(x), mask=mask)\n    return self.out(nnx.relu(h))\n")
    assert callee_at(str(f), (2, 12), (2, 45)) == "self.attn"         # the call Python was running
    assert callee_at(str(f), (2, 22), (2, 33)) == "self.ln1"
    assert callee_at(str(f), (3, 11), (3, 35)) == "self.out"
    assert callee_at(str(f), (2, 4), (2, 5)) == ""                    # not a call: no name


def test_the_class_of_a_method():
    assert class_of("_block.<locals>.Block.__call__") == "Block"
    assert class_of("MultiHeadAttention.__call__") == "MultiHeadAttention"
    assert class_of("f.<locals>.g") == ""
    assert class_of("layer_norm") == ""


@pytest.fixture(scope="module")
def grad():
    return transformer(blocks=2, grad=True)


def test_plain_functions_keep_their_names(grad):
    tree = call_tree(grad)
    assert {g.name for g in tree.root.walk() if g.parent is not None} == {
        "model_loss", "block", "layer_norm", "attention", "mlp"}
    blocks = [g for g in tree.root.walk() if g.name == "block"]
    assert [(g.phase, g.call, g.calls) for g in blocks] == [
        ("forward", 1, 2), ("forward", 2, 2), ("backward", 2, 2), ("backward", 1, 2)]
