"""One of two processes of a multi-controller program, as people run notebooks on pods: ``python
tests/sharding_processes.py PROCESS_ID PORT`` joins ``jax.distributed`` on 127.0.0.1:PORT with CPU collectives
(gloo), four host devices each, one global mesh of eight; traces a data-parallel step with jaxprlens, runs it
(``program.run()``), reads its sharding (``program.sharding()``) and compares both with ``jax.jit``.  It prints one
JSON object that ``tests/test_sharding.py`` checks; ``{"skip": why}`` when this jaxlib has no gloo.

XLA fixes the device count and the distributed client when JAX starts: the flags are set here, before JAX is
imported, and each process is a process of its own."""
import json
import os
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402 - after the flags

PROCESSES = 2


def join(process_id: int, port: str) -> str | None:
    """Join the two processes; None, or why gloo is not there."""
    try:
        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=PROCESSES,
                                   process_id=process_id, initialization_timeout=300)
        jax.devices()            # the CPU client, with its collectives, is made here
    except Exception as e:  # noqa: BLE001 - only a missing gloo is a skip; anything else is raised again
        if "gloo" in str(e).lower():
            return f"{type(e).__name__}: {str(e).strip().splitlines()[0][:300]}"
        raise
    return None


def local(value) -> list:
    """The blocks of ``value`` this process holds, by device id, as lists."""
    return sorted([s.device.id, jax.numpy.asarray(s.data).tolist()] for s in value.addressable_shards)


def main(process_id: int, port: str) -> dict:
    why = join(process_id, port)
    if why is not None:
        return {"skip": why}
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P
    import jaxprlens

    mesh = jax.make_mesh((8,), ("data",))
    rows = np.linspace(-1, 1, 4 * 3, dtype=np.float32).reshape(4, 3) + process_id      # this process's batch
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("data", None)), rows)
    w = jax.device_put(jnp.linspace(-0.5, 0.5, 3 * 2, dtype=jnp.float32).reshape(3, 2), NamedSharding(mesh, P()))

    def step(w, x):
        def loss(w):
            return jnp.mean(jnp.tanh(x @ w) ** 2)
        value, grad = jax.value_and_grad(loss)(w)
        return w - 0.1 * grad, value, jnp.tanh(x @ w)        # the new weights, the loss, per-example outputs

    program = jaxprlens.trace(step, w, x)
    ran = program.run(repeat=2, estimate=False)
    view = program.sharding(lang="en")
    want = jax.jit(step)(w, x)
    same = [bool(np.allclose(np.asarray(a), np.asarray(b))) if a.is_fully_addressable else local(a) == local(b)
            for a, b in zip(jax.tree_util.tree_leaves(ran.outputs), jax.tree_util.tree_leaves(want), strict=True)]
    return {
        "process": jax.process_index(), "processes": jax.process_count(),
        "devices": jax.device_count(), "local_devices": jax.local_device_count(),
        "eqns": {e.id: e.primitive for e in program.walk()},
        "same_as_jit": same,
        "run_text": ran.text(),
        "collectives": [[c.kind, c.eqn, list(c.axes), c.bytes, list(c.eqns)] for c in view.collectives],
        "inputs": [repr(v.spec) for v in view.map.inputs],
        "partitions": view.map.partitions,
        "sharding_text": view.text(),
    }


if __name__ == "__main__":
    out = main(int(sys.argv[1]), sys.argv[2])
    sys.stdout.flush()
    print("\n" + json.dumps(out))                # the last line: gloo writes its own lines to stdout
    sys.stdout.flush()
    if "skip" not in out:
        jax.distributed.shutdown()
