# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 8 · The debugger and the graph as tools / 第 8 讲 · 把调试器和图当作工具
#
# Reading a jaxpr is the first step; the second is using it to answer questions about *your* program:
# where does this value come from, what is its value at this equation, where did the first NaN appear?
# We use a small two-layer MLP whose output is the `log` of a value that can be negative.
#
# 读懂 jaxpr 只是第一步；第二步是用它回答关于*你自己*程序的问题：这个值从哪里来？它在这个方程处的值是多少？
# 第一个 NaN 出现在哪里？下面用一个小型两层 MLP，其输出是对可能为负的值取 `log`。
#
# **Goal.** Use breakpoints, the stop on NaN and the dataflow graph to answer questions about your own program.
# **Time:** 35 minutes.
#
# **目标**：用断点、遇 NaN 即停和数据流图回答关于你自己程序的问题。
# **时长**：35 分钟。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp

rng = np.random.default_rng(0)
params = {"w1": rng.normal(size=(4, 8)).astype(np.float32),
          "b1": np.zeros(8, np.float32),
          "w2": rng.normal(size=(8, 1)).astype(np.float32)}
x = rng.normal(size=(3, 4)).astype(np.float32)

def mlp(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    y = h @ params["w2"]
    return jnp.log(y)

mlp(params, x)

# %% [markdown]
# The pytree of parameters is flattened; the table names each input by its Python path
# (`params['b1']`, ...). The output already contains NaN:
#
# 模型参数的 pytree 被展平，表格用 Python 路径（`params['b1']` 等）标出每个输入。输出中已经出现了 NaN：

# %%
print(np.asarray(mlp(params, x)).ravel())

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.graph.graph"]
# ## The graph / 数据流图
#
# Follow the edges back from the `log` node: which inputs can make its operand negative?
#
# 从 `log` 节点沿边往回看：哪些输入会让它的操作数变成负数？

# %% tags=["needs-feature"]
%%jaxpr --graph
mlp(params, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# ## Breakpoints and values / 断点与取值
#
# A breakpoint on a primitive stops before every equation of that primitive; `current_inputs` are the values
# it is about to consume.
#
# 在某个原语上设断点，会在该原语的每个方程执行前停下；`current_inputs` 是它即将使用的输入值。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
import jaxprlens

program = jaxprlens.trace(mlp, params, x)
stepper = program.stepper()
stepper.add_breakpoint(primitive="log")
stepper.run()
print(stepper.stop.kind, stepper.stop.eqn.id, stepper.stop.eqn.primitive)  # why it stopped, where / 为何停下、停在哪里
print("log ←", np.asarray(stepper.current_inputs[0]).ravel())

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# ## Finding the first NaN / 找到第一个 NaN
#
# With `break_on_nan=True`, `run()` stops right after the first equation that produced a NaN.
#
# 设置 `break_on_nan=True` 后，`run()` 会在第一个产生 NaN 的方程之后立即停下。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
stepper = program.stepper(break_on_nan=True)
stepper.run()
print(stepper.stop.kind, stepper.stop.eqn.id, stepper.stop.eqn.primitive)  # why it stopped, where / 为何停下、停在哪里
print(stepper.last_eqn.source.line, stepper.last_eqn.source.text)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# ## What if? Edit a value and step on / 如果……会怎样？修改一个值再继续执行
#
# Stopped before `log`, replace its operand with a value of the same type and run on: `set_value` tries a fix
# before you change the code. Here the absolute value removes every NaN. `changed` lists the values an edit
# reached; `back()` undoes it. In the debugger widget, the value panel does the same (NaN, 0, ×2, +ε, or a
# number you type).
#
# 停在 `log` 之前，把它的操作数换成一个同类型的值，再继续运行：`set_value` 让你在改代码之前先试一试修复方法。这里取
# 绝对值就消除了所有 NaN。`changed` 列出一次修改影响到的值；`back()` 撤销修改。在调试器小部件中，值面板可以做同样的事
# （NaN、0、×2、+ε，或输入一个数）。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
stepper = program.stepper()
stepper.add_breakpoint(primitive="log")
stepper.run()
operand = stepper.current.invars[0].name
stepper.set_value(operand, jnp.abs(stepper.current_inputs[0]))
stepper.run()
print(operand, np.asarray(stepper.outputs).ravel())

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# Edit an input instead, at the start, and `changed` traces its path through the dataflow: a new bias `b1`
# reaches `f`, `g`, `h`, `i` and `j`, but not `e = x @ w1`, which does not depend on it. A NaN put there would
# spread along exactly these values.
#
# 改为在开头修改一个输入，`changed` 就沿数据流描出它的路径：新的偏置 `b1` 影响到 `f`、`g`、`h`、`i` 和 `j`，却影响不到
# `e = x @ w1`，因为后者不依赖它。在那里放一个 NaN，它也会恰好沿着这些值扩散。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
b1 = next(v for v in program.invars if "b1" in v.path)
what_if = program.stepper()
what_if.set_value(b1.name, np.full(8, np.nan, np.float32))
what_if.run()
print(b1.name, "→", sorted(v.name for v in what_if.changed))
print(np.asarray(what_if.outputs).ravel())

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.debugger.debugger"]
# The same in the debugger widget: toggle breakpoints on the table rows and press Continue. In these docs, on
# GitHub or in nbviewer there is no kernel, so what you see below is the recorded run; in a live kernel the
# widget steps for real.
#
# 在调试器小部件中同样可以做到：在表格行上切换断点，再按「继续」。在本文档、GitHub 或 nbviewer 中没有内核，
# 下面看到的是录制下来的运行过程；在运行中的内核里，小部件会真正地单步执行。

# %% tags=["needs-feature"]
%%jaxpr --debug
mlp(params, x)

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth from JAX itself. The folded cell after each check holds a solution; run it, then the
# check again, to see it pass.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都用 JAX 本身算出正确结果。
# 每个检查之后折叠的单元格是参考答案；运行它，再运行一次检查，即可看到通过。

# %% tags=["checks"]
import numpy as np
import jax.numpy as jnp
import jaxprlens

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** Run `risky` with `break_on_nan=True`: which primitive produced the first NaN?
#
# 用 `break_on_nan=True` 运行 `risky`：第一个 NaN 是哪个原语产生的？

# %% tags=["exercise-1"]
def risky(x):
    y = jnp.sqrt(x - 1.)
    return jnp.log(y + 0.5)

xs = np.array([2., 0.5, 3., -1.], dtype=np.float32)
answer_1 = None  # a primitive name (str) / 原语名（字符串）

# %% tags=["check-1"]
first_nan = jaxprlens.trace(risky, xs).stepper(break_on_nan=True).run().last_eqn
check(answer_1, first_nan.primitive,
      "Walk the equations in order and ask which one first turns a finite input into NaN; later equations only "
      "pass the NaN on.",
      "按顺序逐个看方程，找出第一个把有限输入变成 NaN 的方程；之后的方程只是把 NaN 传下去。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# x - 1. is negative for 0.5 and -1.; sqrt of a negative float is NaN. log only receives it.
# 对 0.5 与 -1.，x - 1. 为负；负数的 sqrt 是 NaN。log 只是接收到了它。
answer_1 = "sqrt"

# %% [markdown]
# **Exercise 2 / 练习 2.** Read the jaxpr of `two_paths` printed below. If the input `w` (its variable `b`)
# holds a NaN, which equations' results will the NaN reach? Answer with their names, in any order (a list or
# a set; `b` itself not included). The check edits `b` with `set_value` and reads `changed`.
#
# 读下面打印的 `two_paths` 的 jaxpr。如果输入 `w`（即变量 `b`）里有 NaN，NaN 会传到哪些方程的结果？列出它们的
# 名字作答，顺序不限（列表或集合均可；不含 `b` 本身）。检查单元格用 `set_value` 修改 `b`，再读取 `changed`。

# %% tags=["exercise-2"]
def two_paths(x, w):
    h = jnp.tanh(x @ w)
    s = jnp.sum(x * x)
    return h * 2. + s, s + 1.

x2, w2 = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
program2 = jaxprlens.trace(two_paths, x2, w2)
print(program2)
answer_2 = None  # names (str), any order / 名字（字符串），顺序不限

# %% tags=["check-2"]
w_var = next(v for v in program2.invars if v.path == "w")
edit = program2.stepper()
edit.set_value(w_var.name, np.full(w2.shape, np.nan, np.float32))
edit.run()
check(answer_2, {v.name for v in edit.changed if v.name != w_var.name},
      "Follow the dataflow from b: an equation with an operand that holds a NaN gives a NaN, so the product, "
      "tanh, the mul by 2. and the add that uses it; the sum of x * x never reads b, and neither does the "
      "second output.",
      "从 b 出发沿数据流走：操作数中有 NaN 的方程会得到 NaN，所以是矩阵乘、tanh、乘以 2. 的 mul，以及用到它的 add；"
      "x * x 的求和从不读取 b，第二个输出也不读取。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# c = x @ w, d = tanh c, g = d * 2., h = g + f; e, f and i come from x alone.
# c = x @ w，d = tanh c，g = d * 2.，h = g + f；e、f、i 只来自 x。
answer_2 = {"c", "d", "g", "h"}

# %% [markdown]
# **Takeaway / 小结**: breakpoints by primitive, by equation or by source line turn the jaxpr into a map
# of your program's values.
#
# 按原语、方程或源码行设置断点，jaxpr 就成了程序中各个值的地图。
