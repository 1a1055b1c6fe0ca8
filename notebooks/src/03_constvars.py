# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 3 · Constant variables and the data model / 第 3 讲 · 常量变量与数据模型
#
# Scalar constants are inlined as literals (`3.0:f32[]`). Array constants that do not depend on the
# arguments are **hoisted**: they become *constvars*, printed before the `;`, and their values travel
# with the jaxpr in `ClosedJaxpr.consts`.
#
# 标量常量以字面量形式内联（`3.0:f32[]`）；与参数无关的数组常量则被**提升**为 *constvars*，打印在分号之前，
# 它们的值保存在 `ClosedJaxpr.consts` 中，随 jaxpr 一起携带。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import make_jaxpr

weights = np.array([1., 2., 3.], dtype=np.float32)  # an array constant, hoisted

def scaled(x):
    return jnp.sum(x * weights) * 2.  # 2. is a scalar: inlined

scaled(jnp.ones(3))

# %%
print(make_jaxpr(scaled)(jnp.ones(3)).pretty_print(use_color=False))

# %% [markdown]
# `a:f32[3]` before the `;` is the constvar holding `weights`; `b` is `x`. Constvars and invars differ only
# by bookkeeping: inside JAX both are input variables, and the first `len(consts)` of them get their values
# from `consts`.
#
# 分号前的 `a:f32[3]` 就是存放 `weights` 的 constvar，`b` 是 `x`。constvars 与 invars 的区别只是簿记惯例：
# 在 JAX 内部两者都是输入变量，前 `len(consts)` 个的值来自 `consts`。

# %% [markdown]
# ## `ClosedJaxpr`, `Jaxpr` and `JaxprEqn` / 代码中的数据模型
#
# `jax.make_jaxpr` returns a `ClosedJaxpr`: a `Jaxpr` (the computation) plus `consts` (the values of its
# constvars). The public names live in `jax.extend.core`.
#
# `jax.make_jaxpr` 返回 `ClosedJaxpr`：一个 `Jaxpr`（计算本身）加上 `consts`（constvars 的值）。
# 这些类型的公共入口在 `jax.extend.core`。

# %%
import jax.extend.core as jcore

closed = make_jaxpr(scaled)(jnp.ones(3))
print(isinstance(closed, jcore.ClosedJaxpr), isinstance(closed.jaxpr, jcore.Jaxpr))
print("consts:", [np.asarray(c) for c in closed.consts])
print("constvars:", len(closed.jaxpr.constvars), " invars:", len(closed.jaxpr.invars),
      " eqns:", len(closed.jaxpr.eqns), " outvars:", len(closed.jaxpr.outvars))

# %% [markdown]
# Each equation is a `JaxprEqn` with `invars` (atoms), `outvars`, `primitive`, `params` and `effects`
# (plus `source_info` and `ctx` for debugging).
#
# 每个方程是一个 `JaxprEqn`，字段有 `invars`（原子）、`outvars`、`primitive`、`params`、`effects`
# （以及调试用的 `source_info` 与 `ctx`）。

# %%
eqn = closed.jaxpr.eqns[1]
print(isinstance(eqn, jcore.JaxprEqn))
print("primitive:", eqn.primitive, " params:", eqn.params, " effects:", set(eqn.effects))
print("invars:", [str(v.aval) for v in eqn.invars], " outvars:", [str(v.aval) for v in eqn.outvars])

# %% [markdown]
# JAX's own `Var` objects print with an identity number that changes every run. `jaxprlens.trace` gives the
# same data with the printer's names (`a`, `b`, ...) and the Python path of each input:
#
# JAX 的 `Var` 对象打印时带有每次运行都不同的标识号。`jaxprlens.trace` 给出同样的数据，但使用打印器的名字
# （`a`、`b`……）以及每个输入对应的 Python 路径：

# %%
import jaxprlens

program = jaxprlens.trace(scaled, jnp.ones(3))
print(program)
print("constvars:", [f"{v.name}:{v.type}" for v in program.constvars], "consts:", [np.asarray(c) for c in program.consts])
print("invars:", [f"{v.name}:{v.type} ({v.path})" for v in program.invars])
for e in program.eqns:
    print(e.index, [v.name for v in e.outvars], "=", e.primitive, [a.name for a in e.invars], e.params)

# %% [markdown]
# ## A constant inside a branch / 分支中的常量
#
# Constants captured inside a sub-jaxpr are hoisted too. In the article's `func8`, `jnp.array([1])` in the
# false branch becomes the outer constvar `a:i32[1]` and is passed into both branches (lecture 4).
#
# 子 jaxpr 中捕获的常量同样会被提升。文章的 `func8` 中，false 分支里的 `jnp.array([1])` 变成外层的 constvar
# `a:i32[1]`，并作为操作数传入两个分支（见第 4 讲）。

# %%
from jax import lax

def func8(arg1, arg2):  # Where `arg2` is a pair.
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)

closed8 = make_jaxpr(func8)(5., (jnp.zeros(1), 2.))
print([f"{v.aval}" for v in closed8.jaxpr.constvars], [np.asarray(c) for c in closed8.consts])

# %% [markdown]
# **Takeaway / 小结**: scalars inline, arrays hoist; `ClosedJaxpr = Jaxpr + consts`.
# 标量内联、数组提升；`ClosedJaxpr = Jaxpr + consts`。
