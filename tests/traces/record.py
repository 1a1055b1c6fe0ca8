"""Records ``cpu_loop_cond.xplane.pb`` and ``cpu_loop_cond.trace.json.gz`` (the two files of one recording), the
CPU trace that tests/test_kerneltime.py and test_fusion.py read: the program ``loop_cond`` (a fori_loop, then a
cond) compiled as ``program.fusion()`` compiles it, run twice under ``jax.profiler.trace`` (no Python tracer), on
JAX 0.12's CPU backend.  A real recording, kept as it came out: ``python tests/traces/record.py`` writes a new one
(its times differ; the tests' numbers are these files').  ``python tests/traces/record.py gpu`` records the same
program on that device instead, as ``gpu_loop_cond.*`` (scripts/gpu_check.sh does, on a GPU machine)."""
import glob
import os
import shutil
import sys
import tempfile

DEVICE = sys.argv[1] if len(sys.argv) > 1 else "cpu"
if DEVICE == "cpu":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src"))

import jax  # noqa: E402 - JAX_PLATFORMS and src/ set before JAX loads
import jax.numpy as jnp  # noqa: E402 - JAX_PLATFORMS and src/ set before JAX loads

import jaxprlens  # noqa: E402 - JAX_PLATFORMS and src/ set before JAX loads
from jaxprlens.engine.devices import resolve_device  # noqa: E402 - JAX_PLATFORMS and src/ set before JAX loads
from jaxprlens.engine.fusion import compile_scoped  # noqa: E402 - JAX_PLATFORMS and src/ set before JAX loads

HERE = os.path.dirname(os.path.abspath(__file__))


def loop_cond(x, w):
    def body(i, c):
        return jnp.tanh(c @ w) + 1.0
    y = jax.lax.fori_loop(0, 3, body, x)
    return jax.lax.cond(y.sum() > 0, lambda a: jnp.sin(a) * 2, lambda a: jnp.cos(a), y)


ARGS = (jnp.ones(16), jnp.ones((16, 16)) * .01)


def main():
    program = jaxprlens.trace(loop_cond, *ARGS)
    compiled, _ = compile_scoped(program, DEVICE)
    device = resolve_device(DEVICE)
    args = [jax.device_put(a, device) for a in program.args]
    jax.block_until_ready(compiled(*args))
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0
    out = tempfile.mkdtemp()
    with jax.profiler.trace(out, profiler_options=options):
        for _ in range(2):
            jax.block_until_ready(compiled(*args))
    for suffix in (".xplane.pb", ".trace.json.gz"):
        written, = glob.glob(os.path.join(out, "plugins", "profile", "*", "*" + suffix))
        shutil.copy(written, os.path.join(HERE, f"{device.platform}_loop_cond" + suffix))
    shutil.rmtree(out)


if __name__ == "__main__":
    main()
