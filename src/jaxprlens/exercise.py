"""The course's predict-then-check exercises: compare a student's answer with the truth JAX computed and say,
in the reader's language (``%jaxpr_config --lang``), what to look at when it is wrong.

A check never passes silently on the placeholder ``None``; a wrong answer raises ``AssertionError`` so that
the cell fails the way a test does, with the hint as its message::

    from jaxprlens.exercise import check
    check(answer_1, len(jaxpr.eqns),
          "Count one equation per primitive applied.",
          "每施加一个原语就有一个方程。")
"""
from __future__ import annotations

from .i18n import default_lang

WORDS = {
    "pending": ("Not answered yet: {what}, then run this cell again.", "尚未作答：{what}，再运行本单元格。"),
    "replace": ("replace None with your prediction", "把 None 换成你的预测"),
    "correct": ("Correct!", "正确！"),
    "wrong": ("Not quite: {what} {hint}", "还不对：{what}{hint}"),
    "answered": ("you answered {answer!r}.", "你的答案是 {answer!r}。"),
}


def say(en: str, zh: str) -> str:
    """``en`` or ``zh``, whichever the notebook speaks (``%jaxpr_config --lang zh`` picks Chinese)."""
    return zh if default_lang() == "zh" else en


def word(key: str, **fields) -> str:
    return say(*WORDS[key]).format(**fields)


def pending(what_en: str | None = None, what_zh: str | None = None) -> None:
    """Print that the exercise is not answered yet (``what``: what the student still has to do)."""
    what = say(what_en, what_zh) if what_en else word("replace")
    print(word("pending", what=what))


def passed() -> None:
    print(word("correct"))


def fail(what_en: str, what_zh: str, hint_en: str = "", hint_zh: str = ""):
    """Raise the ``AssertionError`` a wrong answer gets: what was wrong, then where to look."""
    raise AssertionError(word("wrong", what=say(what_en, what_zh), hint=say(hint_en, hint_zh)).rstrip())


def check(answer, truth, hint_en: str, hint_zh: str) -> None:
    """Compare a prediction with ``truth`` (computed from JAX); the hints say what to look at when it is wrong."""
    if answer is None:
        pending()
        return
    if answer != truth:
        en, zh = (template.format(answer=answer) for template in WORDS["answered"])
        fail(en, zh, hint_en, hint_zh)
    passed()


def error_name(fn, *args) -> str | None:
    """The class name of the error ``fn(*args)`` raises, or ``None`` when it runs."""
    try:
        fn(*args)
    except Exception as e:  # any error is the answer here
        return type(e).__name__
    return None


def show_error(fn, *args) -> None:
    """Call ``fn(*args)`` and print the error's type and first line instead of a traceback (a cell that is
    meant to fail still lets the notebook run on, and prints no path or address)."""
    try:
        fn(*args)
    except Exception as e:  # the lesson is the error itself
        print(f"{type(e).__name__}: {str(e).splitlines()[0]}")
    else:
        print("no error")
