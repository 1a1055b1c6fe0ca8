"""The text view is byte-identical to JAX's own printer, for the seeds and the corpus."""
import jax
import pytest

import jaxprlens
from corpus import CORPUS
from seeds import SEEDS

PROGRAMS = {**SEEDS, **CORPUS}


def _debug_print(x):
    jax.debug.print("<b>\"x\"</b>\n{}", x)
    return x * 2


PROGRAMS["debug_print"] = (_debug_print, (1.,))


def test_corpus_is_big_enough():
    assert len(SEEDS) >= 9 and len(PROGRAMS) - len(SEEDS) >= 30


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_text_equals_jax_printer(name):
    fn, args = PROGRAMS[name]
    expected = jax.make_jaxpr(fn)(*args).pretty_print(use_color=False)
    program = jaxprlens.trace(fn, *args)
    assert str(program) == expected
    view = program.text_view()
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"] == expected
    assert "\x1b[" not in bundle["text/plain"] and " at 0x" not in bundle["text/plain"]


def test_text_view_html_is_escaped():
    program = jaxprlens.trace(*PROGRAMS["debug_print"][0:1], 1.)
    html = program.text_view()._repr_mimebundle_()["text/html"]
    assert "<b>" not in html and "&lt;b&gt;&quot;x&quot;&lt;/b&gt;" in html
