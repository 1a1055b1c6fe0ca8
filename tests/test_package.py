"""The package as it ships: `import jaxprlens` (and so the server extension every `jupyter lab` start loads)
imports no JAX while the facade still works, the metadata PyPI shows, and the Binder files.

The built sdist and wheel themselves (twine check, their files, a clean venv) are checked by
`scripts/check_package.sh`, which `make test` runs."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
BINDER_LAB = "https://mybinder.org/v2/gh/jaxprlens/jaxprlens/HEAD?urlpath=lab/tree/notebooks"


def _python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (this checkout's src/ first); its stdout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


# ------------------------------------------------------------------ import jaxprlens without JAX

def test_the_server_extension_imports_no_jax():
    out = _python("""
        import sys
        import jaxprlens.serverext as ext
        points = ext._jupyter_server_extension_points()
        print(points, "jax" in sys.modules, "jaxprlens.model" in sys.modules, "numpy" in sys.modules)
    """)
    assert out.split("]")[-1].split() == ["False", "False", "False"]
    assert out.startswith("[{'module': 'jaxprlens.serverext'}]")


def test_the_jupyter_config_enables_the_module_that_imports_no_jax():
    import json
    config = json.loads((ROOT / "jupyter-config" / "jaxprlens.json").read_text())
    assert config == {"ServerApp": {"jpserver_extensions": {"jaxprlens.serverext": True}}}


def test_the_facade_loads_the_model_on_first_use():
    out = _python("""
        import sys
        import jaxprlens
        before = "jax" in sys.modules
        import jax.numpy as jnp
        program = jaxprlens.trace(lambda x: jnp.sin(x) * 2., jnp.ones(3))
        print(before, type(program) is jaxprlens.Program, jaxprlens.Program.__module__)
        print(type(program.table()).__name__, type(program.graph()).__name__, program.stepper().__class__.__name__)
        print(sorted(set(jaxprlens.__all__) - set(dir(jaxprlens))))
        from jaxprlens import Eqn, Lit, Source, TraceError, Var, from_jaxpr, trace
        print(trace is jaxprlens.trace, from_jaxpr.__module__)
    """).splitlines()
    assert out == ["False True jaxprlens.model.program", "ServedTable Graph Stepper", "[]",
                   "True jaxprlens.model.build"]


def test_a_program_traced_through_the_model_directly_has_its_views():
    # the views are registered by `import jaxprlens` (the package), not by first reading jaxprlens.trace
    out = _python("""
        from jaxprlens.model.tracing import trace
        import jax.numpy as jnp
        print(type(trace(lambda x: x + 1., jnp.ones(2)).text_view()).__name__)
    """)
    assert out.strip() == "TextView"


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import():
    out = _python("""
        import jaxprlens
        try:
            jaxprlens.nope
        except AttributeError as e:
            print(e)
        from jaxprlens import model, exercise
        print(model.trace is jaxprlens.trace, exercise.__name__)
    """).splitlines()
    assert out == ["module 'jaxprlens' has no attribute 'nope'", "True jaxprlens.exercise"]


def test_load_ext_registers_the_magics():
    out = _python("""
        from IPython.core.interactiveshell import InteractiveShell
        ip = InteractiveShell.instance()
        ip.run_line_magic("load_ext", "jaxprlens")
        print(sorted(m for m in ip.magics_manager.magics["cell"] if m.startswith("jaxpr")))
    """)
    assert out.strip() == "['jaxpr']"


# ------------------------------------------------------------------ the metadata PyPI shows

def test_license_is_the_apache_text_and_ships():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text and "9. Accepting Warranty or Additional Liability." in text
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    assert not [c for c in PROJECT["classifiers"] if c.startswith("License ::")]   # SPDX forbids both


def test_python_versions_agree():
    spec = SpecifierSet(PROJECT["requires-python"])
    listed = [c.rsplit(" ", 1)[-1] for c in PROJECT["classifiers"] if re.fullmatch(r".*Python :: 3\.\d+", c)]
    assert listed == ["3.11", "3.12", "3.13"]
    assert all(v in spec for v in listed) and "3.10" not in spec


def test_classifiers_urls_and_authors():
    assert {"Framework :: Jupyter", "Framework :: Jupyter :: JupyterLab", "Intended Audience :: Education",
            "Intended Audience :: Science/Research", "Topic :: Education"} <= set(PROJECT["classifiers"])
    assert set(PROJECT["urls"]) == {"Homepage", "Documentation", "Source", "Issues"}
    assert all(u.startswith("https://github.com/jaxprlens/jaxprlens") for u in PROJECT["urls"].values())
    assert PROJECT["authors"] == [{"name": "The jaxprlens authors"}] and "jaxpr" in PROJECT["keywords"]


def test_package_data_covers_every_non_python_file():
    import fnmatch
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    src = ROOT / "src" / "jaxprlens"
    files = [p.relative_to(src).as_posix() for p in src.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns["jaxprlens"]) for f in files), files


def test_readme_starts_with_install_and_its_images_resolve_off_github():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    heads = re.findall(r"^## (.*)$", text, re.M)
    assert heads[0] == "Install" and heads.index("Install") < heads.index("Two commands")
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert install.index("pip install jaxprlens") < install.index("%load_ext jaxprlens") < install.index("%%jaxpr")
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    raw = "https://raw.githubusercontent.com/jaxprlens/jaxprlens/main/"
    assert images and all(u.startswith("https://") for u in images), images    # PyPI has no repository
    ours = [u for u in images if u.startswith(raw)]
    assert len(ours) == 3 and all((ROOT / u[len(raw):]).is_file() for u in ours)
    assert "make lab" in text and "make test" in text


# ------------------------------------------------------------------ Binder

def test_readme_badge_opens_the_course_on_binder():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"[![Binder](https://mybinder.org/badge_logo.svg)]({BINDER_LAB})" in text.split("\n## ", 1)[0]
    assert (ROOT / "notebooks" / "en").is_dir()


def test_binder_python_makes_one_environment_for_server_and_kernel():
    # repo2docker puts the kernel in an environment of its own only for a Python older than 3.7; requirements.txt
    # then installs into the server's environment, so the wheel's server config is where the server reads it
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    version = re.fullmatch(r"python-(3\.\d+)", runtime).group(1)
    assert version in SpecifierSet(PROJECT["requires-python"])
    assert f"Programming Language :: Python :: {version}" in PROJECT["classifiers"]
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    assert "." in lines and not [ln for ln in lines if ln.startswith("-e")]   # editable: no data files


def _post_build(tmp_path: Path, listed: str) -> subprocess.CompletedProcess:
    """binder/postBuild with a stand-in `jupyter` printing ``listed`` for `jupyter server extension list`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "jupyter").write_text(f"#!/bin/sh\n[ \"$*\" = 'server extension list' ] && printf '%s\\n' '{listed}'\n")
    (bin_dir / "jupyter").chmod(0o755)
    env = dict(os.environ, HOME=str(tmp_path / "home"), PATH=f"{bin_dir}:{os.environ['PATH']}")
    return subprocess.run(["bash", str(ROOT / "binder" / "postBuild")], env=env, capture_output=True, text=True)


def test_post_build_checks_the_hook_and_opens_the_course(tmp_path):
    done = _post_build(tmp_path, "    jaxprlens.serverext \x1b[32menabled\x1b[0m")
    assert done.returncode == 0, done.stderr
    home = tmp_path / "home"
    config = (home / ".jupyter" / "jupyter_server_config.d" / "jaxprlens-binder.json").read_text()
    assert config.strip() == '{"ServerApp": {"default_url": "/lab/tree/notebooks"}}'
    assert BINDER_LAB.endswith("urlpath=lab/tree/notebooks")
    startup = (home / ".ipython" / "profile_default" / "startup" / "00-jax-cpu.py").read_text()
    assert 'setdefault("JAX_PLATFORMS", "cpu")' in startup


def test_post_build_fails_when_the_server_lacks_the_hook(tmp_path):
    done = _post_build(tmp_path, "    jupyterlab enabled")
    assert done.returncode == 1
    assert "jaxprlens.serverext is not enabled in the server's environment" in done.stderr


def _cycle(graph: dict) -> list | None:
    """One import cycle of ``graph`` (module -> modules it imports), or None."""
    state: dict = {}                                   # module -> 1 (on the path) or 2 (done)

    def visit(module, path):
        state[module] = 1
        for other in sorted(graph.get(module, ())):
            if state.get(other) == 1:
                return path[path.index(other):] + [other]
            if other not in state and (found := visit(other, path + [other])):
                return found
        state[module] = 2
        return None
    for module in sorted(graph):
        if module not in state and (found := visit(module, [module])):
            return found
    return None


def test_the_package_has_no_import_cycles():
    """Imports run down the layers and, inside a layer, one way too (imports made inside functions and for types
    only count): a module can be read after the ones it imports."""
    grimp = pytest.importorskip("grimp", reason="import-linter's graph library, in the dev extras")
    graph = grimp.build_graph("jaxprlens", cache_dir=None)
    modules = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules if m.startswith("jaxprlens")}
    assert _cycle(modules) is None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]     # the walk finds one


# ------------------------------------------------------------------ what ARCHITECTURE.md says of the views

_SEARCHES = {"find", "rfind", "index", "rindex", "split", "rsplit", "partition", "rpartition", "replace",
             "startswith", "endswith", "count", "search", "match", "fullmatch", "findall", "finditer", "sub",
             "subn", "compile"}
_MARKUP = re.compile(r"(?<!\(\?)<[A-Za-z/!?]")         # a tag, a comment, a prolog (not a regex's (?<!...))
_OWN_MARKUP = {"graph/draw.py",       # widens the first cell of the DOT label it is writing (graphviz's HTML label)
               "graph/render.py"}     # takes the XML prolog and comments off the SVG graphviz drew


def test_no_view_reads_markup_back():
    """A view writes its HTML from data and never reads HTML back (no view edits another view's markup): no
    string search and no regular expression over markup in views/, but where a view finishes what it draws."""
    views = ROOT / "src" / "jaxprlens" / "views"
    found = []
    for path in sorted(views.rglob("*.py")):
        if path.relative_to(views).as_posix() in _OWN_MARKUP:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SEARCHES
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                    and _MARKUP.search(node.args[0].value)):
                found.append(f"{path.relative_to(views)}:{node.lineno} {node.func.attr}({node.args[0].value!r})")
    assert found == []


def test_every_browser_module_and_stylesheet_has_a_name_of_its_own():
    """The bundler finds a module by its name anywhere in the package (``./dom.js``), static/ or a view's folder."""
    names = [p.name for p in (ROOT / "src" / "jaxprlens").rglob("*") if p.suffix in (".js", ".css")]
    assert len(names) == len(set(names)) and {"loader.js", "main.js", "table.js", "debugger.js"} <= set(names)
