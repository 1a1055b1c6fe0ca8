"""Where a program's data lives on the device mesh and which equation made each collective (views/compiled/sharding.py).

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    "shard_head": ("sharding over {n} devices, mesh {mesh}: where the data lives and what talks between devices",
                   "分片：{n} 个设备，设备网格 {mesh}：数据放在哪里，设备之间传什么"),
    "shard_whole": ("whole, on one device", "完整，在一个设备上"),
    "shard_one_device": ("sharding: the program runs on one device; nothing is split and no collective runs.",
                         "分片：程序在一个设备上运行；没有任何值被切分，也没有集合通信。"),
    "shard_total": ("{n} per call, {bytes} per device", "每次调用 {n}，每个设备 {bytes}"),
    "n_collectives": ("{n} collectives", "{n} 次集合通信", "{n} collective"),
    "shard_none": ("no collective: every device computes on its own block, no data moves between devices",
                   "没有集合通信：每个设备只在自己的数据块上计算，设备之间不传数据"),
    "shard_per_axes": ("over {axes}: {n}, {bytes}", "沿 {axes}：{n}，{bytes}"),
    "shard_axes_all": ("all devices", "全部设备"),
    "shard_marker": ("{kind} over {axes} · {bytes} per device", "沿 {axes} 的 {kind} · 每个设备 {bytes}"),
    "shard_marker_loop": ("{kind} over {axes} · {bytes} per device, each iteration",
                          "沿 {axes} 的 {kind} · 每个设备 {bytes}，每次迭代"),
    "shard_marker_shared": (", shared with equation {eqns}", "，与方程 {eqns} 共用"),
    "shard_graph_mark": ("{kind} over {axes} · {bytes}", "沿 {axes} 的 {kind} · {bytes}"),
    "shard_graph_mark_loop": ("{kind} over {axes} · {bytes}, each iteration",
                              "沿 {axes} 的 {kind} · {bytes}，每次迭代"),
    "shard_graph_times": ("{n}× {words}", "{n} 次 {words}"),
    "shard_graph_legend": ("⇄ border: talks between devices (bytes per device)",
                           "⇄ 边框：设备之间通信（每个设备的字节数）"),
    "shard_col_eqn": ("equation", "方程"),
    "shard_col_layout": ("layout on the mesh", "在设备网格上的布局"),
    "shard_col_comm": ("communication", "通信"),
    "shard_replicated": ("replicated: every device holds all of it", "复制：每个设备都持有全部"),
    "shard_split": ("{spec} · {local} per device", "{spec} · 每个设备 {local}"),
    "shard_manual": ("shard_map body: each device's own {local}", "shard_map 函数体：每个设备自己的 {local}"),
    "shard_on_device": ("on device {device} only", "只在设备 {device} 上"),
    "shard_no_layout": ("(no instruction of its own)", "（没有自己的指令）"),
    "shard_unnamed": ("collectives no equation names (XLA's own): {items}",
                      "没有方程对应的集合通信（XLA 自己加的）：{items}"),
    "shard_inputs": ("arguments: {items}", "实参：{items}"),
    "shard_picture_head": ("{name} {shape} on the mesh: each cell a device, the block it holds",
                           "{name} {shape} 在设备网格上：每格一个设备，及其持有的数据块"),
    "shard_picture_same": ("cells of one colour hold the same block (replicated along {axes})",
                           "同色的格子持有同一数据块（沿 {axes} 复制）"),
    "shard_device": ("device {id}", "设备 {id}"),
    "shard_note_contracting": ("equation {eqn} ({prim}) contracts over a dimension split over {axes}: each device "
                               "multiplies its slice and holds a partial sum, so XLA adds them up with an {kind} "
                               "({bytes} per device). To remove it, split the operands' other dimensions and keep the "
                               "contracting one whole on each device. Asking for the result split over {axes} "
                               "(with_sharding_constraint on it) lets XLA use a reduce-scatter, which sends less, "
                               "where it takes that layout: run --sharding again to see which collective it chose.",
                               "方程 {eqn}（{prim}）沿一个被切分到 {axes} 的维度做缩并：每个设备只乘自己的那一片、得"
                               "到部分和，所以 XLA 用 {kind} 把它们加起来（每个设备 {bytes}）。要去掉它：切分操作数的"
                               "其他维度，让缩并维度在每个设备上完整。要求结果沿 {axes} 切分（对结果用 "
                               "with_sharding_constraint）可让 XLA 在采用该布局时改用发送更少数据的 reduce-scatter："
                               "再运行一次 --sharding，看它选了哪种集合通信。"),
    "shard_note_reduction": ("equation {eqn} ({prim}) reduces over a dimension split over {axes}: each device reduces "
                             "its own block, then XLA combines the partial results with an {kind} ({bytes} per "
                             "device). Over the batch this is usually wanted (a mean loss) and cheap when the value "
                             "is small; to move it, reduce as late as possible (keep per-example values split over "
                             "{axes} until the end), so the collective sends one small value once.",
                             "方程 {eqn}（{prim}）沿一个被切分到 {axes} 的维度做归约：每个设备先归约自己的数据块，"
                             "XLA 再用 {kind} 合并部分结果（每个设备 {bytes}）。在批量维度上这通常是需要的（平均损失"
                             "），值小时也很便宜；要移动它，就尽量晚归约（让逐样本的值沿 {axes} 保持切分直到最后），"
                             "这样集合通信只发送一次小值。"),
}
