"""Running programs on a device: results equal ``jax.jit``, device choice, timings, profile, 8 devices."""
import os
import re
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxprlens import model
from jaxprlens.engine.devices import resolve_device
from jaxprlens.views.compiled.run import (DevicesView, Profile, RunResult, devices_view, fmt_time, profile, run,
                                         value_text)
from seeds import SEEDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME = r"\d+(?:\.\d+)? (?:ns|µs|ms|s)"


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_run_equals_direct_jit(name):
    fn, args = SEEDS[name]
    result = run(model.trace(fn, *args), repeat=2)
    expected = jax.jit(fn)(*args)
    assert jax.tree_util.tree_structure(result.outputs) == jax.tree_util.tree_structure(expected)
    for got, want in zip(jax.tree_util.tree_leaves(result.outputs), jax.tree_util.tree_leaves(expected)):
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_run_result_fields_and_bundle():
    fn, args = SEEDS["func11"]
    r = model.trace(fn, *args).run(device="cpu", repeat=5)
    assert isinstance(r, RunResult)
    assert (r.device.platform, r.device.id, r.device.name) == ("cpu", 0, "cpu:0")
    assert r.repeat == r.timings.count == r.timings.asked == 5 and not r.timings.stopped
    assert r.median > 0 and r.spread >= 0 and r.compile_time > 0
    assert r.cost_analysis is None or isinstance(r.cost_analysis, dict)
    bundle = r._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    text = bundle["text/plain"]
    assert text.splitlines()[0] == "ran on cpu:0 (platform cpu, kind cpu, id 0)"
    assert re.search(rf"^compile {TIME}; run median {TIME} ± {TIME}  \(± half the interquartile range of 5 runs\)$",
                     text, re.M)
    assert "  out[0] = 96.0" in text and "  out[1] = float32[16] [ 0., 6., 12.," in text
    from bs4 import BeautifulSoup        # untrusted (styles stripped) the outputs still read left to right
    cells = BeautifulSoup(bundle["text/html"], "html.parser").select("tr.jl-output td")
    assert cells and all("text-align:left" in td.get("style", "") for td in cells)
    assert 'class="jl-time"' in bundle["text/html"]


def test_array_outputs_carry_their_picture_scalars_none():
    """An array result is drawn as the debugger draws it (present/picture.py): an <img> data URI with alt text
    under its printed value; a scalar result has none; text/plain is unchanged."""
    from bs4 import BeautifulSoup
    fn, args = SEEDS["func11"]             # outputs: a scalar and a float32[16]
    r = model.trace(fn, *args).run(device="cpu", repeat=2, lang="zh")
    cells = BeautifulSoup(r.html(), "html.parser").select("tr.jl-output")
    imgs = [c.select("img.jl-pic-img") for c in cells]
    assert [len(i) for i in imgs] == [0, 1]
    assert imgs[1][0]["src"].startswith("data:image/png;base64,")
    assert imgs[1][0]["alt"].startswith("out[1] 的热图：float32[16]，1×16 个格子")
    assert "轴 0 从左到右（16 个，每格 1 个）" in cells[1].get_text()
    assert "<img" not in r.text() and "热图" not in r.text()


def test_timings_are_sanitized_by_the_notebook_config():
    from nbval.plugin import get_sanitize_patterns
    with open(os.path.join(ROOT, "notebooks", "sanitize.cfg"), encoding="utf-8") as f:
        patterns = get_sanitize_patterns(f.read())
    fn, args = SEEDS["func10"]
    program = model.trace(fn, *args)
    for lang in ("en", "zh"):
        prof = profile(program, repeat=2, lang=lang)
        for bundle in (prof.whole._repr_mimebundle_(), prof._repr_mimebundle_()):
            for text in bundle.values():
                for regex, replace in patterns:
                    text = re.sub(regex, replace, text)
                assert not re.search(TIME, text), text          # no timing left after sanitizing
                assert not re.search(r"\d+% of sum|\d+%）", text)


def test_fmt_time_and_value_text():
    assert [fmt_time(x) for x in (8.5e-7, 4.56e-5, 1.234e-3, 2.5)] == ["850 ns", "45.6 µs", "1.23 ms", "2.50 s"]
    assert value_text(np.arange(3.0)) == "float64[3] [0., 1., 2.]"
    big = value_text(np.arange(1000.0))
    assert big.startswith("float64[1000] {min 0, max 999, mean 499.5} [ 0., 1., 2., ..., 997., 998., 999.]")


def test_device_selection():
    default = jax.devices()[0]
    assert resolve_device(None) == default
    assert resolve_device("cpu") == jax.devices("cpu")[0]
    assert resolve_device("cpu:0") == jax.devices("cpu")[0]
    assert resolve_device(" CPU : 0 ") == jax.devices("cpu")[0]
    assert resolve_device(default) is default
    fn, args = SEEDS["func1"]
    r = run(model.trace(fn, *args), device="cpu:0", repeat=1)
    assert r.device.name == "cpu:0"


def _devices_here() -> list:
    """Every device JAX can start here, the default backend's first, straight from JAX."""
    out = list(jax.local_devices())
    for platform in ("cpu", "gpu", "tpu"):
        try:
            out += [d for d in jax.local_devices(backend=platform) if d not in out]
        except RuntimeError:
            pass
    return out


def _name(d) -> str:
    platform = "gpu" if d.platform in ("cuda", "rocm") else d.platform
    same = [x for x in _devices_here() if x.platform == d.platform]
    return f"{platform}:{same.index(d)}"


def _listing() -> str:
    return re.escape(", ".join(f"{_name(d)} ({d.device_kind})" for d in _devices_here()))


def _absent() -> str:
    """A platform with no device here (tpu on a CPU or GPU machine, gpu on a TPU one)."""
    present = {_name(d).split(":")[0] for d in _devices_here()}
    return next(p for p in ("tpu", "gpu") if p not in present)


@pytest.mark.parametrize("case", ["absent with index", "absent", "index past the end", "malformed"])
def test_bad_device_lists_devices(case):
    absent, n_cpu = _absent(), len(jax.devices("cpu"))
    spec, message = {
        "absent with index": (f"{absent}:3", rf"^no {absent} device here for '{absent}:3'; devices here: {_listing()}$"),  # noqa: E501 - the exact text a reader sees, kept whole
        "absent": (absent, rf"^no {absent} device here for '{absent}'; devices here: {_listing()}$"),
        "index past the end": (f"cpu:{n_cpu + 4}", rf"^no device 'cpu:{n_cpu + 4}': there are {n_cpu} cpu "
                                                   rf"device\(s\) \(indices 0..{n_cpu - 1}\); devices here: {_listing()}$"),  # noqa: E501 - the exact text a reader sees, kept whole
        "malformed": ("gpu-1", r"^unknown device 'gpu-1' \(write platform\[:index\], e\.g\. cpu, gpu:1, tpu:0\); "
                               rf"devices here: {_listing()}$"),
    }[case]
    with pytest.raises(ValueError, match=message):
        resolve_device(spec)


def test_bad_device_in_chinese():
    """The engine raises a key and fields; the catalogue says them in the reader's language."""
    absent, n_cpu = _absent(), len(jax.devices("cpu"))
    here = ", ".join(f"{_name(d)} ({d.device_kind})" for d in _devices_here())
    for spec, said in [
            (f"{absent}:9", f"这里没有 {absent} 设备，无法使用 '{absent}:9'；这里的设备：{here}"),
            (f"cpu:{n_cpu + 4}", f"没有设备 'cpu:{n_cpu + 4}'：这里有 {n_cpu} 个 cpu 设备（序号 0..{n_cpu - 1}）；"
                                 f"这里的设备：{here}"),
            ("gpu-1", f"未知设备 'gpu-1'（请写成 platform[:index]，例如 cpu、gpu:1、tpu:0）；这里的设备：{here}"),
            (3, "设备必须是字符串，例如 'cpu' 或 'gpu:1'，收到的是 int")]:
        with pytest.raises(ValueError) as info:
            resolve_device(spec)
        assert info.value.text("zh") == said


def test_devices_view():
    view = devices_view()
    assert isinstance(view, DevicesView)
    bundle = view._repr_mimebundle_()
    here, default = _devices_here(), jax.devices()[0]
    assert bundle["text/plain"].splitlines() == ["devices (name, platform, kind, id):"] + [
        f"  {_name(d):<8} {_name(d).split(':')[0]:<5} {d.device_kind:<20} {d.id}{'  (default)' if d == default else ''}"
        for d in here]
    assert bundle["text/plain"].count("(default)") == 1 and _name(here[0]) in bundle["text/plain"].splitlines()[1]
    for d in here:
        assert f'data-device="{_name(d)}"' in bundle["text/html"]
    if [d.platform for d in here] == ["cpu"]:               # a CPU-only machine: the whole text, literally
        assert bundle["text/plain"].splitlines()[1] == "  cpu:0    cpu   cpu                  0  (default)"


def test_profile_rows_beside_estimates():
    fn, args = SEEDS["func1"]
    p = model.trace(fn, *args)
    prof = profile(p, device="cpu", repeat=3)
    assert isinstance(prof, Profile)
    assert [r.eqn.primitive for r in prof.rows] == [e.primitive for e in p.eqns]
    assert all(r.median > 0 for r in prof.rows)
    lines = prof.text().splitlines()
    assert lines[1].split() == ["#", "outputs", "primitive", "estimate", "measured", "on", "its", "own", "(%", "of",
                                "the", "sum)"]
    assert re.match(rf"^0  c:f32\[8\] +sin +8 FLOP, 64 B +measured {TIME} \(\d+% of sum\)$", lines[2])
    # the share is of the sum of the equations run alone; the whole program, fused, is shown beside it
    assert re.match(rf"^sum of the equations run on their own {TIME}; whole program, compiled as one \(XLA fuses "
                    rf"equations\): compile {TIME}; run median {TIME} ± {TIME}$", lines[6])
    assert sum(int(x) for x in re.findall(r"\((\d+)% of sum\)", prof.text())) in (99, 100, 101)
    assert "estimated total: 31 FLOP, 264 B; intensity 0.12 FLOP/B" in lines
    assert prof.html().count("<tr data-eqn=") == len(p.eqns)
    from bs4 import BeautifulSoup        # its text columns (outputs, primitive) left-aligned inline, numbers not
    row = BeautifulSoup(prof.html(), "html.parser").select_one("tr[data-eqn]").find_all("td")
    assert ["text-align:left" in td.get("style", "") for td in row] == [False, True, True, False, False]


def test_magic_run_profile_devices_and_bad_device(ip):
    from IPython.core.error import UsageError
    cell = textwrap.dedent("""
        import jax.numpy as jnp
        def func1(first, second):
            temp = first + jnp.sin(second) * 3.
            return jnp.sum(temp)
        func1(jnp.zeros(8), jnp.ones(8))
    """)
    result = ip.run_cell_magic("jaxpr", "--run --repeat 3", cell)
    assert isinstance(result, RunResult) and result.repeat == 3
    np.testing.assert_allclose(float(result.outputs), float(jnp.sum(jnp.sin(jnp.ones(8)) * 3.)), rtol=1e-6)
    prof = ip.run_cell_magic("jaxpr", "--profile --device cpu --repeat 2", cell)
    assert isinstance(prof, Profile) and len(prof.rows) == 4
    assert isinstance(ip.run_line_magic("jaxpr", "--devices"), DevicesView)
    absent = _absent()
    with pytest.raises(UsageError, match=rf"no {absent} device here for '{absent}:3'; devices here: {_listing()}$"):
        ip.run_cell_magic("jaxpr", f"--run --device {absent}:3", cell)


def test_program_without_arguments_is_a_clear_error():
    p = model.from_jaxpr(jax.make_jaxpr(jnp.sin)(1.0))
    with pytest.raises(ValueError, match="recorded argument"):
        run(p)


EIGHT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    from jaxprlens import model
    from jaxprlens.views.compiled.run import run, devices_view
    assert len(jax.devices()) == 8, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    x = jax.device_put(jnp.arange(64.0), NamedSharding(mesh, P("x")))

    def f(a):
        b = jax.lax.with_sharding_constraint(a * 2.0, NamedSharding(mesh, P("x")))
        total = jax.shard_map(lambda t: jax.lax.psum(t.sum(keepdims=True), "x"),
                              mesh=mesh, in_specs=P("x"), out_specs=P())(b)
        return b, total

    p = model.trace(f, x)
    r = run(p, repeat=3)
    want = jax.jit(f)(x)
    np.testing.assert_allclose(np.asarray(r.outputs[0]), np.asarray(want[0]))
    np.testing.assert_allclose(np.asarray(r.outputs[1]), np.asarray(want[1]))
    assert len(r.outputs[0].sharding.device_set) == 8
    table = p.table(cost=True).text()
    print(len(devices_view().rows))
    print(table)
""")


def test_eight_simulated_devices_sharding_and_collectives():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", EIGHT], env=env, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert out.splitlines()[0] == "8"
    assert "sharding_constraint[context_mesh=" in out and "sharding=NamedSharding(mesh=Mesh('x': 8" in out
    assert "= shard_map[check_vma=True in_specs=(P('x',),) mesh=Mesh('x': 8" in out     # params as JAX prints them
    assert "shard_map[2] › shard_map" in out                                         # nested body ...
    nested = out[out.index("shard_map[2] › shard_map"):]
    assert re.search(r"^ {8}\s*\d+  \S+ = psum\w*\[axes=\('x',\)\] ", nested, re.M)    # ... holds the collective
    assert "8 devices × (" in out                                                     # cost of the body on each


def test_program_without_inputs_runs_on_the_chosen_device():
    p = model.trace(lambda: jnp.arange(3.0) * 2.0)
    r = run(p, device="cpu:0", repeat=2)
    np.testing.assert_array_equal(np.asarray(r.outputs), [0.0, 2.0, 4.0])
    assert r.outputs.devices() == {jax.devices("cpu")[0]}


# ---------------------------------------------------------------- --profile on every program --run runs

@jax.custom_vjp
def _sin_vjp(x):
    return jnp.sin(x)


_sin_vjp.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))

TOP_LEVEL = {   # one top-level equation of a kind that is not a plain primitive
    "custom_jvp (jax.nn.relu)": (jax.nn.relu, (jnp.linspace(-1., 1., 8),), "custom_jvp_call"),
    "custom_vjp": (_sin_vjp, (jnp.ones(4),), "custom_vjp_call"),
    "jit (pjit)": (jax.jit(lambda x: x * 2. + 1.), (jnp.ones(4),), "jit"),
    "cond": (lambda p, x: jax.lax.cond(p, jnp.sin, jnp.cos, x), (True, jnp.ones(4)), "cond"),
    "while": (lambda x: jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.), (0, x)),
              (jnp.ones(4),), "while"),
    "scan": (lambda xs: jax.lax.scan(lambda c, x: (c + x, c), 0., xs), (jnp.ones(4),), "scan"),
    "remat": (jax.checkpoint(lambda x: jnp.sin(jnp.sin(x))), (jnp.ones(4),), "remat2"),
    "grad of relu": (jax.grad(lambda x: jax.nn.relu(x).sum()), (jnp.linspace(-1., 1., 8),), "custom_jvp_call"),
}


@pytest.mark.parametrize("name", sorted(TOP_LEVEL))
def test_profile_runs_what_run_runs(name):
    fn, args, primitive = TOP_LEVEL[name]
    p = model.trace(fn, *args, see_through=False)       # the jit equation itself, not its body
    assert primitive in [e.primitive for e in p.eqns]
    want = run(p, repeat=1).outputs
    jax.tree_util.tree_map(np.testing.assert_array_equal, want, jax.jit(fn)(*args))
    prof = profile(p, repeat=1)
    assert [r.eqn.primitive for r in prof.rows] == [e.primitive for e in p.eqns]
    assert all(r.timings is not None and r.median > 0 for r in prof.rows)


# ---------------------------------------------------------------- time budgets: bounded, and they say so

def test_run_stops_at_its_time_budget_and_says_so():
    fn, args = SEEDS["func1"]
    r = model.trace(fn, *args).run(repeat=100_000_000_000, budget=0.2)         # program.run() takes it too
    assert r.timings.stopped and 1 <= r.repeat < r.timings.asked == 100_000_000_000
    assert r.budget == 0.2 and r.median > 0
    assert f"the time budget of 0.2 s was spent after {r.repeat} of 100000000000 runs (more with --budget S or " \
           "budget=S)" in r.text()
    assert "jl-stopped" in r.html()
    zh = run(model.trace(fn, *args), repeat=100_000_000_000, budget=0.2, lang="zh").text()
    assert re.search(r"^提前停止：0\.2 秒的时间预算在 100000000000 次运行中的第 \d+ 次后用完", zh, re.M)
    assert "stopped" not in run(model.trace(fn, *args), repeat=3).text()       # within budget: no word


def test_profile_stops_at_its_time_budget_and_says_which_rows():
    fn, args = SEEDS["func1"]
    prof = profile(model.trace(fn, *args), repeat=100_000_000_000, budget=0.2)
    untimed = [r for r in prof.rows if r.timings is None]
    timed = [r for r in prof.rows if r.timings is not None]
    assert all(r.timings.stopped for r in timed)
    text = prof.text()
    assert text.count("not timed (time budget spent)") == len(untimed)
    assert re.search(r"^stopped early: the time budget of 0\.2 s was spent; .*the whole program ran \d+ of "
                     r"100000000000 times \(more with --budget S or budget=S\)$", text, re.M)
    if untimed:
        assert f"{len(untimed)} of 4 equations not timed" in text


def test_timings_are_summarised_not_kept():
    from jaxprlens.engine.runner import KEPT, Timings, _Series
    series = _Series()
    for i in range(20 * KEPT):
        series.add(float(i % 1000))
    assert series.count == 20 * KEPT and len(series.kept) == KEPT      # bounded, however many runs
    summary = series.summary(asked=10 ** 11, stopped=True)
    assert isinstance(summary, Timings) and summary.count == 20 * KEPT
    assert abs(summary.median - 500) < 50 and abs(summary.spread - 250) < 40   # uniform 0..999
    with pytest.raises(ValueError, match="time budget must be a positive number of seconds"):
        fn, args = SEEDS["func1"]
        run(model.trace(fn, *args), budget=0)


def test_magic_repeat_huge_returns_within_the_budget(ip):
    from IPython.core.error import UsageError
    cell = "import jax.numpy as jnp\njnp.sin(jnp.ones(8))"
    result = ip.run_cell_magic("jaxpr", "--run --repeat 100000000000 --budget 0.2", cell)
    assert isinstance(result, RunResult) and result.timings.stopped and result.budget == 0.2
    prof = ip.run_cell_magic("jaxpr", "--profile --repeat 100000000000 --budget 0.2", cell)
    assert prof.whole.budget == 0.2 and "stopped early" in prof.text()
    with pytest.raises(UsageError, match="time budget must be a positive number of seconds, got -1"):
        ip.run_cell_magic("jaxpr", "--run --budget -1", cell)
    assert ip.run_cell_magic("jaxpr", "--run", cell).budget == 10.0           # the default


# ---------------------------------------------------------------- estimate vs XLA's cost analysis

def test_run_says_why_the_estimate_and_xla_differ():
    from dataclasses import replace
    fn, args = SEEDS["func1"]
    r = run(model.trace(fn, *args), repeat=1)
    lines = r.text().splitlines()
    if r.cost_analysis is None:
        pytest.skip("this backend has no cost analysis")
    i = next(i for i, x in enumerate(lines) if x.startswith("XLA cost analysis: "))
    assert lines[i - 1] == "estimate: 31 FLOP, 264 B"
    assert lines[i + 1].startswith("why they differ: the estimate adds up each equation as written, every operand "
                                   "read from memory and every result written back")
    assert "after fusion" in lines[i + 1] and "cuBLAS" not in lines[i + 1]
    # a GPU program whose matmuls XLA hands to cuBLAS: its cost analysis does not see them, and we say so
    gpu = replace(r, custom_calls=("__cublas$gemm",))
    assert ("XLA does not count inside the library calls it hands work to (__cublas$gemm): on a GPU, matmuls go "
            "to cuBLAS and convolutions to cuDNN, so its FLOPs can be far below the estimate.") in gpu.text()
    assert "cuBLAS" in replace(r, custom_calls=("__cublas$gemm",), lang="zh").text()
    # when the two agree there is nothing to explain
    agree = replace(r, cost_analysis={"flops": 31.0, "bytes accessed": 264.0})
    assert not any(x.startswith("why they differ") for x in agree.text().splitlines())
    assert 'class="jl-cost-gap"' in r.html() and 'class="jl-cost-gap"' not in agree.html()


# ---------------------------------------------------------------- outputs holding PRNG keys (issue 28)

def _sampler(key, x):
    k1, k2 = jax.random.split(key)
    return k1, jax.random.split(k2, 3), jax.random.normal(k2, x.shape) + x


def test_run_shows_key_outputs_as_jax_writes_them_with_their_key_data():
    args = (jax.random.key(0), jnp.zeros(4))
    p = model.trace(_sampler, *args)
    r = run(p, repeat=2)
    want = jax.jit(_sampler)(*args)
    for got, w in zip(jax.tree_util.tree_leaves(r.outputs), jax.tree_util.tree_leaves(want)):
        assert got.dtype == w.dtype                                        # keys stay keys: their data is there
        data = (lambda a: jax.random.key_data(a)) if jax.dtypes.issubdtype(w.dtype, jax.dtypes.prng_key) else np.asarray
        np.testing.assert_array_equal(np.asarray(data(got)), np.asarray(data(w)))
    k0 = jax.random.key_data(want[0]).tolist()
    lines = r.text().splitlines()
    assert f"  out[0] = key<fry>[] {{PRNG key (threefry2x32), key data uint32[2]}} [{k0[0]}, {k0[1]}]" in lines
    assert any(x.startswith("  out[1] = key<fry>[3] {PRNG key (threefry2x32), key data uint32[3, 2]} [[") for x in lines)  # noqa: E501 - the exact text a reader sees, kept whole
    assert "<code>key&lt;fry&gt;[3] {PRNG key (threefry2x32)" in r.html()      # escaped once
    zh = run(p, repeat=1, lang="zh").text()
    assert f"  out[0] = key<fry>[] {{PRNG 密钥（threefry2x32），密钥数据 uint32[2]}} [{k0[0]}, {k0[1]}]" in zh
    prof = profile(p, repeat=1)                                             # --profile runs it too
    assert [row.eqn.primitive for row in prof.rows] == [e.primitive for e in p.eqns]
    assert "key<fry>[3]" in prof.text()


def test_value_text_of_every_dtype():
    x = np.linspace(-2., 2., 100).astype(np.float32)
    x[:8] = np.nan
    x[8] = np.inf
    bf = jnp.asarray(x, jnp.bfloat16)
    f32 = np.asarray(bf).astype(np.float32)
    finite = f32[np.isfinite(f32)]
    want = f"min {finite.min():.4g}, max {finite.max():.4g}, mean {finite.mean():.4g}, 8 NaN, 1 Inf"
    assert value_text(bf).startswith(f"bfloat16[100] {{{want}}} [nan, nan, nan, ...")
    i4 = jnp.arange(100).astype(jnp.int4)
    mean = np.asarray(i4).astype(np.float32).mean()
    assert value_text(i4).startswith(f"int4[100] {{min -8, max 7, mean {mean:.4g}}} [0, 1, 2, ...")
    z = value_text(jnp.arange(100.) * (1 + 1j))
    assert z.startswith("complex64[100] {|x| max 140, real [0, 99], imag [0, 99]} [ 0. +0.j,")
    assert value_text(jnp.ones(100, bool)) == "bool[100] [ True, True, True, ..., True, True, True]"
    assert value_text(jnp.asarray(1.5, jnp.bfloat16)) == "1.5"


def test_a_scalar_is_written_with_its_own_dtype_s_digits():
    loss = jnp.mean(jnp.sin(jnp.linspace(0., 1., 7)) ** 2) / 3          # float32: 0.095368735, not float64's digits
    assert value_text(loss) == str(np.float32(loss)) == "0.095368735"
    assert value_text(np.float64(1 / 3)) == "0.3333333333333333" and value_text(np.float32(1 / 3)) == "0.33333334"
    assert value_text(jnp.asarray(0.1, jnp.float16)) == "0.1"
    assert value_text(jnp.asarray(7, jnp.int32)) == "7" and value_text(jnp.asarray(True)) == "True"
    assert value_text(jnp.asarray(1 + 2j, jnp.complex64)) == "(1+2j)"


MIXED = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    from jaxprlens import model
    from jaxprlens.views.compiled.run import run, profile
    assert len(jax.devices()) == 8, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    s = NamedSharding(mesh, P("x"))
    a = jax.device_put(jnp.arange(16.0), s)          # sharded over 8 devices
    b = jnp.linspace(0., 1., 16)                     # plain: jax.jit puts it beside a

    def constrained(a, b):
        return jax.lax.with_sharding_constraint(a * b + 1.0, s).sum(keepdims=True) * jnp.ones(16)

    cases = {"in_shardings": jax.jit(lambda a, b: a * b + 1.0, in_shardings=(s, s)),
             "with_sharding_constraint": constrained, "plain": lambda a, b: a - b}
    for name, fn in cases.items():
        p = model.trace(fn, a, b)
        want = jax.jit(fn)(a, b)
        st = p.stepper()
        st.run()
        for got in (run(p, repeat=2).outputs, profile(p, repeat=1).whole.outputs, st.outputs):
            np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
        r = run(p, repeat=1)
        print(name, len(r.outputs.sharding.device_set), len(profile(p, repeat=1).rows))
    one = jax.device_put(jnp.ones(4), jax.devices()[3])          # committed to cpu:3: jax.jit runs it there
    p = model.trace(lambda x, y: x * y, one, jnp.arange(4.0))
    r = run(p, repeat=1)
    assert r.outputs.devices() == {jax.devices()[3]} == jax.jit(lambda x, y: x * y)(one, jnp.arange(4.0)).devices()
    print("committed", r.device.name, profile(p, repeat=1).device.name)
""")


def test_sharded_and_plain_arguments_mixed_run_as_jax_jit_places_them():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", MIXED], env=env, capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert out["in_shardings"].split()[0] == "8" and out["plain"].split()[0] == "8"
    assert set(out) == {"in_shardings", "with_sharding_constraint", "plain", "committed"}
    assert out["committed"] == "cpu:3 cpu:3"


def test_plain_arguments_still_go_to_the_chosen_device():
    from jaxprlens.engine.runner import place
    p = model.trace(lambda a, b: a + b, jnp.ones(3), np.ones(3, np.float32))
    dev = jax.devices("cpu")[0]
    assert all(x.devices() == {dev} and x.committed for x in place(p, dev, explicit=False))


# ---------------------------------------------------------------- sizes checked before anything is allocated

def _big_middle(x):
    big = jnp.outer(x, x)            # n × n, made whole when each equation runs on its own
    return big.sum(axis=0) + x


@pytest.mark.parametrize("lang, words", [("en", "--run times the program compiled as one"),
                                         ("zh", "--run 对整体编译后的程序计时")])
def test_profile_too_big_for_the_device_says_so_before_running(monkeypatch, lang, words):
    from jaxprlens.engine import runner
    from jaxprlens.model.errors import KeyedError
    program = model.trace(_big_middle, jnp.ones(512, jnp.float32))        # its 1 MB value, against 0.5 MB free
    ran = []
    monkeypatch.setattr(runner, "device_free_bytes", lambda device: 500_000)
    monkeypatch.setattr(runner, "time_calls", lambda *a, **k: ran.append(1))
    with pytest.raises(KeyedError) as e:
        profile(program, repeat=1, lang=lang)
    assert words in e.value.text(lang) and "1.0 MB" in e.value.text(lang) and ran == []
    monkeypatch.setattr(runner, "device_free_bytes", lambda device: 10_000)
    with pytest.raises(KeyedError, match="needs about"):                 # --run too: XLA's own count
        run(model.trace(lambda x: jnp.outer(x, x), jnp.ones(512, jnp.float32)), repeat=1)


def test_magic_profile_too_big_is_a_message_not_a_traceback(ip, monkeypatch):
    from IPython.core.error import UsageError
    from jaxprlens.engine import runner
    monkeypatch.setattr(runner, "device_free_bytes", lambda device: 500_000)
    ip.user_ns.update(big_middle=_big_middle, jnp=jnp)
    with pytest.raises(UsageError, match="profiling runs each equation on its own"):
        ip.run_cell_magic("jaxpr", "--profile --repeat 1", "big_middle(jnp.ones(512, jnp.float32))")


def test_an_allocation_failure_is_said_as_ours():
    from jaxprlens.engine import runner
    from jaxprlens.model.errors import KeyedError
    with pytest.raises(KeyedError) as e, runner.out_of_memory_said(resolve_device("cpu")):
        raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 20000000000 bytes.\nmore")
    assert e.value.text("en") == ("cpu:0 ran out of memory running it (RESOURCE_EXHAUSTED: Out of memory while trying "
                                  "to allocate 20000000000 bytes.): call it on smaller inputs, or on a device with "
                                  "more memory (--device)")
    with pytest.raises(ValueError), runner.out_of_memory_said(resolve_device("cpu")):   # anything else: as it was
        raise ValueError("shapes differ")


def test_profile_keeps_the_live_values_only(monkeypatch):
    from jaxprlens.engine import runner

    def chain(x):
        for _ in range(12):
            x = jnp.sin(x) * 1.5
        return x
    program = model.trace(chain, jnp.ones(1 << 16, jnp.float32))
    most, timed = [0], runner.time_calls

    def counted(call, args, *a, **k):
        most[0] = max(most[0], sum(x.nbytes for x in jax.live_arrays()))
        return timed(call, args, *a, **k)
    monkeypatch.setattr(runner, "time_calls", counted)
    before = sum(x.nbytes for x in jax.live_arrays())
    profile(program, repeat=1)
    assert most[0] - before <= 6 * 4 * (1 << 16)                          # not 24 values of 256 kB
