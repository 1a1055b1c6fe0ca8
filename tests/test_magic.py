"""Drive %%jaxpr / %jaxpr as a user does, through a real IPython shell."""
import inspect
import os
import re
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from bs4 import BeautifulSoup
from IPython.core.error import UsageError

import seeds
from jaxprlens.magic import JaxprMagics
from jaxprlens.present.i18n import t
from jaxprlens.views.table.table import Table
from jaxprlens.views.table.text import TextView

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


@pytest.mark.parametrize("how, lang", [("", "en"), ("--lang zh", "zh"), ("config", "zh"), ("env", "zh"),
                                       ("--lang fr", "en")])
def test_help_in_the_cells_language_runs_nothing(ip, capsys, monkeypatch, how, lang):
    """``--help`` / ``-h`` print the help in the cell's language (``--lang``, else ``%jaxpr_config --lang``, else
    ``$JAXPRLENS_LANG``; a language not known: English), return nothing and run nothing: the namespace and the
    kernel's settings are as they were."""
    from jaxprlens.present import i18n, settings
    from jaxprlens.present.usage import help_text
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv(i18n.ENV, raising=False)
    if how == "env":
        monkeypatch.setenv(i18n.ENV, "zh")
    opts = how if how.startswith("--") else ""
    ip.run_cell("help_probe = 5")
    try:
        if how == "config":
            ip.run_line_magic("jaxpr_config", "--lang zh")
        before = settings.settings()
        for flag in ("--help", "-h"):
            assert ip.run_cell_magic("jaxpr", f"{opts} {flag}", "help_probe = 6\nabs(help_probe)") is None
            assert capsys.readouterr().out == help_text(JaxprMagics.jaxpr.parser, lang)
            assert ip.run_line_magic("jaxpr", f"{flag} {opts} abs(help_probe)") is None
            assert capsys.readouterr().out == help_text(JaxprMagics.jaxpr.parser, lang)
            assert ip.run_line_magic("jaxpr_config", f"{opts} {flag}") is None
            assert capsys.readouterr().out == help_text(JaxprMagics.jaxpr_config.parser, lang)
        assert ip.user_ns["help_probe"] == 5 and settings.settings() == before     # nothing ran, nothing was set
    finally:
        i18n.set_default_lang(None)
    heading = {"en": "options:", "zh": "选项："}[lang]
    assert heading in help_text(JaxprMagics.jaxpr.parser, lang).splitlines()


@pytest.mark.parametrize("lang, said", [
    ("en", "unrecognized arguments: --rest\ndid you mean --reset?\n"
           "valid options: --graph-png --help --lang --reset -h  (see %jaxpr_config --help)"),
    ("zh", "无法识别的选项：--rest\n你是不是想写 --reset？\n"
           "可用的选项：--graph-png --help --lang --reset -h（%jaxpr_config --help 查看帮助）"),
])
def test_a_typod_config_option_in_the_kernel_s_language(ip, lang, said):
    from jaxprlens.present import i18n, settings
    try:
        i18n.set_default_lang(lang)
        with pytest.raises(UsageError) as info:
            ip.run_line_magic("jaxpr_config", "--rest")
        assert str(info.value) == said and settings.get("lang") == (lang, "config")
    finally:
        i18n.set_default_lang(None)


@pytest.mark.parametrize("body, message", [
    ("x = 1", r"last line must call a JAX function on arrays, e.g. `f\(x\)` or `y = f\(x\)`; "
              r"line 1 `x = 1` is an assignment of something that is not a call\. The cell ran"),
    ("def f(x:\n    pass\nf(1)", r"syntax error in the cell, line 1"),
    ("x = 3\nx(1)", r"`x` is an int, not a function"),
    ("", r"cell body is empty"),
    ("# only a comment", r"the cell is empty"),
    ("def g(x):\n    if x > 0:\n        return x\n    return -x\ng(1.)",
     r"TracerBoolConversionError \(cell line 2: if x > 0:\): .*jax.lax.cond.*--static-argnums"),
    ("def g(x):\n    return list(range(x))\ng(3)",
     r"TracerIntegerConversionError.*--static-argnums"),
])
def test_bad_input_gives_usage_error(ip, body, message):
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("jaxpr", "", body)


def test_tracer_fix_in_the_cells_language(ip):
    """The fix for a traced ``if`` is said in the cell's language (the zh course showed it in English)."""
    with pytest.raises(UsageError, match=r"TracerBoolConversionError.*jax\.lax\.cond.*--static-argnums") as err:
        ip.run_cell_magic("jaxpr", "--lang zh", "def g(x):\n    if x > 0:\n        return x\n    return -x\ng(1.)")
    assert "分支请用" in str(err.value) and "Python `if`" not in str(err.value)


def test_a_module_given_to_a_jitted_function_gets_advice_that_works(ip):
    """An Equinox module passed to a plain jax.jit'd step: the cell says eqx.filter_jit / eqx.partition /
    nnx.split (in its language), and made static it says the same instead of "take it out of static_argnums"."""
    pytest.importorskip("equinox")
    ip.run_cell("import jax, jax.numpy as jnp, equinox as eqx\n"
                "mlp = eqx.nn.MLP(2, 2, 4, 1, key=jax.random.PRNGKey(0))\n"
                "step = jax.jit(lambda model, x: model(x))")
    with pytest.raises(UsageError, match=r"^`<lambda>` is jax\.jit'd, and its argument at `model\.activation` "
                                         r"is of type custom_jvp, not an array: "
                                         r".*eqx\.filter_jit.*eqx\.partition.*nnx\.split"):
        ip.run_cell_magic("jaxpr", "", "step(mlp, jnp.ones(2))")
    with pytest.raises(UsageError, match=r"^`<lambda>` 经过 jax\.jit.*eqx\.filter_jit"):
        ip.run_cell_magic("jaxpr", "--lang zh", "step(mlp, jnp.ones(2))")
    with pytest.raises(UsageError, match=r"holds 4 array\(s\).*eqx\.filter_jit.*nnx\.split"):
        ip.run_cell_magic("jaxpr", "--static-argnums 0", "(lambda model, x: model(x))(mlp, jnp.ones(2))")
    ip.run_cell_magic("jaxpr", "", "eqx.filter_jit(lambda model, x: model(x))(mlp, jnp.ones(2))")    # what it says


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

@pytest.mark.parametrize("opts, message", [         # found only once the cell had run, before Options.from_namespace
    ("--transform gradd", r"unknown transformation 'gradd' \(must be one of \['grad', "),
    ("--transform vmap --argnums 0", r"--argnums does not apply to vmap; it applies to grad, "),
    ("--transform grad --argnums x", r"--argnums takes comma-separated integers such as 0 or 0,1; got 'x'"),
    ("--transform vmap --in-axes 0,a", r"--in-axes takes integers or None separated by commas"),
    ("--transform vmap --in-axes None,None", r"in_axes maps no argument"),
    ("--repeat 0 --run", r"repeat must be at least 1, got 0"),
    ("--graph --depth -1", r"depth and max_nodes must be >= 0 \(got depth=-1, max_nodes=60\)"),
    ("--static-argnums x", r"--static-argnums takes comma-separated integers"),
    ("--lang fr", r"unknown language 'fr'"),
])
def test_a_bad_option_fails_before_the_cell_runs(ip, opts, message):
    ip.run_cell("ran = []")
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("jaxpr", opts, "ran.append(1)\nf = lambda x: x * 2.\nf(jnp.ones(3))")
    assert ip.user_ns["ran"] == []          # the cell's side effect did not happen


def test_options_are_typed_values_once_parsed():
    from types import SimpleNamespace
    from jaxprlens.views import Options
    ns = SimpleNamespace(transform="vmap", in_axes="0, None", argnums=None, static_argnums="1", lang="zh",
                         cost="bytes", batched=True, device=None, repeat=20)
    opts = Options.from_namespace(ns)
    assert (opts.in_axes, opts.static_argnums, opts.lang, opts.cost, opts.batched) == ((0, None), (1,), "zh", "bytes",
                                                                                       True)
    assert opts.transform_options == {"in_axes": (0, None), "batched": True}
    one = Options.from_namespace(SimpleNamespace(transform="grad", argnums="1"))
    assert one.argnums == (1,) and one.transform_options == {"argnums": 1}     # as jax.grad takes one position
    assert Options.from_namespace(SimpleNamespace()) == Options(lang=Options.from_namespace(SimpleNamespace()).lang)


def test_unknown_option_lists_valid_ones(ip):
    with pytest.raises(UsageError, match=r"unrecognized arguments: --bogus\nvalid options: .*--graph"):
        ip.run_cell_magic("jaxpr", "--bogus", cell("func1"))
    with pytest.raises(UsageError, match=r"unknown language 'fr'"):
        ip.run_cell_magic("jaxpr", "--lang fr", cell("func1"))
    with pytest.raises(UsageError, match=r"--static-argnums takes comma-separated integers"):
        ip.run_cell_magic("jaxpr", "--static-argnums x", cell("func1"))


def _options(ip) -> str:
    return " ".join(sorted(a for action in JaxprMagics(shell=ip).jaxpr.parser._actions for a in action.option_strings))


@pytest.mark.parametrize("lang, said", [
    ("en", "unrecognized arguments: --grpah\ndid you mean --graph?\nvalid options: {options}  (see %%jaxpr --help)"),
    ("zh", "无法识别的选项：--grpah\n你是不是想写 --graph？\n可用的选项：{options}（%%jaxpr --help 查看帮助）"),
])
def test_a_typod_option_suggests_the_closest_in_the_cells_language(ip, lang, said):
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"--lang {lang} --grpah", cell("func1"))
    assert str(info.value) == said.format(options=_options(ip))
    with pytest.raises(UsageError) as info:                 # nothing close: no guess
        ip.run_cell_magic("jaxpr", f"--lang {lang} --bogus", cell("func1"))
    assert "--bogus" in str(info.value) and len(str(info.value).splitlines()) == 2


# em dash, en dash, minus: an editor's autocorrect
@pytest.mark.parametrize("dash", ["\u2014", "\u2013", "\u2212"])
def test_an_option_written_with_a_dash_like_character_suggests_the_option(ip, dash):
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"{dash}graph", cell("func1"))
    assert str(info.value).splitlines()[:2] == [f"unrecognized arguments: {dash}graph", "did you mean --graph?"]
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"--lang zh {dash}{dash}graph", cell("func1"))
    assert str(info.value).splitlines()[1] == "你是不是想写 --graph？"


@pytest.mark.parametrize("opts", ["--path 'abc", '--lang "zh --graph'])
def test_an_unbalanced_quote_in_the_options_is_said(ip, opts):
    ip.run_cell("ran = []")
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", opts, "ran.append(1)\nf = lambda x: x * 2.\nf(jnp.ones(3))")
    assert str(info.value) == (f"the options `{opts}` open a quote that is never closed; close it, or remove it")
    assert ip.user_ns["ran"] == []
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("jaxpr", "--lang zh --path 'abc f(x)")
    assert str(info.value) == "选项 `--lang zh --path 'abc` 中的引号没有闭合；请补上它，或删去它"


GENERATOR = "import jax.numpy as jnp\ndef g(x):\n    yield jnp.sin(x)\n"
ASYNC = "import jax.numpy as jnp\nasync def g(x):\n    return jnp.sin(x)\n"


@pytest.mark.parametrize("code, last, en, zh", [
    (GENERATOR, "g(jnp.ones(3))", "`g` is a generator function (it has `yield`): calling it makes a generator, which "
     "JAX cannot trace; make it return its values (a tuple or a list, e.g.) instead of yielding them",
     "`g` 是生成器函数（含有 `yield`）：调用它得到一个生成器，JAX 无法 trace；请让它 return 这些值（例如一个 tuple 或 "
     "list），而不是 yield 它们"),
    (ASYNC, "y = g(jnp.ones(3))", "`g` is an async function (`async def`): calling it makes a coroutine, which JAX "
     "cannot trace; define it with a plain `def` (JAX computes without await)",
     "`g` 是异步函数（`async def`）：调用它得到一个协程，JAX 无法 trace；请用普通的 `def` 定义它（JAX 的计算不需要 "
     "await）"),
    (ASYNC.replace("return", "yield"), "g(jnp.ones(3))", "`g` is an async function (`async def`): calling it makes "
     "a coroutine, which JAX cannot trace; define it with a plain `def` (JAX computes without await)", None),
])
def test_a_generator_or_async_last_call_is_said(ip, code, last, en, zh):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no coroutine made and left unawaited
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", "", code + last)
    assert str(info.value) == en
    if zh:
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", "--lang zh", code + last)
        assert str(info.value) == zh


def test_a_function_that_wraps_a_generator_or_is_jitted_async_is_seen_for_what_it_is(ip):
    wrapped = GENERATOR + textwrap.dedent("""\
        import functools
        @functools.wraps(g)
        def total(x):
            return sum(g(x))
        total(jnp.ones(3))""")
    assert ip.run_cell_magic("jaxpr", "", wrapped).program.eqns[0].primitive == "sin"     # a plain function
    with pytest.raises(UsageError, match=r"^`jax.jit\(g\)` is an async function"):
        ip.run_cell_magic("jaxpr", "", ASYNC + "import jax\njax.jit(g)(jnp.ones(3))")


@pytest.mark.parametrize("code, line, text", [
    (ASYNC + "await g(jnp.ones(3))", 4, "await g(jnp.ones(3))"),
    (ASYNC + "ran.append(1)\ny = await g(jnp.ones(3))\nf = lambda x: x * 2.\nf(y)", 5, "y = await g(jnp.ones(3))"),
    ("ran.append(1)\nasync with ctx() as c:\n    pass\nabs(1.)", 2, "async with ctx() as c:"),
])
def test_a_top_level_await_is_said_before_the_cell_runs(ip, code, line, text):
    ip.run_cell("ran = []")
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "", code)
    assert str(info.value) == (f"line {line} awaits at the top level (`{text}`): %%jaxpr runs the cell as plain code "
                               "and traces its last call, so it cannot await; run the await in a cell before this "
                               "one (`y = await g(x)`), then trace a plain call on its result (`f(y)`)")
    assert ip.user_ns["ran"] == []
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang zh", code)
    assert str(info.value).startswith(f"第 {line} 行在顶层使用了 await（`{text}`）")


def test_an_option_argparse_refuses_is_said_in_the_cells_language(ip):
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang zh --cost time", cell("func1"))
    first, valid = str(info.value).split("\n")                 # argparse's complaint, said again (quotes vary)
    assert re.fullmatch(r"--cost 只接受以下之一：'?flops'?、'?bytes'?；收到的是 'time'", first)
    assert valid == f"可用的选项：{_options(ip)}（%%jaxpr --help 查看帮助）"


@pytest.mark.parametrize("opts, en, zh", [
    ("--static-argnums x", "--static-argnums takes comma-separated integers such as 0 or 0,1; got 'x'",
     "--static-argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'"),
    ("--device tpu:9", "no tpu device here for 'tpu:9'; devices here: {listing}",
     "这里没有 tpu 设备，无法使用 'tpu:9'；这里的设备：{listing}"),
    ("--device gpu-1", "unknown device 'gpu-1' (write platform[:index], e.g. cpu, gpu:1, tpu:0); devices here: {listing}",  # noqa: E501 - the exact text a reader sees, kept whole
     "未知设备 'gpu-1'（请写成 platform[:index]，例如 cpu、gpu:1、tpu:0）；这里的设备：{listing}"),
    ("--compare", "--compare only works with --transform, e.g. `%%jaxpr --transform grad --compare`",
     "--compare 只能与 --transform 一起使用，例如 `%%jaxpr --transform grad --compare`"),
    ("--argnums 0 --in-axes 0", "--argnums --in-axes only work with --transform, e.g. `%%jaxpr --transform grad "
     "--argnums 0,1`", "--argnums --in-axes 只能与 --transform 一起使用，例如 `%%jaxpr --transform grad --argnums 0,1`"),  # noqa: E501 - the exact text a reader sees, kept whole
    ("--run --repeat 0", "repeat must be at least 1, got 0", "repeat 至少为 1，收到的是 0"),
    ("--static-argnums 7", "static_argnums has 7, but the call has 2 positional argument(s)",
     "static_argnums 含有 7，但调用只有 2 个位置实参"),
    ("--batched", "--batched only works with --transform vmap, e.g. `%%jaxpr --transform vmap --batched`",
     "--batched 只能与 --transform vmap 一起使用，例如 `%%jaxpr --transform vmap --batched`"),
])
def test_option_errors_in_both_languages(ip, opts, en, zh):
    if "tpu" in opts and any(d.platform == "tpu" for d in jax.devices()):
        pytest.skip("this machine has a TPU")
    from jaxprlens.engine.devices import _listing
    for lang, said in (("en", en), ("zh", zh)):
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", f"{opts} --lang {lang}", cell("func1"))
        assert str(info.value) == said.format(listing=_listing())


@pytest.mark.parametrize("opts", ["", "--transform vmap"])
def test_any_error_of_ours_while_building_the_view_is_said_in_the_cells_language(ip, monkeypatch, opts):
    """Not only a ValueError: a KeyError or TypeError of ours (keyed) is a UsageError in the cell's language, with
    the kernel's language English."""
    from jaxprlens import magic
    from jaxprlens.model.errors import KeyedLookupError

    def build_view(*_):
        raise KeyedLookupError("find_no_eqn", eqn="'9'")
    monkeypatch.setattr(magic, "build_view", build_view)
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"{opts} --lang zh", cell("func1"))
    assert str(info.value) == KeyedLookupError("find_no_eqn", eqn="'9'").text("zh") != t("find_no_eqn", "en", eqn="'9'")


@pytest.mark.parametrize("body, en, zh", [
    ("# only a comment", "the cell is empty; end it with the call to trace, e.g. `f(x, y)`",
     "单元格是空的；请以要 trace 的调用结尾，例如 `f(x, y)`"),
    ("x = 3\nx(1.)", "`x` is an int, not a function; the last line must call a function, e.g. `f(x)`",
     "`x` 是 int 对象，不是函数；最后一行必须调用一个函数，例如 `f(x)`"),
    ("import jax\nfor i in range(2):\n    pass", "the last line must call a JAX function on arrays, e.g. `f(x)` or "
     "`y = f(x)`; line 2 `for i in range(2):` is a for loop. The cell ran; add the call to trace as its last line",
     "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)` 或 `y = f(x)`；第 2 行 `for i in range(2):` 是for 循环。"
     "单元格已运行；请把要 trace 的调用写在最后一行"),
    ("def f(a, b):\n    return a\nf('x', b'y')", "the last line must call a JAX function on arrays, e.g. `f(x)`; "
     "`f('x', b'y')` gets a str and a bytes, not an array or a number",
     "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)`；`f('x', b'y')` 的实参是 str和bytes，不是数组或数字"),
    ("1 +", "syntax error in the cell, line 1: invalid syntax\n    1 +\nfix that line and run the cell again",
     "单元格第 1 行有语法错误：invalid syntax\n    1 +\n请改正这一行后再运行单元格"),
])
def test_cell_errors_in_both_languages(ip, body, en, zh):
    for lang, said in (("en", en), ("zh", zh)):
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", f"--lang {lang}", body)
        assert str(info.value) == said


@pytest.mark.parametrize("last, en, zh", [
    ("print(f(jnp.ones(3)))", "the last line prints `print(f(jnp.ones(3)))`: print traces nothing (it prints a tracer, "
     "and the jaxpr has no equations). Make the call itself the last line: `f(jnp.ones(3))`",
     "最后一行打印了 `print(f(jnp.ones(3)))`：print 不 trace 任何东西（它打印出一个 tracer，jaxpr 里没有方程）。"
     "请让调用本身成为最后一行：`f(jnp.ones(3))`"),
    ("nothing(jnp.ones(3))", "`nothing(jnp.ones(3))` returns None and has no equations: there is nothing to show. "
     "Make the last line the call of the JAX function, e.g. `f(x)`",
     "`nothing(jnp.ones(3))` 返回 None，也没有方程：没有可显示的内容。请让最后一行调用该 JAX 函数，例如 `f(x)`"),
])
def test_a_last_line_that_traces_nothing_says_what_to_do(ip, capsys, last, en, zh):
    for lang, said in (("en", en), ("zh", zh)):
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", f"--lang {lang}", F_CELL + "def nothing(x):\n    pass\n" + last)
        assert str(info.value) == said
    assert "Traced" not in capsys.readouterr().out                  # no tracer printed on the way


def test_a_shape_error_shows_the_users_frames_not_jaxs(ip):
    body = "import jax.numpy as jnp\ndef f(x):\n    return jnp.dot(x, jnp.ones(3))\nf(jnp.ones(4))"
    for lang, note in (("en", r"\((\d+) frames inside JAX not shown\)"), ("zh", r"（JAX 内部的 (\d+) 个栈帧未显示）")):
        with pytest.raises(TypeError) as info:
            ip.run_cell_magic("jaxpr", f"--lang {lang}", body)
        text = _shown(info.value)
        assert "----> 3     return jnp.dot(x, jnp.ones(3))" in text                    # the user's frame
        assert "jax/_src" not in text and "site-packages" not in text                # none of JAX's
        hidden = re.findall(note, text)
        assert len(hidden) == 1 and int(hidden[0]) >= 2
        assert text.rstrip().endswith("TypeError: dot_general requires contracting dimensions to have the same "
                                      "shape, got (4,) and (3,).")
    tb, frames = info.value.__traceback__, 0                          # the exception keeps its whole traceback
    while tb is not None:
        frames, tb = frames + ("jax" + os.sep in tb.tb_frame.f_code.co_filename), tb.tb_next
    assert frames >= int(hidden[0])


def _shown(exc) -> str:
    """The traceback IPython shows for ``exc`` (its ``_render_traceback_``), without colours."""
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(exc._render_traceback_()))


def test_user_exception_fails_the_cell_with_the_users_traceback(ip):
    with pytest.raises(ZeroDivisionError) as info:
        ip.run_cell_magic("jaxpr", "", "def boom(x):\n    return 1 / 0\nboom(1.)")
    text = _shown(info.value)
    assert "ZeroDivisionError" in text and "return 1 / 0" in text
    assert "jaxprlens" not in text.replace("jaxprlens-", "") and "interactiveshell" not in text   # no frames of ours
    assert "boom" in ip.user_ns
    with pytest.raises(NameError) as info:
        ip.run_cell_magic("jaxpr", "", "undefined_name(1.)")
    assert "----> 1 undefined_name(1.)" in _shown(info.value)
    # in the shell the cell fails as a plain Python cell does, and the next one runs
    result = ip.run_cell("%%jaxpr\nundefined_name(1.)")
    assert isinstance(result.error_in_exec, NameError)
    assert ip.run_cell("boom").result is ip.user_ns["boom"]


def test_magic_result_is_stored_in_underscore(ip):
    ip.run_cell("%%jaxpr\nimport jax.numpy as jnp\njnp.sin(jnp.ones(2))", store_history=True)
    assert isinstance(ip.user_ns["_"], Table)


# ---------------------------------------------------------------- the cell as a new user writes it

F_CELL = HEADER + "def f(x):\n    return jnp.sin(x) * 2.\n"


@pytest.mark.parametrize("last, names", [
    ("y = f(jnp.ones(3))", ["y"]),
    ("y: jax.Array = f(jnp.ones(3))", ["y"]),
    ("a, b = f(jnp.ones(3)), 1", None),                     # the right-hand side is a tuple, not a call
    ("y = z = f(jnp.ones(3))", ["y", "z"]),
])
def test_last_line_assigning_the_call_binds_its_result(ip, last, names):
    for name in ("f", "y", "z"):
        ip.user_ns.pop(name, None)
    if names is None:
        with pytest.raises(UsageError, match=r"line 5 `a, b = f\(jnp.ones\(3\)\), 1` is an assignment"):
            ip.run_cell_magic("jaxpr", "", F_CELL + last)
        assert "f" in ip.user_ns and ip.user_ns["b"] == 1        # the cell ran
        return
    view = ip.run_cell_magic("jaxpr", "", F_CELL + last)
    f = ip.user_ns["f"]
    assert str(view.program) == jax.make_jaxpr(f)(jnp.ones(3)).pretty_print(use_color=False)
    for name in names:
        np.testing.assert_array_equal(ip.user_ns[name], f(jnp.ones(3)))


def test_tuple_targets_get_the_call_results(ip):
    cell = HEADER + "def two(x):\n    return x + 1., x * 3.\na, b = two(jnp.arange(3.))"
    view = ip.run_cell_magic("jaxpr", "", cell)
    np.testing.assert_array_equal(ip.user_ns["a"], jnp.arange(3.) + 1.)
    np.testing.assert_array_equal(ip.user_ns["b"], jnp.arange(3.) * 3.)
    assert view.program.out_paths == ["out[0]", "out[1]"]
    # the cell as written fails (two results into three names): the user's traceback, nothing traced
    ip.user_ns.pop("c", None)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        ip.run_cell_magic("jaxpr", "", "c, d, e = two(jnp.arange(3.))")
    assert "c" not in ip.user_ns


def test_assignment_runs_the_call_once(ip):
    ip.run_cell("calls = []")
    cell = ("import jax.numpy as jnp\ndef counted(x):\n    calls.append(type(x).__name__)\n    return x * 2.\n"
            "y = counted(jnp.ones(2))")
    ip.run_cell_magic("jaxpr", "", cell)
    assert ip.user_ns["calls"][0] == "ArrayImpl" and len(ip.user_ns["calls"]) == 2   # one run, one trace


@pytest.mark.parametrize("last, kind", [
    ("y = 3", "an assignment of something that is not a call"),
    ("jnp.pi", "an expression, not a call"),
    ("for i in range(2):\n    y = i", "a for loop"),
    ("def g(x):\n    return x", "a function definition"),
])
def test_cell_without_a_call_runs_then_says_what_the_last_line_must_be(ip, last, kind):
    ip.user_ns.pop("f", None)
    ip.user_ns.pop("y", None)
    with pytest.raises(UsageError, match=r"^the last line must call a JAX function on arrays, e\.g\. `f\(x\)` "
                                         rf"or `y = f\(x\)`; line 5 `.*` is {kind}\. The cell ran"):
        ip.run_cell_magic("jaxpr", "", F_CELL + last)
    assert "f" in ip.user_ns                                  # the definitions survive
    if last.startswith(("y =", "for")):
        assert ip.user_ns["y"] in (3, 1)


def test_refused_call_keeps_the_definitions_and_the_kernel_goes_on(ip):
    for name in ("f", "late"):
        ip.user_ns.pop(name, None)
    cases = {"print('hello')": r"`print\('hello'\)` gets a str, not an array or a number",
             "f('a', s=['b', None])": r"`f\('a', s=\['b', None\]\)` gets a str, not an array",
             "f(b'x', 'y')": r"`f\(b'x', 'y'\)` gets a bytes and a str, not an array or a number"}
    for last, message in cases.items():
        with pytest.raises(UsageError, match=r"^the last line must call a JAX function on arrays, "
                                             rf"e\.g\. `f\(x\)`; {message}"):
            ip.run_cell_magic("jaxpr", "", F_CELL + last)
        assert "f" in ip.user_ns
    # in the shell: the refusal is an error of that cell only; the next cell runs
    result = ip.run_cell("%%jaxpr\ndef late(x):\n    return x\nprint('hello')")
    assert isinstance(result.error_in_exec, UsageError) and "late" in ip.user_ns
    assert ip.run_cell("late(2)").result == 2
    # a syntax error runs nothing (Python would not either)
    ip.user_ns.pop("early", None)
    with pytest.raises(UsageError, match="syntax error"):
        ip.run_cell_magic("jaxpr", "", "def early(x):\n    return x\nearly(")
    assert "early" not in ip.user_ns


def test_a_static_string_is_still_fine(ip):
    view = ip.run_cell_magic("jaxpr", "--static-argnums 1", F_CELL + "def h(x, s):\n    return x\nh(1., 'a')")
    assert view.program.static == {1: "a"}


# ---------------------------------------------------------------- vmap of a call that is already a batch

PIECEWISE = HEADER + "def piecewise(x):\n    return lax.cond(x > 0, jnp.sin, jnp.cos, x)\n"


def test_vmap_batched_is_jax_vmap_of_the_arguments_as_written(ip):
    view = ip.run_cell_magic("jaxpr", "--transform vmap --batched --text",
                             PIECEWISE + "piecewise(jnp.array([-1., 0.5, 2.]))")
    xs = jnp.array([-1., 0.5, 2.])
    expected = jax.make_jaxpr(jax.vmap(ip.user_ns["piecewise"]))(xs).pretty_print(use_color=False)
    assert str(view) == expected
    np.testing.assert_allclose(view.program.stepper().run().outputs, jnp.where(xs > 0, jnp.sin(xs), jnp.cos(xs)),
                               rtol=1e-6)
    table = ip.run_cell_magic("jaxpr", "--transform vmap --batched", "piecewise(jnp.array([-1., 0.5, 2.]))")
    assert table.text().splitlines()[0] == "vmap(piecewise, batched=True): a batch of 3, the arguments as written"
    cell = PIECEWISE + "def scale(x, k):\n    return jnp.sin(x) * k\nscale(jnp.ones((2, 4)), 3.)"
    view = ip.run_cell_magic("jaxpr", "--transform vmap --batched --in-axes 1,None --text", cell)
    expected = jax.make_jaxpr(jax.vmap(ip.user_ns["scale"], in_axes=(1, None)))(jnp.ones((2, 4)), 3.)
    assert str(view) == expected.pretty_print(use_color=False)


def test_vmap_batched_compare_shows_one_example_beside_the_batch(ip):
    view = ip.run_cell_magic("jaxpr", "--transform vmap --batched --compare",
                             PIECEWISE + "piecewise(jnp.array([-1., 0.5, 2.]))")
    assert view.original.invars[0].type == "f32[]" and view.transformed.invars[0].type == "f32[3]"
    assert view.text().splitlines()[1].startswith("vmap(piecewise, batched=True): ")


def test_vmap_of_a_batch_without_batched_says_so_in_one_line(ip, capsys):
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--transform vmap", PIECEWISE + "piecewise(jnp.array([-1., 0.5, 2.]))")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("`piecewise(jnp.array([-1., 0.5, 2.]))` fails on its arguments as written: "
                              "TypeError (cell line 4: return lax.cond(x > 0, jnp.sin, jnp.cos, x)): "
                              "Pred must be a scalar")
    assert message.endswith("--transform vmap treats the call as one example and stacks each mapped argument "
                            "twice: if the arguments are already a batch, add --batched to map over them as "
                            "written, as jax.vmap(f, in_axes)(*args) does")
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--transform vmap --lang zh", PIECEWISE + "piecewise(jnp.array([-1., 0.5, 2.]))")
    message = str(info.value)                       # JAX's own words (Pred must be ...) stay as JAX says them
    assert message.startswith("`piecewise(jnp.array([-1., 0.5, 2.]))` 在所写的实参上失败：TypeError（单元格第 4 行："
                              "return lax.cond(x > 0, jnp.sin, jnp.cos, x)）：Pred must be a scalar")
    assert message.endswith("；--transform vmap 把这次调用当作一个样本，并把每个被映射的实参堆叠两次：如果实参已经是一批，"  # noqa: E501 - the exact text a reader sees, kept whole
                            "请加上 --batched，直接在所写的实参上映射（与 jax.vmap(f, in_axes) 作用于 *args 相同）")
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err           # no JAX traceback
    view = ip.run_cell_magic("jaxpr", "--transform vmap", "piecewise(jnp.array(2.))")   # one example: stacked
    assert view.program.invars[0].type == "f32[2]"


@pytest.mark.parametrize("opts, call, message", [
    ("--batched", "piecewise(jnp.array(2.))",
     r"^cannot vmap over the arguments as written: argument 0 is f32\[\], which has no axis 0 to map; .*"
     r"or drop --batched to stack the call as one example$"),
    ("--batched --in-axes 1", "piecewise(jnp.ones(3))", r"argument 0 is f32\[3\], which has no axis 1 to map"),
    ("--batched", "jnp.add(jnp.ones(3), jnp.ones(4))",
     r"the batch sizes differ \(argument 0 has 3 along axis 0, argument 1 has 4 along axis 0\)"),
    ("--batched --in-axes None", "piecewise(jnp.ones(3))", r"in_axes maps no argument"),
    ("--batched", "piecewise(jnp.ones((3, 2)))",
     r"^vmap over the arguments as written fails: TypeError: Pred must be a scalar, got JitTracer\(bool\[2\]\)"),
    ("--in-axes 2", "jnp.sin(jnp.ones(3))",
     r"^cannot build a batch: in_axes puts argument 0's batch axis at 2, but it has 1 dimension\(s\)"),
])
def test_vmap_batch_that_cannot_be_built_says_why(ip, opts, call, message):
    ip.run_cell(PIECEWISE)
    with pytest.raises(UsageError, match=message) as info:
        ip.run_cell_magic("jaxpr", "--transform vmap " + opts, call)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("opts, call, zh", [
    ("--batched", "piecewise(jnp.array(2.))", "无法对所写的实参做 vmap：实参 0 是 f32[]，没有可映射的轴 0；请给它一个批轴、"  # noqa: E501 - the exact text a reader sees, kept whole
     "在 --in-axes 中用 None 不映射它，或去掉 --batched，把这次调用当作一个样本来堆叠"),
    ("--batched", "jnp.add(jnp.ones(3), jnp.ones(4))", "无法对所写的实参做 vmap：批大小不一致（实参 0 沿轴 0 有 3 个，"
     "实参 1 沿轴 0 有 4 个）；请让它们一致，或在 --in-axes 中用 None 不映射某个实参"),
    ("--in-axes 2", "jnp.sin(jnp.ones(3))", "无法构建批：in_axes 把实参 0 的批轴放在 2，但它只有 1 维，所以轴必须在 -2 到 1 之间"),  # noqa: E501 - the exact text a reader sees, kept whole
])
def test_vmap_batch_that_cannot_be_built_says_why_in_chinese(ip, opts, call, zh):
    ip.run_cell(PIECEWISE)
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang zh --transform vmap " + opts, call)
    assert str(info.value) == zh


def test_batched_needs_vmap(ip):
    ip.run_cell("ran = []")
    for opts in ("--batched", "--transform grad --batched"):
        with pytest.raises(UsageError, match=r"--batched only works with --transform vmap"):
            ip.run_cell_magic("jaxpr", opts, "ran.append(1)\nabs(1.)")
    assert ip.user_ns["ran"] == []


def test_help_says_what_vmap_does_with_the_arguments():
    doc = inspect.getdoc(JaxprMagics.jaxpr)
    assert "each mapped argument (``--in-axes``, default 0) is stacked twice" in doc
    assert "With ``--batched`` the arguments as written are the batch" in doc
    assert "y = f(x)" in doc
    helps = {a.option_strings[0]: a.help for a in JaxprMagics.jaxpr.parser._actions if a.option_strings}
    assert "stacks each mapped argument twice" in helps["--transform"]
    assert "jax.vmap(f, in_axes)(*args)" in helps["--batched"]


# ---------------------------------------------------------------- in a real kernel, as Run All and nbval see it

@pytest.fixture(scope="module")
def kernel():
    """Run code in a fresh IPython kernel with jaxprlens loaded: ``(execute_reply content, what it printed and its
    traceback, as text)``."""
    pytest.importorskip("ipykernel")
    start_new_kernel = pytest.importorskip("jupyter_client.manager").start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3", env=dict(os.environ, JAX_PLATFORMS="cpu"))

    def run(code: str):
        shown = []

        def hook(msg):
            if msg["msg_type"] == "error":
                shown.extend(msg["content"]["traceback"])
            elif msg["msg_type"] == "stream":
                shown.append(msg["content"]["text"])
        reply = kc.execute_interactive(code, timeout=60, output_hook=hook)["content"]
        return reply, re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(shown))
    try:
        assert run("%load_ext jaxprlens")[0]["status"] == "ok"
        yield run
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.mark.parametrize("code, ename, shown", [
    ("%%jaxpr\nimport jax.numpy as jnp\nundefined_name(1.)", "NameError", "----> 2 undefined_name(1.)"),
    ("%%jaxpr\ndef boom(x):\n    return 1 / 0\nboom(1.)", "ZeroDivisionError", "----> 2     return 1 / 0"),
    ("%jaxpr undefined_name(1.)", "NameError", "undefined_name(1.)"),
    ("%%jaxpr --bogus\nabs(1.)", "UsageError", "UsageError: unrecognized arguments: --bogus"),
    ("%%jaxpr\ndef g(x):\n    if x > 0:\n        return x\n    return -x\ng(1.)", "UsageError",
     "UsageError: TracerBoolConversionError (cell line 2: if x > 0:)"),
])
def test_an_error_in_a_jaxpr_cell_fails_the_cell(kernel, code, ename, shown):
    reply, text = kernel(code)
    assert (reply["status"], reply["ename"]) == ("error", ename)      # Run All and nbval stop here
    assert shown in text
    if ename != "UsageError":
        assert f"Cell In[{reply['execution_count']}], line " in text     # the cell's own number
        assert "jaxprlens" not in text and "IPython" not in text        # the user's frames only
    assert kernel("1 + 1")[0]["status"] == "ok"                          # the kernel goes on


def test_help_in_a_kernel_in_both_languages_leaves_the_kernel_and_namespace_as_they_were(kernel):
    assert kernel("probe = 41")[0]["status"] == "ok"
    for code, said in [("%%jaxpr --help\nprobe = 0\nabs(probe)",
                        "  --text                show the jaxpr as JAX prints it"),
                       ("%%jaxpr --lang zh -h\nprobe = 0\nabs(probe)", "  --text                按 JAX 打印的样子显示 jaxpr"),  # noqa: E501 - the exact text a reader sees, kept whole
                       ("%jaxpr_config --lang zh --help", "                        $JAXPRLENS_GRAPH_PNG 或默认值）"),
                       ("%jaxpr --help abs(probe)", "options:")]:
        reply, text = kernel(code)
        assert reply["status"] == "ok" and said in text.splitlines(), code
    reply, text = kernel("%jaxpr_config\nprint(probe + 1)")
    assert reply["status"] == "ok" and text.splitlines()[-3:] == [
        "language: en (the default)", "graph pictures for LaTeX/PDF: on (the default)", "42"]
