"""Every ``%%jaxpr`` / ``%jaxpr`` cell of some lectures, run as the course runs them, its output written out, to
show a change to the magic kept what the course shows.

``python benchmarks/magic_same.py OUT.txt [NN ...]``: runs the cells of ``notebooks/src/NN_*.py`` (default: every
lecture) in one IPython shell, in order, and for each magic cell writes every output it makes (what it
displayed, then its result as IPython displays it), or the error it raised.  Timings (``--run``,
``--profile``) are masked: digits vary from run to run.  Run it before and after a change and compare the files
(``cmp``)."""
from __future__ import annotations

import glob
import json
import os
import re
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

TIMED = re.compile(r"--(run|profile)\b")


def cells(path: str) -> list[str]:
    """The code cells of a jupytext percent file."""
    out, cur, code = [], [], False
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("# %%"):
            if code and cur:
                out.append("\n".join(cur).strip("\n"))
            cur, code = [], "[markdown]" not in line
            continue
        if code:
            cur.append(line)
    if code and cur:
        out.append("\n".join(cur).strip("\n"))
    return [c for c in out if c]


PUBLISHED: list = []      # what the cell displayed on its way (IPython's display publisher)


def _written(bundle) -> str:
    if isinstance(bundle, tuple):
        bundle = bundle[0]
    return "\n".join(f"--- {kind}\n{value if isinstance(value, str) else json.dumps(value, sort_keys=True)}"
                     for kind, value in sorted(bundle.items()))


def shown(result) -> str:
    """Every output the cell makes, in order: what it displayed, then its result as IPython displays it (a result
    with ``_ipython_display_`` displays itself)."""
    if result is not None and hasattr(result, "_ipython_display_"):
        result._ipython_display_()
        result = None
    outputs = [f"+++ display\n{_written(b)}" for b in PUBLISHED]
    PUBLISHED.clear()
    if result is not None:
        bundle = result._repr_mimebundle_() if hasattr(result, "_repr_mimebundle_") else {"text/plain": repr(result)}
        outputs.append(f"+++ result\n{_written(bundle)}")
    return "\n".join(outputs) or "None"


# combinations no lecture uses, on one small program (after the lectures' cells)
EXTRA_CELL = "import jax, jax.numpy as jnp\ndef f(x, y):\n    return jnp.sum(jnp.sin(x) * y)\nf(jnp.ones(4), 2.)"
EXTRA = ("--table --graph", "--text --table", "--graph --cost bytes", "--graph --fusion", "--lower --compiled --memory",
         "--fusion --memory --lang zh", "--graph --depth 1 --max-nodes 3", "--debug --graph", "--debug --text",
         "--transform grad --compare --lower", "--transform vmap --in-axes 0,None --compare --compiled",
         "--transform grad --graph --argnums 1", "--outer", "--cost", "--cost bytes --lang zh", "--table --cost",
         "--transform vmap --batched --in-axes 0,None")
LINES = ("--graph f(jnp.ones(4), 2.)", "--cost f(jnp.ones(4), 2.)", "--lang zh --text f(jnp.ones(4), 2.)",
         "--static-argnums 1 f(jnp.ones(4), 2.)", "--graph --max-nodes 3 f(jnp.ones(4), 2.)")


def main(out_path: str, lectures: list[str]) -> int:
    from IPython.testing.globalipapp import get_ipython
    ip = get_ipython()
    ip.display_pub.publish = lambda data, metadata=None, **kw: PUBLISHED.append(data)
    with open(out_path, "w") as out:
        for nn in lectures:
            path = sorted(glob.glob(os.path.join(ROOT, "notebooks", "src", f"{nn}_*.py")))[0]
            for i, code in enumerate(cells(path)):
                first, _, body = code.partition("\n")
                magic = re.match(r"^(%%?)jaxpr(?:\s+(.*))?$", first)
                if not magic or first.startswith("%jaxpr_config"):
                    ip.run_cell(code)
                    continue
                line = magic.group(2) or ""
                PUBLISHED.clear()
                try:
                    if magic.group(1) == "%%":
                        result = ip.run_cell_magic("jaxpr", line, body)
                    else:
                        result = ip.run_line_magic("jaxpr", line)
                    text = shown(result)
                except BaseException as e:  # noqa: BLE001 - the cell's error is what it shows
                    text = f"!!! {type(e).__name__}: {e}"
                    PUBLISHED.clear()
                if TIMED.search(line):
                    text = re.sub(r"\d[\d.,]*", "#", re.sub(r"\d[\d.,]* ?[µmn]?s\b", "# T", text))
                out.write(f"=== {nn} cell {i}: {first}\n{text}\n")
                print(nn, i, first, flush=True)
        for line in EXTRA + tuple("%" + x for x in LINES):
            PUBLISHED.clear()
            try:
                if line.startswith("%"):
                    result = ip.run_line_magic("jaxpr", line[1:])
                else:
                    result = ip.run_cell_magic("jaxpr", line, EXTRA_CELL)
                text = shown(result)
            except BaseException as e:  # noqa: BLE001 - the magic's error is what the line shows
                text = f"!!! {type(e).__name__}: {e}"
                PUBLISHED.clear()
            out.write(f"=== extra {line}\n{text}\n")
            print("extra", line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:] or [f"{n:02d}" for n in range(19)]))
