# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 11 · Transformations interpret the jaxpr / 第 11 讲 · 变换就是对 jaxpr 的解释
#
# `jax.grad`, `jax.vmap`, `jax.linearize` and `jax.linear_transpose` do not look at your Python code: they
# trace it to a jaxpr and then **interpret** that jaxpr with rules for each primitive. The result is again
# a jaxpr. `%%jaxpr --transform NAME` shows the jaxpr of the transformed function, and `--compare` puts it
# beside the original, aligned by source line, so you can see which equations of the original produced
# which equations of the derivative.
#
# `jax.grad`、`jax.vmap`、`jax.linearize`、`jax.linear_transpose` 并不直接读 Python 代码：它们先把函数 trace 成
# jaxpr，再按每个原语的规则去**解释**这个 jaxpr，得到的结果仍然是一个 jaxpr。`%%jaxpr --transform NAME`
# 显示变换后函数的 jaxpr，`--compare` 把它与原程序按源码行对齐并排显示，让你看到原程序的哪些方程
# 产生了导数程序中的哪些方程。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## grad: forward pass, then a backward pass / grad：先前向，再反向
#
# The original `func1` has four equations. Its gradient with respect to `first` keeps the forward
# equations and adds the backward ones. Rows are grouped by the source line that made them; equations
# with no line in the original are marked as new.
#
# 原来的 `func1` 有四个方程。对 `first` 求梯度时，前向方程被保留，再加上反向方程。每一组对应产生它们的
# 源码行；在原程序中找不到对应行的方程被标为新方程。

# %%
%%jaxpr --transform grad --compare
import jax
import jax.numpy as jnp

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# `--argnums 0,1` differentiates with respect to both arguments: now `cos` appears, the derivative of `sin`.
#
# `--argnums 0,1` 对两个参数同时求导：这时出现了 `cos`，也就是 `sin` 的导数。

# %%
%%jaxpr --transform grad --argnums 0,1
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# ## linearize and transpose: the two halves of reverse mode / linearize 与 transpose：反向模式的两半
#
# `jax.grad` = `linearize` (a JVP, partially evaluated: only the *linear* tangent equations remain) followed
# by `transpose` (the linear function run backwards). The linearized `func1` multiplies the tangent of
# `second` by `cos(second)` (computed once and kept as a constant) and by `3.0`, adds the tangent of `first`,
# and sums.
#
# `jax.grad` 等于 `linearize`（对 JVP 做部分求值，只留下**线性**的切向量方程）再接 `transpose`（把这个线性函数
# 反过来运行）。线性化后的 `func1` 把 `second` 的切向量乘以 `cos(second)`（只算一次，作为常量保存）和 `3.0`，
# 加上 `first` 的切向量，再求和。

# %%
%%jaxpr --transform linearize --text
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# Transposing reverses the data flow: `reduce_sum` becomes `broadcast_in_dim`, and every `mul` by a constant
# stays a `mul` by the same constant, now applied to the cotangent.
#
# 转置把数据流方向反过来：`reduce_sum` 变成 `broadcast_in_dim`，每个乘以常量的 `mul` 仍然是乘以同一个常量，
# 只是现在作用在余切向量上。

# %%
%%jaxpr --transform transpose --compare
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# The same from Python: `program.transform(name, ...)` returns a new `Program`, and every view works on it.
#
# 在 Python 中也一样：`program.transform(name, ...)` 返回一个新的 `Program`，所有视图都能作用于它。

# %%
import jaxprlens

p = jaxprlens.trace(func1, jnp.zeros(8), jnp.ones(8))
lin = p.transform("linearize")
print(lin.text)
print(p.transform("transpose").text)

# %% [markdown]
# ## grad of a scan: the loop runs backwards / scan 的梯度：循环倒着跑
#
# `func11` returns `(carry, ys)`; `grad` differentiates the scalar carry and keeps `ys` as auxiliary output
# (`has_aux=True`). The gradient has two `scan`s from the same source line: the forward scan and, after it,
# its transpose with `reverse=True`.
#
# `func11` 返回 `(carry, ys)`；`grad` 对标量 carry 求导，并把 `ys` 作为辅助输出（`has_aux=True`）。
# 梯度程序里有两个来自同一行源码的 `scan`：先是前向 scan，然后是它的转置，`reverse=True`。

# %%
%%jaxpr --transform grad --compare
from jax import lax

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant.

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

func11(jnp.ones(16), 5.)

# %% [markdown]
# ## jvp of a while loop: tangent carries / while 循环的 jvp：切向量 carry
#
# Forward mode adds a tangent for every floating-point carry. The `while` of `func10` now carries the
# primal and its tangent side by side; the integer counter has no tangent.
#
# 前向模式给每个浮点 carry 都加上一个切向量。`func10` 的 `while` 现在同时携带原值和它的切向量；
# 整数计数器没有切向量。

# %%
%%jaxpr --transform jvp
def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant.
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

func10(jnp.ones(16), 5)

# %% [markdown]
# ## vmap: a batched `cond` becomes `select_n` / vmap：批处理后的 `cond` 变成 `select_n`
#
# Under `vmap` the predicate of `func7`'s `cond` is a vector, one entry per batch element, so JAX cannot
# pick one branch: it runs **both** branches and selects elementwise with `select_n`. (The view batches
# each mapped argument by stacking two copies.)
#
# 在 `vmap` 下，`func7` 中 `cond` 的谓词是一个向量，每个批元素一个值，JAX 无法只选一个分支：它**两个分支都执行**，
# 再用 `select_n` 逐元素选择。（该视图把每个被映射的参数复制两份堆叠起来作为批。）

# %%
%%jaxpr --transform vmap --in-axes 0 --compare
def func7(arg):
    return lax.cond(arg >= 0.,
                    lambda xtrue: xtrue + 3.,
                    lambda xfalse: xfalse - 3.,
                    arg)

func7(5.)

# %% [markdown]
# `diff` compares two programs equation by equation. Mapping `arr` or mapping `extra` of `func11` gives
# different programs: mapping `arr` adds a `transpose` before the scan (the scanned axis must come first),
# while mapping `extra` changes which equations of the scan body carry the batch dimension.
#
# `diff` 逐个方程比较两个程序。对 `func11` 的 `arr` 做映射与对 `extra` 做映射得到的程序不同：映射 `arr`
# 需要在 scan 之前加一次 `transpose`（被扫描的轴必须在最前面），而映射 `extra` 改变了 scan 循环体中
# 哪些方程带有批维度。

# %%
from jaxprlens.diff import diff

p11 = jaxprlens.trace(func11, jnp.ones(16), 5.)
diff(p11.transform("vmap", in_axes="0,None"), p11.transform("vmap", in_axes="None,0"),
     labels=("vmap over arr", "vmap over extra"), context=False)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.stepper"]
# A transformed program is an ordinary program: step through the gradient of `func1` and compare with `jax.jit`.
#
# 变换后的程序也是普通程序：单步执行 `func1` 的梯度，并与 `jax.jit` 的结果比较。

# %% tags=["needs-feature"] needs=["jaxprlens.stepper"]
g = p.transform("grad")
print(g.stepper().run().outputs)
print(jax.jit(jax.grad(func1))(jnp.zeros(8), jnp.ones(8)))

# %% [markdown]
# ## Below the jaxpr: StableHLO / jaxpr 之下：StableHLO
#
# `--lower` shows the StableHLO module that `jax.jit(f).lower(...)` produces, with each equation linked to
# the ops it lowered to (matched by source line and primitive). `--compiled` adds XLA's optimized HLO, where
# the ops of `func1` are fused into a single kernel.
#
# `--lower` 显示 `jax.jit(f).lower(...)` 生成的 StableHLO 模块，并把每个方程链接到它降低（lower）成的算子
# （按源码行与原语匹配）。`--compiled` 再显示 XLA 优化后的 HLO，可以看到 `func1` 的算子被融合成一个 kernel。

# %%
%%jaxpr --lower --compiled
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# **Takeaway / 小结**: every transformation maps a jaxpr to a jaxpr: `grad` = `linearize` + `transpose`,
# `vmap` turns control flow into data (`cond` → `select_n`), and `jit` lowers the final jaxpr to StableHLO.
# 每个变换都把一个 jaxpr 映射成另一个 jaxpr：`grad` = `linearize` + `transpose`，`vmap` 把控制流变成数据
# （`cond` → `select_n`），`jit` 再把最终的 jaxpr 降低为 StableHLO。
