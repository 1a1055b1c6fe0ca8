#!/bin/sh
# The browser modules' linter (eslint) and unit tests (tests/js/*.test.mjs, static/ and views/*/ under Node's test runner
# and jsdom).
# Installs Debian's nodejs (and npm) when `node` is missing and we are root, like ensure_chromium.sh; jsdom
# comes from tests/js/package-lock.json (npm ci), JupyterHub's proxy for tests/test_hub.py from tests/hub's, the
# local copies of reveal.js, require.js, jQuery and MathJax for tests/browser/test_slides.py from tests/slides';
# the fixtures are what the Python side emits, written fresh.
# Usage: PY=.venv/bin/python sh scripts/js_tests.sh
set -e
PY=${PY:-.venv/bin/python}
need=""
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
if [ -n "$need" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian packages for the JavaScript tests:$need"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
  else
    echo "missing$need and not root: install Node.js >= 18 and npm (apt-get install$need) to run tests/js" >&2
    exit 1
  fi
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "tests/js need Node.js >= 18 (node --test, jsdom 24); this is $(node --version)" >&2
  exit 1
fi
# jsdom and eslint, as pinned; again only when the lock file changed since the last install
if [ ! -f tests/js/node_modules/.package-lock.json ] || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
  (cd tests/js && npm ci --no-audit --no-fund --silent)
fi
# JupyterHub's proxy (configurable-http-proxy) for tests/test_hub.py, which pytest runs later; the same rule
if [ ! -f tests/hub/node_modules/.package-lock.json ] || [ tests/hub/package-lock.json -nt tests/hub/node_modules/.package-lock.json ]; then
  (cd tests/hub && npm ci --no-audit --no-fund --silent)
fi
# local copies of reveal.js, require.js, jQuery and MathJax for tests/browser/test_slides.py (offline slides)
if [ ! -f tests/slides/node_modules/.package-lock.json ] || [ tests/slides/package-lock.json -nt tests/slides/node_modules/.package-lock.json ]; then
  (cd tests/slides && npm ci --no-audit --no-fund --silent)
fi
# the linter first (tests/js/eslint.config.mjs): a mistake it catches needs no test run to find
tests/js/node_modules/.bin/eslint --config tests/js/eslint.config.mjs --max-warnings 0 src/jaxprlens/static src/jaxprlens/views
JAX_PLATFORMS=cpu JAXPRLENS_RENDERER=graphviz-pure "$PY" tests/js/fixtures.py tests/js/.fixtures
node --test tests/js/*.test.mjs
