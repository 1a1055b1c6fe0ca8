"""model/marimocells.py: the cell of a marimo notebook a line is in, as ``marimo edit`` (a file per cell) and
``marimo run`` (the notebook file itself) compile it, and the source notes, call sites, listings and StableHLO
links that name it (``cell 2 line 3``).  marimo's real front ends: tests/browser/test_marimo.py."""
from __future__ import annotations

import ast
import linecache
import subprocess
import sys
import textwrap

import jax.numpy as jnp
import pytest

from jaxprlens.model import marimocells, trace
from jaxprlens.model.cellsource import source_context
from jaxprlens.model.marimocells import Place, read
from jaxprlens.model.sources import located, source_of
from jaxprlens.present.i18n import where_text
from jaxprlens.present.nouns import source_text

pytest.importorskip("marimo")

NOTEBOOK = textwrap.dedent('''\
    import marimo

    app = marimo.App()


    @app.cell
    def _():
        import jax.numpy as jnp
        return (jnp,)


    @app.cell
    def _(jnp):
        def f(x):
            y = jnp.sin(x)
            return y * 2.
        return (f,)


    @app.cell
    def _(f, jnp):
        f(jnp.ones(3))
        return


    if __name__ == "__main__":
        app.run()
    ''')
CELL_2 = "def f(x):\n    y = jnp.sin(x)\n    return y * 2."
CELL_FILE = "/tmp/marimo_4242/__marimo__cell_MJUe_.py"      # what ``marimo edit`` compiles cell 2 as


@pytest.fixture
def notebook(tmp_path):
    path = tmp_path / "lecture.py"
    path.write_text(NOTEBOOK, encoding="utf-8")
    return read(str(path))


def _cell_file(name: str, code: str) -> None:
    linecache.cache[name] = (len(code), None, [line + "\n" for line in code.splitlines()], name)


def _run_mode_f(path: str):
    """``f`` as ``marimo run`` compiles cell 2: from the notebook file, each line numbered as in that file."""
    tree = ast.parse(CELL_2 + "\n")
    ast.increment_lineno(tree, NOTEBOOK.splitlines().index("    def f(x):"))
    ns = {"jnp": jnp}
    exec(compile(tree, path, "exec"), ns)
    return ns["f"]


def _edit_mode_f():
    _cell_file(CELL_FILE, CELL_2)
    ns = {"jnp": jnp}
    exec(compile(CELL_2, CELL_FILE, "exec"), ns)
    return ns["f"]


def test_the_cells_of_a_notebook_file_in_order(notebook):
    assert [c[0] for c in notebook.cells] == ["import jax.numpy as jnp", CELL_2, "f(jnp.ones(3))"]
    file_line = NOTEBOOK.splitlines().index("        y = jnp.sin(x)") + 1       # 15: line 2 of cell 2
    assert notebook.place(notebook.path, file_line) == Place(position=2, line=2, offset=file_line - 2, lines=3)
    assert notebook.place(notebook.path, 1) is None                              # `import marimo`: no cell's
    assert notebook.place("/elsewhere/lecture.py", file_line) is None            # another file


def test_a_cell_file_is_the_cell_whose_code_it_holds(notebook):
    _cell_file(CELL_FILE, CELL_2)
    assert notebook.place(CELL_FILE, 3) == Place(position=2, line=3, offset=0, lines=3)
    _cell_file("/tmp/marimo_4242/__marimo__cell_Zzzz_.py", "x = 1  # typed since the notebook was saved")
    assert notebook.place("/tmp/marimo_4242/__marimo__cell_Zzzz_.py", 1) is None
    twice = read.__wrapped__(notebook.path)
    object.__setattr__(twice, "cells", notebook.cells + notebook.cells[1:2])    # two cells of one code
    assert twice.place(CELL_FILE, 3) is None


def test_a_source_names_the_cell_and_the_line_within_it(notebook):
    _cell_file(CELL_FILE, CELL_2)
    run = source_of(notebook.path, 16, "f", notebook=notebook)
    edit = source_of(CELL_FILE, 3, "f", notebook=notebook)
    assert (run.where, run.cell, run.line, run.text) == ("cell", 2, 3, "return y * 2.")
    assert (edit.where, edit.cell, edit.line, edit.text) == ("cell", 2, 3, "return y * 2.")
    assert str(run) == "cell 2 line 3: return y * 2."
    assert where_text(run) == "cell 2 line 3" and where_text(run, "zh") == "单元格 2 第 3 行"
    assert source_text(edit) == "cell 2 line 3: return y * 2."
    assert source_text(edit, "zh") == "单元格 2 第 3 行：return y * 2."
    # outside marimo (no notebook), as before: a cell file is a cell, any other file its name
    assert located(CELL_FILE, 3) == ("cell", 3, None) and located(notebook.path, 16) == ("lecture.py", 16, None)
    assert where_text(source_of(CELL_FILE, 3, "f")) == "cell line 3"


@pytest.mark.parametrize("mode", ["run", "edit"])
def test_a_traced_program_names_the_cell_in_both_modes(notebook, monkeypatch, mode):
    for module in ("build", "calls", "cellsource"):
        monkeypatch.setattr(f"jaxprlens.model.{module}.notebook", lambda: notebook)
    f = _run_mode_f(notebook.path) if mode == "run" else _edit_mode_f()
    p = trace(f, jnp.ones(3))
    assert [(e.primitive, source_text(e.source)) for e in p.eqns] == [
        ("sin", "cell 2 line 2: y = jnp.sin(x)"), ("mul", "cell 2 line 3: return y * 2.")]
    # the debugger's listing: the cell's lines only, numbered and indented as in the cell
    assert source_context(p.eqns[1]) == [(1, "def f(x):", False), (2, "    y = jnp.sin(x)", False),
                                         (3, "    return y * 2.", True)]


def test_no_marimo_no_notebook_and_no_import():
    code = ("import sys; from jaxprlens.model import marimocells as m; "
            "assert m.notebook() is None and not m.running() and 'marimo' not in sys.modules; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"
    # marimo imported but no notebook running it (a script, this test): no notebook either
    import marimo  # noqa: F401
    assert marimocells.notebook() is None and not marimocells.running()


def test_a_file_marimo_cannot_parse_is_no_notebook(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def (:\n", encoding="utf-8")
    assert read(str(bad)) is None and read(str(tmp_path / "absent.py")) is None
