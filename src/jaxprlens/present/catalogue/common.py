"""Words every view shares: punctuation and small templates, operand roles, nested programs' labels.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # roles: the chips of a row (English plural, Chinese, English singular)
    "role.index": ("indices", "分支索引", "index"),
    "role.operands": ("operands", "分支操作数", "operand"),
    "role.cond_consts": ("cond consts", "条件常量", "cond const"),
    "role.body_consts": ("body consts", "循环体常量", "body const"),
    "role.carry": ("carry", "携带值"),
    "role.consts": ("consts", "常量", "const"),
    "role.xs": ("xs", "xs 数组"),
    "role.args": ("args", "实参", "arg"),
    "role.operand": ("operands", "操作数", "operand"),
    "role.init": ("init values", "初始值", "init value"),
    "role.indices": ("indices", "索引"),
    "role.updates": ("updates", "更新值"),
    "role.source": ("source", "源数组"),
    "role.scalar_prefetch": ("scalar-prefetch operands", "标量预取操作数", "scalar-prefetch operand"),
    "role.kernel_inputs": ("kernel inputs", "计算内核输入", "kernel input"),
    "role.ref_inits": ("ref initial values", "引用初始值", "ref initial value"),
    # nested programs' labels (the English one is the Sub's own label; sub_label says it)
    "sub.combiner": ("combiner (per element)", "逐元素合并函数"),
    "sub.select": ("select (per element)", "逐元素选择函数"),
    "sub.scatter": ("scatter combiner (per element)", "逐元素合并函数（scatter）"),
    "sub.kernel": ("kernel", "计算内核"),
    # punctuation and small templates
    "list_sep": (", ", "、"),
    "sep": (", ", "，"),
    "semi": ("; ", "；"),
    "paren": ("({x})", "（{x}）"),
    "paren_after": ("{text} ({x})", "{text}（{x}）"),
    "labelled": ("{label}: {text}", "{label}：{text}"),
    "line_of": ("{where} line {line}", "{where} 第 {line} 行"),
    # roles
    "calls": ("calls {name}", "调用 {name}"),
    "across_axes": ("across the devices of mesh axis {axes}", "跨设备网格轴 {axes} 上的设备"),
    "kernel_grid": ("a run per point of grid {grid}", "网格 {grid} 的每个点运行一次"),
    "in_blocks": ("input blocks {blocks}", "输入块 {blocks}"),
    "out_blocks": ("output blocks {blocks}", "输出块 {blocks}"),
    "two_branches": ("branch 0 = false, branch 1 = true", "分支 0 = false，分支 1 = true"),
    "n_branches": ("{n} branches, the index must be in [0, {last}]", "{n} 个分支，索引须在 [0, {last}] 内"),
    "branch_n": ("branch {i}", "分支 {i}"),
    "sub_cond": ("cond", "条件"),
    "sub_body": ("body", "循环体"),
}
