"""engine/kerneltime.py: kernel events read from a profiler trace, each kernel's own time per run.

The trace read here is a real recording (tests/traces/record.py: JAX 0.12, CPU backend), so its numbers are
exact; no GPU trace was recorded for this project yet, and none is made up: the device-plane choice is
checked on plain records standing in for planes (``_plane``), not on a trace."""
from pathlib import Path
from types import SimpleNamespace

import jax
import pytest

import jaxprlens.present.i18n  # noqa: F401 - the catalogue that words the errors
from jaxprlens.engine import kerneltime
from jaxprlens.engine.kerneltime import Event, events, kernel_times, module_name, own_times, read_trace
from jaxprlens.model.errors import KeyedError

TRACE = Path(__file__).parent / "traces" / "cpu_loop_cond.xplane.pb"
MODULE = "jit_jaxpr_as_fun"

# (instruction, duration ns) of the recording's two runs, in order; the branch's kernel runs inside the cond's
RUN_1 = [("copy.8", 2806), ("copy.9", 991), ("call", 1623), ("compare_convert_fusion", 1072),
         ("cond.1.clone", 2113), ("broadcast_multiply_fusion", 1052)]
RUN_2 = [("copy.8", 1272), ("copy.9", 612), ("call", 1373), ("compare_convert_fusion", 1112),
         ("cond.1.clone", 2274), ("broadcast_multiply_fusion", 1313)]


@pytest.fixture(scope="module")
def data():
    return read_trace(TRACE)


def test_the_cpu_trace_has_one_event_per_thunk_of_the_entry_and_the_branch(data):
    evs = events(data, MODULE)
    assert [(e.op, e.duration) for e in evs] == RUN_1 + RUN_2
    assert {e.plane for e in evs} == {"/host:CPU"} and len({e.run for e in evs}) == 2
    assert events(data) == evs                               # the trace holds this module's events only
    assert events(data, "jit_other") == []


def test_each_kernel_gets_its_own_time_per_run(data):
    times = kernel_times(data, MODULE, calls=5)               # the events' run ids count the runs, not calls
    assert times.runs == 2 and times.source == "host" and times.planes == ("/host:CPU",)
    want = {op: (a + b) / 2 * 1e-9 for (op, a), (_, b) in zip(RUN_1, RUN_2)}
    want["cond.1.clone"] = ((2113 - 1052) + (2274 - 1313)) / 2 * 1e-9     # less its branch's kernel
    assert times.seconds == pytest.approx(want)
    assert times.total == pytest.approx(sum(want.values()))
    assert times.nested == {"broadcast_multiply_fusion": "cond.1.clone"}


def test_the_trace_viewer_s_json_of_the_same_recording_reads_the_same(data):
    json_trace = read_trace(TRACE.with_name("cpu_loop_cond.trace.json.gz"))
    got = [(e.op, e.plane, e.line, e.duration, e.run) for e in events(json_trace, MODULE)]
    assert got == [(e.op, e.plane, e.line, e.duration, e.run) for e in events(data, MODULE)]
    assert kernel_times(json_trace, MODULE).seconds == pytest.approx(kernel_times(data, MODULE).seconds)


def test_a_trace_without_the_module_measures_nothing(data):
    times = kernel_times(data, "jit_other", calls=3, asked=4, stopped=True)
    assert (times.seconds, times.source, times.runs, times.asked, times.stopped) == ({}, "", 3, 4, True)


def test_own_times_subtract_the_events_directly_inside():
    evs = [Event("while", "p", "l", 0, 100), Event("a", "p", "l", 10, 30), Event("b", "p", "l", 15, 10),
           Event("c", "p", "l", 50, 20), Event("d", "p", "l", 200, 5), Event("x", "p", "other", 20, 40)]
    own, nested = own_times(evs)
    assert {e.op: ns for e, ns in own} == {"while": 50, "a": 20, "b": 10, "c": 20, "d": 5, "x": 40}
    assert nested == {"a": "while", "b": "a", "c": "while"}


def _plane(name, *ops):
    """A plane as ``ProfileData`` exposes one (name, lines of events with stats): plain records, no trace."""
    evs = [SimpleNamespace(name=op, start_ns=10.0 * i, duration_ns=5.0,
                           stats=[("hlo_op", op), ("hlo_module", MODULE)]) for i, op in enumerate(ops)]
    return SimpleNamespace(name=name, lines=[SimpleNamespace(name="Stream #7(Kernel)", events=evs)])


def test_device_planes_are_read_before_the_host_s():
    """On a GPU the host plane holds the launches (annotated alike), the device planes the kernels."""
    both = SimpleNamespace(planes=[_plane("/host:CUDA", "fusion.1"), _plane("/device:GPU:0", "fusion.1", "gemm")])
    times = kernel_times(both, MODULE, calls=1)
    assert times.source == "device" and times.planes == ("/device:GPU:0",)
    assert set(times.seconds) == {"fusion.1", "gemm"}
    host = SimpleNamespace(planes=[_plane("/host:CPU", "fusion.1")])
    assert kernel_times(host, MODULE).source == "host"


def test_the_module_name_is_the_hlo_text_s():
    assert module_name("HloModule jit_f, is_scheduled=true\n\nENTRY ...") == "jit_f"
    assert module_name("") is None


def test_without_a_profile_session_it_says_which_jax_it_needs(monkeypatch):
    monkeypatch.delattr(jax.profiler, "ProfileSession", raising=False)
    with pytest.raises(KeyedError) as info:
        kerneltime.profile(lambda: None, [], None, 1, 1.0)
    assert info.value.text("en").startswith("kernel times need jax.profiler.ProfileSession (JAX 0.11 or newer)")
    assert "请升级 JAX" in info.value.text("zh")


@pytest.mark.skipif(not hasattr(jax.profiler, "ProfileSession"), reason="jax.profiler.ProfileSession is JAX 0.11+")
def test_a_profile_already_running_is_said():
    session = jax.profiler.ProfileSession()
    session.start()
    try:
        with pytest.raises(KeyedError) as err:
            kerneltime.profile(lambda: jax.numpy.ones(2), [], None, repeat=1, budget=1.0)
    finally:
        session.stop()
    assert err.value.key == "kernel_profile_busy" and "jax.profiler.stop_trace()" in str(err.value)
    assert "一次只允许一个" in err.value.text("zh")
