#!/bin/sh
# Print the Python that make lab / make test build .venv with: the newest Python >= 3.12 on PATH, then
# in pyenv (JAX 0.11+ needs 3.12), else python3 (then constraints-py311.txt pins JAX 0.10).
for v in 3.14 3.13 3.12; do
  p=$(command -v "python$v" 2>/dev/null)
  if [ -n "$p" ] && "$p" -c 'import venv' 2>/dev/null; then echo "$p"; exit 0; fi
  root=$(pyenv root 2>/dev/null)
  if [ -n "$root" ]; then
    for p in $(ls -d "$root"/versions/"$v"*/bin/python"$v" 2>/dev/null | sort -rV); do
      if "$p" -c 'import venv' 2>/dev/null; then echo "$p"; exit 0; fi
    done
  fi
done
command -v python3
