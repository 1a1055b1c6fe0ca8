"""The course's exercises: what a check says of an answer (exercise.check), graded or in self-study, the kinds
of value it names.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    "ex_pending": ("Not answered yet: {what}, then run this cell again.", "尚未作答：{what}，再运行本单元格。"),
    "ex_replace": ("replace None with your prediction", "把 None 换成你的预测"),
    "ex_unanswered": ("Not answered: {what}.", "未作答：{what}。"),
    "ex_replace_blank": ("replace {blank} with your answer", "把 {blank} 换成你的答案"),
    "ex_answered_ok": ("Answered. The hidden test grades it when your work is collected.",
                       "已作答。收齐作业后由隐藏测试评分。"),
    "ex_not_a_value": ("your answer is {got}, not a value: answer with a value.",
                       "你的答案是{got}，不是一个值：请用值作答。"),
    "ex_correct": ("Correct!", "正确！"),
    "ex_wrong": ("Not quite: {what} {hint}", "还不对：{what}{hint}"),
    "ex_answered": ("you answered {answer}.", "你的答案是 {answer}。"),
    "ex_shape": ("your answer has shape {shape}, not the answer's shape.",
                 "你的答案形状为 {shape}，与答案的形状不同。"),
    "ex_type": ("right values, wrong type: you answered {answer}, {got}; the answer is {want}.",
                "值对了，类型不对：你的答案 {answer} 是{got}，而答案是{want}。"),
    "ex_type_part": ("right values, wrong type: in your answer {answer}, {part} is {got} where the answer has {want}.",
                     "值对了，类型不对：你的答案 {answer} 中，{part} 是{got}，而答案在这里是{want}。"),
    "ex_keys": ("right values, wrong form: you answered {answer}; the answer is a dict with the keys {keys}.",
                "值对了，形式不对：你的答案是 {answer}；答案是以 {keys} 为键的字典。"),
    "ex_uncomparable": ("your answer is {got}, which cannot be compared with {want}: answer with {want}.",
                        "你的答案是{got}，无法与{want}比较：请用{want}作答。"),
    "ex_uncalled": ("your answer is {got}, not a value: call it to get one, or answer with {want}.",
                    "你的答案是{got}，不是一个值：调用它得到值，或用{want}作答。"),
    "ex_compare_error": ("comparing your answer ({got}) with the answer raised {error}.",
                         "把你的答案（{got}）与答案比较时出错：{error}。"),
    "ex_tolerance": ("rtol and atol must be >= 0 (got rtol={rtol}, atol={atol})",
                     "rtol 和 atol 必须 >= 0（收到 rtol={rtol}，atol={atol}）"),
    "ex_kind_none": ("None", "None"),
    "ex_kind_bool": ("a bool", "布尔值"),
    "ex_kind_int": ("an int", "整数"),
    "ex_kind_float": ("a float", "浮点数"),
    "ex_kind_complex": ("a complex number", "复数"),
    "ex_kind_number": ("a number", "数"),
    "ex_kind_str": ("a str", "字符串"),
    "ex_kind_list": ("a list", "列表"),
    "ex_kind_tuple": ("a tuple", "元组"),
    "ex_kind_dict": ("a dict", "字典"),
    "ex_kind_set": ("a set", "集合"),
    "ex_kind_array": ("an array of {dtype}", "{dtype} 数组"),
    "ex_kind_function": ("a function", "函数"),
    "ex_kind_class": ("a class", "类"),
    "ex_kind_module": ("a module", "模块"),
    "ex_kind_iterable": ("an iterable ({name})", "可迭代对象（{name}）"),
    "ex_kind_object": ("an object of type {name}", "{name} 类型的对象"),
    # python -m jaxprlens.grading: a lecture as an nbgrader assignment
    "gr_note": ("**Graded copy.** Write each answer where the exercise cell says `YOUR CODE HERE`, in place of "
                "that line and the `raise` under it. The check cell after it says whether the exercise is "
                "answered; whether the answer is right, hidden tests say when your work is collected. Keep the "
                "variable names (`answer_1`, ...) and leave the read-only cells as they are.",
                "**评分用的副本。** 在练习单元格中写着 `YOUR CODE HERE` 的地方作答，替换这一行和它下面的 "
                "`raise`。其后的检查单元格只告诉你是否已作答；答案对不对，由收齐作业后的隐藏测试判定。请保留变量名"
                "（`answer_1` 等），不要改动只读单元格。"),
    "gr_graded_line": ("from jaxprlens import exercise\n"
                       "exercise.GRADED = True  # a graded copy: a blank answer fails its test",
                       "from jaxprlens import exercise\n"
                       "exercise.GRADED = True  # 评分用的副本：未作答的练习不通过测试"),
    "gr_usage": ("Turn lectures of the course into an nbgrader source assignment: each exercise an answer cell, each "
                 "check an autograded test with its truth hidden.",
                 "把课程的讲次转成 nbgrader 的源作业：每个练习成为作答单元格，每个检查成为隐藏了正确答案的自动评分测"
                 "试。"),
    "gr_help_lectures": ("lecture notebooks (.ipynb) of either edition, e.g. notebooks/en/01_what_is_a_jaxpr.ipynb",
                         "任一版本的讲次 notebook（.ipynb），例如 notebooks/zh/01_what_is_a_jaxpr.ipynb"),
    "gr_help_course": ("the nbgrader course folder (default: the current folder)",
                       "nbgrader 的课程文件夹（默认：当前文件夹）"),
    "gr_help_assignment": ("the assignment's name (default: the first lecture's file name)",
                           "作业名（默认：第一个讲次的文件名）"),
    "gr_help_points": ("points for each exercise (default: 1)", "每个练习的分值（默认：1）"),
    "gr_help_timeout": ("seconds a cell may run under autograde, in the nbgrader config written for a course "
                        "that has none (default: 120)",
                        "自动评分时一个单元格最多运行的秒数，写入为尚无 nbgrader 配置的课程新建的配置（默认：120）"),
    "gr_not_a_notebook": ("{path} is not a notebook file (.ipynb): give a lecture such as "
                          "notebooks/en/01_what_is_a_jaxpr.ipynb",
                          "{path} 不是 notebook 文件（.ipynb）：请给出讲次，例如 "
                          "notebooks/zh/01_what_is_a_jaxpr.ipynb"),
    "gr_positive": ("--points and --timeout must be greater than 0", "--points 与 --timeout 必须大于 0"),
    "gr_no_exercises": ("no cell is tagged exercise-N, check-N or solution-N: give a lecture of the course",
                        "没有标记为 exercise-N、check-N 或 solution-N 的单元格：请给出课程的讲次"),
    "gr_incomplete": ("exercise {n} has no {missing} cell: each exercise-N needs its check-N and solution-N",
                      "练习 {n} 缺少 {missing} 单元格：每个 exercise-N 都需要对应的 check-N 与 solution-N"),
    "gr_wrote": ("wrote {path}", "已写入 {path}"),
    "gr_next": ("Next, in {course}: nbgrader generate_assignment {assignment}",
                "下一步，在 {course} 中运行：nbgrader generate_assignment {assignment}"),
}
