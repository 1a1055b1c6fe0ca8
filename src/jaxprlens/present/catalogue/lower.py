"""The compiled program (views/lower.py, fusion.py, memory.py) and the diff of two programs (views/diff.py).

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # lowering and diff
    "lower_head": ("jaxpr → StableHLO lines:", "jaxpr → StableHLO 行："),
    "stablehlo_head": ("StableHLO:", "StableHLO："),
    "optimized_hlo": ("optimized HLO (after XLA)", "优化后的 HLO（经 XLA 处理）"),
    "from_eqn": ("from equation {ids}", "来自方程 {ids}"),
    # fusion map (views/fusion.py) and memory along the program (views/memory.py)
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
    "fusion_spread": ("equations with instructions in several kernels: {items}",
                      "指令分布在多个计算内核中的方程：{items}"),
    "fusion_note": ("FLOPs and bytes: the cost rules summed over each kernel's equations, once per run of the "
                    "computation it is in (a loop body's kernels: per iteration; a loop's or call's own kernel: its "
                    "body's work is in the body's kernels). Intermediate bytes not written: values an equation makes "
                    "that only equations of the same kernel read.",
                    "FLOP 与字节：按开销规则对每个计算内核中的方程求和，按其所在计算每运行一次计（循环体中的计算内核"
                    "：每次迭代；循环或调用本身的计算内核：其主体的工作算在主体的计算内核里）。未写入内存的中间值：某"
                    "方程产生、只被同一计算内核中的方程读取的值。"),
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
    "memory_why": ("They differ: this count keeps every value of the jaxpr from the equation that makes it to its "
                   "last reader; XLA reuses a buffer once its value's last reader has run, fuses equations so their "
                   "intermediate values are never stored, and may rematerialise a cheap value instead of keeping it.",
                   "两者不同：这里的计数把 jaxpr 的每个值从产生它的方程一直保留到最后读取它的方程；XLA 在值的最后一个"
                   "读取者运行后复用其缓冲区，把方程融合使中间值从不存储，还可能重新计算廉价的值而不保留它。"),
    "memory_chart": ("live bytes over {n}, peak {bytes} after equation {i}",
                     "{n} 中的存活字节，峰值 {bytes}，在方程 {i} 之后"),
    "memory_axis": ("equation", "方程"),
    # new keys (helper look)
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
