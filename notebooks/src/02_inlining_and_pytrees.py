# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
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
# jaxpr 中没有元组类型。`func4` 只接受一个参数——一个二元组；JAX 将其展平，jaxpr 中出现两个输入变量，
# 结果仍与 `func1` 完全相同。表格用 Python 路径 `arg[0]`、`arg[1]` 标出它们。

# %%
%%jaxpr
def func4(arg):  # The arg is a pair.
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
# **Takeaway / 小结**: the jaxpr records what ran, not how the Python was written.
# jaxpr 记录的是实际执行了什么，而不是 Python 代码是怎么写的。
