"""The graph view: DOT structure for every seed, SVG from the bundled graphviz-pure, folding, fallbacks."""
import base64
import re
import shutil
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from IPython.core.error import UsageError
from jax import lax

from jaxprlens.views.graph import draw as graph_mod
from jaxprlens.present import front
from jaxprlens.views.graph import render
from jaxprlens.views.graph.graph import Graph
from jaxprlens.model import Var, count_eqns, trace
from seeds import SEEDS
from pages import loaders


def pictures(page: str) -> list:
    """The SVG of each graph picture (``<img src="data:image/svg+xml;base64,...">``) in an output."""
    return [base64.b64decode(b).decode("utf-8") for b in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]


@pytest.fixture(autouse=True)
def pure(monkeypatch):
    """Hide any system ``dot``: CI and notebooks render with the pinned graphviz-pure."""
    monkeypatch.setenv(render.ENV, "graphviz-pure")


def _program(name):
    fn, args = SEEDS[name]
    return trace(fn, *args)


def _edges(source):
    """``(tail, head, label)`` for every edge statement in the DOT text."""
    out = []
    for m in re.finditer(r'^\s*"?([^"\s]+)"? -> "?([^"\s]+)"?(?: \[(.*)\])?$', source, re.M):
        label = re.search(r'(?:x?label)="((?:[^"\\]|\\.)*)"', m.group(3) or "")
        text = label.group(1).replace("\u00a0", "") if label else ""        # draw.PAD on each side of a line
        out.append((m.group(1), m.group(2), text))
    return out


def _clusters(source, kind):
    return len(re.findall(rf'subgraph "?cluster_{kind}_', source))


# ---------------------------------------------------------------- DOT structure, every seed

@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_dot_structure(name):
    p = _program(name)
    g = p.graph()
    src = g.source
    assert src == p.graph().source                              # deterministic
    subs = [s for e in p.walk() for s in e.subs]
    assert _clusters(src, "sub") == len(subs)                   # one cluster per sub-jaxpr
    assert _clusters(src, "eqn") == sum(1 for e in p.walk() if e.subs)
    for s in subs:
        assert f'label="{s.label}"' in src or f"label={s.label}" in src
    edges = _edges(src)
    for eqn in p.walk():
        assert f'"eqn-{eqn.id}" [' in src and f'id="eqn-{eqn.id}"' in src
        heads = [e for e in edges if e[1] == f"eqn-{eqn.id}"]
        if not eqn.subs:                                        # one edge per operand use
            assert len(heads) == len(eqn.invars)
        for a in eqn.invars:                                    # labelled with the table's names and types
            if isinstance(a, Var):
                assert any(lab.startswith(f"{a.name}:{a.type}") for _, _, lab in edges)
    for i, v in enumerate(p.invars):
        assert f'"p/in{i}" [label="{v.path}\\n{v.name}:{v.type}"' in src
    for i, v in enumerate(p.outvars):
        assert f'"p/out{i}" [label="{p.out_paths[i]}\\n{v.type}"' in src
    assert "legend [label=<<TABLE" in src


def test_func1_edges_exactly():
    edges = _edges(_program("func1").graph().source)
    assert edges == [
        ("p/in1", "eqn-0", "b:f32[8]"),
        ("eqn-0", "eqn-1", "c:f32[8]"),
        ("lit-1-1", "eqn-1", ""),
        ("p/in0", "eqn-2", "a:f32[8]"),
        ("eqn-1", "eqn-2", "d:f32[8]"),
        ("eqn-2", "eqn-3", "e:f32[8]"),
        ("eqn-3", "p/out0", "f:f32[]"),
    ]
    src = _program("func1").graph().source
    assert '"lit-1-1" [label="3.0:f32[]"' in src
    assert 'label="reduce_sum axes=(0,)"' in src
    assert 'tooltip="seeds.py line 10: return jnp.sum(temp)"' in src
    assert 'class="jl-eqn jl-reduction"' in src and 'class="jl-eqn jl-elementwise"' in src


def test_cond_branches_and_index_role():
    src = _program("func7").graph().source
    assert 'label="branch 0 (false)"' in src and 'label="branch 1 (true)"' in src
    edges = _edges(src)
    assert ("eqn-1", "eqn-2", "c:i32[]\\n(index)") in edges
    assert ("p/in0", "p/2/branch0/in0", "a:f32[]\\n(operand)") in edges
    assert ("p/in0", "p/2/branch1/in0", "a:f32[]\\n(operand)") in edges
    assert ("eqn-2/branch0/0", "eqn-2", "f → d") in edges          # the type: d's, below the cond
    assert ("eqn-2/branch1/0", "eqn-2", "h → d") in edges
    assert _clusters(_program("one_of_three").graph().source, "sub") == 3


def test_while_roles_out_map_and_dropped_outputs():
    src = _program("func10").graph().source
    edges = _edges(src)
    assert ("eqn-0", "p/2/body/in0", "c:f32[16]\\n(body const)") in edges
    assert ("eqn-1", "p/2/cond/in2", "d:f32[16]\\n(carry)") in edges
    assert ("lit-2-2", "p/2/body/in2", "(carry)") in edges               # the literal 0 start of the loop
    assert ("eqn-2/body/3", "eqn-2", "n → e") in edges
    assert ("eqn-2/cond/0", "eqn-2", "r:bool[]") in edges                # the predicate: consumed by the loop
    assert '"eqn-2-unused0" [label="_:i32[]"' in src                     # dropped outputs still drawn
    assert 'label=cond' in src and 'label=body' in src


def test_scan_roles_constants_and_jit_name():
    edges = _edges(_program("func11").graph().source)
    roles = {lab.split("\\n")[-1] for t, h, lab in edges if h.startswith("p/1/body/in")}
    assert roles == {"(const)", "(carry)", "(xs)"}
    assert 'label="jit inner"' in _program("func12").graph().source
    src = _program("func8").graph().source
    assert '"p/const0" [label="a:i32[1]\\n= [1]"' in src and "shape=note" in src


# ---------------------------------------------------------------- SVG with graphviz-pure

@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_svg(name):
    p = _program(name)
    g = p.graph()
    svg = g.svg()
    assert svg.startswith("<?xml") and "</svg>" in svg
    assert "graphviz-pure" in svg                                 # the pinned renderer wrote it
    for eqn in p.walk():
        assert f'id="eqn&#45;{eqn.id}"' in svg
    assert svg == p.graph().svg()                                 # byte-identical twice
    bundle = g._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", "image/png"}   # the SVG once, inside the HTML
    png = base64.b64decode(bundle["image/png"])                  # and a picture for LaTeX/PDF exports
    assert png.startswith(b"\x89PNG") and png == g.png()
    assert set(g._repr_mimebundle_(exclude={"image/png"})) == {"text/plain", "text/html"}   # only what is asked
    assert set(g._repr_mimebundle_(include={"text/html", "text/plain"})) == {"text/plain", "text/html"}
    page = bundle["text/html"]
    assert "<svg" not in page and pictures(page)[0] == render.inline_svg(svg)   # the SVG once, as a picture
    assert 'class="jl-hint"' in page and len(loaders(page)) == 1      # one front end, its loader
    assert bundle["text/plain"].startswith("Dataflow graph of the program")


def test_renderer_choice(monkeypatch, tmp_path):
    assert render.find_renderer()[0] == "graphviz-pure"
    monkeypatch.delenv(render.ENV)                      # default: a system dot on PATH, else graphviz-pure
    fake = tmp_path / "bin" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    assert render.find_renderer() == ("dot", str(fake))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert render.find_renderer()[0] == "graphviz-pure"   # found beside sys.executable, not on PATH
    monkeypatch.setenv(render.ENV, str(tmp_path / "missing-dot"))
    with pytest.raises(render.RenderError, match="not an executable"):
        render.find_renderer()
    if shutil.which("dot") is None:
        monkeypatch.setenv(render.ENV, "dot")
        with pytest.raises(render.RenderError, match="no `dot` is on PATH"):
            render.find_renderer()


def test_no_renderer_falls_back_to_dot_text(monkeypatch, tmp_path):
    monkeypatch.setenv(render.ENV, str(tmp_path / "nope"))
    g = _program("func1").graph()
    bundle = g._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert bundle["text/plain"].startswith("No SVG for this graph: ") and bundle["text/plain"].endswith(g.source)
    assert "pip install graphviz-pure" in bundle["text/html"] and "Traceback" not in bundle["text/html"]
    assert "&quot;eqn-0&quot;" in bundle["text/html"]            # the DOT, escaped, in a <pre>


def test_save_formats(tmp_path):
    g = _program("func7").graph()
    assert g.save(tmp_path / "g.svg").read_text().startswith("<?xml")
    assert g.save(tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")
    assert g.save(tmp_path / "g.dot").read_text() == g.source
    with pytest.raises(render.RenderError, match="graphviz-pure cannot write 'pdf'"):
        g.save(tmp_path / "g.pdf")
    with pytest.raises(ValueError, match=r"unknown format 'bmp' \(must be one of"):
        g.save(tmp_path / "g.bmp")


# ---------------------------------------------------------------- escaping and odd programs

def _shouting(x):
    jax.debug.print('<b>"x"</b>\n{}', x)
    jax.debug.print("<script>alert(1)</script>{}", x)
    y = x * 2.  # a "quoted" \ back\slash <i>comment</i>
    return y


def test_user_markup_is_escaped_once():
    g = trace(_shouting, jnp.ones(3)).graph()
    src, svg, page = g.source, g.svg(), g.html()
    assert 'fmt=&lt;b&gt;\\"x\\"&lt;/b&gt;\\n{}' in src          # escape.dot once: entities, \" and \n
    assert '\\"quoted\\" \\\\ back\\\\slash &lt;i&gt;' in src
    for text in (svg, page):
        assert "<b>" not in text and "<i>" not in text
        assert "<script>alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "&amp;lt;" not in svg                                  # not escaped twice


@pytest.mark.parametrize("fn,args", [
    (lambda x: x, (1.,)),                                         # empty program
    (lambda: jnp.float32(3.), ()),                                # literal only
    (lambda x: x.sum(0), (jnp.zeros((0, 3)),)),                   # zero-size array
    (lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), (0, x))[1], (1.,)),  # drops
], ids=["identity", "literal-only", "zero-size", "dropped"])
def test_odd_programs_draw(fn, args):
    p = trace(fn, *args)
    g = p.graph()
    assert "</svg>" in g.svg()
    assert len(re.findall(r'^\s*"p/out\d+" \[', g.source, re.M)) == len(p.outvars)


def test_identity_edge_goes_from_input_to_output():
    assert _edges(trace(lambda x: x, 1.).graph().source) == [("p/in0", "p/out0", "a:f32[]")]


# ---------------------------------------------------------------- folding and big programs

def _chain(n):
    def f(x, y):
        for i in range(n // 2):
            x = jnp.sin(x) * y if i % 2 else x + y * 1.5
        return x
    return f


def test_fori_loop_with_1000_eqn_body_is_folded_then_unfolded():
    def loop(x, y, n):   # a traced trip count keeps it a while loop (a constant one becomes a scan)
        return lax.fori_loop(0, n, lambda i, c: _chain(1000)(c, y), x)
    p = trace(loop, jnp.ones(4), jnp.ones(4), 3)
    loop = next(e for e in p.eqns if e.primitive == "while")
    body = next(s for s in loop.subs if s.key == "body")
    n = count_eqns(body.program)
    assert n > 1000
    src = p.graph().source
    assert f'"fold-{loop.index}/body" [label="body\\n{n} equations (folded)\\npath={loop.index}/body"' in src
    assert _clusters(src, "sub") == 1                             # only the small cond is drawn
    assert _caption(src) == ["1003 equations and no Python calls to fold by: drawn by",
                             "repeated blocks (×N) and ranges, 2 shown; click one to open",
                             "it, or use path=", "1 nested program(s) folded (deeper than depth=3 or more than",
                             "max_nodes=60 equations)"]
    unfolded = p.graph(max_nodes=5000).source
    assert _clusters(unfolded, "sub") == 2 and unfolded.count('[label=sin ') == 250
    folded = p.graph(path=f"{loop.index}/body")                  # 1,000 equations: drawn by its calls
    assert folded.source.count('[label=sin ') == 0 and 0 < folded._draw.drawn <= 60
    only = p.graph(path=f"{loop.index}/body", max_nodes=5000)
    assert _clusters(only.source, "sub") == 0 and only.source.count('[label=sin ') == 250
    assert "carry from" in only.source and "body const from" in only.source
    svg = only.svg()                                              # its speed: benchmarks/bench_graph.py
    assert svg.rstrip().endswith("</svg>") and svg.count('class="node jl&#45;eqn') == count_eqns(body.program)


def test_big_jit_folded_by_max_nodes_and_deep_nesting_by_depth():
    p = trace(lambda x, y: jax.jit(_chain(1000))(x, y), jnp.ones(4), jnp.ones(4), see_through=False)
    src = p.graph().source
    assert '"fold-0/call" [label="jit f\\n1000 equations (folded)' in src
    assert _clusters(p.graph(max_nodes=1000).source, "sub") == 1

    f = jnp.sin
    for _ in range(5):
        f = jax.jit(lambda x, f=f: f(x) + 1.)
    deep = trace(f, 1., see_through=False)
    assert _clusters(deep.graph().source, "sub") == 3             # depth 1..3 drawn, 4th folded
    assert _clusters(deep.graph(depth=5).source, "sub") == 5
    assert _clusters(deep.graph(depth=0).source, "sub") == 0


def test_flat_1000_eqns_drawn_flat_when_asked():
    p = trace(_chain(1000), jnp.ones(8), jnp.ones(8))
    assert len(p.eqns) == 1000
    g = p.graph(max_nodes=1000)                                 # drawn flat when asked for
    svg = g.svg()                                               # its speed: benchmarks/bench_graph.py
    assert svg.count('class="node jl&#45;eqn') == 1000
    assert "xlabel" in g.source and '"ref-' in g.source           # cheap labels, long edges cut


def _caption(source: str) -> list:
    """The lines of a drawing's caption (the graph's own ``label``, DOT's ``\\n`` between lines)."""
    (label,) = re.findall(r'^\tlabel="(.*)"$', source, re.M)
    return label.split("\\n")


def test_huge_top_level_drawn_as_runs():
    p = trace(_chain(300), jnp.ones(2), jnp.ones(2))
    g = Graph(p, max_top=100, max_nodes=1000)
    assert g.source.count('"run-') >= 100 // graph_mod.RUNS and '"run-0" [label="equations 0–2' in g.source
    assert _caption(g.source) == ["300 equations: too many to draw one by one, shown as runs of",
                                  "3; use path= to see a nested program"]
    assert "</svg>" in g.svg()


def test_bad_path_and_options():
    p = _program("func10")
    with pytest.raises(ValueError, match=r"unknown path '7/body' \(must be one of \['2/cond', '2/body'\]\)"):
        p.graph(path="7/body")
    with pytest.raises(ValueError, match="no nested jaxprs"):
        _program("func1").graph(path="0/body")
    with pytest.raises(ValueError, match="must be >= 0"):
        p.graph(depth=-1)


def test_kind_table_and_legend():
    assert graph_mod.kind_of("dot_general") == "contraction"
    assert graph_mod.kind_of("reduce_max") == "reduction"
    assert graph_mod.kind_of("transpose") == "data movement"
    assert graph_mod.kind_of("my_custom_prim") == "other"
    assert graph_mod.kind_of("my_custom_hop", has_subs=True) == "control flow"
    src = trace(lambda a, b: (a @ b).T.sum(), np.ones((2, 3), np.float32), np.ones((3, 2), np.float32)).graph().source
    legend = src[src.index("legend [label="):]
    for kind in ("contraction", "data movement", "reduction", "input", "output"):
        assert f">{kind}<" in legend


# ---------------------------------------------------------------- the magic

CELL = textwrap.dedent("""\
    import jax.numpy as jnp
    def graph_me(first, second):
        return jnp.sum(first + jnp.sin(second) * 3.)
    graph_me(jnp.zeros(8), jnp.ones(8))
""")


def test_magic_graph(ip):
    view = ip.run_cell_magic("jaxpr", "--graph", CELL)
    assert isinstance(view, Graph)
    assert "first\\na:f32[8]" in view.source
    assert "</svg>" in pictures(view._repr_mimebundle_()["text/html"])[0]
    stacked = ip.run_cell_magic("jaxpr", "--table --graph", CELL)
    page = stacked._repr_mimebundle_()["text/html"]
    assert page.index('data-eqn="0"') < page.index('<div class="jaxprlens jl-graph"')
    assert len(loaders(page)) == 1                  # table and graph share one front end (it links them)

    with pytest.raises(UsageError, match="unknown path"):
        ip.run_cell_magic("jaxpr", "--graph --path 9/body", CELL)
    with pytest.raises(UsageError) as info:                       # in the cell's language
        ip.run_cell_magic("jaxpr", "--graph --path 9/body --lang zh", CELL)
    assert str(info.value) == "未知路径 '9/body'：这个程序没有嵌套的 jaxpr"
    with pytest.raises(UsageError) as info:
        ip.run_cell_magic("jaxpr", "--graph --depth -1 --lang zh", CELL)
    assert str(info.value) == "depth 和 max_nodes 必须 >= 0（收到 depth=-1，max_nodes=60）"


def test_folded_summary_counts_read_as_english():
    fn, args = SEEDS["func10"]
    text = trace(fn, *args).graph(depth=0)._repr_mimebundle_()["text/plain"]
    assert "folded: 2/cond (1 eqn), 2/body (4 eqns)" in text


# ---------------------------------------------------------------- control flow drawn as it runs

def _bbox(svg, gid):
    """The bounding box of the shapes of SVG group ``gid`` (graphviz writes node and cluster ids)."""
    m = re.search(rf'<g id="{re.escape(gid)}" class="(?:node|cluster)[^"]*">(.*?)</g>', svg, re.S)
    body = re.sub(r"<(text|title)\b.*?</\1>", "", m.group(1), flags=re.S)
    nums = [float(x) for attr in re.findall(r'\s(?:points|d)="([^"]+)"', body)
            for x in re.findall(r"-?\d+(?:\.\d+)?", attr)]
    xs, ys = nums[0::2], nums[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def test_func10_outer_add_is_drawn_outside_the_while_box():
    p = _program("func10")
    svg = p.graph().svg()
    box = _bbox(svg, "cluster&#45;2")
    for eqn in p.eqns[:2]:                                        # broadcast_in_dim and the outer add
        x0, y0, x1, y1 = _bbox(svg, f"eqn&#45;{eqn.id}")
        assert x1 < box[0] or x0 > box[2] or y1 < box[1] or y0 > box[3], (eqn.primitive, box)
    src = p.graph().source                                        # binders of a body on one rank, on top
    assert '{rank=same; "p/2/body/in0" "p/2/body/in1" "p/2/body/in2" "p/2/body/in3" "p/2/body/in4"}' in src


# ---------------------------------------------------------------- a big program drawn by its calls

@pytest.fixture(scope="module")
def model_grad():
    from test_calls import transformer
    return transformer()


def _nesting(source):
    """For each node statement, the clusters it sits in (outermost first)."""
    stack, where = [], {}
    for line in source.splitlines():
        line = line.strip()
        m = re.match(r'subgraph "?([^"\s]+)"? \{', line)
        if m:
            stack.append(m.group(1))
        elif line == "}":
            stack and stack.pop()
        else:
            m = re.match(r'"([^"]+)" \[', line)
            if m:
                where[m.group(1)] = list(stack)
    return where


def test_overview_caption_is_wrapped_at_60_columns(model_grad):
    """The notes under a big program's title, each in lines of at most 60 columns (a Chinese character two):
    on one line, 1,078 equations' caption alone made the drawing ~480 pt wide."""
    from jaxprlens.present.i18n import width
    n = count_eqns(model_grad)                        # 1,078 on JAX 0.12 (each JAX writes grad a little apart)
    assert _caption(model_grad.graph().source) == [f"{n} equations, drawn by the Python calls that tracing",
                                                   "inlined: 14 shown; click a call to open it, or use path="]
    zh = _caption(model_grad.graph(lang="zh").source)
    assert zh == [f"{n} 个方程，按 trace 时内联的 Python 调用折叠绘制：显示 14", "个；点击一个调用可展开，或用 path="]
    assert max(map(width, zh)) <= 60


def test_graph_caption_is_wrapped_at_60_columns():
    """A small program's notes (a nested program folded) are wrapped the same way."""
    p = trace(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * 2., x), jnp.ones(3))
    assert _caption(p.graph(depth=0).source) == ["1 nested program(s) folded (deeper than depth=0 or more than",
                                                 "max_nodes=60 equations)"]
    assert _caption(p.graph(depth=0, lang="zh").source) == ["已折叠 1 个子 jaxpr（嵌套深于 depth=0，或方程多于",
                                                            "max_nodes=60 个）"]


def test_overview_of_the_grad_of_six_blocks(model_grad):
    from jaxprlens.model.calls import call_tree
    g = model_grad.graph()
    assert g.group is call_tree(model_grad).root and g.source == model_grad.graph().source
    where = _nesting(g.source)
    blocks = [n for n in where if re.fullmatch(r"grp-model_loss(~bwd)?/block\.\d(~bwd)?", n)]
    assert len(blocks) == 12                                      # block ×6, forward and backward
    for n in blocks:
        assert where[n] == ["cluster_grp_model_loss" + ("~bwd" if "~bwd" in n else "")]
        assert "layer_norm ×2" in g.source.split(f'"{n}" [label="', 1)[1].split('"', 1)[0]
    tree = call_tree(model_grad)
    for n, clusters in where.items():                             # no equation outside its call's box
        if n.startswith("eqn-"):
            grp = tree.group_of(model_grad.find(n[4:]))
            assert clusters[-1:] == ([f"cluster_grp_{grp.id}"] if grp.parent else [])
    assert 'label="block (call 3 of 6)' in g.source                # the box says forward/backward once
    assert 'label="model_loss (backward)"' in g.source
    svg = g.svg()
    w, h = (float(x) for x in re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups())
    # default zoom never below 0.75 px per pt: 9 pt text is >= 9 px, and 970 px hold the whole width
    assert w * 0.75 * 4 / 3 <= 970 and h * 0.75 * 4 / 3 <= 1000, (w, h)
    assert f"12 folded: model_loss/block.1 ({tree.find('model_loss/block.1').size} eqns)" in g.summary()


def test_path_opens_a_call_and_depth_and_max_nodes_act_on_the_tree(model_grad):
    one = model_grad.graph(path="model_loss/block.3")
    assert one.group.id == "model_loss/block.3"
    boxes = re.findall(r'subgraph "?cluster_grp_([^"\s]+)"?', one.source)
    assert boxes == ["model_loss/block.3/layer_norm.1", "model_loss/block.3/attention",
                     "model_loss/block.3/layer_norm.2", "model_loss/block.3/mlp"]    # room: all four open
    leaf = model_grad.graph(path="model_loss/block.3/attention")            # a call that calls nothing:
    assert leaf.source.count('"eqn-') > 0 and '"run-' not in leaf.source   # its equations, one by one
    assert {e.id for e in leaf.group.eqns} == {n[4:] for n in _nesting(leaf.source)
                                               if n.startswith("eqn-") and "-unused" not in n}
    assert '"p/in0" [label="' in one.source and '"p/out0" [label="' in one.source    # crossing values
    x_in = next(v for v in one.group.inputs if v.type == "f32[8,16]")     # the block's input, by origin
    assert f'"p/in0" [label="from block (call 2 of 6, forward)\\n{x_in.name}:f32[8,16]"' in one.source
    assert '"p/in1" [label="from params[2]\\n8 values"' in one.source and '"p/in2"' not in one.source
    tips = " ".join(re.findall(r'"p/in\d" \[.*?tooltip="([^"]*)"', one.source))
    assert sorted(tips.split()) == sorted(f"{v.name}:{v.type}" for v in one.group.inputs)
    assert one.summary().startswith(f"Dataflow graph of path model_loss/block.3: {one.group.size} equations")
    top = model_grad.graph(depth=0)
    assert sorted(n for n in _nesting(top.source) if n.startswith("grp-")) == ["grp-model_loss",
                                                                               "grp-model_loss~bwd"]
    assert len([n for n in _nesting(model_grad.graph(depth=1).source) if n.startswith("grp-")]) == 12
    for budget in (5, 60, 200):
        drawn = model_grad.graph(max_nodes=budget)._draw.drawn
        assert drawn <= budget
    assert model_grad.graph(max_nodes=200)._draw.drawn > 60      # more room: the blocks open
    with pytest.raises(ValueError, match=r"unknown group 'model_loss/block.9' \(must be one of"):
        model_grad.graph(path="model_loss/block.9")


def test_page_draws_the_folded_calls_ahead_with_breadcrumbs(model_grad):
    g = model_grad.graph()
    page = g.html()
    groups = re.findall(r'<div class="jl-gview" data-group="([^"]*)"', page)
    assert groups[0] == "" and "model_loss/block.1" in groups and "model_loss~bwd/block.6~bwd" in groups
    blocks = [f"model_loss/block.{i}" for i in range(1, 7)] + [f"model_loss~bwd/block.{i}~bwd" for i in range(1, 7)]
    assert set(blocks) <= set(groups) and len(set(groups)) == len(groups)   # every block opens with a click
    assert len(page) < graph_mod.PREDRAW_BYTES + 3 * len(g.svg())
    assert page.count(" hidden>") == len(groups) - 1                # the overview shows first
    assert ('<a class="jl-crumb" data-open="">model_loss</a> › <a class="jl-crumb" data-open="model_loss">'
            'model_loss (forward)</a> › <span class="jl-here">block (call 1 of 6, forward)</span>') in page
    assert 'id="grp&#45;model_loss/block.1"' in pictures(page)[0]     # the node a click opens
    assert page == model_grad.graph().html()                        # deterministic
    assert "jl-port" in page and "jl-crumb" in page and "wheel" in front.bundle(frozenset({"graph"}))
    zh = model_grad.graph(lang="zh")
    assert "block（第 3 次调用，共 6 次）" in zh.source and "model_loss（反向）" in zh.source


def test_ahead_false_stores_the_drawing_alone(model_grad):
    """``graph(ahead=False)``: the top-level drawing, no folded call drawn ahead (the course's model-sized
    graph stays light), the same picture as the page with them."""
    light, full = model_grad.graph(ahead=False).html(), model_grad.graph().html()
    groups = re.findall(r'<div class="jl-gview" data-group="([^"]*)"', light)
    assert groups == [""] and " hidden>" not in light
    assert pictures(light) == pictures(full)[:1] and len(light) < len(full) // 4



def test_overview_renders_its_blocks_to_svg(model_grad):
    svg = model_grad.graph().svg()                                # its speed: benchmarks/bench_fold.py
    blocks = set(re.findall(r'id="grp&#45;(model_loss(?:~bwd)?/block\.\d(?:~bwd)?)"', svg))
    assert svg.rstrip().endswith("</svg>") and len(blocks) == 12  # block ×6, forward and backward


def test_a_call_holding_control_flow_draws_its_box_with_binders():
    def body_of(c):
        return jnp.sin(c) * 2.

    def looped(x):
        return lax.fori_loop(0, 3, lambda i, c: body_of(c), x) + 1.

    def outer(x):
        return looped(x) * jnp.cos(x)

    p = trace(outer, jnp.ones(4))
    g = p.graph(path="outer/looped")
    loop = next(e for e in p.eqns if e.subs)
    assert f"cluster_eqn_{loop.id}" in g.source and f'"p/{loop.id}/body/in0"' in g.source
    assert '"p/in0" [label="from x' in g.source and '"p/out0" [label="to outer' in g.source
    assert "</svg>" in g.svg()


# ---------------------------------------------------------------- cost on the graph (issue 22 §2)

def _luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _matmul_tanh():
    return trace(lambda x, w: jnp.tanh(x @ w).sum(), jnp.ones((4, 8)), jnp.ones((8, 8)))


def test_cost_colours_each_node_by_its_share():
    from jaxprlens.engine.cost import costs
    from jaxprlens.views.graph.draw import COST_FILLS, Shares
    p = _matmul_tanh()
    shares = Shares(p, "flops")
    assert shares.total == costs(p).total.flops == 575                  # the total --cost prints
    assert [round(shares.share[e.id], 4) for e in p.eqns] == [round(512 / 575, 4), round(32 / 575, 4),
                                                              round(31 / 575, 4)]
    src = p.graph(cost="flops").source
    dot_node = re.search(r'"eqn-0" \[label="dot_general[^"]*\\n89%" color="#a63603" fillcolor="([^"]+)"', src)
    assert dot_node and dot_node.group(1) == COST_FILLS[-1]              # ≥ 40%: the strongest fill
    assert 'tooltip="' in src and "· 89% of FLOPs" in src and "· 5.6% of FLOPs" in src
    assert "share of estimated FLOPs (total 575 FLOP)" in src and "&lt;1%" in src and "≥40%" in src
    assert "kind_" not in src and ">contraction<" not in src             # the scale replaces the kinds
    by_bytes = p.graph(cost="bytes").source
    assert "· 57% of bytes moved" in by_bytes and "share of estimated bytes moved (total 900 B)" in by_bytes
    zh = p.graph(cost="flops", lang="zh").source
    assert "占FLOPs的 89%" in zh and "估算FLOPs占比（总计 575 FLOP）" in zh
    assert "89%" not in p.graph().source                                 # no cost asked: no number
    with pytest.raises(ValueError, match=r"unknown cost 'time' \(must be one of \['flops', 'bytes'\]\)"):
        p.graph(cost="time")


def test_cost_fills_are_one_hue_and_readable_in_both_themes():
    from jaxprlens.views.graph.draw import COST_FILLS, COST_STROKE, cost_fill
    from jaxprlens.views.graph.render import INK
    lum = [_luminance(c) for c in COST_FILLS]
    assert lum == sorted(lum, reverse=True)                             # sequential: light → strong
    assert all(_contrast(INK, c) >= 7 for c in COST_FILLS)              # the node text (the number too)
    # the fills carry their own background: the stroke sets a node off the light and the dark page
    assert _contrast(COST_STROKE, "#ffffff") >= 3 and _contrast(COST_STROKE, COST_FILLS[0]) >= 3
    assert [cost_fill(x) for x in (0, 0.009, 0.01, 0.2, 0.5, 1.0)] == [
        COST_FILLS[0], COST_FILLS[0], COST_FILLS[1], COST_FILLS[3], COST_FILLS[4], COST_FILLS[4]]


def test_folded_calls_show_their_summed_share(model_grad):
    from jaxprlens.views.graph.draw import Shares
    shares = Shares(model_grad, "flops")
    assert abs(sum(shares.share[e.id] for e in model_grad.eqns) - 1) < 1e-9      # every FLOP counted once
    g = model_grad.graph(cost="flops")
    blocks = re.findall(r'"grp-([^"]+)" \[label="([^"\\]+)', g.source)
    assert len(blocks) == 12 and all(re.fullmatch(r"block \(call \d of 6\) · [\d.]+% of FLOPs", lab)
                                     for _, lab in blocks), blocks
    block3 = shares.of(model_grad.graph(path="model_loss/block.3").group.eqns)
    assert ("model_loss/block.3", f"block (call 3 of 6) · {100 * block3:.1f}% of FLOPs") in blocks
    phases = [float(x) for x in re.findall(r'id="grpbox-[^"]+" label="[^"]* · ([\d.]+)% of FLOPs"', g.source)]
    assert len(phases) == 2 and abs(sum(phases) - 100) < 1.5            # forward + backward: all of it
    one = model_grad.graph(cost="flops", path="model_loss/block.3")      # a call drawn on its own: same scale
    assert "of FLOPs" in one.source
    assert all("of FLOPs" in v.source for v in g.views(3))             # the calls drawn ahead, coloured too


def test_magic_graph_cost_and_table_bar(ip):

    view = ip.run_cell_magic("jaxpr", "--graph --cost bytes", CELL)
    assert isinstance(view, Graph) and view.cost == "bytes" and "of bytes moved" in view.source
    assert ip.run_cell_magic("jaxpr", "--graph --cost", CELL).cost == "flops"
    with pytest.raises(UsageError, match="--cost takes one of '?flops'?, '?bytes'?; got 'time'"):
        ip.run_cell_magic("jaxpr", "--graph --cost time", CELL)
    table = _matmul_tanh().table(cost=True).text()      # the table: the same share, as a small bar
    assert "cost: 512 FLOP, 512 B  ███████▏ 89%" in table and "cost: 32 FLOP, 256 B  ▌░░░░░░░ 5.6%" in table
    assert "████▌░░░ 57%" in _matmul_tanh().table(cost="bytes").text()


# ------------------------------------------------------------------ no calls to fold by (issue 21): views/graph/fold.py

def _unrolled(blocks):
    """An unrolled loop of 4-equation blocks from two lines, between a cos and a sum: no Python calls."""
    def f(x, w):
        x = lax.cos(x)
        for _ in range(blocks):
            h = lax.mul(lax.sin(x), w)
            x = lax.sub(lax.tanh(h), x)
        return jnp.sum(x)
    return f


def test_fold_repeats_finds_blocks_around_prologue_and_epilogue():
    from jaxprlens.views.graph.fold import repeats
    assert repeats([9, 0, 1, 2, 0, 1, 2, 0, 1, 2, 7]) == [(1, 3, 3)]
    assert repeats([0, 0, 1] * 6) == [(0, 3, 6)]           # the block, not the pair inside it
    assert repeats([5] * 10) == [(0, 1, 10)]
    assert repeats([0, 1, 2, 3, 4]) == [] and repeats([]) == []


def test_graph_of_an_unrolled_loop_draws_the_block_once_with_its_count():
    from jaxprlens.views.graph.fold import FoldTree
    program = trace(_unrolled(30), jnp.ones(8), jnp.ones(8))
    g = Graph(program)
    tree = g.group.tree
    assert isinstance(tree, FoldTree)
    rep = tree.root.groups[0]
    assert rep.id == "rep1" and rep.size == 120 and rep.name.startswith("4 equations ×30: test_graph.py line")
    assert [c.id for c in rep.groups] == ["rep1/copy1", "rep1/copies2-30"]
    assert f'label="{rep.name}' in g.source and "copy 1 of 30" in g.source        # the block drawn once, ×30
    assert g._draw.drawn <= 12                          # the block once, the other copies one node
    assert "repeated blocks" in g.summary()
    # the caption in lines of at most 60 columns (one line made a big program's drawing ~1,000 px wide)
    assert _caption(g.source) == ["122 equations and no Python calls to fold by: drawn by",
                                  "repeated blocks (×N) and ranges, 7 shown; click one to open",
                                  "it, or use path="]
    one = Graph(program, path="rep1/copy1")           # a click opens the block: its 4 equations, one node each
    assert sorted(re.findall(r'id="eqn-(\d+)"', one.source), key=int) == ["1", "2", "3", "4"]
    rest = Graph(program, path="rep1/copies2-30")          # the other copies: at most 8 ranges a level
    assert [c.id for c in rest.group.groups][:2] == ["rep1/copies2-30/copies2-5", "rep1/copies2-30/copies6-9"]
    assert len(rest.group.groups) == 8 and rest.group.size == 116
    zh = Graph(program, lang="zh")
    assert "4 个方程 ×30" in zh.source and "第 1 份，共 30 份" in zh.source
    assert _caption(zh.source) == ["122 个方程，没有可折叠的 Python 调用：按重复块（×N）和方程区",   # 60 columns:
                                   "间绘制，显示 7 个；点击一个可展开，或用 path="]               # CJK two each


@pytest.mark.slow                  # 32 s on a loaded 2-core machine, 7 s quiet
def test_graph_folds_a_flat_program_of_100k_equations_to_a_few_nodes():
    program = trace(_unrolled(25_000), jnp.ones(8), jnp.ones(8))
    assert len(program.eqns) == 100_002
    g = Graph(program)
    assert g._draw.drawn <= 20 and g.group.groups[0].name.startswith("4 equations ×25000")
    views = g.views()
    assert views and all(v._draw.drawn <= 60 for v in views)       # every drawing a click opens stays small



def _weights(ws, x):            # a model's shape: a dict of weight arrays, each used by a few equations
    acc = x
    for k in sorted(ws):
        acc = acc + jnp.sin(ws[k]) * x
    return acc


@pytest.mark.slow                  # 22 s on a loaded 2-core machine (the trace of 26k equations)
def test_a_graph_fed_8800_weight_arrays_draws_them_as_one_node():
    ws = {f"layer{i:04d}": jnp.full(4, float(i)) for i in range(8_800)}
    program = trace(_weights, ws, jnp.ones(4))
    assert len(program.invars) == 8_801 and len(program.eqns) >= 3 * 8_800
    g = Graph(program)
    inputs = re.findall(r'"(p/arg\d+)" \[label="([^"]*)"', g.source)
    labels = [label for _, label in inputs]
    assert len(labels) == 2 and labels[0] == "ws\\n8800 values" and re.fullmatch(r"x\\n\w+:f32\[4\]", labels[1])
    nodes = re.findall(r'^\t"?([^"\s]+)"? \[', g.source, re.M)
    assert len(nodes) <= 40 and g.source.count("->") <= 60, (len(nodes), g.source.count("->"))
    views = g.views()
    assert views and all(v.source.count("->") <= 80 and v._draw.drawn <= 60 for v in views)
    one = Graph(program, path=views[0].group.id)        # a call's border: its weights by argument, one node
    assert not re.search(r"from ws\[", one.source)


def test_inputs_and_results_are_grouped_by_argument_a_few_arguments_by_their_first_index():
    from jaxprlens.views.graph.overview import groups
    nnx = ["model.blocks[0].attn.query.kernel.value", "model.embed.embedding.value", "optimizer.step.value",
           "optimizer.opt_state[0].mu.blocks[0]", "tokens", "targets"]
    assert groups(nnx) == ["model", "model", "optimizer", "optimizer", "tokens", "targets"]
    layers = ["params[0]['w']", "params[0]['b']", "params[1]['w']", "x"]
    assert groups(layers) == ["params[0]", "params[0]", "params[1]", "x"]      # a list of layers: per layer
    many = [f"ws['layer{i}']" for i in range(100)] + ["x"]
    assert groups(many) == ["ws"] * 100 + ["x"]                               # ... unless that is a wall


def test_a_graph_with_no_equations_says_why():
    g = trace(lambda x, y: (y, x), jnp.ones(3), 2.0).graph()
    assert _caption(g.source) == ["Nothing to draw: the program has no equations (its results",
                                  "are its inputs or constants)"]
    assert _caption(trace(lambda x: x, 1.0).graph(lang="zh").source) == [
        "没有可绘制的内容：这个程序没有方程（它的结果就是它的输入或常", "量）"]     # no line starts with ）

def test_graph_profile_colours_by_measured_time(ip):
    from jaxprlens.views import Stack
    from jaxprlens.views.compiled.run import Profile
    out = ip.run_cell_magic("jaxpr", "--graph --profile --repeat 2", CELL)
    assert isinstance(out, Stack)
    graph, prof = out.parts
    assert isinstance(graph, Graph) and isinstance(prof, Profile)          # measured once, shown both ways
    assert graph.shares.metric == "time" and graph.shares.total == prof.measured_total
    timed = [r for r in prof.rows if r.median is not None]
    assert abs(sum(graph.shares.share[r.eqn.id] for r in timed) - 1) < 1e-9
    assert "of measured time" in graph.source
    assert "share of measured time (each equation run on its own: " in graph.source
    assert "of FLOPs" in ip.run_cell_magic("jaxpr", "--graph --profile --cost --repeat 1", CELL).parts[0].source


def test_cost_shares_go_inside_loops_and_calls():
    from jaxprlens.views.graph.draw import Shares

    def f(x, w):
        def body(c, _):
            return jnp.tanh(c @ w), None
        y, _ = lax.scan(body, x, None, length=5)
        return jnp.sin(y).sum()

    p = trace(f, jnp.ones((4, 8)), jnp.ones((8, 8)))
    shares = Shares(p, "flops")
    scan = next(e for e in p.eqns if e.primitive == "scan")
    inner = scan.subs[0].program.eqns
    assert abs(sum(shares.share[e.id] for e in inner) - shares.share[scan.id]) < 1e-9   # the loop's share, split
    assert shares.share[scan.id] > 0.9                                  # 5 matmuls against one sin and a sum
    src = p.graph(cost="flops").source
    assert f'"eqn-{inner[0].id}" [label="dot_general' in src and "of FLOPs" in src


def test_cost_legend_reads_in_both_themes():
    from jaxprlens.views.graph.draw import COST_FILLS
    from jaxprlens.views.graph.render import INK
    legend = next(line for line in _matmul_tanh().graph(cost="flops").source.splitlines() if "legend [" in line)
    title = re.search(r'<TD COLSPAN="\d+"[^>]*BGCOLOR="([^"]+)"><FONT COLOR="([^"]+)">share of', legend)
    assert title and (title.group(1), title.group(2)) == (COST_FILLS[0], INK)   # its own light ground
    fonts = set(re.findall(r'<FONT COLOR="([^"]+)">', legend))
    assert fonts == {INK}                                   # every legend word dark on a light cell


def test_a_small_graph_and_its_legend_fit_a_slide_and_a_700px_window():
    """The legend sits beside the inputs: in rows of LEGEND_CHARS (60) a small conv/matmul graph stays under
    700 px, so its legend is whole in a reveal slide (~790 px of output) at 1:1 and in a 700 px window."""
    def mlp(x, w1, w2, k):
        y = lax.conv_general_dilated(x, k, window_strides=(1, 1), padding="SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = jnp.tanh(jnp.dot(y.reshape(2, -1), w1))
        return jnp.sum(jax.nn.relu(jnp.dot(h, w2)))
    p = trace(mlp, jnp.ones((2, 8, 8, 3)), jnp.ones((256, 32)), jnp.ones((32, 10)), jnp.ones((3, 3, 3, 4)))
    assert graph_mod.LEGEND_CHARS == 60
    for g in (p.graph(), p.graph(cost="flops")):
        width = float(re.search(r'<svg width="([\d.]+)pt"', g.svg()).group(1)) * 4 / 3
        legend = next(line for line in g.source.splitlines() if "legend [" in line)
        assert width <= 740 and legend.count("<TR>") >= 2, width           # two rows at least: it wrapped


# ---------------------------------------------------------------- what a student met at 970 px (issue 27, item 7)

def test_ref_reads_and_writes_are_labelled_as_jax_prints_them():
    def refs(x):
        r = jax.new_ref(x)
        r[...] = r[...] + 1.0
        r[2] += 3.0
        return jax.ref.freeze(r)
    p = trace(refs, jnp.zeros(3))
    src = p.graph().source
    assert "tree=" not in src and "PyTreeDef" not in src
    from jaxprlens.model.program import statement
    from jaxprlens.present.escape import dot
    said = [e for e in p.eqns if e.primitive in ("get", "swap")]
    assert len(said) == 4 and all(statement(e) for e in said)
    for e in said:                   # the statement JAX's printer writes, under the primitive's name
        assert f'"eqn-{e.id}" [label="{e.primitive}\\n{dot(statement(e))}"' in src


def test_the_legend_lists_a_constant_only_where_one_is_drawn():

    def legend(src):
        return src[src.index("legend [label="):]

    assert ">constant<" not in legend(trace(lambda x: jnp.sin(x) * 2.0, jnp.ones(3)).graph().source)
    with_const = _program("func8").graph().source                   # a closed-over array: a constant node
    assert '"p/const0"' in with_const and ">constant<" in legend(with_const)


def test_edge_labels_keep_a_space_between_neighbours():
    """Edge labels are padded with a no-break space each side (``draw.PAD``): the labels of an input's edges, side
    by side under it (``dx``, ``dy`` of a jvp), no longer nearly touch. Measured in the SVG: the gap between the
    text boxes of the two closest labels on one rank."""
    def f(x, y):
        return jnp.sin(x) * y + x
    p = trace(lambda x, y, dx, dy: jax.jvp(f, (x, y), (dx, dy)), 1.0, 2.0, 1.0, 0.0)
    src = p.graph().source
    labels = re.findall(r'-> "[^"]+" \[label="([^"]*)"', src)
    assert labels and all(x.startswith(graph_mod.PAD) and x.endswith(graph_mod.PAD) for x in labels)
    svg = p.graph().svg()
    texts = [(float(x), float(y), s) for x, y, s in
             re.findall(r'<text[^>]* x="([\d.-]+)" y="([\d.-]+)"[^>]*font-size="9\.00"[^>]*>([^<]*)<', svg)]
    rows: dict = {}
    for x, y, s in texts:
        if ":f32[]" not in s:                              # the legend's words: not edge labels
            continue
        rows.setdefault(round(y), []).append((x, len(s.strip("\u00a0 "))))
    gaps = []
    for items in rows.values():
        items.sort()
        for (x0, n0), (x1, n1) in zip(items, items[1:]):
            gaps.append((x1 - x0) - (n0 + n1) * 3.6 / 2)     # 9 pt Helvetica: ``e:f32[]`` is ~25 pt wide
    assert gaps and min(gaps) >= 10, sorted(gaps)[:3]         # unpadded: 6 pt (8 px) between e:f32[] and d:f32[]


def test_branch_results_are_labelled_by_name_and_where_they_go():
    src = _program("func7").graph().source
    results = [lab for t, h, lab in _edges(src) if t.startswith("eqn-2/branch")]
    assert results and all(re.fullmatch(r"[a-z]+ → [a-z]+", x) for x in results), results


def test_a_drawing_taller_than_its_port_says_more_is_below():
    g = _program("func1").graph()
    page = g.html()
    assert 'data-l-more="↓ more below: drag up, or “fit” to see it whole"' in page
    assert "data-l-more=\"↓ 下方还有" in _program("func1").graph(lang="zh").html()
    js = front._asset("graph.js")
    assert 'word(box, "more"' in js and 'classList.toggle("jl-clipped"' in js


def test_a_chinese_legend_cell_is_wide_enough_for_its_glyphs():
    """graphviz-pure measures a CJK glyph at ~7.5 of its 9 pt and centres the text on that: 数据搬移 ran past its
    cell. A CJK word's cell asks for 11 pt a glyph (a minimum: dot's own measure can only widen it)."""
    src = trace(lambda a, b: (a @ b).T.sum(), np.ones((2, 3), np.float32),
                np.ones((3, 2), np.float32)).graph(lang="zh").source
    legend = src[src.index("legend [label="):]
    cells = {w: int(n) for n, w in re.findall(r'WIDTH="(\d+)"><FONT COLOR="[^"]+">([^<]+)<', legend)}
    assert cells["数据搬移"] >= 4 * 11 and cells["缩并"] >= 2 * 11, cells
    english = trace(lambda a: a.T.sum(), np.ones((2, 3), np.float32)).graph().source
    assert "WIDTH" not in english[english.index("legend [label="):]           # English cells: as they were


def test_a_picture_past_its_budget_stays_out_of_the_output(monkeypatch):
    """A large drawing's PNG would outweigh its notebook: the output keeps the HTML and the text; save() writes it."""
    from jaxprlens.views.graph import graph as graph_view
    g = _program("func10").graph()
    assert "image/png" in g._repr_mimebundle_()
    monkeypatch.setattr(graph_view, "PNG_MAX", 100)
    assert g.png() is None and set(g._repr_mimebundle_()) == {"text/plain", "text/html"}
    monkeypatch.undo()
    monkeypatch.setenv("JAXPRLENS_GRAPH_PNG", "0")                 # a notebook kept light (the stored course)
    assert g.png() is None and set(g._repr_mimebundle_()) == {"text/plain", "text/html"}


def test_the_graph_picture_is_a_kernel_setting(ip, monkeypatch, capsys):
    """``%jaxpr_config --graph-png off`` leaves the PNG out of every graph from then on (``$JAXPRLENS_GRAPH_PNG=0``
    before it); ``--reset`` brings the variable, else the default, back; a value it does not know is refused."""
    monkeypatch.delenv("JAXPRLENS_GRAPH_PNG", raising=False)
    g = _program("func10").graph()
    try:
        ip.run_line_magic("jaxpr_config", "--graph-png off")
        assert g.png() is None and "image/png" not in g._repr_mimebundle_()
        ip.run_line_magic("jaxpr_config", "")
        assert capsys.readouterr().out.splitlines()[1] == "graph pictures for LaTeX/PDF: off (set by %jaxpr_config)"
        monkeypatch.setenv("JAXPRLENS_GRAPH_PNG", "1")
        assert g.png() is None                                       # %jaxpr_config beats the variable
        ip.run_line_magic("jaxpr_config", "--reset")
        assert "image/png" in g._repr_mimebundle_()
        ip.run_line_magic("jaxpr_config", "")
        assert capsys.readouterr().out.splitlines()[1] == "graph pictures for LaTeX/PDF: on (from $JAXPRLENS_GRAPH_PNG)"
        monkeypatch.setenv("JAXPRLENS_GRAPH_PNG", "yes")
        with pytest.raises(UsageError, match=r"JAXPRLENS_GRAPH_PNG='yes' is not one of \['on', 'off'\]"):
            ip.run_line_magic("jaxpr_config", "")
        with pytest.raises(UsageError, match="--graph-png takes one of 'on', 'off'; got 'maybe'"):
            ip.run_line_magic("jaxpr_config", "--graph-png maybe")
    finally:
        monkeypatch.delenv("JAXPRLENS_GRAPH_PNG")
        ip.run_line_magic("jaxpr_config", "--reset")
