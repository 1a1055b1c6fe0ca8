"""The course notebooks are tested artefacts: built from their sources, executed, and in step with the
article's examples, the README and the binder files."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import jax
import nbformat
import pytest

from seeds import SEEDS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
LECTURES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SOURCES = sorted((NOTEBOOKS / "src").glob("[0-9][0-9]_*.py"))


def _read(path: Path):
    return nbformat.read(str(path), as_version=4)


def _output_texts(nb) -> list[str]:
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                texts.append(out["text"])
            for value in out.get("data", {}).values():
                if isinstance(value, str):
                    texts.append(value)
    return texts


COURSE = ["01_what_is_a_jaxpr", "02_inlining_and_pytrees", "03_constvars", "04_cond", "05_while", "06_scan",
          "07_jit", "08_debugger_and_graph", "09_eval_jaxpr_exercise", "10_accelerator_and_cost"]


def test_the_ten_lectures_each_with_its_source():
    assert [p.stem for p in SOURCES][:10] == COURSE
    assert [p.stem for p in LECTURES] == [p.stem for p in SOURCES]


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_each_seed_jaxpr_appears_as_jax_prints_it(name):
    fn, args = SEEDS[name]
    printed = jax.make_jaxpr(fn)(*args).pretty_print(use_color=False)
    everywhere = "\n".join(t for p in LECTURES for t in _output_texts(_read(p)))
    assert printed in everywhere, f"{name}'s jaxpr as JAX prints it today is in no notebook's outputs"


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_code_cell_was_executed_and_stored(path):
    nb = _read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and code[0].source == "%load_ext jaxprlens"
    for cell in code:
        assert isinstance(cell.execution_count, int), f"unexecuted cell: {cell.source[:60]!r}"
        assert not any(o.output_type == "error" for o in cell.outputs), cell.source[:60]
        if re.match(r"%%?jaxpr\b", cell.source) or cell.source.lstrip().startswith("print("):
            assert cell.outputs, f"no stored output for {cell.source[:60]!r}"
    assert not nb.metadata.get("widgets"), "widget state has random ids: the build script drops it"


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    return next(b for b in blocks if b.startswith("%%jaxpr")).rstrip("\n")


def test_readme_example_is_lecture_one_first_cell():
    nb = _read(NOTEBOOKS / "01_what_is_a_jaxpr.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[1].source == _readme_example()
    assert len(_readme_example().splitlines()) <= 10


def test_lecture_one_shows_the_table_in_chinese():
    nb = _read(NOTEBOOKS / "01_what_is_a_jaxpr.ipynb")
    assert any(c.source.startswith("%%jaxpr --lang zh") for c in nb.cells if c.cell_type == "code")


def _requirement_name(line: str) -> str:
    return re.split(r"[\s\[<>=!~;@]", line.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_binder_installs_what_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = [ln.split("#")[0].strip() for ln in (ROOT / "binder" / "requirements.txt").read_text().splitlines()]
    lines = [ln for ln in lines if ln]
    # The project itself, with its dev extras (jupyterlab, nbval), from this checkout: its dependencies come
    # from pyproject.toml, so binder cannot drift from them.
    assert any(re.fullmatch(r"(-e\s+)?\.\.?/?(\[[a-z,]+\])?", ln) for ln in lines), lines
    declared = {_requirement_name(d) for d in project["dependencies"]}
    declared |= {_requirement_name(d) for d in project["optional-dependencies"]["dev"]}
    for ln in lines:
        if ln.startswith(("-c", "--constraint")):
            assert (ROOT / "binder" / ln.split()[-1]).resolve() == (ROOT / "constraints.txt").resolve()
            continue
        if ln.startswith((".", "-e")):
            continue
        assert _requirement_name(ln) not in declared, f"binder pins {ln!r} beside pyproject's own requirement"
    post = ROOT / "binder" / "postBuild"
    if post.exists():
        assert "pip install" not in post.read_text(), "binder installs with requirements.txt only"


def test_built_notebooks_keep_no_run_specific_metadata():
    for path in LECTURES:
        text = path.read_text(encoding="utf-8")
        assert '"execution": {' not in text and "iopub." not in text, path.name
        ids = [c.id for c in _read(path).cells]
        assert ids == [f"{path.stem[:40]}-{i:02d}" for i in range(len(ids))], path.name
