# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 4 · `cond`: branches decided at run time / 第 4 讲 · `cond`：运行时决定的分支
#
# A Python `if` on a traced value cannot be decided while tracing. `lax.switch` and `lax.cond` record the
# choice instead: both bind the higher-order primitive `cond`, whose `branches` parameter holds one
# sub-jaxpr per branch.
#
# 对被 trace 的值使用 Python `if` 无法在 trace 时决定。`lax.switch` 与 `lax.cond` 会把选择记录下来：
# 两者都绑定高阶原语 `cond`，其参数 `branches` 为每个分支保存一个子 jaxpr。
#
# ```
# lax.switch(index: int, branches: Sequence[A -> B], operand: A) -> B
# lax.cond(pred: bool, true_body: A -> B, false_body: A -> B, operand: A) -> B
# ```

# %%
%load_ext jaxprlens

# %% [markdown]
# ## `lax.switch` and index clamping / `lax.switch` 与索引钳制
#
# The index is converted to `int32` and **clamped** into `[0, len(branches) - 1]` (the `clamp` equation),
# then `cond` runs the selected branch on the operand `b`.
#
# 索引先被转换为 `int32`，再被**钳制**到 `[0, len(branches) - 1]`（即 `clamp` 方程），然后 `cond` 用操作数 `b`
# 执行被选中的分支。

# %%
%%jaxpr
import jax.numpy as jnp
from jax import lax, make_jaxpr

def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1.,
                              lambda x: x - 2.,
                              lambda x: x + 3.],
                      arg)

one_of_three(1, 5.)

# %%
print(make_jaxpr(one_of_three)(1, 5.).pretty_print(use_color=False))

# %% [markdown]
# An out-of-range index does not fail: `7` runs the last branch, `-3` the first.
#
# 越界的索引不会报错：`7` 执行最后一个分支，`-3` 执行第一个分支。

# %%
print(one_of_three(1, 5.), one_of_three(7, 5.), one_of_three(-3, 5.))

# %% [markdown]
# ## `lax.cond`: the false branch comes first / `lax.cond`：false 分支在前
#
# The boolean predicate becomes an integer index (`convert_element_type`), so `branches[0]` is the
# **false** branch and `branches[1]` the true one.
#
# 布尔谓词被转换为整数索引（`convert_element_type`），因此 `branches[0]` 是 **false** 分支，`branches[1]` 是
# true 分支。

# %%
%%jaxpr
def func7(arg):
    return lax.cond(arg >= 0.,
                    lambda xtrue: xtrue + 3.,
                    lambda xfalse: xfalse - 3.,
                    arg)

func7(5.)

# %%
print(make_jaxpr(func7)(5.).pretty_print(use_color=False))

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.graph"]
# In the graph the two branches sit side by side, labelled false and true.
#
# 在图中两个分支并排显示，分别标注 false 与 true。

# %% tags=["needs-feature"]
%%jaxpr --graph
func7(5.)

# %% [markdown]
# ## A tuple operand and a hoisted constant / 元组操作数与被提升的常量
#
# In `func8` the operand is a pair, flattened into `c` and `d`; `jnp.array([1])` in the false branch is
# hoisted to the outer constvar `a` and passed into **both** branches, so every branch has the same inputs.
#
# `func8` 的操作数是二元组，被展平为 `c`、`d`；false 分支中的 `jnp.array([1])` 被提升为外层 constvar `a`，
# 并传入**两个**分支，使所有分支的输入一致。

# %%
%%jaxpr
def func8(arg1, arg2):  # Where `arg2` is a pair.
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)

func8(5., (jnp.zeros(1), 2.))

# %%
print(make_jaxpr(func8)(5., (jnp.zeros(1), 2.)).pretty_print(use_color=False))

# %% [markdown]
# The article's JAX also printed a `linear` parameter on `cond`; JAX 0.10 no longer has it.
#
# 文章所用的旧版 JAX 还会为 `cond` 打印 `linear` 参数；JAX 0.10 已不再有该参数。
#
# **Takeaway / 小结**: `cond` = index + one sub-jaxpr per branch; constants become shared operands.
# `cond` = 索引 + 每个分支一个子 jaxpr；常量成为各分支共享的操作数。
