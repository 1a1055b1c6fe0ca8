# Two commands do everything on a fresh machine: `make lab` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PYTHON ?= python3

.PHONY: lab test venv browser-deps docs bench clean jax-compat

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)

lab: venv
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (jaxprlens)" >/dev/null
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# Debian's Chromium for the real-browser tests (installed only when missing and we are root).
browser-deps:
	@sh scripts/ensure_chromium.sh

test: venv browser-deps
	JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure $(PY) -m pytest -q tests
	JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure $(PY) -m pytest -q --nbval --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider notebooks/en notebooks/zh
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory jax-compat

# The unit suite again on JAX 0.11 and 0.12 (Python 3.12 venvs; skipped with a message without python3.12).
jax-compat:
	@sh scripts/jax_compat.sh

docs: venv
	@if [ -f docs/conf.py ]; then $(VENV)/bin/sphinx-build -q -W -b html docs docs/_build/html; fi

bench: venv
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .venv-jax* docs/_build .pytest_cache
