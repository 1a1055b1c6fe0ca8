"""Real models (flax.nnx, flax.linen, optax, equinox, diffrax) and multi-device maps through every entry point:
the text is JAX's printer's, table and graph build, the stepper (run, and random step/into/out/back mixes) and
``run()`` give ``jax.jit``'s outputs. The cases and checks are in tests/libraries.py."""
import json
import os
import subprocess
import sys

import pytest

from libraries import CASES, CHECKS, DEVICE_CASES, Case

HERE = os.path.dirname(os.path.abspath(__file__))
_cases: dict = {}


def traced(name) -> Case:
    if name not in _cases:
        _cases[name] = Case(name)         # skips when the case's library is not installed
    return _cases[name]


@pytest.fixture(scope="module", autouse=True)
def eight_devices():
    """Every check on the multi-device cases, in a child process with 8 simulated CPU devices, started first
    so that it runs beside the in-process cases."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.Popen([sys.executable, "libraries.py", *DEVICE_CASES], env=env, cwd=HERE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outcomes = {}

    def wait():
        if not outcomes:
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err[-3000:]
            outcomes.update(json.loads(out.splitlines()[-1]))
        return outcomes
    yield wait
    if proc.poll() is None:
        proc.kill()
        proc.communicate()


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("name", [n for n in CASES if n not in DEVICE_CASES])
def test_real_model(name, check):
    CHECKS[check](traced(name))


KNOWN: dict = {}    # (case, check) -> pytest mark for a known failure; none today


@pytest.mark.parametrize("name,check", [pytest.param(n, c, marks=KNOWN.get((n, c), ()))
                                        for n in DEVICE_CASES for c in CHECKS])
def test_on_eight_devices(eight_devices, name, check):
    outcome = eight_devices()[name][check]
    if outcome.startswith("skip: "):
        pytest.skip(outcome.removeprefix("skip: "))
    assert outcome == "ok", outcome
