# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 10 · Running on the accelerator and reading the cost / 第 10 讲 · 在加速器上运行并读懂开销
#
# A jaxpr is what `jax.jit` compiles. jaxprlens can run the traced program compiled on a device, estimate
# each equation's FLOPs and bytes, and time each equation on its own. These notebooks are executed on the
# CPU (`JAX_PLATFORMS=cpu`); on a GPU machine drop `--device cpu`.
#
# jaxpr 正是 `jax.jit` 编译的对象。jaxprlens 可以把 trace 得到的程序编译后在设备上运行、估算每个方程的 FLOPs 与
# 访存字节数，并单独计时每个方程。本课程的 notebook 在 CPU 上执行（`JAX_PLATFORMS=cpu`）；在 GPU 机器上去掉
# `--device cpu` 即可。
#
# **Goal.** Run a jaxpr on a device, time it, and read the FLOPs and bytes of each equation. **Time:** 30 minutes.
#
# **目标**：在设备上运行 jaxpr 并计时，读懂每个方程的 FLOPs 与字节数。
# **时长**：30 分钟。

# %%
%load_ext jaxprlens

# %%
import numpy as np
import jax
import jax.numpy as jnp

print(jax.devices())

# %% tags=["needs-feature"]
%jaxpr --devices

# %% [markdown]
# A layer of an MLP: a matrix product (`dot_general`) followed by elementwise work.
#
# MLP 的一层：一次矩阵乘（`dot_general`）加上逐元素运算。

# %%
%%jaxpr
rng = np.random.default_rng(0)
w = rng.normal(size=(256, 256)).astype(np.float32)
x = rng.normal(size=(128, 256)).astype(np.float32)

def layer(w, x):
    return jnp.tanh(x @ w) * 2. + 1.

layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.cost"]
# ## The cost column / 开销列
#
# `--cost` adds, per equation, an estimate of FLOPs and of bytes moved (inputs read plus outputs written).
# The matrix product does `2·128·256·256` FLOPs and dominates; the elementwise equations move bytes but do
# little arithmetic (low arithmetic intensity).
#
# `--cost` 为每个方程增加 FLOPs 与访存字节数（读入输入 + 写出输出）的估算。矩阵乘的 FLOPs 为 `2·128·256·256`，占主导；
# 逐元素方程搬运数据却几乎不做计算（算术强度低）。

# %% tags=["needs-feature"]
%%jaxpr --cost
layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.runner"]
# ## Run it compiled / 编译后运行
#
# `--run` compiles the jaxpr with `jax.jit`, runs it on the device and reports the outputs, the compile time
# and the steady-state run time (timings vary from run to run).
#
# `--run` 用 `jax.jit` 编译该 jaxpr，在设备上运行，并给出输出、编译时间与稳态运行时间（计时每次运行都会不同）。

# %% tags=["needs-feature"]
%%jaxpr --run --device cpu
layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.runner"]
# ## Profile each equation / 逐方程计时
#
# `--profile` times every top-level equation on its own, beside the estimate, so you can see which one
# dominates.
#
# `--profile` 单独为每个顶层方程计时，并与估算值并列，方便看出哪个方程占主导。

# %% tags=["needs-feature"]
%%jaxpr --profile --device cpu
layer(w, x)

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
import math
import numpy as np
import jax.numpy as jnp
from jax import make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** How many floating-point operations does the `dot_general` of `layer(w, x)` do?
# Count a multiply-add as two. Answer with an int.
#
# `layer(w, x)` 中的 `dot_general` 做了多少次浮点运算？一次乘加算两次。用整数作答。

# %% tags=["exercise-1"]
rng = np.random.default_rng(0)
w = rng.normal(size=(256, 256)).astype(np.float32)
x = rng.normal(size=(128, 256)).astype(np.float32)

def layer(w, x):
    return jnp.tanh(x @ w) * 2. + 1.

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
dot = next(e for e in make_jaxpr(layer)(w, x).jaxpr.eqns if e.primitive.name == "dot_general")
(contracted, _), _ = dot.params["dimension_numbers"]
k = math.prod(dot.invars[0].aval.shape[d] for d in contracted)
check(answer_1, 2 * math.prod(dot.outvars[0].aval.shape) * k,
      "Each of the 128 x 256 outputs is a dot product of length 256: one multiply and one add per term.",
      "128 x 256 个输出中的每一个都是长度 256 的点积：每项一次乘法和一次加法。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
answer_1 = 2 * 128 * 256 * 256

# %% [markdown]
# **Exercise 2 / 练习 2.** How many bytes does the `tanh` equation move (its input read plus its output
# written)? Answer with an int.
#
# `tanh` 方程搬运多少字节（读入输入加写出输出）？用整数作答。

# %% tags=["exercise-2"]
answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
tanh = next(e for e in make_jaxpr(layer)(w, x).jaxpr.eqns if e.primitive.name == "tanh")
moved = sum(v.aval.size * v.aval.dtype.itemsize for v in [*tanh.invars, *tanh.outvars])
check(answer_2, moved,
      "tanh reads one f32[128,256] and writes one f32[128,256]; a float32 is 4 bytes.",
      "tanh 读入一个 f32[128,256]，写出一个 f32[128,256]；每个 float32 占 4 字节。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Two arrays of 128 * 256 float32 values, 4 bytes each: 262144 bytes, for only 32768 tanh evaluations.
# 两个 128 * 256 的 float32 数组，每个值 4 字节：共 262144 字节，却只做了 32768 次 tanh。
answer_2 = 2 * 128 * 256 * 4

# %% [markdown]
# **Takeaway / 小结**: the jaxpr is the unit of compilation; its equations are where the time goes.
#
# jaxpr 是编译的单位，时间就花在它的方程上。
