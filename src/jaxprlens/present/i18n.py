"""Words shown to the reader, in English and Chinese (``--lang zh``, the seed article's audience): one
catalogue for every view, the glossary it keeps to, and the kernel-wide default language.

Chinese text uses full-width punctuation (，：；（）「」) and one term per concept (``GLOSSARY``).
"""
from __future__ import annotations

import os
import unicodedata

from jaxprlens.model.errors import Keyed, KeyedError

LANGS = ("en", "zh")

TEXT = {
    "en": {
        "eqn": "#", "outputs": "outputs", "primitive": "primitive", "params": "params",
        "inputs": "inputs", "source": "source", "explanation": "what it does", "roles": "operand roles",
        "signature": "signature", "inputs_title": "input", "constants": "hoisted constants",
        "results": "result", "cost": "cost", "line": "line", "cell": "cell",
        "literal": "literal", "constvar": "hoisted constant", "no_eqns": "(no equations)",
        "effects": "effects", "equations": "equations", "in_all": "in all",
        "sub_inputs": "binders", "bound_from": "bound from", "total": "total",
        "intensity": "intensity", "n/a": "n/a",
        "equation": "equation", "notes": "source · what it does", "original": "original", "no_source_new": "new: no source line in the original", "more_text": "… {n} more equations (print(program) or %%jaxpr --text shows them all)", "more_rows": "{n} more equations: run or trust the notebook to draw them as you scroll (--text prints them all)", "search": "search rows",
        "all_params": "all params", "matches": "{n} matching rows", "match_one": "{n} matching row", "colon": ": ", "n_eqns": "{n} equations",
        "n_in_all": " ({n} in all)", "no_frame": "no user frame (made inside JAX)",
    },
    "zh": {
        "eqn": "#", "outputs": "输出", "primitive": "原语", "params": "参数",
        "inputs": "输入", "source": "源码", "explanation": "含义", "roles": "操作数角色",
        "signature": "签名", "inputs_title": "输入", "constants": "提升的常量",
        "results": "结果", "cost": "开销", "line": "行", "cell": "单元格",
        "literal": "字面量", "constvar": "提升的常量", "no_eqns": "（没有方程）",
        "effects": "副作用", "equations": "个方程", "in_all": "共计",
        "sub_inputs": "绑定变量", "bound_from": "来自", "total": "合计",
        "intensity": "算术强度", "n/a": "无",
        "equation": "方程", "notes": "源码 · 含义", "original": "原程序", "no_source_new": "新增：原程序中没有对应的源码行", "more_text": "…… 另有 {n} 个方程（print(program) 或 %%jaxpr --text 可全部显示）", "more_rows": "另有 {n} 个方程：运行或信任此笔记本后，滚动时逐步显示（--text 可全部打印）", "search": "搜索行",
        "all_params": "全部参数", "matches": "{n} 行匹配", "match_one": "{n} 行匹配", "colon": "：", "n_eqns": "{n} 个方程",
        "n_in_all": "（共 {n} 个）", "no_frame": "没有用户代码帧（由 JAX 内部生成）",
    },
}

# role key -> (English singular, English plural, Chinese)
ROLE_WORDS = {
    "index": ("index", "indices", "分支索引"),
    "operands": ("operand", "operands", "分支操作数"),
    "cond_consts": ("cond const", "cond consts", "条件常量"),
    "body_consts": ("body const", "body consts", "循环体常量"),
    "carry": ("carry", "carry", "携带值"),
    "consts": ("const", "consts", "常量"),
    "xs": ("xs", "xs", "xs 数组"),
    "args": ("arg", "args", "实参"),
    "operand": ("operand", "operands", "操作数"),
    "init": ("init value", "init values", "初始值"),
    "indices": ("indices", "indices", "索引"),
    "updates": ("updates", "updates", "更新值"),
    "source": ("source", "source", "源数组"),
    "scalar_prefetch": ("scalar-prefetch operand", "scalar-prefetch operands", "标量预取操作数"),
    "kernel_inputs": ("kernel input", "kernel inputs", "内核输入"),
    "ref_inits": ("ref initial value", "ref initial values", "引用初始值"),
}

# combiner sub key -> Chinese label (the English one is the Sub's own label)
SUB_WORDS_ZH = {"combiner": "逐元素合并函数", "select": "逐元素选择函数", "scatter": "逐元素合并函数（scatter）",
                "kernel": "内核"}

# One term per concept, in every view (and for a course's glossary).  A zh text says the concept with
# this term and never with one of ``AVOID``'s synonyms (tests/test_i18n.py checks the catalogue).
GLOSSARY = {
    "equation": ("equation", "方程"),
    "primitive": ("primitive", "原语"),
    "param": ("param", "参数"),
    "argument": ("argument", "实参"),
    "operand": ("operand", "操作数"),
    "input": ("input", "输入"),
    "output": ("output", "输出"),
    "result": ("result", "结果"),
    "literal": ("literal", "字面量"),
    "constant": ("constant", "常量"),
    "hoisted constant": ("hoisted constant", "提升的常量"),
    "sub-jaxpr": ("nested program (sub-jaxpr)", "子 jaxpr"),
    "branch": ("branch", "分支"),
    "body": ("body (of a loop)", "循环体"),
    "cond": ("cond (a while loop's test)", "条件"),
    "iteration": ("iteration", "迭代"),
    "carry": ("carry", "携带值"),
    "binder": ("binder", "绑定变量"),
    "source": ("source", "源码"),
    "cost": ("cost", "开销"),
    "intensity": ("arithmetic intensity", "算术强度"),
    "device": ("device", "设备"),
    "compile": ("compile", "编译"),
    "Jupyter kernel": ("kernel (Jupyter's: the process that runs a notebook's code)", "内核"),
    "breakpoint": ("breakpoint", "断点"),
    "dataflow graph": ("dataflow graph", "数据流图"),
    "fold": ("fold", "折叠"),
}
AVOID = {"方程": ("等式", "算式"), "原语": ("基元", "原始操作"), "实参": ("参量",), "常量": ("常数",),
         "子 jaxpr": ("子程序", "嵌套程序"), "迭代": ("轮次",), "携带值": ("carry", "循环变量", "循环状态"),
         "循环体": ("body",), "开销": ("成本", "代价"), "断点": ("中断点",), "折叠": ("收起",)}

# Texts of the views, as (English, Chinese); merged into ``TEXT`` below.
VIEW_TEXT = {
    # punctuation and small templates
    "list_sep": (", ", "、"), "sep": (", ", "，"), "semi": ("; ", "；"), "paren": ("({x})", "（{x}）"),
    "paren_after": ("{text} ({x})", "{text}（{x}）"), "labelled": ("{label}: {text}", "{label}：{text}"),
    "line_of": ("{where} line {line}", "{where} 第 {line} 行"),
    # roles
    "calls": ("calls {name}", "调用 {name}"),
    "kernel_grid": ("a run per point of grid {grid}", "网格 {grid} 的每个点运行一次"),
    "in_blocks": ("input blocks {blocks}", "输入块 {blocks}"),
    "out_blocks": ("output blocks {blocks}", "输出块 {blocks}"),
    "two_branches": ("branch 0 = false, branch 1 = true", "分支 0 = false，分支 1 = true"),
    "n_branches": ("{n} branches, the index must be in [0, {last}]", "{n} 个分支，索引须在 [0, {last}] 内"),
    "branch_n": ("branch {i}", "分支 {i}"), "sub_cond": ("cond", "条件"), "sub_body": ("body", "循环体"),
    # graph
    "kind_elementwise": ("elementwise", "逐元素"), "kind_reduction": ("reduction", "归约"),
    "kind_contraction": ("contraction", "缩并"), "kind_control_flow": ("control flow", "控制流"),
    "kind_data_movement": ("data movement", "数据搬移"), "kind_other": ("other", "其他"),
    "kind_input": ("input", "输入"), "kind_constant": ("constant", "常量"), "kind_output": ("output", "输出"),
    "free": ("(free)", "（自由变量）"), "unused": ("(unused)", "（未使用）"),
    "const_tip": ("constant {var} (hoisted out of the trace)", "常量 {var}（从追踪中提升出来）"),
    "input_n": ("input {i}", "输入 {i}"), "output_n": ("output {i}", "输出 {i}"),
    "folded_n": ("{n} equations (folded)", "{n} 个方程（已折叠）"),
    "unfold_tip": ("unfold with depth={depth} or max_nodes={n}, or path={path}",
                   "用 depth={depth} 或 max_nodes={n} 展开，或用 path={path} 单独查看"),
    "run_range": ("equations {first}–{last}", "方程 {first}–{last}"),
    "rows_cut": ("{n} more equations are not stored in the notebook (it keeps the first {k} as data): print(program) "
                 "or %%jaxpr --text shows them all", "另有 {n} 个方程未存入笔记本（只保存前 {k} 个的数据）：print(program) "
                 "或 %%jaxpr --text 可全部显示"),
    "items_cut": ("{n} more rows are not stored in the notebook (it keeps the first {k} as data): print(program) "
                  "or %%jaxpr --text shows them all", "另有 {n} 行未存入笔记本（只保存前 {k} 行的数据）：print(program) "
                  "或 %%jaxpr --text 可全部显示"),
    "rows_not_stored": ("(rows not stored in the notebook)", "（其中的行未存入笔记本）"),
    "calls_cut": ("{n} equations inside calls are not stored in the notebook (calls left out: {k}; it keeps {s} rows "
                  "as data): print(program) or %%jaxpr --text shows them all",
                  "{k} 个调用中的 {n} 个方程未存入笔记本（只保存 {s} 行数据）：print(program) 或 %%jaxpr --text 可全部显示"),
    "more_items": ("{n} more rows (calls and equations): run or trust the notebook to draw them as you scroll "
                   "(--text prints them all)", "另有 {n} 行（调用和方程）：运行或信任此笔记本后，滚动时逐步显示（--text 可全部打印）"),
    # the same notes on a live page: what the notebook did not store comes from the kernel (views/live.py)
    "rows_live": ("{n} more equations come from the kernel as you scroll or search (the notebook stores the first "
                  "{k} as data)", "另有 {n} 个方程在滚动或搜索时从内核取得（笔记本只保存前 {k} 个的数据）"),
    "items_live": ("{n} more rows come from the kernel as you scroll or search (the notebook stores the first {k} "
                   "as data)", "另有 {n} 行在滚动或搜索时从内核取得（笔记本只保存前 {k} 行的数据）"),
    "calls_live": ("{n} equations inside calls come from the kernel when you open or search them (calls left out "
                   "of the notebook: {k}; it keeps {s} rows as data)",
                   "{k} 个调用中的 {n} 个方程在展开或搜索时从内核取得（笔记本只保存 {s} 行数据）"),
    "fold_copy": ("copy {i} of {n}", "第 {i} 份，共 {n} 份"), "fold_copies": ("copies {first}–{last}", "第 {first}–{last} 份"),
    "fold_note": ("{n} equations and no Python calls to fold by: drawn by repeated blocks (×N) and ranges, {k} shown; "
                  "click one to open it, or use path=", "{n} 个方程，没有可折叠的 Python 调用：按重复块（×N）和方程区间绘制"
                  "，显示 {k} 个；点击一个可展开，或用 path="),
    "graph_folds": ("; drawn by repeated blocks and ranges, {n} folded: {items}", "；按重复块和方程区间绘制，已折叠 {n} 个：{items}"),
    "n_values": ("{n} values", "{n} 个值"), "value": ("value", "值"),
    "made_above": ("a value made {n} steps above", "在上方 {n} 步处产生的值"),
    "role_from": ("{role} from {name}", "来自 {name} 的{role}"), "used_inside": ("(used inside)", "（在内部使用）"),
    "runs_note": ("{n} equations: too many to draw one by one, shown as runs of {k}; use path= to see a nested "
                  "program", "{n} 个方程：太多，无法逐个绘制，按每段 {k} 个分段显示；用 path= 查看子 jaxpr"),
    "folded_note": ("{n} nested program(s) folded (deeper than depth={depth} or more than max_nodes={max_nodes} "
                    "equations)", "已折叠 {n} 个子 jaxpr（嵌套深于 depth={depth}，或方程多于 max_nodes={max_nodes} 个）"),
    "graph_of_all": ("Dataflow graph of the program: {counts}", "整个程序的数据流图：{counts}"),
    "graph_of_path": ("Dataflow graph of path {path}: {counts}", "路径 {path} 的数据流图：{counts}"),
    "graph_counts": ("{n} equations, {drawn} drawn", "{n} 个方程，绘制了 {drawn} 个"),
    "graph_folded": ("; folded: {items}", "；已折叠：{items}"),
    "folded_item": ("{path} ({n} eqns)", "{path}（{n} 个方程）"),
    "graph_untrusted": ("A picture of the graph. To pan, zoom and open its calls, trust the notebook (JupyterLab: "
                        "command palette › Trust Notebook) or re-run the cell.",
                        "这是数据流图的图片。要平移、缩放并展开其中的调用，请信任此笔记本（命令面板 › 信任笔记本）"
                        "或重新运行该单元格。"),
    "graph_hint": ("Drag to pan; Ctrl/⌘ + wheel or pinch to zoom (a plain wheel scrolls the page); "
                   "click a folded call to open it.",
                   "拖动可平移；⌃/⌘ + 滚轮或双指捏合可缩放（普通滚轮滚动页面）；点击折叠的调用可展开。"),
    "graph_save": (". DOT source: .source; save with .save('graph.svg')",
                   "。DOT 源码：.source；用 .save('graph.svg') 保存"),
    "no_svg": ("No SVG for this graph: {error}", "这张图没有 SVG：{error}"),
    "get_svg": ("To get SVG: {pip} (or install Graphviz and set {env}).",
                "要得到 SVG：{pip}（或安装 Graphviz 并设置 {env}）。"),
    "dot_source": ("DOT source", "DOT 源码"),
    # why no renderer could draw a graph (views/render.py RenderError); {pip} and {env} are what to run
    "render_no_dot": ("{var}=dot, but no `dot` is on PATH; unset {var} to use graphviz-pure",
                      "{var}=dot，但 PATH 上没有 `dot`；取消设置 {var} 即可使用 graphviz-pure"),
    "render_no_pure": ("graphviz-pure is not installed; {pip} (jaxprlens depends on it), or install Graphviz and set "
                       "{env}", "未安装 graphviz-pure；请运行 {pip}（jaxprlens 依赖它），或安装 Graphviz 并设置 {env}"),
    "render_bad_choice": ("{var}={choice} is not an executable file (must be 'dot', 'graphviz-pure' or a path to "
                          "one); {pip}, or install Graphviz and set {env}",
                          "{var}={choice} 不是可执行文件（应为 'dot'、'graphviz-pure' 或其中之一的路径）；请运行 {pip}，"
                          "或安装 Graphviz 并设置 {env}"),
    "render_format": ("graphviz-pure cannot write {fmt} (it writes {formats}); save as .svg or .png, or install "
                      "Graphviz and set {env}", "graphviz-pure 不能输出 {fmt}（它能输出 {formats}）；请保存为 .svg 或 .png，"
                      "或安装 Graphviz 并设置 {env}"),
    "render_timeout": ("{name} took more than {s} s to lay out this graph; fold more of it (depth=, max_nodes=) or "
                       "show one nested path (path=)", "{name} 排版这张图超过了 {s} 秒；请折叠更多（depth=、max_nodes=），"
                       "或只显示一个嵌套路径（path=）"),
    "render_oserror": ("could not run {name} ({why}); {pip}, or install Graphviz and set {env}",
                       "无法运行 {name}（{why}）；请运行 {pip}，或安装 Graphviz 并设置 {env}"),
    "render_failed": ("{name} failed (exit {code}): {err}", "{name} 运行失败（退出码 {code}）：{err}"),
    "render_count": ("the renderer wrote {n} drawings for {k} graphs", "渲染器为 {k} 张图输出了 {n} 幅图"),
    # inlined calls (calls.py): the graph's overview and the table's folded rows
    "call_n_of": ("call {i} of {n}", "第 {i} 次调用，共 {n} 次"),
    "phase_forward": ("forward", "前向"), "phase_backward": ("backward", "反向"),
    "phase_update": ("optimizer update", "优化器更新"),
    "share_of": ("{pct} of {what}", "占{what}的 {pct}"), "metric_flops": ("FLOPs", "FLOPs"),
    "metric_bytes": ("bytes moved", "访存字节"),
    "share_legend": ("share of estimated {what} (total {total})", "估计{what}占比（总计 {total}）"),
    "metric_time": ("measured time", "实测时间"),
    "share_legend_time": ("share of measured time (each equation run on its own: {total} in all)",
                          "实测时间占比（每个方程单独运行，合计 {total}）"),
    "graph_calls": ("; drawn by its inlined calls, {n} folded: {items}", "；按内联调用绘制，已折叠 {n} 个：{items}"),
    "zoom_fit": ("fit", "适应窗口"), "zoom_one": ("1:1", "1:1"), "program": ("program", "程序"),
    "crossing": ("in: {ins} → out: {outs}", "输入：{ins} → 输出：{outs}"),
    "table_folded": ("Equations folded by the Python calls that tracing inlined: click a call to open it "
                     "(print(program) or %%jaxpr --text prints them all)",
                     "方程按追踪时内联的 Python 调用折叠：点击一个调用可展开（print(program) 或 %%jaxpr --text 可全部打印）"),
    "sig_cut": ("{k} more entries ({n} values) are not stored in the notebook: print(program) lists every value",
                "另有 {k} 项（{n} 个值）未存入笔记本：print(program) 可列出全部值"),
    "sig_more": ("… {n} more values (print(program) lists every value)", "…… 另有 {n} 个值（print(program) 可列出全部值）"),
    "seen_through": ("`{name}` is one jit equation: shown is its body, as the program "
                     "(`%%jaxpr --outer` shows the jit equation itself, `--text` JAX's own text)",
                     "`{name}` 是一个 jit 方程：这里把它的函数体当作程序显示"
                     "（`%%jaxpr --outer` 显示 jit 方程本身，`--text` 显示 JAX 自己的文本）"),
    "text_folded": ("Equations folded by the Python calls that tracing inlined, a line per call (print(program) or "
                    "%%jaxpr --text prints them all)",
                    "方程按追踪时内联的 Python 调用折叠，每个调用一行（print(program) 或 %%jaxpr --text 可全部打印）"),
    "from_x": ("from {x}", "来自 {x}"), "to_x": ("to {x}", "去往 {x}"),
    "called_at": ("called at {where}", "调用处：{where}"), "n_more": ("+{n} more", "另 {n} 个"),
    "overview_note": ("{n} equations, drawn by the Python calls that tracing inlined: {k} shown; click a call "
                      "to open it, or use path=", "{n} 个方程，按追踪时内联的 Python 调用折叠绘制：显示 {k} 个；"
                      "点击一个调用可展开，或用 path="),
    "graph_notdrawn": ("{path} is not drawn ahead of time: program.graph(path=\"{path}\") or %%jaxpr --graph "
                       "--path {path} draws it", "{path} 没有预先绘制：用 %%jaxpr --graph --path {path} 或 "
                       ".graph(path=\"{path}\") 绘制它"),
    "graph_empty": ("Nothing to draw: the program has no equations (its results are its inputs or constants)",
                    "没有可绘制的内容：这个程序没有方程（它的结果就是它的输入或常量）"),
    # runner and cost
    "devices_head": ("devices (name, platform, kind, id):", "设备（名称、平台、类型、编号）："),
    "is_default": ("(default)", "（默认）"), "default": ("default", "默认"), "device": ("device", "设备"),
    "platform": ("platform", "平台"), "kind": ("kind", "类型"), "id": ("id", "编号"),
    "device_info": ("{name} (platform {platform}, kind {kind}, id {id})", "{name}（平台 {platform}，类型 {kind}，编号 {id}）"),
    "xla_none": ("XLA cost analysis: not available", "XLA 开销分析：不可用"),
    "xla_cost": ("XLA cost analysis: {items}", "XLA 开销分析：{items}"),
    "transcendentals": ("{n} transcendental", "超越函数 {n} 次"), "accessed": ("{bytes} accessed", "访问 {bytes}"),
    "ran_on": ("ran on {device}", "运行于 {device}"), "compile_time": ("compile {t}", "编译 {t}"),
    "run_median": ("run median {median} ± {spread}", "运行中位数 {median} ± {spread}"),
    "iqr_note": ("(± half the interquartile range of {n} runs)", "（± 为 {n} 次运行四分位距的一半）"),
    "estimate_is": ("estimate: {cost}", "估计：{cost}"), "outputs_head": ("outputs:", "输出："),
    "output": ("output", "输出"), "stats": ("min {min}, max {max}, mean {mean}", "最小值 {min}，最大值 {max}，均值 {mean}"),
    "nan_inf": ("{n} {what}", "{what} {n} 个"),
    "key_value": ("PRNG key ({impl}), key data {data}", "PRNG 密钥（{impl}），密钥数据 {data}"),
    "complex_stats": ("|x| max {max}, real {re}, imag {im}", "|x| 最大值 {max}，实部 {re}，虚部 {im}"),
    "profile_head": ("profile on {device}, each equation compiled and run on its own (median of {n} runs)",
                     "在 {device} 上逐个方程剖析，每个方程单独编译、运行（{n} 次运行的中位数）"),
    "estimate": ("estimate", "估计"), "measured_alone": ("measured on its own (% of the sum)", "单独测得（占总和的比例）"),
    "measured_share": ("measured {t} ({pct}% of sum)", "实测 {t}（占总和 {pct}%）"),
    "estimated_total": ("estimated total: {cost}; {intensity}", "估计合计：{cost}；{intensity}"),
    "between_devices": ("{bytes} between devices", "设备间 {bytes}"),
    "per_iteration": ("per iteration {per}; unknown trip count", "每次迭代 {per}；迭代次数未知"),
    "repeated": ("{times}{unit} × ({per}) = {total}", "{times}{unit} ×（{per}）= {total}"),
    "unit_devices": (" devices", " 个设备"), "intensity_is": ("{word} {value} FLOP/B", "{word} {value} FLOP/B"),
    # lowering and diff
    "lower_head": ("jaxpr → StableHLO lines:", "jaxpr → StableHLO 行："), "stablehlo_head": ("StableHLO:", "StableHLO："),
    "optimized_hlo": ("optimized HLO (after XLA)", "优化后的 HLO（经 XLA 处理）"),
    "from_eqn": ("from equation {ids}", "来自方程 {ids}"),
    # fusion map (views/fusion.py) and memory along the program (views/memory.py)
    "n_kernels": ("{n} kernels", "{n} 个内核"),
    "fusion_head": ("fusion map: the kernels XLA compiled the program into ({device})",
                    "融合图：XLA 把程序编译成的内核（{device}）"),
    "fusion_summary": ("{eqns} → {kernels}; intermediate bytes not written: {saved}",
                       "{eqns} → {kernels}；未写入内存的中间值：{saved}"),
    "fusion_col_kernel": ("kernel", "内核"), "fusion_col_kind": ("kind", "类型"),
    "fusion_col_eqns": ("equations", "方程"), "fusion_col_flops": ("FLOPs", "FLOP"),
    "fusion_col_bytes": ("bytes", "字节"), "fusion_col_eqn": ("equation", "方程"),
    "fusion_loop fusion": ("loop fusion", "循环融合"), "fusion_input fusion": ("input fusion", "输入融合"),
    "fusion_output fusion": ("output fusion", "输出融合"), "fusion_custom fusion": ("custom fusion", "自定义融合"),
    "fusion_removed": ("removed by XLA (no instruction comes from them: folded into constants, simplified or "
                       "dead): {eqns}", "被 XLA 删去（没有指令来自它们：折叠为常量、被化简或无用）：{eqns}"),
    "fusion_removed_short": ("removed by XLA", "被 XLA 删去"), "fusion_inlined_short": ("a call: see its body",
                                                                                    "调用：见其主体"),
    "fusion_absorbed": ("no instruction carries their name, but their results feed one kernel only, which likely "
                        "holds them: {items}", "没有指令带有它们的名字，但其结果只流入一个内核，很可能由该内核计算：{items}"),
    "fusion_absorbed_short": ("likely in {kernel}", "很可能在 {kernel} 中"),
    "fusion_inlined": ("calls with no instruction of their own (their equations are in the kernels): {eqns}",
                       "没有自己指令的调用（其中的方程在各内核里）：{eqns}"),
    "fusion_spread": ("equations with instructions in several kernels: {items}",
                      "指令分布在多个内核中的方程：{items}"),
    "fusion_note": ("FLOPs and bytes: the cost rules summed over each kernel's equations, once per run of the "
                    "computation it is in (a loop body's kernels: per iteration; a loop's or call's own kernel: "
                    "its body's work is in the body's kernels). Intermediate bytes not written: values an "
                    "equation makes that only equations of the same kernel read.",
                    "FLOP 与字节：按开销规则对每个内核中的方程求和，按其所在计算每运行一次计（循环体中的内核：每次迭代；"
                    "循环或调用本身的内核：其主体的工作算在主体的内核里）。未写入内存的中间值：某方程产生、只被同一内核中"
                    "的方程读取的值。"),
    "memory_head": ("memory along the program: bytes live after each top-level equation (inputs and constants, "
                    "and results still to be read or returned)",
                    "程序中的内存：每个顶层方程之后存活的字节（输入与常量，以及之后还会被读取或被返回的结果）"),
    "memory_peak": ("peak {bytes} after equation {i} ({eqn})", "峰值 {bytes}，在方程 {i}（{eqn}）之后"),
    "memory_peak_short": ("peak {bytes} after equation {i}", "峰值 {bytes}，在方程 {i} 之后"),
    "memory_base": ("inputs and constants: {bytes}", "输入与常量：{bytes}"),
    "memory_at_peak": ("live at the peak: {values}", "峰值处存活：{values}"),
    "memory_more": ("… {n} more", "……另有 {n} 个"),
    "memory_residuals": ("residuals: {n} forward values the backward pass reads ({bytes}): {values}",
                         "残差：反向传播读取的 {n} 个前向值（{bytes}）：{values}"),
    "memory_xla": ("XLA's compiled program (memory_analysis): arguments {args} + outputs {out} + temporaries "
                   "{temp} = {total}", "XLA 编译后的程序（memory_analysis）：实参 {args} + 输出 {out} + 临时 {temp} "
                   "= {total}"),
    "memory_why": ("They differ: this count keeps every value of the jaxpr from the equation that makes it to its "
                   "last reader; XLA reuses a buffer once its value's last reader has run, fuses equations so "
                   "their intermediate values are never stored, and may rematerialise a cheap value instead of "
                   "keeping it.",
                   "两者不同：这里的计数把 jaxpr 的每个值从产生它的方程一直保留到最后读取它的方程；XLA 在值的最后一个读取者"
                   "运行后复用其缓冲区，把方程融合使中间值从不存储，还可能重新计算廉价的值而不保留它。"),
    "memory_chart": ("live bytes over {n}, peak {bytes} after equation {i}",
                     "{n} 中的存活字节，峰值 {bytes}，在方程 {i} 之后"),
    "memory_axis": ("equation", "方程"),
    "memory_input": ("input {path}", "输入 {path}"), "memory_made": ("from equation {i}", "来自方程 {i}"),
    "diff_head": ("diff {a} → {b}: {summary}", "差异 {a} → {b}：{summary}"),
    "diff_summary": ("{added} added, {removed} removed, {changed} changed, {same} unchanged",
                     "新增 {added} 个，删除 {removed} 个，修改 {changed} 个，未变 {same} 个"),
    "changed": ("changed", "改动"), "ch_nesting": ("nesting", "嵌套位置"), "ch_primitive": ("primitive", "原语"),
    "ch_params": ("params", "参数"), "ch_input_types": ("input types", "输入类型"),
    "ch_output_types": ("output types", "输出类型"),
    # debugger
    "top": ("top", "顶层"), "done": ("done", "已完成"), "at_eqn": ("eqn {i}", "方程 {i}"),
    "frame_eqn": ("{prim}[eqn {i}]", "{prim}[方程 {i}]"), "iteration_n": ("iteration {n}", "第 {n} 次迭代"),
    "history_capped": ("history is capped at {n} moves: the oldest were dropped, so Back cannot reach the start",
                       "历史记录最多保留 {n} 步：最早的已丢弃，所以「后退」回不到起点"),
    "output_of": ("output of {id} ({prim})", "{id}（{prim}）的输出"),
    "name": ("name", "名称"), "shape": ("shape", "形状"), "dtype": ("dtype", "数据类型"),
    "statistics": ("statistics", "统计"), "sparkline": ("sparkline", "走势缩略图"),
    "dbg_stats": ("min {min}  max {max}  mean {mean}  NaN {nan}", "最小值 {min}  最大值 {max}  均值 {mean}  NaN {nan}"),
    "dbg_nan": ("NaN {nan}", "NaN {nan}"),
    "dbg_complex": ("|x| max {max}  real {re}  imag {im}  NaN {nan}", "|x| 最大值 {max}  实部 {re}  虚部 {im}  NaN {nan}"),
    "dbg_bool": ("True {n} of {size}", "{size} 个中 True {n} 个"),
    "dbg_key": ("PRNG key ({impl}), key data {data}", "PRNG 密钥（{impl}），密钥数据 {data}"),
    "dbg_finished": ("jaxprlens debugger: finished", "jaxprlens 调试器：已完成"),
    "dbg_at": ("jaxprlens debugger at {path}", "jaxprlens 调试器位于 {path}"),
    "dbg_next": ("next: {line}", "下一步：{line}"), "dbg_last": ("last: {id} ({prim})", "上一步：{id}（{prim}）"),
    "dbg_stopped": ("stopped: {reason}", "已停止：{reason}"), "dbg_capped": ("history capped at {n} moves", "历史记录上限 {n} 步"),
    "dbg_error": ("error: {error}", "错误：{error}"),
    "stop_breakpoint": ("breakpoint at eqn {id} ({prim})", "在方程 {id}（{prim}）处遇到断点"),
    "stop_nan": ("NaN in the outputs of eqn {id} ({prim})", "方程 {id}（{prim}）的输出中有 NaN"),
    "btn_step": ("Step", "单步"), "btn_into": ("Step into", "进入"), "btn_out": ("Step out", "跳出"),
    "btn_back": ("Back", "后退"), "btn_continue": ("Continue", "继续"), "btn_reset": ("Reset", "重置"),
    "tip_step": ("run the current equation (a loop or call at once) [key n]", "运行当前方程，循环或调用整体运行（快捷键 n）"),
    "tip_into": ("enter the branch taken, the loop's cond/body or the call [key i]",
                 "进入所走的分支、循环的条件或循环体、被调用的子 jaxpr（快捷键 i）"),
    "tip_out": ("finish this sub-jaxpr and return to its caller [key o]", "运行完这个子 jaxpr 并回到调用处（快捷键 o）"),
    "tip_back": ("undo the last move [key b]", "撤销上一步（快捷键 b）"),
    "tip_continue": ("run to the end or the next breakpoint [key c]", "运行到结束或下一个断点（快捷键 c）"),
    "tip_reset": ("back to the first equation [key r]", "回到第一个方程（快捷键 r）"),
    "position": ("position", "位置"), "tip_position": ("top-level equation (the end is the last value)",
                                                       "顶层方程（最右端为结束）"),
    "breakpoints": ("breakpoints", "断点"), "on_primitive": ("on primitive", "按原语"),
    "primitive_example": ("e.g. mul, dot_general", "例如 mul dot_general"),
    "break_here": ("Break here", "在此中断"), "tip_break_here": ("toggle a breakpoint on the highlighted row",
                                                                 "在高亮的行上设置或取消断点"),
    "stop_on_nan": ("stop on NaN", "遇到 NaN 时停止"), "keys_title": ("keyboard shortcuts", "键盘快捷键"),
    "keys_hint": ("keys (pointer over the debugger): n step · i into · o out · b back · c continue · r reset",
                  "快捷键（鼠标在调试器上时）：n 单步 · i 进入 · o 跳出 · b 后退 · c 继续 · r 重置"),
    "dbg_inf": ("Inf {n}", "Inf {n}"),
    "stop_condition": ("{cond} in the outputs of eqn {id} ({prim})", "方程 {id}（{prim}）的输出满足 {cond}"),
    "dbg_snapshot": ("debugger snapshot at the first equation (scripts do not run here; the recorded replay needs them)",
                     "调试器在第一个方程处的快照（此处不运行脚本，录制回放需要脚本）"),
    "dbg_snapshot_how": ("trust the notebook (JupyterLab: command palette › Trust Notebook) or run the cell to step "
                         "through it",
                         "信任此笔记本（命令面板 › 信任笔记本）或运行此单元格，即可逐步执行"),
    "stop_when": ("stop when a value has", "当某个值满足时停止："),
    "cond_example": ("max > 1e3, any Inf", "例如 max > 1e3 或 any Inf"),
    "mode_live": ("live", "实时"), "mode_replay": ("recorded replay", "录制回放"),
    "tip_live": ("stepping in the kernel with real values", "在内核中用真实值单步执行"),
    "tip_replay": ("a run recorded when the cell ran, stepped without a kernel",
                   "单元格运行时录制的一次运行，无需内核即可单步查看"),
    "printed": ("printed output", "打印输出"),
    "tip_gutter": ("click to set or clear a breakpoint on this row", "点击在此行设置或取消断点"),
    "histogram": ("histogram of the finite values", "有限值的直方图"),
    "cap_steps": ("the cap of {n} steps", "{n} 步的上限"), "cap_bytes": ("the cap of {kb} kB", "{kb} kB 的上限"),
    "cap_host": ("eqn {id} calls host functions ({names}): the recording stops before it, so that showing the "
                 "debugger calls none; the live debugger steps on",
                 "方程 {id} 调用宿主函数（{names}）：录制在它之前停止，这样显示调试器不会调用它们；实时调试器可继续单步"),
    "replay_capped": ("recording stopped after {n} steps ({why}): the replay ends there",
                      "录制在 {n} 步后停止（{why}），回放到此为止"),
    # new keys (helper dbg): a replay recorded after live edits (views/replay.py)
    "replay_edit_unreached": ("the edited run never reached where these edits were made: {names}",
                              "修改后的运行没有到达这些修改所在的位置：{names}"),
    # a transformed program's title (transform.INPUTS_NOTE)
    "note_vmap": (": a batch of 2, each mapped argument stacked twice along its axis",
                  "：批大小为 2，每个被映射的实参沿其轴堆叠两次"),
    "note_batched": (": a batch of {n}, the arguments as written", "：批大小为 {n}，实参即所写的值"),
    "note_jvp": (": inputs are the primals, then tangents of ones", "：输入依次为原始值和全 1 的切向量"),
    "note_linearize": (": the linear map, applied to tangents of ones", "：线性映射，作用于全 1 的切向量"),
    "note_vjp": (": the pullback, applied to a cotangent of ones", "：拉回函数，作用于全 1 的余切向量"),
    "note_transpose": (": the transposed linear map, applied to a cotangent of ones",
                       "：转置后的线性映射，作用于全 1 的余切向量"),
    # %jaxpr_config
    "config_lang": ("language: {value} ({origin})", "语言：{value}（{origin}）"),
    "lang_unknown": ("unknown language {name} (must be one of {langs})", "未知语言 {name}（必须是以下之一：{langs}）"),
    "origin_cell": ("this cell's --lang", "本单元格的 --lang"), "origin_config": ("set by %jaxpr_config", "由 %jaxpr_config 设置"),
    "origin_env": ("from $JAXPRLENS_LANG", "来自 $JAXPRLENS_LANG"), "origin_default": ("the default", "默认值"),
}

# English singulars, used by ``t`` when ``n == 1``.
ONE = {"en": {"n_eqns": "{n} equation", "folded_n": "{n} equation (folded)", "n_values": "{n} value",
              "graph_counts": "{n} equation, {drawn} drawn", "folded_item": "{path} ({n} eqn)",
              "iqr_note": "(± half the interquartile range of {n} run)",
              # a big table's notes on what is not drawn, stored or sent, when that is one row
              "more_text": "… {n} more equation (print(program) or %%jaxpr --text shows it)",
              "more_rows": "{n} more equation: run or trust the notebook to draw it as you scroll (--text prints it)",
              "more_items": "{n} more row (a call or an equation): run or trust the notebook to draw it as you "
                            "scroll (--text prints it)",
              "rows_cut": "{n} more equation is not stored in the notebook (it keeps the first {k} as data): "
                          "print(program) or %%jaxpr --text shows it",
              "items_cut": "{n} more row is not stored in the notebook (it keeps the first {k} as data): "
                           "print(program) or %%jaxpr --text shows it",
              "calls_cut": "{n} equation inside calls is not stored in the notebook (calls left out: {k}; it keeps "
                           "{s} rows as data): print(program) or %%jaxpr --text shows it",
              "rows_live": "{n} more equation comes from the kernel as you scroll or search (the notebook stores "
                           "the first {k} as data)",
              "items_live": "{n} more row comes from the kernel as you scroll or search (the notebook stores the "
                            "first {k} as data)",
              "calls_live": "{n} equation inside calls comes from the kernel when you open or search it (calls "
                            "left out of the notebook: {k}; it keeps {s} rows as data)",
              "sig_more": "… {n} more value (print(program) lists every value)",
              "n_kernels": "{n} kernel", "memory_residuals": "residuals: {n} forward value the backward pass "
                                                             "reads ({bytes}): {values}",
              "needs_transform": "{given} only works with --transform, e.g. `%%jaxpr --transform grad --compare`"}}

for _key, _pair in VIEW_TEXT.items():
    assert _key not in TEXT["en"], f"catalogue key {_key!r} defined twice"
    for _lang, _text in zip(LANGS, _pair):
        TEXT[_lang][_key] = _text

# The stepper's endings, the eager-vs-jax.jit comparison and what-if edits (views/dbgstate.py says them).
STEP_TEXT = {
    "stop_out_top": ("Step out at the top level: there is no caller to return to, so it ran on to the end, like Continue",
                     "在顶层跳出：没有可以返回的调用处，所以像“继续”一样运行到了结尾"),
    "stop_no_stop": ("ran to the end: no breakpoint or condition fired ({what})",
                     "已运行到结尾：没有断点或条件被触发（{what}）"),
    "no_stop_bps": ("{n} breakpoints", "{n} 个断点"),
    "jit_close": ("Compared with jax.jit: {n} of {total} values differ in the last digits, by at most {abs} "
                  "({rel} of the output's largest magnitude, in {path}), within the tolerance (rtol {rtol}, "
                  "atol {atol}). Expected: {why}",
                  "与 jax.jit 比较：{total} 个值中有 {n} 个在末几位不同，最大相差 {abs}（为输出最大绝对值的 {rel}，"
                  "在 {path}），在容差之内（rtol {rtol}，atol {atol}）。这是预期的：{why}"),
    "jit_differ": ("Compared with jax.jit: {beyond} of {total} values differ beyond the tolerance (rtol {rtol}, "
                   "atol {atol}; set it with jit_rtol= / jit_atol=), by up to {abs} ({rel} of the output's largest "
                   "magnitude, in {path}); {n} differ in all. Rounding differences are expected: {why} They grow "
                   "where a program divides by a value near zero, e.g. Adam's update of a parameter whose gradient "
                   "is ~0.{after}",
                   "与 jax.jit 比较：{total} 个值中有 {beyond} 个的差异超出容差（rtol {rtol}，atol {atol}；可用 "
                   "jit_rtol= / jit_atol= 设置），最大相差 {abs}（为输出最大绝对值的 {rel}，在 {path}）；共有 {n} 个值"
                   "不同。舍入差异是预期的：{why}在程序除以接近零的值时，差异会被放大，例如梯度约为 0 的参数的 Adam 更新；"
                   "{after}"),
    "jit_differ_host": ("Compared with jax.jit, which called the program's host functions ({names}) once more: "
                        "{beyond} of {total} values differ beyond the tolerance (rtol {rtol}, atol {atol}), by up to "
                        "{abs} ({rel} of the output's largest magnitude, in {path}). Values that depend on what the host "
                        "functions keep (a counter, a file, a random generator) differ on a second run: that is "
                        "expected, not a stepper bug.",
                        "与 jax.jit 比较，而 jax.jit 又调用了一次程序的宿主函数（{names}）：{total} 个值中有 {beyond} 个的"
                        "差异超出容差（rtol {rtol}，atol {atol}），最大相差 {abs}（为输出最大绝对值的 {rel}，在 {path}）。"
                        "依赖宿主函数所保存状态（计数器、文件、随机数生成器）的值在第二次运行时会不同：这是预期的，"
                        "不是单步执行器的缺陷。"),
    "jit_report": (" If many values are far off, it may be a stepper bug: please report the program.",
                   "如果许多值相差很远，可能是单步执行器的缺陷：请报告这个程序。"),
    "jit_host": ("Not compared with jax.jit: the program calls host functions ({names}), and compiling it to compare "
                 "would call them once more (a counter, a file or a log would see a second run). To compare anyway: "
                 "stepper.jit_check(host=True).",
                 "未与 jax.jit 比较：程序调用了宿主函数（{names}），为比较而编译运行会再调用它们一次（计数器、文件或日志"
                 "会看到第二次运行）。如仍要比较：stepper.jit_check(host=True)。"),
    "jit_equal_host": ("Compared with jax.jit: the outputs are equal.", "与 jax.jit 比较：输出相同。"),
    "jit_host_ran": (" jax.jit called the program's host functions ({names}) once more: values that depend on what "
                     "they keep (a counter, a file, a random generator) can differ, and that is no stepper bug.",
                     "jax.jit 又调用了一次程序的宿主函数（{names}）：依赖它们所保存状态（计数器、文件、随机数生成器）的值"
                     "可能不同，这不是单步执行器的缺陷。"),
    "jit_why": ("jax.jit compiles the whole program, and XLA may reorder (reassociate) and fuse floating-point "
                "operations, where the stepper rounds after every equation.",
                "jax.jit 编译整个程序，XLA 可能重新结合（reassociate）并融合浮点运算，而单步执行器在每个方程之后都舍入。"),
    "jit_why_low": (" The program computes in {low}: compiled code may keep extra precision between operations "
                    "and elide a cast round trip such as float32 → {low} → float32 (XLA does so on GPUs), where "
                    "each eager step rounds to {low}.",
                    "程序用 {low} 计算：编译后的代码可能在运算之间保留更高的精度，并省去 float32 → {low} → float32 "
                    "这样的往返转换（XLA 在 GPU 上会这样做），而每个逐步执行的方程都舍入到 {low}。"),
    "jit_failed": ("jax.jit raised where the stepper ran: {detail}", "单步执行器运行成功，而 jax.jit 报错：{detail}"),
    "jit_mismatch": ("The stepped outputs do not match jax.jit's: {detail}", "逐步执行的输出与 jax.jit 的不一致：{detail}"),
    "jit_skipped": ("Not compared with jax.jit: the program has {n} equations, past the budget of {budget} "
                    "(compiling it would hold up the kernel). To compare anyway: the debugger's compare button, or "
                    "stepper.jit_check(budget=None) from Python.",
                    "未与 jax.jit 比较：程序有 {n} 个方程，超过预算 {budget}（编译它会长时间占用内核）。"
                    "如仍要比较：点击调试器的比较按钮，或在 Python 中调用 stepper.jit_check(budget=None)。"),
    "jit_edited": ("Not compared with jax.jit: an edit (set_value) changed this run.",
                   "未与 jax.jit 比较：一次编辑（set_value）改变了这次运行。"),
    "edit_note": ("{n} edits in effect ({names}); marked values were changed by an edit",
                  "{n} 处编辑生效（{names}）；标记的值受编辑影响"),
    "changed_by_edit": ("changed by an edit", "受编辑影响"),
    "cap_kinds": ("the cap of {n} kinds of operation (XLA compiles each new kind the first time it runs; the live "
                  "debugger steps on)", "{n} 种运算的上限（每种新运算第一次运行时 XLA 都要编译；实时调试器可继续单步）"),
    "edit_nan": ("NaN", "NaN"), "edit_zero": ("0", "0"), "edit_scale": ("×2", "×2"), "edit_eps": ("+ε", "+ε"),
    "edit_set": ("= value", "= 数值"),
    "btn_jit": ("compare now", "现在比较"),
    "tip_jit": ("compile the whole program with jax.jit and compare (this holds up the kernel while XLA compiles)",
                "用 jax.jit 编译整个程序并比较（XLA 编译期间内核会被占用）"),
    "tip_edit": ("what if: replace this value (NaN, zero, doubled, plus a small ε, or a number you type) and step on "
                 "with it; Back undoes it", "假如：替换这个值（NaN、零、加倍、加一个小 ε，或输入的数），然后继续单步；后退可撤销"),
    "edit_needs_kernel": ("editing a value needs the kernel (this is a recorded replay)",
                          "编辑值需要内核（这是录制的回放）"),
    "bad_toggle": ("no equation {eqn} in this program ({n} equations; ids look like {example})",
                   "这个程序中没有方程 {eqn}（共 {n} 个方程；编号形如 {example}）"),
    # past this size the debugger does not offer "compare now" (views/dbgstate.COMPARE_MAX)
    "jit_too_large": ("Not compared with jax.jit: the program has {n} equations, and XLA's compile time grows "
                      "faster than the program (minutes past {max} equations, holding up the kernel). To compare "
                      "anyway, outside the debugger: stepper.jit_check(budget=None).",
                      "未与 jax.jit 比较：程序有 {n} 个方程，而 XLA 的编译时间增长得比程序规模更快（超过 {max} 个方程时"
                      "需要数分钟，其间内核被占用）。如仍要比较，请在调试器之外调用 stepper.jit_check(budget=None)。"),
    # Stepper.compare_with_jit's JitDiff (present.words.jit_diff_text)
    "jitdiff": ("{what}{more}: the stepper runs each equation eagerly, jax.jit compiles the whole program (fusion, "
                "XLA's numerics, dead code removed)",
                "{what}{more}：单步执行器逐个立即执行方程，而 jax.jit 编译整个程序（融合、XLA 的数值实现、删除无用代码）"),
    "jitdiff_elements": ("{path}: {n} of {size} elements differ from jax.jit's{by}",
                         "{path}：{size} 个元素中有 {n} 个与 jax.jit 的结果不同{by}"),
    "jitdiff_value": ("{path}: the value differs from jax.jit's{by}", "{path}：值与 jax.jit 的结果不同{by}"),
    "jitdiff_by": (", by up to {gap}", "，最大相差 {gap}"),
    "jitdiff_more": (" (and {n} more outputs)", "（另有 {n} 个输出也不同）"),
    "jitdiff_type": ("{path} is {got} stepped but {want} compiled", "{path} 逐步执行得到 {got}，编译后却是 {want}"),
    "jitdiff_count": ("jax.jit gives {want} outputs, the stepper {got}", "jax.jit 给出 {want} 个输出，单步执行器给出 {got} 个"),
    "jitdiff_host": ("not compared with jax.jit: the program calls host functions ({names}), and jax.jit would call "
                     "them once more; to compare anyway: stepper.compare_with_jit(host=True)",
                     "未与 jax.jit 比较：程序调用了宿主函数（{names}），jax.jit 会再调用它们一次；如仍要比较："
                     "stepper.compare_with_jit(host=True)"),
    "jitdiff_failed": ("jax.jit raised {error} where the stepper ran: {detail}",
                       "单步执行器运行成功，而 jax.jit 报错 {error}：{detail}"),
    # why a step into ran an equation whole (engine.frames.Over, present.words.over_text)
    "over_devices": ("{prim} bodies run as one step: collectives need all devices at once (eqn {id} ran whole)",
                     "{prim} 的函数体作为一步运行：集合通信需要所有设备同时参与（方程 {id} 整体运行）"),
    "over_shards": ("{prim} bodies run as one step: collectives need all shards at once (eqn {id} ran whole)",
                    "{prim} 的函数体作为一步运行：集合通信需要所有分片同时参与（方程 {id} 整体运行）"),
    "over_combiner": ("{prim}'s {what} runs on single elements inside {prim}: eqn {id} ran as one step",
                      "{prim} 的{what}在 {prim} 内部逐个元素运行：方程 {id} 作为一步运行"),
    "over_kernel": ("{prim} kernels run as one step: the kernel runs once per grid point on refs to blocks of the "
                    "operands and results, which the stepper does not step through (eqn {id} ran whole{grid})",
                    "{prim} 内核作为一步运行：内核在每个网格点上对操作数和结果的块的引用运行一次，单步执行器不逐步进入"
                    "（方程 {id} 整体运行{grid}）"),
    "over_kernel_grid": (", {n} grid points", "，共 {n} 个网格点"),
    "over_refs": ("{prim} bodies run as one step: their binders are refs holding the operands, which the stepper "
                  "does not step through (eqn {id} ran whole)",
                  "{prim} 的函数体作为一步运行：其绑定变量是持有操作数的引用，单步执行器不逐步进入（方程 {id} 整体运行）"),
    "and": (" and ", "和"),
}
ONE["en"].update({"no_stop_bps": "{n} breakpoint", "edit_note": "{n} edit in effect ({names}); marked values "
                                                                  "were changed by an edit",
                  "jitdiff_more": " (and {n} more output)"})

for _key, _pair in STEP_TEXT.items():
    assert _key not in TEXT["en"], f"catalogue key {_key!r} defined twice"
    for _lang, _text in zip(LANGS, _pair):
        TEXT[_lang][_key] = _text


# The course's exercises: what a check says of an answer (exercise.check), and the kinds of value it names.
EXERCISE_TEXT = {
    "ex_pending": ("Not answered yet: {what}, then run this cell again.", "尚未作答：{what}，再运行本单元格。"),
    "ex_replace": ("replace None with your prediction", "把 None 换成你的预测"),
    "ex_correct": ("Correct!", "正确！"),
    "ex_wrong": ("Not quite: {what} {hint}", "还不对：{what}{hint}"),
    "ex_answered": ("you answered {answer}.", "你的答案是 {answer}。"),
    "ex_shape": ("your answer has shape {shape}, not the answer's shape.", "你的答案形状为 {shape}，与答案的形状不同。"),
    "ex_type": ("right values, wrong type: you answered {answer}, {got}; the answer is {want}.",
                "值对了，类型不对：你的答案 {answer} 是{got}，而答案是{want}。"),
    "ex_type_part": ("right values, wrong type: in your answer {answer}, {part} is {got} where the answer has "
                     "{want}.", "值对了，类型不对：你的答案 {answer} 中，{part} 是{got}，而答案在这里是{want}。"),
    "ex_uncomparable": ("your answer is {got}, which cannot be compared with {want}: answer with {want}.",
                        "你的答案是{got}，无法与{want}比较：请用{want}作答。"),
    "ex_uncalled": ("your answer is {got}, not a value: call it to get one, or answer with {want}.",
                    "你的答案是{got}，不是一个值：调用它得到值，或用{want}作答。"),
    "ex_compare_error": ("comparing your answer ({got}) with the answer raised {error}.",
                         "把你的答案（{got}）与答案比较时出错：{error}。"),
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
}
for _key, _pair in EXERCISE_TEXT.items():
    assert _key not in TEXT["en"], f"catalogue key {_key!r} defined twice"
    for _lang, _text in zip(LANGS, _pair):
        TEXT[_lang][_key] = _text


# Time budgets of --run / --profile, and why the estimate and XLA's cost analysis differ (views/run.py).
RUN_TEXT = {
    # %%jaxpr on a traced value used as a Python value (magic._TRACER_FIX)
    "fix_TracerBoolConversionError": (
        "Python `if`/`while`/`and`/`or` on a traced value runs at trace time, when the value is unknown; "
        "use jax.lax.cond / jax.lax.select for branches, jax.lax.while_loop / fori_loop for loops, "
        "or make the argument static with --static-argnums N.",
        "对被追踪的值使用 Python 的 `if`/`while`/`and`/`or` 会在追踪时执行，而那时值还未知；分支请用 jax.lax.cond / "
        "jax.lax.select，循环请用 jax.lax.while_loop / fori_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_ConcretizationTypeError": (
        "a traced value was used where Python needs a concrete one (a shape, a loop bound, an `if`); "
        "use jax.lax.cond / jax.lax.while_loop for control flow, or make the argument static with "
        "--static-argnums N.",
        "在 Python 需要具体值的地方（形状、循环边界、`if`）用了被追踪的值；控制流请用 jax.lax.cond / "
        "jax.lax.while_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_TracerIntegerConversionError": (
        "a traced value was used as a Python int (e.g. an index or range bound); use jax.lax.dynamic_slice "
        "or jax.lax.fori_loop, or make the argument static with --static-argnums N.",
        "把被追踪的值当作 Python 整数使用（例如下标或 range 的边界）；请用 jax.lax.dynamic_slice 或 "
        "jax.lax.fori_loop，或用 --static-argnums N 把该实参设为静态。"),
    "fix_TracerArrayConversionError": (
        "a traced value was converted to a NumPy array; use jax.numpy (jnp) instead of numpy (np) inside "
        "the traced function.",
        "被追踪的值被转换成了 NumPy 数组；在被追踪的函数里请用 jax.numpy（jnp）而不是 numpy（np）。"),
    # the magic's usage errors (magic.py): what to type instead
    "opt_unrecognized": ("unrecognized arguments: {opts}", "无法识别的选项：{opts}"),
    "opt_did_you_mean": ("did you mean {close}?", "你是不是想写 {close}？"),
    "opt_bad": ("{error}", "选项有误：{error}"),
    "opt_valid": ("valid options: {options}  (see %%jaxpr? for help)", "可用的选项：{options}（%%jaxpr? 查看帮助）"),
    "give_call": ("give a call to trace, e.g. `%jaxpr f(x, y)`, or use `%%jaxpr` on a cell whose last line is the call",
                  "请给出要追踪的调用，例如 `%jaxpr f(x, y)`，或对最后一行是该调用的单元格使用 `%%jaxpr`"),
    "needs_transform": ("{given} only work with --transform, e.g. `%%jaxpr --transform grad --compare`",
                        "{given} 只能与 --transform 一起使用，例如 `%%jaxpr --transform grad --compare`"),
    "batched_needs_vmap": ("--batched only works with --transform vmap, e.g. `%%jaxpr --transform vmap --batched`",
                           "--batched 只能与 --transform vmap 一起使用，例如 `%%jaxpr --transform vmap --batched`"),
    "cell_syntax": ("syntax error in the cell, line {line}: {msg}\n    {text}\nfix that line and run the cell again",
                    "单元格第 {line} 行有语法错误：{msg}\n    {text}\n请改正这一行后再运行单元格"),
    "cell_empty": ("the cell is empty; end it with the call to trace, e.g. `f(x, y)`",
                   "单元格是空的；请以要追踪的调用结尾，例如 `f(x, y)`"),
    "last_not_call": ("the last line must call a JAX function on arrays, e.g. `f(x)` or `y = f(x)`; line {line}{shown}"
                      "is {what}. The cell ran; add the call to trace as its last line",
                      "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)` 或 `y = f(x)`；第 {line} 行{shown}是{what}。"
                      "单元格已运行；请把要追踪的调用写在最后一行"),
    "last_print": ("the last line prints `{text}`: print traces nothing (it prints a tracer, and the jaxpr has no "
                   "equations). Make the call itself the last line: `{inner}`",
                   "最后一行打印了 `{text}`：print 不追踪任何东西（它打印出一个追踪值，jaxpr 里没有方程）。"
                   "请让调用本身成为最后一行：`{inner}`"),
    "last_none": ("`{text}` returns None and has no equations: there is nothing to show. Make the last line the call "
                  "of the JAX function, e.g. `f(x)`",
                  "`{text}` 返回 None，也没有方程：没有可显示的内容。请让最后一行调用该 JAX 函数，例如 `f(x)`"),
    "not_a_function": ("`{call}` is {kind}, not a function; the last line must call a function, e.g. `f(x)`",
                       "`{call}` 是 {kind} 对象，不是函数；最后一行必须调用一个函数，例如 `f(x)`"),
    "not_arrays": ("the last line must call a JAX function on arrays, e.g. `f(x)`; `{text}` gets {kinds}, not an "
                   "array or a number", "最后一行必须用数组调用一个 JAX 函数，例如 `f(x)`；`{text}` 的实参是 {kinds}，"
                                       "不是数组或数字"),
    "vmap_call_fails": ("`{text}` fails on its arguments as written", "`{text}` 在所写的实参上失败"),
    "vmap_stacked": ("vmap fails on a batch of 2 (each mapped argument stacked twice)",
                     "vmap 在批大小为 2 的批上失败（每个被映射的实参堆叠两次）"),
    "vmap_batched_fails": ("vmap over the arguments as written fails: {said}", "对所写的实参做 vmap 失败：{said}"),
    "vmap_hint": ("; --transform vmap treats the call as one example and stacks each mapped argument twice: if the "
                  "arguments are already a batch, add --batched to map over them as written, as "
                  "jax.vmap(f, in_axes)(*args) does",
                  "；--transform vmap 把这次调用当作一个样本，并把每个被映射的实参堆叠两次：如果实参已经是一批，"
                  "请加上 --batched，直接在所写的实参上映射（与 jax.vmap(f, in_axes) 作用于 *args 相同）"),
    "cell_line": (" (cell line {line}: {text})", "（单元格第 {line} 行：{text}）"),
    "tb_hidden": ("({n} frames inside JAX not shown)", "（JAX 内部的 {n} 个栈帧未显示）"),
    "stmt_Assign": ("an assignment of something that is not a call", "对非调用的赋值"),
    "stmt_AnnAssign": ("an annotated assignment", "带类型注解的赋值"),
    "stmt_AugAssign": ("an augmented assignment", "增量赋值"), "stmt_Expr": ("an expression, not a call", "表达式，不是调用"),
    "stmt_FunctionDef": ("a function definition", "函数定义"), "stmt_AsyncFunctionDef": ("a function definition", "函数定义"),
    "stmt_ClassDef": ("a class definition", "类定义"), "stmt_Import": ("an import", "import 语句"),
    "stmt_ImportFrom": ("an import", "import 语句"), "stmt_For": ("a for loop", "for 循环"),
    "stmt_While": ("a while loop", "while 循环"), "stmt_If": ("an if statement", "if 语句"),
    "stmt_With": ("a with block", "with 块"), "stmt_Try": ("a try block", "try 块"), "stmt_Return": ("a return", "return 语句"),
    "stmt_Pass": ("pass", "pass 语句"), "stmt_Delete": ("a del", "del 语句"), "stmt_Assert": ("an assert", "assert 语句"),
    "stmt_other": ("{kind} statement", "{kind} 语句"),
    # the model's and engines' errors (model.errors.KeyedError, model.program.TraceError), worded here
    "trace_static_range": ("static_argnums has {i}, but the call has {n} positional argument(s)",
                           "static_argnums 含有 {i}，但调用只有 {n} 个位置实参"),
    "trace_unhashable": ("argument `{name}` (position {i}) is static, but its value of type {kind} is not hashable; "
                         "static arguments must be hashable Python values (int, str, tuple): take position {i} out "
                         "of static_argnums to trace it as an array",
                         "实参 `{name}`（位置 {i}）是静态的，但它的 {kind} 类型的值不可哈希；静态实参必须是可哈希的 Python "
                         "值（int、str、tuple）：请把位置 {i} 移出 static_argnums，把它当作数组追踪"),
    "trace_static_arrays": ("argument `{name}` (position {i}) is static, but its value of type {kind} holds {n} array(s), "
                            "and a static argument must be a hashable Python value: take position {i} out of "
                            "static_argnums (jaxprlens traces its arrays and holds its other leaves fixed, as "
                            "eqx.filter_jit does); a jax.jit'd function that takes it wants eqx.filter_jit, or "
                            "`params, static = eqx.partition(model, eqx.is_array)`; for a flax nnx Module, nnx.jit "
                            "or `graphdef, state = nnx.split(model)`",
                            "实参 `{name}`（位置 {i}）是静态的，但它的 {kind} 类型的值持有 {n} 个数组，而静态实参必须是可哈希的 "
                            "Python 值：请把位置 {i} 移出 static_argnums（jaxprlens 会追踪其中的数组，并像 eqx.filter_jit "
                            "那样固定其余叶子）；接收它的 jax.jit 函数应改用 eqx.filter_jit，或 "
                            "`params, static = eqx.partition(model, eqx.is_array)`；flax nnx 的 Module 请用 nnx.jit "
                            "或 `graphdef, state = nnx.split(model)`"),
    "trace_jit_non_array": ("`{fn}` is jax.jit'd, and its argument at `{path}` is of type {kind}, not an array: jax.jit "
                            "traces every leaf of its arguments. For an Equinox module use eqx.filter_jit in place of "
                            "jax.jit, or split it with `params, static = eqx.partition(model, eqx.is_array)` and "
                            "pass `static` as a static argument; for a flax nnx Module use nnx.jit, or "
                            "`graphdef, state = nnx.split(model)` and pass `state`",
                            "`{fn}` 经过 jax.jit，而它位于 `{path}` 的实参是 {kind} 类型，不是数组：jax.jit 会追踪实参的每个"
                            "叶子。Equinox 模块请用 eqx.filter_jit 代替 jax.jit，或用 "
                            "`params, static = eqx.partition(model, eqx.is_array)` 拆分，并把 `static` 作为静态实参传入；"
                            "flax nnx 的 Module 请用 nnx.jit，或 `graphdef, state = nnx.split(model)` 后传入 `state`"),
    "trace_non_array": ("a value of type {kind} reached JAX where it needs an array (often a module's field that is "
                        "no array, passed to a jax.jit'd function): for an Equinox module use eqx.filter_jit or "
                        "eqx.partition(model, eqx.is_array); for a flax nnx Module, nnx.jit or nnx.split(model)",
                        "类型为 {kind} 的值到了 JAX 需要数组的地方（常见于把模块中不是数组的字段传给 jax.jit 函数）："
                        "Equinox 模块请用 eqx.filter_jit 或 eqx.partition(model, eqx.is_array)；flax nnx 的 Module 请用 "
                        "nnx.jit 或 nnx.split(model)"),
    "trace_not_callable": ("{kind} object is not callable; pass a function, e.g. trace(f, x)",
                           "{kind} 对象不可调用；请传入函数，例如 trace(f, x)"),
    "run_repeat": ("repeat must be at least 1, got {repeat}", "repeat 至少为 1，收到的是 {repeat}"),
    "run_budget": ("the time budget must be a positive number of seconds, got {budget}",
                   "时间预算必须是正的秒数，收到的是 {budget}"),
    "tf_unknown": ("unknown transformation {name} (must be one of {names})", "未知变换 {name}（必须是以下之一：{names}）"),
    "tf_flag": ("{flag} does not apply to {name}; it applies to {takes}", "{flag} 不适用于 {name}；它适用于 {takes}"),
    "tf_static_arg": ("argument {i} is static (static_argnums), so {name} cannot take it; choose a traced argument",
                      "实参 {i} 是静态的（static_argnums），{name} 不能作用于它；请选择一个被追踪的实参"),
    "tf_argnums_range": ("argnums has {i}, but the call has {n} positional argument(s); choose from {valid}",
                         "argnums 含有 {i}，但调用只有 {n} 个位置实参；请从 {valid} 中选择"),
    "tf_not_float": ("argument {j} is not floating point, so it has no derivative; choose argnums from {valid}",
                     "实参 {j} 不是浮点数，没有导数；请从 {valid} 中选择 argnums"),
    "tf_no_float_at_all": ("argument {j} is not floating point, so it has no derivative; no argument is, so pass "
                           "floats (e.g. jnp.arange(3.) or x.astype(jnp.float32))",
                           "实参 {j} 不是浮点数，没有导数；所有实参都不是浮点数，请传入浮点数（例如 jnp.arange(3.) 或 "
                           "x.astype(jnp.float32)）"),
    "tf_no_float": ("no floating-point argument to differentiate", "没有可求导的浮点实参"),
    "tf_in_axes_text": ("--in-axes takes integers or None separated by commas, such as 0,None; got {text}",
                        "--in-axes 接受以逗号分隔的整数或 None，例如 0,None；收到的是 {text}"),
    "tf_in_axes_count": ("in_axes has {k} entries but the call has {n} positional argument(s); give one axis (or None) "
                         "per argument", "in_axes 有 {k} 项，但调用有 {n} 个位置实参；请为每个实参给出一个轴（或 None）"),
    "tf_maps_none": ("in_axes maps no argument; give at least one axis, e.g. 0", "in_axes 没有映射任何实参；请至少给出一个轴，例如 0"),
    "arg_where": ("argument {i}{path}", "实参 {i}{path}"), "kwarg_where": ("argument `{i}`{path}", "实参 `{i}`{path}"),
    "tf_batch_axis": ("cannot build a batch: in_axes puts {where}'s batch axis at {ax}, but it has {ndim} dimension(s), "
                      "so the axis must be between {lo} and {hi}", "无法构建批：in_axes 把{where} 的批轴放在 {ax}，但它只有 "
                                                                 "{ndim} 维，所以轴必须在 {lo} 到 {hi} 之间"),
    "tf_no_axis": ("cannot vmap over the arguments as written: {where} is {type}, which has no axis {ax} to map; give it a "
                   "batch axis, map it with None in --in-axes, or drop --batched to stack the call as one example",
                   "无法对所写的实参做 vmap：{where} 是 {type}，没有可映射的轴 {ax}；请给它一个批轴、在 --in-axes 中用 None "
                   "不映射它，或去掉 --batched，把这次调用当作一个样本来堆叠"),
    "tf_sizes_differ": ("cannot vmap over the arguments as written: the batch sizes differ ({sizes}); make them agree, or "
                        "map an argument with None in --in-axes", "无法对所写的实参做 vmap：批大小不一致（{sizes}）；"
                                                                 "请让它们一致，或在 --in-axes 中用 None 不映射某个实参"),
    "tf_size_of": ("{where} has {n} along axis {ax}", "{where} 沿轴 {ax} 有 {n} 个"),
    "tf_grad_scalar": ("grad needs a function with one scalar output; {fn} returns {types}. Use --transform jacrev or "
                       "jacfwd (any output), or vjp, or reduce it with jnp.sum",
                       "grad 需要只有一个标量输出的函数；{fn} 返回 {types}。请用 --transform jacrev 或 jacfwd（任意输出）、"
                       "vjp，或用 jnp.sum 把输出归约为标量"),
    "path_unknown": ("unknown path {path} (must be one of {shown})", "未知路径 {path}（必须是以下之一：{shown}）"),
    "path_no_nested": ("unknown path {path}: this program has no nested jaxprs", "未知路径 {path}：这个程序没有嵌套的 jaxpr"),
    "group_unknown": ("unknown group {group} (must be one of {shown})", "未知调用 {group}（必须是以下之一：{shown}）"),
    "group_none": ("unknown group {group}: this program has no inlined calls", "未知调用 {group}：这个程序没有被内联的调用"),
    "graph_negative": ("depth and max_nodes must be >= 0 (got depth={depth}, max_nodes={max_nodes})",
                       "depth 和 max_nodes 必须 >= 0（收到 depth={depth}，max_nodes={max_nodes}）"),
    "int_list": ("{option} takes comma-separated integers such as 0 or 0,1; got {text}",
                 "{option} 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 {text}"),
    "device_type": ("device must be a string such as 'cpu' or 'gpu:1', got {kind}",
                    "设备必须是字符串，例如 'cpu' 或 'gpu:1'，收到的是 {kind}"),
    "device_unknown": ("unknown device {spec} (write platform[:index], e.g. cpu, gpu:1, tpu:0); devices here: {listing}",
                       "未知设备 {spec}（请写成 platform[:index]，例如 cpu、gpu:1、tpu:0）；这里的设备：{listing}"),
    "device_absent": ("no {platform} device here for {spec}; devices here: {listing}",
                      "这里没有 {platform} 设备，无法使用 {spec}；这里的设备：{listing}"),
    "device_index": ("no device {spec}: there are {n} {platform} device(s) (indices 0..{last}); devices here: {listing}",
                     "没有设备 {spec}：这里有 {n} 个 {platform} 设备（序号 0..{last}）；这里的设备：{listing}"),
    "value_not_run": ("{name} is computed by eqn {eqn} ({primitive}), which has not run yet (at eqn {pc}): step past "
                      "it first, then set it", "{name} 由方程 {eqn}（{primitive}）计算，它还没有运行（当前在方程 {pc}）："
                                               "请先单步越过它，再设置该值"),
    "value_not_run_in": ("{name} is computed by eqn {eqn} ({primitive}), which has not run yet (at eqn {pc} of {path}): "
                         "step past it first, then set it", "{name} 由方程 {eqn}（{primitive}）计算，它还没有运行（当前在 "
                                                            "{path} 的方程 {pc}）：请先单步越过它，再设置该值"),
    "value_undefined": ("no value {name} is defined at eqn {pc} (the values defined here: {shown})",
                        "在方程 {pc} 处没有定义值 {name}（这里已定义的值：{shown}）"),
    "value_undefined_in": ("no value {name} is defined at eqn {pc} of {path} (the values defined here: {shown})",
                           "在 {path} 的方程 {pc} 处没有定义值 {name}（这里已定义的值：{shown}）"),
    "set_not_array": ("{var} is not an array value: only arrays can be set", "{var} 不是数组值：只能设置数组"),
    "set_wrong_type": ("{name} is {type}, but the value given is {given}: pass a value of the same shape and dtype, "
                       "e.g. jnp.asarray(value, jnp.{dtype})", "{name} 的类型是 {type}，但给出的值是 {given}：请给出形状和 "
                                                              "dtype 都相同的值，例如 jnp.asarray(value, jnp.{dtype})"),
    "set_wrong_shape": ("{name} is {type}, but the value given has shape {given}: pass a value of shape {shape}",
                        "{name} 的类型是 {type}，但给出的值形状为 {given}：请给出形状为 {shape} 的值"),
    "set_wrong_dtype": ("{name} is {type}; {value} is not a {dtype} value", "{name} 的类型是 {type}；{value} 不是 {dtype} 值"),
    "edit_unknown": ("unknown edit {op} (must be one of {ops})", "未知的修改 {op}（必须是以下之一：{ops}）"),
    "edit_nan_float": ("{name} is {type}: only a float value can be NaN", "{name} 的类型是 {type}：只有浮点值可以设为 NaN"),
    "edit_set_empty": ("type a number to set the value to", "请输入要设置的数值"),
    "bp_needs": ("a breakpoint needs eqn='2/body/1', primitive='mul' or line=3",
                 "断点需要 eqn（方程编号，如 '2/1'）、primitive='mul' 或 line=3"),
    "bp_no_eqn": ("no equation {eqn} (the program has {n} equations, ids like {ids})",
                  "没有方程 {eqn}（程序共有 {n} 个方程，编号形如 {ids}）"),
    "condition_unknown": ("unknown condition {text} (must be one of 'any NaN', 'any Inf', 'max > 1e3', 'min < -1', "
                          "'abs max >= 10')", "未知条件 {text}（必须是以下之一：'any NaN'、'any Inf'、'max > 1e3'、"
                                              "'min < -1'、'abs max >= 10'）"),
    "no_error": ("no error", "没有错误"),
    "seconds": ("{n} s", "{n} 秒"),
    "budget_stopped": ("stopped early: the time budget of {budget} was spent after {n} of {asked} runs "
                       "(more with --budget S or budget=S)",
                       "提前停止：{budget}的时间预算在 {asked} 次运行中的第 {n} 次后用完（用 --budget S 或 budget=S 放宽）"),
    "profile_stopped": ("stopped early: the time budget of {budget} was spent; {detail} (more with --budget S or "
                        "budget=S)", "提前停止：{budget}的时间预算已用完；{detail}（用 --budget S 或 budget=S 放宽）"),
    "untimed_rows": ("{n} of {total} equations not timed", "{total} 个方程中有 {n} 个未计时"),
    "fewer_runs": ("{n} timed fewer than {asked} times", "{n} 个方程计时少于 {asked} 次"),
    "whole_fewer_runs": ("the whole program ran {n} of {asked} times", "整个程序运行了 {asked} 次中的 {n} 次"),
    "not_timed": ("not timed (time budget spent)", "未计时（时间预算已用完）"),
    "sum_and_whole": ("sum of the equations run on their own {t}; {whole}", "各方程单独运行之和 {t}；{whole}"),
    "whole_compiled": ("whole program, compiled as one (XLA fuses equations): {timing}",
                       "整个程序编译为一体（XLA 会融合方程）：{timing}"),
    "cost_gap": ("why they differ: the estimate adds up each equation as written, every operand read from memory "
                 "and every result written back, a transcendental (sin, exp, ...) counted as one FLOP per element; "
                 "XLA counts the program it compiled, after fusion (intermediate values stay on chip) and "
                 "simplification, transcendentals apart.",
                 "为何不同：估计值把写出的每个方程相加，每个操作数都从内存读取、每个结果都写回内存，超越函数（正弦、指数等）"
                 "每个元素计 1 FLOP；XLA 计的是它编译出的程序：经过融合（中间值留在芯片上）和化简，超越函数单独计数。"),
    "cost_gap_calls": (" XLA does not count inside the library calls it hands work to ({calls}): on a GPU, "
                       "matmuls go to cuBLAS and convolutions to cuDNN, so its FLOPs can be far below the estimate.",
                       "XLA 不计入它交给库完成的调用（{calls}）内部的开销：在 GPU 上，矩阵乘法交给 cuBLAS、卷积交给 "
                       "cuDNN，所以它的 FLOP 数可能远低于估计值。"),
}
for _key, _pair in RUN_TEXT.items():
    assert _key not in TEXT["en"], f"catalogue key {_key!r} defined twice"
    for _lang, _text in zip(LANGS, _pair):
        TEXT[_lang][_key] = _text


# ---------------------------------------------------------------- the reader's language

ENV = "JAXPRLENS_LANG"
_config: dict = {"lang": None}                  # set by ``%jaxpr_config --lang``


def check(lang: str) -> str:
    """``lang`` if jaxprlens speaks it; else a ValueError naming the choices."""
    if lang not in LANGS:
        raise KeyedError("lang_unknown", name=repr(lang), langs=str(list(LANGS)))
    return lang


def default_lang() -> str:
    """The language of a view given no ``lang``: ``%jaxpr_config --lang`` (or ``set_default_lang``), else
    ``$JAXPRLENS_LANG``, else English.  Every view resolves its ``lang`` argument here (``resolve``): one path,
    whether the view is made by the magic or from Python."""
    return settings()["lang"][0]


def settings() -> dict:
    """``{"lang": (value, where it comes from)}``; where is ``config``, ``env`` or ``default``."""
    if _config["lang"] is not None:
        return {"lang": (_config["lang"], "config")}
    env = os.environ.get(ENV, "").strip()
    if env:
        if env not in LANGS:
            raise ValueError(f"{ENV}={env!r} is not a language jaxprlens speaks (must be one of {list(LANGS)}); "
                             f"set it to one of those or unset it")
        return {"lang": (env, "env")}
    return {"lang": ("en", "default")}


def set_default_lang(lang: str | None):
    """The kernel-wide language (``%jaxpr_config --lang zh``); ``None`` forgets it."""
    _config["lang"] = None if lang is None else check(lang)


def resolve(lang: str | None = None) -> str:
    """A view's ``lang`` option: checked, or the default when ``None``."""
    return default_lang() if lang is None else check(lang)


def t(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for ``key`` in ``lang``, filled in: ``t("n_eqns", "zh", n=14)`` is
    ``14 个方程``.  With no fields the template comes back as it is.  English singulars (``1 equation``)
    come from ``ONE`` when ``n == 1``."""
    lang = lang if lang in TEXT else resolve(lang)
    table = TEXT[lang]
    if fields.get("n") == 1 and key in ONE.get(lang, {}):
        text = ONE[lang][key]
    elif key in table:
        text = table[key]
    else:
        text = TEXT["en"][key]           # a KeyError here is a missing catalogue entry: add it
    return text.format(**fields) if fields else text


Keyed.wording = t          # the model's and engines' errors (KeyedError, TraceError) are worded by this catalogue


def a_noun(noun: str, lang: str | None = None) -> str:
    """A noun as a sentence names one thing: ``a str``, ``an int`` in English; the noun itself in Chinese."""
    if resolve(lang) != "en":
        return noun
    return f"a{'n' if noun[:1].lower() in 'aeiou' else ''} {noun}"


def role_word(key: str, n: int = 1, lang: str | None = None) -> str:
    one, many, zh = ROLE_WORDS.get(key, (key, key, key))
    if resolve(lang) == "zh":
        return zh
    return one if n == 1 else many


def width(text: str) -> int:
    """Columns ``text`` takes in a monospace font (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def ljust(text: str, n: int) -> str:
    """``str.ljust`` by display width, so zh columns in ``text/plain`` line up."""
    return text + " " * max(0, n - width(text))


def sub_label(sub, lang: str | None = None) -> str:
    """A nested program's label in ``lang``: ``branch 1 (true)`` / ``分支 1（true）``, ``body`` / ``循环体``;
    combiners are translated; call labels (``jit inner``) name JAX things and stay as they are."""
    if resolve(lang) != "zh":
        return sub.label
    if sub.kind in ("combiner", "kernel"):
        return SUB_WORDS_ZH.get(sub.key, sub.label)
    if sub.key.startswith("branch") and sub.key[6:].isdigit():
        meaning = sub.label.partition(" (")[2].rstrip(")")      # "false" / "true": Python values
        text = t("branch_n", "zh", i=sub.key[6:])
        return t("paren_after", "zh", text=text, x=meaning) if meaning else text
    if sub.kind in ("", "refs") and sub.key in ("cond", "body") and sub.label == sub.key:
        return t(f"sub_{sub.key}", "zh")
    return sub.label


def remembered(cache: dict, key: tuple, lang: str | None, make) -> str:
    """``make()``, kept in ``cache`` under ``key`` (at most 4,096 texts: a big table says a few lines thousands
    of times); never kept for ``lang=None``, the kernel's default, which may change."""
    if lang is None:
        return make()
    text = cache.get(key)
    if text is None:
        if len(cache) > 4096:
            cache.clear()
        text = cache[key] = make()
    return text


_WHERE: dict = {}       # (where, line, lang) -> text


def where_text(src, lang: str | None = None) -> str:
    """Where a ``model.Source`` is: ``cell line 3`` / ``单元格 第 3 行``, ``seeds.py line 9``."""
    def make() -> str:
        return t("line_of", lang, where=t("cell", lang) if src.where == "cell" else src.where, line=src.line)
    return remembered(_WHERE, (src.where, src.line, lang), lang, make)


def count_word(n: int, word: str, lang: str | None = None) -> str:
    """``3 carry`` / ``3 个携带值`` (a space before a Latin word: ``2 个 xs``)."""
    if resolve(lang) != "zh":
        return f"{n} {word}"
    return f"{n} 个{' ' if word[:1].isascii() else ''}{word}"


def role_summary(roles, lang: str | None = None) -> str:
    """``0 cond consts, 2 body consts, 3 carry`` (en) / ``0 个条件常量、2 个循环体常量、3 个携带值`` (zh)."""
    lang = resolve(lang)
    parts = [count_word(n, role_word(k, n, lang), lang) for k, n in roles.groups]
    text = t("list_sep", lang).join(parts)
    extra = detail_text(roles.detail, lang)
    return f"{text}{t('semi', lang)}{extra}" if extra else text


def detail_text(detail: dict, lang: str | None = None) -> str:
    lang = resolve(lang)
    bits = []
    for key, value in detail.items():
        if key == "name":
            bits.append(t("calls", lang, name=value))
        elif key == "grid":
            bits.append(t("kernel_grid", lang, grid=value))
        elif key in ("in_blocks", "out_blocks"):
            if value:
                bits.append(t(key, lang, blocks=value))
        elif key == "branches":
            bits.append(t("two_branches", lang) if value == 2 else
                        t("n_branches", lang, n=value, last=value - 1))
        else:
            bits.append(f"{key}={value}")
    return t("semi", lang).join(bits)
