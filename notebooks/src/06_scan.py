# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 6 · `scan`: loops of static length / 第 6 讲 · `scan`：静态长度的循环
#
# `lax.scan` loops over the leading axis of arrays. Its trip count is known when tracing, which makes it
# reverse-differentiable. `C` is the carry type, `A` the element type of the input arrays, `B` of the outputs.
#
# `lax.scan` 沿数组的第一维循环，迭代次数在 trace 时已知，因此可以反向求导。`C` 是携带值的类型，`A` 是输入数组的
# 元素类型，`B` 是输出数组的元素类型。
#
# ```
# lax.scan(body_fun: (C -> A -> (C, B)), init_carry: C, in_arr: Array[A]) -> (C, Array[B])
# ```
#
# **Goal.** Account for `scan`'s consts, carry and xs, and see how its per-step outputs are stacked. **Time:** 35
# minutes.
#
# **目标**：说清 `scan` 的常量、携带值与 xs，并看懂每步的输出如何堆叠。
# **时长**：35 分钟。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant. / 一个常量。

    def body(carry, aelems):
        # carry: running dot-product of the two arrays
        # aelems: a pair with corresponding elements from the two arrays
        # `carry`：两个数组点积的累计值
        # `aelems`：两个数组中对应元素组成的二元组
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

func11(np.ones(16), 5.)

# %%
print(make_jaxpr(func11)(np.ones(16), 5.).pretty_print(use_color=False))

# %% [markdown]
# `scan` takes four operands, `b 0.0:f32[] a c`. JAX 0.11 and later say how they are grouped in one parameter,
# `ft_in=((None,), (None,), (None, None))`: a tree of three groups, in this order, with one entry per operand:
# - consts, 1 operand: `b`, i.e. `extra`, captured by the body;
# - carry, 1 operand: the initial value `0.0`;
# - xs, 2 operands, the arrays scanned over: `a` (`arr`) and `c` (`ones`); `length=16` iterations.
#
# `ft_out=((None,), (...,))` groups the results the same way: the final carry `d`, then the stacked
# per-iteration outputs `e:f32[16]`. The body's binders follow the same order: `f` (const), `g` (carry),
# `h i` (one element of each x). The stacked group prints as `(RightsOnly(Right(None)),)`: `Right` marks an
# output the `scan` equation computes and returns; a body that returns one of its xs unchanged gets a `Left`
# there instead, and that output is left out of the equation's results (the outer jaxpr returns the xs
# itself).
#
# `scan` 有 4 个操作数 `b 0.0:f32[] a c`。JAX 0.11 及之后用一个参数说明它们如何分组：
# `ft_in=((None,), (None,), (None, None))`，它是由三组按此顺序组成的树，每个操作数一项：常量 1 个：被循环体捕获的
# `b`（即 `extra`）；携带值 1 个：初值 `0.0`；xs 2 个，即被扫描的数组：`a`（`arr`）与 `c`（`ones`），共
# `length=16` 次迭代。`ft_out=((None,), (...,))` 以同样方式为结果分组：最终的携带值 `d`，以及逐次输出堆叠而成的
# `e:f32[16]`。循环体的绑定变量也按这个顺序排列：`f`（常量）、`g`（携带值）、`h i`（每个 x 的一个元素）。堆叠输出
# 这一组打印为 `(RightsOnly(Right(None)),)`：`Right` 表示由 `scan` 方程计算并返回的输出；如果循环体原样返回某个
# xs 的元素，这里就是 `Left`，该输出不在方程的结果之中（外层 jaxpr 直接返回那个 xs）。
#
# > **Outdated in the article / 原文已过时** — the article's older JAX printed the groups as counts,
# > `num_consts=1` and `num_carry=1` (the xs are the rest), and a `linear` parameter (autodiff bookkeeping).
# > JAX 0.10 no longer has `linear`; JAX 0.11 and later no longer print `num_consts` and `num_carry` either: the
# > operand groups are the parameter `ft_in` above, and `ft_out` does the same for the results. The counts are the
# > same; `roles` below reads them from whichever form your JAX prints.
# >
# > 文章所用的旧版 JAX 把分组打印成个数：`num_consts=1` 与 `num_carry=1`（其余为 xs），还有一个 `linear` 参数（供自动
# > 微分簿记）。JAX 0.10 已没有 `linear`；JAX 0.11 起也不再打印 `num_consts` 与 `num_carry`：操作数分组改由上面的参数
# > `ft_in` 表示，`ft_out` 对结果做同样的分组。个数不变；下面的 `roles` 会从你的 JAX 打印的任一种形式中读出它们。
#
# **Weak types / 弱类型.** The body's `convert_element_type[new_dtype=float32 weak_type=False]` changes no
# value and no dtype: it only drops *weak typing*. A Python scalar such as the initial carry `0.` or `extra = 5.`
# is traced as a *weakly typed* `f32[]`: a type that gives way to the other operand's dtype in arithmetic
# (`x_bf16 + 1.` stays `bfloat16`). When such a value meets a strongly typed `f32` (here `ae1 * ae2`), JAX makes
# it strong first, and that cast is the equation you see. Passing `extra` as `jnp.float32(5.)` removes its cast.
#
# 循环体中的 `convert_element_type[new_dtype=float32 weak_type=False]` 既不改变值也不改变 dtype：它只是去掉**弱类型**。
# 像初始携带值 `0.` 或 `extra = 5.` 这样的 Python 标量在 trace 时是*弱类型*的 `f32[]`：参与运算时它随另一个操作数的
# dtype（`x_bf16 + 1.` 仍是 `bfloat16`）。这种值遇到强类型的 `f32`（这里是 `ae1 * ae2`）时，JAX 先把它转成强类型，
# 这次转换就是你看到的方程。把 `extra` 传为 `jnp.float32(5.)`，这次转换就没有了。

# %%
import jaxprlens
from jaxprlens.present.i18n import role_summary

program = jaxprlens.trace(func11, np.ones(16), 5.)
scan = program.eqns[1]
print(scan.roles.groups)
print(role_summary(scan.roles, "en"))
print(role_summary(scan.roles, "zh"))
print({k: v for k, v in scan.params.items() if k != "jaxpr"})

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# ## Two iterations, step by step / 逐步执行两次迭代
#
# `step_into()` on the `scan` enters the body for iteration 0 with the first slice of the xs; stepping to the
# end of the body starts iteration 1.
#
# 在 `scan` 上 `step_into()` 会用 xs 的第一个切片进入第 0 次迭代的循环体；执行完循环体后进入第 1 次迭代。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
from jaxprlens import path_text   # where the stepper is, in the notebook's language / 单步执行器停在哪里，用笔记本的语言显示

stepper = program.stepper()
stepper.step()          # c = broadcast_in_dim 1.0 / 执行方程 c = broadcast_in_dim 1.0
stepper.step_into()     # enter the scan body, iteration 0 / 进入 scan 的循环体，第 0 次迭代
print(path_text(stepper), {k: float(v) for k, v in stepper.env_names.items()})
for _ in range(len(scan.subs[0].program.eqns)):
    stepper.step()
print(path_text(stepper), {k: float(v) for k, v in stepper.env_names.items()})
for _ in range(len(scan.subs[0].program.eqns)):
    stepper.step()
print(path_text(stepper), {k: float(v) for k, v in stepper.env_names.items()})

# %% tags=["needs-feature"]
%%jaxpr --debug
func11(np.ones(16), 5.)

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
import jax
import jax.numpy as jnp
from jax import lax
import jaxprlens

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** How many operands will the `scan` of `running` have in each group? Answer with a
# dict `{"consts": ..., "carry": ..., "xs": ...}`.
#
# `running` 中的 `scan` 每组各有多少个操作数？用字典 `{"consts": ..., "carry": ..., "xs": ...}` 作答。

# %% tags=["exercise-1"]
w = np.array([1., 2., 3.], dtype=np.float32)

def running(xs, k):
    def body(c, x):
        total, count = c
        return (total + x * k, count + 1), (x * w, total)
    return lax.scan(body, (0., 0), xs)

answer_1 = None  # a dict of three ints / 含三个整数的字典

# %% tags=["check-1"]
scan_eqn = jaxprlens.trace(running, jnp.ones(16), 2.).eqns[-1]
check(answer_1, dict(scan_eqn.roles.groups),
      "Consts are the values the body captures (traced or hoisted arrays), the carry is each leaf of init, and "
      "xs are the leaves of the scanned argument.",
      "常量是循环体捕获的值（被 trace 的值或被提升的数组），携带值是 init 的每个叶子，xs 是被扫描实参的叶子。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# Captured: k (an argument) and w (an array constant, hoisted); carry: (total, count); xs: xs.
# 捕获的值：k（实参）与 w（被提升的数组常量）；携带值：(total, count)；xs：xs。
answer_1 = {"consts": 2, "carry": 2, "xs": 1}

# %% [markdown]
# **Exercise 2 / 练习 2.** What is the shape of the first stacked output of `running` (the `x * w` per step)?
# Answer with a tuple of ints.
#
# `running` 的第一个堆叠输出（每步的 `x * w`）形状是什么？用整数元组作答。

# %% tags=["exercise-2"]
answer_2 = None  # a tuple of ints, e.g. (2, 5) / 整数元组

# %% tags=["check-2"]
_, (first_ys, _) = jax.eval_shape(running, jnp.ones(16), 2.)
check(answer_2, first_ys.shape,
      "scan stacks each per-step output along a new leading axis of size length.",
      "scan 把每步的输出沿一个新的、长度为 length 的第 0 维堆叠起来。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# Each step gives x * w: f32[3]; 16 steps stack to f32[16,3].
# 每步得到 x * w：f32[3]；16 步堆叠为 f32[16,3]。
answer_2 = (16, 3)

# %% [markdown]
# **Takeaway / 小结**: `scan` = consts + carry + xs, with a static `length`.
#
# `scan` = 常量 + 携带值 + xs，且 `length` 是静态的。
