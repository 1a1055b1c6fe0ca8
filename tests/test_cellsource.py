"""model/cellsource.py: a cell's lines as the reader typed them, from the lines IPython compiled; the lines
around an equation's source line (the debugger's listing)."""
from IPython.core.inputtransformer2 import TransformerManager

from jaxprlens.model.cellsource import source_context, typed_line
from stepping import traced_cell

TYPED = ["%load_ext jaxprlens", "%matplotlib", "%jaxpr_config --lang zh", "!pip install 'jax[cpu]'",
         "files = !ls -l", "    out = %who_ls", "jnp.sin?", "jnp.sin??", "!!date",
         "y = f(x)  # get_ipython() is only a name here", "print('get_ipython().system(1)')"]


def test_every_transformed_line_reads_back_as_typed():
    lines = TransformerManager().transform_cell("\n".join(TYPED)).splitlines()
    assert len(lines) == len(TYPED) and lines[0] == "get_ipython().run_line_magic('load_ext', 'jaxprlens')"
    assert [typed_line(line).strip() for line in lines] == [t.strip() for t in TYPED]


def test_a_listing_of_a_cell_shows_its_magics_as_typed(ip):
    assert ip.run_cell("import jax.numpy as jnp\n%load_ext jaxprlens\ndef f(x):\n    y = jnp.sin(x)\n"
                       "    return y * 2\n").success
    d = ip.run_cell_magic("jaxpr", "--debug", "f(jnp.ones(3))")
    where, lines = d.view.source()
    assert where == "cell" and lines[:3] == [[1, "import jax.numpy as jnp", False], [2, "%load_ext jaxprlens", False],
                                             [3, "def f(x):", False]]


def test_the_lines_around_an_equation_come_from_its_cell():
    program = traced_cell(name="<ipython-input-8-source-context>")
    mul = next(e for e in program.eqns if e.primitive == "mul")
    assert source_context(mul) == [(1, "import jax.numpy as jnp", False), (2, "def f(x):", False),
                                   (3, "    y = jnp.sin(x)", False), (4, "    return y * 2.", True)]
    assert source_context(mul, radius=0) == [(4, "    return y * 2.", True)]
    assert source_context(None) == []


def test_marimo_cells_are_cells():
    from jaxprlens.model.sources import where_label
    assert where_label("/tmp/marimo_1234/__marimo__cell_MJUe_.py") == "cell"
    assert where_label("/home/me/lecture.py") == "lecture.py"
