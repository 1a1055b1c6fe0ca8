"""The course's predict-then-check exercises: compare a student's answer with the truth JAX computed and say,
in the reader's language (``%jaxpr_config --lang``), what to look at when it is wrong.

A check never passes silently on the placeholder ``None``; a wrong answer raises ``AssertionError`` so that
the cell fails the way a test does, with the hint as its message::

    from jaxprlens.exercise import check
    check(answer_1, len(jaxpr.eqns),
          "Count one equation per primitive applied.",
          "每施加一个原语就有一个方程。")

``check`` reads an answer as a teacher would: arrays and numbers by value within a tolerance, lists and
tuples alike, booleans and strings strictly, and "right values, wrong type" when only the type differs.
Checks that test code rather than a value use ``pending``, ``fail`` and ``passed`` directly.

Self-study and grading differ only for a blank answer (``None``, ``...``, a stub that raised
``NotImplementedError``): in self-study it prints "Not answered yet" and the cell runs on; when graded it fails
like a wrong answer, so an untouched copy scores nothing. A check grades when an autograder runs the notebook
(nbgrader sets ``NBGRADER_EXECUTION``), when ``GRADED`` is ``True``, or when called with ``graded=True``; a
graded message is short and wrapped to ``WIDTH`` columns with its hint on lines of its own, for a grader's
dialog that cuts long lines.
"""
from __future__ import annotations

import numbers
import os
import re
import sys
import types
import warnings
from collections.abc import Iterable, Mapping
from itertools import islice

import numpy as np

from jaxprlens.model.errors import KeyedError, told
from jaxprlens.present.i18n import AVOID, GLOSSARY, default_lang, t
from jaxprlens.present.usage import wrap

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
    "static argument": ("static argument", "静态实参"),
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
    "stepper": ("stepper (the debugger's engine)", "单步执行器"),
    "impl rule": ("impl rule", "求值规则"),
    "abstract evaluation": ("abstract evaluation", "抽象求值"),
    "lowering": ("lowering", "lowering（保留英文）"),
    "fusion": ("fusion (XLA merging equations into one kernel)", "融合"),
    "leaked tracer": ("leaked tracer", "泄漏的 tracer"),
    "current trace": ("current trace", "当前 trace"),
    "retrace": ("retrace", "重新 trace"),
    "name stack": ("name stack", "名字栈"),
    "non-standard interpreter": ("non-standard interpreter", "非标准解释器"),
    "custom derivative rule": ("custom derivative rule (custom_jvp / custom_vjp)", "自定义求导规则"),
    "residual": ("residual (saved by the forward pass for the backward pass)", "残差"),
    "symbolic zero": ("symbolic zero", "符号零"),
    "finite differences": ("finite differences", "有限差分"),
    "step into": ("Step into (the debugger's button)", "进入"),
    "partial evaluation": ("partial evaluation (known and unknown parts of a jaxpr)", "部分求值"),
    "rematerialization": ("rematerialization (jax.checkpoint: recompute instead of saving)", "重计算"),
    "dead-code elimination": ("dead-code elimination (DCE)", "死代码消除"),
    "tracing cache": ("tracing cache (jit's traces by abstract signature)", "trace 缓存"),
    "export": ("export (jax.export: a lowered function, stored)", "导出"),
    "backward pass": ("backward pass (of reverse mode)", "反向过程"),
    "primal": ("primal (the value a tangent goes with)", "原值"),
}
TERMS_AVOID = {"钳制": ("夹紧",), "余切": ("余切向量",), "切向量": ("切线",), "展平": ("扁平化",),
               "批处理": ("批量化", "向量化"), "叶子": ("叶节点",), "单步执行器": ("步进器", "单步引擎"),
               "计算内核": ("kernel", "核函数"), "lowering（保留英文）": ("降级", "降低为", "降低成", "降低（lower）"),
               "条件常量": ("cond 常量",), "循环体常量": ("body 常量",), "进入": ("步入",),
               "部分求值": ("偏求值", "局部求值"), "重计算": ("重物化", "再物化", "重新物化"),
               "死代码消除": ("死码消除", "无用代码消除"), "反向过程": ("反向传播",),
               "trace（保留英文）": ("追踪", "跟踪"), "静态实参": ("静态参数",), "原值": ("原始值", "原始结果")}


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
    """The catalogue's ``ex_<key>`` text in the notebook's language, filled in."""
    return t(f"ex_{key}", default_lang(), **fields)


# ---------------------------------------------------------------- self-study or graded

#: Whether checks grade: ``True``, a blank answer fails (an assignment); ``False``, it is "not answered yet"
#: even under an autograder; ``None`` (the default), checks grade when an autograder runs the notebook.
GRADED: bool | None = None
#: The columns a graded message is wrapped to: a grader's dialog cuts lines at about 80.
WIDTH = 72
#: What starts the last line of a traceback before the message: the message's first line is that much shorter.
_LEAD = len("AssertionError: ")
#: Answers that are no answer: the course's placeholder, ``...``, ``NotImplemented``.
BLANKS = (None, Ellipsis, NotImplemented)


def grading(graded: bool | None = None) -> bool:
    """Whether a check grades: ``graded`` when given, else ``GRADED``, else whether an autograder runs this
    kernel (nbgrader sets ``NBGRADER_EXECUTION`` to ``autograde`` or ``validate``)."""
    if graded is not None:
        return bool(graded)
    if GRADED is not None:
        return bool(GRADED)
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def pending(what_en: str | None = None, what_zh: str | None = None, *, graded: bool | None = None) -> None:
    """Say that the exercise is not answered yet (``what``: what the student still has to do): printed in
    self-study, a failure when graded."""
    __tracebackhide__ = True
    what = say(what_en, what_zh) if what_en else word("replace")
    if grading(graded):
        _raise(what, key="unanswered", graded=True)
    print(word("pending", what=what))


def passed() -> None:
    """Print that the answer is right (``Correct!``)."""
    print(word("correct"))


def fail(what_en: str, what_zh: str, hint_en: str = "", hint_zh: str = "", *, graded: bool | None = None):
    """Raise the ``AssertionError`` a wrong answer gets: what was wrong, then where to look."""
    __tracebackhide__ = True
    _raise(say(what_en, what_zh), say(hint_en, hint_zh), graded=grading(graded))


def answered(*answers, graded: bool | None = None) -> None:
    """The self-check a graded notebook shows beside its hidden test: each answer is given, and is a value
    (not a function or a module), without saying whether it is right. In self-study a blank answer is
    "not answered yet", as in ``check``."""
    __tracebackhide__ = True
    graded = grading(graded)
    for answer in answers:
        if _blank(answer):
            if not graded:
                pending(graded=False)
                return
            _raise(word("replace_blank", blank=_blank_text(answer)), key="unanswered", graded=True)
        if _kind(answer) in ("callable", "module"):
            _raise(word("not_a_value", got=kind_of(answer)), graded=graded)
    print(word("answered_ok"))


class Unmet(AssertionError):
    """What a check raises: an ``AssertionError`` (nbgrader counts the test failed) whose traceback, in a
    notebook, ends in the student's cell."""


# A student reads "AssertionError: Not quite: ...", as a failed test of nbgrader's own says it.
Unmet.__module__, Unmet.__qualname__, Unmet.__name__ = "builtins", "AssertionError", "AssertionError"


def _raise(what: str, hint: str = "", *, key: str = "wrong", graded: bool = False):
    """Fail with the catalogue's ``ex_<key>`` of ``what``, then ``hint``: one paragraph in self-study (a
    notebook wraps it), short wrapped lines with the hint on lines of its own when graded."""
    __tracebackhide__ = True
    if graded:
        text = "\n".join([*wrap(word(key, what=what, hint="").rstrip(), WIDTH, first=WIDTH - _LEAD),
                          *wrap(hint, WIDTH)])
    else:
        text = word(key, what=what, hint=hint).rstrip()
    _show_from_the_cell()
    raise Unmet(text)


def _blank(answer) -> bool:
    return any(answer is b for b in BLANKS)


def _blank_text(answer) -> str:
    """A blank answer as the student wrote it: ``None``, ``...``, ``NotImplemented``."""
    return "..." if answer is Ellipsis else repr(answer)


# ---------------------------------------------------------------- the student's frames only

def _show_from_the_cell() -> None:
    """In IPython, show ``Unmet`` with the traceback cut after the student's last frame: the cell that called
    the check, not the lines of this module. Another handler of IPython's one slot is left alone."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or getattr(shell, "custom_exceptions", None) not in ((), (Unmet,)):
        return
    if shell.custom_exceptions == ():
        shell.set_custom_exc((Unmet,), _show_unmet)


def _show_unmet(shell, etype, value, tb, tb_offset=None):
    shell.showtraceback((etype, value, users_part(tb)), tb_offset=tb_offset)


def users_part(tb: types.TracebackType | None) -> types.TracebackType | None:
    """A traceback up to its last frame that is not hidden (``__tracebackhide__``, as pytest and IPython mark
    frames of their own): the frames of the check that raised are left out."""
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    shown = [i for i, e in enumerate(entries) if not e.tb_frame.f_locals.get("__tracebackhide__")]
    if not shown:
        return entries[0] if entries else None
    cut = None
    for e in reversed(entries[:shown[-1] + 1]):
        cut = types.TracebackType(cut, e.tb_frame, e.tb_lasti, e.tb_lineno)
    return cut


# ---------------------------------------------------------------- grading

#: ``check``'s relative tolerance for floats and float arrays: NumPy's own default, wide enough for a float32
#: result checked against a float64 truth, narrow enough that an answer off by 1e-3 fails.
RTOL = 1e-5
#: ``check``'s absolute tolerance, which matters for a truth near zero (NumPy's default).
ATOL = 1e-8


def check(answer, truth, hint_en: str = "", hint_zh: str = "", *, rtol: float = RTOL, atol: float = ATOL,
          compare=None, graded: bool | None = None) -> None:
    """Compare a prediction with ``truth`` (computed from JAX) the way a teacher reads it; print ``Correct!``
    or raise ``AssertionError`` with what is wrong, and the hints on what to look at when the values are wrong.

    - ``None`` is the placeholder: in self-study it prints "Not answered yet" and passes nothing; when graded
      (``graded=True``, ``GRADED``, or under nbgrader) it fails, and so do ``...`` and ``NotImplemented``.
    - Arrays (NumPy, ``jax.Array``, nested lists of numbers) are compared by value: the same shape, and
      ``numpy.allclose(answer, truth, rtol, atol)`` (NaN equals NaN); integers and booleans exactly.
    - Lists and tuples are alike, element by element (``[4, "b"]`` is ``(4, "b")``, ``[16, 3]`` a shape
      ``(16, 3)``); dicts by their keys, then each value; a set by its elements, in any order. A dict's values
      in its order, as a list, a tuple or a dict with other keys, are "right values, wrong form", and the
      message names the keys instead of giving the hint.
    - Numbers: an int truth wants that int (``3.0`` passes, as in Python); a float truth, any number within
      ``|answer - truth| <= atol + rtol * |truth|``.
    - Strings exactly; booleans strictly: ``1`` for ``True`` (or ``True`` for ``1``), ``"3"`` for ``3``, a
      string ``"add mul"`` for ``["add", "mul"]`` are "right values, wrong type", and that is what it says
      instead of the hint.
    - A function, a module or an object with no value to compare gets a message saying what to answer with.
    - ``compare(answer, truth)``, when given, decides instead: truthy passes; if it raises, the message says so.
    """
    __tracebackhide__ = True
    graded = grading(graded)
    if answer is None and not graded:
        pending(graded=False)
        return
    if rtol < 0 or atol < 0:
        raise KeyedError("ex_tolerance", rtol=repr(rtol), atol=repr(atol))
    if graded and _blank(answer):
        _raise(word("replace_blank", blank=_blank_text(answer)), key="unanswered", graded=True)
    said = _verdict(answer, truth, say(hint_en, hint_zh), (rtol, atol), compare, graded)
    if said is None:
        passed()
        return
    _raise(*said, graded=graded)


def _verdict(answer, truth, hint: str, tol, compare, graded: bool) -> tuple[str, str] | None:
    """``None`` when the answer is right, else what to say of it and the hint to give (``""`` for none)."""
    def seen(value) -> str:
        return _brief(shown(value)) if graded else shown(value)

    if compare is not None:
        try:
            ok = _truth_value(compare(answer, truth))
        except Exception as e:  # noqa: BLE001 - a student's answer the teacher's comparison cannot take: say so
            return word("compare_error", got=kind_of(answer), error=_error_text(e)), hint
        return None if ok else (word("answered", answer=seen(answer)), hint)
    verdict = _compare(answer, truth, tol)
    how = verdict[0]
    if how == SAME:
        return None
    if how == TYPE:
        part, want = verdict[1], verdict[2]
        if part is answer:
            return word("type", answer=seen(answer), got=kind_of(answer), want=kind_of(want)), ""
        return word("type_part", answer=seen(answer), part=seen(part), got=kind_of(part),
                    want=kind_of(want)), ""
    if how == SHAPE:
        return word("shape", shape=verdict[1]), hint
    if how == KEYS:
        return word("keys", answer=seen(answer), keys=say(", ", "、").join(shown(k) for k in truth)), ""
    if how == UNCOMPARABLE:
        return word("uncomparable", got=kind_of(answer), want=kind_of(truth)), ""
    if how == UNCALLED:
        return word("uncalled", got=kind_of(answer), want=kind_of(truth)), ""
    if how == ERROR:
        return word("compare_error", got=kind_of(answer), error=verdict[1]), hint
    return word("answered", answer=seen(answer)), hint


#: How much of an answer a graded message shows.
BRIEF = 40


def _brief(text: str) -> str:
    """The first line of ``text``, cut to ``BRIEF`` characters."""
    first = text.split("\n")[0]
    return first if len(first) <= BRIEF and first == text else first[:BRIEF - 1].rstrip() + "…"


# What _compare finds: the first item of its tuple.
SAME, TYPE, WRONG, SHAPE, UNCOMPARABLE, UNCALLED, ERROR, KEYS = (
    "same", "type", "wrong", "shape", "uncomparable", "uncalled", "error", "keys")
_SCALARS = ("bool", "number", "str")


def _kind(x) -> str:
    """How ``check`` reads a value: none, bool, number, str, seq, dict, set, array, iter, callable, module
    or other."""
    if x is None:
        return "none"
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, numbers.Number):
        return "number"
    if isinstance(x, str):
        return "str"
    if isinstance(x, Mapping):
        return "dict"
    if isinstance(x, (list, tuple)):
        return "seq"
    if isinstance(x, (set, frozenset)):
        return "set"
    if _is_array(x):
        return "array"
    if isinstance(x, types.ModuleType):
        return "module"
    if callable(x):
        return "callable"
    if isinstance(x, (bytes, bytearray)):
        return "other"
    if isinstance(x, Iterable):
        return "iter"
    return "other"


def _is_array(x) -> bool:
    """A NumPy array or anything shaped like one (``jax.Array``): a shape, a dtype and ``__array__``."""
    return hasattr(x, "__array__") and hasattr(x, "shape") and hasattr(x, "dtype")


def _compare(a, b, tol) -> tuple:
    """``(SAME,)``, ``(TYPE, answer part, truth part)``, ``(SHAPE, shape)``, ``(ERROR, text)``, or one of
    ``(WRONG,)``, ``(UNCOMPARABLE,)``, ``(UNCALLED,)``: answer ``a`` against truth ``b``."""
    ka, kb = _kind(a), _kind(b)
    if "array" in (ka, kb) and {ka, kb} <= {"array", "number", "bool", "seq"}:
        return _arrays(a, b, tol)
    if ka == kb == "seq":
        return _all(a, b, tol) if len(a) == len(b) else (WRONG,)
    if ka == kb == "dict":
        try:
            same_keys = set(a) == set(b)
        except TypeError:
            same_keys = False
        if not same_keys:
            return _dict_values(list(a.values()), b, tol)
        return _combine(_compare(a[k], b[k], tol) for k in b)
    if ka == kb == "bool":
        return (SAME,) if bool(a) == bool(b) else (WRONG,)
    if ka == kb == "number":
        return (SAME,) if _numbers_close(a, b, tol) else (WRONG,)
    if ka == kb == "str":
        return (SAME,) if a == b else (WRONG,)
    if ka == kb == "set":
        return (SAME,) if a == b else (WRONG,)
    return _across(a, b, ka, kb, tol)


def _all(a, b, tol) -> tuple:
    return _combine(_compare(x, y, tol) for x, y in zip(a, b))


def _combine(verdicts) -> tuple:
    """The parts' verdicts as one: wrong if any part is wrong, else the first wrong type, else the same."""
    typed = None
    for v in verdicts:
        if v[0] == TYPE:
            typed = typed or v
        elif v[0] != SAME:
            return (WRONG,)
    return typed or (SAME,)


def _numbers_close(a, b, tol) -> bool:
    """An int truth wants that int; otherwise within ``atol + rtol * |truth|`` (NaN is NaN)."""
    if isinstance(b, numbers.Integral):
        return a == b
    try:
        return bool(np.isclose(a, b, rtol=tol[0], atol=tol[1], equal_nan=True))
    except TypeError:           # Decimal, Fraction...: no tolerance to apply
        return a == b


def _arrays(a, b, tol) -> tuple:
    """Arrays and nested lists of numbers, by shape and value; anything else element by element."""
    try:
        A, B = _numeric(a), _numeric(b)
    except Exception:  # noqa: BLE001 - ragged lists, objects NumPy cannot hold: compare them as lists
        A = B = None
    if A is None or B is None:
        la, lb = _listed(a), _listed(b)
        if la is a and lb is b:
            return (WRONG,)
        return _compare(la, lb, tol)
    if A.shape != B.shape:
        return (SHAPE, tuple(A.shape))
    abool, bbool = A.dtype.kind == "b", B.dtype.kind == "b"
    if abool != bbool:
        return (TYPE, a, b) if np.array_equal(A, B) else (WRONG,)
    if abool or B.dtype.kind in "iu":
        return (SAME,) if np.array_equal(A, B) else (WRONG,)
    return (SAME,) if np.allclose(A, B, rtol=tol[0], atol=tol[1], equal_nan=True) else (WRONG,)


def _numeric(x):
    """``x`` as a NumPy array of booleans or numbers, or ``None`` when it holds something else."""
    arr = np.asarray(x)
    if arr.dtype.kind == "V":           # bfloat16 and friends (ml_dtypes): their values as floats
        arr = arr.astype(np.float64)
    return arr if arr.dtype.kind in "biufc" else None


def _listed(x):
    """An array as nested Python lists (its items as Python values); anything else as it is."""
    return np.asarray(x).tolist() if _is_array(x) else x


def _across(a, b, ka: str, kb: str, tol) -> tuple:
    """Answer and truth of different kinds: right values in another type, wrong, or not comparable."""
    if kb in ("other", "callable", "module"):
        return _generic(a, b, ka, kb)
    if ka in ("callable",):
        return (UNCALLED,)
    if ka == "module":
        return (UNCOMPARABLE,)
    if ka == "none":
        return (WRONG,)
    if ka in ("bool", "number") and kb in ("bool", "number"):      # 1 for True, True for 1
        return (TYPE, a, b) if a == b else (WRONG,)
    if ka == "str" and kb in ("bool", "number"):                    # "3" for 3
        return (TYPE, a, b) if _parsed_equal(a, b, kb, tol) else (WRONG,)
    if ka in ("bool", "number") and kb == "str":                    # 3 for "3"
        return (TYPE, a, b) if str(a) == b else (WRONG,)
    if ka == "str" and kb in ("seq", "set") and all(_kind(x) in _SCALARS for x in b):
        tokens = re.findall(r"[^\s,\[\](){}'\"]+", a)               # "add mul" or "['add', 'mul']"
        items = [str(x) for x in b]
        same = tokens == items if kb == "seq" else sorted(tokens) == sorted(items)
        return (TYPE, a, b) if same else (WRONG,)
    if ka == "seq" and kb == "dict":                                # [1, 1, 2] for {"a": 1, "b": 1, "c": 2}
        return _dict_values(a, b, tol)
    if ka == "seq" and len(a) == 1 and kb in _SCALARS:             # [4] for 4
        return (TYPE, a, b) if _compare(a[0], b, tol)[0] == SAME else (WRONG,)
    if kb == "seq" and len(b) == 1 and ka in _SCALARS:             # 4 for [4]
        return (TYPE, a, b) if _compare(a, b[0], tol)[0] == SAME else (WRONG,)
    if kb == "set" and ka in ("seq", "iter"):                      # any order for a set
        items = _taken(a, len(b))
        try:
            return (SAME,) if len(items) == len(b) and set(items) == b else (WRONG,)
        except TypeError:
            return (WRONG,)
    if ka == "set" and kb == "seq":                                 # a set has lost the order
        try:
            return (TYPE, a, b) if len(a) == len(b) and a == set(b) else (WRONG,)
        except TypeError:
            return (WRONG,)
    if ka == "iter" and kb == "seq":                                # range(3), a generator, dict keys
        items = _taken(a, len(b))
        return (TYPE, a, b) if _compare(items, b, tol)[0] == SAME else (WRONG,)
    if ka in ("other", "iter"):
        if kb == "str" and str(a) == b:                             # jax.lax.sqrt_p for "sqrt"
            return (TYPE, a, b)
        return (UNCOMPARABLE,)
    return (WRONG,)


def _dict_values(values, b: Mapping, tol) -> tuple:
    """``values`` (a list, or another dict's values) against the values of the dict ``b`` in its order: the
    right values in the wrong form, or wrong."""
    if len(values) != len(b) or _all(values, list(b.values()), tol)[0] != SAME:
        return (WRONG,)
    return (KEYS,)


def _generic(a, b, ka: str, kb: str) -> tuple:
    """A truth of a type ``check`` does not know: Python's ``==``, then its text."""
    try:
        with warnings.catch_warnings():     # NumPy's deprecations are no business of a student's
            warnings.simplefilter("ignore")
            same = _truth_value(a == b)
    except Exception as e:  # noqa: BLE001 - an answer the truth's type cannot compare with
        return (ERROR, _error_text(e))
    if same:
        return (SAME,)
    if type(a) is not type(b) and str(a) == str(b):
        return (TYPE, a, b)
    if ka == "callable" and kb != "callable":
        return (UNCALLED,)
    return (WRONG,)


def _parsed_equal(text: str, b, kb: str, tol) -> bool:
    text = text.strip()
    if text == str(b):
        return True
    if kb == "bool":
        return False
    try:
        return _numbers_close(complex(text) if "j" in text else float(text), b, tol)
    except ValueError:
        return False


def _taken(items, n: int) -> tuple:
    """At most ``n + 1`` items of an iterable (an endless generator stops there)."""
    return tuple(islice(items, n + 1))


def _truth_value(result) -> bool:
    """``bool`` of what ``==`` or a comparison returned; an array is true when every element is."""
    if _is_array(result):
        return bool(np.all(np.asarray(result)))
    return bool(result)


def _error_text(e: Exception) -> str:
    """An error's first line, the same on every run: JAX's and Python's as they say it (``TypeError: ...``),
    jaxprlens's own in the notebook's language."""
    return _no_address(told(e, default_lang()).splitlines()[0].rstrip().removesuffix(":"))


def _no_address(text: str) -> str:
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def shown(value) -> str:
    """``repr(value)`` as a message shows it, the same on every run: without memory addresses, and a set's
    elements in order."""
    return _no_address(_repr(value))


def _repr(v) -> str:
    if isinstance(v, (set, frozenset)):
        inner = ", ".join(sorted(_repr(x) for x in v))
        if type(v) is set:
            return "{" + inner + "}" if v else "set()"
        return f"{type(v).__name__}({{{inner}}})" if v else f"{type(v).__name__}()"
    if type(v) is list:
        return "[" + ", ".join(_repr(x) for x in v) + "]"
    if type(v) is tuple:
        return "(" + ", ".join(_repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if type(v) is dict:
        return "{" + ", ".join(f"{_repr(k)}: {_repr(x)}" for k, x in v.items()) + "}"
    return repr(v)


def kind_of(value) -> str:
    """What kind of value this is, in the notebook's language: ``an int``, ``a list``, ``an array of float32``,
    ``a function``..."""
    k = _kind(value)
    if k == "number":
        key = ("int" if isinstance(value, numbers.Integral) else "float" if isinstance(value, numbers.Real)
               else "complex" if isinstance(value, numbers.Complex) else "number")
        return word(f"kind_{key}")
    if k == "seq":
        return word("kind_tuple" if isinstance(value, tuple) else "kind_list")
    if k == "array" and not isinstance(value, np.generic):
        return word("kind_array", dtype=str(value.dtype))
    if k == "array":            # a NumPy scalar that is no number: datetime64, void...
        return word("kind_object", name=type(value).__name__)
    if k == "callable":
        return word("kind_class" if isinstance(value, type) else "kind_function")
    if k == "iter":
        return word("kind_iterable", name=type(value).__name__)
    if k == "other":
        return word("kind_object", name=type(value).__name__)
    return word(f"kind_{k}")


def error_name(fn, *args) -> str | None:
    """The class name of the error ``fn(*args)`` raises, or ``None`` when it runs."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - any error is the answer here
        return type(e).__name__
    return None


def show_error(fn, *args) -> None:
    """Call ``fn(*args)`` and print the error's type and first line instead of a traceback (a cell that is
    meant to fail still lets the notebook run on, and prints no path or address).  JAX's errors are printed as
    JAX says them (they are the lesson); jaxprlens's own in the notebook's language."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - the lesson is the error itself
        print(_error_text(e))
    else:
        print(t("no_error"))
