# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 2 · Python control flow is inlined; pytrees are flattened / 第 2 讲 · Python 控制流被内联，pytree 被展平
#
# Tracing runs your Python code. Python function calls and Python `if`/`for` run **at trace time**, so they
# leave no trace in the jaxpr: only the JAX operations they performed are recorded.
#
# trace 时 Python 代码照常执行。Python 层的函数调用和 `if`/`for` 都在**trace 时**发生，不会在 jaxpr 中留下痕迹：
# 只有它们执行的 JAX 运算被记录下来。
#
# **Goal.** Predict which Python control flow vanishes from a jaxpr and how pytree arguments become flat inputs.
# **Time:** 25 minutes.
#
# **目标**：预测哪些 Python 控制流会从 jaxpr 中消失，以及 pytree 实参如何变成扁平的输入。
# **时长**：25 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## Function calls and `if` / 函数调用与 `if`
#
# `func3` calls `func2`, which calls `inner`, which tests `second.shape[0] > 4`. Shapes are static, so the
# `if` is decided while tracing and the `else` branch (`assert False`) is never reached. The jaxpr is
# exactly `func1`'s.
#
# `func3` 调用 `func2`，`func2` 又调用 `inner`，`inner` 判断 `second.shape[0] > 4`。shape 是静态已知的，
# 所以 `if` 在 trace 期间就已决定，`else` 分支（`assert False`）根本不会执行。得到的 jaxpr 与 `func1` 完全相同。

# %%
%%jaxpr
import jax
import jax.numpy as jnp
from jax import make_jaxpr

def func2(inner, first, second):
    temp = first + inner(second) * 3.
    return jnp.sum(temp)

def inner(second):
    if second.shape[0] > 4:
        return jnp.sin(second)
    else:
        assert False

def func3(first, second):
    return func2(inner, first, second)

func3(jnp.zeros(8), jnp.ones(8))

# %%
print(make_jaxpr(func3)(jnp.zeros(8), jnp.ones(8)).pretty_print(use_color=False))

# %% [markdown]
# The source column still points at the line inside `func2`/`inner` that produced each equation.
# If you need control flow that depends on runtime *values*, use `jax.lax.cond` / `jax.lax.while_loop`
# (lectures 4 and 5): they leave higher-order primitives in the jaxpr.
#
# 表格的来源列仍指向 `func2`/`inner` 中产生该方程的那一行。若需要依赖运行时**值**的控制流，必须使用
# `jax.lax.cond`、`jax.lax.while_loop`（第 4、5 讲），它们会在 jaxpr 中留下高阶原语。

# %% [markdown]
# ## Pytrees are flattened / pytree 被展平
#
# A jaxpr has no tuple type. `func4` takes one argument, a pair; JAX flattens it, so the jaxpr has two
# input variables, again exactly `func1`'s jaxpr. The table names them with their Python paths
# `arg[0]` and `arg[1]`.
#
# jaxpr 中没有元组类型。`func4` 只接受一个实参——一个二元组；JAX 将其展平，jaxpr 中出现两个输入变量，
# 结果仍与 `func1` 完全相同。表格用 Python 路径 `arg[0]`、`arg[1]` 标出它们。

# %%
%%jaxpr
def func4(arg):  # The arg is a pair. / 实参是一个二元组。
    temp = arg[0] + jnp.sin(arg[1]) * 3.
    return jnp.sum(temp)

func4((jnp.zeros(8), jnp.ones(8)))

# %%
print(make_jaxpr(func4)((jnp.zeros(8), jnp.ones(8))).pretty_print(use_color=False))

# %% [markdown]
# The flattening order is the pytree order (`jax.tree_util.tree_flatten`), the same for inputs and outputs:
#
# 展平顺序就是 pytree 的顺序（`jax.tree_util.tree_flatten`），输入与输出都一样：

# %%
leaves, treedef = jax.tree_util.tree_flatten((jnp.zeros(8), jnp.ones(8)))
print(len(leaves), treedef)

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
# **Exercise 1 / 练习 1.** A Python `for` loop runs while tracing. How many `mul` equations will the jaxpr of
# `double3` contain?
#
# Python 的 `for` 循环在 trace 时执行。`double3` 的 jaxpr 中会有几个 `mul` 方程？

# %% tags=["exercise-1"]
def double3(x):
    for _ in range(3):
        x = x * 2.
    return x

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
muls = [e for e in make_jaxpr(double3)(jnp.ones(4)).jaxpr.eqns if e.primitive.name == "mul"]
check(answer_1, len(muls),
      "The loop is unrolled while tracing: every iteration that runs records its own mul, and no loop primitive "
      "is left.",
      "循环在 trace 时被展开：每执行一次迭代就记录一个 mul，不会留下循环原语。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_1 = 3


# %% [markdown]
# **Exercise 2 / 练习 2.** `f` takes a dict and a list. How many input variables will its jaxpr have, and
# which leaf of `params` becomes the first one, `a`? Answer with a pair `(count, "w" or "b")`.
#
# `f` 接受一个字典和一个列表。它的 jaxpr 有多少个输入变量？`params` 的哪个叶子成为第一个输入 `a`？用二元组
# `(个数, "w" 或 "b")` 作答。

# %% tags=["exercise-2"]
def f(params, xs):
    return jnp.sum(params["w"] * params["b"]) + xs[0] - xs[1]

params = {"w": jnp.ones(3), "b": 2.}
xs = [jnp.ones(2), jnp.ones(2)]
answer_2 = None  # a pair (int, str) / 二元组 (整数, 字符串)

# %% tags=["check-2"]
invars = make_jaxpr(f)(params, xs).jaxpr.invars
first = "w" if invars[0].aval.shape == (3,) else "b"
check(answer_2, (len(invars), first),
      "Every leaf of every argument becomes one input; a dict's leaves come in sorted key order.",
      "每个实参的每个叶子各成一个输入；字典的叶子按键排序。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# Two leaves in params, two in xs; jax.tree_util sorts dict keys, so "b" comes before "w".
# params 有两个叶子，xs 有两个；jax.tree_util 按键排序，所以 "b" 在 "w" 之前。
answer_2 = (4, "b")

# %% [markdown]
# **Takeaway / 小结**: the jaxpr records what ran, not how the Python was written.
#
# jaxpr 记录的是实际执行了什么，而不是 Python 代码是怎么写的。
