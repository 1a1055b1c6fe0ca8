"""Combiner jaxprs (scatter's update_jaxpr, reduce's computation, ...) are shown as what they are and stepped
over; every written value is checked against its declared type; leaked tracers; eager vs compiled."""
import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jaxprlens.model import from_jaxpr, trace
from jaxprlens.engine.stepper import StepTypeError
from jaxprlens.present.i18n import role_summary, sub_label
from jaxprlens.present.words import jit_diff_text, over_text, path_text
from stepping import assert_same, drive

ROOT = Path(__file__).resolve().parents[1]
X = jnp.arange(12.0).reshape(4, 3)


def _max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), "VALID").sum()


def _scatter_in_loop(x, idx):
    return lax.fori_loop(0, 3, lambda i, acc: acc.at[idx].add(x[i]), jnp.zeros(3))


COMBINERS = {
    "reduce_custom": (lambda x: lax.reduce(x, 0.0, lambda a, b: a + b * b, (0,)), (X,)),
    "reduce_two_operands": (lambda x, y: lax.reduce((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                                                    (1,)), (X, X / 10 + 1)),
    "reduce_window_custom": (lambda x: lax.reduce_window(x, 0.0, lambda a, b: a + b * b, (2, 1), (1, 1), "VALID"),
                             (X,)),
    "embedding_grad": (jax.grad(lambda p, i: p[i].sum()), (X, jnp.array([0, 2, 2, 3]))),
    "cross_entropy_grad": (jax.grad(lambda logits, labels: -jax.nn.log_softmax(logits)[
        jnp.arange(logits.shape[0]), labels].mean()), (jnp.sin(X), jnp.array([0, 2, 1, 1]))),
    "scatter_mul_min_max": (lambda x, i: (x.at[i].multiply(2.0), x.at[i].min(-1.0), x.at[i].max(50.0),
                                          x.at[i].set(7.0)), (X, jnp.array([1, 3]))),
    "scatter_in_loop": (_scatter_in_loop, (jnp.arange(9.0).reshape(3, 3), jnp.array([0, 0, 2]))),
    "sort_two_operands": (lambda k, v: lax.sort((k, v), num_keys=1), (jnp.array([3.0, 1.0, 2.0, 1.0]),
                                                                         jnp.arange(4))),
    "max_pool_grad": (jax.grad(_max_pool), (jnp.sin(jnp.arange(20.0)).reshape(4, 5),)),
    "cumsum_cummax": (lambda x: (jnp.cumsum(x, 0), lax.cummax(x, 1), lax.cumprod(x, 0)), (jnp.sin(X),)),
}


@pytest.mark.parametrize("name", list(COMBINERS))
def test_stepping_equals_jit(name):
    fn, args = COMBINERS[name]
    want = jax.jit(fn)(*args)
    program = trace(fn, *args)
    st = program.stepper()
    st.run()
    assert_same(st.outputs, want, f"{name} run")
    for policy, seed in [("into", 0)] + [("mix", s) for s in range(1, 6)]:
        st.reset()
        drive(st, policy, seed)
        assert_same(st.outputs, want, f"{name} {policy} {seed}")
        assert st.compare_with_jit() is None


def test_reduce_combiner_is_shown_and_stepped_over():
    program = trace(*COMBINERS["reduce_custom"][:1], X)
    eqn = program.eqns[0]
    (sub,) = eqn.subs
    assert (sub.key, sub.label, sub.kind, sub.in_map, sub.out_map) == \
        ("combiner", "combiner (per element)", "combiner", [None, None], [None])
    assert sub_label(sub, "zh") == "逐元素合并函数"
    assert role_summary(eqn.roles) == "1 operand, 1 init value"
    st = program.stepper()
    st.step_into()
    assert st.done and path_text(st) == "done"
    assert (st.note.kind, st.note.eqn.id) == ("combiner", "0")                 # data; present.words says it
    assert over_text(st.note, "en") == ("reduce's combiner (per element) runs on single elements inside reduce: "
                                        "eqn 0 ran as one step")
    assert over_text(st.note, "zh") == "reduce 的逐元素合并函数在 reduce 内部逐个元素运行：方程 0 作为一步运行"
    np.testing.assert_allclose(np.asarray(st.outputs), [126.0, 166.0, 214.0])
    st.back()
    assert st.note is None and st.position == 0
    text = program.table().text()
    assert "reduce[0] › combiner (per element):" in text and "operand roles: 1 operand, 1 init value" in text
    assert "reduce[0] › 逐元素合并函数" in program.table(lang="zh").text()
    dot = program.graph().source
    assert 'label="combiner (per element)"' in dot


def test_scatter_roles_and_breakpoint_inside_a_combiner():
    fn, args = COMBINERS["embedding_grad"]
    program = trace(fn, *args)
    eqn = next(e for e in program.walk() if e.primitive == "scatter-add")
    assert [s.key for s in eqn.subs] == ["combiner"] and role_summary(eqn.roles) == "1 operand, 1 indices, 1 updates"
    st = program.stepper()
    st.add_breakpoint(eqn=eqn.subs[0].program.eqns[0].id)   # never reached: the combiner is not stepped
    st.run()
    assert st.done and st.stop is None
    assert_same(st.outputs, jax.jit(fn)(*args))


def test_a_wrong_shape_from_a_sub_jaxpr_is_an_error_not_a_value():
    """The issue's silent case: enter reduce's combiner with the whole array, as the stepper used to."""
    program = trace(*COMBINERS["reduce_custom"][:1], X)
    eqn = program.eqns[0]
    eqn.subs[0] = dataclasses.replace(eqn.subs[0], kind="", in_map=[0, 1], out_map=[0])
    st = program.stepper()
    st.step_into().step()                                  # mul d d: the init value squared, f32[] as declared
    assert st.current.id == "0/combiner/1"
    with pytest.raises(StepTypeError) as info:
        st.step()                                          # add c e: c is the whole f32[4,3] operand
    assert str(info.value) == ("eqn 0/combiner/1 (add) would write f as f32[4,3], but the jaxpr declares f:f32[]; "
                               "the stepper stops here rather than show a wrong value (please report this program)")
    f = st.current.outvars[0]
    assert st.current.id == "0/combiner/1" and f not in st.env


def test_a_wrong_shape_handed_back_by_a_finished_body_is_an_error():
    program = trace(jax.jit(lambda x: (x, x.sum())), jnp.ones(3), see_through=False)   # the jit equation
    eqn = program.eqns[0]
    eqn.subs[0] = dataclasses.replace(eqn.subs[0], out_map=[1, 0])     # results bound to the wrong outvars
    st = program.stepper()
    st.step_into()
    with pytest.raises(StepTypeError, match=r"^eqn 0 \(jit\) would write c as f32\[\], but the jaxpr declares "
                                            r"c:f32\[3\]"):
        st.step()
    assert path_text(st) == "jit[eqn 0] › jit <lambda> › eqn 0" and not any(v in st.frames[0].env for v in eqn.outvars)


def test_a_poked_value_of_the_wrong_shape_stops_the_next_step():
    program = trace(lambda x: jnp.cos(jnp.sin(x)), jnp.ones(3))
    st = program.stepper()
    st.env[program.invars[0]] = jnp.ones(4)
    with pytest.raises(StepTypeError, match=r"eqn 0 \(sin\) would write b as f32\[4\], but the jaxpr declares "
                                            r"b:f32\[3\]"):
        st.step()
    assert st.position == 0


def test_an_input_of_the_wrong_shape_is_refused():
    program = trace(lambda x: x * 2.0, jnp.ones(3))
    with pytest.raises(ValueError) as info:
        program.stepper(jnp.ones(5))
    assert str(info.value) == ("input x is declared f32[3], but the value given has shape (5,); pass a value of "
                               "the traced shape or trace again")


def _leaky_program():
    leaked = []

    def keep(x):
        leaked.append(x * 2.0)
        return x

    jax.make_jaxpr(keep)(1.0)
    return jax.make_jaxpr(lambda y: y + leaked[0])(1.0)


def test_leaked_tracer_constant_is_shown_with_a_note():
    closed = _leaky_program()
    program = from_jaxpr(closed)
    assert str(program) == closed.pretty_print(use_color=False)
    assert program.table().text().splitlines()[0] == "hoisted constant: a:f32[] = leaked tracer: no value"
    assert "leaked tracer: no value" in program.table().html()
    assert "leaked tracer: no value" in program.graph().source
    with pytest.raises(ValueError) as info:
        program.stepper(1.0)
    assert str(info.value) == ("constant a:f32[] is a leaked tracer (a traced value kept from another trace, e.g. "
                               "in a global): it has no value to step with; compute it inside the function or "
                               "pass it as an argument")


def test_compare_with_jit_reports_a_difference():
    program = trace(lambda x: (jnp.sin(x), x.astype(jnp.int32)), jnp.arange(3.0))
    st = program.stepper()
    assert st.compare_with_jit() is None                 # not done: nothing to compare yet
    st.run()
    assert st.compare_with_jit() is None
    assert st.compare_with_jit(want=program.run(repeat=1)) is None
    want = [jnp.sin(jnp.arange(3.0)).at[1].add(0.5), jnp.array([0, 1, 3], jnp.int32)]
    diff = st.compare_with_jit(want=want)                # data: the first output that differs, and how many more
    assert (diff.kind, diff.path, diff.differing, diff.size, diff.gap, diff.more) == ("values", "out[0]", 1, 3, 0.5, 1)
    assert jit_diff_text(diff, "en") == (
        "out[0]: 1 of 3 elements differ from jax.jit's, by up to 0.5 (and 1 more output): the stepper runs "
        "each equation eagerly, jax.jit compiles the whole program (fusion, XLA's numerics, dead code removed)")
    assert jit_diff_text(diff, "zh") == (
        "out[0]：3 个元素中有 1 个与 jax.jit 的结果不同，最大相差 0.5（另有 1 个输出也不同）：单步执行器逐个立即执行"
        "方程，而 jax.jit 编译整个程序（融合、XLA 的数值实现、删除无用代码）")
    typed = st.compare_with_jit(want=[want[0].astype(jnp.float16), want[1]])
    assert (typed.kind, typed.got, typed.want) == ("type", "f32[3]", "f16[3]")
    assert jit_diff_text(typed, "en").startswith("out[0] is f32[3] stepped but f16[3] compiled (and 1 more output)")
    count = st.compare_with_jit(want=want[:1])
    assert jit_diff_text(count, "en") == "jax.jit gives 1 outputs, the stepper 2" and jit_diff_text(None) is None


EIGHT = textwrap.dedent("""
    import random
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import Mesh, PartitionSpec as P
    from jaxprlens.model import trace
    from jaxprlens.present.words import over_text
    from stepping import assert_same, drive
    assert len(jax.devices()) == 8, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("x",))

    def sharded(a):
        total = jax.shard_map(lambda t: jax.lax.psum(t.sum(keepdims=True), "x"),
                              mesh=mesh, in_specs=P("x"), out_specs=P())(a * 2.0)
        return total + 1.0

    pmapped = jax.pmap(lambda v: v - jax.lax.psum(v, "i"), axis_name="i")
    cases = [(sharded, jnp.arange(64.0)), (pmapped, jnp.arange(16.0).reshape(8, 2))]
    for fn, x in cases:
        want = jax.jit(fn)(x)
        p = trace(fn, x)
        st = p.stepper()
        while st.note is None and not st.done:
            st.step_into()
        print(over_text(st.note, "en"))
        st.run()
        assert_same(st.outputs, want)
        assert st.compare_with_jit() is None
        for seed in range(4):
            st.reset()
            drive(st, "mix", seed)
            assert_same(st.outputs, want, seed)
    print("ok")
""")


SHARDS = ("shard_map bodies run as one step: each device runs the body on its own block, and the collectives in it "
          "(psum, ppermute, all_gather) need every device's block at the same moment, so the stepper runs the whole "
          "shard_map at once, on every device, as jax.jit does (eqn {id} ran whole; --sharding shows which equations "
          "of the body talk)")


def test_shard_map_and_pmap_step_over_on_eight_devices():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", EIGHT], env=env, capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == [
        SHARDS.format(id=1),
        SHARDS.format(id=0),                 # jit: its body
        "ok",
    ]
