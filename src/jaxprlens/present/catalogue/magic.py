"""The magic (magic.py): notes on a transformed program, %jaxpr_config, hints for traced values used as
Python values, and usage errors that say what to type instead.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # a transformed program's title (transform.INPUTS_NOTE)
    "note_vmap": (": a batch of 2, each mapped argument stacked twice along its axis",
                  "：批大小为 2，每个被映射的实参沿其轴堆叠两次"),
    "note_batched": (": a batch of {n}, the arguments as written", "：批大小为 {n}，实参即所写的值"),
    "note_jvp": (": inputs are the primals, then tangents of ones", "：输入依次为原值和全 1 的切向量"),
    "note_linearize": (": the linear map, applied to tangents of ones", "：线性映射，作用于全 1 的切向量"),
    "note_vjp": (": the pullback, applied to a cotangent of ones", "：拉回函数，作用于全 1 的余切向量"),
    "note_transpose": (": the transposed linear map, applied to a cotangent of ones",
                       "：转置后的线性映射，作用于全 1 的余切向量"),
    # %jaxpr_config
    "config_lang": ("language: {value} ({origin})", "语言：{value}（{origin}）"),
    "lang_unknown": ("unknown language {name} (must be one of {langs})", "未知语言 {name}（必须是以下之一：{langs}）"),
    "lang_env": ("{env}={value} is not a language jaxprlens speaks (must be one of {langs}); set it to one of those "
                 "or unset it",
                 "{env}={value} 不是 jaxprlens 支持的语言（必须是以下之一：{langs}）；请设为其中之一，或取消设置"),
    "origin_cell": ("this cell's --lang", "本单元格的 --lang"),
    "origin_config": ("set by %jaxpr_config", "由 %jaxpr_config 设置"),
    "origin_env": ("from $JAXPRLENS_LANG", "来自 $JAXPRLENS_LANG"),
    "origin_default": ("the default", "默认值"),
    # %%jaxpr on a traced value used as a Python value (magic._TRACER_FIX)
    "fix_TracerBoolConversionError": ("Python `if`/`while`/`and`/`or` on a traced value runs at trace time, when the "
                                      "value is unknown; use jax.lax.cond / jax.lax.select for branches, "
                                      "jax.lax.while_loop / fori_loop for loops, or make the argument static with "
                                      "--static-argnums N.",
                                      "对被 trace 的值使用 Python 的 `if`/`while`/`and`/`or` 会在 trace 时执行，而那"
                                      "时值还未知；分支请用 jax.lax.cond / jax.lax.select，循环请用 "
                                      "jax.lax.while_loop / fori_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_ConcretizationTypeError": ("a traced value was used where Python needs a concrete one (a shape, a loop "
                                    "bound, an `if`); use jax.lax.cond / jax.lax.while_loop for control flow, or make "
                                    "the argument static with --static-argnums N.",
                                    "在 Python 需要具体值的地方（形状、循环边界、`if`）用了被 trace 的值；控制流请用 "
                                    "jax.lax.cond / jax.lax.while_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_TracerIntegerConversionError": (
        "a traced value was used as a Python int (e.g. an index or range bound); use jax.lax.dynamic_slice or "
        "jax.lax.fori_loop, or make the argument static with --static-argnums N.",
        "把被 trace 的值当作 Python 整数使用（例如下标或 range 的边界）；请用 jax.lax.dynamic_slice 或 "
        "jax.lax.fori_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_TracerArrayConversionError": ("a traced value was converted to a NumPy array; use jax.numpy (jnp) instead of "
                                       "numpy (np) inside the traced function.",
                                       "被 trace 的值被转换成了 NumPy 数组；在被 trace 的函数里请用 jax.numpy（jnp）"
                                       "而不是 numpy（np）。"),
    # the magic's usage errors (magic.py): what to type instead
    "opt_unrecognized": ("unrecognized arguments: {opts}", "无法识别的选项：{opts}"),
    "opt_did_you_mean": ("did you mean {close}?", "你是不是想写 {close}？"),
    "opt_bad": ("{error}", "选项有误：{error}"),
    # argparse's complaints about one option's value, said again (magic._option_error)
    "opt_choice": ("{option} takes one of {choices}; got {value}",
                   "{option} 只接受以下之一：{choices}；收到的是 {value}"),
    "opt_int": ("{option} takes a whole number, e.g. {option} 2; got {value}",
                "{option} 接受一个整数，例如 {option} 2；收到的是 {value}"),
    "opt_float": ("{option} takes a number, e.g. {option} 2.5; got {value}",
                  "{option} 接受一个数，例如 {option} 2.5；收到的是 {value}"),
    "opt_needs_value": ("{option} needs a value after it", "{option} 后面需要一个值"),
    "opt_no_value": ("{option} takes no value: write {option} alone (got {value})",
                     "{option} 不接受值：请单独写 {option}（收到的是 {value}）"),
    "opt_ambiguous": ("{option} could be any of {matches}: write the option out in full",
                      "{option} 可以是 {matches} 中的任何一个：请写出完整的选项"),
    "opt_valid": ("valid options: {options}  (see %%jaxpr? for help)", "可用的选项：{options}（%%jaxpr? 查看帮助）"),
    "give_call": ("give a call to trace, e.g. `%jaxpr f(x, y)`, or use `%%jaxpr` on a cell whose last line is the call",
                  "请给出要 trace 的调用，例如 `%jaxpr f(x, y)`，或对最后一行是该调用的单元格使用 `%%jaxpr`"),
    "needs_transform": ("{given} only work with --transform, e.g. `%%jaxpr --transform grad --compare`",
                        "{given} 只能与 --transform 一起使用，例如 `%%jaxpr --transform grad --compare`",
                        "{given} only works with --transform, e.g. `%%jaxpr --transform grad --compare`"),
    "batched_needs_vmap": ("--batched only works with --transform vmap, e.g. `%%jaxpr --transform vmap --batched`",
                           "--batched 只能与 --transform vmap 一起使用，例如 `%%jaxpr --transform vmap --batched`"),
    "cell_syntax": ("syntax error in the cell, line {line}: {msg}\n    {text}\nfix that line and run the cell again",
                    "单元格第 {line} 行有语法错误：{msg}\n    {text}\n请改正这一行后再运行单元格"),
    "cell_empty": ("the cell is empty; end it with the call to trace, e.g. `f(x, y)`",
                   "单元格是空的；请以要 trace 的调用结尾，例如 `f(x, y)`"),
    "last_not_call": ("the last line must call a JAX function on arrays, e.g. `f(x)` or `y = f(x)`; line "
                      "{line}{shown}is {what}. The cell ran; add the call to trace as its last line",
                      "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)` 或 `y = f(x)`；第 {line} 行{shown}是{what}。"
                      "单元格已运行；请把要 trace 的调用写在最后一行"),
    "last_print": ("the last line prints `{text}`: print traces nothing (it prints a tracer, and the jaxpr has no "
                   "equations). Make the call itself the last line: `{inner}`",
                   "最后一行打印了 `{text}`：print 不 trace 任何东西（它打印出一个 tracer，jaxpr 里没有方程）。请让调"
                   "用本身成为最后一行：`{inner}`"),
    "last_none": ("`{text}` returns None and has no equations: there is nothing to show. Make the last line the call "
                  "of the JAX function, e.g. `f(x)`",
                  "`{text}` 返回 None，也没有方程：没有可显示的内容。请让最后一行调用该 JAX 函数，例如 `f(x)`"),
    "not_a_function": ("`{call}` is {kind}, not a function; the last line must call a function, e.g. `f(x)`",
                       "`{call}` 是 {kind} 对象，不是函数；最后一行必须调用一个函数，例如 `f(x)`"),
    "not_arrays": ("the last line must call a JAX function on arrays, e.g. `f(x)`; `{text}` gets {kinds}, not an "
                   "array or a number",
                   "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)`；`{text}` 的实参是 {kinds}，不是数组或数字"),
    "vmap_call_fails": ("`{text}` fails on its arguments as written", "`{text}` 在所写的实参上失败"),
    "vmap_stacked": ("vmap fails on a batch of 2 (each mapped argument stacked twice)",
                     "vmap 在批大小为 2 的批上失败（每个被映射的实参堆叠两次）"),
    "vmap_batched_fails": ("vmap over the arguments as written fails: {said}", "对所写的实参做 vmap 失败：{said}"),
    "vmap_hint": ("; --transform vmap treats the call as one example and stacks each mapped argument twice: if the "
                  "arguments are already a batch, add --batched to map over them as written, as jax.vmap(f, "
                  "in_axes)(*args) does",
                  "；--transform vmap 把这次调用当作一个样本，并把每个被映射的实参堆叠两次：如果实参已经是一批，请加"
                  "上 --batched，直接在所写的实参上映射（与 jax.vmap(f, in_axes) 作用于 *args 相同）"),
    "cell_line": (" (cell line {line}: {text})", "（单元格第 {line} 行：{text}）"),
    "tb_hidden": ("({n} frames inside JAX not shown)", "（JAX 内部的 {n} 个栈帧未显示）"),
    "stmt_Assign": ("an assignment of something that is not a call", "对非调用的赋值"),
    "stmt_AnnAssign": ("an annotated assignment", "带类型注解的赋值"),
    "stmt_AugAssign": ("an augmented assignment", "增量赋值"),
    "stmt_Expr": ("an expression, not a call", "表达式，不是调用"),
    "stmt_FunctionDef": ("a function definition", "函数定义"),
    "stmt_AsyncFunctionDef": ("a function definition", "函数定义"),
    "stmt_ClassDef": ("a class definition", "类定义"),
    "stmt_Import": ("an import", "import 语句"),
    "stmt_ImportFrom": ("an import", "import 语句"),
    "stmt_For": ("a for loop", "for 循环"),
    "stmt_While": ("a while loop", "while 循环"),
    "stmt_If": ("an if statement", "if 语句"),
    "stmt_With": ("a with block", "with 块"),
    "stmt_Try": ("a try block", "try 块"),
    "stmt_Return": ("a return", "return 语句"),
    "stmt_Pass": ("pass", "pass 语句"),
    "stmt_Delete": ("a del", "del 语句"),
    "stmt_Assert": ("an assert", "assert 语句"),
    "stmt_other": ("{kind} statement", "{kind} 语句"),
}
