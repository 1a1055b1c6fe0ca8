"""views/options.py: every %%jaxpr option declared once; the parser, the line magic's split, the checks and the
parts of the output read from those specs."""
import importlib
import inspect

import jax
import pytest
from IPython.core.error import UsageError

from jaxprlens import magic
from jaxprlens.present.i18n import t
from jaxprlens.views import Outputs, Stack
from jaxprlens.views.options import SPEC, SPECS, VIEWS, Options, split_line, written

CALL = "f(jnp.ones(3), 2.)"
CELL = f"import jax.numpy as jnp\ndef f(x, k):\n    return jnp.sum(jnp.sin(x) * k)\n{CALL}"

# each option that takes a value: what it needs beside it, a value as written, the value Options holds
VALUED = {
    "cost": ("", "bytes", "bytes"),
    "device": ("--run", "cpu", jax.devices("cpu")[0]),
    "repeat": ("--run", "3", 3),
    "budget": ("--profile", "2.5", 2.5),
    "static_argnums": ("", "1", (1,)),
    "lang": ("", "zh", "zh"),
    "depth": ("--graph", "1", 1),
    "max_nodes": ("--graph", "12", 12),
    "path": ("--graph", "0", "0"),
    "transform": ("", "grad", "grad"),
    "argnums": ("--transform grad", "0", (0,)),
    "in_axes": ("--transform vmap", "0,None", (0, None)),
}


@pytest.fixture
def built(ip, monkeypatch):
    """The magic with ``build_view`` replaced: each call's ``(program, opts)`` returned instead of a view."""
    ip.run_cell(CELL)
    monkeypatch.setattr(magic, "build_view", lambda program, opts, transformed=None: (program, opts))
    return ip


def test_the_test_knows_every_option_that_takes_a_value():
    assert set(VALUED) == {s.name for s in SPECS if s.takes_value}


@pytest.mark.parametrize("name", sorted(VALUED))
@pytest.mark.parametrize("form", ["spaced", "equals"])
def test_every_valued_option_works_in_the_line_magic(built, name, form):
    """``%jaxpr --opt VALUE f(x)`` (and ``--opt=VALUE``): the value is the option's and the call is traced."""
    context, text, value = VALUED[name]
    flag = SPEC[name].flag
    given = f"{flag} {text}" if form == "spaced" else f"{flag}={text}"
    program, opts = built.run_line_magic("jaxpr", f"{context} {given} {CALL}")
    assert getattr(opts, name) == value
    assert [v.type for v in program.invars] == (["f32[3]"] if name == "static_argnums" else ["f32[3]", "f32[]"])


def test_an_optional_value_is_taken_only_when_it_is_one_of_its_choices(built):
    assert built.run_line_magic("jaxpr", f"--cost {CALL}")[1].cost == "flops"       # f(...) is the call
    assert built.run_line_magic("jaxpr", f"--cost bytes {CALL}")[1].cost == "bytes"
    assert built.run_line_magic("jaxpr", f"--graph --cost flops {CALL}")[1].cost == "flops"
    assert built.run_line_magic("jaxpr", f"--max 7 --graph {CALL}")[1].max_nodes == 7    # as argparse abbreviates


@pytest.mark.parametrize("line, split", [
    ("--cost bytes f(x)", ("--cost bytes ", "f(x)")),
    ("--cost f(x)", ("--cost ", "f(x)")),
    ("--cost=bytes --text f(x)", ("--cost=bytes --text ", "f(x)")),
    ("--graph --depth -1 f(x)", ("--graph --depth -1 ", "f(x)")),
    ("--bogus f(x, y)", ("--bogus ", "f(x, y)")),
    ("--devices", ("--devices", "")),
    ("", ("", "")),
])
def test_split_line(line, split):
    assert split_line(line) == split


def test_the_language_written_is_read_before_argparse():
    lines = ("--lang zh --grpah", "--lang=zh", "--la zh", "--text", "--lang en --lang zh")
    assert [written(x, "lang") for x in lines] == ["zh", "zh", "zh", None, "zh"]


def test_every_example_works_and_shows_its_option():
    """Each option's example (what a refusal suggests) is a cell's options that pass every check."""
    from IPython.core.magic_arguments import parse_argstring
    for spec in SPECS:
        if spec.example:
            assert spec.flag in spec.example.split(), spec.name
            opts = Options.from_namespace(parse_argstring(magic.JaxprMagics.jaxpr, spec.example))
            assert opts.differs(spec.name) and not opts.missing(), spec.name


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_option_given_without_what_it_needs_is_refused_before_the_cell_runs(ip, lang):
    """One rule for every option: given without the option or view it works with, the cell is refused, in its
    language, naming what to add."""
    ip.run_cell("ran = []")
    for spec in SPECS:
        if not spec.needs:
            continue
        given = f"{spec.flag} {VALUED[spec.name][1]}" if spec.takes_value else spec.flag
        others = "--text" if "table" in spec.needs else ""          # the table is shown when no view is asked for
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", f"--lang {lang} {others} {given}", "ran.append(1)\nabs(1.)")
        said = str(info.value)
        assert said.startswith(spec.flag + {"en": " only works with ", "zh": " 只能与 "}[lang]), said
        assert f"`%%jaxpr {spec.example}`" in said and all(SPEC[n if isinstance(n, str) else n[0]].flag in said
                                                           for n in spec.needs)
    assert ip.user_ns["ran"] == []


@pytest.mark.parametrize("opts, en, zh", [
    ("--depth 2", "--depth only works with --graph, e.g. `%%jaxpr --graph --depth 1`",
     "--depth 只能与 --graph 一起使用，例如 `%%jaxpr --graph --depth 1`"),
    ("--device cpu",
     "--device only works with --run, --profile, --fusion, --sharding or --debug, e.g. `%%jaxpr --run --device cpu`",
     "--device 只能与 --run、--profile、--fusion、--sharding 或 --debug 一起使用，例如 `%%jaxpr --run --device cpu`"),
    ("--lower --repeat 5 --budget 2", "--repeat --budget only work with --run or --profile, e.g. `%%jaxpr --run "
     "--repeat 5`", "--repeat --budget 只能与 --run 或 --profile 一起使用，例如 `%%jaxpr --run --repeat 5`"),
    ("--run --cost", "--cost only works with --table or --graph, e.g. `%%jaxpr --graph --cost bytes`",
     "--cost 只能与 --table 或 --graph 一起使用，例如 `%%jaxpr --graph --cost bytes`"),
    ("--max-nodes 4 --compare", "--max-nodes only works with --graph, e.g. `%%jaxpr --graph --max-nodes 12`\n"
     "--compare only works with --transform, e.g. `%%jaxpr --transform grad --compare`",
     "--max-nodes 只能与 --graph 一起使用，例如 `%%jaxpr --graph --max-nodes 12`\n"
     "--compare 只能与 --transform 一起使用，例如 `%%jaxpr --transform grad --compare`"),
])
def test_what_a_refused_option_needs_in_both_languages(ip, opts, en, zh):
    for lang, said in (("en", en), ("zh", zh)):
        with pytest.raises(UsageError) as info:
            ip.run_cell_magic("jaxpr", f"{opts} --lang {lang}", CELL)
        assert str(info.value) == said


@pytest.mark.parametrize("lang, said", [
    ("en", "--compare shows the original and the transformed program side by side, with only --lower or --compiled "
           "below: drop --text --graph or --compare"),
    ("zh", "--compare 并排显示原程序和变换后的程序，下面只能再加 --lower 或 --compiled："
           "请去掉 --text --graph 或 --compare"),
])
def test_compare_is_an_output_of_its_own(ip, built, lang, said):
    """Views --compare would not show are refused with it, as an option without its view is."""
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"--lang {lang} --transform grad --compare --text --graph --depth 1", CALL)
    assert str(info.value) == said
    with pytest.raises(UsageError, match=r"^--cost only works with --table or --graph"):
        ip.run_cell_magic("jaxpr", "--transform grad --compare --cost", CALL)       # no table below a comparison
    assert built.run_cell_magic("jaxpr", "--transform grad --compare --lower --compiled", CALL)[1].compare


def test_options_at_their_defaults_or_with_their_view_pass(built):
    for opts in ("--repeat 20", "--graph --depth 0 --path 0", "--profile --fusion --repeat 2", "--debug --device cpu",
                 "--cost", "--table --cost bytes", "--transform vmap --batched --in-axes 0,None"):
        assert built.run_cell_magic("jaxpr", opts, CALL)[1].missing() == [], opts


def test_values_are_read_once():
    """The device is JAX's object (resolved once: every engine takes it as it is), lists are tuples, the language
    is the cell's or the kernel's."""
    from types import SimpleNamespace
    opts = Options.from_namespace(SimpleNamespace(run=True, device="cpu", static_argnums="0, 1"))
    assert opts.device is jax.devices("cpu")[0] and opts.static_argnums == (0, 1) and opts.lang == "en"
    with pytest.raises(ValueError, match=r"--cost takes one of 'flops', 'bytes'; got 'time'"):
        Options.from_namespace(SimpleNamespace(cost="time"))


def test_defaults_are_the_engines_own():
    """One default per value: the option's is the engine's (``repeat`` and ``budget`` of every timed run) and the
    help says it."""
    from jaxprlens.engine import fusion, runner
    from jaxprlens.views.compiled import fusion as fusion_view
    from jaxprlens.views.compiled import run
    for fn in (runner.measure, runner.measure_each, fusion.fusion_map, run.run, run.profile, fusion_view.fusion_view):
        params = inspect.signature(fn).parameters
        assert params["repeat"].default == Options().repeat == runner.REPEAT, fn
        assert params["budget"].default == Options().budget == runner.BUDGET, fn
    assert "(default 20)" in SPEC["repeat"].help("en") and "（默认 10）" in SPEC["budget"].help("zh")
    from jaxprlens.views.graph.draw import MAX_NODES
    assert f"(default {MAX_NODES})" in SPEC["max_nodes"].help("en")


def test_views_register_by_their_option_and_stand_in_order():
    every = Options(**{s.name: True for s in VIEWS})
    assert [path.split(".")[-1] for path in every.parts()] == [
        "text:part", "live:part", "graph:part", "lower:part", "fusion:part", "memory:part", "sharding:part",
        "run:run_part", "run:profile_part", "debugger:part"]                  # --lower and --compiled: one part
    assert Options().parts() == Options(cost="bytes").parts() == ["jaxprlens.views.table.live:part"]    # the default
    assert Options(graph=True).parts() == ["jaxprlens.views.graph.graph:part"]
    assert all(callable(getattr(importlib.import_module(p.split(":")[0]), p.split(":")[1])) for p in every.parts())


def test_help_words_for_every_option_in_both_languages():
    for spec in SPECS:
        assert spec.help("en") and spec.help("zh") != spec.help("en"), spec.name
        assert t(f"help.jaxpr.{spec.name}", "zh")


def test_a_debugger_below_other_parts_is_displayed_after_them(ip):
    """``--debug --graph``: the magic returns both; displayed, the graph is one output and the debugger its own
    (its replay), in that order; making the view displays nothing."""
    shown = []
    publish = ip.display_pub.publish
    ip.display_pub.publish = lambda data, metadata=None, **kw: shown.append(data)
    try:
        out = ip.run_cell_magic("jaxpr", "--debug --graph", CELL)
        assert shown == []
        assert isinstance(out, Outputs) and [type(p).__name__ for p in out] == ["Graph", "Debugger"]
        ip.display_formatter.format(out)
    finally:
        ip.display_pub.publish = publish
    graph, debugger = out
    assert [d["text/plain"] for d in shown] == [graph.summary(), debugger._repr_mimebundle_()[0]["text/plain"]]
    both = ip.run_cell_magic("jaxpr", "--table --graph", CELL)
    assert type(both) is Stack and not hasattr(both, "_ipython_display_")       # one output, as IPython shows it
