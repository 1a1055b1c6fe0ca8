"""The catalogue (en, zh): complete in both languages, Chinese punctuation and terms, no English word left
in a zh view, and the kernel-wide language (%jaxpr_config, JAXPRLENS_LANG) with a cell's --lang on top."""
import base64
import inspect
import re
import string
from html.parser import HTMLParser

import numpy as np
import pytest
from IPython.core.error import UsageError

from jaxprlens.present import i18n
from jaxprlens.present.i18n import role_summary
from jaxprlens.views.graph import render
from jaxprlens.views.debugger.debugger import Debugger
from jaxprlens.views.compiled.diff import diff
from jaxprlens.present.i18n import AVOID, CATALOGUE, GLOSSARY, ONE, TEXT, t
from jaxprlens.views.compiled.lower import Lowering
from jaxprlens.model import trace
from jaxprlens.views.compiled.run import devices_view, profile, run
from seeds import SEEDS

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
HALF_WIDTH = re.compile(rf"[{CJK}] ?[,:;()]|[,:;()] ?[{CJK}]")
CODE = re.compile(r"[\w.]*\w\([^()]*\)")          # a call written as code: print(program), .save('graph.svg')


@pytest.fixture(autouse=True)
def clean_default(monkeypatch):
    """Every test starts and ends with no kernel-wide language and no JAXPRLENS_LANG."""
    monkeypatch.delenv(i18n.ENV, raising=False)
    monkeypatch.setenv(render.ENV, "graphviz-pure")
    i18n.set_default_lang(None)
    yield
    i18n.set_default_lang(None)


def zh_texts():
    """``(where, key, text)`` for every Chinese text jaxprlens can show."""
    yield from (("TEXT", k, v) for k, v in TEXT["zh"].items())
    yield from (("GLOSSARY", k, v[1]) for k, v in GLOSSARY.items())


def fields(template: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# ---------------------------------------------------------------- the catalogue itself

def test_every_key_in_both_languages_with_the_same_fields():
    assert sorted(set(TEXT["en"]) ^ set(TEXT["zh"])) == []
    assert set(ONE["en"]) <= set(TEXT["en"])
    for key, en in TEXT["en"].items():
        assert fields(en) == fields(TEXT["zh"][key]), key         # zh says everything en says
    for key, one in ONE["en"].items():
        assert fields(one) == fields(TEXT["en"][key]), key


def test_one_shape_one_entry_a_key():
    """Every entry is ``(en, zh)`` or ``(en, zh, en_one)``, each text a non-empty string."""
    bad = [(k, v) for k, v in CATALOGUE.items()
           if not (isinstance(v, tuple) and len(v) in (2, 3) and all(isinstance(s, str) and s for s in v))]
    assert bad == []
    assert len(CATALOGUE) == sum(len(part.WORDS) for part in i18n.PARTS) > 450
    assert CATALOGUE["n_eqns"] == ("{n} equations", "{n} 个方程", "{n} equation")
    assert CATALOGUE["role.carry"] == ("carry", "携带值")


def test_a_key_defined_twice_is_an_error():
    """Across parts ``merge`` refuses it; inside one part's dict literal Python would keep the last silently,
    so the sources are read for it too (and each line fits in 120 columns, each part under 500 lines)."""
    import ast
    import types
    one, other = types.ModuleType("one"), types.ModuleType("other")
    one.WORDS, other.WORDS = {"a": ("a", "甲"), "b": ("b", "乙")}, {"b": ("b", "乙"), "c": ("c", "丙")}
    with pytest.raises(ValueError, match=r"catalogue keys defined twice \(other\): \['b'\]"):
        i18n.merge([one, other])
    assert i18n.merge([one]) == one.WORDS
    for part in i18n.PARTS:
        source = inspect.getsource(part)
        words = next(n.value for n in ast.parse(source).body if isinstance(n, ast.Assign)
                     and n.targets[0].id == "WORDS")
        keys = [k.value for k in words.keys]
        assert len(keys) == len(set(keys)) == len(part.WORDS), part.__name__
        lines = source.splitlines()
        assert len(lines) < 500 and max(i18n.width(line) for line in lines) <= 120, part.__name__


def test_zh_has_no_half_width_punctuation_next_to_chinese():
    prose = [(w, k, CODE.sub("", v), v) for w, k, v in zh_texts()]      # ``print(program)`` is code, not prose
    assert [(w, k, v) for w, k, text, v in prose if HALF_WIDTH.search(text)] == []
    assert HALF_WIDTH.search("签名: 14 个方程, 28 共计")              # the example is caught


def test_one_term_per_concept():
    terms = [zh for _, zh in GLOSSARY.values()]
    assert len(set(terms)) == len(terms)
    assert set(AVOID) <= set(terms)
    found = [(w, k, v, s) for w, k, v in zh_texts() for syns in AVOID.values() for s in syns if s in v]
    assert found == []
    assert t("role.carry", "zh") == GLOSSARY["carry"][1] == "携带值"


def test_templates():
    assert t("n_eqns", "zh", n=14) == "14 个方程"
    assert t("n_eqns", "en", n=14) == "14 equations" and t("n_eqns", "en", n=1) == "1 equation"
    assert t("n_eqns", "zh") == "{n} 个方程"                        # no fields: the template itself
    assert t("n_eqns", "zh", n=14) + t("n_in_all", "zh").format(n=28) == "14 个方程（共 28 个）"
    assert t("device_info", "zh", name="cpu:0", platform="cpu", kind="cpu", id=0) == \
        "cpu:0（平台 cpu，类型 cpu，编号 0）"
    with pytest.raises(KeyError):
        t("no such key", "en")
    with pytest.raises(ValueError, match=r"unknown language 'fr' \(must be one of \['en', 'zh'\]\)"):
        t("n_eqns", "fr")


def test_keyed_errors_are_worded_by_the_catalogue():
    """The model and engines raise a key and fields; ``str`` is the kernel's language (English by default),
    ``text(lang)`` any language."""
    from jaxprlens.model.errors import KeyedError, said
    e = KeyedError("int_list", option="--argnums", text="'x'")
    assert isinstance(e, ValueError) and (e.key, e.fields) == ("int_list", {"option": "--argnums", "text": "'x'"})
    assert str(e) == "--argnums takes comma-separated integers such as 0 or 0,1; got 'x'" == said(e)
    assert said(e, "zh") == e.text("zh") == "--argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'"
    assert said(ValueError("plain"), "zh") == "plain"                # not ours: as Python says it
    needs = dict(needs="--transform", example="--transform grad --compare")
    assert t("option_needs", "en", given="--compare", n=1, **needs).startswith("--compare only works with")
    assert t("option_needs", "en", given="--a --b", n=2, **needs).startswith("--a --b only work with")
    assert [i18n.a_noun(w, "en") for w in ("int", "str", "ellipsis")] == ["an int", "a str", "an ellipsis"]
    assert i18n.a_noun("int", "zh") == "int"


def test_a_plain_traceback_of_ours_is_in_the_kernel_s_language(monkeypatch):
    """``str`` of our errors (what Python's traceback prints when one reaches the reader uncaught, from the Python
    API) follows ``%jaxpr_config --lang`` and ``$JAXPRLENS_LANG``; an unreadable one falls back to English."""
    from jaxprlens.model.errors import KeyedError, KeyedLookupError
    from jaxprlens.model.tracing import TraceError
    e, found = KeyedError("int_list", option="--argnums", text="'x'"), KeyedLookupError("find_no_eqn", eqn="'9'")
    en, zh = e.text("en"), "--argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'"
    assert str(e) == en and e.text("zh") == zh
    i18n.set_default_lang("zh")
    assert str(e) == zh and str(found) == found.text("zh") != found.text("en")
    assert str(TraceError("trace_not_callable", kind="int")) == t("trace_not_callable", "zh", kind="int")
    i18n.set_default_lang(None)
    monkeypatch.setenv(i18n.ENV, "zh")
    assert str(e) == zh
    monkeypatch.setenv(i18n.ENV, "fr")                   # the kernel's language cannot be read: English
    assert str(e) == en
    with pytest.raises(KeyedError, match=r"JAXPRLENS_LANG='fr' is not a language"):
        i18n.default_lang()


def test_what_a_reader_is_shown_of_an_error():
    """``told``: ours in the language asked, anyone else's ``Type: message`` as Python prints it."""
    from jaxprlens.model.errors import KeyedError, told
    e = KeyedError("int_list", option="--argnums", text="'x'")
    assert told(e, "zh") == "--argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'"
    assert told(e, "en") == e.text("en")
    assert told(ZeroDivisionError("division by zero"), "zh") == "ZeroDivisionError: division by zero"
    assert told(ValueError(), "zh") == "ValueError"
    assert told(render.RenderError("render_no_pure"), "zh") == t("render_no_pure", "zh", **render.HOW)


def test_a_render_error_is_one_of_ours(monkeypatch):
    """No renderer: the error is keyed like the model's (``str`` in the kernel's language, ``text`` in any)."""
    e = render.RenderError("render_no_pure")
    assert isinstance(e, RuntimeError) and (e.key, e.fields) == ("render_no_pure", render.HOW)
    assert str(e) == t("render_no_pure", "en", **render.HOW) and str(e).startswith("graphviz-pure is not installed")
    i18n.set_default_lang("zh")
    assert str(e) == e.text("zh") == t("render_no_pure", "zh", **render.HOW) != e.text("en")


def test_a_run_that_nothing_stopped_lists_what_it_watched_in_the_reader_s_language():
    from jaxprlens.views.debugger.state import StateView
    st = trace(*SEEDS["func1"][:1], *SEEDS["func1"][1]).stepper()
    st.add_condition("max > 1e9")
    st.add_breakpoint(primitive="no_such_primitive")
    st.run()
    assert StateView(st, "en").ended_text() == ("ran to the end: no breakpoint or condition fired (max > 1e9, "
                                                "1 breakpoint)")
    assert StateView(st, "zh").ended_text() == "已运行到结尾：没有断点或条件被触发（max > 1e9、1 个断点）"


def test_a_leaked_tracer_constant_is_said_in_the_view_s_language():
    import jax
    from jaxprlens.model import from_jaxpr
    leaked = []
    jax.make_jaxpr(lambda x: leaked.append(x * 2.0) or x)(1.0)
    program = from_jaxpr(jax.make_jaxpr(lambda y: y + leaked[0])(1.0))
    assert program.table(lang="zh").text().splitlines()[0] == "提升的常量：a:f32[] = 泄漏的 tracer：没有值"
    assert "= 泄漏的 tracer：没有值" in program.table(lang="zh").html()
    assert "泄漏的 tracer：没有值" in program.graph(lang="zh").source
    assert program.table(lang="en").text().splitlines()[0] == "hoisted constant: a:f32[] = leaked tracer: no value"


def test_roles_in_chinese():
    p = trace(*SEEDS["func11"][:1], *SEEDS["func11"][1])
    assert role_summary(p.eqns[1].roles, "zh") == "1 个常量、1 个携带值、2 个 xs 数组；length=16；reverse=False"
    assert role_summary(p.eqns[1].roles, "en") == "1 const, 1 carry, 2 xs; length=16; reverse=False"
    sub = trace(*SEEDS["func7"][:1], *SEEDS["func7"][1]).eqns[2].subs[1]
    assert (sub.label, i18n.sub_label(sub, "zh")) == ("branch 1 (true)", "分支 1（true）")


# ---------------------------------------------------------------- no English left in a zh view

SVG_PICTURE = "data:image/svg+xml;base64,"


class _Visible(HTMLParser):
    """The words a reader sees in HTML: text outside <style>/<script> and Graphviz's node-id <title>s,
    plus tooltips (title, xlink:title), placeholders and the script's words (data-l-*)."""

    SKIP = {"style", "script", "title"}

    def __init__(self):
        super().__init__()
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in self.SKIP
        self.out.extend(v or "" for k, v in attrs if k in ("title", "xlink:title", "placeholder", "alt")
                        or k.startswith("data-l-"))
        src = dict(attrs).get("src") or ""
        if tag == "img" and src.startswith(SVG_PICTURE):      # a graph's picture: the words drawn in it
            inner = _Visible()
            inner.feed(base64.b64decode(src[len(SVG_PICTURE):]).decode("utf-8"))
            self.out.extend(inner.out)

    def handle_endtag(self, tag):
        self.skip -= tag in self.SKIP and self.skip > 0

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def visible(html_text: str) -> str:
    parser = _Visible()
    parser.feed(html_text.replace("<wbr>", ""))     # a break allowed inside a name: no text of its own
    return " ".join(parser.out)


# Names of things, not English prose: formats, tools and units a Chinese text names as they are.
NAMES = {"jaxpr", "jaxprlens", "stablehlo", "hlo", "xla", "flop", "nan", "dot", "svg", "graphviz", "pip",
         "install", "graphviz_pure", "path", "depth", "max_nodes", "source", "save", "graph", "xs", "true",
         "false", "jaxprlens_lang", "jaxprlens_renderer", "mul", "dot_general", "jax", "jit", "cpu", "gpu",
         "jvp", "linearize", "en", "zh",           # transforms and languages the --help names
         "jupyterlab", "notebook", "nbclassic", "vs", "code"}     # front ends, named as their makers name them


def english_words() -> set:
    words = set()
    for text in list(TEXT["en"].values()) + list(ONE["en"].values()):
        words |= {w.lower() for w in re.findall(r"[A-Za-z]{2,}", re.sub(r"\{[^}]*\}", " ", text))}
    return words - NAMES


def identifiers(program, *more: str) -> set:
    """Words that name the user's things: everything in JAX's own printed jaxpr (primitives, dtypes,
    var names), every param name and eqn id (``2/body/1``), the argument/result paths, the traced
    function's source, and ``more``."""
    eqns = list(program.walk())
    text = " ".join([str(program), *program.in_paths, *program.out_paths, *more, *(e.id for e in eqns),
                     *(k for e in eqns for k in e.params)])
    if program.fn is not None:
        text += "\n" + inspect.getsource(program.fn)
    return {w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)}


def english_left(text: str, program, *more: str) -> list:
    names = identifiers(program, *more)
    words = english_words()
    return sorted({w for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)
                   if w.lower() in words and w.lower() not in names})


def both(view) -> str:
    bundle = view._repr_mimebundle_()
    return bundle["text/plain"] + "\n" + visible(bundle["text/html"])


def program(name):
    fn, args = SEEDS[name]
    return trace(fn, *args)


def test_english_words_are_found():
    """The check below can fail: the English views are full of catalogue words."""
    p = program("func10")
    assert {"input", "equations", "drawn"} <= set(english_left(both(p.graph(lang="en")), p))
    assert "ran" in english_left(both(run(p, repeat=2, lang="en")), p)
    assert {"Step", "live"} <= set(english_left(debugger_words(Debugger(p, *SEEDS["func10"][1])), p))


@pytest.mark.parametrize("name", ["func1", "func7", "func10", "func11", "func12"])
def test_zh_graph_has_no_english(name):
    p = program(name)
    g = p.graph(lang="zh")
    assert english_left(both(g), p) == []
    assert "逐元素" in visible(g.html()) and "输入" in visible(g.html())        # the legend
    folded = p.graph(lang="zh", depth=0)
    assert english_left(both(folded), p) == []


def test_zh_run_profile_devices_have_no_english():
    p = program("func10")
    r = run(p, repeat=3, lang="zh")
    device = [r.device.name, r.device.kind, r.device.platform]
    assert english_left(both(r), p, *device) == []
    assert r.text().startswith("运行于 cpu:0（平台 cpu，类型 cpu，编号 0）\n编译 ")
    assert english_left(both(profile(p, repeat=2, lang="zh")), p, *device) == []
    assert english_left(both(devices_view("zh")), p, *device) == []
    big = run(trace(lambda x: x * 2, np.arange(100.0)), repeat=1, lang="zh")
    assert "最小值 0，最大值 198，均值 99" in big.text()


def test_zh_lower_and_diff_have_no_english():
    p = program("func7")
    low = Lowering(p, lang="zh")
    assert english_left(both(low), p, low.hlo.text) == []
    d = diff(p.transform("vmap", in_axes=0), program("func7"), lang="zh")
    assert english_left(both(d), p, *d.labels, str(d.a)) == []
    assert d.text().splitlines()[0].startswith("差异 a → b：")


def test_zh_compare_has_no_english():
    from jaxprlens.views.compiled.compare import Compare
    p = program("func7")
    g = p.transform("grad")
    view = Compare(p, g, "grad(func7)", lang="zh")
    assert english_left(both(view), p, str(g), g.title) == []


def debugger_words(d: Debugger) -> str:
    """Everything the debugger shows: its bundle (text, snapshot, recorded replay), the words of its
    controls, and the state and frame rows it sends the front end."""
    data, _ = d._repr_mimebundle_()
    msg = d.press("ready")
    state, frame = msg["state"], msg["frame"]
    texts = [*d.labels.values(), visible("".join(state["view"].values())),
             visible(frame["head"] + "".join(frame["rows"]))]
    return " ".join([data["text/plain"], visible(data["text/html"]), *texts])


# the debugger's condition syntax is a small language of its own, written as it is in every language
CONDITIONS = "any NaN Inf max > 1e3"


def test_zh_debugger_has_no_english():
    p = program("func10")
    d = Debugger(p, *SEEDS["func10"][1], lang="zh")
    assert d.labels["btn_step"] == "单步" and d.view.crumbs() == ["方程 0"]
    d.stepper.add_breakpoint(eqn="2/body/1")
    d.press("continue")                                                # stopped inside the loop
    assert d.view.crumbs()[0] == "while[方程 2] › 循环体 › 第 0 次迭代"
    assert '<div class="jl-note jl-stop">在方程 2/body/1（mul）处遇到断点</div>' in d.delta()["state"]["view"]["notes"]
    assert d.view.text().startswith("jaxprlens 调试器位于 while[方程 2] › 循环体 › 第 0 次迭代 › 方程 1\n")
    assert "  已停止：在方程 2/body/1（mul）处遇到断点" in d.view.text()
    stopped = debugger_words(d)
    d.press("step")
    moved = debugger_words(d)
    d.stepper.clear_breakpoints()
    d.press("continue")
    assert d.view.text().startswith("jaxprlens 调试器：已完成")
    for text in (stopped, moved, debugger_words(d)):
        assert english_left(text, p, CONDITIONS) == []


# ---------------------------------------------------------------- the kernel-wide default

CALL = "import jax.numpy as jnp\ndef f(x, w):\n    return jnp.sum(jnp.sin(x) * w)\n"


def test_config_default_and_cell_override(ip, capsys):
    ip.run_cell(CALL)
    ip.run_line_magic("jaxpr_config", "")
    assert capsys.readouterr().out == ("language: en (the default)\n"
                                       "graph pictures for LaTeX/PDF: on (the default)\n")
    assert ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)").lang == "en"

    ip.run_line_magic("jaxpr_config", "--lang zh")
    ip.run_line_magic("jaxpr_config", "")
    assert capsys.readouterr().out == ("语言：zh（由 %jaxpr_config 设置）\n"
                                       "数据流图附带 PNG（用于 LaTeX/PDF）：on（默认值）\n")
    table = ip.run_cell_magic("jaxpr", "", "f(jnp.ones(3), 2.0)")
    graph = ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)")
    ran = ip.run_line_magic("jaxpr", "--run --repeat 2 f(jnp.ones(3), 2.0)")
    assert (table.lang, graph.lang, ran.lang) == ("zh", "zh", "zh")
    assert graph.summary().startswith("整个程序的数据流图：")
    assert ip.run_line_magic("jaxpr", "--lang en --graph f(jnp.ones(3), 2.0)").lang == "en"   # the cell wins
    assert ip.run_line_magic("jaxpr", "--lang en --run --repeat 2 f(jnp.ones(3), 2.0)").lang == "en"
    assert ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)").lang == "zh"             # and only it

    ip.run_line_magic("jaxpr_config", "--reset")
    assert ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)").lang == "en"


def test_environment_variable(ip, capsys, monkeypatch):
    ip.run_cell(CALL)
    monkeypatch.setenv(i18n.ENV, "zh")
    ip.run_line_magic("jaxpr_config", "")
    assert capsys.readouterr().out.splitlines()[0] == "语言：zh（来自 $JAXPRLENS_LANG）"
    assert ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)").lang == "zh"
    assert program("func1").graph().lang == "zh"                      # the API's default too
    ip.run_line_magic("jaxpr_config", "--lang en")                    # %jaxpr_config beats the variable
    assert ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)").lang == "en"


def test_bad_languages_say_what_to_do(ip, monkeypatch):
    ip.run_cell(CALL)
    with pytest.raises(UsageError, match=r"unknown language 'fr' \(must be one of \['en', 'zh'\]\)"):
        ip.run_line_magic("jaxpr_config", "--lang fr")
    monkeypatch.setenv(i18n.ENV, "de")
    with pytest.raises(UsageError, match=r"JAXPRLENS_LANG='de' is not a language .* unset it"):
        ip.run_line_magic("jaxpr", "--graph f(jnp.ones(3), 2.0)")
    assert ip.run_line_magic("jaxpr", "--lang zh --graph f(jnp.ones(3), 2.0)").lang == "zh"


def test_an_unknown_language_is_said_in_the_kernels_language(ip):
    ip.run_cell(CALL)
    ip.run_line_magic("jaxpr_config", "--lang zh")
    try:
        for say in (lambda: ip.run_line_magic("jaxpr", "--lang fr --graph f(jnp.ones(3), 2.0)"),
                    lambda: ip.run_line_magic("jaxpr_config", "--lang fr")):
            with pytest.raises(UsageError) as info:
                say()
            assert str(info.value) == "未知语言 'fr'（必须是以下之一：['en', 'zh']）"
    finally:
        ip.run_line_magic("jaxpr_config", "--reset")


def test_a_big_tables_notes_say_one_row_in_the_singular():
    """A table one row past what it draws, stores or sends says "1 more equation", not "1 more equations"."""
    keys = ["more_text", "more_rows", "more_items", "rows_cut", "items_cut", "calls_cut", "rows_live",
            "items_live", "calls_live", "sig_more"]
    for key in keys:
        one, two = t(key, "en", n=1, k=10_000, s=5_000), t(key, "en", n=2, k=10_000, s=5_000)
        assert one != two.replace("2", "1", 1), key                  # a singular of its own
        assert not re.search(r"\b1 (more )?(equations|rows|values)\b", one), (key, one)
        assert re.search(r"\b2 (more )?(equations|rows|values)\b", two), (key, two)
        assert t(key, "zh", n=1, k=10_000, s=5_000) == TEXT["zh"][key].format(n=1, k=10_000, s=5_000)


# ---------------------------------------------------------------- messages in the reader's language (#27 item 4)

@pytest.mark.parametrize("opts, zh", [
    ("--device tpu:9", "这里没有 tpu 设备，无法使用 'tpu:9'；这里的设备：{listing}"),
    ("--static-argnums x", "--static-argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'"),
    ("--repeat x --run", "--repeat 接受一个整数，例如 --repeat 2；收到的是 'x'"),
    ("--budget soon --run", "--budget 接受一个数，例如 --budget 2.5；收到的是 'soon'"),
    ("--text=1", "--text 不接受值：请单独写 --text（收到的是 '1'）"),
    ("--transform vmap --in-axes q", "--in-axes 接受以逗号分隔的整数或 None，例如 0,None；收到的是 'q'"),
])
def test_usage_errors_in_chinese(ip, opts, zh):
    """What the magic refuses, said in the cell's language: its own checks and argparse's complaints alike."""
    import jax
    if "tpu" in opts and any(d.platform == "tpu" for d in jax.devices()):
        pytest.skip("this machine has a TPU")
    from jaxprlens.engine.devices import _listing
    ip.run_cell(CALL)
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", f"{opts} --lang zh", "f(jnp.ones(3), 2.0)")
    assert str(info.value).split("\n")[0] == zh.format(listing=_listing())


def test_a_bad_options_list_in_chinese(ip):
    """An option argparse finds ambiguous, or one it needs a value for: the sentence and the valid options in zh."""
    ip.run_cell(CALL)
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang zh --de cpu", "f(jnp.ones(3), 2.0)")
    first, valid = str(info.value).split("\n")
    assert re.fullmatch(r"--de 可以是 (--de\w+、)+--de\w+ 中的任何一个：请写出完整的选项", first), first
    assert valid.startswith("可用的选项：--argnums ") and valid.endswith("（%%jaxpr --help 查看帮助）")
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang zh --device", "f(jnp.ones(3), 2.0)")
    assert str(info.value).split("\n")[0] == "--device 后面需要一个值"
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--lang en --device", "f(jnp.ones(3), 2.0)")
    assert str(info.value).split("\n")[0] == "--device needs a value after it"


def test_stepper_and_debugger_errors_in_chinese():
    """The stepper's and the debugger's refusals carry a key: ``text("zh")`` says them in Chinese, ``str`` in
    English (a plain traceback), and the debugger's panel in its own language."""
    from jaxprlens.engine.stepper import Stepper
    from jaxprlens.model.errors import Keyed
    p = program("func1")
    with pytest.raises(ValueError) as info:
        Stepper(p, (np.ones(8, np.float32),))
    assert isinstance(info.value, Keyed)
    assert info.value.text("zh") == "程序有 2 个输入（first, second），但给出了 1 个数组值"
    assert str(info.value) == "the program has 2 inputs (first, second), but 1 array value(s) were given"
    with pytest.raises(ValueError) as info:
        Stepper(p, (np.ones(3, np.float32), np.ones(8, np.float32)))
    assert info.value.text("zh") == ("输入 first 声明为 f32[8]，但给出的值形状为 (3,)；"
                                     "请给出 trace 时形状的值，或重新 trace")
    st = Stepper(p)
    with pytest.raises(ValueError) as info:
        st.set_value("zz", 1.0)
    assert info.value.text("zh").startswith("在方程 0 处没有定义值 'zz'（这里已定义的值：")
    with pytest.raises(KeyError) as info:
        p.find("9/9")
    assert (str(info.value), info.value.text("zh")) == ("no equation '9/9'", "没有方程 '9/9'")
    d = Debugger(p, lang="zh")
    d.press("jump")
    assert d.error.startswith("未知操作 'jump'（必须是以下之一：['back', ")


def test_other_refusals_in_chinese(monkeypatch):
    from jaxprlens.engine.frames import StepTypeError
    from jaxprlens.model.errors import said
    monkeypatch.setenv(i18n.ENV, "de")
    with pytest.raises(ValueError) as info:
        i18n.default_lang()
    assert said(info.value, "zh") == ("JAXPRLENS_LANG='de' 不是 jaxprlens 支持的语言（必须是以下之一：['en', 'zh']）；"
                                      "请设为其中之一，或取消设置")
    monkeypatch.delenv(i18n.ENV)
    with pytest.raises(ValueError) as info:
        program("func1").graph().save("/tmp/never.bmp")
    assert said(info.value, "zh") == "未知格式 'bmp'（必须是以下之一：['svg', 'png', 'pdf', 'jpeg', 'dot', 'gv']）"
    e = StepTypeError("step_out_count", id="3", prim="sin", n=2, k=1, names="c:f32[]")
    assert isinstance(e, TypeError) and e.text("zh") == "方程 3（sin）给出了 2 个值，而 jaxpr 声明了 1 个（c:f32[]）"
