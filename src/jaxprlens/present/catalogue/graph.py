"""The dataflow graph (views/graph/graph.py, draw.py, fold.py, overview.py, render.py): node kinds, folds,
captions, why no renderer could draw it, the inlined calls' overview.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # kernels outlined (--graph --fusion), a drawing taller than its port
    "graph_kernels": ("outline: compiled kernel", "边框：计算内核"),
    "graph_kernel_tip": ("kernel {kernel}", "计算内核 {kernel}"),
    "graph_more": ("↓ more below: drag up, or “fit” to see it whole", "↓ 下方还有：向上拖动，或点“适应窗口”看全图"),
    # graph
    "kind_elementwise": ("elementwise", "逐元素"),
    "kind_reduction": ("reduction", "归约"),
    "kind_contraction": ("contraction", "缩并"),
    "kind_control_flow": ("control flow", "控制流"),
    "kind_data_movement": ("data movement", "数据搬移"),
    "kind_other": ("other", "其他"),
    "kind_input": ("input", "输入"),
    "kind_constant": ("constant", "常量"),
    "kind_output": ("output", "输出"),
    "free": ("(free)", "（自由变量）"),
    "unused": ("(unused)", "（未使用）"),
    "const_tip": ("constant {var} (hoisted out of the trace)", "常量 {var}（从 trace 中提升出来）"),
    "input_n": ("input {i}", "输入 {i}"),
    "output_n": ("output {i}", "输出 {i}"),
    "folded_n": ("{n} equations (folded)", "{n} 个方程（已折叠）", "{n} equation (folded)"),
    "unfold_tip": ("unfold with depth={depth} or max_nodes={n}, or path={path}",
                   "用 depth={depth} 或 max_nodes={n} 展开，或用 path={path} 单独查看"),
    "fold_copy": ("copy {i} of {n}", "第 {i} 份，共 {n} 份"),
    "fold_copies": ("copies {first}–{last}", "第 {first}–{last} 份"),
    "fold_note": ("{n} equations and no Python calls to fold by: drawn by repeated blocks (×N) and ranges, {k} shown; "
                  "click one to open it, or use path=",
                  "{n} 个方程，没有可折叠的 Python 调用：按重复块（×N）和方程区间绘制，显示 {k} 个；点击一个可展开，"
                  "或用 path="),
    "graph_folds": ("; drawn by repeated blocks and ranges, {n} folded: {items}",
                    "；按重复块和方程区间绘制，已折叠 {n} 个：{items}"),
    "n_values": ("{n} values", "{n} 个值", "{n} value"),
    "value": ("value", "值"),
    "made_above": ("a value made {n} steps above", "在上方 {n} 步处产生的值"),
    "role_from": ("{role} from {name}", "来自 {name} 的{role}"),
    "used_inside": ("(used inside)", "（在内部使用）"),
    "runs_note": ("{n} equations: too many to draw one by one, shown as runs of {k}; use path= to see a nested program",
                  "{n} 个方程：太多，无法逐个绘制，按每段 {k} 个分段显示；用 path= 查看子 jaxpr"),
    "folded_note": ("{n} nested program(s) folded (deeper than depth={depth} or more than max_nodes={max_nodes} "
                    "equations)",
                    "已折叠 {n} 个子 jaxpr（嵌套深于 depth={depth}，或方程多于 max_nodes={max_nodes} 个）"),
    "graph_of_all": ("Dataflow graph of the program: {counts}", "整个程序的数据流图：{counts}"),
    "graph_of_path": ("Dataflow graph of path {path}: {counts}", "路径 {path} 的数据流图：{counts}"),
    "graph_counts": ("{n} equations, {drawn} drawn", "{n} 个方程，绘制了 {drawn} 个", "{n} equation, {drawn} drawn"),
    "graph_folded": ("; folded: {items}", "；已折叠：{items}"),
    "folded_item": ("{path} ({n} eqns)", "{path}（{n} 个方程）", "{path} ({n} eqn)"),
    "graph_untrusted": ("A picture of the graph. To pan, zoom and open its calls, re-run the cell or trust the "
                        "notebook (JupyterLab, Notebook 7: command palette › Trust Notebook; nbclassic: File › Trust "
                        "Notebook; VS Code: trust the folder).",
                        "这是数据流图的图片。要平移、缩放并展开其中的调用，请重新运行该单元格或信任此笔记本（"
                        "JupyterLab、Notebook 7：命令面板 › 信任笔记本；nbclassic：文件 › 信任笔记本；VS Code：信任该"
                        "文件夹）。"),
    "graph_hint": ("Drag to pan; Ctrl/⌘ + wheel or pinch to zoom (a plain wheel scrolls the page); click a folded "
                   "call to open it.",
                   "拖动可平移；⌃/⌘ + 滚轮或双指捏合可缩放（普通滚轮滚动页面）；点击折叠的调用可展开。"),
    "graph_save": (". DOT source: .source; save with .save('graph.svg')",
                   "。DOT 源码：.source；用 .save('graph.svg') 保存"),
    "no_svg": ("No SVG for this graph: {error}", "这张图没有 SVG：{error}"),
    "get_svg": ("To get SVG: {pip} (or install Graphviz and set {env}).",
                "要得到 SVG：{pip}（或安装 Graphviz 并设置 {env}）。"),
    "dot_source": ("DOT source", "DOT 源码"),
    "format_unknown": ("unknown format {fmt} (must be one of {formats})",
                       "未知格式 {fmt}（必须是以下之一：{formats}）"),
    "cost_unknown": ("unknown cost {metric} (must be one of {metrics})",
                     "未知开销 {metric}（必须是以下之一：{metrics}）"),
    # why no renderer could draw a graph (views/graph/render.py RenderError); {pip} and {env} are what to run
    "render_no_dot": ("{var}=dot, but no `dot` is on PATH; unset {var} to use graphviz-pure",
                      "{var}=dot，但 PATH 上没有 `dot`；取消设置 {var} 即可使用 graphviz-pure"),
    "render_no_pure": ("graphviz-pure is not installed; {pip} (jaxprlens depends on it), or install Graphviz and set "
                       "{env}",
                       "未安装 graphviz-pure；请运行 {pip}（jaxprlens 依赖它），或安装 Graphviz 并设置 {env}"),
    "render_bad_choice": ("{var}={choice} is not an executable file (must be 'dot', 'graphviz-pure' or a path to "
                          "one); {pip}, or install Graphviz and set {env}",
                          "{var}={choice} 不是可执行文件（应为 'dot'、'graphviz-pure' 或其中之一的路径）；请运行 "
                          "{pip}，或安装 Graphviz 并设置 {env}"),
    "render_format": ("graphviz-pure cannot write {fmt} (it writes {formats}); save as .svg or .png, or install "
                      "Graphviz and set {env}",
                      "graphviz-pure 不能输出 {fmt}（它能输出 {formats}）；请保存为 .svg 或 .png，或安装 Graphviz 并"
                      "设置 {env}"),
    "render_timeout": ("{name} took more than {s} s to lay out this graph; fold more of it (depth=, max_nodes=) or "
                       "show one nested path (path=)",
                       "{name} 排版这张图超过了 {s} 秒；请折叠更多（depth=、max_nodes=），或只显示一个嵌套路径（path="
                       "）"),
    "render_oserror": ("could not run {name} ({why}); {pip}, or install Graphviz and set {env}",
                       "无法运行 {name}（{why}）；请运行 {pip}，或安装 Graphviz 并设置 {env}"),
    "render_failed": ("{name} failed (exit {code}): {err}", "{name} 运行失败（退出码 {code}）：{err}"),
    "render_count": ("the renderer wrote {n} drawings for {k} graphs", "渲染器为 {k} 张图输出了 {n} 幅图"),
    # inlined calls (calls.py): the graph's overview and the table's folded rows
    "call_n_of": ("call {i} of {n}", "第 {i} 次调用，共 {n} 次"),
    "phase_forward": ("forward", "前向"),
    "phase_backward": ("backward", "反向"),
    "phase_update": ("optimizer update", "优化器更新"),
    "share_of": ("{pct} of {what}", "占{what}的 {pct}"),
    "metric_flops": ("FLOPs", "FLOPs"),
    "metric_bytes": ("bytes moved", "访存字节"),
    "share_legend": ("share of estimated {what} (total {total})", "估算{what}占比（总计 {total}）"),
    "metric_time": ("measured time", "实测时间"),
    "share_legend_time": ("share of measured time (each equation run on its own: {total} in all)",
                          "实测时间占比（每个方程单独运行，合计 {total}）"),
    "graph_calls": ("; drawn by its inlined calls, {n} folded: {items}", "；按内联调用绘制，已折叠 {n} 个：{items}"),
    "zoom_fit": ("fit", "适应窗口"),
    "zoom_one": ("1:1", "1:1"),
    "program": ("program", "程序"),
    "crossing": ("in: {ins} → out: {outs}", "输入：{ins} → 输出：{outs}"),
    "from_x": ("from {x}", "来自 {x}"),
    "to_x": ("to {x}", "去往 {x}"),
    "called_at": ("called at {where}", "调用处：{where}"),
    "n_more": ("+{n} more", "另 {n} 个"),
    "overview_note": ("{n} equations, drawn by the Python calls that tracing inlined: {k} shown; click a call to open "
                      "it, or use path=",
                      "{n} 个方程，按 trace 时内联的 Python 调用折叠绘制：显示 {k} 个；点击一个调用可展开，或用 path="),
    "graph_notdrawn": ("{path} is not drawn ahead of time: program.graph(path=\"{path}\") or %%jaxpr --graph --path "
                       "{path} draws it",
                       "{path} 没有预先绘制：用 %%jaxpr --graph --path {path} 或 .graph(path=\"{path}\") 绘制它"),
    "graph_empty": ("Nothing to draw: the program has no equations (its results are its inputs or constants)",
                    "没有可绘制的内容：这个程序没有方程（它的结果就是它的输入或常量）"),
}
