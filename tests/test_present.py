"""One formatter per noun (present/nouns.py, present/words.py, model.program.var_text): each noun's text,
exactly, in English and Chinese; its HTML and browser-data forms say the same text; and no module outside the
presentation layer writes a variable as ``name:type`` by hand."""
import html as _html
import pathlib
import re
from types import SimpleNamespace

import jax.numpy as jnp
import pytest
from bs4 import BeautifulSoup

from jaxprlens.engine.cost import Cost
from jaxprlens.model import trace
from jaxprlens.model.program import Lit, Source
from jaxprlens.present.i18n import where_text
from jaxprlens.present.nouns import (Param, atom_text, block, eqn_text, params_of, params_text, repeats, source_text,
                                     var_text, vars_text)
from jaxprlens.present.rows import Rows, atom_html, binder_html, source_html
from jaxprlens.present.words import cost_text, group_label
from seeds import SEEDS

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "jaxprlens"


def program(name):
    fn, args = SEEDS[name]
    return trace(fn, *args)


def by_id(p):
    return {e.id: e for e in p.walk()}


def text_of(markup: str) -> str:
    """What a reader sees of an HTML fragment: the tags dropped, the entities read."""
    return _html.unescape(re.sub(r"<[^>]+>", "", markup))


# ---------------------------------------------------------------- a variable, an operand

def test_var_text_and_atom_text():
    p = program("func1")
    a, b = p.invars
    sin, mul = p.eqns[0], p.eqns[1]
    three = mul.invars[1]
    assert [var_text(v) for v in p.invars] == ["a:f32[8]", "b:f32[8]"]
    assert var_text(p.outvars[0]) == "f:f32[]"
    assert (atom_text(a), atom_text(three)) == ("a", "3.0:f32[]")          # a literal carries its type
    assert var_text(three) == "3.0:f32[]"                                    # ... and is not written twice
    assert var_text(sin.outvars[0]) == "c:f32[8]"
    w = program("func10").eqns[2]                                            # the while: dropped outputs
    assert [var_text(v) for v in w.outvars] == ["_:i32[]", "_:i32[]", "e:f32[16]"]
    assert [atom_text(x) for x in w.invars] == ["c", "a", "0:i32[]", "b", "d"]


def test_vars_text_cuts_at_a_limit_and_says_how_many_more():
    outs = program("func10").eqns[2].outvars
    assert vars_text(outs) == "_:i32[] _:i32[] e:f32[16]"
    assert vars_text(outs, "en", 2) == "_:i32[] _:i32[] +1 more"
    assert vars_text(outs, "zh", 1) == "_:i32[] 另 2 个"
    assert vars_text(outs, "en", 3) == vars_text(outs, "en", 9) == vars_text(outs)
    assert vars_text([]) == ""


def test_var_html_and_data_say_what_var_text_says():
    for name in ("func1", "func10", "func11", "func12"):
        p = program(name)
        consts = set(p.constvars)
        for e in p.walk():
            for v in e.outvars:
                assert text_of(binder_html(v)) == var_text(v)
            for x in e.invars:
                assert text_of(atom_html(x, consts)) == atom_text(x)
                assert text_of(binder_html(x)) == var_text(x)
    assert binder_html(program("func1").invars[0]) == '<var>a</var><span class="jl-type">:f32[8]</span>'


def test_user_names_are_escaped_once_in_the_html_forms():
    v = SimpleNamespace(name="<b>&", type="f32[<1>]")
    assert binder_html(v) == '<var>&lt;b&gt;&amp;</var><span class="jl-type">:f32[&lt;1&gt;]</span>'
    assert text_of(binder_html(v)) == "<b>&:f32[<1>]" == var_text(v)


def test_bidi_controls_are_escaped_visible_in_every_form():
    from jaxprlens.present.escape import dot, html, visible
    text = "a\u202eb\u2066c\u2069 <d>"
    assert visible(text) == "a\\u202eb\\u2066c\\u2069 <d>" and visible("plain 中文") == "plain 中文"
    assert html(text) == "a\\u202eb\\u2066c\\u2069 &lt;d&gt;"
    assert "\u202e" not in dot(text) and "\\\\u202e" in dot(text)     # DOT writes the backslash escaped
    src = Source("cell", 3, "f", "x = 1  # \u202e")
    assert source_text(src) == "cell line 3: x = 1  # \\u202e"


# ---------------------------------------------------------------- params, an equation line

def test_params_text_shows_what_jax_shows_on_one_line_cut_at_a_limit():
    eqns = by_id(program("func11"))
    scan = params_of(eqns["1"])
    assert "jaxpr" not in [p.key for p in scan]                 # a sub-jaxpr gets its own rows, not a param
    assert params_text(params_of(eqns["0"])) == "shape=(16,) broadcast_dimensions=()"
    assert params_text(params_of(eqns["0"]), 20) == "shape=(16,) broadca…"
    assert params_text(params_of(eqns["1/body/1"])) == "new_dtype=float32 weak_type=False"
    assert params_text([]) == ""
    hidden = Param("inline", "True", default=True)              # JAX's printer hides defaults: so do we
    multi = Param("fmt", "a={a}\nb={b}", default=False)
    assert params_text([hidden, multi]) == "fmt=a={a}\\nb={b}"
    long = Param("x", "y" * 60, default=False)
    assert long.folded and long.short == "y" * 47 + "…" and params_text([long]) == "x=" + "y" * 47 + "…"


def test_eqn_text_is_the_line_jax_prints():
    f1, f10, f11, f12 = (by_id(program(n)) for n in ("func1", "func10", "func11", "func12"))
    assert eqn_text(f1["0"]) == "c:f32[8] = sin b"
    assert eqn_text(f1["1"]) == "d:f32[8] = mul c 3.0:f32[]"
    assert eqn_text(f1["3"]) == "f:f32[] = reduce_sum[axes=(0,)] e"
    assert eqn_text(f10["0"]) == "c:f32[16] = broadcast_in_dim[shape=(16,) broadcast_dimensions=()] 1.0:f32[]"
    assert eqn_text(f10["0"], 20) == "c:f32[16] = broadcast_in_dim[shape=(16,) broadca…] 1.0:f32[]"
    assert eqn_text(f10["2"]) == "_:i32[] _:i32[] e:f32[16] = while[cond_nconsts=0 body_nconsts=2] c a 0:i32[] b d"
    assert eqn_text(f10["2/cond/0"]) == "r:bool[] = lt o p"
    assert eqn_text(f10["2/body/0"]) == "k:i32[] = add h 1:i32[]"
    third = params_of(f11["1"])[2].key         # ft_in on JAX 0.11+, num_consts on 0.10
    assert eqn_text(f11["1"], 30) == f"d:f32[] e:f32[16] = scan[reverse=False length=16 {third[:5]}…] b 0.0:f32[] a c"
    assert eqn_text(f12["1"]) == "c:f32[1] = jit[name=inner] a b"
    full = eqn_text(f11["1"], None)
    assert full.startswith(f"d:f32[] e:f32[16] = scan[reverse=False length=16 {third}=") and "…" not in full
    assert eqn_text(f11["1"], None, params=[]) == "d:f32[] e:f32[16] = scan b 0.0:f32[] a c"


def _soup(markup: str):
    return BeautifulSoup(markup, "html.parser")


def _rows(b):
    """Every row record of a block and of its sub-blocks, in order."""
    for r in b.rows:
        yield r
        for sub in r.subs:
            yield from _rows(sub)


def test_the_table_text_and_every_html_row_use_the_one_equation_line():
    p = program("func10")
    text = p.table().text()
    consts = set(p.constvars)
    for r in _rows(block(p)):
        e = r.eqn
        assert f"{e.index:>3}  {eqn_text(e, None)}" in text
        cell = _soup(Rows("en").row_html(r, consts)).select_one("td.jl-eq")   # the row every view inserts
        drawn = "".join(cell.get_text().split())                 # spacing is the CSS's
        if e.subs or e.roles:      # its sub-jaxprs as folded params and its operands by role: the same tokens
            assert all("".join(tok.split()) in drawn for tok in [var_text(v) for v in e.outvars] + [e.primitive]
                       + [atom_text(x) for x in e.invars])
        else:
            assert drawn == "".join(eqn_text(e, None).split())
        lits = [x for x in e.invars if isinstance(x, Lit)]
        assert len(cell.select(".jl-lit")) == len(lits)


# ---------------------------------------------------------------- a source line, once per run

def test_source_text_and_where_text():
    cell = Source("cell", 3, "f", "y = x + 1")
    file = Source("seeds.py", 10, "func1", "return jnp.sum(temp)")
    bare = Source("seeds.py", 9, "func1", "")
    assert where_text(cell) == "cell line 3" and where_text(cell, "zh") == "单元格 第 3 行"
    assert source_text(cell) == "cell line 3: y = x + 1"
    assert source_text(cell, "zh") == "单元格 第 3 行：y = x + 1"
    assert source_text(file) == "seeds.py line 10: return jnp.sum(temp)"
    assert source_text(file, "zh") == "seeds.py 第 10 行：return jnp.sum(temp)"
    assert source_text(bare) == "seeds.py line 9" and source_text(bare, "zh") == "seeds.py 第 9 行"
    assert source_html(file, "en") == "seeds.py line 10: <code>return jnp.sum(temp)</code>"
    odd = Source("<x>.py", 1, "f", "a < b & c")
    assert text_of(source_html(odd, "en")) == source_text(odd) == "<x>.py line 1: a < b & c"
    assert "<x>" not in source_html(odd, "en")
    assert source_text(program("func1").eqns[3].source) == "seeds.py line 10: return jnp.sum(temp)"


def test_a_run_of_rows_from_one_line_shows_it_once():
    assert repeats(["a", "a", "b", None, "b", "b", "a"]) == [False, True, False, False, False, True, False]
    assert repeats([]) == []
    p = program("func1")                                       # three rows from line 9, one from line 10
    rows = block(p).rows
    assert [r.same_source for r in rows] == [False, True, True, False]
    drawn = [_soup(Rows("en").row_html(r, set())).select_one("td.jl-note") for r in rows]
    assert [bool(d.select(".jl-src")) for d in drawn] == [True, False, False, True]
    html = p.table()._repr_mimebundle_()["text/html"]
    assert html.count("seeds.py line 9") == 1 and html.count("seeds.py line 10") == 1


# ---------------------------------------------------------------- a call group, a cost

def group(function="block", call=1, calls=1, phase="forward", phases=("forward",), name="", kind=""):
    return SimpleNamespace(function=function, call=call, calls=calls, phase=phase, name=name, kind=kind,
                           tree=SimpleNamespace(phases=phases))


@pytest.mark.parametrize("g, en, zh", [
    (group(), "block", "block"),
    (group(call=3, calls=6), "block (call 3 of 6)", "block（第 3 次调用，共 6 次）"),
    (group(call=6, calls=6, phase="backward", phases=("forward", "backward")),
     "block (call 6 of 6, backward)", "block（第 6 次调用，共 6 次，反向）"),
    (group("model_loss", phases=("forward", "backward")), "model_loss (forward)", "model_loss（前向）"),
    (group("train_step", kind="update", phase=""), "train_step (optimizer update)", "train_step（优化器更新）"),
    (group("__call__", name="blocks[0].attn · MultiHeadAttention"),
     "blocks[0].attn · MultiHeadAttention", "blocks[0].attn · MultiHeadAttention"),
])
def test_group_label(g, en, zh):
    assert group_label(g) == en and group_label(g, "zh") == zh


def test_group_label_without_phases():
    g = group(call=2, calls=2, phase="backward", phases=("forward", "backward"))
    assert group_label(g, phases=False) == "block (call 2 of 2)"


@pytest.mark.parametrize("c, en, zh", [
    (Cost(flops=48, bytes=832), "48 FLOP, 832 B", "48 FLOP，832 B"),
    (Cost(flops=2048, bytes=1_500_000), "2.0 kFLOP, 1.5 MB", "2.0 kFLOP，1.5 MB"),
    (Cost(flops=2, bytes=20, bound="≤"), "≤ 2 FLOP, 20 B", "≤ 2 FLOP，20 B"),
    (Cost(flops=80, bytes=832, per=Cost(flops=5, bytes=52), times=16),
     "16 × (5 FLOP, 52 B) = 80 FLOP, 832 B", "16 ×（5 FLOP，52 B）= 80 FLOP，832 B"),
    (Cost(flops=40, bytes=80, per=Cost(flops=5, bytes=10), times=8, unit="devices"),
     "8 devices × (5 FLOP, 10 B) = 40 FLOP, 80 B", "8 个设备 ×（5 FLOP，10 B）= 40 FLOP，80 B"),
    (Cost(flops=50, bytes=537, per=Cost(flops=50, bytes=537), bound="≥"),
     "per iteration 50 FLOP, 537 B; unknown trip count", "每次迭代 50 FLOP，537 B；迭代次数未知"),
    (Cost(flops=0, bytes=64, comm_bytes=2000), "0 FLOP, 64 B, 2.0 kB between devices", "0 FLOP，64 B，设备间 2.0 kB"),
])
def test_cost_text(c, en, zh):
    assert cost_text(c) == en and cost_text(c, "zh") == zh


# ---------------------------------------------------------------- nobody writes a variable by hand

HAND_MADE = re.compile(
    r"\{[^{}\n]*\bname\b[^{}\n]*\}\s*:\s*\{[^{}\n]*\btype\b[^{}\n]*\}"      # f"{v.name}:{v.type}"
    r"|\bname\b[^\n]{0,40}\+\s*(['\"]):\1\s*\+[^\n]{0,40}\btype\b"          # v.name + ":" + v.type
    r"|(['\"])(?:%s|\{\}):(?:%s|\{\})\2[^\n]*\bname\b[^\n]*\btype\b")       # "%s:%s" % (v.name, v.type)

# the presentation layer writes the noun's HTML and data forms; model.program.var_text is the noun itself
MAY_WRITE = ("present/", "model/program.py")


def hand_made(text: str) -> list[int]:
    """Lines of ``text`` that write ``name:type`` by hand instead of calling ``var_text``."""
    return [i for i, line in enumerate(text.splitlines(), 1) if HAND_MADE.search(line)]


def test_the_checker_finds_hand_made_variables():
    bad = ['raise ValueError(f"constant {v.name}:{v.type} is a leaked tracer")',
           "lines.append(f'{pad}{html(var.name)}: {html(var.type)}')",
           'label = v.name + ":" + v.type',
           'msg = "%s:%s" % (v.name, v.type)',
           'msg = "{}:{}".format(a.name, a.type)',
           'f"{a.path or a.name}:{a.type}"']
    good = ['raise ValueError(f"constant {var_text(v)} is a leaked tracer")',
            'raise ValueError(f"{var.name} is {var.type}, but the value given is ...")',
            '"outs": [{"name": atom_text(v), "type": v.type} for v in eqn.outvars]',
            "t('labelled', lang, label=where, text=src.text)"]
    assert [hand_made(x) for x in bad] == [[1]] * len(bad)
    assert [hand_made(x) for x in good] == [[]] * len(good)


def test_no_module_outside_the_presentation_layer_writes_name_colon_type():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith(MAY_WRITE[0]) or rel == MAY_WRITE[1]:
            continue
        found += [f"{rel}:{n}" for n in hand_made(path.read_text(encoding="utf-8"))]
    assert found == [], f"write variables with var_text (present.nouns / model.program), not by hand: {found}"


def test_html_units_keeps_each_measure_with_its_unit():
    from jaxprlens.present.escape import html_units
    assert html_units("1.3 MB, 2.0 kFLOP; 45 µs < 3 s") == "1.3&nbsp;MB, 2.0&nbsp;kFLOP; 45&nbsp;µs &lt; 3&nbsp;s"
    assert html_units("3 steps of 2 blocks") == "3 steps of 2 blocks"       # words are not units


def test_the_last_param_and_its_closing_bracket_are_one_unit():
    """A wrap in a narrow column never leaves ``]`` alone on a line: the last param (a sub-jaxpr's reference on
    a jit or while row) and ``]`` sit in one ``jl-tail`` span, which the stylesheet keeps on one line."""
    from jaxprlens.present.nouns import block
    from jaxprlens.present.rows import Rows
    import jax
    from jax import lax
    p = trace(lambda x: (jnp.sum(x, axis=0), lax.while_loop(lambda c: c < 3, lambda c: c + 1, 0),
                         jax.jit(jnp.cos)(x)), jnp.ones((2, 3)))
    rows = Rows("en")
    for row in block(p, deep=False).rows:
        cell = BeautifulSoup(rows.line_html(row, set()), "html.parser")
        tails = cell.select("span.jl-tail")
        if not row.params and not row.eqn.subs:
            assert not tails and "[" not in cell.get_text()
            continue
        assert len(tails) == 1 and tails[0].get_text().endswith("]")
        last = tails[0].find("span")
        assert "jl-param" in last["class"] and not last.find_next_sibling("span")
        assert "jl-default" not in last["class"]                   # never a hidden one: "]" would stand alone
        assert cell.get_text().count("]") == cell.get_text().count("[")
    css = (pathlib.Path(__file__).parents[1] / "src/jaxprlens/static/jaxprlens.css").read_text()
    assert re.search(r"\.jl-tail\{display:inline-block;", css)


def test_a_helper_called_twice_writes_its_cells_as_once():
    """A jitted helper called twice has one body (the same JAX equations, names and params): both nested
    tables' equation cells read as a table of each call alone writes them, a constant still marked as one."""
    import jax
    import numpy as np
    from jaxprlens.present.nouns import block
    c = np.array([1.0, 2.0, 3.0])

    @jax.jit
    def helper(x):
        return jnp.sin(x) * 2.0 + c

    p = trace(lambda x: helper(x) + helper(x * 3), jnp.ones(3))
    calls = [row for row in block(p).rows if row.subs]
    assert len(calls) == 2 and calls[0].eqn.subs[0].program.eqns[0].raw is calls[1].eqn.subs[0].program.eqns[0].raw
    shared = Rows("en")
    cells = [[shared.line_html(r, set()) for r in call.subs[0].rows] for call in calls]
    alone = [[Rows("en").line_html(r, set()) for r in call.subs[0].rows] for call in calls]
    assert cells[0] == cells[1] == alone[0] == alone[1] and len(cells[0]) >= 3
    const = calls[0].subs[0].program.constvars
    marked = [Rows("en").line_html(r, set(const)) for r in calls[1].subs[0].rows]
    assert const and 'class="jl-const"' in marked[-1] and 'class="jl-const"' not in cells[1][-1]
    assert [shared.line_html(r, set(const)) for r in calls[1].subs[0].rows] == marked
