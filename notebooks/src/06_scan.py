# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 6 · `scan`: loops of static length / 第 6 讲 · `scan`：静态长度的循环
#
# `lax.scan` loops over the leading axis of arrays. Its trip count is known when tracing, which makes it
# reverse-differentiable. `C` is the carry type, `A` the element type of the input arrays, `B` of the outputs.
#
# `lax.scan` 沿数组的第一维循环，迭代次数在 trace 时已知，因此可以反向求导。`C` 是 carry 的类型，`A` 是输入数组的
# 元素类型，`B` 是输出数组的元素类型。
#
# ```
# lax.scan(body_fun: (C -> A -> (C, B)), init_carry: C, in_arr: Array[A]) -> (C, Array[B])
# ```

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant.

    def body(carry, aelems):
        # carry: running dot-product of the two arrays
        # aelems: a pair with corresponding elements from the two arrays
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

func11(np.ones(16), 5.)

# %%
print(make_jaxpr(func11)(np.ones(16), 5.).pretty_print(use_color=False))

# %% [markdown]
# `scan` takes four operands, `b 0.0:f32[] a c`:
# - 1 constant (`num_consts=1`): `b`, i.e. `extra`, captured by the body;
# - 1 carry (`num_carry=1`): the initial value `0.0`;
# - 2 arrays scanned over (xs): `a` (`arr`) and `c` (`ones`); `length=16` iterations.
#
# It returns the final carry `d` and the stacked per-iteration outputs `e:f32[16]`. The article's JAX printed
# a `linear` parameter (used by autodiff bookkeeping); JAX 0.10's `scan` no longer has it.
#
# `scan` 有 4 个操作数 `b 0.0:f32[] a c`：1 个常量（`num_consts=1`）：被 body 捕获的 `b`（即 `extra`）；
# 1 个 carry（`num_carry=1`）：初值 `0.0`；2 个被扫描的数组（xs）：`a`（`arr`）与 `c`（`ones`），共 `length=16` 次迭代。
# 返回最终的 carry `d` 以及逐次输出堆叠而成的 `e:f32[16]`。文章中的旧版 JAX 还会打印 `linear` 参数（供自动微分簿记使用），
# JAX 0.10 的 `scan` 已没有该参数。

# %%
import jaxprlens

program = jaxprlens.trace(func11, np.ones(16), 5.)
scan = program.eqns[1]
print(scan.roles.summary("en"))
print(scan.roles.summary("zh"))
print({k: v for k, v in scan.params.items() if k != "jaxpr"})

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.stepper"]
# ## Two iterations, step by step / 逐步执行两次迭代
#
# `step_into()` on the `scan` enters the body for iteration 0 with the first slice of the xs; stepping to the
# end of the body starts iteration 1.
#
# 在 `scan` 上 `step_into()` 会用 xs 的第一个切片进入第 0 次迭代的 body；执行完 body 后进入第 1 次迭代。

# %% tags=["needs-feature"] needs=["jaxprlens.stepper"]
stepper = program.stepper()
stepper.step()          # c = broadcast_in_dim 1.0
stepper.step_into()     # enter the scan body, iteration 0
print(stepper.path_text, {k: float(v) for k, v in stepper.env_names.items()})
for _ in range(len(scan.subs[0].program.eqns)):
    stepper.step()
print(stepper.path_text, {k: float(v) for k, v in stepper.env_names.items()})
for _ in range(len(scan.subs[0].program.eqns)):
    stepper.step()
print(stepper.path_text, {k: float(v) for k, v in stepper.env_names.items()})

# %% tags=["needs-feature"]
%%jaxpr --debug
func11(np.ones(16), 5.)

# %% [markdown]
# **Takeaway / 小结**: `scan` = consts + carry + xs, with a static `length`.
# `scan` = 常量 + carry + xs，且 `length` 是静态的。
