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

from jaxprlens.present.i18n import AVOID, GLOSSARY, default_lang, t

WORDS = {
    "pending": ("Not answered yet: {what}, then run this cell again.", "尚未作答：{what}，再运行本单元格。"),
    "replace": ("replace None with your prediction", "把 None 换成你的预测"),
    "correct": ("Correct!", "正确！"),
    "wrong": ("Not quite: {what} {hint}", "还不对：{what}{hint}"),
    "answered": ("you answered {answer!r}.", "你的答案是 {answer!r}。"),
}


# The course's words beyond the views' ``GLOSSARY``: one Chinese term per concept, and the synonyms a lecture
# must not use for it (tests/test_course.py reads every Chinese paragraph for them).
TERMS = {
    "jaxpr": ("jaxpr", "jaxpr"),
    "trace": ("trace (to record a jaxpr by running on tracers)", "trace（保留英文）"),
    "tracer": ("tracer", "tracer（保留英文）"),
    "A-normal form": ("A-normal form (ANF)", "A 范式"),
    "constvar": ("constant variable (constvar)", "常量变量（constvar）"),
    "hoist": ("hoist (a constant out of the trace)", "提升"),
    "inline": ("inline", "内联"),
    "unroll": ("unroll (a Python loop)", "展开"),
    "flatten": ("flatten (a pytree)", "展平"),
    "leaf": ("leaf (of a pytree)", "叶子"),
    "static argument": ("static argument", "静态参数"),
    "higher-order primitive": ("higher-order primitive", "高阶原语"),
    "clamp": ("clamp", "钳制"),
    "weak type": ("weak type", "弱类型"),
    "transformation": ("transformation", "变换"),
    "tangent": ("tangent", "切向量"),
    "cotangent": ("cotangent", "余切"),
    "linearize": ("linearize", "线性化"),
    "transpose": ("transpose", "转置"),
    "batching": ("batching (vmap)", "批处理"),
    "effect": ("effect", "副作用"),
    "debugger": ("debugger", "调试器"),
    "step": ("step (through a program)", "单步执行"),
    "stepper": ("stepper (the debugger's engine)", "单步引擎"),
    "impl rule": ("impl rule", "求值规则"),
    "abstract evaluation": ("abstract evaluation", "抽象求值"),
    "lowering": ("lowering", "lowering（保留英文）"),
    "fusion": ("fusion (XLA merging equations into one kernel)", "融合"),
    "kernel": ("kernel (one compiled program an accelerator runs)", "内核"),
    "leaked tracer": ("leaked tracer", "泄漏的 tracer"),
    "current trace": ("current trace", "当前 trace"),
    "retrace": ("retrace", "重新 trace"),
    "name stack": ("name stack", "名字栈"),
    "non-standard interpreter": ("non-standard interpreter", "非标准解释器"),
    "custom derivative rule": ("custom derivative rule (custom_jvp / custom_vjp)", "自定义求导规则"),
    "residual": ("residual (saved by the forward pass for the backward pass)", "残差"),
    "symbolic zero": ("symbolic zero", "符号零"),
    "finite differences": ("finite differences", "有限差分"),
}
TERMS_AVOID = {"钳制": ("夹紧",), "余切": ("余切向量",), "切向量": ("切线",), "展平": ("扁平化",),
               "批处理": ("批量化", "向量化"), "叶子": ("叶节点",), "单步引擎": ("步进器",)}


def glossary() -> str:
    """The course's glossary as a markdown table, the notebook's language first: every term a view or a
    lecture uses, ``GLOSSARY`` and ``TERMS`` together, in English alphabetical order."""
    rows = sorted({**GLOSSARY, **TERMS}.values(), key=lambda pair: pair[0].lower())
    zh = default_lang() == "zh"
    head = "| 中文 | English |" if zh else "| English | 中文 |"
    return "\n".join([head, "| --- | --- |", *(f"| {b} | {a} |" if zh else f"| {a} | {b} |" for a, b in rows)])


def avoided() -> dict:
    """Chinese term -> synonyms a Chinese text must not use for it (the views' and the course's)."""
    return {**AVOID, **TERMS_AVOID}


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
        print(t("no_error"))
