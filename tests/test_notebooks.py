"""The course notebooks are tested artefacts: built from their sources in two editions (notebooks/en,
notebooks/zh), executed, and in step with the article's examples, the README and the binder files."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import sys

import jax
import nbformat
import pytest

from seeds import SEEDS

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "scripts"))
import editions  # noqa: E402 - scripts/ on sys.path first
from build_notebooks import KERNELSPEC  # noqa: E402 - scripts/ on sys.path first

EDITIONS = {lang: sorted((NOTEBOOKS / lang).glob("[0-9][0-9]_*.ipynb")) for lang in editions.LANGS}
LECTURES = EDITIONS["en"]
BOTH = [p for lang in editions.LANGS for p in EDITIONS[lang]]
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


COURSE = ["00_syllabus", "01_what_is_a_jaxpr", "02_inlining_and_pytrees", "03_constvars", "04_cond", "05_while",
          "06_scan", "07_jit", "08_debugger_and_graph", "09_eval_jaxpr_exercise", "10_accelerator_and_cost",
          "11_how_a_jaxpr_is_made", "12_grad_and_reverse_mode", "13_vmap_and_custom_rules", "14_stages_and_export"]


def _ids(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_both_editions_have_every_lecture_each_with_its_source():
    assert [p.stem for p in SOURCES][:len(COURSE)] == COURSE
    assert {"16_failure_modes", "17_new_primitive", "18_your_own_interpreter"} <= {p.stem for p in SOURCES}
    for lang, lectures in EDITIONS.items():
        assert [p.stem for p in lectures] == [p.stem for p in SOURCES], lang
    assert sorted(NOTEBOOKS.glob("*.ipynb")) == [], "the first edition's notebooks/NN_*.ipynb are gone"


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_each_seed_jaxpr_appears_as_jax_prints_it(name):
    fn, args = SEEDS[name]
    printed = jax.make_jaxpr(fn)(*args).pretty_print(use_color=False)
    everywhere = "\n".join(t for p in LECTURES for t in _output_texts(_read(p)))
    assert printed in everywhere, f"{name}'s jaxpr as JAX prints it today is in no notebook's outputs"


@pytest.mark.parametrize("path", BOTH, ids=_ids)
def test_every_code_cell_was_executed_and_stored(path):
    nb = _read(path)
    lang = path.parent.name
    code = [c for c in nb.cells if c.cell_type == "code"]
    first = "%load_ext jaxprlens" + ("\n" + editions.ZH_CONFIG if lang == "zh" else "")
    assert code and editions.without_device_flags(code[0].source) == first
    assert nb.metadata["jaxprlens"] == {"edition": lang, "jax": nb.metadata["jaxprlens"]["jax"]}
    for cell in code:
        assert isinstance(cell.execution_count, int), f"unexecuted cell: {cell.source[:60]!r}"
        assert not any(o.output_type == "error" for o in cell.outputs), cell.source[:60]
        if re.match(r"%%?jaxpr\b", cell.source) or cell.source.lstrip().startswith("print("):
            assert cell.outputs, f"no stored output for {cell.source[:60]!r}"
        if "raises-exception" in cell.metadata.get("tags", []):       # meant to fail: a message, not a traceback
            assert [o.name for o in cell.outputs] == ["stderr"], cell.source[:60]
    assert not nb.metadata.get("widgets"), "widget state has random ids: the build script drops it"
    assert all("slideshow" in c.metadata for c in nb.cells), "every cell has RISE slide metadata"


@pytest.mark.parametrize("path", EDITIONS["zh"], ids=_ids)
def test_the_chinese_edition_is_chinese_with_the_same_code(path):
    zh = _read(path)
    en = _read(NOTEBOOKS / "en" / path.name)
    for cell in zh.cells:
        if cell.cell_type == "markdown":
            assert editions.english_runs(cell.source) == [], cell.source[:80]
    code = [[editions.code_only(c.source) for c in nb.cells if c.cell_type == "code"] for nb in (en, zh)]
    assert code[0] == code[1]
    for cell in zh.cells:           # every table the zh edition shows is the Chinese table
        if "raises-exception" in cell.metadata.get("tags", []):       # a message, not a table
            continue
        if cell.cell_type == "code" and re.fullmatch(r"%%jaxpr( --static-argnums \S+)?", cell.source.split("\n")[0]):
            plain = "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)
            assert "输入" in plain or "结果" in plain, cell.source[:60]


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    return next(b for b in blocks if b.startswith("%%jaxpr")).rstrip("\n")


def test_readme_example_is_lecture_one_first_cell():
    nb = _read(NOTEBOOKS / "en" / "01_what_is_a_jaxpr.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[1].source == _readme_example()
    assert len(_readme_example().splitlines()) <= 10


def test_lecture_one_shows_the_table_in_chinese():
    nb = _read(NOTEBOOKS / "en" / "01_what_is_a_jaxpr.ipynb")
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
    for path in BOTH:
        text = path.read_text(encoding="utf-8")
        assert '"execution": {' not in text and "iopub." not in text, path.name
        ids = [c.id for c in _read(path).cells]
        assert ids == [f"{path.stem[:40]}-{i:02d}" for i in range(len(ids))], path.name


def _lab_kernelspec() -> dict:
    """The kernel ``make lab`` registers: its ``ipykernel install`` line's name and display name."""
    line = next(ln for ln in (ROOT / "Makefile").read_text().splitlines() if "ipykernel install" in ln)
    name = re.search(r"--name (\S+)", line).group(1)
    return {"display_name": re.search(r'--display-name "([^"]+)"', line).group(1), "language": "python",
            "name": name}


def test_the_build_names_the_kernel_make_lab_registers():
    assert _lab_kernelspec() == KERNELSPEC
    for src in SOURCES:         # a source opened with jupytext keeps its header too
        header = src.read_text(encoding="utf-8").split("\n# ---\n", 1)[0]
        assert f"#     display_name: {KERNELSPEC['display_name']}\n" in header, src.name
        assert f"#     name: {KERNELSPEC['name']}" in header, src.name


@pytest.mark.parametrize("path", BOTH, ids=_ids)
def test_a_stored_notebook_names_the_kernel_make_lab_registers(path):
    """JupyterLab rewrites a notebook's kernelspec to the running kernel's: a different one opens it modified."""
    assert _read(path).metadata["kernelspec"] == _lab_kernelspec()
