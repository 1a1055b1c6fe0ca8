# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 1 · What a jaxpr is / 第 1 讲 · jaxpr 是什么
#
# A **jaxpr** is JAX's internal intermediate representation (IR). It is **explicitly typed**, **functional**,
# **first-order** and in **A-normal form** (ANF: every intermediate value is bound to a variable, and every
# operand is a variable or a literal). `jax.jit` and `jax.make_jaxpr` *trace* your Python function into this
# small, well-behaved language. `jax.grad` and `jax.vmap` do **not** first build a jaxpr of your function and
# then interpret it: their JVP and batching rules are applied *while* the function is being traced (`grad` then
# transposes the linear part it recorded). When you see the jaxpr of a gradient, it is because `make_jaxpr`
# traced the transformed function `jax.grad(f)` (lecture 12).
#
# jaxpr 是 JAX 内部的中间表示（IR），具备四个关键性质：**显式类型**、**函数式**、**一阶**、**A 范式**（ANF：
# 每个中间值都绑定到一个变量，每个操作数都是变量或字面量）。`jax.jit` 与 `jax.make_jaxpr` 对 Python 函数做 trace，
# 把它转成这种小而规整的语言。`jax.grad` 与 `jax.vmap` **并不是**先构造你的函数的 jaxpr 再去解释它：它们的 JVP 规则和
# 批处理规则是在 trace 函数的**过程中**施加的（`grad` 随后再对记录下来的线性部分做转置）。你之所以能看到梯度的 jaxpr，
# 是因为 `make_jaxpr` trace 了变换后的函数 `jax.grad(f)`（见第 12 讲）。
#
# **Goal.** Read a jaxpr's parts (inputs, equations, outputs, types) and say what tracing and A-normal form mean.
# **Time:** 30 minutes.
#
# **目标**：读懂 jaxpr 的各个部分（输入、方程、输出、类型），说清楚 trace 和 A 范式的含义。
# **时长**：30 分钟。

# %% [markdown]
# > **Errata / 勘误** — the article expands ANF as "Algebraic Normal Form" (「代数正规形式」), and so do JAX's
# > own jaxpr notes. ANF is **A-normal form** (「A 范式」, Flanagan, Sabry, Duba and Felleisen, 1993): a program
# > in which the arguments of every operation are atoms. It has nothing to do with algebra.
# > The article also says transformations "first trace the function into a jaxpr, then interpret it with
# > transformation-specific rules". That is how to *picture* it, not what `jax.grad`/`jax.vmap` do: their rules
# > run during tracing, and no intermediate jaxpr of `f` is built.
# >
# > 原文把 ANF 展开为 “Algebraic Normal Form”（「代数正规形式」），JAX 自己的 jaxpr 文档也这么写。ANF 实为
# > **A 范式**（A-normal form，Flanagan、Sabry、Duba、Felleisen，1993）：每个运算的操作数都是原子（变量或字面量）的
# > 程序形式，与代数无关。原文还说各变换“先把函数 trace 成 jaxpr，再用变换特有的规则解释它”：这只是一种理解方式，
# > 并非 `jax.grad`/`jax.vmap` 的实际做法——它们的规则在 trace 过程中施加，并不会先构造 `f` 的中间 jaxpr。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## A first jaxpr / 第一个 jaxpr
#
# The `%%jaxpr` cell magic runs the cell as usual and traces its **last call** with `jax.make_jaxpr`.
# The table shows one row per equation, the source line it came from, and what the primitive does.
#
# `%%jaxpr` 单元格魔法照常执行单元格，并用 `jax.make_jaxpr` trace 最后一行的**调用**。表格每行一个方程，
# 并给出它来自哪一行源码、原语做了什么。

# %%
%%jaxpr
import jax.numpy as jnp

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# ## The grammar / 语法
#
# The term grammar of the article: a jaxpr is a `let` expression with explicitly bound, typed variables.
#
# 文章中的术语语法：jaxpr 是一个显式绑定、带类型变量的 `let` 表达式。
#
# ```
# jaxpr   ::= { lambda binder , ... . let eqn ... in ( atom , ... ) }
# binder  ::= var:array_type
# var     ::= a | b | c | ...
# atom    ::= var | literal
# literal ::= int32 | int64 | float32 | float64
# eqn     ::= binder , ... = primitive [ params ] atom , ...
# ```
#
# `jax.make_jaxpr` prints `{ lambda constvars ; invars . let eqns in (outs) }`: the variables before the `;` are
# hoisted constants (constvars), those after it are the inputs (invars). Each equation applies one primitive to
# atoms (variables or literals); parameters are printed in square brackets as `name=value`. A program that uses
# one sub-jaxpr more than once is printed after `let name = { lambda ... } in`, that sub-jaxpr printed once and
# named first (lecture 0, before exercise 2).
#
# `jax.make_jaxpr` 打印的形式是 `{ lambda constvars ; invars . let eqns in (outs) }`：分号之前是被提升的常量变量
# （constvars），之后是输入变量（invars）。每个方程把一个原语作用于若干原子（变量或字面量），参数以 `name=value`
# 的形式写在方括号里。用到同一个子 jaxpr 不止一次的程序打印在 `let name = { lambda ... } in` 之后，那个子 jaxpr 只打印
# 一次，并且最先命名（第 0 讲练习 2 之前）。

# %%
from jax import make_jaxpr

print(make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8)).pretty_print(use_color=False))

# %% [markdown]
# Reading it row by row: there are no constvars; `a` and `b` are `first` and `second`; the scalar literal
# `3.0` is inlined into `mul` (today JAX prints its type too, `3.0:f32[]`); `reduce_sum` has the parameter
# `axes=(0,)`. Since JAX 0.8 it also prints `out_sharding=None` (this course is recorded on 0.12.0.1); the
# article's much older JAX printed `input_shape=(8,)` there instead.
#
# 逐行解读：没有 constvars；`a`、`b` 分别对应 `first`、`second`；标量字面量 `3.0` 直接内联在 `mul` 中
# （如今的 JAX 还会打印其类型 `3.0:f32[]`）；`reduce_sum` 带有参数 `axes=(0,)`。自 JAX 0.8 起它还会打印
# `out_sharding=None`（本课程在 0.12.0.1 上录制）；文章所用的更早版本在这里打印的是 `input_shape=(8,)`。

# %% [markdown]
# `--text` shows exactly what JAX prints; `--lang zh` writes the table in Chinese.
#
# `--text` 显示与 JAX 打印完全一致的文本；`--lang zh` 用中文显示表格。

# %%
%%jaxpr --text
func1(jnp.zeros(8), jnp.ones(8))

# %%
%%jaxpr --lang zh
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.graph.graph"]
# The same program as a dataflow graph: inputs at the top, one node per equation, edges named like the table.
#
# 同一个程序的数据流图：输入在上方，每个方程一个节点，边上的名字与表格一致。

# %% tags=["needs-feature"]
%%jaxpr --graph
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# ## `make_jaxpr`'s own parameters / `make_jaxpr` 自己的参数
#
# `jax.make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False)` takes three parameters besides the
# function. `static_argnums` marks arguments that are not traced: their Python values are read while tracing,
# so `n` below unrolls the loop and is not an input of the jaxpr (it has one input, `a`; this short jaxpr prints
# on one line). `return_shape=True` returns the jaxpr together with the shape and dtype of the output, as
# `jax.ShapeDtypeStruct`s. `axis_env` names mapped axes and their sizes, so that a collective such as `psum`
# over the axis `"batch"` can be traced outside `shard_map` or `vmap` (without it, JAX raises a `NameError`).
#
# `jax.make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False)` 除了函数之外还有三个参数。`static_argnums`
# 标出不被 trace 的实参：trace 时读取它们的 Python 值，所以下面的 `n` 把循环展开了，而且不是 jaxpr 的输入（jaxpr 只有一个
# 输入 `a`；这个很短的 jaxpr 打印在一行里）。`return_shape=True` 在返回 jaxpr 的同时返回输出的形状和 dtype，形式为
# `jax.ShapeDtypeStruct`。`axis_env` 给出被映射的轴的名字和大小，这样对轴 `"batch"` 做 `psum` 这样的集合操作就能在
# `shard_map` 或 `vmap` 之外 trace（没有它，JAX 抛出 `NameError`）。

# %%
import jax


def power(x, n):
    for _ in range(n - 1):
        x = x * x
    return x


print(make_jaxpr(power, static_argnums=1)(2., 3).pretty_print(use_color=False))
closed, shape = make_jaxpr(func1, return_shape=True)(jnp.zeros(8), jnp.ones(8))
print(shape)
print(make_jaxpr(lambda x: jax.lax.psum(x, "batch"), axis_env=[("batch", 4)])(1.).pretty_print(use_color=False))

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
import jax.numpy as jnp
from jax import make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** How many equations will `make_jaxpr` print for `g`?
#
# `make_jaxpr` 会为 `g` 打印多少个方程？

# %% tags=["exercise-1"]
def g(x, y):
    return jnp.sum(jnp.cos(x) * y + 2.)

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
eqns = make_jaxpr(g)(jnp.ones(4), jnp.ones(4)).jaxpr.eqns
check(answer_1, len(eqns),
      "Count one equation per primitive applied; a scalar literal such as 2. is an operand, not an equation.",
      "每施加一个原语就有一个方程；2. 这样的标量字面量只是操作数，不是方程。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# cos, mul, add (2.0 is a literal operand of add), reduce_sum.
# cos、mul、add（2.0 是 add 的字面量操作数）、reduce_sum。
answer_1 = 4


# %% [markdown]
# **Exercise 2 / 练习 2.** Which primitives does `h` bind, in order? Answer with a list of primitive names as
# the jaxpr prints them (`jnp.sum` prints as `reduce_sum`, `*` as `mul`).
#
# `h` 依次绑定了哪些原语？用 jaxpr 打印的原语名组成列表作答（`jnp.sum` 打印为 `reduce_sum`，`*` 为 `mul`）。

# %% tags=["exercise-2"]
def h(x):
    return jnp.sum(x * x) - 1.

answer_2 = None  # a list of str, e.g. ["sin", "add"] / 字符串列表

# %% tags=["check-2"]
prims = [e.primitive.name for e in make_jaxpr(h)(jnp.ones(4)).jaxpr.eqns]
check(answer_2, prims,
      "Read h from the inside out: the product comes first, then the sum, then the subtraction; a jaxpr is in "
      "A-normal form, so each becomes its own equation.",
      "从里往外读 h：先乘，再求和，最后减；jaxpr 是 A 范式，每一步各成一个方程。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = ["mul", "reduce_sum", "sub"]

# %% [markdown]
# **Takeaway / 小结**: a jaxpr is a flat list of typed equations over inputs, constants and literals.
#
# 一个 jaxpr 就是作用在输入、常量与字面量上的一串带类型的方程。
