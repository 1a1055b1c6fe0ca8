"""The magic (magic.py): notes on a transformed program, %jaxpr_config, hints for traced values used as
Python values, and usage errors that say what to type instead.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # a transformed program's title (words.program_title): what was transformed (transform._passed_note), how its
    # inputs were made (transform.INPUTS_NOTE)
    "note_passed_jit": ("the jitted function as passed, transformed whole (its jit equations kept)",
                        "变换的是所传入的 jit 函数本身（保留其 jit 方程）"),
    "note_passed_jit_inside": ("`{fn}` as passed, transformed whole (the jit `{jit}` inside it kept)",
                               "变换的是所传入的 `{fn}` 本身（保留其中的 jit `{jit}`）"),
    "note_vmap": ("a batch of 2, each mapped argument stacked twice along its axis",
                  "批大小为 2，每个被映射的实参沿其轴堆叠两次"),
    "note_batched": ("a batch of {n}, the arguments as written", "批大小为 {n}，实参即所写的值"),
    "note_jvp": ("inputs are the primals, then tangents of ones", "输入依次为原值和全 1 的切向量"),
    "note_linearize": ("the linear map, applied to tangents of ones", "线性映射，作用于全 1 的切向量"),
    "note_vjp": ("the pullback, applied to a cotangent of ones", "拉回函数，作用于全 1 的余切向量"),
    "note_transpose": ("the transposed linear map, applied to a cotangent of ones",
                       "转置后的线性映射，作用于全 1 的余切向量"),
    # %jaxpr_config
    "config_lang": ("language: {value} ({origin})", "语言：{value}（{origin}）"),
    "config_graph_png": ("graph pictures for LaTeX/PDF: {value} ({origin})",
                         "数据流图附带 PNG（用于 LaTeX/PDF）：{value}（{origin}）"),
    "setting_env": ("{env}={value} is not one of {choices}; set it to one of those or unset it",
                    "{env}={value} 不是以下之一：{choices}；请设为其中之一，或取消设置"),
    "setting_unknown": ("unknown value {name} (must be one of {choices})",
                        "未知的值 {name}（必须是以下之一：{choices}）"),
    "lang_unknown": ("unknown language {name} (must be one of {langs})", "未知语言 {name}（必须是以下之一：{langs}）"),
    "lang_env": ("{env}={value} is not a language jaxprlens speaks (must be one of {langs}); set it to one of those "
                 "or unset it",
                 "{env}={value} 不是 jaxprlens 支持的语言（必须是以下之一：{langs}）；请设为其中之一，或取消设置"),
    "origin_cell": ("this cell's --lang", "本单元格的 --lang"),
    "origin_config": ("set by %jaxpr_config", "由 %jaxpr_config 设置"),
    "origin_env": ("from ${env}", "来自 ${env}"),
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
    "opt_quote": ("the options `{opts}` open a quote that is never closed; close it, or remove it",
                  "选项 `{opts}` 中的引号没有闭合；请补上它，或删去它"),
    # argparse's complaints about one option's value, said again (magic._option_error)
    "marimo_note": ("*In marimo:* marimo has no cell magics, so each `%%jaxpr OPTIONS` cell of this lecture is "
                    "written with its last call as `jaxprlens.show(fn, *args, option=value)`: `%%jaxpr --graph` over "
                    "`f(x)` is `jaxprlens.show(f, x, graph=True)`.",
                    "*在 marimo 中：* marimo 没有单元格魔法，因此本讲中每个 `%%jaxpr 选项` 单元格的最后一个调用都写成 "
                    "`jaxprlens.show(fn, *args, 选项=值)`：对 `f(x)` 使用 `%%jaxpr --graph` 即 "
                    "`jaxprlens.show(f, x, graph=True)`。"),
    "show_unknown": ("jaxprlens.show() has no option {given}; its options: {names}",
                     "jaxprlens.show() 没有选项 {given}；可用的选项：{names}"),
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
    "opt_valid": ("valid options: {options}  (see {magic} --help)", "可用的选项：{options}（{magic} --help 查看帮助）"),
    "give_call": ("give a call to trace, e.g. `%jaxpr f(x, y)`, or use `%%jaxpr` on a cell whose last line is the call",
                  "请给出要 trace 的调用，例如 `%jaxpr f(x, y)`，或对最后一行是该调用的单元格使用 `%%jaxpr`"),
    # an option given without the option or view it works with (views/options.py: Spec.needs)
    "option_needs": ("{given} only work with {needs}, e.g. `%%jaxpr {example}`",
                     "{given} 只能与 {needs} 一起使用，例如 `%%jaxpr {example}`",
                     "{given} only works with {needs}, e.g. `%%jaxpr {example}`"),
    "or": (" or ", " 或 "),
    "compare_alone": ("--compare shows the original and the transformed program side by side, with only --lower or "
                      "--compiled below: drop {given} or --compare",
                      "--compare 并排显示原程序和变换后的程序，下面只能再加 --lower 或 --compiled：请去掉 {given} 或 "
                      "--compare"),
    "cell_syntax": ("syntax error in the cell, line {line}: {msg}\n    {text}\nfix that line and run the cell again",
                    "单元格第 {line} 行有语法错误：{msg}\n    {text}\n请改正这一行后再运行单元格"),
    "cell_await": ("line {line} awaits at the top level (`{text}`): %%jaxpr runs the cell as plain code and traces "
                   "its last call, so it cannot await; run the await in a cell before this one (`y = await g(x)`), "
                   "then trace a plain call on its result (`f(y)`)",
                   "第 {line} 行在顶层使用了 await（`{text}`）：%%jaxpr 以普通代码运行单元格并 trace 其最后一个调用，"
                   "无法 await；请在此前的单元格中运行 await（`y = await g(x)`），再对其结果 trace 一个普通调用（"
                   "`f(y)`）"),
    "last_generator": ("`{name}` is a generator function (it has `yield`): calling it makes a generator, which JAX "
                       "cannot trace; make it return its values (a tuple or a list, e.g.) instead of yielding them",
                       "`{name}` 是生成器函数（含有 `yield`）：调用它得到一个生成器，JAX 无法 trace；请让它 return 这"
                       "些值（例如一个 tuple 或 list），而不是 yield 它们"),
    "last_async": ("`{name}` is an async function (`async def`): calling it makes a coroutine, which JAX cannot "
                   "trace; define it with a plain `def` (JAX computes without await)",
                   "`{name}` 是异步函数（`async def`）：调用它得到一个协程，JAX 无法 trace；请用普通的 `def` 定义它（"
                   "JAX 的计算不需要 await）"),
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
    # the magics' --help (present/usage.py): its section title, each magic's
    # description (in English, its docstring: tests/test_magic.py holds them equal) and each option's help
    "help.options": ("options", "选项"),
    "help.jaxpr": (
        "Trace a call and show its jaxpr: an annotated table, a graph, a debugger or a timed run.\n"
        "\n"
        "Usage::\n"
        "\n"
        "    %%jaxpr [options]\n"
        "    <ordinary cell code; its LAST line must call a JAX function on arrays: f(x, y) or y = f(x)>\n"
        "\n"
        "    %jaxpr [options] f(x, y)\n"
        "    %jaxpr --devices\n"
        "\n"
        "The cell runs as usual (its definitions stay in the namespace); its last call is traced\n"
        "with ``jax.make_jaxpr`` and the view is returned (stored in the notebook and in ``_``).\n"
        "When the last line assigns the call (``y = f(x)``), the call also runs once and ``y`` gets its\n"
        "result, as the cell would have.\n"
        "\n"
        "``--transform vmap`` shows ``jax.vmap(f, in_axes)`` on a batch made from the call: the call is\n"
        "one example, and each mapped argument (``--in-axes``, default 0) is stacked twice along its axis.\n"
        "With ``--batched`` the arguments as written are the batch: ``f(xs)`` shows\n"
        "``jax.vmap(f, in_axes)(xs)``.\n"
        "\n"
        "Example::\n"
        "\n"
        "    %load_ext jaxprlens\n"
        "\n"
        "    %%jaxpr --lang en\n"
        "    import jax.numpy as jnp\n"
        "    def func1(first, second):\n"
        "        temp = first + jnp.sin(second) * 3.\n"
        "        return jnp.sum(temp)\n"
        "    func1(jnp.zeros(8), jnp.ones(8))",
        "trace 一次调用并显示它的 jaxpr：带注释的表格、数据流图、调试器或计时运行。\n"
        "\n"
        "用法：\n"
        "\n"
        "    %%jaxpr [选项]\n"
        "    <普通的单元格代码；最后一行必须用数组调用一个 JAX 函数：f(x, y) 或 y = f(x)>\n"
        "\n"
        "    %jaxpr [选项] f(x, y)\n"
        "    %jaxpr --devices\n"
        "\n"
        "单元格照常运行（其中的定义留在命名空间里）；它的最后一个调用用 ``jax.make_jaxpr``\n"
        "trace，返回视图（存入笔记本，也存入 ``_``）。最后一行把调用赋给变量时（``y = f(x)``），\n"
        "这个调用也会运行一次，``y`` 得到它的结果，与单元格本身运行时一样。\n"
        "\n"
        "``--transform vmap`` 在由这次调用构造的一批数据上显示 ``jax.vmap(f, in_axes)``：\n"
        "这次调用是一个样本，每个被映射的实参（``--in-axes``，默认 0）沿其轴堆叠两次。\n"
        "加上 ``--batched`` 时，所写的实参就是这一批：``f(xs)`` 显示的是\n"
        "``jax.vmap(f, in_axes)`` 作用于 ``xs``。\n"
        "\n"
        "示例：\n"
        "\n"
        "    %load_ext jaxprlens\n"
        "\n"
        "    %%jaxpr --lang zh\n"
        "    import jax.numpy as jnp\n"
        "    def func1(first, second):\n"
        "        temp = first + jnp.sin(second) * 3.\n"
        "        return jnp.sum(temp)\n"
        "    func1(jnp.zeros(8), jnp.ones(8))"),
    "help.jaxpr.help": ("show this help in the cell's language (--lang, else %jaxpr_config --lang) and stop",
                        "用本单元格的语言（--lang，否则 %jaxpr_config --lang）显示本帮助，然后停止"),
    "help.jaxpr.text": ("show the jaxpr as JAX prints it", "按 JAX 打印的样子显示 jaxpr"),
    "help.jaxpr.table": ("show the annotated table (the default)", "显示带注释的表格（默认）"),
    "help.jaxpr.graph": ("show the dataflow graph (Graphviz SVG)", "显示数据流图（Graphviz SVG）"),
    "help.jaxpr.debug": ("open the step-by-step debugger widget", "打开逐个方程单步执行的调试器"),
    "help.jaxpr.run": ("run the program compiled on the device, with timings", "在设备上运行编译后的程序，并计时"),
    "help.jaxpr.profile": ("time each top-level equation on the device (with --fusion: each compiled kernel, by the "
                           "profiler)",
                           "在设备上为每个顶层方程计时（与 --fusion 一起：由 profiler 为每个编译后的计算内核计时）"),
    "help.jaxpr.cost": ("add the FLOPs/bytes cost column to the table; with --graph, colour each node by its share of "
                        "the estimated FLOPs (--cost bytes: of the bytes moved)",
                        "在表格中加上 FLOPs/字节数的开销列；与 --graph 一起时，按每个节点在估算 FLOPs 中的份额着色（"
                        "--cost bytes：按搬运字节数中的份额）"),
    "help.jaxpr.devices": ("list the devices JAX can use and stop", "列出 JAX 可以使用的设备，然后停止"),
    "help.jaxpr.device": ("device to run on: cpu, gpu, gpu:1, tpu:0", "在哪个设备上运行：cpu、gpu、gpu:1、tpu:0"),
    "help.jaxpr.repeat": ("timed repeats for --run/--profile (default {default:g})",
                          "--run/--profile 计时重复的次数（默认 {default:g}）"),
    "help.jaxpr.budget": ("seconds --run/--profile may spend timing (default {default:g}); they stop early past it "
                          "and say so",
                          "--run/--profile 用于计时的秒数（默认 {default:g}）；超过时提前停止，并说明这一点"),
    "help.jaxpr.static_argnums": ("positions of static arguments, e.g. 0,1", "静态实参的位置，例如 0,1"),
    "help.jaxpr.outer": ("a call that is one jit equation (a jitted step): show that equation, not its body",
                         "调用是一个 jit 方程时（被 jit 的一步）：显示这个方程本身，而不是它的函数体"),
    "help.jaxpr.lang": ("language of this cell's views: en or zh (default: %jaxpr_config --lang, else "
                        "$JAXPRLENS_LANG, else en)",
                        "本单元格视图的语言：en 或 zh（默认：%jaxpr_config --lang，否则 $JAXPRLENS_LANG，否则 en）"),
    "help.jaxpr.depth": ("graph: open inlined calls (and sub-jaxprs) up to this many levels",
                         "数据流图：把内联的调用（和子 jaxpr）展开到这么多层"),
    "help.jaxpr.max_nodes": ("graph: draw about this many nodes at most (default {default:g}); a bigger program is "
                             "drawn by the Python calls tracing inlined, a bigger sub-jaxpr folded",
                             "数据流图：最多画出大约这么多个节点（默认 {default:g}）；更大的程序按 trace 时内联的 "
                             "Python 调用画出，更大的子 jaxpr 折叠起来"),
    "help.jaxpr.path": ("graph: show only this nested program or inlined call, e.g. 2/body or model_loss/block.3",
                        "数据流图：只显示这个子 jaxpr 或内联的调用，例如 2/cond 或 model_loss/block.3"),
    "help.jaxpr.transform": ("show the jaxpr of a transformed function: grad, jvp, vjp, vmap, linearize, ... (vmap "
                             "treats the call as one example and stacks each mapped argument twice)",
                             "显示变换后函数的 jaxpr：grad、jvp、vjp、vmap、linearize 等（vmap 把这次调用当作一个样本"
                             "，并把每个被映射的实参堆叠两次）"),
    "help.jaxpr.argnums": ("argnums for --transform, e.g. 0 or 0,1", "--transform 的 argnums，例如 0 或 0,1"),
    "help.jaxpr.in_axes": ("in_axes for --transform vmap, e.g. 0,None", "--transform vmap 的 in_axes，例如 0,None"),
    "help.jaxpr.batched": ("with --transform vmap: the arguments as written are already the batch; map over their "
                           "--in-axes as jax.vmap(f, in_axes)(*args) does",
                           "与 --transform vmap 一起：所写的实参已经是一批；沿它们的 --in-axes 映射（与 jax.vmap(f, "
                           "in_axes) 作用于 *args 相同）"),
    "help.jaxpr.has_aux": ("with --transform grad: the output is (scalar, auxiliary output), as jax.grad(f, "
                           "has_aux=True) takes it",
                           "与 --transform grad 一起：输出是（标量，辅助输出），与 jax.grad(f, has_aux=True) 相同"),
    "help.jaxpr.compare": ("with --transform: original and transformed side by side",
                           "与 --transform 一起：原程序和变换后的程序并排显示"),
    "help.jaxpr.lower": ("show the StableHLO beside the jaxpr", "在 jaxpr 旁边显示 StableHLO"),
    "help.jaxpr.compiled": ("show the optimized HLO after XLA", "显示 XLA 优化后的 HLO"),
    "help.jaxpr.fusion": ("which equations became which compiled kernel (XLA's fusions)",
                          "哪些方程成了哪个编译后的计算内核（XLA 的融合）"),
    "help.jaxpr.memory": ("bytes live along the program, its peak, a backward pass's residuals, beside XLA's "
                          "memory_analysis()",
                          "程序各处存活的字节数、峰值、反向过程的残差，并与 XLA 的 memory_analysis() 对照"),
    "help.jaxpr.sharding": ("where the data lives on the device mesh, and which equation made each collective "
                            "(all-reduce, all-gather, ...)",
                            "数据在设备网格上放在哪里，以及每次集合通信（all-reduce、all-gather 等）由哪个方程产生"),
    "help.jaxpr_config": (
        "Kernel-wide settings of ``%%jaxpr``; with no option, print them and where each comes from.\n"
        "\n"
        "Usage::\n"
        "\n"
        "    %jaxpr_config                  # language: zh (set by %jaxpr_config), and the others\n"
        "    %jaxpr_config --lang zh        # every view in Chinese from now on; a cell's --lang still wins\n"
        "    %jaxpr_config --graph-png off  # graphs without their PNG copy (for LaTeX/PDF): a lighter notebook\n"
        "    %jaxpr_config --reset          # back to $JAXPRLENS_LANG and $JAXPRLENS_GRAPH_PNG, else the defaults\n"
        "\n"
        "The environment variables ``JAXPRLENS_LANG`` (``en`` or ``zh``) and ``JAXPRLENS_GRAPH_PNG`` (``1`` or\n"
        "``0``) set them before any ``%jaxpr_config``.",
        "``%%jaxpr`` 在整个内核中生效的设置；不带选项时，打印这些设置以及每项的来源。\n"
        "\n"
        "用法：\n"
        "\n"
        "    %jaxpr_config                  # 语言：zh（由 %jaxpr_config 设置），以及其余设置\n"
        "    %jaxpr_config --lang zh        # 从现在起每个视图都用中文；单元格的 --lang 仍然优先\n"
        "    %jaxpr_config --graph-png off  # 数据流图不附带 PNG 副本（用于 LaTeX/PDF）：笔记本更轻\n"
        "    %jaxpr_config --reset          # 回到 $JAXPRLENS_LANG 和 $JAXPRLENS_GRAPH_PNG，否则用默认值\n"
        "\n"
        "环境变量 ``JAXPRLENS_LANG``（``en`` 或 ``zh``）和 ``JAXPRLENS_GRAPH_PNG``（``1`` 或 ``0``）在任何\n"
        "``%jaxpr_config`` 之前设定它们。"),
    "help.jaxpr_config.help": ("show this help in the language --lang gives, else the kernel's, and stop",
                               "用 --lang 给出的语言（否则用内核的语言）显示本帮助，然后停止"),
    "help.jaxpr_config.lang": ("language of every view from now on: en or zh", "从现在起每个视图的语言：en 或 zh"),
    "help.jaxpr_config.graph_png": ("on: every graph's output carries its picture as PNG too, which LaTeX and PDF "
                                    "exports show; off: a lighter notebook",
                                    "on：每个数据流图的输出也附带 PNG 图片，供 LaTeX 和 PDF 导出显示；off：笔记本更轻"),
    "help.jaxpr_config.reset": ("forget settings made here ($JAXPRLENS_LANG, $JAXPRLENS_GRAPH_PNG or the defaults "
                                "again)",
                                "忘掉这里做的设置（回到 $JAXPRLENS_LANG、$JAXPRLENS_GRAPH_PNG 或默认值）"),
}
