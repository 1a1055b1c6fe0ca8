"""python -m jaxprlens.grading turns a lecture into an nbgrader source notebook: answer cells with solution
regions, autograded tests with the truth hidden, read-only checks; and, with the real nbgrader, a class's
submissions get exactly the scores they deserve."""
from __future__ import annotations

import copy
import csv
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jaxprlens import grading
from jaxprlens.present.i18n import set_default_lang

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "notebooks" / "en").glob("[0-9][0-9]_*.ipynb"))
ZH = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))
L01 = ROOT / "notebooks" / "en" / "01_what_is_a_jaxpr.ipynb"
sys.path.insert(0, str(ROOT / "scripts"))
import editions  # noqa: E402 - scripts/editions.py: how the course tags and folds its cells


@pytest.fixture(autouse=True)
def _english(monkeypatch):
    monkeypatch.delenv("JAXPRLENS_LANG", raising=False)
    set_default_lang(None)
    yield
    set_default_lang(None)


def nbgrader_of(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def by_id(nb) -> dict:
    return {nbgrader_of(c)["grade_id"]: c for c in nb.cells if "grade_id" in nbgrader_of(c)}


def test_the_folded_solution_lines_are_the_editions():
    assert set(grading.SOLUTION_LINES) == set(editions.SOLUTION_LINES.values())


def test_lecture_1_as_a_source_notebook():
    nb = nbformat.read(str(L01), as_version=4)
    before = copy.deepcopy(nb)
    grading.source_notebook(nb, points=2)
    cells = by_id(nb)
    assert sorted(cells) == ["check-1", "check-2", "checks", "exercise-1", "exercise-2"]
    assert cells["exercise-1"].source == "\n".join([
        "def g(x, y):", "    return jnp.sum(jnp.cos(x) * y + 2.)", "", "answer_1 = None  # an int",
        "### BEGIN SOLUTION", "# cos, mul, add (2.0 is a literal operand of add), reduce_sum.", "answer_1 = 4",
        "### END SOLUTION"])
    assert nbgrader_of(cells["exercise-1"]) == {"grade": False, "grade_id": "exercise-1", "locked": False,
                                                "schema_version": 3, "solution": True, "task": False}
    shown, hidden = cells["check-1"].source.split("### BEGIN HIDDEN TESTS\n")
    assert shown == "from jaxprlens.exercise import answered\nanswered(answer_1)\n"
    assert hidden.startswith("from jaxprlens.exercise import check\neqns = make_jaxpr(g)")
    assert hidden.endswith("### END HIDDEN TESTS") and "Count one equation" in hidden
    assert nbgrader_of(cells["check-1"]) == {"grade": True, "grade_id": "check-1", "locked": True, "points": 2,
                                             "schema_version": 3, "solution": False, "task": False}
    assert nbgrader_of(cells["checks"])["locked"] and not nbgrader_of(cells["checks"])["grade"]
    assert cells["checks"].source.endswith("exercise.GRADED = True  # a graded copy: a blank answer fails its test")
    assert not any("solution-1" in c.metadata.get("tags", []) for c in nb.cells)
    for c in cells.values():
        assert c.outputs == [] and c.execution_count is None
    # the lecture's own cells keep their outputs, and there is one note on how to answer
    lecture = [c for c in nb.cells if c.cell_type == "code" and "nbgrader" not in c.metadata]
    old = [c for c in before.cells if c.cell_type == "code" and not any(
        re.fullmatch(r"(exercise|check|solution)-\d+|checks", t) for t in c.metadata.get("tags", []))]
    assert sorted(c.source for c in lecture) == sorted(c.source for c in old)
    assert sum(len(c.outputs) for c in lecture) == sum(len(c.outputs) for c in old) > 0
    notes = [c for c in nb.cells if c.cell_type == "markdown" and c.source.startswith("**Graded copy.**")]
    assert len(notes) == 1
    nbformat.validate(nb)


@pytest.mark.parametrize("path", LECTURES + ZH, ids=lambda p: f"{p.parent.name}-{p.stem[:2]}")
def test_every_lecture_becomes_a_source_notebook(path):
    """Each exercise an answer cell and a test; a check of a value hides its truth, a check of code is shown;
    the setup cells are read-only; no solution is left outside a solution region."""
    nb = grading.source_notebook(nbformat.read(str(path), as_version=4))
    nbformat.validate(nb)
    cells = by_id(nb)
    answers = sorted(k for k in cells if k.startswith("exercise-"))
    assert answers and [k.replace("exercise", "check") for k in answers] == sorted(
        k for k in cells if k.startswith("check-"))
    for k, c in cells.items():
        meta = nbgrader_of(c)
        if k.startswith("check-"):
            assert meta["grade"] and meta["locked"] and meta["points"] == 1
            if "### BEGIN HIDDEN TESTS" in c.source:
                shown = c.source.split("### BEGIN HIDDEN TESTS")[0]
                assert re.fullmatch(r"from jaxprlens\.exercise import answered\nanswered\(answer_\d+\)\n", shown)
            else:       # lecture 9's interpreters, 11's tanh, 17's JVP rule: their check runs the code
                assert "check(" not in c.source, c.source
        elif k.startswith("exercise-"):
            assert meta["solution"] and c.source.count("### BEGIN SOLUTION") == 1
            assert not any(line in c.source for line in grading.SOLUTION_LINES)
        else:
            assert meta["locked"] and not meta["grade"] and not meta["solution"]
    assert not any(re.fullmatch(r"solution-\d+", t) for c in nb.cells for t in c.metadata.get("tags", []))
    hidden_in = [c for c in nb.cells if "### BEGIN HIDDEN TESTS" in c.source]
    assert all(nbgrader_of(c).get("grade") for c in hidden_in)
    note = "**评分用的副本。**" if path.parent.name == "zh" else "**Graded copy.**"
    assert sum(c.source.startswith(note) for c in nb.cells) == 1


def test_a_notebook_that_is_no_lecture_is_refused(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    with pytest.raises(ValueError, match="no cell is tagged exercise-N"):
        grading.source_notebook(nb)
    nb.cells.append(nbformat.v4.new_code_cell("answer_1 = None", metadata={"tags": ["exercise-1"]}))
    nb.cells.append(nbformat.v4.new_code_cell("check(answer_1, 1)", metadata={"tags": ["check-1"]}))
    with pytest.raises(ValueError, match="exercise 1 has no solution cell"):
        grading.source_notebook(nb)


def run_module(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxprlens.grading", *map(str, args)], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=120)


def _env() -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), JAX_PLATFORMS="cpu",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("NBGRADER_EXECUTION", None)
    env.pop("JAXPRLENS_LANG", None)
    return env


def test_the_command_writes_the_assignment_and_a_config_it_never_overwrites(tmp_path):
    done = run_module(L01, ZH[1], "--course", tmp_path, "--assignment", "week1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "source" / "week1"
    assert sorted(p.name for p in folder.iterdir()) == ["01_what_is_a_jaxpr.ipynb"]   # en and zh: one name
    config = (tmp_path / "nbgrader_config.py").read_text()
    assert "c.ClearOutput.enabled = False" in config and "c.Execute.timeout = 120" in config
    assert done.stdout.splitlines()[-1] == f"Next, in {tmp_path}: nbgrader generate_assignment week1"
    (tmp_path / "nbgrader_config.py").write_text("# the teacher's own\n")
    done = run_module(L01, "--course", tmp_path, "--timeout", "300", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "nbgrader_config.py").read_text() == "# the teacher's own\n"
    assert (tmp_path / "source" / "01_what_is_a_jaxpr" / "01_what_is_a_jaxpr.ipynb").is_file()
    assert grading.config_text(300).count("c.Execute.timeout = 300") == 1


@pytest.mark.parametrize("args, said", [
    (["README.md"], "README.md is not a notebook file (.ipynb): give a lecture such as"),
    ([str(L01), "--points", "0"], "--points and --timeout must be greater than 0"),
])
def test_the_command_says_what_is_wrong(tmp_path, args, said):
    done = run_module(*args, cwd=ROOT)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_lecture_without_exercises_is_named(tmp_path):
    plain = tmp_path / "plain.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")]), str(plain))
    done = run_module(plain, "--course", tmp_path, cwd=tmp_path)
    assert done.returncode == 2 and f"{plain}: no cell is tagged exercise-N" in done.stderr, done.stderr


# ---------------------------------------------------------------- end to end, with the real nbgrader

STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
SUBMISSIONS = {
    "right": ("answer_1 = 4", 'answer_2 = ["mul", "reduce_sum", "sub"]'),
    "wrong": ("answer_1 = 5", 'answer_2 = ["mul", "sub"]'),
    "natural": ("import numpy as np\nanswer_1 = np.int64(4)", 'answer_2 = ("mul", "reduce_sum", "sub")'),
    "half": ("answer_1 = 4.0", 'answer_2 = "mul reduce_sum"'),
    "placeholder": ("", ""),        # the stub deleted, answer_N = None left: it scored full marks once
    "blank": None,                  # the students' copy untouched: nbgrader's stub raises
}
SCORES = {"right": 2.0, "wrong": 0.0, "natural": 2.0, "half": 1.0, "placeholder": 0.0, "blank": 0.0}


def nbgrader(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def _text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))


@pytest.mark.slow
def test_nbgrader_grades_a_class_exactly(tmp_path):
    """generate_assignment, six submissions, autograde, export, generate_feedback: right and natural answers
    full marks, a wrong one none, a blank or a left placeholder none, one of two right half."""
    pytest.importorskip("nbgrader", reason="nbgrader is in the dev extras: pip install -e '.[dev]'")
    assert run_module(L01, "--course", tmp_path, "--assignment", "week1", cwd=tmp_path).returncode == 0
    nbgrader("generate_assignment", "week1", cwd=tmp_path)
    handout = tmp_path / "release" / "week1" / L01.name
    released = by_id(nbformat.read(str(handout), as_version=4))
    assert released["check-1"].source == "from jaxprlens.exercise import answered\nanswered(answer_1)"
    assert released["exercise-1"].source.endswith("answer_1 = None  # an int\n" + STUB)
    assert "make_jaxpr(g)" not in handout.read_text() and "answer_1 = 4" not in handout.read_text()
    for student, given in SUBMISSIONS.items():
        nb = nbformat.read(str(handout), as_version=4)
        for n, answer in enumerate(given or (), start=1):
            cell = by_id(nb)[f"exercise-{n}"]
            cell.source = cell.source.replace(STUB, answer)
        folder = tmp_path / "submitted" / student / "week1"
        folder.mkdir(parents=True)
        nbformat.write(nb, str(folder / L01.name))
    nbgrader("autograde", "week1", cwd=tmp_path)
    nbgrader("export", cwd=tmp_path)
    with open(tmp_path / "grades.csv", newline="") as f:
        scores = {row["student_id"]: (float(row["score"]), float(row["max_score"])) for row in csv.DictReader(f)}
    assert scores == {student: (score, 2.0) for student, score in SCORES.items()}
    nbgrader("generate_feedback", "week1", cwd=tmp_path)
    feedback = {s: _text(tmp_path / "feedback" / s / "week1" / (L01.stem + ".html")) for s in SUBMISSIONS}
    assert "Score: 2.0 / 2.0" in feedback["right"] and "Score: 0.0 / 2.0" in feedback["blank"]
    assert ("AssertionError: Not quite: you answered 5.\nCount one equation per primitive applied; a scalar "
            "literal such as 2. is\nan operand, not an equation.") in feedback["wrong"]
    assert feedback["placeholder"].count("AssertionError: Not answered: replace None with your answer.") == 2
    assert "exercise.py" not in feedback["wrong"]        # the student's cell is the last frame shown
