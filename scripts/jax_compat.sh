#!/bin/sh
# Run the Python test suite again on the newer JAX releases jaxprlens supports (0.11, 0.12). They need
# Python 3.12; where no python3.12 exists, say so and skip (the main suite already ran on JAX 0.10).
set -e
PY312=""
for cand in "$(command -v python3.12 2>/dev/null)" $(ls -d "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12 2>/dev/null); do
  if [ -n "$cand" ] && "$cand" -c 'import sys' 2>/dev/null; then PY312="$cand"; break; fi
done
if [ -z "$PY312" ]; then
  echo "jax compat: skipped, no python3.12 on PATH (JAX 0.11+ needs Python 3.12)"
  exit 0
fi
for v in 0.11.2 0.12.0.1; do
  venv=".venv-jax$v"
  if [ ! -f "$venv/.installed" ]; then
    rm -rf "$venv"
    "$PY312" -m venv "$venv"
    grep -v -i -E '^(jax|jaxlib)==' constraints.txt > "$venv/constraints.txt"
    printf 'jax==%s\njaxlib==%s\n' "$v" "$v" >> "$venv/constraints.txt"
    "$venv/bin/python" -m pip install -q --upgrade pip
    "$venv/bin/python" -m pip install -q -c "$venv/constraints.txt" -e . pytest beautifulsoup4 nbval jupytext
    touch "$venv/.installed"
  fi
  echo "jax compat: $("$venv/bin/python" -c 'import jax; print("jax", jax.__version__)') on $("$venv/bin/python" -V)"
  JAX_PLATFORMS=cpu "$venv/bin/python" -m pytest -q -p no:cacheprovider tests \
    --ignore=tests/browser --ignore=tests/test_notebooks.py
done
