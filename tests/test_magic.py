"""Drive %%jaxpr / %jaxpr as a user does, through a real IPython shell."""
import inspect

import jax
import pytest
from bs4 import BeautifulSoup
from IPython.core.error import UsageError

import seeds
from jaxprlens.magic import JaxprMagics
from jaxprlens.table import Table
from jaxprlens.text import TextView

HEADER = "import jax, numpy as np, jax.numpy as jnp\nfrom jax import lax\n"

# Each seed cell is the article's own source (tests/seeds.py) followed by the call the article traces.
SEED_CALLS = {
    "func1": (["func1"], "func1(jnp.zeros(8), jnp.ones(8))"),
    "func3": (["func2", "inner", "func3"], "func3(jnp.zeros(8), jnp.ones(8))"),
    "func4": (["func4"], "func4((jnp.zeros(8), jnp.ones(8)))"),
    "one_of_three": (["one_of_three"], "one_of_three(1, 5.)"),
    "func7": (["func7"], "func7(5.)"),
    "func8": (["func8"], "func8(5., (jnp.zeros(1), 2.))"),
    "func10": (["func10"], "func10(np.ones(16), 5)"),
    "func11": (["func11"], "func11(np.ones(16), 5.)"),
    "func12": (["func12"], "func12(1.)"),
}


def cell(name):
    functions, call = SEED_CALLS[name]
    return HEADER + "".join(inspect.getsource(getattr(seeds, f)) for f in functions) + call


def rows(view):
    return BeautifulSoup(view._repr_mimebundle_()["text/html"], "html.parser").select("tr.jl-row")


@pytest.mark.parametrize("name", sorted(SEED_CALLS))
def test_seed_cells_render_and_match_printer(ip, name):
    view = ip.run_cell_magic("jaxpr", "", cell(name))
    assert isinstance(view, Table)
    fn, args = seeds.SEEDS[name]
    expected = jax.make_jaxpr(fn)(*args).pretty_print(use_color=False)
    assert str(view.program) == expected
    assert len(rows(view)) == sum(1 for _ in view.program.walk())
    assert name in ip.user_ns   # the cell's definitions stay in the namespace
    text = ip.run_cell_magic("jaxpr", "--text", cell(name))
    assert isinstance(text, TextView) and str(text) == expected


def test_cell_lines_are_relative_to_the_cell(ip):
    view = ip.run_cell_magic("jaxpr", "", cell("func1"))
    assert view.text().splitlines()[3:5] == [
        "  0  c:f32[8] = sin b",
        "       cell line 4: temp = first + jnp.sin(second) * 3.  — Sine of each element (in radians).",
    ]


def test_seed_roles_through_magic(ip):
    view = ip.run_cell_magic("jaxpr", "", cell("func10"))
    assert rows(view)[2].select_one(".jl-roles").get_text() == "0 cond consts, 2 body consts, 3 carry"
    view = ip.run_cell_magic("jaxpr", "", cell("func11"))
    assert rows(view)[1].select_one(".jl-roles").get_text().startswith("1 const, 1 carry, 2 xs")
    view = ip.run_cell_magic("jaxpr", "", cell("func4"))
    assert [v.path for v in view.program.invars] == ["arg[0]", "arg[1]"]
    view = ip.run_cell_magic("jaxpr", "", cell("func8"))
    assert [v.name for v in view.program.constvars] == ["a"]


def test_line_magic_and_options(ip):
    ip.run_cell_magic("jaxpr", "", cell("func1"))
    view = ip.run_line_magic("jaxpr", "--lang zh func1(jnp.zeros(3), jnp.ones(3))")
    assert view.lang == "zh" and view.program.invars[0].type == "f32[3]"
    view = ip.run_line_magic("jaxpr", "--static-argnums 1 jnp.tile(jnp.ones(2), 3)")
    assert [v.path for v in view.program.invars] == ["A"]
    ip.run_cell("def g(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x")
    view = ip.run_line_magic("jaxpr", "--static-argnums 1 g(1., 2)")
    assert [e.primitive for e in view.program.eqns] == ["mul", "mul"]


def test_help_lists_every_option():
    doc = inspect.getdoc(JaxprMagics.jaxpr)
    for opt in ["--text", "--table", "--graph", "--debug", "--run", "--static-argnums", "--lang", "--device"]:
        assert opt in doc
    assert "Example" in doc and "%%jaxpr" in doc


@pytest.mark.parametrize("body, message", [
    ("x = 1", r"last statement must be the call to trace.*an assign \(line 1\)"),
    ("def f(x:\n    pass\nf(1)", r"syntax error in the cell, line 1"),
    ("x = 3\nx(1)", r"`x` is an int, not a function"),
    ("", r"cell body is empty"),
    ("# only a comment", r"the cell is empty"),
    ("def g(x):\n    if x > 0:\n        return x\n    return -x\ng(1.)",
     r"TracerBoolConversionError \(cell line 2: if x > 0:\): .*jax.lax.cond.*--static-argnums"),
    ("def g(x):\n    return list(range(x))\ng(3)",
     r"TracerIntegerConversionError.*--static-argnums"),
    ("def h(x, s):\n    return x\nh(1., 'abc')", r"argument `s` \(position 1\) holds a str"),
])
def test_bad_input_gives_usage_error(ip, body, message):
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("jaxpr", "", body)


@pytest.mark.parametrize("opts, message", [
    ("--compare", r"--compare only works with --transform"),
    ("--argnums 0 --in-axes 0", r"--argnums --in-axes only work with --transform"),
    ("--device tpu:3", r"no tpu device here for .tpu:3.; devices here: "),   # even without --run
])
def test_options_that_would_be_ignored_are_usage_errors(ip, opts, message):
    ip.run_cell("ran = []")
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("jaxpr", opts, "ran.append(1)\nabs(1.)")
    assert ip.user_ns["ran"] == []          # said before the cell runs

def test_unknown_option_lists_valid_ones(ip):
    with pytest.raises(UsageError, match=r"unrecognized arguments: --bogus\nvalid options: .*--graph"):
        ip.run_cell_magic("jaxpr", "--bogus", cell("func1"))
    with pytest.raises(UsageError, match=r"unknown language 'fr'"):
        ip.run_cell_magic("jaxpr", "--lang fr", cell("func1"))
    with pytest.raises(UsageError, match=r"--static-argnums takes comma-separated integers"):
        ip.run_cell_magic("jaxpr", "--static-argnums x", cell("func1"))


def test_user_exception_shows_user_traceback_and_kernel_survives(ip, capsys):
    result = ip.run_cell_magic("jaxpr", "", "def boom(x):\n    return 1 / 0\nboom(1.)")
    assert result is None
    out = capsys.readouterr()
    text = out.out + out.err
    assert "ZeroDivisionError" in text and "return 1 / 0" in text
    assert "jaxprlens" not in text.replace("jaxprlens-", "")   # none of our frames
    assert "boom" in ip.user_ns
    result = ip.run_cell_magic("jaxpr", "", "undefined_name(1.)")
    assert result is None and "NameError" in "".join(capsys.readouterr())


def test_magic_result_is_stored_in_underscore(ip):
    ip.run_cell("%%jaxpr\nimport jax.numpy as jnp\njnp.sin(jnp.ones(2))", store_history=True)
    assert isinstance(ip.user_ns["_"], Table)
