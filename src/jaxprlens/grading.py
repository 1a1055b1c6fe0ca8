"""nbgrader from the course: a lecture's exercises as an nbgrader source notebook, and the config to grade it.

    python -m jaxprlens.grading notebooks/en/01_what_is_a_jaxpr.ipynb --course course --assignment week1

writes ``course/source/week1/01_what_is_a_jaxpr.ipynb`` (several lectures may go into one assignment) and,
unless one is there, ``course/nbgrader_config.py``; then, in ``course``, ``nbgrader generate_assignment week1``
makes the students' copy. A lecture's cells tagged ``exercise-N``, ``check-N`` and ``solution-N`` become:

- ``exercise-N`` an answer cell (nbgrader's solution cell): the exercise, then its solution between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, which the students' copy replaces by nbgrader's stub;
- ``check-N`` an autograded test worth ``points``: a check of a predicted value (``check(answer_N, ...)``)
  keeps the truth in hidden tests (``### BEGIN HIDDEN TESTS``) and shows only ``answered(answer_N)``, which
  says whether the exercise is answered; a check of code (an interpreter, a rule) stays visible, as it runs
  the student's code against JAX and holds no answer;
- ``solution-N`` is left out (it is the answer cell's solution now).

The ``checks`` cell and the cells tagged ``setup`` are read-only: autograde runs the teacher's version, so a
check cannot be edited into passing. The lecture's own cells keep their outputs (tables, graphs and replays
read right before a cell is run); the exercise and check cells start empty.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from jaxprlens.present.i18n import resolve, t

EXERCISE_TAG = re.compile(r"(exercise|check|solution)-(\d+)")
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
# A check of a predicted value: the truth it computes is the answer key.
VALUE_CHECK = re.compile(r"^check\(\s*([A-Za-z_]\w*)\s*,", re.MULTILINE)
# The line a folded solution opens with (scripts/editions.py SOLUTION_LINES): no use once unfolded.
SOLUTION_LINES = ("# Solution: click to open", "# 参考答案：点击展开")
# nbgrader's cell metadata schema (nbgrader 0.6 and later).
SCHEMA = 3
POINTS = 1
#: Seconds a cell may run under autograde before it fails (nbgrader's default is 30; a lecture's first JAX
#: compile on a busy grading machine can take longer).
TIMEOUT = 120

CONFIG = '''\
# nbgrader's configuration for a jaxprlens course (written by python -m jaxprlens.grading).
c = get_config()  # noqa: F821 - nbgrader defines it

# The lectures' tables, graphs and debugger replays stay in the students' copy: they read right before a
# cell is run. The exercise and check cells start empty all the same (python -m jaxprlens.grading clears them).
c.ClearOutput.enabled = False

# A cell that runs longer than this fails its test instead of stopping the grading of the class.
c.Execute.timeout = {timeout}

# Checks read NBGRADER_EXECUTION, which nbgrader sets: under validate and autograde a blank answer fails.
'''


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def _tagged(cell) -> tuple[str, int] | None:
    """``("exercise" | "check" | "solution", N)`` for a cell tagged so, else ``None``."""
    for tag in _tags(cell):
        m = EXERCISE_TAG.fullmatch(tag)
        if m:
            return m.group(1), int(m.group(2))
    return None


def _meta(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def _solution_code(source: str) -> str:
    lines = source.split("\n")
    while lines and lines[0].strip() in SOLUTION_LINES:
        lines.pop(0)
    return "\n".join(lines).strip("\n")


def _empty(cell) -> None:
    cell["outputs"] = []
    cell["execution_count"] = None


def answer_cell(exercise, solution, n: int):
    """The exercise with its solution in a solution region: nbgrader's answer cell."""
    exercise["source"] = "\n".join([exercise["source"].rstrip("\n"), BEGIN_SOLUTION,
                                    _solution_code(solution["source"]), END_SOLUTION])
    exercise["metadata"]["nbgrader"] = _meta(f"exercise-{n}", solution=True)
    exercise["metadata"].get("jupyter", {}).pop("source_hidden", None)
    _empty(exercise)
    return exercise


def test_cell(check, n: int, points: float):
    """The check as an autograded test: a value's truth hidden behind ``answered``, a check of code as it is."""
    source = check["source"].rstrip("\n")
    names = list(dict.fromkeys(VALUE_CHECK.findall(source)))
    if names:
        shown = [f"from jaxprlens.exercise import answered\nanswered({', '.join(names)})"]
        source = "\n".join([*shown, BEGIN_HIDDEN, "from jaxprlens.exercise import check", source, END_HIDDEN])
    check["source"] = source
    check["metadata"]["nbgrader"] = _meta(f"check-{n}", grade=True, locked=True, points=points)
    _empty(check)
    return check


def source_notebook(nb, points: float = POINTS):
    """``nb``, a lecture of the course (either edition, as stored), as an nbgrader source notebook, in place.

    Raises ``ValueError`` when the lecture has no exercise, or an exercise lacks its check or solution."""
    import nbformat

    lang = nb.get("metadata", {}).get("jaxprlens", {}).get("edition", "en")
    found: dict[int, dict] = {}
    for cell in nb.cells:
        tagged = _tagged(cell)
        if tagged:
            found.setdefault(tagged[1], {})[tagged[0]] = cell
    if not found:
        raise ValueError(t("gr_no_exercises"))
    for n, parts in sorted(found.items()):
        missing = sorted({"exercise", "check", "solution"} - set(parts))
        if missing:
            raise ValueError(t("gr_incomplete", n=n, missing=", ".join(missing)))
    cells, noted, setups = [], False, 0
    for cell in nb.cells:
        tagged = _tagged(cell)
        tags = _tags(cell)
        if tagged is None and ("checks" in tags or "setup" in tags):
            setups += "setup" in tags
            cell["metadata"]["nbgrader"] = _meta("checks" if "checks" in tags else f"setup-{setups}",
                                                 locked=True)
            if "checks" in tags:
                cell["source"] = cell["source"].rstrip("\n") + "\n\n" + t("gr_graded_line", lang)
                _empty(cell)
                cells += [cell, nbformat.v4.new_markdown_cell(t("gr_note", lang))]
                noted = True
                continue
        elif tagged and tagged[0] == "exercise":
            if not noted:
                cells.append(nbformat.v4.new_markdown_cell(t("gr_note", lang)))
                noted = True
            cell = answer_cell(cell, found[tagged[1]]["solution"], tagged[1])
        elif tagged and tagged[0] == "check":
            cell = test_cell(cell, tagged[1], points)
        elif tagged and tagged[0] == "solution":
            continue
        cells.append(cell)
    nb.cells = cells
    return nb


def config_text(timeout: int = TIMEOUT) -> str:
    """The ``nbgrader_config.py`` this command writes."""
    return CONFIG.format(timeout=timeout)


def build(lectures, course: Path, assignment: str, points: float = POINTS, timeout: int = TIMEOUT) -> list[Path]:
    """Write each lecture's source notebook under ``course/source/assignment`` and, if absent, the config;
    return the files written."""
    import nbformat

    folder = course / "source" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for lecture in lectures:
        nb = nbformat.read(str(lecture), as_version=4)
        try:
            source_notebook(nb, points)
        except ValueError as e:
            raise ValueError(f"{lecture}: {e}") from None
        target = folder / Path(lecture).name
        nbformat.write(nb, str(target))
        written.append(target)
    config = course / "nbgrader_config.py"
    if not config.exists():
        config.write_text(config_text(timeout), encoding="utf-8")
        written.append(config)
    return written


def main(argv: list[str] | None = None) -> int:
    lang = resolve(None)
    parser = argparse.ArgumentParser(prog="python -m jaxprlens.grading", description=t("gr_usage", lang))
    parser.add_argument("lectures", nargs="+", type=Path, help=t("gr_help_lectures", lang))
    parser.add_argument("--course", type=Path, default=Path("."), help=t("gr_help_course", lang))
    parser.add_argument("--assignment", help=t("gr_help_assignment", lang))
    parser.add_argument("--points", type=float, default=POINTS, help=t("gr_help_points", lang))
    parser.add_argument("--timeout", type=int, default=TIMEOUT, help=t("gr_help_timeout", lang))
    args = parser.parse_args(argv)
    for lecture in args.lectures:
        if lecture.suffix != ".ipynb" or not lecture.is_file():
            parser.error(t("gr_not_a_notebook", lang, path=str(lecture)))
    if args.points <= 0 or args.timeout <= 0:
        parser.error(t("gr_positive", lang))
    assignment = args.assignment or args.lectures[0].stem
    try:
        written = build(args.lectures, args.course, assignment, args.points, args.timeout)
    except ValueError as e:
        parser.error(str(e))
    for path in written:
        print(t("gr_wrote", lang, path=str(path)))
    print(t("gr_next", lang, course=str(args.course), assignment=assignment))
    return 0


if __name__ == "__main__":
    sys.exit(main())
