"""Print the nbval flag for this venv: ``--nbval`` (outputs must match) when the installed JAX is the one
that recorded the course (``metadata.jaxprlens.jax`` of every notebook), else ``--nbval-lax`` (every cell
must run without error) and a line on stderr saying why."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jax

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def recorded() -> set:
    return {json.loads(p.read_text(encoding="utf-8"))["metadata"].get("jaxprlens", {}).get("jax")
            for p in sorted(NOTEBOOKS.glob("*/*.ipynb"))}


if __name__ == "__main__":
    versions = recorded()
    if versions == {jax.__version__}:
        print("--nbval")
    else:
        print(f"nbval: the course was recorded on JAX {', '.join(sorted(map(str, versions)))}, this is "
              f"{jax.__version__}: checking that every cell runs (--nbval-lax), not its outputs", file=sys.stderr)
        print("--nbval-lax")
