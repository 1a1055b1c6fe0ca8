# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 1 · What a jaxpr is / 第 1 讲 · jaxpr 是什么
#
# A **jaxpr** is JAX's internal intermediate representation (IR). It is **explicitly typed**, **functional**,
# **first-order** and in **A-normal form** (ANF). `jax.jit`, `jax.grad` and `jax.vmap` first *trace* your
# Python function into this small, well-behaved language, then interpret it with rules specific to each
# transformation.
#
# jaxpr 是 JAX 内部的中间表示（IR），具备四个关键性质：**显式类型**、**函数式**、**一阶**、**代数正规形式（ANF）**。
# `jax.jit`、`jax.grad`、`jax.vmap` 等变换先对 Python 函数做 trace 特化，把它转成这种小而规整的语言，再用各自的解释规则去解释它。

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
# atoms (variables or literals); parameters are printed in square brackets as `name=value`.
#
# `jax.make_jaxpr` 打印的形式是 `{ lambda constvars ; invars . let eqns in (outs) }`：分号之前是被提升的常量变量
# （constvars），之后是输入变量（invars）。每个方程把一个原语作用于若干原子（变量或字面量），参数以 `name=value`
# 的形式写在方括号里。

# %%
from jax import make_jaxpr

print(make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8)).pretty_print(use_color=False))

# %% [markdown]
# Reading it row by row: there are no constvars; `a` and `b` are `first` and `second`; the scalar literal
# `3.0` is inlined into `mul` (today JAX prints its type too, `3.0:f32[]`); `reduce_sum` has the parameter
# `axes=(0,)`. JAX 0.10 prints `out_sharding=None` where the article's older JAX printed `input_shape=(8,)`.
#
# 逐行解读：没有 constvars；`a`、`b` 分别对应 `first`、`second`；标量字面量 `3.0` 直接内联在 `mul` 中
# （如今的 JAX 还会打印其类型 `3.0:f32[]`）；`reduce_sum` 带有参数 `axes=(0,)`。文章使用的旧版本打印
# `input_shape=(8,)`，JAX 0.10 则打印 `out_sharding=None`。

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

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.graph"]
# The same program as a dataflow graph: inputs at the top, one node per equation, edges named like the table.
#
# 同一个程序的数据流图：输入在上方，每个方程一个节点，边上的名字与表格一致。

# %% tags=["needs-feature"]
%%jaxpr --graph
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# **Takeaway / 小结**: a jaxpr is a flat list of typed equations over inputs, constants and literals.
# 一个 jaxpr 就是作用在输入、常量与字面量上的一串带类型的方程。
