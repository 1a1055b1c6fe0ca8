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

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.cost"]
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

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.runner"]
# ## Run it compiled / 编译后运行
#
# `--run` compiles the jaxpr with `jax.jit`, runs it on the device and reports the outputs, the compile time
# and the steady-state run time (timings vary from run to run).
#
# `--run` 用 `jax.jit` 编译该 jaxpr，在设备上运行，并给出输出、编译时间与稳态运行时间（计时每次运行都会不同）。

# %% tags=["needs-feature"]
%%jaxpr --run --device cpu
layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.runner"]
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
# **Takeaway / 小结**: the jaxpr is the unit of compilation; its equations are where the time goes.
# jaxpr 是编译的单位，时间就花在它的方程上。
