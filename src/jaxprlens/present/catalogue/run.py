"""--run and --profile (views/compiled/run.py): devices, timings, outputs, time budgets, and why the estimate
and XLA's cost analysis differ.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # runner and cost
    "devices_head": ("devices (name, platform, kind, id):", "设备（名称、平台、类型、编号）："),
    "is_default": ("(default)", "（默认）"),
    "default": ("default", "默认"),
    "device": ("device", "设备"),
    "platform": ("platform", "平台"),
    "kind": ("kind", "类型"),
    "id": ("id", "编号"),
    "device_info": ("{name} (platform {platform}, kind {kind}, id {id})",
                    "{name}（平台 {platform}，类型 {kind}，编号 {id}）"),
    "xla_none": ("XLA cost analysis: not available", "XLA 开销分析：不可用"),
    "xla_cost": ("XLA cost analysis: {items}", "XLA 开销分析：{items}"),
    "transcendentals": ("{n} transcendental", "超越函数 {n} 次"),
    "accessed": ("{bytes} accessed", "访问 {bytes}"),
    "ran_on": ("ran on {device}", "运行于 {device}"),
    "compile_time": ("compile {t}", "编译 {t}"),
    "run_median": ("run median {median} ± {spread}", "运行中位数 {median} ± {spread}"),
    "iqr_note": ("(± half the interquartile range of {n} runs)",
                 "（± 为 {n} 次运行四分位距的一半）",
                 "(± half the interquartile range of {n} run)"),
    "estimate_is": ("estimate: {cost}", "估算：{cost}"),
    "outputs_head": ("outputs:", "输出："),
    "output": ("output", "输出"),
    "stats": ("min {min}, max {max}, mean {mean}", "最小值 {min}，最大值 {max}，均值 {mean}"),
    "nan_inf": ("{n} {what}", "{what} {n} 个"),
    "spread_value": ("{type} across {processes} processes: this process holds the blocks of {here} of its {n} devices "
                     "(jax.experimental.multihost_utils.process_allgather gathers it whole)",
                     "{type} 分布在 {processes} 个进程上：本进程持有其 {n} 个设备中 {here} 个设备的数据块"
                     "（jax.experimental.multihost_utils.process_allgather 可取回完整的值）"),
    "key_value": ("PRNG key ({impl}), key data {data}", "PRNG 密钥（{impl}），密钥数据 {data}"),
    "complex_stats": ("|x| max {max}, real {re}, imag {im}", "|x| 最大值 {max}，实部 {re}，虚部 {im}"),
    "profile_head": ("profile on {device}, each equation compiled and run on its own (median of {n} runs)",
                     "在 {device} 上逐个方程剖析，每个方程单独编译、运行（{n} 次运行的中位数）"),
    "estimate": ("estimate", "估算"),
    "measured_alone": ("measured on its own (% of the sum)", "单独测得（占总和的比例）"),
    "measured_share": ("measured {t} ({pct}% of sum)", "实测 {t}（占总和 {pct}%）"),
    "estimated_total": ("estimated total: {cost}; {intensity}", "估算合计：{cost}；{intensity}"),
    "between_devices": ("{bytes} between devices", "设备间 {bytes}"),
    "per_iteration": ("per iteration {per}; unknown trip count", "每次迭代 {per}；迭代次数未知"),
    "repeated": ("{times}{unit} × ({per}) = {total}", "{times}{unit} ×（{per}）= {total}"),
    "unit_devices": (" devices", " 个设备"),
    "intensity_is": ("{word} {value} FLOP/B", "{word} {value} FLOP/B"),
    "run_repeat": ("repeat must be at least 1, got {repeat}", "repeat 至少为 1，收到的是 {repeat}"),
    "run_too_big": ("running it compiled needs about {need} beside its inputs on {device}, which has {free} free: "
                    "call it on smaller inputs (a slice of the batch, a shorter sequence), or on a device with more "
                    "memory (--device)",
                    "编译后运行它，除输入外还需要约 {need}，而 {device} 只剩 {free} 可用：请用更小的输入（批次的一部"
                    "分、更短的序列）调用它，或换一个内存更大的设备（--device）"),
    "profile_too_big": ("profiling runs each equation on its own, so every value is made whole (the largest, {value}, "
                        "by equation {id}): that needs about {need} beside the inputs on {device}, which has {free} "
                        "free. --run times the program compiled as one, where XLA need not make them; or profile it "
                        "on smaller inputs",
                        "剖析会单独运行每个方程，因此每个值都会完整生成（最大的是方程 {id} 的 {value}）：除输入外需要"
                        "约 {need}，而 {device} 只剩 {free} 可用。--run 对整体编译后的程序计时，XLA 不必生成这些值；"
                        "或用更小的输入剖析它"),
    "run_out_of_memory": ("{device} ran out of memory running it ({detail}): call it on smaller inputs, or on a "
                          "device with more memory (--device)",
                          "{device} 运行它时内存不足（{detail}）：请用更小的输入调用它，或换一个内存更大的设备（"
                          "--device）"),
    "run_budget": ("the time budget must be a positive number of seconds, got {budget}",
                   "时间预算必须是正的秒数，收到的是 {budget}"),
    "no_error": ("no error", "没有错误"),
    "seconds": ("{n} s", "{n} 秒"),
    "budget_stopped": ("stopped early: the time budget of {budget} was spent after {n} of {asked} runs (more with "
                       "--budget S or budget=S)",
                       "提前停止：{budget}的时间预算在 {asked} 次运行中的第 {n} 次后用完（用 --budget S 或 budget=S "
                       "放宽）"),
    "profile_stopped": ("stopped early: the time budget of {budget} was spent; {detail} (more with --budget S or "
                        "budget=S)",
                        "提前停止：{budget}的时间预算已用完；{detail}（用 --budget S 或 budget=S 放宽）"),
    "untimed_rows": ("{n} of {total} equations not timed", "{total} 个方程中有 {n} 个未计时"),
    "fewer_runs": ("{n} timed fewer than {asked} times", "{n} 个方程计时少于 {asked} 次"),
    "whole_fewer_runs": ("the whole program ran {n} of {asked} times", "整个程序运行了 {asked} 次中的 {n} 次"),
    "not_timed": ("not timed (time budget spent)", "未计时（时间预算已用完）"),
    "sum_and_whole": ("sum of the equations run on their own {t}; {whole}", "各方程单独运行之和 {t}；{whole}"),
    "whole_compiled": ("whole program, compiled as one (XLA fuses equations): {timing}",
                       "整个程序编译为一体（XLA 会融合方程）：{timing}"),
    "run_no_args": ("this program has {n} input(s) but {k} recorded argument(s); run a program made by "
                    "trace(fn, *args) (from_jaxpr keeps no arguments)",
                    "这个程序有 {n} 个输入，但记录的实参只有 {k} 个；请运行由 trace(fn, *args) 得到的程序（from_jaxpr "
                    "不保存实参）"),
    "cost_gap": ("why they differ: the estimate adds up each equation as written, every operand read from memory and "
                 "every result written back, a transcendental (sin, exp, ...) counted as one FLOP per element; XLA "
                 "counts the program it compiled, after fusion (intermediate values stay on chip) and simplification, "
                 "transcendentals apart.",
                 "为何不同：估算值把写出的每个方程相加，每个操作数都从内存读取、每个结果都写回内存，超越函数（正弦、"
                 "指数等）每个元素计 1 FLOP；XLA 计的是它编译出的程序：经过融合（中间值留在芯片上）和化简，超越函数单"
                 "独计数。"),
    "cost_gap_calls": (" XLA does not count inside the library calls it hands work to ({calls}): on a GPU, matmuls go "
                       "to cuBLAS and convolutions to cuDNN, so its FLOPs can be far below the estimate.",
                       "XLA 不计入它交给库完成的调用（{calls}）内部的开销：在 GPU 上，矩阵乘法交给 cuBLAS、卷积交给 "
                       "cuDNN，所以它的 FLOP 数可能远低于估算值。"),
}
