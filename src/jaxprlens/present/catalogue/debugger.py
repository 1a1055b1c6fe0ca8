"""The debugger (views/debugger/: debugger.py, state.py, replay.py) and the stepper's words (engine/): moves,
stops, the jax.jit comparison, what-if edits, why a step ran an equation whole, its errors.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # debugger
    "top": ("top", "顶层"),
    "done": ("done", "已完成"),
    "at_eqn": ("eqn {i}", "方程 {i}"),
    "frame_eqn": ("{prim}[eqn {i}]", "{prim}[方程 {i}]"),
    "iteration_n": ("iteration {n}", "第 {n} 次迭代"),
    "history_capped": ("history is capped at {n} moves: the oldest were dropped, so Back cannot reach the start",
                       "历史记录最多保留 {n} 步：最早的已丢弃，所以「后退」回不到起点"),
    "output_of": ("output of {id} ({prim})", "{id}（{prim}）的输出"),
    "name": ("name", "名称"),
    "shape": ("shape", "形状"),
    "dtype": ("dtype", "数据类型"),
    "statistics": ("statistics", "统计"),
    "sparkline": ("sparkline", "走势缩略图"),
    "dbg_stats": ("min {min}  max {max}  mean {mean}  NaN {nan}", "最小值 {min}  最大值 {max}  均值 {mean}  NaN {nan}"),
    "dbg_nan": ("NaN {nan}", "NaN {nan}"),
    "dbg_complex": ("|x| max {max}  real {re}  imag {im}  NaN {nan}",
                    "|x| 最大值 {max}  实部 {re}  虚部 {im}  NaN {nan}"),
    "dbg_bool": ("True {n} of {size}", "{size} 个中 True {n} 个"),
    "dbg_key": ("PRNG key ({impl}), key data {data}", "PRNG 密钥（{impl}），密钥数据 {data}"),
    "dbg_finished": ("jaxprlens debugger: finished", "jaxprlens 调试器：已完成"),
    "dbg_at": ("jaxprlens debugger at {path}", "jaxprlens 调试器位于 {path}"),
    "dbg_next": ("next: {line}", "下一步：{line}"),
    "dbg_last": ("last: {id} ({prim})", "上一步：{id}（{prim}）"),
    "dbg_more_results": ("+{n} more results (the value panel lists every one)", "另有 {n} 个结果（值面板列出全部）",
                         "+{n} more result (the value panel lists every one)"),
    "dbg_stopped": ("stopped: {reason}", "已停止：{reason}"),
    "dbg_capped": ("history capped at {n} moves", "历史记录上限 {n} 步"),
    "dbg_error": ("error: {error}", "错误：{error}"),
    "dbg_running": ("running… {n} steps so far; interrupt the kernel (■) to stop here",
                    "运行中……已执行 {n} 步；中断内核（■）可停在此处"),
    "dbg_interrupted": ("interrupted (the kernel was interrupted): stopped at {where}; Back undoes the run so far",
                        "已中断（内核被中断）：停在 {where}；“后退”可撤销已运行的部分"),
    "stop_breakpoint": ("breakpoint at eqn {id} ({prim})", "在方程 {id}（{prim}）处遇到断点"),
    "stop_nan": ("NaN in the outputs of eqn {id} ({prim})", "方程 {id}（{prim}）的输出中有 NaN"),
    "btn_step": ("Step", "单步"),
    "btn_into": ("Step into", "进入"),
    "btn_out": ("Step out", "跳出"),
    "btn_back": ("Back", "后退"),
    "btn_continue": ("Continue", "继续"),
    "btn_reset": ("Reset", "重置"),
    "tip_step": ("run the current equation (a loop or call at once) [key n]",
                 "运行当前方程，循环或调用整体运行（快捷键 n）"),
    "tip_into": ("enter the branch taken, the loop's cond/body or the call [key i]",
                 "进入所走的分支、循环的条件或循环体、被调用的子 jaxpr（快捷键 i）"),
    "tip_out": ("finish this sub-jaxpr and return to its caller [key o]",
                "运行完这个子 jaxpr 并回到调用处（快捷键 o）"),
    "tip_back": ("undo the last move [key b]", "撤销上一步（快捷键 b）"),
    "tip_continue": ("run to the end or the next breakpoint [key c]", "运行到结束或下一个断点（快捷键 c）"),
    "tip_reset": ("back to the first equation [key r]", "回到第一个方程（快捷键 r）"),
    # the frame folded by the program's Python calls
    "btn_call": ("Over call", "跳过调用"),
    "tip_call": ("run the Python call holding the current equation (the last one the crumbs name) to its end, "
                 "and stop at the equation after it [key f]",
                 "把当前方程所在的函数调用（路径中最后一个）运行到结束，停在它之后的方程（快捷键 f）"),
    "position": ("position", "位置"),
    "tip_position": ("top-level equation (the end is the last value)", "顶层方程（最右端为结束）"),
    "breakpoints": ("breakpoints", "断点"),
    "on_primitive": ("on primitive", "按原语"),
    "primitive_example": ("e.g. mul, dot_general", "例如 mul dot_general"),
    "break_here": ("Break here", "在此中断"),
    "tip_break_here": ("toggle a breakpoint on the highlighted row", "在高亮的行上设置或取消断点"),
    "stop_on_nan": ("stop on NaN", "遇到 NaN 时停止"),
    "keys_title": ("keyboard shortcuts", "键盘快捷键"),
    "keys_hint": ("keys (pointer over the debugger): n step · i into · o out · f over call · b back · c continue · "
                  "r reset",
                  "快捷键（鼠标在调试器上时）：n 单步 · i 进入 · o 跳出 · f 跳过调用 · b 后退 · c 继续 · r 重置"),
    "dbg_inf": ("Inf {n}", "Inf {n}"),
    "stop_condition": ("{cond} in the outputs of eqn {id} ({prim})", "方程 {id}（{prim}）的输出满足 {cond}"),
    "dbg_snapshot": ("debugger snapshot at the first equation (scripts do not run here; the recorded replay needs "
                     "them)",
                     "调试器在第一个方程处的快照（此处不运行脚本，录制回放需要脚本）"),
    "dbg_snapshot_how": ("run the cell, or trust the notebook (JupyterLab, Notebook 7: command palette › Trust "
                         "Notebook; nbclassic: File › Trust Notebook; VS Code: trust the folder), to step through it",
                         "运行此单元格，或信任此笔记本（JupyterLab、Notebook 7：命令面板 › 信任笔记本；nbclassic：文"
                         "件 › 信任笔记本；VS Code：信任该文件夹），即可逐步执行"),
    "stop_when": ("stop when a value has", "当某个值满足时停止："),
    "cond_example": ("max > 1e3, any Inf", "例如 max > 1e3 或 any Inf"),
    "mode_live": ("live", "实时"),
    "mode_replay": ("recorded replay", "录制回放"),
    "tip_live": ("stepping in the kernel with real values", "在内核中用真实值单步执行"),
    "tip_replay": ("a run recorded when the cell ran, stepped without a kernel",
                   "单元格运行时录制的一次运行，无需内核即可单步查看"),
    "printed": ("printed output", "打印输出"),
    "tip_gutter": ("click to set or clear a breakpoint on this row", "点击在此行设置或取消断点"),
    "histogram": ("histogram of the finite values", "有限值的直方图"),
    "cap_steps": ("the cap of {n} steps", "{n} 步的上限"),
    "cap_bytes": ("the cap of {kb} kB", "{kb} kB 的上限"),
    "cap_memory": ("stepping it holds about {need} at once (its values live together, and copies of the largest to "
                   "summarise it) where this kernel has {free} free: call it on smaller inputs (a slice of the batch, "
                   "a shorter sequence) to record its replay",
                   "单步执行它会同时占用约 {need}（同时存活的值，以及为汇总最大的值所做的副本），而此内核只剩 {free} "
                   "可用：请用更小的输入（批次的一部分、更短的序列）调用它，以录制回放"),
    "cap_host": ("eqn {id} calls host functions ({names}): the recording stops before it, so that showing the "
                 "debugger calls none; the live debugger steps on",
                 "方程 {id} 调用宿主函数（{names}）：录制在它之前停止，这样显示调试器不会调用它们；实时调试器可继续单"
                 "步"),
    "replay_capped": ("recording stopped after {n} steps ({why}): the replay ends there",
                      "录制在 {n} 步后停止（{why}），回放到此为止",
                      "recording stopped after {n} step ({why}): the replay ends there"),
    "stop_out_top": ("Step out at the top level: there is no caller to return to, so it ran on to the end, like "
                     "Continue",
                     "在顶层跳出：没有可以返回的调用处，所以像“继续”一样运行到了结尾"),
    "stop_no_stop": ("ran to the end: no breakpoint or condition fired ({what})",
                     "已运行到结尾：没有断点或条件被触发（{what}）"),
    "no_stop_bps": ("{n} breakpoints", "{n} 个断点", "{n} breakpoint"),
    "jit_close": ("Compared with jax.jit: {n} of {total} values differ in the last digits, by at most {abs} ({rel} of "
                  "the output's largest magnitude, in {path}), within the tolerance (rtol {rtol}, atol {atol}). "
                  "Expected: {why}",
                  "与 jax.jit 比较：{total} 个值中有 {n} 个在末几位不同，最大相差 {abs}（为输出最大绝对值的 {rel}，在"
                  " {path}），在容差之内（rtol {rtol}，atol {atol}）。这是预期的：{why}"),
    "jit_differ": ("Compared with jax.jit: {beyond} of {total} values differ beyond the tolerance (rtol {rtol}, atol "
                   "{atol}; set it with jit_rtol= / jit_atol=), by up to {abs} ({rel} of the output's largest "
                   "magnitude, in {path}); {n} differ in all. Rounding differences are expected: {why} They grow "
                   "where a program divides by a value near zero, e.g. Adam's update of a parameter whose gradient is "
                   "~0.{after}",
                   "与 jax.jit 比较：{total} 个值中有 {beyond} 个的差异超出容差（rtol {rtol}，atol {atol}；可用 "
                   "jit_rtol= / jit_atol= 设置），最大相差 {abs}（为输出最大绝对值的 {rel}，在 {path}）；共有 {n} 个"
                   "值不同。舍入差异是预期的：{why}在程序除以接近零的值时，差异会被放大，例如梯度约为 0 的参数的 "
                   "Adam 更新；{after}"),
    "jit_differ_host": ("Compared with jax.jit, which called the program's host functions ({names}) once more: "
                        "{beyond} of {total} values differ beyond the tolerance (rtol {rtol}, atol {atol}), by up to "
                        "{abs} ({rel} of the output's largest magnitude, in {path}). Values that depend on what the "
                        "host functions keep (a counter, a file, a random generator) differ on a second run: that is "
                        "expected, not a stepper bug.",
                        "与 jax.jit 比较，而 jax.jit 又调用了一次程序的宿主函数（{names}）：{total} 个值中有 "
                        "{beyond} 个的差异超出容差（rtol {rtol}，atol {atol}），最大相差 {abs}（为输出最大绝对值的 "
                        "{rel}，在 {path}）。依赖宿主函数所保存状态（计数器、文件、随机数生成器）的值在第二次运行时会"
                        "不同：这是预期的，不是单步执行器的缺陷。"),
    "jit_report": (" If many values are far off, it may be a stepper bug: please report the program.",
                   "如果许多值相差很远，可能是单步执行器的缺陷：请报告这个程序。"),
    "jit_host": ("Not compared with jax.jit: the program calls host functions ({names}), and compiling it to compare "
                 "would call them once more (a counter, a file or a log would see a second run). To compare anyway: "
                 "stepper.jit_check(host=True).",
                 "未与 jax.jit 比较：程序调用了宿主函数（{names}），为比较而编译运行会再调用它们一次（计数器、文件或"
                 "日志会看到第二次运行）。如仍要比较：stepper.jit_check(host=True)。"),
    "jit_equal_host": ("Compared with jax.jit: the outputs are equal.", "与 jax.jit 比较：输出相同。"),
    "jit_host_ran": (" jax.jit called the program's host functions ({names}) once more: values that depend on what "
                     "they keep (a counter, a file, a random generator) can differ, and that is no stepper bug.",
                     "jax.jit 又调用了一次程序的宿主函数（{names}）：依赖它们所保存状态（计数器、文件、随机数生成器）"
                     "的值可能不同，这不是单步执行器的缺陷。"),
    "jit_why": ("jax.jit compiles the whole program, and XLA may reorder (reassociate) and fuse floating-point "
                "operations, where the stepper rounds after every equation.",
                "jax.jit 编译整个程序，XLA 可能重新结合（reassociate）并融合浮点运算，而单步执行器在每个方程之后都舍"
                "入。"),
    "jit_why_low": (" The program computes in {low}: compiled code may keep extra precision between operations and "
                    "elide a cast round trip such as float32 → {low} → float32 (XLA does so on GPUs), where each "
                    "eager step rounds to {low}.",
                    "程序用 {low} 计算：编译后的代码可能在运算之间保留更高的精度，并省去 float32 → {low} → float32 这"
                    "样的往返转换（XLA 在 GPU 上会这样做），而每个逐步执行的方程都舍入到 {low}。"),
    "jit_failed": ("jax.jit raised where the stepper ran: {detail}", "单步执行器运行成功，而 jax.jit 报错：{detail}"),
    "jit_mismatch": ("The stepped outputs do not match jax.jit's: {detail}",
                     "逐步执行的输出与 jax.jit 的不一致：{detail}"),
    "jit_skipped": ("Not compared with jax.jit: the program has {n} equations, past the budget of {budget} (compiling "
                    "it would hold up the kernel). To compare anyway: the debugger's compare button, or "
                    "stepper.jit_check(budget=None) from Python.",
                    "未与 jax.jit 比较：程序有 {n} 个方程，超过预算 {budget}（编译它会长时间占用内核）。如仍要比较："
                    "点击调试器的比较按钮，或在 Python 中调用 stepper.jit_check(budget=None)。"),
    "jit_edited": ("Not compared with jax.jit: an edit (set_value) changed this run.",
                   "未与 jax.jit 比较：一次编辑（set_value）改变了这次运行。"),
    "edit_note": ("{n} edits in effect ({names}); marked values were changed by an edit",
                  "{n} 处编辑生效（{names}）；标记的值受编辑影响",
                  "{n} edit in effect ({names}); marked values were changed by an edit"),
    "changed_by_edit": ("changed by an edit", "受编辑影响"),
    "cap_kinds": ("the cap of {n} kinds of operation (XLA compiles each new kind the first time it runs; the live "
                  "debugger steps on)",
                  "{n} 种运算的上限（每种新运算第一次运行时 XLA 都要编译；实时调试器可继续单步）"),
    "edit_nan": ("NaN", "NaN"),
    "edit_zero": ("0", "0"),
    "edit_scale": ("×2", "×2"),
    "edit_eps": ("+ε", "+ε"),
    "edit_set": ("= value", "= 数值"),
    "btn_jit": ("compare now", "现在比较"),
    "tip_jit": ("compile the whole program with jax.jit and compare (this holds up the kernel while XLA compiles)",
                "用 jax.jit 编译整个程序并比较（XLA 编译期间内核会被占用）"),
    "tip_edit": ("what if: replace this value (NaN, zero, doubled, plus a small ε, or a number you type) and step on "
                 "with it; Back undoes it",
                 "假如：替换这个值（NaN、零、加倍、加一个小 ε，或输入的数），然后继续单步；后退可撤销"),
    "edit_needs_kernel": ("editing a value needs the kernel (this is a recorded replay)",
                          "编辑值需要内核（这是录制的回放）"),
    "bad_toggle": ("no equation {eqn} in this program ({n} equations; ids look like {example})",
                   "这个程序中没有方程 {eqn}（共 {n} 个方程；编号形如 {example}）"),
    # past this size the debugger does not offer "compare now" (views/debugger/state.py COMPARE_MAX)
    "jit_too_large": ("Not compared with jax.jit: the program has {n} equations, and XLA's compile time grows faster "
                      "than the program (minutes past {max} equations, holding up the kernel). To compare anyway, "
                      "outside the debugger: stepper.jit_check(budget=None).",
                      "未与 jax.jit 比较：程序有 {n} 个方程，而 XLA 的编译时间增长得比程序规模更快（超过 {max} 个方程"
                      "时需要数分钟，其间内核被占用）。如仍要比较，请在调试器之外调用 stepper.jit_check(budget=None)"
                      "。"),
    # Stepper.compare_with_jit's JitDiff (present.words.jit_diff_text)
    "jitdiff": ("{what}{more}: the stepper runs each equation eagerly, jax.jit compiles the whole program (fusion, "
                "XLA's numerics, dead code removed)",
                "{what}{more}：单步执行器逐个立即执行方程，而 jax.jit 编译整个程序（融合、XLA 的数值实现、删除无用代"
                "码）"),
    "jitdiff_elements": ("{path}: {n} of {size} elements differ from jax.jit's{by}",
                         "{path}：{size} 个元素中有 {n} 个与 jax.jit 的结果不同{by}"),
    "jitdiff_value": ("{path}: the value differs from jax.jit's{by}", "{path}：值与 jax.jit 的结果不同{by}"),
    "jitdiff_by": (", by up to {gap}", "，最大相差 {gap}"),
    "jitdiff_more": (" (and {n} more outputs)", "（另有 {n} 个输出也不同）", " (and {n} more output)"),
    "jitdiff_type": ("{path} is {got} stepped but {want} compiled", "{path} 逐步执行得到 {got}，编译后却是 {want}"),
    "jitdiff_count": ("jax.jit gives {want} outputs, the stepper {got}",
                      "jax.jit 给出 {want} 个输出，单步执行器给出 {got} 个"),
    "jitdiff_host": ("not compared with jax.jit: the program calls host functions ({names}), and jax.jit would call "
                     "them once more; to compare anyway: stepper.compare_with_jit(host=True)",
                     "未与 jax.jit 比较：程序调用了宿主函数（{names}），jax.jit 会再调用它们一次；如仍要比较："
                     "stepper.compare_with_jit(host=True)"),
    "jitdiff_failed": ("jax.jit raised {error} where the stepper ran: {detail}",
                       "单步执行器运行成功，而 jax.jit 报错 {error}：{detail}"),
    # why a step into ran an equation whole (engine.frames.Over, present.words.over_text)
    "over_devices": ("{prim} bodies run as one step: each device runs the body on its own slice, and the collectives "
                     "in it (psum, ppermute, all_gather) need every device's slice at the same moment, so the stepper "
                     "runs the whole {prim} at once, on every device, as jax.jit does (eqn {id} ran whole)",
                     "{prim} 的函数体作为一步运行：每个设备在自己的那一片上运行函数体，其中的集合通信（psum、ppermute"
                     "、all_gather）需要所有设备的那一片同时就绪，所以单步执行器在所有设备上一次运行整个 {prim}，与 "
                     "jax.jit 相同（方程 {id} 整体运行）"),
    "over_shards": ("{prim} bodies run as one step: each device runs the body on its own block, and the collectives "
                    "in it (psum, ppermute, all_gather) need every device's block at the same moment, so the stepper "
                    "runs the whole {prim} at once, on every device, as jax.jit does (eqn {id} ran whole; --sharding "
                    "shows which equations of the body talk)",
                    "{prim} 的函数体作为一步运行：每个设备在自己的数据块上运行函数体，其中的集合通信（psum、ppermute"
                    "、all_gather）需要所有设备的数据块同时就绪，所以单步执行器在所有设备上一次运行整个 {prim}，与 "
                    "jax.jit 相同（方程 {id} 整体运行；--sharding 显示函数体中哪些方程在设备之间通信）"),
    "over_combiner": ("{prim}'s {what} runs on single elements inside {prim}: eqn {id} ran as one step",
                      "{prim} 的{what}在 {prim} 内部逐个元素运行：方程 {id} 作为一步运行"),
    "over_kernel": ("{prim} kernels run as one step: the kernel runs once per grid point on refs to blocks of the "
                    "operands and results, which the stepper does not step through (eqn {id} ran whole{grid})",
                    "{prim} 计算内核作为一步运行：计算内核在每个网格点上对操作数和结果的块的引用运行一次，单步执行器"
                    "不逐步进入（方程 {id} 整体运行{grid}）"),
    "over_kernel_grid": (", {n} grid points", "，共 {n} 个网格点"),
    "over_refs": ("{prim} bodies run as one step: their binders are refs holding the operands, which the stepper does "
                  "not step through (eqn {id} ran whole)",
                  "{prim} 的函数体作为一步运行：其绑定变量是持有操作数的引用，单步执行器不逐步进入（方程 {id} 整体运"
                  "行）"),
    "and": (" and ", "和"),
    "value_not_run": ("{name} is computed by eqn {eqn} ({primitive}), which has not run yet (at eqn {pc}): step past "
                      "it first, then set it",
                      "{name} 由方程 {eqn}（{primitive}）计算，它还没有运行（当前在方程 {pc}）：请先单步越过它，再设"
                      "置该值"),
    "value_not_run_in": ("{name} is computed by eqn {eqn} ({primitive}), which has not run yet (at eqn {pc} of "
                         "{path}): step past it first, then set it",
                         "{name} 由方程 {eqn}（{primitive}）计算，它还没有运行（当前在 {path} 的方程 {pc}）：请先单步"
                         "越过它，再设置该值"),
    "value_undefined": ("no value {name} is defined at eqn {pc} (the values defined here: {shown})",
                        "在方程 {pc} 处没有定义值 {name}（这里已定义的值：{shown}）"),
    "value_undefined_in": ("no value {name} is defined at eqn {pc} of {path} (the values defined here: {shown})",
                           "在 {path} 的方程 {pc} 处没有定义值 {name}（这里已定义的值：{shown}）"),
    "set_not_array": ("{var} is not an array value: only arrays can be set", "{var} 不是数组值：只能设置数组"),
    "set_wrong_type": ("{name} is {type}, but the value given is {given}: pass a value of the same shape and dtype, "
                       "e.g. jnp.asarray(value, jnp.{dtype})",
                       "{name} 的类型是 {type}，但给出的值是 {given}：请给出形状和 dtype 都相同的值，例如 "
                       "jnp.asarray(value, jnp.{dtype})"),
    "set_wrong_shape": ("{name} is {type}, but the value given has shape {given}: pass a value of shape {shape}",
                        "{name} 的类型是 {type}，但给出的值形状为 {given}：请给出形状为 {shape} 的值"),
    "set_wrong_dtype": ("{name} is {type}; {value} is not a {dtype} value",
                        "{name} 的类型是 {type}；{value} 不是 {dtype} 值"),
    "edit_unknown": ("unknown edit {op} (must be one of {ops})", "未知的修改 {op}（必须是以下之一：{ops}）"),
    "edit_nan_float": ("{name} is {type}: only a float value can be NaN",
                       "{name} 的类型是 {type}：只有浮点值可以设为 NaN"),
    "edit_set_empty": ("type a number to set the value to", "请输入要设置的数值"),
    "replay_edit_unreached": ("the edited run never reached where these edits were made: {names}",
                              "修改后的运行没有到达这些修改所在的位置：{names}"),
    "edit_not_number": ("{op} of {name} needs a number; {value} is not one (write e.g. 2, 0.5, 1e-3 or nan)",
                        "对 {name} 的 {op} 需要一个数；{value} 不是数（请写成例如 2、0.5、1e-3 或 nan）"),
    "bp_needs": ("a breakpoint needs eqn='2/body/1', primitive='mul' or line=3",
                 "断点需要 eqn（方程编号，如 '2/1'）、primitive='mul' 或 line=3"),
    "bp_no_eqn": ("no equation {eqn} (the program has {n} equations, ids like {ids})",
                  "没有方程 {eqn}（程序共有 {n} 个方程，编号形如 {ids}）"),
    "condition_unknown": ("unknown condition {text} (must be one of 'any NaN', 'any Inf', 'max > 1e3', 'min < -1', "
                          "'abs max >= 10')",
                          "未知条件 {text}（必须是以下之一：'any NaN'、'any Inf'、'max > 1e3'、'min < -1'、'abs max "
                          ">= 10'）"),
    "dbg_unknown_action": ("unknown action {name} (must be one of {names})",
                           "未知操作 {name}（必须是以下之一：{names}）"),
    "step_inputs": ("the program has {n} inputs ({names}), but {k} array value(s) were given",
                    "程序有 {n} 个输入（{names}），但给出了 {k} 个数组值"),
    "step_input_shape": ("input {name} is declared {type}, but the value given has shape {shape}; pass a value of the "
                         "traced shape or trace again",
                         "输入 {name} 声明为 {type}，但给出的值形状为 {shape}；请给出 trace 时形状的值，或重新 trace"),
    "step_leaked_tracer": ("constant {var} is a leaked tracer (a traced value kept from another trace, e.g. in a "
                           "global): it has no value to step with; compute it inside the function or pass it as an "
                           "argument",
                           "常量 {var} 是泄漏的 tracer（从另一次 trace 中保留下来的被 trace 的值，例如存在全局变量里"
                           "）：没有可用于单步执行的值；请在函数内部计算它，或把它作为实参传入"),
    "step_out_count": ("eqn {id} ({prim}) gave {n} value(s) where the jaxpr declares {k} ({names})",
                       "方程 {id}（{prim}）给出了 {n} 个值，而 jaxpr 声明了 {k} 个（{names}）"),
    "step_out_type": ("eqn {id} ({prim}) would write {name} as {got}, but the jaxpr declares {want}; the stepper "
                      "stops here rather than show a wrong value (please report this program)",
                      "方程 {id}（{prim}）会把 {name} 写成 {got}，但 jaxpr 声明的是 {want}；单步执行器在此停下，"
                      "而不显示错误的值（请报告这个程序）"),
}
