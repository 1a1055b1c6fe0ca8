"""engine/fusion.py and views/compiled/fusion.py: every equation mapped to the compiled kernel it landed in."""
import re

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import pytest
from bs4 import BeautifulSoup

import jaxprlens
from jaxprlens.engine.cost import costs
from jaxprlens.present.i18n import si
from jaxprlens.engine.fusion import fusion_map, parse_hlo, scope_name
from jaxprlens.model.program import Eqn
from jaxprlens.present.i18n import width
from jaxprlens.present.rows import walk
from jaxprlens.views.compiled.fusion import FusionView
from seeds import SEEDS

SESSION_OK = hasattr(jax.profiler, "ProfileSession")
SESSION = pytest.mark.skipif(not SESSION_OK, reason="jax.profiler.ProfileSession is JAX 0.11+ "
                                                     "(this JAX says so instead: a kerneltime test)")
RECORDED = pytest.mark.skipif(tuple(int(x) for x in jax.__version__.split(".")[:2]) < (0, 12),
                              reason="tests/traces was recorded on JAX 0.12; "
                                     "an older XLA names the loop's kernels apart")


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.sum(x ** 2)


MLP_ARGS = ([(jnp.ones((4, 8)) * .1, jnp.zeros(8)), (jnp.ones((8, 3)) * .1, jnp.zeros(3))], jnp.ones((2, 4)))


def scanned(xs):
    def step(carry, x):
        y = jnp.sin(carry) * x + 1.0
        return y, jnp.cos(y)
    return jax.lax.scan(step, jnp.zeros(3), xs)


def chain(x, y):
    return jnp.sin(x) * jnp.cos(y) + y


def solved(a, b):
    """``custom_linear_solve``: its param ``jaxprs`` is a namedtuple of sub-jaxprs (matvec, solve, ...)."""
    return jnp.sum(jnp.linalg.solve(a, b) ** 2)


SOLVE_ARGS = (jnp.array([[3., 1.], [1., 2.]]), jnp.array([1., 2.]))
PROGRAMS = {**{name: (fn, args) for name, (fn, args) in SEEDS.items()},
            "mlp": (mlp, MLP_ARGS), "mlp_grad": (jax.grad(mlp), MLP_ARGS),
            "scan": (scanned, (jnp.ones((5, 3)),)), "chain": (chain, (jnp.ones(8), jnp.ones(8))),
            "solve": (solved, SOLVE_ARGS), "solve_grad": (jax.grad(solved), SOLVE_ARGS)}


@pytest.fixture(scope="module")
def maps():
    out = {}
    for name, (fn, args) in PROGRAMS.items():
        program = jaxprlens.trace(fn, *args)
        out[name] = (program, fusion_map(program))
    return out


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_every_equation_is_under_each_kernel_that_computes_it_or_said_removed(maps, name):
    program, m = maps[name]
    ids = [e.id for e in program.walk()]
    under = {}
    for k in m.kernels:
        assert len(set(k.eqns)) == len(k.eqns)
        for e in k.eqns:
            under.setdefault(e, []).append(k.name)
    assert sorted(list(under) + m.removed + m.inlined) == sorted(ids)          # each once: none left out
    assert m.n_eqns == len(ids)
    for e, names in under.items():             # one kernel, or several: those ``spread`` names, ``of`` among them
        assert m.of[e] in names and (names == [m.of[e]] if e not in m.spread else set(names) == set(m.spread[e]))
        assert set(m.recomputed.get(e, ())) <= set(names)


def _computations(text):
    """{computation: [(instruction, opcode, op_name, callee)]} read with plain regexes (not parse_hlo)."""
    comps, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^(?:ENTRY )?%(\S+) \(", line)
        if head and line.rstrip().endswith("{"):
            current = head.group(1)
            comps[current] = []
        elif line.strip() == "}":
            current = None
        elif current and "=" in line:
            name = re.search(r"%([\w.\-]+) =", line).group(1)
            opcode = re.search(r"\s([a-z][a-z0-9\-]*)\(", line.split("=", 1)[1]).group(1)
            op = re.search(r'op_name="([^"]*)"', line)
            callee = re.search(r"calls=%([\w.\-]+)", line)
            comps[current].append((name, opcode, op.group(1) if op else "", callee.group(1) if callee else None))
    return comps


@pytest.mark.parametrize("name", ["func1", "func10", "func11", "one_of_three", "mlp", "mlp_grad", "scan"])
def test_fusions_hold_the_equations_their_op_names_name(maps, name):
    program, m = maps[name]
    scope = {scope_name(e.id): e.id for e in program.walk()}
    comps = _computations(m.hlo)
    named_anywhere = set()
    for body in comps.values():
        for _, _, op, callee in body:
            ids = [scope[p] for p in re.findall(r"\w+", op) if p in scope]
            if ids:
                named_anywhere.add(ids[-1])
            if callee:                      # a fusion: the equations named inside its fused computation
                inside = {[scope[p] for p in re.findall(r"\w+", o) if p in scope][-1]
                          for _, _, o, _ in comps[callee] if any(p in scope for p in re.findall(r"\w+", o))}
                fusion = [n for n, _, o, c in body if c == callee][0]
                if fusion in {k.name for k in m.kernels}:
                    assert set(m.kernel(fusion).eqns) <= inside | {ids[-1]} if ids else inside
                by_id = {x.id: x for x in program.walk()}
                for e in inside:                # a loop's own counter and test: the loop's kernel holds them
                    assert m.of[e] == fusion or fusion in m.spread.get(e, ()) or by_id[e].subs
    assert named_anywhere.isdisjoint(m.removed)
    assert {e for k in m.kernels for e in k.eqns} <= named_anywhere


def _named_scope_hlo(program):
    """The compiled HLO of the top-level equations bound each inside ``jax.named_scope(f"e{i}")``, as the
    issue's feasibility note does it (no name-stack rewriting)."""
    jaxpr = program.jaxpr

    def run(*args):
        env = dict(zip(jaxpr.jaxpr.invars, args))
        env.update(zip(jaxpr.jaxpr.constvars, jaxpr.consts))
        read = lambda a: a.val if isinstance(a, jex.Literal) else env[a]  # noqa: E731 - a one-line reader beside the loop it serves
        for i, e in enumerate(jaxpr.jaxpr.eqns):
            with jax.named_scope(f"e{i}"):
                out = e.primitive.bind(*map(read, e.invars), **e.primitive.get_bind_params(e.params))
            env.update(zip(e.outvars, out if e.primitive.multiple_results else [out]))
        return [read(v) for v in jaxpr.jaxpr.outvars]
    return jax.jit(run).lower(*program.args).compile().as_text()


@pytest.mark.parametrize("name", ["func1", "func10", "mlp", "mlp_grad", "scan", "chain"])
def test_top_level_kernels_agree_with_named_scopes(maps, name):
    program, m = maps[name]
    text = _named_scope_hlo(program)
    instructions, entry, called = parse_hlo(text)
    seen = {int(re.search(r"/e(\d+)(?:/|$)", i.op_name).group(1)) for i in instructions
            if re.search(r"/e(\d+)(?:/|$)", i.op_name)}
    ours = {int(e) for k in m.kernels for e in k.eqns if "/" not in e}
    assert ours == seen


def test_a_linear_solve_keeps_its_params_kind_and_runs_as_compiled(maps):
    program, m = maps["solve"]
    solve = next(e for e in program.walk() if e.primitive == "custom_linear_solve")
    assert type(solve.raw.params["jaxprs"]).__name__ == "_LinearSolveTuple"
    assert m.kernels and any(k.eqns for k in m.kernels)
    assert "solve" in m.hlo or "custom-call" in m.hlo or "triangular-solve" in m.hlo


def test_an_elementwise_chain_is_one_kernel(maps):
    program, m = maps["chain"]
    assert [e.primitive for e in program.eqns] == ["sin", "cos", "mul", "add"]
    assert len(m.kernels) == 1 and m.kernels[0].eqns == ["0", "1", "2", "3"]
    assert m.kernels[0].kind == "loop fusion"
    assert m.saved == 3 * 32                  # sin, cos and mul's results stay inside the kernel
    assert m.kernels[0].flops == sum(costs(program)[e].flops for e in "0123")


def test_a_scan_body_has_kernels_of_its_own(maps):
    program, m = maps["scan"]
    body = [e.id for e in program.walk() if "/" in e.id]
    assert body and all(m.of.get(e) or e in m.removed for e in body)
    loop = m.of[next(e.id for e in program.eqns if e.primitive == "scan")]
    assert {m.of[e] for e in body if e in m.of}.isdisjoint({loop})


def test_the_text_is_exact():
    view = jaxprlens.trace(chain, jnp.ones(8), jnp.ones(8)).fusion()
    assert view.text() == """\
fusion map: the kernels XLA compiled the program into (cpu)
4 equations → 1 kernel; intermediate bytes not written: 96 B
kernel               kind         equations                     FLOPs  bytes
multiply_add_fusion  loop fusion  0 sin, 1 cos, 2 mul, 3 add  32 FLOP  320 B
FLOPs and bytes: the cost rules summed over each kernel's equations, once per run of the computation it is in
(a loop body's kernels: per iteration; a loop's or call's own kernel: its body's work is in the body's
kernels). Intermediate bytes not written: values an equation makes that only equations of the same kernel
read."""


def test_the_text_in_chinese_with_removed_equations():
    fn, args = SEEDS["func10"]
    text = jaxprlens.trace(fn, *args).fusion(lang="zh").text()
    assert text.splitlines()[:2] == ["融合图：XLA 把程序编译成的计算内核（cpu）",
                                     "8 个方程 → 5 个计算内核；未写入内存的中间值：64 B"]
    lines = text.splitlines()
    assert "被 XLA 删去（没有指令来自它们：折叠为常量、被化简或无用）：0 broadcast_in_dim" in lines
    assert "没有指令带有它们的名字，但其结果只流入一个计算内核，很可能由该计算内核计算：2/body/1 mul → add_add_fusion" in lines  # noqa: E501 - the exact text a reader sees, kept whole


def test_the_html_tints_rows_by_kernel_and_needs_no_script(maps):
    program, _ = maps["mlp"]
    view = FusionView(program)
    soup = BeautifulSoup(view.html(), "html.parser")
    assert not soup.find_all(["script", "style"]) and "class=\"jl-" in view.html()
    rows = soup.select("tr[data-eqn]")
    assert [r["data-eqn"] for r in rows] == [e.id for e in program.walk()]
    legend = soup.select("tr[data-kernel]")
    assert [r["data-kernel"] for r in legend] == [k.name for k in view.kernels]
    for r in rows:
        k, near = view.of.get(r["data-eqn"]), view.map.absorbed.get(r["data-eqn"])
        assert r["style"] == (f"background:{view.colour[k]}33;" if k else
                              f"background:{view.colour[near]}14;" if near else "")
    assert any(view.map.absorbed.get(r["data-eqn"]) for r in rows)       # mlp's broadcasts of the biases
    # its legend's numbers never wrap: in a notebook narrower than it (970 px, a side panel open) it scrolls in a
    # box of its own instead of running past the output
    assert soup.select_one("table.jl-fusion-legend").parent["style"] == "overflow-x:auto;max-width:100%"


def test_the_magic_option(ip):
    view = ip.run_cell_magic("jaxpr", "--fusion --lang zh", "import jax.numpy as jnp\n"
                             "def f(x):\n    return jnp.sin(x) * 2\nf(jnp.ones(3))")
    assert isinstance(view, FusionView) and view.lang == "zh"
    assert view.text().splitlines()[1] == "2 个方程 → 1 个计算内核；未写入内存的中间值：12 B"



def _count_compiles(monkeypatch) -> list:
    """A list that gets an item per compile of a program from now on (``engine.compiled.compile_lowered``: every
    compile goes through it)."""
    from jaxprlens.engine import compiled
    calls, real = [], compiled.compile_lowered
    monkeypatch.setattr(compiled, "compile_lowered", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


STEP_CELL = ("import jax, jax.numpy as jnp\n"
             "def loss(params, x):\n    for w in params:\n        x = jnp.tanh(x @ w)\n    return jnp.sum(x ** 2)\n"
             "def step(params, x):\n"
             "    return [w - 0.1 * g for w, g in zip(params, jax.grad(loss)(params, x))]\n"
             "step([jnp.ones((4, 4)) * 0.1] * 3, jnp.ones((2, 4)))")


@pytest.mark.parametrize("options", ["--run --fusion --memory", "--run --fusion --memory --sharding",
                                     "--run --device cpu --fusion --memory", "--graph --fusion --run"])
def test_run_fusion_and_memory_in_one_cell_compile_once(ip, monkeypatch, options):
    calls = _count_compiles(monkeypatch)
    out = ip.run_cell_magic("jaxpr", options, STEP_CELL)
    assert len(calls) == 1
    run = out.parts[-1]
    params, x = [jnp.ones((4, 4)) * 0.1] * 3, jnp.ones((2, 4))
    step = ip.user_ns["step"]
    for got, want in zip(run.outputs, jax.jit(step)(params, x)):      # the scoped compile runs as jax.jit does
        assert jnp.array_equal(got, want)
    fusion = next(p for p in out.parts if isinstance(p, FusionView))
    assert run.compile_time > 0 and fusion.map.kernels


def test_a_run_after_the_map_reuses_its_compile_and_a_new_device_compiles_its_own(monkeypatch):
    program = jaxprlens.trace(mlp, *MLP_ARGS)
    fusion_map(program)
    calls = _count_compiles(monkeypatch)
    first = program.run(repeat=2)
    assert not calls and program.memory().compiled["argument"] > 0 and not calls
    program.run(device="cpu", repeat=2)              # asked for by name: the arguments committed there, compiled again
    assert len(calls) == 1 and program.run(device="cpu", repeat=2).outputs == first.outputs and len(calls) == 1


def test_fusion_and_memory_in_one_cell_compile_once(ip, monkeypatch):
    calls = _count_compiles(monkeypatch)
    out = ip.run_cell_magic("jaxpr", "--fusion --memory", "import jax.numpy as jnp\n"
                            "def f(x):\n    return jnp.sin(x) * 2\nf(jnp.ones(3))")
    fusion, mem = out.parts
    assert isinstance(fusion, FusionView) and mem.compiled["argument"] == 12 and len(calls) == 1


def test_a_map_made_again_reuses_the_compile_and_is_the_same(monkeypatch):
    program = jaxprlens.trace(mlp, *MLP_ARGS)
    first = fusion_map(program)
    calls = _count_compiles(monkeypatch)
    again, profiled = fusion_map(program), fusion_map(program, profile=True, repeat=2) if SESSION_OK else None
    assert not calls and again is not first and again.kernels is not first.kernels
    assert [(k.name, k.kind, k.eqns, k.cost, k.saved) for k in again.kernels] == \
        [(k.name, k.kind, k.eqns, k.cost, k.saved) for k in first.kernels]
    assert (again.of, again.removed, again.absorbed, again.hlo) == (first.of, first.removed, first.absorbed, first.hlo)
    assert all(k.time is None for k in first.kernels + again.kernels)   # a profile's times are its own map's
    if profiled is not None:
        assert profiled.times is not None and profiled.of == first.of
    other = jaxprlens.trace(mlp, *MLP_ARGS)          # another program (the same function) compiles its own
    assert fusion_map(other).of == first.of and len(calls) == 1


# ---------------------------------------------------------------- the graph coloured by kernel

def _node(src: str, eqn_id: str) -> str:
    return next(line for line in src.splitlines() if line.lstrip().startswith(f'"eqn-{eqn_id}" ['))


def test_the_graph_outlines_each_equation_in_its_kernel_s_colour(maps):
    program, _ = maps["mlp"]
    view = FusionView(program)
    src = program.graph(fusion=view).source
    for e in program.walk():
        line, k, near = _node(src, e.id), view.of.get(e.id), view.map.absorbed.get(e.id)
        if k or near:                       # its kernel's colour, thick; dashed where XLA likely absorbed it
            assert f'color="{view.colour[k or near]}"' in line and "penwidth=3" in line, line
            assert ("dashed" in line) == (k is None), line
            assert (f"kernel {k}" if k else f"likely in {near}") in line
        else:
            assert "penwidth" not in line, line
    legend = next(line for line in src.splitlines() if "legend [" in line)
    assert ">outline: compiled kernel<" in legend
    assert [n for n in re.findall(r'<FONT COLOR="[^"]+">([^<]+)</FONT>', legend) if n in view.colour] == [
        k.name for k in view.kernels]                                     # each kernel once, in XLA's order
    assert "penwidth" not in program.graph().source and "compiled kernel" not in program.graph().source
    zh = program.graph(fusion=view, lang="zh").source
    assert ">边框：计算内核<" in zh and "计算内核 " in zh


def test_a_chain_of_elementwise_equations_is_one_colour(maps):
    program, m = maps["chain"]
    src = program.graph(fusion=m).source                   # a FusionMap does as well as the view
    colours = {re.search(r' color="([^"]+)"', _node(src, e.id)).group(1) for e in program.eqns}
    assert len(m.kernels) == 1 and len(colours) == 1


def test_a_call_overview_outlines_its_runs_by_kernel():
    """Past 60 equations the graph is drawn by calls: a run of equations in one kernel takes its colour."""
    def model(x):
        for _ in range(40):
            x = jnp.tanh(x) * 1.5 + 0.1
        return x.sum()
    program = jaxprlens.trace(model, jnp.ones(8))
    view = FusionView(program)
    g = program.graph(fusion=view)
    assert g.group is not None                                 # drawn by the overview
    outlined = [line for line in g.source.splitlines() if "penwidth=3" in line]
    assert outlined and all(any(f'color="{c}"' in line for c in view.colour.values()) for line in outlined)


def test_graph_and_fusion_in_one_cell_compile_once(ip, monkeypatch):
    import jaxprlens.views.compiled.fusion as fusion_view
    calls = []
    real = fusion_view.fusion_map
    monkeypatch.setattr(fusion_view, "fusion_map", lambda *a, **k: calls.append(1) or real(*a, **k))
    out = ip.run_cell_magic("jaxpr", "--graph --fusion", "import jax.numpy as jnp\n"
                            "def f(x):\n    return jnp.sin(x) * 2\nf(jnp.ones(3))")
    graph, fusion = out.parts
    assert isinstance(fusion, FusionView) and graph.fusion.map is fusion.map and len(calls) == 1
    assert "penwidth=3" in graph.source


# ---------------------------------------------------------------- each kernel's measured time (--profile --fusion)

def _masked(text: str) -> str:
    """``text`` as nbval compares it: the patterns of notebooks/sanitize.cfg (the shipped copy) applied."""
    from nbval.plugin import get_sanitize_patterns
    from jaxprlens import nbval_sanitize
    with open(nbval_sanitize.path(), encoding="utf-8") as f:
        patterns = get_sanitize_patterns(f.read())
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


@RECORDED
def test_a_recorded_trace_attributes_its_times_to_the_kernels():
    """The CPU trace in tests/traces (JAX 0.12, two runs) read onto a fresh map of the program it recorded."""
    from traces.record import ARGS, loop_cond
    from jaxprlens.engine.fusion import timed
    from jaxprlens.engine.kerneltime import kernel_times, read_trace
    from pathlib import Path
    m = fusion_map(jaxprlens.trace(loop_cond, *ARGS))
    times = kernel_times(read_trace(Path(__file__).parent / "traces" / "cpu_loop_cond.xplane.pb"),
                         "jit_jaxpr_as_fun")
    timed(m, times)
    by = {k.name: k for k in m.kernels}
    assert by["cond.1.clone"].eqns == ["4"] and by["cond.1.clone"].time == pytest.approx(1011e-9)
    assert by["broadcast_multiply_fusion"].eqns == ["4/branch1/0", "4/branch1/1"]        # the branch taken: sin
    assert by["broadcast_multiply_fusion"].time == pytest.approx(1182.5e-9)
    assert by["call"].eqns == ["0"] and by["call"].time == pytest.approx(1498e-9)       # the loop, its body in it
    assert by["compare_convert_fusion"].time == pytest.approx(1092e-9)
    untimed = {k.name for k in m.kernels if k.time is None}
    assert untimed == {"wrapped_cosine"} | set(m.looped) and m.looped and set(m.looped.values()) == {"call"}
    assert all("/body/" in e for k in m.looped for e in by[k].eqns)
    assert [(k.name, k.kind, k.eqns) for k in m.others] == [("copy.8", "copy", []), ("copy.9", "copy", [])]
    assert sum(k.time for k in m.kernels + m.others if k.time) == pytest.approx(times.total)


@SESSION
def test_the_profiled_text_is_exact_but_for_the_times():
    view = jaxprlens.trace(chain, jnp.ones(8), jnp.ones(8)).fusion(profile=True, repeat=3)
    assert view.map.times.runs == 3 and view.kernels[0].time > 0
    assert _masked(view.text()) == """\
fusion map: the kernels XLA compiled the program into (cpu)
4 equations → 1 kernel; intermediate bytes not written: 96 B
kernel times: the compiled program run 3 times under jax.profiler; each kernel's own time per run (less the
kernels recorded inside it), as a share of all kernels' time
read from the host's events (/host:CPU): XLA on the CPU runs each kernel as a thunk, one event each
each run timed whole: under the profiler run median TIME +- TIME, without it run median TIME +- TIME (the \
profiler's own cost is in the kernels' times, most of all for small kernels)
kernel               kind         equations                     FLOPs  bytes  measured (% of time)
multiply_add_fusion  loop fusion  0 sin, 1 cos, 2 mul, 3 add  32 FLOP  320 B  measured TIME (N% of time)
all kernels                                                                   measured TIME (N% of time)
FLOPs and bytes: the cost rules summed over each kernel's equations, once per run of the computation it is in
(a loop body's kernels: per iteration; a loop's or call's own kernel: its body's work is in the body's
kernels). Intermediate bytes not written: values an equation makes that only equations of the same kernel
read."""
    assert "(100% of time)" in view.text().splitlines()[7]          # one kernel: all the time
    assert view.map.times.plain.count == view.map.times.profiled.count == 3


@SESSION
def test_the_profiled_text_in_chinese_says_what_the_cpu_did_not_measure():
    from traces.record import ARGS, loop_cond
    view = jaxprlens.trace(loop_cond, *ARGS).fusion(profile=True, repeat=2, lang="zh")
    lines = _masked(view.text()).splitlines()
    assert max(width(line) for line in lines if "TIME" not in line) <= 110     # by display width: a CJK character 2
    assert lines[2:4] == ["计算内核时间：编译后的程序在 jax.profiler 下运行 2 次；每个计算内核每次运行自身的时间（减去记录在其内部的计算",  # noqa: E501 - the exact text a reader sees
                          "内核），以占全部计算内核时间的比例表示"]
    assert lines[5] == ("每次运行整体计时：在 profiler 下运行中位数 TIME +- TIME，不用它时运行中位数 TIME +- TIME"  # noqa: E501 - the times: never wrapped
                        "（profiler 自身的开销算在计算内核时间里，小计算内核尤甚）")
    assert "".join(lines[6:9]) == ("未测到事件：在 CPU 上，profiler（JAX 0.12）为入口计算和条件分支中的每个 thunk 各记一个"  # noqa: E501 - the exact text a reader sees
                                    "事件；循环体在循环的thunk 内运行，其中的计算内核没有自己的事件，时间算在循环的计算内核（call）"  # noqa: E501 - the exact text a reader sees
                                    "里。在 GPU 上，循环体中的每个计算内核都会被测量。")
    assert lines[9] == "未测到事件：profiler 没有记录这些计算内核的事件（条件中未执行的分支不留事件）：wrapped_cosine"
    rows = {line.split()[0]: line for line in lines[11:] if not line.startswith(" ")}
    assert rows["cond.1.clone"].endswith("实测 TIME（占时间 N%）")
    assert rows["wrapped_cosine"].endswith("未测到事件") and "    无（XLA 自己的）" in lines     # its equations under it  # noqa: E501 - the exact text a reader sees
    assert rows["全部计算内核"].endswith("实测 TIME（占时间 N%）")
    shares = [int(x) for x in re.findall(r"占时间 (\d+)%", view.text())]
    assert abs(sum(shares[:-1]) - 100) <= len(shares) and shares[-1] == 100


@SESSION
def test_the_profiled_html_has_a_time_cell_a_kernel_and_reads_untrusted():
    from traces.record import ARGS, loop_cond
    view = FusionView(jaxprlens.trace(loop_cond, *ARGS), profile=True, repeat=2)
    soup = BeautifulSoup(view.html(), "html.parser")
    assert not soup.find_all(["script", "style"])
    head = [th.get_text() for th in soup.select("table.jl-fusion-legend th")]
    assert head[-1] == "measured (% of time)" and len(head) == 6
    rows = soup.select("table.jl-fusion-legend tbody tr")
    assert [r.get("data-kernel") for r in rows] == [k.name for k in view.kernels + view.map.others] + [None]
    for r, k in zip(rows, view.kernels + view.map.others):
        cell = r.select_one("td.jl-time").get_text()
        assert cell == "no event measured" if k.time is None else re.fullmatch(r"measured .+ \(\d+% of time\)", cell)
    assert [r.get("class") for r in rows[len(view.kernels):]] == [["jl-kernel-other"]] * len(view.map.others) + [
        ["jl-kernel-total"]]
    assert len(soup.select("p.jl-kernel-profile")) == 5


@SESSION
def test_the_magic_profile_fusion_times_kernels_not_equations(ip):
    view = ip.run_cell_magic("jaxpr", "--profile --fusion --repeat 2", "import jax.numpy as jnp\n"
                             "def f(x):\n    return jnp.sin(x) * 2\nf(jnp.ones(3))")
    assert isinstance(view, FusionView) and view.map.times.runs == 2     # one view: no per-equation profile
    assert view.kernels[0].time is not None


def test_profiling_needs_the_recorded_arguments():
    program = jaxprlens.from_jaxpr(jax.make_jaxpr(chain)(jnp.ones(8), jnp.ones(8)))
    assert fusion_map(program).kernels                  # the map alone compiles on the types
    with pytest.raises(ValueError, match="recorded argument"):
        program.fusion(profile=True)


def test_a_trace_with_no_kernel_event_says_so(monkeypatch):
    """A backend whose profiler records no event of the program (none known here: stood in for by a run that
    returns no events) reads as such, every kernel unmeasured."""
    from jaxprlens.engine import kerneltime
    monkeypatch.setattr(kerneltime, "profile", lambda *a, **k: kerneltime.KernelTimes({}, 2, "", asked=2))
    view = jaxprlens.trace(chain, jnp.ones(8), jnp.ones(8)).fusion(profile=True, repeat=2)
    lines = view.text().splitlines()
    assert lines[2] == "the profiler recorded no kernel event of this program on cpu: no kernel time measured"
    assert lines[4].endswith("  no event measured") and lines[5].startswith("all kernels")
    assert lines[5].endswith("  no event measured") and "jax.profiler" not in view.text()


# ---------------------------------------------------------------- recomputation and loops, against the HLO itself

def layer_norm(x):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return ((x - m) / jnp.sqrt(v + 1e-5)).sum()


def scan_dot(w, xs):
    return jax.lax.scan(lambda c, x: (jnp.tanh(c @ w + x), None), jnp.zeros(16), xs)[0]


def while_dot(w, x):
    return jax.lax.while_loop(lambda s: s[0] < 5, lambda s: (s[0] + 1, jnp.tanh(w @ s[1]) * 0.5), (0, x))[1]


LOOPS = {"scan_dot": (scan_dot, (jnp.ones((16, 16)), jnp.ones((5, 16)))),
         "while_dot": (while_dot, (jnp.ones((16, 16)), jnp.ones(16)))}
MOVED = frozenset({"parameter", "constant", "tuple", "get-tuple-element", "bitcast", "reshape"})


def _hlo_kernels(text):
    """``({computation: [(name, opcode, op_name)]}, {instruction: its kernel})`` read with plain regexes: the kernel
    of an instruction in a fusion's computation (or a reduction's combiner inside it) is that fusion, else itself."""
    comps, current, inside = {}, None, {}
    for line in text.splitlines():
        head = re.match(r"^(?:ENTRY )?%(\S+) \(", line)
        if head and line.rstrip().endswith("{"):
            current = comps.setdefault(head.group(1), [])
        elif line.strip() == "}":
            current = None
        elif current is not None and " = " in line:
            name = re.search(r"%([\w.\-]+) = ", line).group(1)
            opcode = re.search(r"\s([a-z][a-z0-9\-]*)\(", line.split(" = ", 1)[1]).group(1)
            op = re.search(r'op_name="([^"]*)"', line)
            current.append((name, opcode, op.group(1) if op else ""))
            for callee in re.findall(r"(?:calls|to_apply)=%([\w.\-]+)", line):
                if opcode not in ("call", "while", "conditional"):
                    inside[callee] = name
    home = {n: c for c, body in comps.items() for n, _, _ in body}
    kernel = {}
    for c, body in comps.items():
        for n, _, _ in body:
            k, comp = n, c
            while comp in inside:
                k, comp = inside[comp], home[inside[comp]]
            kernel[n] = k
    return comps, kernel


def _named_in(text, program) -> dict:
    """Equation id -> the kernels holding an instruction that computes something and whose op_name names it."""
    scope = {scope_name(e.id): e.id for e in program.walk()}
    comps, kernel = _hlo_kernels(text)
    out: dict = {}
    for body in comps.values():
        for name, opcode, op in body:
            ids = [scope[p] for p in re.findall(r"\w+", op) if p in scope]
            if ids and opcode not in MOVED:
                out.setdefault(ids[-1], set()).add(kernel[name])
    return out


@pytest.mark.parametrize("name", ["layer_norm", "mlp", "mlp_grad", "chain", "func1", "scan"])
def test_each_equation_is_under_every_kernel_whose_instructions_name_it(name):
    fn, args = (layer_norm, (jnp.ones((64, 32)),)) if name == "layer_norm" else PROGRAMS[name]
    program = jaxprlens.trace(fn, *args)
    m = fusion_map(program)
    named = _named_in(m.hlo, program)
    by_id = {e.id: e for e in program.walk()}
    for e, kernels in named.items():
        if by_id[e].subs:                     # a loop: its own kernel, its counter and test inside it
            continue
        assert {k.name for k in m.kernels if e in k.eqns} == kernels, e


def test_a_layer_norm_s_recomputed_equations_are_listed_and_marked_under_each_kernel():
    program = jaxprlens.trace(layer_norm, jnp.ones((64, 32)))
    view = FusionView(program)
    m = view.map
    named = _named_in(m.hlo, program)
    again = {e for e, ks in named.items() if len(ks) > 1 and not program.find(e).subs}
    assert again and set(m.recomputed) <= again
    mean = next(e.id for e in program.eqns if e.primitive == "div")           # x.mean: sum / n, read by both passes
    assert len(m.recomputed[mean]) == 2 and set(m.recomputed[mean]) == named[mean]
    text = view.text()
    assert (f"{len(m.recomputed)} equations computed again in each of several kernels (XLA copies a cheap producer "
            "into each kernel that reads it), listed under each, marked (recomputed), its cost counted in each"
            ) in " ".join(text.splitlines())
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 110
    for k in m.recomputed[mean]:        # the kernel's row, its equations on the lines under it
        at = next(i for i, line in enumerate(lines) if line.startswith(k + " "))
        under = [line for line in lines[at + 1:] if line.startswith("    ")]
        assert f"{mean} div (recomputed)" in " ".join(lines[at + 1:at + 1 + len(under)])
        assert m.kernel(k).flops >= costs(program)[mean].flops
    assert "equations with instructions in several kernels" not in text
    zh = "".join(FusionView(program, lang="zh").text().splitlines())     # wrapped between characters
    assert f"{mean} div（重新计算）" in zh and "标为（重新计算）" in zh
    soup = BeautifulSoup(view.html(), "html.parser")
    row = soup.select_one(f'tr[data-eqn="{mean}"]')
    assert [s.get_text() for s in row.select("td span")] == m.recomputed[mean]
    assert row.select_one("i.jl-kernel-recomputed").get_text() == "(recomputed)"
    for k in m.recomputed[mean]:
        assert f"{mean} div (recomputed)" in soup.select_one(f'tr[data-kernel="{k}"]').get_text()


@pytest.mark.parametrize("name", list(LOOPS))
@pytest.mark.skipif(tuple(int(v) for v in jax.__version__.split(".")[:2]) < (0, 12),
                    reason="reads the loop bodies' HLO as JAX 0.12's XLA compiles them")
def test_a_loop_body_s_equations_are_in_the_kernels_of_its_body_computation(name):
    fn, args = LOOPS[name]
    program = jaxprlens.trace(fn, *args)
    m = fusion_map(program)
    comps, kernel = _hlo_kernels(m.hlo)
    loop = next(re.search(r"condition=%([\w.\-]+), body=%([\w.\-]+)", line) for line in m.hlo.splitlines()
                if " while(" in line)
    cond, body = loop.group(1), loop.group(2)
    in_body = {n for n, opcode, _ in comps[body] if opcode not in MOVED}
    in_cond = {n for n, opcode, _ in comps[cond] if opcode not in MOVED}
    outer = next(e for e in program.eqns if e.subs)
    for e in program.walk():
        if e.id.startswith(outer.id + "/"):
            assert m.of[e.id] in (in_cond if "/cond/" in e.id else in_body), (e.id, m.of[e.id])
    dots = [n for n, opcode, _ in comps[body] if opcode == "dot" or (opcode == "custom-call" and "matmul" in n)]
    matmul = next(e.id for e in program.walk() if e.primitive == "dot_general")
    assert dots and m.of[matmul] == dots[0] and matmul not in m.spread       # the dot on its own, as compiled
    assert [k.eqns for k in m.kernels if k.name == dots[0]] == [[matmul]]
    assert all(matmul not in k.eqns for k in m.kernels if k.kind.endswith("fusion"))


# ---------------------------------------------------------------- folded by the table's calls

@pytest.fixture(scope="module")
def train_step():
    """The flax tutorial's nnx.jit train step (a 2-block transformer, optax adamw): 1,118 top-level equations the
    table folds by calls, and its fusion map."""
    from libraries import nnx_jit_train_step
    fn, args = nnx_jit_train_step()
    program = jaxprlens.trace(fn, *args)
    return program, FusionView(program)


def _rows_of(stored_rows: list) -> BeautifulSoup:
    return BeautifulSoup("<table>" + "".join(stored_rows) + "</table>", "html.parser")


def test_a_train_step_s_fusion_map_folds_by_the_table_s_calls(train_step):
    from jaxprlens.views.table.layout import Layout
    from jaxprlens.views.table.table import Table, stored
    program, view = train_step
    table = Table(program)
    assert view.fold.folded and table.layout.folded
    page = view.html()
    soup = BeautifulSoup(page, "html.parser")
    fold = soup.select_one('div.jl-callfold[data-jl-view="fold"]')
    top = list(Layout(program, table.count(program)).items)
    grows = fold.select("tbody tr.jl-grow")
    assert [r["data-group"] for r in grows] == [c.id for c in top if not isinstance(c, Eqn)]
    assert [r.select_one(".jl-gname").get_text() for r in grows] == \
        [r.select_one(".jl-gname").get_text() for r in BeautifulSoup(table.html(), "html.parser").select(
            "table.jl-eqns > tbody > tr.jl-grow")]                       # the table's calls, named as it names them
    m = view.map
    groups = stored(page)["groups"]
    forward = top[0]
    inner = _rows_of(groups[forward.id])                  # what opening the forward pass inserts
    assert [r["data-group"] for r in inner.select("tr.jl-grow")] == [g.id for g in forward.groups]
    deep = forward
    while len(deep.children) == 1 and deep.groups:        # a chain of single calls: down to the model's layers
        deep = deep.groups[0]
    rows = _rows_of(groups[deep.id]).select("tr.jl-row")
    own = [e for e in deep.children if isinstance(e, Eqn)]
    assert [r["data-eqn"] for r in rows] == [x.id for e in own for x in walk(e)]
    for r in rows:                                        # each row names the kernels computing its equation
        e = r["data-eqn"]
        names = [s.get_text() for s in r.select("td:last-child span")]
        if e in m.of:
            assert names == m.spread.get(e, [m.of[e]])


def test_a_call_s_kernels_and_their_cost_add_up(train_step):
    program, view = train_step
    m = view.map
    for g in view.fold.layout.tree.every[1:]:
        ids = {x.id for e in g.eqns for x in walk(e)}
        mine = {k for e in ids for k in m.spread.get(e, [m.of[e]] if e in m.of else [])}
        mine |= {m.absorbed[e] for e in ids if e in m.absorbed}
        s = view.share(g)
        assert [k.name for k in s.kernels] == [k.name for k in m.kernels if k.name in mine]
        assert s.cost.flops == sum(c.flops for k in s.kernels for e, c in k.parts.items() if e in ids)
    top = view.fold.items                                  # the top rows (calls, equations) share out every kernel
    assert sum(view.share(c).cost.flops for c in top) == sum(k.flops for k in m.kernels)
    assert sum(view.share(c).cost.bytes for c in top) == sum(k.bytes for k in m.kernels)
    soup = BeautifulSoup(view.html(), "html.parser")
    for row, c in zip(soup.select("div.jl-callfold tbody tr.jl-grow"), [c for c in top if not isinstance(c, Eqn)]):
        s = view.share(c)
        assert row.select_one(".jl-fold-kernels").get_text() == \
            f"{len(s.kernels)} kernels, {si(s.cost.flops, 'FLOP')}, {si(s.cost.bytes, 'B')}"
        assert [x["data-kernel"] for x in row.select(".jl-detail span[data-kernel]")] == \
            [k.name for k in s.kernels[:4]]
        more = row.select_one(".jl-detail span.jl-more")     # the count of the rest is one unbroken phrase
        assert more.get_text() == f"… {len(s.kernels) - 4} more" and "white-space:nowrap" in more["style"]


def test_a_train_step_s_fusion_text_is_folded_by_call_and_fits_110_columns(train_step):
    program, view = train_step
    lines = view.text().splitlines()
    assert max(width(line) for line in lines) <= 110          # it ran to 6,852 columns (260 without the notes)
    at = lines.index("By call, as the table folds the program: the kernels computing each call's equations, and "
                     "their FLOPs and")
    forward = view.fold.items[0]
    s = view.share(forward)
    assert lines[at + 1:at + 3] == ["bytes on it", "  ▸  train_step (forward) › nnx.value_and_grad(…) › loss_fn  "
                                    f"{forward.size} equations"]
    assert lines[at + 3].startswith(f"       {len(s.kernels)} kernels, {si(s.cost.flops, 'FLOP')}, "
                                    f"{si(s.cost.bytes, 'B')}: {s.kernels[0].name}, ")
    assert "    ▸  model · Transformer  283 equations" in lines
    assert "      ▸  blocks[0] · Block  137 equations" in lines
    k = view.map.kernels[0]                              # a kernel's row, its equations wrapped under it
    row = next(i for i, line in enumerate(lines) if line.startswith(k.name + " "))
    assert lines[row + 1].startswith("    " + view._eqn_names(k.eqns[:1], marked=True)[0] + ", ")


def test_a_small_program_s_fusion_map_stays_flat_and_needs_no_script():
    view = jaxprlens.trace(chain, jnp.ones(8), jnp.ones(8)).fusion()
    assert not view.fold.folded and view.needs == () and "<script" not in view.html()
    assert "jl-callfold" not in view.html()
