"""One term per concept, in every view (and for a course's glossary): ``GLOSSARY`` is ``concept: (en, zh)``.
A zh text says the concept with this term and never with one of ``AVOID``'s synonyms (tests/test_i18n.py
checks the catalogue).
"""

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
    "estimate": ("estimate (a cost counted from the equations, not measured)", "估算"),
    "intensity": ("arithmetic intensity", "算术强度"),
    "device": ("device", "设备"),
    "compile": ("compile", "编译"),
    "Jupyter kernel": ("kernel (Jupyter's: the process that runs a notebook's code)", "内核"),
    "compute kernel": ("kernel (one compiled computation XLA or Pallas runs on a device)", "计算内核"),
    "breakpoint": ("breakpoint", "断点"),
    "dataflow graph": ("dataflow graph", "数据流图"),
    "fold": ("fold", "折叠"),
}

AVOID = {
    "方程": ("等式", "算式"),
    "原语": ("基元", "原始操作"),
    "实参": ("参量",),
    "常量": ("常数",),
    "子 jaxpr": ("子程序", "嵌套程序"),
    "迭代": ("轮次",),
    "携带值": ("carry", "循环变量", "循环状态"),
    "循环体": ("body",),
    "开销": ("成本", "代价"),
    "估算": ("估计",),
    "断点": ("中断点",),
    "折叠": ("收起",),
    "计算内核": ("核函数",),
}
