# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 7 · `jit` inside a traced function / 第 7 讲 · 被 trace 函数中的 `jit`
#
# A function decorated with `jax.jit` and called while tracing appears as one **call primitive** whose
# `jaxpr` parameter is the callee's sub-jaxpr, compiled as one unit. The article calls it `pjit`;
# JAX 0.10 prints `jit`.
#
# 在 trace 过程中调用被 `jax.jit` 装饰的函数，会在 jaxpr 中留下一个 **call 原语**，其参数 `jaxpr` 是被调函数的子 jaxpr，
# 作为一个整体编译。文章中称其为 `pjit`，JAX 0.10 打印为 `jit`。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import jax
import jax.numpy as jnp
from jax import make_jaxpr

def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)  # Include a constant in the inner function.
    return arg + inner(arg - 2.)

func12(1.)

# %%
print(make_jaxpr(func12)(1.).pretty_print(use_color=False))

# %% [markdown]
# `inner` closes over `arg`: the closure becomes an explicit operand, so the call passes two values,
# `a` (`arg`) and `b` (`arg - 2.`), and the sub-jaxpr has two inputs. `jnp.ones(1)` is built inside the
# sub-jaxpr (`broadcast_in_dim`). JAX's printer restarts names inside the sub-jaxpr (`a`, `b` again), while
# jaxprlens keeps one name per value everywhere.
#
# `inner` 捕获了 `arg`：闭包变成显式操作数，所以调用传入两个值 `a`（`arg`）与 `b`（`arg - 2.`），子 jaxpr 有两个输入。
# `jnp.ones(1)` 在子 jaxpr 内部构造（`broadcast_in_dim`）。JAX 的打印器在子 jaxpr 中重新命名（又出现 `a`、`b`），
# jaxprlens 则让同一个值在各处保持同一个名字。

# %%
import jaxprlens

program = jaxprlens.trace(func12, 1.)
call = program.eqns[1]
sub = call.subs[0]
print("primitive:", call.primitive, "| name:", call.params["name"], "| sub-jaxpr:", sub.label)
print("sub-jaxpr inputs:", [f"{v.name}:{v.type}" for v in sub.program.invars],
      "<- operands", [a.name for a in call.invars])

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.graph"]
# The graph draws the sub-jaxpr as a cluster labelled with the function's name.
#
# 图中子 jaxpr 画成一个以函数名标注的簇。

# %% tags=["needs-feature"]
%%jaxpr --graph
func12(1.)

# %% [markdown]
# **Takeaway / 小结**: a nested `jit` is a call primitive carrying its own sub-jaxpr.
# 嵌套的 `jit` 是一个携带自身子 jaxpr 的 call 原语。
