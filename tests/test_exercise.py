"""exercise.check grades like a teacher: right answers in every natural form pass, near misses fail with the
hint, "right values, wrong type" where only the type differs, and answers that cannot be compared get a
message saying what to answer with (never a traceback); in English and in Chinese."""
from __future__ import annotations

import contextlib
import io
import math
from decimal import Decimal
from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxprlens import exercise
from jaxprlens.exercise import ATOL, RTOL, check, fail, pending, shown
from jaxprlens.present.i18n import set_default_lang

HINT_EN, HINT_ZH = "Count the equations.", "数一数方程。"


@pytest.fixture(autouse=True)
def _english(monkeypatch):
    monkeypatch.delenv("JAXPRLENS_LANG", raising=False)
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)     # self-study, whoever runs the tests
    monkeypatch.setattr(exercise, "GRADED", None)
    set_default_lang(None)
    yield
    set_default_lang(None)


def graded(answer, truth, **options) -> str:
    """What the check says: the printed line when it passes (or is pending), the AssertionError's message when
    it fails; any other exception escapes and fails the test."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            check(answer, truth, HINT_EN, HINT_ZH, **options)
    except AssertionError as e:
        return str(e)
    return out.getvalue().strip()


# ---------------------------------------------------------------- right answers

RIGHT = [
    (3, 3),
    (np.int64(3), 3),
    (3.0, 3),                                   # as in Python, 3.0 == 3
    (2, 2.0),
    (0.1 + 0.2, 0.3),                           # floats within the tolerance
    (np.float32(0.1), 0.1),                     # a float32 answer for a float64 truth
    (float("nan"), math.nan),                   # NaN is NaN
    (True, True),
    (np.bool_(False), False),
    ("sqrt", "sqrt"),
    ([4, "b"], (4, "b")),                       # lists and tuples alike
    ((4, "b"), [4, "b"]),
    ([16, 3], (16, 3)),                         # a shape as a list
    (np.array([16, 3]), (16, 3)),
    ((16, 3), jnp.ones((16, 3)).shape),
    (np.arange(3), [0, 1, 2]),                  # NumPy, jax and nested lists of numbers alike
    (jnp.arange(3.), np.arange(3.)),
    ([[1., 2.], [3., 4.]], np.array([[1., 2.], [3., 4.]])),
    (np.array([[1., 2.], [3., 4.]]).tolist(), jnp.array([[1., 2.], [3., 4.]])),
    (jnp.array(4), 4),                          # a 0-d array for a number
    (jnp.sum(jnp.ones(1000, jnp.float32) * 0.1), 100.0),    # float32 rounding within rtol
    (jnp.ones(2, jnp.bfloat16), [1., 1.]),
    (jnp.array([True, False]), [True, False]),
    ((1, np.ones(2)), [1, [1., 1.]]),           # nested: a tuple holding an array
    ([[1, 2], [3]], ([1, 2], (3,))),            # ragged, element by element
    ({"consts": 2, "carry": 2, "xs": 1}, {"xs": 1, "consts": 2, "carry": 2}),   # dict order is no matter
    ({"w": [1, 2]}, {"w": (1, 2)}),
    ({"a", "b"}, {"b", "a"}),
    (["b", "a"], {"a", "b"}),                   # any order for a set
    ("float32", np.dtype("float32")),           # a type check does not know: its own ==
]


@pytest.mark.parametrize("answer, truth", RIGHT, ids=[f"{shown(a):.30}-for-{shown(t):.30}" for a, t in RIGHT])
def test_right_answers_pass_in_every_natural_form(answer, truth):
    assert graded(answer, truth) == "Correct!"


def test_placeholder_is_pending_whatever_the_truth():
    for truth in (3, np.ones(3), jnp.ones(3), [1, 2], "sqrt", None):
        assert graded(None, truth) == "Not answered yet: replace None with your prediction, then run this cell again."


# ---------------------------------------------------------------- near misses: the hint

NEAR = [
    (1.001, 1.0, "1.001"),                      # off by 1e-3
    (np.ones(3) + 1e-3, np.ones(3), "array([1.001, 1.001, 1.001])"),
    (jnp.array([1., 2.001]), [1., 2.], "Array([1.   , 2.001], dtype=float32)"),
    (3.5, 3, "3.5"),
    (4, 3, "4"),
    ([2, 1], [1, 2], "[2, 1]"),                 # wrong order
    ((1, 2, 2), (1, 2), "(1, 2, 2)"),           # an extra element
    ([1], (1, 2), "[1]"),                       # a missing one
    ([[1, 2], [3]], [[1, 2], [4]], "[[1, 2], [3]]"),
    (False, True, "False"),
    ("Sqrt", "sqrt", "'Sqrt'"),                 # strings exactly
    ("sqrt ", "sqrt", "'sqrt '"),
    ("夹紧", "钳制", "'夹紧'"),
    ({"a": 1, "b": 2}, {"a": 1}, "{'a': 1, 'b': 2}"),
    ({"a": 2}, {"a": 1}, "{'a': 2}"),
    (["a", "c"], {"a", "b"}, "['a', 'c']"),
    (np.array([1, 2]), np.array([1, 3]), "array([1, 2])"),
    (3.0000001, 3, "3.0000001"),                # an int truth wants that int
]


@pytest.mark.parametrize("answer, truth, shown", NEAR, ids=[f"{s:.30}" for _, _, s in NEAR])
def test_near_misses_fail_with_the_hint(answer, truth, shown):
    assert graded(answer, truth) == f"Not quite: you answered {shown}. {HINT_EN}"


GROUPS = {"cond_consts": 1, "body_consts": 1, "carry": 2}       # lecture 5's exercise 1
KEYS_SAID = "the answer is a dict with the keys 'cond_consts', 'body_consts', 'carry'."


@pytest.mark.parametrize("answer", [[1, 1, 2], (1, 1, 2), {"cond": 1, "body": 1, "carry": 2},
                                    {"consts": 1, "body_consts": 1, "carry": 2}])
def test_a_dicts_right_values_in_another_form_name_the_keys_instead_of_the_hint(answer):
    """Lectures 5 and 6, exercise 1: the counts right, as a list or under other keys, is a question of form."""
    assert graded(answer, GROUPS) == f"Not quite: right values, wrong form: you answered {shown(answer)}; {KEYS_SAID}"


@pytest.mark.parametrize("answer", [[1, 2, 1], (1, 1), [1, 1, 2, 0], {"cond": 2, "body": 1, "carry": 2}, 4])
def test_a_dicts_wrong_values_in_another_form_get_the_hint(answer):
    assert graded(answer, GROUPS).endswith(HINT_EN)


def test_a_wrong_shape_says_so():
    assert graded(jnp.ones((2, 3)), np.ones((3, 2))) == \
        f"Not quite: your answer has shape (2, 3), not the answer's shape. {HINT_EN}"
    assert graded(np.array([4]), 4) == f"Not quite: your answer has shape (1,), not the answer's shape. {HINT_EN}"
    assert graded([[1., 2., 3.]], np.ones(3)) == \
        f"Not quite: your answer has shape (1, 3), not the answer's shape. {HINT_EN}"


# ---------------------------------------------------------------- right values, wrong type

TYPED = [
    (1, True, "you answered 1, an int; the answer is a bool."),            # booleans strict
    (0, False, "you answered 0, an int; the answer is a bool."),
    (True, 1, "you answered True, a bool; the answer is an int."),
    ("3", 3, "you answered '3', a str; the answer is an int."),
    ("0.5", 0.5, "you answered '0.5', a str; the answer is a float."),
    ("True", True, "you answered 'True', a str; the answer is a bool."),
    (3, "3", "you answered 3, an int; the answer is a str."),
    ("add mul", ["add", "mul"], "you answered 'add mul', a str; the answer is a list."),
    ("(16, 3)", (16, 3), "you answered '(16, 3)', a str; the answer is a tuple."),
    ([4], 4, "you answered [4], a list; the answer is an int."),
    ("sqrt", ("sqrt",), "you answered 'sqrt', a str; the answer is a tuple."),
    (range(3), [0, 1, 2], "you answered range(0, 3), an iterable (range); the answer is a list."),
    ({"a", "b"}, ["a", "b"], "you answered {'a', 'b'}, a set; the answer is a list."),
    (np.array([1, 0]), np.array([True, False]),
     "you answered array([1, 0]), an array of int64; the answer is an array of bool."),
    (jax.lax.sqrt_p, "sqrt", "you answered sqrt, an object of type Primitive; the answer is a str."),
]


@pytest.mark.parametrize("answer, truth, said", TYPED, ids=[f"{shown(a):.20}-for-{shown(t):.20}" for a, t, _ in TYPED])
def test_right_values_of_the_wrong_type_say_so_instead_of_the_hint(answer, truth, said):
    assert graded(answer, truth) == f"Not quite: right values, wrong type: {said}"


def test_a_wrong_type_inside_a_structure_names_the_part():
    assert graded([1, 0], [True, False]) == ("Not quite: right values, wrong type: in your answer [1, 0], 1 is "
                                             "an int where the answer has a bool.")
    assert graded({"carry": "2"}, {"carry": 2}) == ("Not quite: right values, wrong type: in your answer "
                                                    "{'carry': '2'}, '2' is a str where the answer has an int.")


def test_a_wrong_value_beats_a_wrong_type():
    assert graded([1, 5], [True, False]) == f"Not quite: you answered [1, 5]. {HINT_EN}"


# ---------------------------------------------------------------- answers that cannot be compared

def test_a_function_is_not_a_value():
    def count(jaxpr):
        return len(jaxpr.eqns)
    assert graded(count, 3) == ("Not quite: your answer is a function, not a value: call it to get one, or "
                                "answer with an int.")
    assert graded(len, [1, 2]) == ("Not quite: your answer is a function, not a value: call it to get one, or "
                                   "answer with a list.")
    assert graded(int, 3).startswith("Not quite: your answer is a class, not a value")


@pytest.mark.parametrize("answer, truth, said", [
    (np, np.ones(3), "a module, which cannot be compared with an array of float64: answer with an array of float64"),
    (object(), 3, "an object of type object, which cannot be compared with an int: answer with an int"),
    (jax.lax.add_p, "sqrt", "an object of type Primitive, which cannot be compared with a str: answer with a str"),
    ((x for x in "ab"), 2, "an iterable (generator), which cannot be compared with an int: answer with an int"),
])
def test_an_answer_that_cannot_be_compared_says_what_to_answer_with(answer, truth, said):
    assert graded(answer, truth) == f"Not quite: your answer is {said}."


ODD_ANSWERS = [len, np, object(), b"3", Ellipsis, float("inf"), -0.0, 1j, jnp.ones(3), np.array(["a", "b"]),
               {"a"}, {1: 2}, [None], [[1], 2], int, Decimal("1.5"), Fraction(1, 2), np.datetime64("2020"),
               jax.ShapeDtypeStruct((2,), jnp.float32), np.ones((2, 0))]
TRUTHS = [3, 1.5, True, "s", [1, 2], (16, 3), np.ones(3), jnp.ones((2, 2)), {"a": 1}, {"a"}, np.dtype("f4"), None]


def test_no_answer_gets_a_traceback_of_ours():
    """Every odd answer against every kind of truth: a verdict or a message, never another exception."""
    for answer in ODD_ANSWERS:
        for truth in TRUTHS:
            said = graded(answer, truth)
            assert said.startswith(("Correct!", "Not quite: ")), (answer, truth, said)
            assert " at 0x" not in said


def test_messages_hold_no_memory_address():
    said = graded((x for x in [1, 2]), [1, 2])
    assert said == ("Not quite: right values, wrong type: you answered <generator object "
                    "test_messages_hold_no_memory_address.<locals>.<genexpr>>, an iterable (generator); the "
                    "answer is a list.")


def test_a_truth_whose_equality_raises_gives_a_message():
    class Strict:
        def __eq__(self, other):
            raise TypeError("compare me with a Strict")
    assert graded(3, Strict()) == ("Not quite: comparing your answer (an int) with the answer raised TypeError: "
                                   f"compare me with a Strict. {HINT_EN}")


# ---------------------------------------------------------------- tolerance and a custom comparison

def test_tolerances_default_to_numpys_and_can_be_set():
    assert (RTOL, ATOL) == (1e-5, 1e-8)
    assert graded(1.000009, 1.0) == "Correct!" and graded(1.00002, 1.0).startswith("Not quite")
    assert graded(1.001, 1.0, rtol=1e-2) == "Correct!"
    assert graded(0.05, 0.0, atol=0.1) == "Correct!" and graded(1e-7, 0.0).startswith("Not quite")
    assert graded(np.ones(3) * 1.01, np.ones(3), rtol=0.02) == "Correct!"
    assert graded(1.0 + 1e-12, 1.0, rtol=0, atol=0).startswith("Not quite")
    with pytest.raises(ValueError, match="rtol and atol must be >= 0"):
        check(1.0, 1.0, rtol=-1)


def test_a_custom_comparison_decides():
    assert graded(3, 4, compare=lambda a, b: a < b) == "Correct!"
    assert graded(5, 4, compare=lambda a, b: a < b) == f"Not quite: you answered 5. {HINT_EN}"
    assert graded(np.ones(3), np.ones(3), compare=lambda a, b: a == b) == "Correct!"   # an array of booleans
    assert graded("x", 4, compare=lambda a, b: a < b) == (
        "Not quite: comparing your answer (a str) with the answer raised TypeError: '<' not supported between "
        f"instances of 'str' and 'int'. {HINT_EN}")
    assert graded(None, 4, compare=lambda a, b: True).startswith("Not answered yet")


def test_the_hints_are_optional():
    with pytest.raises(AssertionError) as err:
        check(2, 3)
    assert str(err.value) == "Not quite: you answered 2."


# ---------------------------------------------------------------- the reader's language

def test_in_chinese():
    set_default_lang("zh")
    assert graded(3, 3) == "正确！"
    assert graded(None, 3) == "尚未作答：把 None 换成你的预测，再运行本单元格。"
    assert graded(4, 3) == f"还不对：你的答案是 4。{HINT_ZH}"
    assert graded(1, True) == "还不对：值对了，类型不对：你的答案 1 是整数，而答案是布尔值。"
    assert graded([1, 0], [True, False]) == ("还不对：值对了，类型不对：你的答案 [1, 0] 中，"
                                             "1 是整数，而答案在这里是布尔值。")
    assert graded([1, 1, 2], GROUPS) == ("还不对：值对了，形式不对：你的答案是 [1, 1, 2]；答案是以 'cond_consts'、"
                                         "'body_consts'、'carry' 为键的字典。")
    assert graded(jnp.ones(2), np.ones(3)) == f"还不对：你的答案形状为 (2,)，与答案的形状不同。{HINT_ZH}"
    assert graded(len, 3) == "还不对：你的答案是函数，不是一个值：调用它得到值，或用整数作答。"
    assert graded(object(), (1, 2)) == "还不对：你的答案是object 类型的对象，无法与元组比较：请用元组作答。"
    assert graded(np.ones(2, "f4"), "x").startswith("还不对：你的答案是 ")


def test_the_language_comes_from_the_environment_too(monkeypatch):
    monkeypatch.setenv("JAXPRLENS_LANG", "zh")
    assert graded(4, 3) == f"还不对：你的答案是 4。{HINT_ZH}"


# ---------------------------------------------------------------- the building blocks checks of code use

def test_fail_and_pending_for_checks_of_code(capsys):
    pending("write tanh", "写好 tanh")
    assert capsys.readouterr().out == "Not answered yet: write tanh, then run this cell again.\n"
    with pytest.raises(AssertionError) as err:
        fail("the mini jaxpr holds sin.", "小 jaxpr 中是 sin。", "Bind tanh.", "绑定 tanh。")
    assert str(err.value) == "Not quite: the mini jaxpr holds sin. Bind tanh."
    set_default_lang("zh")
    with pytest.raises(AssertionError) as err:
        fail("the mini jaxpr holds sin.", "小 jaxpr 中是 sin。", "Bind tanh.", "绑定 tanh。")
    assert str(err.value) == "还不对：小 jaxpr 中是 sin。绑定 tanh。"


def test_a_set_is_shown_in_order():
    assert shown({"b", "a", "c"}) == "{'a', 'b', 'c'}" and shown(frozenset({2, 1})) == "frozenset({1, 2})"
    assert shown([{"y", "x"}, ({"k": {2, 1}},)]) == "[{'x', 'y'}, ({'k': {1, 2}},)]" and shown(set()) == "set()"


def test_kind_words():
    assert [exercise.kind_of(v) for v in (1, 1.5, 1j, True, "s", [], (), {}, set(), np.ones(2, "f4"), len, np)] == [
        "an int", "a float", "a complex number", "a bool", "a str", "a list", "a tuple", "a dict", "a set",
        "an array of float32", "a function", "a module"]


# ---------------------------------------------------------------- show_error: the error is the lesson

@pytest.mark.parametrize("lang, ours, none", [
    ("en", "--argnums takes comma-separated integers such as 0 or 0,1; got 'x'", "no error"),
    ("zh", "--argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'", "没有错误"),
])
def test_show_error_says_jax_s_errors_as_jax_does_and_ours_in_the_notebook_s_language(capsys, lang, ours, none):
    from jaxprlens.model.errors import KeyedError
    set_default_lang(lang)

    def relu_if(x):
        return x if x > 0 else 0.

    def ours_fails():
        raise KeyedError("int_list", option="--argnums", text="'x'")

    class Addressed:
        def __call__(self):
            raise ValueError(f"bad {object()}\nsecond line")

    exercise.show_error(jax.jit(relu_if), 1.)
    exercise.show_error(ours_fails)
    exercise.show_error(Addressed())
    exercise.show_error(lambda: (_ for _ in ()).throw(ValueError()))
    exercise.show_error(abs, -1)
    jax_said, said, addressed, bare, ran = capsys.readouterr().out.splitlines()
    assert jax_said.startswith("TracerBoolConversionError: Attempted boolean conversion of traced array")
    assert said == ours and addressed == "ValueError: bad <object object>" and bare == "ValueError"
    assert ran == none


def test_a_comparison_that_raises_ours_says_it_in_the_notebook_s_language():
    from jaxprlens.model.errors import KeyedError

    def compare(a, b):
        raise KeyedError("int_list", option="--argnums", text="'x'")
    set_default_lang("zh")
    said = graded(3, 3, compare=compare)
    assert said == ("还不对：把你的答案（整数）与答案比较时出错："
                    f"--argnums 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 'x'。{HINT_ZH}")


def test_the_glossary_gives_each_term_once():
    """The views' terms and the course's together: no Chinese term twice (with two English glosses), no
    English term twice."""
    from jaxprlens.exercise import glossary
    rows = [line.split(" | ") for line in glossary().splitlines()[2:]]
    english = [r[0].strip("| ") for r in rows]
    chinese = [r[1].strip("| ") for r in rows]
    assert len(set(chinese)) == len(chinese), sorted(c for c in chinese if chinese.count(c) > 1)
    assert len(set(english)) == len(english)
    assert "计算内核" in chinese and "内核" in chinese


# ---------------------------------------------------------------- graded: a blank answer fails

HINT_LONG_EN = ("Count one equation per primitive applied; a scalar literal such as 2. is an operand, not an "
                "equation.")
HINT_LONG_ZH = "每施加一个原语就有一个方程；2. 这样的标量字面量只是操作数，不是方程。"


def graded_says(answer, truth, hint_en=HINT_EN, hint_zh=HINT_ZH, **options) -> str:
    """What a graded check says: ``Correct!`` when it passes, the AssertionError's message when it fails (it
    must never print "Not answered yet" and pass)."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            check(answer, truth, hint_en, hint_zh, **options)
    except AssertionError as e:
        return str(e)
    said = out.getvalue().strip()
    assert said == "Correct!" or said == "正确！", said
    return said


@pytest.mark.parametrize("how", ["autograde", "validate", "argument", "switch"])
def test_a_blank_answer_fails_when_graded(monkeypatch, how):
    """nbgrader sets NBGRADER_EXECUTION in the kernels it runs (autograde, validate); check(..., graded=True)
    and exercise.GRADED say the same anywhere else."""
    options = {}
    if how in ("autograde", "validate"):
        monkeypatch.setenv("NBGRADER_EXECUTION", how)
    elif how == "argument":
        options["graded"] = True
    else:
        monkeypatch.setattr(exercise, "GRADED", True)
    for truth in (3, np.ones(3), [1, 2], "sqrt"):
        assert graded_says(None, truth, **options) == "Not answered: replace None with your answer."
        assert graded_says(..., truth, **options) == "Not answered: replace ... with your answer."
        assert graded_says(NotImplemented, truth, **options) == \
            "Not answered: replace NotImplemented with your answer."
    with pytest.raises(AssertionError, match="^Not answered: write tanh.$"):
        pending("write tanh", "写好 tanh", **options)
    with pytest.raises(AssertionError, match="^Not answered: replace None with your prediction.$"):
        pending(**options)


def test_self_study_is_untouched_by_an_empty_variable_or_a_switch_turned_off(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "")
    assert graded(None, 3).startswith("Not answered yet")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(exercise, "GRADED", False)          # the teacher's own run of a graded notebook
    assert graded(None, 3).startswith("Not answered yet")
    assert graded(None, 3, graded=True) == "Not answered: replace None with your answer."
    monkeypatch.setattr(exercise, "GRADED", None)
    assert graded(None, 3, graded=False).startswith("Not answered yet")
    pending("write tanh", "写好 tanh", graded=False)
    assert capsys.readouterr().out == "Not answered yet: write tanh, then run this cell again.\n"


@pytest.mark.parametrize("answer, truth", RIGHT, ids=[f"{shown(a):.30}-for-{shown(t):.30}" for a, t in RIGHT])
def test_right_answers_still_pass_when_graded(answer, truth):
    assert graded_says(answer, truth, graded=True) == "Correct!"


def test_a_graded_message_is_short_lines_with_the_hint_on_lines_of_its_own():
    said = graded_says(5, 4, HINT_LONG_EN, HINT_LONG_ZH, graded=True)
    assert said == ("Not quite: you answered 5.\n"
                    "Count one equation per primitive applied; a scalar literal such as 2. is\n"
                    "an operand, not an equation.")
    assert graded(5, 4) == f"Not quite: you answered 5. {HINT_EN}"        # self-study: one paragraph, as ever
    set_default_lang("zh")
    assert graded_says(5, 4, HINT_LONG_EN, HINT_LONG_ZH, graded=True) == f"还不对：你的答案是 5。\n{HINT_LONG_ZH}"
    assert graded_says("4", 4, graded=True) == "还不对：值对了，类型不对：你的答案 '4' 是字符串，而答案\n是整数。"


def test_a_graded_message_fits_a_graders_dialog_whatever_the_answer():
    """Every line within 72 columns (a Chinese character is two), the first within 72 less "AssertionError: ",
    and a long answer cut short."""
    from jaxprlens.exercise import WIDTH
    from jaxprlens.present.i18n import width as _width
    answers = [(list(range(200)), [0, 1]), (np.arange(500.), np.zeros(500)), ("x" * 300, "x"),
               ({"k" * 30: [1.5] * 30}, {"k" * 30: [1.5] * 29}), ((1, "a") * 40, (1, "a"))]
    for lang in ("en", "zh"):
        set_default_lang(lang)
        for answer, truth in answers:
            said = graded_says(answer, truth, HINT_LONG_EN, HINT_LONG_ZH, graded=True)
            lines = said.split("\n")
            assert _width(lines[0]) <= WIDTH - len("AssertionError: "), lines[0]
            assert all(_width(line) <= WIDTH for line in lines), said
            assert len(said) < 400 and "…" in said
            assert lines[-1].endswith(("not an equation.", "不是方程。")), said


def test_answered_is_the_self_check_beside_a_hidden_test(capsys):
    from jaxprlens.exercise import answered
    answered(4, ["mul"], graded=True)
    assert capsys.readouterr().out == "Answered. The hidden test grades it when your work is collected.\n"
    with pytest.raises(AssertionError, match=r"^Not answered: replace None with your answer.$"):
        answered(4, None, graded=True)
    with pytest.raises(AssertionError, match=r"^Not quite: your answer is a function, not a value"):
        answered(len, graded=True)
    answered(None, graded=False)
    assert capsys.readouterr().out.startswith("Not answered yet")
    set_default_lang("zh")
    with pytest.raises(AssertionError, match=r"^未作答：把 \.\.\. 换成你的答案。$"):
        answered(..., graded=True)


def test_a_graded_failure_is_an_assertion_error_named_as_such():
    with pytest.raises(AssertionError) as err:
        check(5, 4, graded=True)
    assert type(err.value).__name__ == "AssertionError" and isinstance(err.value, exercise.Unmet)
    assert "".join(__import__("traceback").format_exception_only(err.value)).startswith("AssertionError: ")


# ---------------------------------------------------------------- the student's frames, not ours

def test_our_frames_are_marked_hidden():
    """pytest and IPython leave out a frame whose ``__tracebackhide__`` is true."""
    for fn in (check, pending, fail, exercise.answered, exercise._raise):
        assert "__tracebackhide__" in fn.__code__.co_varnames, fn.__name__


def test_users_part_cuts_the_traceback_after_the_students_last_frame():
    def ours():
        __tracebackhide__ = True
        raise ValueError("x")

    def students():
        ours()

    try:
        students()
    except ValueError as e:
        tb = e.__traceback__
    names = []
    cut = exercise.users_part(tb)
    while cut is not None:
        names.append(cut.tb_frame.f_code.co_name)
        cut = cut.tb_next
    assert names == ["test_users_part_cuts_the_traceback_after_the_students_last_frame", "students"]


def test_in_ipython_the_traceback_ends_in_the_students_cell(capsys):
    """The cell's own line is the last frame shown: no line of exercise.py, no "skipping hidden frames"."""
    import re

    from IPython.testing.globalipapp import get_ipython
    ip = get_ipython()
    saved = ip.custom_exceptions, ip.CustomTB
    try:
        ip.set_custom_exc((), None)
        capsys.readouterr()
        result = ip.run_cell("from jaxprlens.exercise import check\n"
                             "answer_1 = 5\n"
                             f"check(answer_1, 4, {HINT_LONG_EN!r}, '', graded=True)")
        shown_tb = re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)
        assert isinstance(result.error_in_exec, AssertionError)
        assert ip.custom_exceptions == (exercise.Unmet,)
        assert "exercise.py" not in shown_tb and "hidden" not in shown_tb, shown_tb
        assert re.search(r"----> 3 check\(answer_1, 4,", shown_tb), shown_tb
        assert shown_tb.rstrip().endswith("AssertionError: Not quite: you answered 5.\n"
                                          "Count one equation per primitive applied; a scalar literal such as 2. is\n"
                                          "an operand, not an equation."), shown_tb

        def theirs(shell, etype, value, tb, tb_offset=None):
            return ["theirs"]
        ip.set_custom_exc((KeyError,), theirs)          # another extension's handler is left alone
        ip.run_cell("check(5, 4, graded=True)")
        assert ip.custom_exceptions == (KeyError,)
    finally:
        ip.custom_exceptions, ip.CustomTB = saved
