"""The compiled program (views/compiled/: lower.py, fusion.py, memory.py) and the diff of two programs (diff.py).

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # lowering and diff
    "lower_head": ("jaxpr → StableHLO lines:", "jaxpr → StableHLO 行："),
    "stablehlo_head": ("StableHLO:", "StableHLO："),
    "optimized_hlo": ("optimized HLO (after XLA)", "优化后的 HLO（经 XLA 处理）"),
    "from_eqn": ("from equation {ids}", "来自方程 {ids}"),
    # fusion map (views/compiled/fusion.py) and memory along the program (views/compiled/memory.py)
    "n_kernels": ("{n} kernels", "{n} 个计算内核", "{n} kernel"),
    "fusion_head": ("fusion map: the kernels XLA compiled the program into ({device})",
                    "融合图：XLA 把程序编译成的计算内核（{device}）"),
    "fusion_summary": ("{eqns} → {kernels}; intermediate bytes not written: {saved}",
                       "{eqns} → {kernels}；未写入内存的中间值：{saved}"),
    "fusion_col_kernel": ("kernel", "计算内核"),
    "fusion_col_kind": ("kind", "类型"),
    "fusion_col_eqns": ("equations", "方程"),
    "fusion_col_flops": ("FLOPs", "FLOP"),
    "fusion_col_bytes": ("bytes", "字节"),
    "fusion_col_eqn": ("equation", "方程"),
    "fusion_loop fusion": ("loop fusion", "循环融合"),
    "fusion_input fusion": ("input fusion", "输入融合"),
    "fusion_output fusion": ("output fusion", "输出融合"),
    "fusion_custom fusion": ("custom fusion", "自定义融合"),
    "fusion_removed": ("removed by XLA (no instruction comes from them: folded into constants, simplified or dead): "
                       "{eqns}",
                       "被 XLA 删去（没有指令来自它们：折叠为常量、被化简或无用）：{eqns}"),
    "fusion_removed_short": ("removed by XLA", "被 XLA 删去"),
    "fusion_inlined_short": ("a call: see its body", "调用：见其主体"),
    "fusion_absorbed": ("no instruction carries their name, but their results feed one kernel only, which likely "
                        "holds them: {items}",
                        "没有指令带有它们的名字，但其结果只流入一个计算内核，很可能由该计算内核计算：{items}"),
    "fusion_absorbed_short": ("likely in {kernel}", "很可能在 {kernel} 中"),
    "fusion_inlined": ("calls with no instruction of their own (their equations are in the kernels): {eqns}",
                       "没有自己指令的调用（其中的方程在各计算内核里）：{eqns}"),
    "fusion_marked": ("{eqn} ({mark})", "{eqn}（{mark}）"),
    "fusion_mark_recomputed": ("recomputed", "重新计算"),
    "fusion_mark_part": ("in part", "部分"),
    "fusion_recomputed": ("{eqns} computed again in each of several kernels (XLA copies a cheap producer into each "
                          "kernel that reads it), listed under each, marked (recomputed), its cost counted in each",
                          "{eqns}在多个计算内核中各计算一次（XLA 把廉价的生产者复制进读取它的每个计算内核），"
                          "列在每个计算内核下，标为（重新计算），开销在每个计算内核中都计入"),
    "fusion_parts": ("{eqns} computed in parts in several kernels (a reduction in two passes; an equation XLA writes "
                     "as several instructions), listed under each, marked (in part)",
                     "{eqns}分成几部分在多个计算内核中计算（分两遍的归约；XLA 写成多条指令的方程），列在每个计算内核"
                     "下，标为（部分）"),
    "fusion_note": ("FLOPs and bytes: the cost rules summed over each kernel's equations, once per run of the "
                    "computation it is in (a loop body's kernels: per iteration; a loop's or call's own kernel: its "
                    "body's work is in the body's kernels). Intermediate bytes not written: values an equation makes "
                    "that only equations of the same kernel read.",
                    "FLOP 与字节：按开销规则对每个计算内核中的方程求和，按其所在计算每运行一次计（循环体中的计算内核"
                    "：每次迭代；循环或调用本身的计算内核：其主体的工作算在主体的计算内核里）。未写入内存的中间值：某"
                    "方程产生、只被同一计算内核中的方程读取的值。"),
    # each kernel's measured time (--profile --fusion, program.fusion(profile=True));
    # a time always reads ``measured 1.2 µs (12% of time)`` / ``实测 1.2 µs（占时间 12%）``: sanitize.cfg masks it
    "fusion_col_time": ("measured (% of time)", "实测（占时间的比例）"),
    "kernel_time": ("measured {t} ({pct}% of time)", "实测 {t}（占时间 {pct}%）"),
    "kernel_no_event": ("no event measured", "未测到事件"),
    "kernel_all": ("all kernels", "全部计算内核"),
    "kernel_no_eqn": ("none (XLA's own)", "无（XLA 自己的）"),
    "kernel_profile_head": ("kernel times: the compiled program run {n} times under jax.profiler; each kernel's own "
                            "time per run (less the kernels recorded inside it), as a share of all kernels' time",
                            "计算内核时间：编译后的程序在 jax.profiler 下运行 {n} 次；每个计算内核每次运行自身的时间（"
                            "减去记录在其内部的计算内核），以占全部计算内核时间的比例表示",
                            "kernel times: the compiled program run {n} time under jax.profiler; each kernel's own "
                            "time per run (less the kernels recorded inside it), as a share of all kernels' time"),
    "kernel_overhead": ("each run timed whole: under the profiler {profiled}, without it {plain} (the profiler's own "
                        "cost is in the kernels' times, most of all for small kernels)",
                        "每次运行整体计时：在 profiler 下{profiled}，不用它时{plain}（profiler 自身的开销算在计算内核"
                        "时间里，小计算内核尤甚）"),
    "kernel_from_device": ("read from the device's kernel events ({planes})", "读自设备的计算内核事件（{planes}）"),
    "kernel_from_host": ("read from the host's events ({planes}): XLA on the CPU runs each kernel as a thunk, one "
                         "event each",
                         "读自主机的事件（{planes}）：CPU 上的 XLA 把每个计算内核作为一个 thunk 运行，各记一个事件"),
    "kernel_cpu_note": ("no event measured: on the CPU the profiler (JAX 0.12) records one event per thunk of the "
                        "entry computation and of a conditional's branch; a loop's body runs inside its loop's thunk, "
                        "so the kernels in it have no event of their own and their time is in the loop's kernel "
                        "({kernels}). On a GPU each kernel of a loop's body is measured.",
                        "未测到事件：在 CPU 上，profiler（JAX 0.12）为入口计算和条件分支中的每个 thunk 各记一个事件；"
                        "循环体在循环的 thunk 内运行，其中的计算内核没有自己的事件，时间算在循环的计算内核（{kernels}"
                        "）里。在 GPU 上，循环体中的每个计算内核都会被测量。"),
    "kernel_unmeasured": ("no event measured: the profiler recorded no event of these kernels (a conditional's "
                          "branch not taken records none): {kernels}",
                          "未测到事件：profiler 没有记录这些计算内核的事件（条件中未执行的分支不留事件）：{kernels}"),
    "kernel_none": ("the profiler recorded no kernel event of this program on {device}: no kernel time measured",
                    "profiler 在 {device} 上没有记录这个程序的任何计算内核事件：没有测得计算内核时间"),
    "kernel_others": ("kernels no equation comes from (XLA's copies, layout changes, its own rewrites) take time too: "
                      "{kernels}",
                      "没有方程对应的计算内核（XLA 的复制、布局变换、它自己的改写）也耗时：{kernels}"),
    "kernel_profile_needs": ("kernel times need jax.profiler.ProfileSession (JAX 0.11 or newer); this is JAX "
                             "{version}: upgrade JAX, or use --fusion without --profile",
                             "计算内核时间需要 jax.profiler.ProfileSession（JAX 0.11 或更新版本）；当前是 JAX "
                             "{version}：请升级 JAX，或使用不带 --profile 的 --fusion"),
    "kernel_profile_busy": ("another profile is running (jax.profiler allows one at a time): stop it "
                            "(jax.profiler.stop_trace()), then ask again ({error})",
                            "另一个剖析正在运行（jax.profiler 一次只允许一个）：先停止它（jax.profiler.stop_trace()），"
                            "再重新请求（{error}）"),
    # the compiled views folded by the table's calls (views/compiled/callfold.py)
    "fold_fusion": ("By call, as the table folds the program: the kernels computing each call's equations, and their "
                    "FLOPs and bytes on it",
                    "按调用（与表格折叠程序的方式相同）：计算每个调用中方程的计算内核，以及它们在该调用上的 FLOP "
                    "与字节"),
    "fold_memory": ("By call, as the table folds the program: each call's peak (the most bytes live after one of its "
                    "equations) and its residuals (the values it makes that the backward pass reads)",
                    "按调用（与表格折叠程序的方式相同）：每个调用的峰值（其某个方程之后存活的最多字节）"
                    "及其残差（它产生、反向过程会读取的值）"),
    "fold_click": ("{text}: click a call to open it", "{text}：点击一个调用可展开"),
    "fold_calls_more": ("… {n} more calls (the HTML view opens every call)",
                        "……另有 {n} 个调用（HTML 视图可展开每个调用）",
                        "… {n} more call (the HTML view opens every call)"),
    "fold_peak": ("peak {bytes} after equation {i}", "峰值 {bytes}，在方程 {i} 之后"),
    "fold_residuals": ("residuals: {n} values, {bytes}", "残差：{n} 个值，{bytes}", "residuals: {n} value, {bytes}"),
    "memory_col_bytes": ("live bytes, residuals", "存活字节、残差"),
    "fold_live": ("{bytes} live after it", "其后存活 {bytes}"),
    "fold_residual": ("makes residuals: {bytes}", "产生残差：{bytes}"),
    "memory_head": ("memory along the program: bytes live after each top-level equation (inputs and constants, and "
                    "results still to be read or returned)",
                    "程序中的内存：每个顶层方程之后存活的字节（输入与常量，以及之后还会被读取或被返回的结果）"),
    "memory_peak": ("peak {bytes} after equation {i} ({eqn})", "峰值 {bytes}，在方程 {i}（{eqn}）之后"),
    "memory_peak_short": ("peak {bytes} after equation {i}", "峰值 {bytes}，在方程 {i} 之后"),
    "memory_base": ("inputs and constants: {bytes}", "输入与常量：{bytes}"),
    "memory_at_peak": ("live at the peak: {values}", "峰值处存活：{values}"),
    "memory_more": ("… {n} more", "……另有 {n} 个"),
    "memory_residuals": ("residuals: {n} forward values the backward pass reads ({bytes}): {values}",
                         "残差：反向过程读取的 {n} 个前向值（{bytes}）：{values}",
                         "residuals: {n} forward value the backward pass reads ({bytes}): {values}"),
    "memory_xla": ("XLA's compiled program (memory_analysis): arguments {args} + outputs {out} + temporaries {temp} = "
                   "{total}",
                   "XLA 编译后的程序（memory_analysis）：实参 {args} + 输出 {out} + 临时 {temp} = {total}"),
    "memory_xla_failed": ("XLA's compiled program (memory_analysis): not shown, its compile failed ({error})",
                          "XLA 编译后的程序（memory_analysis）：未显示，编译失败（{error}）"),
    "memory_why": ("They differ: this count keeps every value of the jaxpr from the equation that makes it to its "
                   "last reader; XLA reuses a buffer once its value's last reader has run, fuses equations so their "
                   "intermediate values are never stored, and may rematerialise a cheap value instead of keeping it.",
                   "两者不同：这里的计数把 jaxpr 的每个值从产生它的方程一直保留到最后读取它的方程；XLA 在值的最后一个"
                   "读取者运行后复用其缓冲区，把方程融合使中间值从不存储，还可能重新计算廉价的值而不保留它。"),
    "memory_chart": ("live bytes over {n}, peak {bytes} after equation {i}",
                     "{n} 中的存活字节，峰值 {bytes}，在方程 {i} 之后"),
    "memory_axis": ("equation", "方程"),
    # the memory chart's hover
    "memory_live_at": ("{bytes} live after equation {i} ({eqn})", "方程 {i}（{eqn}）之后存活 {bytes}"),
    "memory_input": ("input {path}", "输入 {path}"),
    "memory_made": ("from equation {i}", "来自方程 {i}"),
    "diff_head": ("diff {a} → {b}: {summary}", "差异 {a} → {b}：{summary}"),
    "diff_summary": ("{added} added, {removed} removed, {changed} changed, {same} unchanged",
                     "新增 {added} 个，删除 {removed} 个，修改 {changed} 个，未变 {same} 个"),
    "changed": ("changed", "改动"),
    "ch_nesting": ("nesting", "嵌套位置"),
    "ch_primitive": ("primitive", "原语"),
    "ch_params": ("params", "参数"),
    "ch_input_types": ("input types", "输入类型"),
    "ch_output_types": ("output types", "输出类型"),
}
