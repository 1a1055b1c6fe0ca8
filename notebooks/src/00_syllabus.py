# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 0 · Syllabus / 第 0 讲 · 课程大纲
#
# This course teaches you to read **jaxprs**, the small typed language that JAX traces your Python into,
# following the article *JAX jaxpr 语言深度解析* section by section and going past it: failure modes, how tracing
# makes a jaxpr, your own interpreters, your own primitive. Every lecture is a notebook stored with its outputs, so you can read it
# without running anything; run it to change the examples and answer the exercises.
#
# 本课程教你读懂 **jaxpr**：JAX 把 Python 代码 trace 成的一种带类型的小语言。课程逐节对应文章《JAX jaxpr
# 语言深度解析》，并在其后继续深入：常见的失败情形、trace 如何造出 jaxpr、自己写解释器、自己定义原语。每一讲都是一个保存了输出的
# notebook，不运行也能阅读；运行它，就可以改动示例并完成练习。
#
# **Goal.** Know what the course covers, what you need before it, how long each lecture takes and how to use
# jaxprlens and the exercises. **Time:** 15 minutes.
#
# **目标**：了解课程内容、预备知识、每讲所需时间，以及如何使用 jaxprlens 和练习。
# **时长**：15 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## What you will be able to do / 学完之后你能做什么
#
# - read any jaxpr: its inputs, hoisted constants, equations, types and outputs;
# - account for every operand of `cond`, `while` and `scan`, and step through their iterations with real
#   values;
# - predict what tracing keeps and what it drops (Python control flow, pytrees, constants);
# - see what `grad`, `vmap` and the other transformations add to a program, and why, down to the residuals a
#   backward pass keeps and what `jax.checkpoint` saves;
# - follow `jit` through its stages (jaxpr, StableHLO, compiled HLO), its tracing cache and `jax.export`;
# - recognise the tracing errors every JAX user meets, and fix them;
# - write an interpreter of jaxprs, and define a new primitive with all its rules;
# - build a small `make_jaxpr` of your own from tracers and `bind`, and write a non-standard interpreter
#   that `jax.jit` and `jax.grad` can transform in turn.
#
# - 读懂任意 jaxpr：它的输入、提升的常量、方程、类型和输出；
# - 说清 `cond`、`while`、`scan` 的每个操作数，并用真实的值单步执行它们的迭代；
# - 预测 trace 保留什么、丢掉什么（Python 控制流、pytree、常量）；
# - 看懂 `grad`、`vmap` 等变换给程序加了什么，以及为什么，直到反向过程保留的残差和 `jax.checkpoint` 省下的内存；
# - 跟着 `jit` 走完它的各个阶段（jaxpr、StableHLO、编译后的 HLO），了解它的 trace 缓存与 `jax.export`；
# - 认出每个 JAX 用户都会遇到的 trace 错误，并修复它们；
# - 写一个 jaxpr 解释器，并定义一个带全部规则的新原语；
# - 用 tracer 和 `bind` 亲手搭一个小小的 `make_jaxpr`，再写一个非标准解释器，它本身又能被 `jax.jit` 和 `jax.grad` 变换。

# %% [markdown]
# ## Before you start / 预备知识
#
# Python functions and closures, NumPy arrays (shape, dtype, broadcasting), and the JAX basics: `jax.numpy`,
# `jax.jit`, `jax.grad`, `jax.vmap`. Lectures 11 to 13 and 15 to 18 use derivatives (a gradient, a Jacobian-vector
# product); no compiler background is needed. Everything runs on a laptop's CPU.
#
# 需要了解 Python 函数与闭包、NumPy 数组（形状、dtype、广播），以及 JAX 的基础：`jax.numpy`、`jax.jit`、
# `jax.grad`、`jax.vmap`。第 11 至 13 讲和第 15 至 18 讲会用到导数（梯度、雅可比矩阵与向量的乘积）；不需要编译器方面的背景。
# 所有内容都能在笔记本电脑的 CPU 上运行。

# %% [markdown]
# ## Lectures and time / 各讲内容与时长
#
# <!-- lectures -->
#
# Each time is what a learner needs to read the lecture, run every cell and do its exercises. Lectures 11, 12, 16 and
# 19 take longer than one 60-minute session and are taught in two (their teacher's notes say where to break).
# Lecture 16, on the errors tracing makes, is best met early: its first half (`if` on a tracer, a traced shape,
# unrolled loops, both branches of `cond`, `print`) needs only lectures 1-7, so take it right after lecture 7, and
# its second half (the first NaN, leaked tracers, retracing, out-of-range indices, `checkify`) after lecture 8.
#
# 每讲的时长是学习者读完它、运行每个单元格并做完练习所需的时间。第 11、12、16、19 讲超过一次 60 分钟的课时，各分两次上
# （在哪里分开，见各自的教师备注）。第 16 讲讲的是 trace 时出的错，最好尽早学：它的前半部分（对 tracer 使用 `if`、被 trace
# 的形状、展开的循环、`cond` 的两个分支、`print`）只需要第 1-7 讲的知识，所以紧接着第 7 讲学；后半部分（第一个 NaN、泄漏的
# tracer、重新 trace、越界索引、`checkify`）放在第 8 讲之后。

# %% [markdown]
# ## How to use jaxprlens / 如何使用 jaxprlens
#
# `%load_ext jaxprlens` (the first cell of every lecture) adds the `%%jaxpr` cell magic. It runs the cell as
# usual and shows the jaxpr of its **last call** as a table: one row per equation, with its source line and
# what its primitive does.
#
# `%load_ext jaxprlens`（每一讲的第一个单元格）会加入 `%%jaxpr` 单元格魔法。它照常执行单元格，并把**最后一行调用**的
# jaxpr 显示为表格：每行一个方程，附带它的源码行以及该原语的含义。

# %%
%%jaxpr
import jax
import jax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2. + x

f(jnp.ones(3))

# %% [markdown]
# Options choose the view: `--text` prints the jaxpr as JAX does, `--graph` draws its dataflow graph,
# `--debug` opens a step-by-step debugger, `--transform grad` (or `vmap`, `jvp`, ...) shows the jaxpr of a
# transformed function, and `--run` times it on a device. `%%jaxpr --help` lists them all.
# `%jaxpr_config --lang zh` shows every view in Chinese from then on; the Chinese edition of the course
# starts with it.
#
# 选项决定视图：`--text` 按 JAX 的格式打印 jaxpr，`--graph` 画出数据流图，`--debug` 打开单步调试器，
# `--transform grad`（或 `vmap`、`jvp` 等）显示变换后函数的 jaxpr，`--run` 在设备上计时运行。`%%jaxpr --help`
# 会用中文列出全部选项。`%jaxpr_config --lang zh` 让之后的所有视图都使用中文；本课程的中文版正是从这一行开始的。

# %%
%%jaxpr --text
f(jnp.ones(3))

# %% [markdown]
# ## Exercises / 练习
#
# Each lecture ends with exercises that ask you to **predict** something about a jaxpr before you look.
# Replace `None` with your answer and run the check cell below it: the check computes the truth from JAX
# itself and, when your answer is wrong, says what to look at. A folded cell after each check holds a
# solution; run it, then the check again, to see it pass. Try the two below.
#
# 每一讲最后都有练习，要求你在查看之前先**预测** jaxpr 的某个性质。把 `None` 换成你的答案，运行其后的检查单元格：
# 检查会用 JAX 本身算出正确结果，答错时告诉你该看哪里。每个检查之后折叠的单元格是参考答案；运行它，再运行一次检查，
# 即可看到通过。试试下面两道题。

# %% tags=["checks"]
import jax
import jax.numpy as jnp
from jax import make_jaxpr
import jaxprlens
from jaxprlens.exercise import check

# %% [markdown]
# **Exercise 1 / 练习 1.** How many equations does the jaxpr of `g` have?
#
# `g` 的 jaxpr 有几个方程？

# %% tags=["exercise-1"]
def g(x, y):
    return jnp.maximum(x * y, 0.) + 1.

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
check(answer_1, len(make_jaxpr(g)(jnp.ones(3), jnp.ones(3)).jaxpr.eqns),
      "One equation per primitive applied: the product, the maximum, the sum. Scalars such as 0. and 1. are "
      "literal operands, not equations.",
      "每施加一个原语就有一个方程：乘积、最大值、加法。0. 和 1. 这样的标量是字面量操作数，不是方程。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# mul, max, add.
# mul、max、add。
answer_1 = 3

# %% [markdown]
# **Names / 名字.** JAX's printer names values `a`, `b`, `c`, ... in the order it prints them. Usually that is
# the inputs first, then each equation's result. One form changes the order: a sub-jaxpr that the program uses
# more than once (here `inner`, a `jax.jit` function called twice) is printed once, at the top, as
# `let inner = { lambda ... } in`, and the program after it refers to it by name (`jaxpr=inner`). Its names are
# printed first, so the program's own inputs start at `d`:
#
# **名字**：JAX 的打印器按打印的先后为值命名 `a`、`b`、`c`……。通常先是输入，再是每个方程的结果。有一种形式会改变这个
# 顺序：程序中用到不止一次的子 jaxpr（这里是被调用两次的 `jax.jit` 函数 `inner`）只在最上面打印一次，写成
# `let inner = { lambda ... } in`，后面的程序按名字引用它（`jaxpr=inner`）。它的名字先打印，所以程序自己的输入从 `d` 开始：

# %%
@jax.jit
def inner(x):
    return jnp.sin(x) * 2.


def twice(x, y):
    return inner(x) + inner(y)


print(make_jaxpr(twice)(jnp.ones(3), jnp.ones(3)).pretty_print(use_color=False))

# %% [markdown]
# **Exercise 2 / 练习 2.** `g` has no `let` in front: its inputs come first, then each equation's result. In the
# jaxpr of `g`, what name does the result of `jnp.maximum` get? Answer with a str.
#
# `g` 的 jaxpr 前面没有 `let`：先是输入，再是每个方程的结果。在 `g` 的 jaxpr 中，`jnp.maximum` 的结果叫什么名字？
# 用字符串作答。

# %% tags=["exercise-2"]
answer_2 = None  # a str / 一个字符串

# %% tags=["check-2"]
check(answer_2, next(e.outvars[0].name for e in jaxprlens.trace(g, jnp.ones(3), jnp.ones(3)).eqns
                     if e.primitive == "max"),
      "x and y are the inputs a and b; the product is the first equation's result, and the maximum comes next.",
      "x 和 y 是输入 a、b；乘积是第一个方程的结果，最大值紧随其后。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# a, b = x, y; c = mul a b; d = max c 0.0; e = add d 1.0.
# a、b 即 x、y；c = mul a b；d = max c 0.0；e = add d 1.0。
answer_2 = "d"

# %% [markdown]
# ## Glossary / 术语表
#
# Every term the course and jaxprlens's views use, with the one Chinese term each uses for it. The same
# table drives the views (`jaxprlens.present.i18n.GLOSSARY`) and the course (`jaxprlens.exercise.TERMS`).
#
# 课程与 jaxprlens 各视图使用的每个术语，以及它们各自对应的唯一中文术语。同一张表既用于视图
# （`jaxprlens.present.i18n.GLOSSARY`），也用于课程（`jaxprlens.exercise.TERMS`）。

# %%
from IPython.display import Markdown
from jaxprlens.exercise import glossary

Markdown(glossary())
