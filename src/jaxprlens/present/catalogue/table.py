"""The equation table (views/table/table.py, present/rows.py): headers, cells, notes on what is not drawn or
stored, the folded calls and the signature.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    "eqn": ("#", "#"),
    "outputs": ("outputs", "输出"),
    "primitive": ("primitive", "原语"),
    "params": ("params", "参数"),
    "inputs": ("inputs", "输入"),
    "source": ("source", "源码"),
    "explanation": ("what it does", "含义"),
    "roles": ("operand roles", "操作数角色"),
    "signature": ("signature", "签名"),
    "inputs_title": ("input", "输入"),
    "constants": ("hoisted constants", "提升的常量"),
    "results": ("result", "结果"),
    "cost": ("cost", "开销"),
    "line": ("line", "行"),
    "cell": ("cell", "单元格"),
    "cell_n": ("cell {n}", "单元格 {n}"),
    "literal": ("literal", "字面量"),
    "constvar": ("hoisted constant", "提升的常量"),
    "no_eqns": ("(no equations)", "（没有方程）"),
    "effects": ("effects", "副作用"),
    "equations": ("equations", "个方程"),
    "in_all": ("in all", "共计"),
    "sub_inputs": ("binders", "绑定变量"),
    "bound_from": ("bound from", "来自"),
    "total": ("total", "合计"),
    "intensity": ("intensity", "算术强度"),
    "n/a": ("n/a", "无"),
    "equation": ("equation", "方程"),
    "notes": ("source · what it does", "源码 · 含义"),
    "original": ("original", "原程序"),
    "no_source_new": ("new: no source line in the original", "新增：原程序中没有对应的源码行"),
    "more_text": ("… {n} more equations (print(program) or %%jaxpr --text shows them all)",
                  "…… 另有 {n} 个方程（print(program) 或 %%jaxpr --text 可全部显示）",
                  "… {n} more equation (print(program) or %%jaxpr --text shows it)"),
    "more_rows": ("{n} more equations: run or trust the notebook to draw them as you scroll (--text prints them all)",
                  "另有 {n} 个方程：运行或信任此笔记本后，滚动时逐步显示（--text 可全部打印）",
                  "{n} more equation: run or trust the notebook to draw it as you scroll (--text prints it)"),
    "search": ("search rows", "搜索行"),
    "all_params": ("all params", "全部参数"),
    "matches": ("{n} matching rows", "{n} 行匹配"),
    "match_one": ("{n} matching row", "{n} 行匹配"),
    "colon": (": ", "："),
    "n_eqns": ("{n} equations", "{n} 个方程", "{n} equation"),
    "n_in_all": (" ({n} in all)", "（共 {n} 个）"),
    "no_frame": ("no user frame (made inside JAX)", "没有用户代码帧（由 JAX 内部生成）"),
    "run_range": ("equations {first}–{last}", "方程 {first}–{last}"),
    "rows_cut": ("{n} more equations are not stored in the notebook (it keeps the first {k} as data): print(program) "
                 "or %%jaxpr --text shows them all",
                 "另有 {n} 个方程未存入笔记本（只保存前 {k} 个的数据）：print(program) 或 %%jaxpr --text 可全部显示",
                 "{n} more equation is not stored in the notebook (it keeps the first {k} as data): print(program) "
                 "or %%jaxpr --text shows it"),
    "items_cut": ("{n} more rows are not stored in the notebook (it keeps the first {k} as data): print(program) or "
                  "%%jaxpr --text shows them all",
                  "另有 {n} 行未存入笔记本（只保存前 {k} 行的数据）：print(program) 或 %%jaxpr --text 可全部显示",
                  "{n} more row is not stored in the notebook (it keeps the first {k} as data): print(program) or "
                  "%%jaxpr --text shows it"),
    "rows_not_stored": ("(rows not stored in the notebook)", "（其中的行未存入笔记本）"),
    "calls_cut": ("{n} equations inside calls are not stored in the notebook (calls left out: {k}; it keeps {s} rows "
                  "as data): print(program) or %%jaxpr --text shows them all",
                  "{k} 个调用中的 {n} 个方程未存入笔记本（只保存 {s} 行数据）：print(program) 或 %%jaxpr --text 可全部"
                  "显示",
                  "{n} equation inside calls is not stored in the notebook (calls left out: {k}; it keeps {s} rows "
                  "as data): print(program) or %%jaxpr --text shows it"),
    "more_items": ("{n} more rows (calls and equations): run or trust the notebook to draw them as you scroll (--text "
                   "prints them all)",
                   "另有 {n} 行（调用和方程）：运行或信任此笔记本后，滚动时逐步显示（--text 可全部打印）",
                   "{n} more row (a call or an equation): run or trust the notebook to draw it as you scroll (--text "
                   "prints it)"),
    # the same notes on a live page: what the notebook did not store comes from the kernel (views/table/live.py)
    "rows_live": ("{n} more equations come from the kernel as you scroll or search (the notebook stores the first {k} "
                  "as data)",
                  "另有 {n} 个方程在滚动或搜索时从内核取得（笔记本只保存前 {k} 个的数据）",
                  "{n} more equation comes from the kernel as you scroll or search (the notebook stores the first "
                  "{k} as data)"),
    "items_live": ("{n} more rows come from the kernel as you scroll or search (the notebook stores the first {k} as "
                   "data)",
                   "另有 {n} 行在滚动或搜索时从内核取得（笔记本只保存前 {k} 行的数据）",
                   "{n} more row comes from the kernel as you scroll or search (the notebook stores the first {k} as "
                   "data)"),
    "calls_live": ("{n} equations inside calls come from the kernel when you open or search them (calls left out of "
                   "the notebook: {k}; it keeps {s} rows as data)",
                   "{k} 个调用中的 {n} 个方程在展开或搜索时从内核取得（笔记本只保存 {s} 行数据）",
                   "{n} equation inside calls comes from the kernel when you open or search it (calls left out of "
                   "the notebook: {k}; it keeps {s} rows as data)"),
    "table_folded": ("Equations folded by the Python calls that tracing inlined: click a call to open it "
                     "(print(program) or %%jaxpr --text prints them all)",
                     "方程按 trace 时内联的 Python 调用折叠：点击一个调用可展开（print(program) 或 %%jaxpr --text 可"
                     "全部打印）"),
    "sig_cut": ("{k} more entries ({n} values) are not stored in the notebook: print(program) lists every value",
                "另有 {k} 项（{n} 个值）未存入笔记本：print(program) 可列出全部值"),
    "sig_more": ("… {n} more values (print(program) lists every value)",
                 "…… 另有 {n} 个值（print(program) 可列出全部值）",
                 "… {n} more value (print(program) lists every value)"),
    "seen_through": ("`{name}` is one jit equation: shown is its body, as the program (`%%jaxpr --outer` shows the "
                     "jit equation itself, `--text` JAX's own text)",
                     "`{name}` 是一个 jit 方程：这里把它的函数体当作程序显示（`%%jaxpr --outer` 显示 jit 方程本身，"
                     "`--text` 显示 JAX 自己的文本）"),
    "text_folded": ("Equations folded by the Python calls that tracing inlined, a line per call (print(program) or "
                    "%%jaxpr --text prints them all)",
                    "方程按 trace 时内联的 Python 调用折叠，每个调用一行（print(program) 或 %%jaxpr --text 可全部打印"
                    "）"),
    # the row server's answers to a malformed message (views/table/live.py RowServer.answer)
    "live_not_object": ("a message must be an object with 'do' (one of {actions})",
                        "消息必须是带有 'do' 的对象（'do' 是以下之一：{actions}）"),
    "live_unknown_do": ("unknown request {do} (must be one of {actions})",
                        "未知请求 {do}（必须是以下之一：{actions}）"),
    "live_bad_from": ("'from' must be a row number >= 0, not {start}", "'from' 必须是不小于 0 的行号，而不是 {start}"),
    "live_no_call": ("no call {group} in this table", "这个表格中没有调用 {group}"),
    "live_no_query": ("'q' must be the text to search for", "'q' 必须是要搜索的文本"),
    "live_closed": ("this table was closed: run its cell again to scroll or search past the stored rows",
                    "这个表格已关闭：重新运行它的单元格，才能滚动或搜索已保存的行之后的内容"),
    "leaked_value": ("leaked tracer: no value", "泄漏的 tracer：没有值"),
}
