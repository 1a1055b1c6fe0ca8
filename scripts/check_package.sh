#!/bin/sh
# The package as PyPI would ship it (make test, make package): build the sdist and the wheel, `twine check
# --strict` both, check what the wheel holds (LICENSE, the front end's static files, package configs, the
# server extension's config), then install the wheel into a clean venv and use it there: `%load_ext jaxprlens`
# and a `%%jaxpr` cell in an IPython shell, `import jaxprlens.serverext` without JAX, and `jupyter server
# extension list` showing the extension enabled by the wheel's own config file.
#
# Fast and offline: the build runs --no-isolation (setuptools, build and twine are dev extras, so .venv has
# them); the clean venv is made --without-pip by the same interpreter, gets the wheel with --no-deps (pip
# --python), and borrows its dependencies from $PY's environment through one .pth file listing that
# environment's sys.path. A .pth line only adds a folder to sys.path (the .pth files inside it are not run), so
# .venv's editable install of jaxprlens (a .pth naming src/) does not follow: every `jaxprlens` the venv
# imports is the wheel's, which the checks assert.
#
# Usage: sh scripts/check_package.sh [PYTHON]   (default .venv/bin/python; run from the repository root)
set -eu
PY=${1:-${PY:-.venv/bin/python}}
ROOT=$(pwd)
case $PY in /*) ;; */*) PY="$ROOT/$PY" ;; esac   # the checks below run from elsewhere
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jaxprlens-package.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
unset PYTHONPATH                # only what is installed counts: never this checkout's src/
export JAX_PLATFORMS="${JAX_PLATFORMS:-cpu}" JAXPRLENS_RENDERER="${JAXPRLENS_RENDERER:-graphviz-pure}"

echo "package: building the sdist and the wheel"
ISOLATION=--no-isolation        # offline; else (no setuptools >= 77 in $PY) build fetches it into its own env
"$PY" -c 'import setuptools, sys; sys.exit(int(setuptools.__version__.split(".")[0]) < 77)' 2>/dev/null || ISOLATION=
if ! "$PY" -m build $ISOLATION --outdir "$TMP/dist" . >"$TMP/build.log" 2>&1; then
  cat "$TMP/build.log"; echo "package: the build failed (log above)"; exit 1
fi
WHEEL=$(ls "$TMP"/dist/*.whl)
SDIST=$(ls "$TMP"/dist/*.tar.gz)

echo "package: twine check --strict"
"$PY" -m twine check --strict "$SDIST" "$WHEEL"

echo "package: what the wheel and the sdist hold"
"$PY" - "$WHEEL" "$SDIST" "$ROOT" <<'EOF'
import sys, tarfile, zipfile
from pathlib import Path

wheel, sdist, root = sys.argv[1], sys.argv[2], Path(sys.argv[3])
names = zipfile.ZipFile(wheel).namelist()
info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
data = info.replace(".dist-info", ".data")
src = root / "src" / "jaxprlens"
want = [f"{info}/licenses/LICENSE", f"{data}/data/etc/jupyter/jupyter_server_config.d/jaxprlens.json"]
want += sorted(str(p.relative_to(src.parent)) for p in [*(src / "static").iterdir(), *(src / "views").glob("*/*")]
                if p.suffix in (".css", ".js"))
want += sorted(f"jaxprlens/{p.name}" for p in src.iterdir() if p.suffix in (".css", ".cfg"))
want += ["jaxprlens/docs_static/jaxprlens_docs.css"]      # jaxprlens.sphinxext's stylesheet
want += sorted(str(p.relative_to(src.parent)) for p in src.rglob("*.py"))
missing = [n for n in want if n not in names]
for n in names:
    if not n.endswith(".py"):
        print("   ", n)
print(f"    ... and {sum(n.endswith('.py') for n in names)} .py files")
with tarfile.open(sdist) as tar:
    top = tar.getnames()[0].split("/")[0]
    missing += [n for n in (f"{top}/LICENSE", f"{top}/jupyter-config/jaxprlens.json") if n not in tar.getnames()]
if missing:
    sys.exit("package: missing from the wheel or the sdist: " + ", ".join(missing))
EOF

echo "package: the wheel in a clean venv"
"$PY" -m venv --without-pip "$TMP/venv"
VPY="$TMP/venv/bin/python"
"$PY" -m pip --python "$VPY" install -q --no-deps --no-index "$WHEEL"
SITE=$("$VPY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
# $PY's environment minus its standard library and any folder holding a jaxprlens package (a source tree)
"$PY" -c '
import os, sys
for p in sys.path:
    if p and os.path.isdir(p) and not p.startswith(sys.base_prefix) and not os.path.isdir(os.path.join(p, "jaxprlens")):
        print(os.path.abspath(p))' >"$SITE/_jaxprlens_check_deps.pth"
mkdir -p "$TMP/home/.jupyter" "$TMP/run"
cd "$TMP/run"                   # not the checkout: `import jaxprlens` must not find ./src
# no user or system config: the extension must be enabled by the wheel's own file in the venv
export HOME="$TMP/home" JUPYTER_CONFIG_DIR="$TMP/home/.jupyter" JUPYTER_PREFER_ENV_PATH=1 IPYTHONDIR="$TMP/home/.ipython"
"$VPY" - "$SITE" <<'EOF'
import sys
site = sys.argv[1]
import jaxprlens, jaxprlens.serverext
assert jaxprlens.__file__.startswith(site), f"jaxprlens came from {jaxprlens.__file__}, not the wheel"
assert "jax" not in sys.modules, "import jaxprlens.serverext imported JAX"
from IPython.core.interactiveshell import InteractiveShell
ip = InteractiveShell.instance()
ip.run_line_magic("load_ext", "jaxprlens")
assert "jaxpr" in ip.magics_manager.magics["cell"], "%load_ext jaxprlens registered no %%jaxpr"
ip.displayhook.write_output_prompt = ip.displayhook.write_format_data = lambda *a, **k: None   # quiet
cell = "import jax.numpy as jnp\ndef f(x):\n    return jnp.sin(x) * 2.\nf(jnp.ones(3))"
result = ip.run_cell("%%jaxpr\n" + cell)
assert result.success, result.error_in_exec or result.error_before_exec
html = ip.display_formatter.format(result.result)[0].get("text/html", "")
assert 'jl-prim">sin<' in html and "data-jl-out=" in html and "DecompressionStream" in html, \
    "the %%jaxpr table has no HTML with its front end"
from jaxprlens.present import front      # every stylesheet and ES module, read from the wheel's static/
assert front.css(frozenset(front.CSS)) and "export default" in front.bundle(frozenset(front.MODULES))
print(f"    jaxprlens {jaxprlens.__version__} from {jaxprlens.__file__[len(site) + 1:]} (the wheel): import "
      "jaxprlens.serverext without JAX; %load_ext jaxprlens; a %%jaxpr cell: the table with its front end")
EOF
"$VPY" -m jupyter_server extension list >"$TMP/extensions.txt" 2>&1 || { cat "$TMP/extensions.txt"; exit 1; }
"$VPY" - "$TMP/extensions.txt" "$TMP/venv" <<'EOF'
import re, sys
text = re.sub(r"\x1b\[[0-9;]*m", "", open(sys.argv[1]).read())
venv_conf = text.split(f"Config dir: {sys.argv[2]}/etc/jupyter")[-1].split("Config dir:")[0]
ok = "jaxprlens.serverext enabled" in venv_conf and re.search(r"jaxprlens\.serverext\s+OK", venv_conf)
print("    jupyter server extension list:", "jaxprlens.serverext enabled, OK (the venv's config)" if ok else "")
if not ok:
    sys.exit("package: the wheel did not enable jaxprlens.serverext in the venv:\n" + text)
EOF
echo "package: OK"
