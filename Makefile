# Two commands do everything on a fresh machine: `make lab` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The newest Python >= 3.12 on PATH or in pyenv (JAX 0.12, what learners install), else python3 (JAX 0.10).
PYTHON ?= $(shell sh scripts/find_python.sh)
PYVER  := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
CONSTRAINTS := $(shell $(PYTHON) -c 'import sys; print("constraints.txt" if sys.version_info >= (3, 12) else "constraints-py311.txt")')

.PHONY: lab test venv browser-deps docs bench clean jax-compat nbval package

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@if [ -x $(PY) ] && [ "$$($(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')" != "$(PYVER)" ]; then \
	  echo "$(VENV) is not Python $(PYVER): making it again"; rm -rf $(VENV); fi
	@echo "$(VENV): Python $(PYVER) ($(PYTHON)), pins from $(CONSTRAINTS)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[dev]"
	# an editable install skips the wheel's data files: enable the save hook (debugger replay) by hand
	mkdir -p $(VENV)/etc/jupyter/jupyter_server_config.d
	cp jupyter-config/jaxprlens.json $(VENV)/etc/jupyter/jupyter_server_config.d/
	touch $(STAMP)

venv: $(STAMP)

lab: venv
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	# single-user, as most learners' JupyterLab is (the dev extras hold jupyter-collaboration for tests/browser/test_shared.py)
	$(VENV)/bin/jupyter lab --ip=127.0.0.1 --notebook-dir=notebooks --YDocExtension.disable_rtc=True \
	  $$( [ "$$(id -u)" = 0 ] && echo --allow-root )

# Debian's Chromium for the real-browser tests (installed only when missing and we are root).
browser-deps:
	@sh scripts/ensure_chromium.sh

test: venv browser-deps
	$(VENV)/bin/ruff check .              # the linter's rule set ([tool.ruff] in pyproject.toml)
	$(VENV)/bin/mypy                      # the public API's types ([tool.mypy] in pyproject.toml)
	$(VENV)/bin/lint-imports --no-cache   # the layers ([tool.importlinter] in pyproject.toml)
	sh scripts/check_package.sh $(PY)   # sdist + wheel, twine check, the wheel in a clean venv
	PY=$(PY) sh scripts/js_tests.sh      # the browser modules' unit tests (tests/js) under Node, jsdom
	# unit, magic, library and docs tests on both cores; then the real-browser tests one at a time
	JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure $(PY) -m pytest -q -n 2 tests --ignore=tests/browser
	JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure $(PY) -m pytest -q tests/browser
	$(MAKE) --no-print-directory nbval
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory jax-compat

# The package as PyPI would ship it: sdist + wheel, twine check --strict, the wheel used in a clean venv.
package: venv
	sh scripts/check_package.sh $(PY)

# Both editions of the course: strict on the JAX that recorded them, and on any other JAX run without error
# (--nbval-lax) so a learner on an older JAX is not told the course is broken.
nbval: venv
	JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure $(PY) -m pytest -q $$($(PY) scripts/nbval_mode.py) \
	  --nbval-sanitize-with notebooks/sanitize.cfg -p no:cacheprovider notebooks/en notebooks/zh

# The unit suite again on the other supported JAXes (0.10, 0.11, 0.12), each in its own venv.
jax-compat:
	@sh scripts/jax_compat.sh

docs: venv
	@if [ -f docs/conf.py ]; then $(VENV)/bin/sphinx-build -q -W -b html docs docs/_build/html; fi

bench: venv
	$(PY) benchmarks/run.py

clean:
	rm -rf $(VENV) .venv-jax* docs/_build .pytest_cache
