"""engine/sharding.py on 8 CPU devices: each collective tied to the equation that made it, each layout as the
partitioner decided, checked against a reading of the compiled HLO text made here, apart from the engine's.

The programs run in a process of their own (``tests/sharding_cases.py``): XLA fixes the device count when JAX
starts, and the rest of the suite runs on one device."""
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(__file__)
SHARDS = ("shard_map bodies run as one step: each device runs the body on its own block, and the collectives in it "
          "(psum, ppermute, all_gather) need every device's block at the same moment, so the stepper runs the whole "
          "shard_map at once, on every device, as jax.jit does (eqn {id} ran whole; --sharding shows which equations "
          "of the body talk)")
COLLECTIVE = re.compile(r"^\s*(?:ROOT\s+)?%([\w.\-]+) = (\S+) (all-reduce|all-gather|reduce-scatter|all-to-all|"
                        r"collective-permute)(?:-start)?\((.*)$", re.M)


@pytest.fixture(scope="module")
def cases():
    import jax
    if tuple(int(x) for x in jax.__version__.split(".")[:2]) < (0, 12):
        pytest.skip("the sharding cases are written for JAX 0.12's meshes (explicit axes, shardings in the types); "
                    "the sharding view on older JAX is not checked here")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, os.path.join(HERE, "sharding_cases.py")], capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def hlo_collectives(text: str) -> list:
    """``(name, kind, type, eqn id)`` of every collective in an HLO text: the equation read from the innermost
    ``e<id>`` scope of its ``op_name`` (``e0_call_1`` -> ``0/call/1``)."""
    out = []
    for name, type_, kind, rest in COLLECTIVE.findall(text):
        op = re.search(r'op_name="([^"]*)"', rest)
        scopes = re.findall(r"(?:^|/)e(\d+(?:_[a-z]+\d*_\d+)*)(?=/)", op.group(1)) if op else []
        eqn = scopes[-1].replace("_", "/") if scopes else None
        out.append((name, kind, re.sub(r"\{[\d,]*\}", "", type_), eqn))
    return out


def nbytes(type_: str) -> int:
    size = {"f32": 4, "s32": 4, "u32": 4, "f64": 8, "bf16": 2, "f16": 2}
    return sum(size[d] * eval("*".join(dims.split(",")) or "1")
               for d, dims in re.findall(r"([a-z]+\d+)\[([\d,]*)\]", type_))


def sharding_text(spec: list) -> str:
    """The named-mesh form XLA writes a spec in: ``['data', None]`` -> ``[{'data'}, {}]``."""
    def one(p):
        names = [] if p is None else p if isinstance(p, list) else [p]
        return "{" + ", ".join(f"'{n}'" for n in names) + "}"
    return "[" + ", ".join(one(p) for p in spec) + "]"


def check_against_hlo(case: dict):
    """Every collective of the optimized HLO is reported, once, with the equation, kind and bytes that HLO text
    says, the same collectives (kind and per-device type) as JAX's own compile of the function; every layout
    that is split is written so in the partitioner's input on an instruction of that equation."""
    found = hlo_collectives(case["hlo"])
    got = [(c["name"], c["kind"], c["eqn"]) for c in case["collectives"]]
    assert got == [(n, k, e) for n, k, _, e in found]
    for c, (_, _, type_, _) in zip(case["collectives"], found):
        assert c["bytes"] >= nbytes(type_)
    plain = sorted((k, t) for _, k, t, _ in hlo_collectives(case["plain"]))
    assert sorted((k, t) for _, k, t, _ in found) == plain
    for eid, lay in case["layout"].items():
        token = "e" + eid.replace("/", "_")
        lines = [ln for ln in case["partitioned"].splitlines() if re.search(rf"[/\"]{token}/", ln)]
        assert lines, eid
        if lay["manual"]:
            assert any("manual" in ln for ln in lines), eid
        elif not lay["replicated"]:
            assert any(sharding_text(lay["spec"]) in ln for ln in lines), (eid, lay)
            assert all(g <= s for g, s in zip(lay["local"], lay["shape"]))


def test_eight_devices(cases):
    assert cases["devices"] == 8


def test_mlp_all_reduces_on_the_contracting_dot_and_the_mean(cases):
    mlp = cases["mlp"]
    assert mlp["mesh"] == [["data", "model"], [4, 2]] and mlp["partitions"] == 8
    assert [(c["kind"], c["eqn"], c["axes"], c["bytes"], c["case"]) for c in mlp["collectives"]] == [
        ("all-reduce", "2", ["model"], 512, "contracting"),       # f32[4,32] per device: x @ w2 over model
        ("all-reduce", "4", ["data"], 4, "reduction")]            # f32[]: the sum over the batch
    assert mlp["eqns"]["2"] == "dot_general" and mlp["eqns"]["4"] == "reduce_sum"
    assert mlp["total"] == [2, 516]
    assert mlp["per_axes"] == [[["model"], 1, 512], [["data"], 1, 4]]
    check_against_hlo(mlp)


def test_mlp_layouts(cases):
    lay = cases["mlp"]["layout"]
    assert lay["0"] == {"spec": ["data", "model"], "shape": [16, 32], "local": [4, 16], "replicated": False,
                        "manual": False}
    assert lay["2"]["spec"] == ["data", None] and lay["2"]["local"] == [4, 32]
    assert lay["4"]["replicated"] and lay["4"]["local"] == []
    assert cases["mlp"]["inputs"] == [["data", None], [None, "model"], ["model", None]]


def test_mlp_groups_read_from_the_mesh(cases):
    """The model axis is the mesh's last: its groups are neighbours; the data axis's are 2 apart."""
    model, data = cases["mlp"]["collectives"]
    assert model["groups"] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert data["groups"] == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_shard_map_ring(cases):
    ring = cases["ring"]
    kinds = {(c["kind"], c["eqn"], tuple(c["axes"])) for c in ring["collectives"]}
    assert kinds == {("collective-permute", "0/call/1", ("i",)), ("all-reduce", "0/call/0", ("i",))}
    assert ring["eqns"]["0/call/1"] == "ppermute" and ring["eqns"]["0/call/0"].startswith("psum")
    permute = next(c for c in ring["collectives"] if c["kind"] == "collective-permute")
    assert permute["groups"] == [[j, (j + 1) % 8] for j in range(8)] and permute["bytes"] == 8
    assert ring["layout"]["0"]["spec"] == ["i"] and ring["layout"]["0"]["local"] == [2]
    assert ring["layout"]["0/call/1"]["manual"] and ring["layout"]["0/call/1"]["local"] == [2]
    check_against_hlo(ring)


def test_explicit_mode(cases):
    ex = cases["explicit"]
    assert [(c["kind"], c["axes"]) for c in ex["collectives"]] == [("all-gather", ["model"]), ("all-reduce", ["data"])]
    assert ex["collectives"][1]["eqn"] == "2" and ex["collectives"][1]["case"] == "reduction"
    assert ex["layout"]["1"]["spec"] == ["data", None] and ex["layout"]["1"]["local"] == [4, 32]
    check_against_hlo(ex)


def test_no_communication(cases):
    quiet = cases["quiet"]
    assert quiet["collectives"] == [] and quiet["total"] == [0, 0] and quiet["per_axes"] == []
    assert all(v["spec"] == ["data", "model"] and v["local"] == [4, 4] for v in quiet["layout"].values())
    check_against_hlo(quiet)


@pytest.mark.parametrize("name", ["mlp", "ring", "explicit", "quiet", "attention", "constraint"])
def test_runs_as_jit(cases, name):
    """The jaxpr under jax.jit, ``program.run()`` and the stepper run to the end all give what ``jax.jit`` of the
    function gives."""
    case = cases[name]
    assert case["same_as_jit"] and case["run_same_as_jit"] and case["stepped_same_as_jit"]


def printed_eqn(printed: str, lhs: str, prim: str) -> str:
    """An equation of JAX's printed jaxpr on one line: from ``lhs = prim`` to its operands, its ``jaxpr={...}``
    param (the body, which the table shows as rows of its own) left out, runs of spaces and newlines as one."""
    at = printed.index(f"{lhs} = {prim}")
    text = printed[at:]
    if text[len(lhs) + 3 + len(prim)] == "[":
        depth, i = 0, len(lhs) + 3 + len(prim)
        while True:
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        params, rest = text[:i + 1], text[i + 1:]
        if "jaxpr={" in params:
            j = params.index("jaxpr={")
            k, depth = j + 6, 0
            while True:
                depth += {"{": 1, "}": -1}.get(params[k], 0)
                if depth == 0:
                    break
                k += 1
            params = params[:j] + params[k + 1:]
        text = params + rest.split("\n")[0]
    else:
        text = text.split("\n")[0]
    return re.sub(r"\[ ", "[", re.sub(r" \]", "]", re.sub(r"\s+", " ", text))).strip()


@pytest.mark.parametrize("name,prim", [("ring", "shard_map"), ("explicit", "reshard"),
                                       ("constraint", "sharding_constraint")])
def test_sharding_equations_read_as_jax_prints_them(cases, name, prim):
    """A shard_map, reshard or sharding_constraint equation: every param JAX's printer writes, in its order (sorted
    by key), ``None`` and ``frozenset({})`` as it writes them, the same operands (the body aside: its own rows)."""
    case = cases[name]
    eid = next(e for e, p in case["eqns"].items() if p == prim)
    full = case["full"][eid]
    lhs = full.split(" = ")[0]
    assert full == printed_eqn(case["printed"], lhs, prim)


def test_stepper_says_why_a_shard_map_runs_whole(cases):
    """A step into the ring's shard_map runs the body whole on every device (its psum and ppermute need every
    device's block at once); the debugger's panel says so in both languages, and the run equals jax.jit."""
    from bs4 import BeautifulSoup
    stepping = cases["stepping"]
    assert stepping["notes"]["en"] == [["over", SHARDS.format(id=0)]]
    (kind, zh), = stepping["notes"]["zh"]
    assert kind == "over" and zh.startswith("shard_map 的函数体作为一步运行：每个设备在自己的数据块上运行函数体")
    assert "psum、ppermute、all_gather" in zh
    assert zh.endswith("（方程 0 整体运行；--sharding 显示函数体中哪些方程在设备之间通信）")
    note = BeautifulSoup(stepping["html"], "html.parser").select_one(".jl-note.jl-over")
    assert note is not None and note.get_text(strip=True) == zh
    assert stepping["done"] and stepping["same"]


@pytest.mark.parametrize("name", ["ring", "explicit"])
def test_table_types_read_as_jax_prints_them(cases, name):
    """Every equation's left-hand side (``c:f32[16@data,32@model]``, ``e:f32[2]{V:i}``) and the equation
    up to its params, as JAX's printer writes them."""
    printed, table = cases[name]["printed"], cases[name]["table_text"]
    for line in printed.splitlines():
        m = re.match(r"\s*(\S+:\S+(?: \S+:\S+)*) = (\w+)(\[|\s|$)", line)
        if m:
            assert f"{m.group(1)} = {m.group(2)}" in table, line
    assert cases[name]["program_text"] in printed or printed.endswith(cases[name]["program_text"])


def test_reshard_row_as_jax_prints_it(cases):
    """JAX's printer writes ``reshard`` without params (its target is the result's type): so does the table."""
    line = next(ln for ln in cases["explicit"]["printed"].splitlines() if "= reshard" in ln).strip()
    assert line == "d:f32[16@data,32] = reshard c"
    assert re.search(r"^\s*1\s+" + re.escape(line) + r"$", cases["explicit"]["table_text"], re.M)


# ---------------------------------------------------------------- views.compiled.sharding

MLP_TEXT = """\
sharding over 8 devices, mesh data=4×model=2: where the data lives and what talks between devices
2 collectives per call, 516 B per device
over model: 1 collective, 512 B; over data: 1 collective, 4 B
arguments: a: P('data', None) · [4,8] per device; b: P(None, 'model') · [8,16] per device; c: P('model', None) · [16,32] per device
#  equation                                                                  layout on the mesh                        communication
0  d:f32[16,32] = dot_general[dimension_numbers=(((1,), (0,)), ((), (…] a b  P('data', 'model') · [4,16] per device
1  e:f32[16,32] = tanh d                                                     P('data', 'model') · [4,16] per device
2  f:f32[16,32] = dot_general[dimension_numbers=(((1,), (0,)), ((), (…] e c  P('data', None) · [4,32] per device       all-reduce over model · 512 B per device
3  g:f32[16,32] = integer_pow[y=2] f                                         P('data', None) · [4,32] per device
4  h:f32[] = reduce_sum[axes=(0, 1)] g                                       replicated: every device holds all of it  all-reduce over data · 4 B per device
5  i:f32[] = div h 512.0:f32[]                                               replicated: every device holds all of it"""   # noqa: E501 - the table's exact text, one row a line


def test_view_text(cases):
    text = cases["views"]["mlp_en"]["text"]
    assert text.startswith(MLP_TEXT + "\n")
    notes = text[len(MLP_TEXT) + 1:].splitlines()
    assert len(notes) == 2
    assert notes[0].startswith("equation 2 (dot_general) contracts over a dimension split over model")
    assert "reduce-scatter" in notes[0]
    assert notes[1].startswith("equation 4 (reduce_sum) reduces over a dimension split over data")


def test_view_text_zh(cases):
    text = cases["views"]["mlp_zh"]["text"]
    assert "沿 model 的 all-reduce · 每个设备 512 B" in text and "沿 data 的 all-reduce · 每个设备 4 B" in text
    assert "方程 2（dot_general）沿一个被切分到 model 的维度做缩并" in text
    assert "per device" not in text and "replicated" not in text


def test_view_html_marks_the_rows_that_talk(cases):
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(cases["views"]["mlp_en"]["html"], "html.parser")
    assert soup.find("script") is None and soup.find("style") is None         # reads the same untrusted
    rows = soup.select("tbody tr[data-eqn]")
    assert [r["data-eqn"] for r in rows] == ["0", "1", "2", "3", "4", "5"]
    marked = {r["data-eqn"]: r.select_one(".jl-comm").get_text(strip=True) for r in rows if r.select_one(".jl-comm")}
    assert marked == {"2": "⇄ all-reduce over model · 512 B per device", "4": "⇄ all-reduce over data · 4 B per device"}
    assert rows[0].find_all("td")[2].get_text() == "P('data', 'model') · [4,16] per device"
    assert len(soup.select(".jl-shard-note")) == 2


def test_view_picture_is_the_mesh(cases):
    """Each argument and each communicating row's result drawn as the 4×2 grid of devices, each cell the block
    that device holds, as numpy slices it."""
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(cases["views"]["mlp_en"]["html"], "html.parser")
    pictures = soup.select("figure.jl-shard-picture")
    assert [p["data-value"] for p in pictures] == ["0", "1", "2", "2", "4"]
    x = pictures[0]
    grid = [[td.find_all("div")[1].get_text() for td in tr.find_all("td")] for tr in x.find_all("tr")]
    assert grid == [["[0:4, :]"] * 2, ["[4:8, :]"] * 2, ["[8:12, :]"] * 2, ["[12:16, :]"] * 2]
    assert [td["data-device"] for td in x.find_all("td")] == [str(d) for d in range(8)]
    w1 = [[td.find_all("div")[1].get_text() for td in tr.find_all("td")] for tr in pictures[1].find_all("tr")]
    assert w1 == [["[:, 0:16]", "[:, 16:32]"]] * 4
    assert "replicated along data" in pictures[1].get_text()


def test_view_ring_one_row_and_its_body(cases):
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(cases["views"]["ring_en"]["html"], "html.parser")
    pictures = soup.select("figure.jl-shard-picture")
    assert len(pictures) == 1 and len(pictures[0].find_all("tr")) == 1                # a one-axis mesh: one row
    assert [td.find_all("div")[1].get_text() for td in pictures[0].find_all("td")] == [
        f"[{2 * d}:{2 * d + 2}]" for d in range(8)]
    text = cases["views"]["ring_en"]["text"]
    assert re.search(r"^0/call/1 .*ppermute.*shard_map body: each device's own \[2\]\s+collective-permute over i · "
                     r"8 B per device$", text, re.M)


def test_one_device():
    """On one device (this process): nothing split, no collective, every row whole."""
    import jax.numpy as jnp
    import jaxprlens
    program = jaxprlens.trace(lambda x: jnp.sin(x) * 2.0, jnp.ones(3))
    view = program.sharding(lang="en")
    assert view.collectives == [] and view.map.partitions == 1 and view.total.count == 0
    assert view.text().splitlines() == [
        "sharding: the program runs on one device; nothing is split and no collective runs.",
        "#  equation                    layout on the mesh    communication",
        "0  b:f32[3] = sin a            whole, on one device",
        "1  c:f32[3] = mul b 2.0:f32[]  whole, on one device"]


# ---------------------------------------------------------------- roles and explanations of collectives

def ring_on_one_device():
    """A shard_map over a one-device mesh: every collective is an equation of its body, on this process's device."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, PartitionSpec as P
    mesh = jax.make_mesh((1,), ("i",), axis_types=(AxisType.Auto,))

    def ring(x):
        def body(b):
            s = jax.lax.psum(b, "i")
            g = jax.lax.all_to_all(jax.lax.all_gather(b, "i"), "i", 0, 0)
            return jax.lax.ppermute(b, "i", [(0, 0)]) + s + jax.lax.axis_index("i") + g.sum()
        return jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(x)
    import jaxprlens
    return jaxprlens.trace(ring, jnp.arange(4.0))


@pytest.mark.parametrize("lang,roles,across", [
    ("en", "operand roles: 1 operand; across the devices of mesh axis i",
     "operand roles: across the devices of mesh axis i"),
    ("zh", "操作数角色：1 个操作数；跨设备网格轴 i 上的设备", "操作数角色：跨设备网格轴 i 上的设备")])
def test_collective_roles_and_explanations(lang, roles, across):
    from jaxprlens.model.explain import explain
    program = ring_on_one_device()
    body = {e.primitive: e for e in program.walk() if "/" in e.id}
    assert {"psum_invariant", "all_gather", "all_to_all", "ppermute", "pvary", "axis_index"} <= set(body)
    lines = program.table(lang=lang).text().splitlines()
    for prim in body:
        if prim not in ("psum_invariant", "all_gather", "all_to_all", "ppermute", "pvary", "axis_index"):
            continue
        at = next(i for i, ln in enumerate(lines) if f" = {prim}[" in ln)
        note = next(ln.strip() for ln in lines[at + 1:at + 4] if ln.strip().startswith(roles[:6]))
        assert note == (across if prim == "axis_index" else roles), prim
        assert explain(prim, lang) in lines[at + 1], prim
    for prim in ("psum", "all_gather", "ppermute", "all_to_all", "axis_index", "pvary"):
        from jaxprlens.model.explain import explain_rules
        en, zh = explain_rules[prim][:2]
        assert en and zh and en != zh


def test_attention_with_sharded_heads(cases):
    """Heads split over model: the projections and the attention itself stay on each device; the output projection
    contracts over the heads (an all-reduce over model), the mean loss over the batch (an all-reduce over data)."""
    att = cases["attention"]
    got = [(c["kind"], att["eqns"][c["eqn"]], c["axes"], c["bytes"], c["case"]) for c in att["collectives"]]
    assert got == [("all-reduce", "dot_general", ["model"], 8 * 4 * 16 * 4 // 4, "contracting"),
                   ("all-reduce", "reduce_sum", ["data"], 4, "reduction")]
    dots = [e for e, p in att["eqns"].items() if p == "dot_general"]
    assert att["collectives"][0]["eqn"] == dots[-1]                       # the output projection
    for e in dots[:-1]:                                                   # q, k, v, scores, weighted values
        assert "model" in att["layout"][e]["spec"], e
    check_against_hlo(att)


def test_magic_option(cases):
    """``%%jaxpr --sharding`` shows the same view as ``program.sharding()``."""
    assert cases["magic"] == cases["views"]["mlp_en"]["text"]


# ---------------------------------------------------------------- the graph marked by communication

def _node(src: str, node: str) -> str:
    return next(line for line in src.splitlines() if line.lstrip().startswith(f'"{node}" ['))


def _label(line: str) -> list:
    return re.search(r'[ []label="((?:[^"\\]|\\.)*)"', line).group(1).split("\\n")


@pytest.mark.parametrize("lang,marks,legend", [
    ("en", {"2": "⇄ all-reduce over model · 512 B", "4": "⇄ all-reduce over data · 4 B"},
     "⇄ border: talks between devices (bytes per device)"),
    ("zh", {"2": "⇄ 沿 model 的 all-reduce · 512 B", "4": "⇄ 沿 data 的 all-reduce · 4 B"},
     "⇄ 边框：设备之间通信（每个设备的字节数）")])
def test_graph_marks_the_equations_that_talk(cases, lang, marks, legend):
    """``program.graph(sharding=view)``: the two equations that made a collective bordered in vermillion, the
    collective the last line of their label, one legend entry; every other node as the plain graph draws it."""
    src, plain = cases["graph"][f"mlp_{lang}"]["dot"], cases["graph"]["mlp_plain"]
    for eid in cases["mlp"]["eqns"]:
        line = _node(src, f"eqn-{eid}")
        if eid in marks:
            assert _label(line)[-1] == marks[eid], line
            assert 'color="#D55E00"' in line and "penwidth=3" in line and "jl-comm" in line
            assert line.endswith('"]') and marks[eid] in line.split(" tooltip=")[1]
        else:
            assert "penwidth" not in line and "⇄" not in line, line
    legend_line = _node(src, "legend") if '"legend" [' in src else next(ln for ln in src.splitlines()
                                                                           if ln.lstrip().startswith("legend ["))
    assert re.search('<TR><TD COLSPAN="5" BGCOLOR="#ffffff" COLOR="#D55E00"[^>]*><FONT COLOR="#1a1a1a">'
                     + re.escape(legend) + '</FONT></TD></TR>', legend_line)         # a row of its own, across
    assert "⇄" not in plain and "jl-comm" not in plain


def test_graph_svg_carries_the_marks(cases):
    svg = cases["graph"]["mlp_en"]["svg"]
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    assert "⇄ all&#45;reduce over model · 512 B" in texts and "⇄ all&#45;reduce over data · 4 B" in texts
    marked = re.findall(r'<g id="(eqn&#45;\d+)" class="node [^"]*jl&#45;comm"', svg)
    assert marked == ["eqn&#45;2", "eqn&#45;4"]
    for eid in ("2", "4"):
        node = svg[svg.index(f'<g id="eqn&#45;{eid}"'):]
        node = node[:node.index("</g>")]
        assert re.search(r'<path [^>]*stroke="#d55e00" stroke-width="3"', node, re.I), node


def test_graph_ring_body_and_folded(cases):
    """A shard_map's collectives are equations of its body: drawn open, those nodes are marked; folded, the
    folder that stands for the body is, with both collectives."""
    src = cases["graph"]["ring"]
    assert _label(_node(src, "eqn-0/call/1"))[-1] == "⇄ collective-permute over i · 8 B"
    assert _label(_node(src, "eqn-0/call/0"))[-1].startswith("⇄ all-reduce over i · ")
    assert "⇄" not in _node(src, "eqn-0")
    folded = _label(_node(cases["graph"]["ring_folded"], "fold-0/call"))
    assert sorted(x.split(" · ")[0] for x in folded[-2:]) == ["⇄ all-reduce over i", "⇄ collective-permute over i"]


def test_graph_and_sharding_in_one_cell_compile_once(cases):
    magic = cases["graph"]["magic"]
    assert magic["compiles"] == 1 and magic["same_map"]
    assert _label(_node(magic["dot"], "eqn-2"))[-1] == "⇄ all-reduce over model · 512 B"


def test_graph_marks_are_escaped_once():
    """A mesh axis is a user's string: escaped once for DOT by ``present/escape.py`` (no quote ends the label),
    shown as written in the SVG; more collectives of one kind on one node counted; past two kinds, the rest
    counted too."""
    import jax.numpy as jnp
    import jaxprlens
    from jaxprlens.engine.sharding import Collective, Mesh, ShardingMap
    from jaxprlens.views.graph.render import RenderError
    program = jaxprlens.trace(lambda x, w: jnp.mean(jnp.tanh(x @ w)), jnp.ones((4, 3)), jnp.ones((3, 2)))
    axis = 'd<"a>&'
    smap = ShardingMap(Mesh((axis, "m"), (4, 2)), [
        Collective("all-reduce", "0", (axis,), 512, "all-reduce.1"),
        Collective("all-reduce", "0", (axis,), 512, "all-reduce.2"),
        Collective("all-gather", "2", ("m",), 8, "all-gather"),
        Collective("all-to-all", "2", ("m",), 8, "all-to-all"),
        Collective("collective-permute", "2", (axis, "m"), 8, "collective-permute", in_loop=True)], {}, [], 8)
    g = program.graph(sharding=smap, lang="en")
    line = _node(g.source, "eqn-0")
    assert _label(line)[-1] == '⇄ 2× all-reduce over d&lt;\\"a&gt;&amp; · 1.0 kB'
    assert _label(_node(g.source, "eqn-2"))[-3:] == ["⇄ all-gather over m · 8 B", "⇄ all-to-all over m · 8 B",
                                                      "+1 more"]
    assert "⇄" not in _node(g.source, "eqn-1")
    try:
        svg = g.svg()
    except RenderError:
        pytest.skip("no graph renderer here")
    assert '⇄ 2× all&#45;reduce over d&lt;&quot;a&gt;&amp; · 1.0 kB' in svg
    zh = program.graph(sharding=smap, lang="zh").source
    assert _label(_node(zh, "eqn-0"))[-1] == '⇄ 2 次 沿 d&lt;\\"a&gt;&amp; 的 all-reduce · 1.0 kB'


# ---------------------------------------------------------------- many processes (multi-controller)

def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def processes():
    """Two processes joined by ``jax.distributed`` on 127.0.0.1 (gloo), four devices each, one mesh of eight:
    each traces, runs and reads the sharding of a data-parallel step (``tests/sharding_processes.py``).  The
    timeout is a safety net: the two wait on each other, and on the coordinator, not on a clock."""
    import jax
    if tuple(int(x) for x in jax.__version__.split(".")[:2]) < (0, 12):
        pytest.skip("the multi-process case is written for JAX 0.12's meshes")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, "..", "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    env.pop("XLA_FLAGS", None)
    port = free_port()
    script = os.path.join(HERE, "sharding_processes.py")
    procs = [subprocess.Popen([sys.executable, script, str(i), str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for i in range(2)]
    outs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=900)
            assert p.returncode == 0, err[-3000:]
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    skip = [o["skip"] for o in outs if "skip" in o]
    if skip:
        pytest.skip(f"this jaxlib has no CPU collectives over gloo ({skip[0]}): the multi-process case needs them")
    return outs


def test_two_processes_one_mesh(processes):
    assert [(o["process"], o["processes"], o["devices"], o["local_devices"]) for o in processes] == [
        (0, 2, 8, 4), (1, 2, 8, 4)]
    assert processes[0]["eqns"] == processes[1]["eqns"]


def test_two_processes_run_as_jit(processes):
    """``program.run()`` in each process equals ``jax.jit``: the replicated weights and loss whole, the per-example
    outputs block by block, the blocks this process holds; its text says what this process sees of a value split
    across processes."""
    for o in processes:
        assert o["same_as_jit"] == [True, True, True]
        lines = o["run_text"].splitlines()
        assert lines[-1] == ("  out[2] = float32[8, 2] across 2 processes: this process holds the blocks of 4 of its 8 "
                             "devices (jax.experimental.multihost_utils.process_allgather gathers it whole)")
        assert lines[-3].startswith("  out[0] = float32[3, 2] [[") and re.match(r"  out\[1\] = \d", lines[-2])


def test_two_processes_sharding(processes):
    """The same reading in both processes: the batch split over the 8 devices of both, one all-reduce over the data
    axis that XLA combined from the loss's sum (4 B) and the gradient's contraction over the batch (24 B): both rows
    marked, each naming the other."""
    first, second = processes
    assert first["partitions"] == 8 and first["inputs"] == ["P(None, None)", "P('data', None)"]
    assert first["collectives"] == [["all-reduce", "5", ["data"], 28, ["5", "12"]]]
    assert first["eqns"]["5"] == "reduce_sum" and first["eqns"]["12"] == "dot_general"
    assert first["sharding_text"] == second["sharding_text"]
    lines = first["sharding_text"].splitlines()
    assert lines[0].startswith("sharding over 8 devices, mesh data=8:")
    assert lines[1] == "1 collective per call, 28 B per device"
    for eid, other in (("5", "12"), ("12", "5")):
        row = next(ln for ln in lines if ln.startswith(f"{eid} "))
        assert row.endswith(f"all-reduce over data · 28 B per device, shared with equation {other}"), row


def test_a_combined_collective_names_each_equation():
    """XLA's combiner joins the op_names of the collectives it merges (``prefix/(a:b)``): each part's equation, the
    one the collective is filed under first; one equation's collective names none."""
    from jaxprlens.engine.sharding import combined
    tokens = {"e12": "12", "e5": "5", "e0_call_1": "0/call/1"}
    assert combined("jit(f)/(transpose(jvp(e12))/dot_general:jvp(e5)/reduce_sum)", tokens, "5") == ("5", "12")
    assert combined("jit(f)/(e0_call_1/psum:e5/reduce_sum:e5/reduce_sum)", tokens, "0/call/1") == ("0/call/1", "5")
    assert combined("jit(f)/e2/dot_general", tokens, "2") == ()
    assert combined("jit(f)/(e5/reduce_sum:e5/mul)", tokens, "5") == ()
