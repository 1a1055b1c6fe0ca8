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
from IPython.core.error import UsageError

from jaxprlens import model
from jaxprlens.engine.devices import resolve_device
from jaxprlens.views.run import DevicesView, Profile, RunResult, devices_view, fmt_time, profile, run, value_text
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
    assert len(r.times) == 5 and r.median > 0 and r.spread >= 0 and r.compile_time > 0
    assert r.cost_analysis is None or isinstance(r.cost_analysis, dict)
    bundle = r._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}
    text = bundle["text/plain"]
    assert text.splitlines()[0] == "ran on cpu:0 (platform cpu, kind cpu, id 0)"
    assert re.search(rf"^compile {TIME}; run median {TIME} ± {TIME}  \(± half the interquartile range of 5 runs\)$",
                     text, re.M)
    assert "  out[0] = 96.0" in text and "  out[1] = float32[16] [ 0., 6., 12.," in text
    assert 'class="jl-time"' in bundle["text/html"]


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
                assert not re.search(r"\d+% of time|\d+%）", text)


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


@pytest.mark.parametrize("spec, message", [
    ("tpu:3", r"no tpu device here for 'tpu:3'; devices here: cpu:0 \(cpu\)"),
    ("gpu", r"no gpu device here for 'gpu'; devices here: cpu:0"),
    ("cpu:5", r"no device 'cpu:5': there are 1 cpu device\(s\) \(indices 0..0\); devices here: cpu:0"),
    ("gpu-1", r"unknown device 'gpu-1' \(write platform\[:index\]"),
])
def test_bad_device_lists_devices(spec, message):
    with pytest.raises(ValueError, match=message):
        resolve_device(spec)


def test_devices_view():
    view = devices_view()
    assert isinstance(view, DevicesView)
    bundle = view._repr_mimebundle_()
    assert bundle["text/plain"].splitlines() == [
        "devices (name, platform, kind, id):",
        "  cpu:0    cpu   cpu                  0  (default)"]
    assert 'data-device="cpu:0"' in bundle["text/html"]


def test_profile_rows_beside_estimates():
    fn, args = SEEDS["func1"]
    p = model.trace(fn, *args)
    prof = profile(p, device="cpu", repeat=3)
    assert isinstance(prof, Profile)
    assert [r.eqn.primitive for r in prof.rows] == [e.primitive for e in p.eqns]
    assert all(r.median > 0 for r in prof.rows)
    lines = prof.text().splitlines()
    assert lines[1].split() == ["#", "outputs", "primitive", "estimate", "measured", "on", "its", "own"]
    assert re.match(rf"^0  c:f32\[8\] +sin +8 FLOP, 64 B +measured {TIME} \(\d+% of time\)$", lines[2])
    assert "estimated total: 31 FLOP, 264 B; intensity 0.12 FLOP/B" in lines
    assert prof.html().count("<tr data-eqn=") == len(p.eqns)


def test_magic_run_profile_devices_and_bad_device(ip):
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
    with pytest.raises(UsageError, match=r"no tpu device here for 'tpu:3'; devices here: cpu:0"):
        ip.run_cell_magic("jaxpr", "--run --device tpu:3", cell)


def test_program_without_arguments_is_a_clear_error():
    p = model.from_jaxpr(jax.make_jaxpr(jnp.sin)(1.0))
    with pytest.raises(ValueError, match="recorded argument"):
        run(p)


EIGHT = textwrap.dedent("""
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    from jaxprlens import model
    from jaxprlens.views.run import run, devices_view
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
    assert "sharding_constraint[sharding=NamedSharding(mesh=Mesh('x': 8" in out     # the sharding, in params
    assert "= shard_map[mesh=Mesh('x': 8" in out and "in_specs=(P('x',),)" in out
    assert "shard_map[2] › shard_map" in out                                         # nested body ...
    nested = out[out.index("shard_map[2] › shard_map"):]
    assert re.search(r"^ {8}\s*\d+  \S+ = psum\w*\[axes=\('x',\)\] ", nested, re.M)    # ... holds the collective
    assert "8 devices × (" in out                                                     # cost of the body on each


def test_program_without_inputs_runs_on_the_chosen_device():
    p = model.trace(lambda: jnp.arange(3.0) * 2.0)
    r = run(p, device="cpu:0", repeat=2)
    np.testing.assert_array_equal(np.asarray(r.outputs), [0.0, 2.0, 4.0])
    assert r.outputs.devices() == {jax.devices("cpu")[0]}
