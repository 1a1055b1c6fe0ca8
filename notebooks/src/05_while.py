# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 5 · `while`: loops at run time / 第 5 讲 · `while`：运行时的循环
#
# A Python loop is unrolled while tracing. To loop at run time use `lax.while_loop`, or `lax.fori_loop`,
# a helper that builds one. `C` is the type of the loop **carry**.
#
# Python 循环在 trace 时被展开。要在运行时循环，须使用 `lax.while_loop`，或基于它的辅助函数 `lax.fori_loop`。
# `C` 是循环 **carry** 的类型。
#
# ```
# lax.while_loop(cond_fun: (C -> bool), body_fun: (C -> C), init: C) -> C
# lax.fori_loop(start: int, end: int, body: (int -> C -> C), init: C) -> C
# ```

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr

def count_up(x):
    return lax.while_loop(lambda c: c < 10., lambda c: c + 1.5, x)

count_up(0.)

# %% [markdown]
# ## `fori_loop` (`func10`)
#
# `n` is a runtime integer, so the loop cannot be unrolled: `fori_loop` becomes a `while` whose carry is
# `(i, n, x)`.
#
# `n` 是运行时整数，循环无法静态展开：`fori_loop` 变成一个 `while`，其 carry 为 `(i, n, x)`。

# %%
%%jaxpr
def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant.
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

func10(np.ones(16), 5)

# %%
print(make_jaxpr(func10)(np.ones(16), 5).pretty_print(use_color=False))

# %% [markdown]
# `while` takes five operands, `c a 0 b d`:
# - 0 constants for `cond_jaxpr` (`cond_nconsts=0`);
# - 2 constants for `body_jaxpr` (`body_nconsts=2`): `c` (`ones`) and `a` (`arg`), captured by the body;
# - 3 carry values: the counter `0`, the bound `b` (`n`) and `d` (`arg + ones`).
#
# The first two results (counter and bound) are dropped, printed `_`.
#
# `while` 共有 5 个操作数 `c a 0 b d`：`cond_jaxpr` 的常量 0 个（`cond_nconsts=0`）；`body_jaxpr` 的常量 2 个
# （`body_nconsts=2`）：被 body 捕获的 `c`（`ones`）与 `a`（`arg`）；carry 初值 3 个：计数器 `0`、上界 `b`（`n`）
# 与 `d`（`arg + ones`）。前两个结果（计数器与上界）不再使用，打印为 `_`。

# %%
import jaxprlens

program = jaxprlens.trace(func10, np.ones(16), 5)
loop = program.eqns[2]
print(loop.primitive, "|", loop.roles.summary("en"), "|", loop.roles.summary("zh"))

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.stepper"]
# ## Step through it / 单步执行
#
# The stepper runs the equations with real values. `step_into()` on the `while` enters its cond jaxpr, then
# its body, iteration by iteration.
#
# 单步引擎用真实的值执行方程。在 `while` 上 `step_into()` 会进入它的 cond jaxpr，然后逐次进入 body。

# %% tags=["needs-feature"] needs=["jaxprlens.stepper"]
stepper = program.stepper()
stepper.step()        # c = broadcast_in_dim 1.0
stepper.step()        # d = add a c
stepper.step_into()   # enter the while
for _ in range(8):
    stepper.step_into()
print(stepper.path_text)
print({name: np.asarray(val).ravel()[:3] for name, val in stepper.env_names.items()})
stepper.run()
print(stepper.outputs[:3], jax.jit(func10)(np.ones(16), 5)[:3])

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.debugger"]
# The debugger widget does the same with buttons (Step, Step into, Step out, Back, Continue).
#
# 调试器小部件用按钮完成同样的操作（Step、Step into、Step out、Back、Continue）。

# %% tags=["needs-feature"]
%%jaxpr --debug
func10(np.ones(16), 5)

# %% [markdown]
# **Takeaway / 小结**: `while` = cond consts + body consts + carry; the trip count is a runtime value.
# `while` = cond 常量 + body 常量 + carry；迭代次数是运行时的值。
