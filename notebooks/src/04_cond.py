# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
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
#
# **Goal.** Read a `cond` equation: its index, its operands and one sub-jaxpr per branch. **Time:** 30 minutes.
#
# **目标**：读懂 `cond` 方程：它的索引、操作数，以及每个分支一个子 jaxpr。
# **时长**：30 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## `lax.switch` and index clamping / `lax.switch` 与索引钳制
#
# `lax.switch` converts the index to `int32` and **clamps** it into `[0, len(branches) - 1]` with a separate
# `clamp` equation; then `cond` runs the selected branch on the operand `b`. The clamping is `lax.switch`'s
# work, not `cond`'s.
#
# `lax.switch` 先把索引转换为 `int32`，再用一个单独的 `clamp` 方程把它**钳制**到 `[0, len(branches) - 1]`，
# 然后 `cond` 用操作数 `b` 执行被选中的分支。钳制是 `lax.switch` 做的，不是 `cond` 做的。

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
# Through `lax.switch` an out-of-range index does not fail: the `clamp` makes `7` run the last branch and `-3`
# the first.
#
# 经过 `lax.switch`，越界的索引不会报错：`clamp` 让 `7` 执行最后一个分支，`-3` 执行第一个分支。

# %%
print(one_of_three(1, 5.), one_of_three(7, 5.), one_of_three(-3, 5.))

# %% [markdown]
# `cond` itself does not clamp, and it gives an index out of range no meaning of its own: it **expects** an
# index in `[0, len(branches) - 1]`, which `lax.switch` (with its `clamp`) and `lax.cond` (converting a bool to
# 0 or 1) always give it. Bind `cond` directly with an index out of range and what runs depends on how the
# equation is run: compiled, XLA's `case` runs the **last** branch (`-3` gives `5 + 3 = 8`); under `vmap` the
# `cond` becomes a `select_n` over every branch's result, and there `-3` picks the **first** (`6`). Rely on
# neither.
#
# `cond` 本身并不钳制，也没有为越界的索引规定任何含义：它**要求**索引落在 `[0, len(branches) - 1]` 内，而
# `lax.switch`（用它的 `clamp`）与 `lax.cond`（把布尔值转换为 0 或 1）总会满足这一点。不经过 `clamp` 直接用越界的
# 索引绑定 `cond` 时，执行哪个分支取决于方程怎样运行：编译执行时，XLA 的 `case` 执行**最后一个**分支（`-3` 得到
# `5 + 3 = 8`）；在 `vmap` 下，`cond` 变成对各分支结果的 `select_n`，`-3` 选中的是**第一个**分支（`6`）。两者都不要依赖。

# %%
import jax
import numpy as np

cond_eqn = make_jaxpr(one_of_three)(1, 5.).jaxpr.eqns[-1]

def bare_cond(index, x):  # cond bound directly, no clamp in front / 直接绑定 cond，前面没有 clamp
    return cond_eqn.primitive.bind(index, x, **cond_eqn.params)[0]

indices = np.array([-3, 0, 7], np.int32)
for index in indices:  # compiled: XLA's case / 编译执行：XLA 的 case
    print(index, "->", float(jax.jit(bare_cond)(index, np.float32(5.))))
print(indices, "->", jax.vmap(bare_cond, (0, None))(indices, np.float32(5.)))  # vmap: select_n / vmap 下变成 select_n

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

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.graph.graph"]
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
def func8(arg1, arg2):  # Where `arg2` is a pair. / 其中 `arg2` 是一个二元组。
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)

func8(5., (jnp.zeros(1), 2.))

# %%
print(make_jaxpr(func8)(5., (jnp.zeros(1), 2.)).pretty_print(use_color=False))

# %% [markdown]
# > **Outdated in the article / 原文已过时** — the article's JAX also printed a `linear` parameter on `cond`;
# > JAX 0.4.31 removed it. The article also reads the hoisted constant as a constvar of the false
# > branch; today the branches have no constvars (lecture 3).
# >
# > 文章所用的旧版 JAX 还会为 `cond` 打印 `linear` 参数，JAX 0.4.31 删除了该参数。原文还把被提升的常量
# > 解读为 false 分支的 constvar；如今各分支都没有 constvars（见第 3 讲）。

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
from jax import lax, make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** `route` has four branches and shifts its index first. Its `cond` expects an index
# in range: which two literals bound the `clamp` equation in front of it? Then say which branch
# `route(-1, x)` runs. Answer with `(low, high, branch)`.
#
# `route` 有四个分支，并先把索引平移。它的 `cond` 要求索引不越界：`cond` 前面那个 `clamp` 方程的两个边界是哪两个
# 字面量？再说出 `route(-1, x)` 执行哪个分支。用 `(low, high, branch)` 作答。

# %% tags=["exercise-1"]
def route(i, x):
    return lax.switch(i - 2, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3., lambda x: x * 4.], x)

print(make_jaxpr(route)(0, 5.).pretty_print(use_color=False))
answer_1 = None  # a tuple of three ints / 三个整数组成的元组

# %% tags=["check-1"]
clamp_eqn = next(e for e in make_jaxpr(route)(0, 5.).jaxpr.eqns if e.primitive.name == "clamp")
low, high = (int(a.val) for a in (clamp_eqn.invars[0], clamp_eqn.invars[2]))
ran = [float(f(5.)) for f in (lambda x: x + 1., lambda x: x - 2., lambda x: x + 3., lambda x: x * 4.)]
check(answer_1, (low, high, ran.index(float(route(-1, 5.)))),
      "clamp's operands are (low, value, high); lax.switch clamps the shifted index i - 2 into [0, 3] before cond "
      "sees it, so -1 - 2 = -3 runs branch 0.",
      "clamp 的操作数依次是 (low, value, high)；lax.switch 在 cond 之前把平移后的索引 i - 2 钳制到 [0, 3]，所以 "
      "-1 - 2 = -3 执行分支 0。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_1 = (0, 3, 0)

# %% [markdown]
# **Exercise 2 / 练习 2.** How many operands, the index included, will the `cond` of `blend` have?
#
# `blend` 中的 `cond` 一共有多少个操作数（含索引）？

# %% tags=["exercise-2"]
w = np.array([1., 2., 3.], dtype=np.float32)

def blend(x, y):
    return lax.cond(x.sum() > 0, lambda a, b: a * w, lambda a, b: b, x, y)

answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
cond_of_blend = make_jaxpr(blend)(jnp.ones(3), jnp.ones(3)).jaxpr.eqns[-1]
check(answer_2, len(cond_of_blend.invars),
      "Count the index, then the hoisted constants captured by any branch, then the operands you passed; every "
      "branch receives all of them.",
      "依次数：索引、任一分支捕获并被提升的常量、你传入的操作数；每个分支都会收到全部这些值。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# The index, w (captured by the true branch, hoisted), x and y.
# 索引、w（被 true 分支捕获并提升）、x、y。
answer_2 = 4

# %% [markdown]
# **Takeaway / 小结**: `cond` = index + one sub-jaxpr per branch, and it expects the index in range: `lax.switch`
# clamps it with its own `clamp` equation, `lax.cond` converts a bool to 0 or 1; constants become shared
# operands.
#
# `cond` = 索引 + 每个分支一个子 jaxpr，且要求索引不越界：`lax.switch` 用自己的 `clamp` 方程钳制索引，`lax.cond`
# 把布尔值转换为 0 或 1；常量成为各分支共享的操作数。
