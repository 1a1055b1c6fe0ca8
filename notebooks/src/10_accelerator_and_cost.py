# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
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
#
# **What the estimate is / 这个估算是什么.** It counts each equation as if it ran alone, reading each input from
# memory once and writing each output back once: the traffic that equation cannot avoid when run on its own,
# and the right number for comparing equations. It is **not** what the compiled program moves, nor a bound on
# it either way: XLA fuses neighbouring elementwise equations into one kernel, whose intermediate values never
# reach memory, so fusion moves less (see the fusion box below); a large matrix product computed tile by tile
# may read its operands from memory more than once, so it can move more.
#
# **这个估算是什么**：它把每个方程当作单独运行来计：每个输入从内存读一次，每个输出写回内存一次，即该方程单独运行时
# 无法避免的访存量，适合用来比较各方程。它**不是**编译后的程序实际搬运的字节数，也不是它的上界或下界：XLA 会把相邻的
# 逐元素方程融合成一个计算内核，其中间值从不写回内存，所以融合后搬运得更少（见下面关于融合的说明）；而大的矩阵乘按块
# 计算时，可能不止一次地从内存读取操作数，所以可能搬运得更多。

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
# dominates. Read it at the precision it has. The product dominates on every run: it has 500 times the FLOPs of
# each other equation. The three elementwise equations are each a few tens of µs, mostly the cost of starting a program and
# moving its 262.1 kB, not their 32.8 kFLOP; their order among themselves changes with the machine and its load
# (`tanh` may well come out faster than `mul`), so do not read it as a cost of the primitives. `--repeat 100`
# takes the median of 100 runs, which steadies each number but cannot make a 30 µs gap mean anything.
#
# `--profile` 单独为每个顶层方程计时，并与估算值并列，方便看出哪个方程占主导。读它的时候要看清它的精度。矩阵乘每次都占主导：
# 它的 FLOP 是其他每个方程的 500 倍。三个逐元素方程各用几十 µs，主要花在启动程序和搬运它的 262.1 kB 上，而不是它们的
# 32.8 kFLOP；它们之间的先后随机器和负载而变（`tanh` 完全可能比 `mul` 更快），所以不要把它读成这些原语的开销。
# `--repeat 100` 取 100 次运行的中位数，让每个数字更稳定，但无法让 30 µs 的差别变得有意义。

# %% tags=["needs-feature"]
%%jaxpr --profile --device cpu --repeat 100
layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.transform"]
# ## Fusion: what XLA does to the equations / 融合：XLA 对方程做了什么
#
# > **Fusion / 融合** — `jax.jit` hands the jaxpr to XLA, which does not run it equation by equation. It
# > *fuses* chains of elementwise equations (on a GPU often with the reduction or product next to them) into
# > one kernel. `--compiled` shows the optimized HLO after XLA: look for `fusion`. Here the four equations of
# > `layer` become two kernels: the product, and one loop that reads `x @ w` once, applies `tanh`, `mul` and
# > `add`, and writes the result once; the intermediate values `d` and `e` never reach memory. So the
# > per-equation bytes above add up to more than the compiled program moves, and `--profile`, which runs each
# > equation alone, adds up to more than `--run`.
# >
# > `jax.jit` 把 jaxpr 交给 XLA，XLA 并不逐个方程地执行。它会把一串逐元素方程（在 GPU 上常常连同相邻的归约或乘积）
# > **融合**成一个计算内核。`--compiled` 显示 XLA 优化后的 HLO：找找 `fusion`。这里 `layer` 的四个方程变成两个计算内核：
# > 矩阵乘，以及一个循环，它只读一次 `x @ w`，依次做 `tanh`、`mul`、`add`，只写一次结果；中间值 `d` 和 `e` 从不写回
# > 内存。所以上面逐方程的字节数之和大于编译后程序实际搬运的量，
# > 逐个方程单独运行的 `--profile` 之和也大于 `--run`。

# %% tags=["needs-feature"]
%%jaxpr --compiled
layer(w, x)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.compiled.fusion"]
# `--fusion` reads that HLO back onto the equations: each row is tinted with the kernel it became, the legend
# lists the kernels with their equations, and the summary says `4 equations → 2 kernels` and how many
# intermediate bytes were never written (`d` and `e`, 262.1 kB). The map is read from the program compiled for
# the device you ask for (`--device`), so on another device the kernels may be grouped differently.
#
# `--fusion` 把这份 HLO 对应回各个方程：每一行按它所成为的计算内核着色，图例列出各计算内核及其方程，摘要写出
# 方程与计算内核的个数（4 个方程、2 个计算内核），以及有多少中间字节从未写入内存（`d` 和 `e`，262.1 kB）。这张图读自为所选设备（`--device`）
# 编译的程序，所以在别的设备上，计算内核的划分可能不同。

# %% tags=["needs-feature"] needs=["jaxprlens.views.compiled.fusion"]
%%jaxpr --fusion
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
# Solution: click to open
# 参考答案：点击展开
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
# Solution: click to open
# 参考答案：点击展开
# Two arrays of 128 * 256 float32 values, 4 bytes each: 262144 bytes, for only 32768 tanh evaluations.
# 两个 128 * 256 的 float32 数组，每个值 4 字节：共 262144 字节，却只做了 32768 次 tanh。
answer_2 = 2 * 128 * 256 * 4

# %% [markdown]
# **Takeaway / 小结**: the jaxpr is the unit of compilation. Its equations say where the arithmetic is; after
# XLA fuses them, the kernels of the compiled program (`--compiled`) say where the time goes.
#
# jaxpr 是编译的单位。它的方程说明计算量在哪里；XLA 把方程融合之后，编译后程序的计算内核（`--compiled`）才说明时间
# 花在哪里。
