# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 12 · grad and reverse mode / 第 12 讲 · grad 与反向模式
#
# `jax.grad`, `jax.vmap`, `jax.jvp` and `jax.linearize` do not read your Python code, and they do not first build
# a jaxpr of it and then interpret that jaxpr either. They run your function with *tracers*, and each primitive
# your function binds is handled on the spot by that transformation's rule (a JVP rule, a batching rule)
# **while tracing**. The jaxpr you see below exists because `make_jaxpr` traces the *transformed* function
# (`jax.grad(f)`, `jax.vmap(f)`): the transformation's rules emit the equations as the trace goes.
# Two things do interpret a jaxpr that already exists. Transposition (`jax.linear_transpose`, the backward pass
# of `grad`) walks a linear jaxpr backwards, equation by equation. And `cond`, `while`, `scan` and `jit` carry
# their bodies as jaxprs: their JVP and batching rules turn each body back into a function (`jaxpr_as_fun` in
# JAX's `ad.py` and `batching.py`) and run it again under the transformation's tracers, so the body is
# re-traced equation by equation. The scan example of this lecture and the while loop of lecture 13 are that case.
# `%%jaxpr --transform NAME` shows the jaxpr of the transformed function, and `--compare` puts it beside the
# original, aligned by source line, so you can see which equations of the original produced which equations of
# the derivative.
#
# `jax.grad`、`jax.vmap`、`jax.jvp`、`jax.linearize` 不读 Python 代码，也**不是**先构造函数的 jaxpr 再去解释它。它们用
# *tracer* 运行你的函数，函数每绑定一个原语，该变换的规则（JVP 规则、批处理规则）就**在 trace 过程中**当场处理它。
# 下面之所以能看到 jaxpr，是因为 `make_jaxpr` trace 了**变换后的**函数（`jax.grad(f)`、`jax.vmap(f)`）：变换的规则在
# trace 过程中逐个产生方程。有两处确实会解释一个已经存在的 jaxpr。转置（`jax.linear_transpose`、`grad` 的反向过程）
# 沿着一个线性 jaxpr 从后往前逐个方程地处理。而 `cond`、`while`、`scan`、`jit` 把各自的分支、循环体或函数体作为子 jaxpr 携带：它们的
# JVP 规则和批处理规则把子 jaxpr 重新变成函数（JAX 的 `ad.py` 与 `batching.py` 中的 `jaxpr_as_fun`），在变换的 tracer 下
# 再运行一遍，于是这些子 jaxpr 被逐个方程地重新 trace。本讲的 scan 示例与第 13 讲的 while 循环正是这种情形。`%%jaxpr --transform NAME` 显示变换后函数的 jaxpr，`--compare` 把它与原程序按源码行对齐
# 并排显示，让你看到原程序的哪些方程产生了导数程序中的哪些方程。
#
# **Goal.** Read the jaxprs of `grad`, `linearize` and `transpose`, tell which equations each rule added, say
# where the residuals of a backward pass come from (partial evaluation) and what `jax.checkpoint` changes in
# memory, and which values a checkpoint policy keeps. Lecture 13 reads `jvp`, `vmap` and the rules you write.
# **Time:** 75 minutes.
#
# **目标**：读懂 `grad`、`linearize` 和 `transpose` 的 jaxpr，指出每条规则加入了哪些方程，说清反向过程的残差从哪里来
# （部分求值），`jax.checkpoint` 在内存上改变了什么，以及 checkpoint 策略保留哪些值。第 13 讲读 `jvp`、`vmap` 以及你自己写的规则。
# **时长**：75 分钟。

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
# `--argnums 0,1` 对两个实参同时求导：这时出现了 `cos`，也就是 `sin` 的导数。

# %%
%%jaxpr --transform grad --argnums 0,1
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# ## linearize and transpose: the two halves of reverse mode / linearize 与 transpose：反向模式的两半
#
# `jax.grad` = `linearize` (only the *linear* tangent equations of `f` at the given point, with the values they
# read from the forward pass) followed by `transpose` (the linear function run backwards). The linearized `func1` multiplies the tangent of
# `second` by `cos(second)` (computed once and kept as a constant) and by `3.0`, adds the tangent of `first`,
# and sums. Here `3.0` is not a literal but the constvar `b:f32[]`: linearizing stored it as a 0-d `jax.Array`,
# and an existing `jax.Array` is a constvar whatever its shape (lecture 3).
#
# `jax.grad` 等于 `linearize`（`f` 在给定点上**线性**的切向量方程，以及它们从前向过程读取的值）再接 `transpose`
# （把这个线性函数反过来运行）。线性化后的 `func1` 把 `second` 的切向量乘以 `cos(second)`（只算一次，作为常量保存）和 `3.0`，
# 加上 `first` 的切向量，再求和。这里的 `3.0` 不是字面量，而是 constvar `b:f32[]`：线性化把它保存成了 0 维的
# `jax.Array`，而已经存在的 `jax.Array` 不论形状都是 constvar（第 3 讲）。

# %%
%%jaxpr --transform linearize --text
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# Transposing reverses the data flow: `reduce_sum` becomes `broadcast_in_dim`, and every `mul` by a constant
# stays a `mul` by the same constant, now applied to the cotangent.
#
# 转置把数据流方向反过来：`reduce_sum` 变成 `broadcast_in_dim`，每个乘以常量的 `mul` 仍然是乘以同一个常量，
# 只是现在作用在余切上。

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
# `func11` returns `(carry, ys)`. `jax.grad` refuses a function whose output is not one scalar, so `--has-aux`
# says what `jax.grad(func11, has_aux=True)` says: differentiate the scalar carry, keep `ys` as auxiliary output.
# The gradient has two `scan`s from the same source line: the forward scan and, after it, its transpose with
# `reverse=True`.
#
# `func11` 返回 `(carry, ys)`。`jax.grad` 拒绝输出不是单个标量的函数，所以用 `--has-aux` 表达
# `jax.grad(func11, has_aux=True)` 的意思：对标量携带值求导，并把 `ys` 作为辅助输出。
# 梯度程序里有两个来自同一行源码的 `scan`：先是前向 scan，然后是它的转置，`reverse=True`。

# %%
%%jaxpr --transform grad --has-aux --compare
from jax import lax

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant. / 一个常量。

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

func11(jnp.ones(16), 5.)


# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# A transformed program is an ordinary program: step through the gradient of `func1` and compare with `jax.jit`.
#
# 变换后的程序也是普通程序：单步执行 `func1` 的梯度，并与 `jax.jit` 的结果比较。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
g = p.transform("grad")
print(g.stepper().run().outputs)
print(jax.jit(jax.grad(func1))(jnp.zeros(8), jnp.ones(8)))


# %% [markdown]
# ## Partial evaluation: where residuals come from / 部分求值：残差从哪里来
#
# **The model.** `linearize` can be read as two steps. First the JVP: trace `jax.jvp(f)` and you get one jaxpr
# where the primal equations (`sin a`, `mul c a`) and the tangent equations (`mul b d`, `add_any`) are
# interleaved. Then **partial evaluation**: the primal input is *known* now, the tangent is *unknown* (it comes
# later), so the jaxpr splits in two. The **known** jaxpr computes everything that needs only the primal, and
# also returns the values the unknown part will need: the **residuals** (here `cos a`, `a` and `sin a`). The
# **unknown** jaxpr takes the residuals and the tangent; it is linear in the tangent. This is how JAX implemented
# `linearize`, `vjp` and `grad` before version 0.7, and it is still the clearest account of what a residual is.
#
# **What JAX 0.12 does.** No JVP jaxpr is built and nothing is split: `linearize`, `vjp` and `grad` run `f`
# **once**, on `LinearizeTracer`s (lectures 11 and 15). Each primitive's linearization rule computes the primal
# value at once and emits its tangent equations straight into a separate linear jaxpr; the forward values those
# equations read are the residuals. Partial evaluation survives only in the fallback for a primitive that has a
# JVP rule and no linearization rule (`fallback_linearize_rule` in JAX's `ad.py` runs that one primitive's JVP
# rule under a partial-evaluation trace). Both ways keep the same residuals, as the next two cells show.
# `jax.vjp` is `linearize` followed by the transpose of the linear jaxpr, and the function it returns holds
# exactly the residuals. Below, the model run by hand: `jax.interpreters.partial_eval` is the module JAX's own
# transformations use, and `partial_eval_jaxpr_nounits` takes a list saying which inputs are unknown:
#
# **模型**：`linearize` 可以理解为两步。第一步是 JVP：trace `jax.jvp(f)`，得到的一个 jaxpr 中原值方程（`sin a`、`mul c a`）
# 与切向量方程（`mul b d`、`add_any`）交错排列。第二步是**部分求值**：原值输入现在已知，切向量未知（以后才给），于是这个
# jaxpr 一分为二。**已知**部分计算只依赖原值的一切，并且额外返回未知部分将要用到的值，也就是**残差**（这里是 `cos a`、
# `a` 和 `sin a`）。**未知**部分接收残差和切向量，对切向量是线性的。JAX 0.7 之前的 `linearize`、`vjp`、`grad` 就是这样
# 实现的，它至今仍是说明残差是什么的最清楚的方式。
#
# **JAX 0.12 的做法**：不构造 JVP jaxpr，也不拆分任何东西：`linearize`、`vjp`、`grad` 在 `LinearizeTracer` 上把 `f`
# **运行一次**（第 11、15 讲）。每个原语的线性化规则当场算出原值，并把它的切向量方程直接写进另一个线性 jaxpr；这些方程
# 读取的前向值就是残差。部分求值只留在一个后备规则里：某个原语有 JVP 规则而没有线性化规则时，JAX 的 `ad.py` 中的
# `fallback_linearize_rule` 在部分求值 trace 下运行这一个原语的 JVP 规则。两种做法保留的残差相同，下面两个单元格会说明这一点。
# `jax.vjp` 就是 `linearize` 再对线性 jaxpr 做转置，它返回的函数里保存的正是这些残差。下面手动运行这个模型：
# `jax.interpreters.partial_eval` 是 JAX 自己的变换所用的模块，`partial_eval_jaxpr_nounits` 接收一个列表，说明哪些输入是未知的：

# %%
from jax.interpreters import partial_eval as pe
from jaxprlens.exercise import say

def f(x):
    return jnp.sum(jnp.sin(x) * x)

x = jnp.array([0., 1., 2.])
jvp_jaxpr = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(x, jnp.ones(3))
print(jvp_jaxpr.pretty_print(use_color=False))
split = getattr(pe, "partial_eval_jaxpr_nounits", None)
if split is None:
    from jax._src.interpreters.partial_eval import partial_eval_jaxpr_nounits as split
known, unknown, out_unknown, residuals = split(jvp_jaxpr, [False, True], instantiate=False)
print(say("known:", "已知部分："), known.pretty_print(use_color=False), sep="\n")
print(say("unknown:", "未知部分："), unknown.pretty_print(use_color=False), sep="\n")
print(say("residuals:", "残差："), residuals)

# %% [markdown]
# The same three residuals, seen from the public API: the function `jax.vjp` returns holds three arrays, and
# the linearized jaxpr has them as its three constvars. `seen` records what `f` was called with: one call, on a
# `LinearizeTracer`, with no JVP jaxpr in between.
#
# 从公开 API 看也是这三个残差：`jax.vjp` 返回的函数保存着三个数组，线性化后的 jaxpr 则把它们作为三个 constvar。
# `seen` 记下 `f` 被调用时收到了什么：只调用一次，收到的是 `LinearizeTracer`，中间没有 JVP jaxpr。

# %%
seen = []

def f_seen(x):
    seen.append(type(x).__name__)
    return f(x)

y, f_vjp = jax.vjp(f_seen, x)
print(say("f was called with:", "f 收到的实参："), seen)
print(say("held by f_vjp:", "f_vjp 保存的数组："), [a.tolist() for a in jax.tree_util.tree_leaves(f_vjp)])
y, f_lin = jax.linearize(f, x)
print(jax.make_jaxpr(f_lin)(x).pretty_print(use_color=False))

# %% [markdown]
# ## Remat: fewer residuals, more work / 重计算：残差更少，计算量更大
#
# Residuals are what a backward pass costs in memory: every one stays alive from the forward equation that makes
# it until the backward equation that reads it. `--memory` counts the bytes live after each equation of the
# gradient's jaxpr, marks the peak and lists the residuals. Four `tanh` layers keep nine residuals: the
# `1 - tanh²` of each layer, the outputs of the first three (each is the next layer's input), and `x` and `W`:
#
# 残差就是反向过程在内存上的开销：每个残差从产生它的前向方程起一直存活，直到读取它的反向方程为止。`--memory` 统计梯度
# jaxpr 每个方程之后存活的字节数，标出峰值，并列出残差。四层 `tanh` 保存了九个残差：每层的 `1 - tanh²`、前三层的输出
# （每一层的输出是下一层的输入），以及 `x` 和 `W`：

# %%
%%jaxpr --transform grad --argnums 1 --memory
def layers(x, W):
    for _ in range(4):
        x = jnp.tanh(x @ W)
    return jnp.sum(x)

layers(jnp.ones((64, 128)), jnp.full((128, 128), 0.01))

# %% [markdown]
# `jax.checkpoint` (also called `jax.remat`) saves only the inputs of the function it wraps and recomputes the
# rest in the backward pass. The gradient's jaxpr now has a `remat2` equation that redoes the forward layers and
# then runs the backward pass; only two residuals remain, and this count's peak is less than half. Yet XLA's own
# `memory_analysis`, the last line of both outputs, is 426.0 kB both times. Both are right about what they count.
# `--memory` counts the values live *between top-level equations*, and the whole backward pass, recomputed layers
# included, now sits inside the one `remat2` equation (its result `bs` is the gradient itself), so the values
# inside it are not counted. XLA counts everything, and to XLA the two programs are the same: `grad` never reads
# the forward pass's result, so equations 0-8 are dead code that XLA removes, and what is left, the recomputation
# followed by the backward pass, is the plain gradient. Checkpointing the whole function saves nothing when the
# recomputation runs right where the forward pass ran; the next example is one where it does save memory.
#
# `jax.checkpoint`（也叫 `jax.remat`）只保存被它包住的函数的输入，其余的值在反向过程中重新计算。梯度的 jaxpr 里现在有一个
# `remat2` 方程，它先重新执行前向的各层，再执行反向过程；残差只剩两个，这里统计的峰值不到原来的一半。可是 XLA 自己的
# `memory_analysis`（两个输出的最后一行）两次都是 426.0 kB。两者各自统计的东西都没错。`--memory` 统计的是**顶层方程之间**
# 存活的值，而整个反向过程（包括重新计算的各层）现在都在这一个 `remat2` 方程里面（它的结果 `bs` 就是梯度本身），所以方程
# 内部的值没有被计入。XLA 统计全部的值，而在 XLA 看来这两个程序是同一个：`grad` 从不读取前向过程的结果，所以方程 0-8 是
# 死代码，被 XLA 删掉；剩下的“先重新计算、再反向”正是普通的梯度程序。重新计算就发生在原来前向过程所在的位置时，对整个函数做
# checkpoint 什么也省不下；下一个例子才真正省下内存。

# %%
%%jaxpr --transform grad --argnums 1 --memory
def layers_remat(x, W):
    return jax.checkpoint(layers)(x, W)

layers_remat(jnp.ones((64, 128)), jnp.full((128, 128), 0.01))

# %% [markdown]
# JAX says the same without jaxprlens: `jax.ad_checkpoint.print_saved_residuals` lists what a function's `vjp`
# keeps, with the equation that made each value.
#
# 不用 jaxprlens，JAX 自己也能说出同样的结论：`jax.ad_checkpoint.print_saved_residuals` 列出一个函数的 `vjp`
# 保存了哪些值，以及每个值由哪个方程产生。

# %%
from jax.ad_checkpoint import print_saved_residuals

xs, W = jnp.ones((64, 128)), jnp.full((128, 128), 0.01)
for fn in (layers, layers_remat):
    print(fn.__name__, len(jax.tree_util.tree_leaves(jax.vjp(fn, xs, W)[1])))
print_saved_residuals(layers_remat, xs, W)

# %% [markdown]
# **Where remat saves memory / 重计算在哪里省内存.** It saves memory when each part is recomputed only when the
# backward pass reaches it, so that only one part's values are live at a time. `deep` runs eight residual blocks
# in a `scan`, each with a hidden layer eight times wider than its input; its gradient keeps every block's hidden
# activations, stacked as `f32[8,64,1024]`. With the body checkpointed, the forward scan keeps only the carries
# (each block's input, `f32[8,64,128]`), and the backward scan recomputes one block per step. On the CPU the
# residuals drop from 3.4 MB to 1.3 MB, this count's peak from 4.0 MB to 1.9 MB, and XLA's temporaries from
# 3.2 MB to 1.1 MB:
#
# **重计算在哪里省内存**：只有当每一部分都等到反向过程走到它时才重新计算、同一时刻只有一部分的值存活时，重计算才省内存。
# `deep` 在一个 `scan` 里运行八个残差块，每块的隐藏层比它的输入宽八倍；它的梯度保存每一块的隐藏层激活值，堆叠成
# `f32[8,64,1024]`。对循环体做 checkpoint 后，前向 scan 只保存携带值（每一块的输入，`f32[8,64,128]`），反向 scan 每步
# 重新计算一块。在 CPU 上，残差从 3.4 MB 降到 1.3 MB，这里统计的峰值从 4.0 MB 降到 1.9 MB，XLA 的临时内存从 3.2 MB
# 降到 1.1 MB：

# %%
%%jaxpr --transform grad --argnums 1 --memory
def block(x, W1, W2):
    return x + jnp.tanh(x @ W1) @ W2

def deep(x, W1, W2):
    x, _ = lax.scan(lambda x, _: (block(x, W1, W2), None), x, None, length=8)
    return jnp.sum(x)

deep(jnp.ones((64, 128)), jnp.full((128, 1024), 0.01), jnp.full((1024, 128), 0.01))

# %%
%%jaxpr --transform grad --argnums 1 --memory
def deep_remat(x, W1, W2):
    x, _ = lax.scan(lambda x, _: (jax.checkpoint(block)(x, W1, W2), None), x, None, length=8)
    return jnp.sum(x)

deep_remat(jnp.ones((64, 128)), jnp.full((128, 1024), 0.01), jnp.full((1024, 128), 0.01))

# %% [markdown]
# ## Checkpoint policies: what may be saved / checkpoint 策略：哪些值可以保存
#
# `jax.checkpoint` with no policy keeps only the inputs of the function it wraps. Its `policy` argument names the
# values it may keep instead of recomputing them: `jax.checkpoint_policies.nothing_saveable` (none, as with no
# policy), `dots_saveable` (the results of matrix products, the costly part to redo), `everything_saveable` (all of
# them, as if there were no checkpoint), or `save_only_these_names` for values you name with
# `jax.ad_checkpoint.checkpoint_name`. The policy is a parameter of the `remat2` equation, printed beside
# `prevent_cse` and `differentiated`. What does the gradient keep with `dots_saveable`? `--memory` lists a stacked
# `f32[8,64,1024]` again, made by equation 0: the forward scan's body now returns the first product `x @ W1` of
# every block (through a `reduce_precision` to float32's own 8 exponent and 23 mantissa bits, which changes no
# value). The backward scan's body holds a `remat2` with `differentiated=True` that recomputes `tanh` and
# `1 - tanh²` from that product; its three products are the backward pass's own, and none of them is `x @ W1`.
#
# 不带策略的 `jax.checkpoint` 只保存被它包住的函数的输入。它的 `policy` 参数指定哪些值可以保存下来、不必重新计算：
# `jax.checkpoint_policies.nothing_saveable`（什么都不保存，与不带策略相同）、`dots_saveable`（矩阵乘的结果，重新计算
# 开销最大的部分）、`everything_saveable`（全部保存，相当于没有 checkpoint），或者用 `save_only_these_names` 只保存你用
# `jax.ad_checkpoint.checkpoint_name` 命名的值。策略是 `remat2` 方程的一个参数，与 `prevent_cse`、`differentiated`
# 一起打印出来。用 `dots_saveable` 时，梯度保存了什么？`--memory` 又列出一个堆叠的 `f32[8,64,1024]`，由方程 0 产生：前向
# scan 的循环体现在返回每一块的第一个矩阵乘 `x @ W1`（中间经过一个 `reduce_precision`，它的精度正是 float32 本身的
# 8 位指数、23 位尾数，所以不改变任何值）。反向 scan 的循环体里有一个 `differentiated=True` 的 `remat2`，它用这个乘积重新计算
# `tanh` 和 `1 - tanh²`；其中的三个矩阵乘都属于反向过程本身，没有一个是 `x @ W1`。

# %%
%%jaxpr --transform grad --argnums 1 --memory
def deep_dots(x, W1, W2):
    saving_dots = jax.checkpoint(block, policy=jax.checkpoint_policies.dots_saveable)
    x, _ = lax.scan(lambda x, _: (saving_dots(x, W1, W2), None), x, None, length=8)
    return jnp.sum(x)

deep_dots(jnp.ones((64, 128)), jnp.full((128, 1024), 0.01), jnp.full((1024, 128), 0.01))

# %% [markdown]
# Which policy saves memory here? For each one, the cell below prints what the forward scan stacks for the
# backward pass (the equation that made each value, read through the `reduce_precision`) and XLA's temporaries;
# its first line, `block`, is the gradient with no checkpoint.
# `dots_saveable` keeps a stack as large as the plain gradient's, which keeps `1 - tanh²`, of the same shape, so
# XLA's temporaries stay at 3.2 MB; what it saves is time, since the backward pass redoes no forward product.
# `nothing_saveable` is the checkpoint of the previous section (1.1 MB), and `everything_saveable` is no checkpoint
# at all. A policy saves memory where the values it lets go are larger than the values it keeps.
#
# 这里哪种策略省内存？下面的单元格对每种策略打印前向 scan 为反向过程堆叠保存的值（以及产生每个值的方程，越过
# `reduce_precision` 往前看）和 XLA 的临时内存；第一行 `block` 是不做 checkpoint 的梯度。`dots_saveable` 保存的堆叠和普通梯度的一样大：普通梯度保存的是形状相同的
# `1 - tanh²`，所以 XLA 的临时内存仍是 3.2 MB；它省下的是时间，反向过程不必重新计算前向的矩阵乘。`nothing_saveable` 就是上一节的
# checkpoint（1.1 MB），`everything_saveable` 则相当于没有 checkpoint。只有当策略放弃的值比它保存的值大时，它才省内存。

# %%
args = (jnp.ones((64, 128)), jnp.full((128, 1024), 0.01), jnp.full((1024, 128), 0.01))

def deep_with(body):
    def deep(x, W1, W2):
        x, _ = lax.scan(lambda x, _: (body(x, W1, W2), None), x, None, length=8)
        return jnp.sum(x)
    return deep

def stacked(grad):
    """What the forward scan of grad's jaxpr returns for the backward pass, with the equation that made it."""
    forward = jax.make_jaxpr(grad)(*args).jaxpr.eqns[0]
    body = forward.params["jaxpr"].jaxpr
    made = {v: e for e in body.eqns for v in e.outvars}
    def maker(v):
        e = made.get(v)
        if e is not None and e.primitive.name == "reduce_precision":
            return maker(e.invars[0])
        return e.primitive.name if e is not None else say("input", "输入")
    return [f"{maker(v)} {out.aval.str_short(short_dtypes=True)}"
            for v, out in zip(body.outvars[1:], forward.outvars[1:])]

for name in (None, "nothing_saveable", "dots_saveable", "everything_saveable"):
    body = block if name is None else jax.checkpoint(block, policy=getattr(jax.checkpoint_policies, name))
    grad = jax.grad(deep_with(body), argnums=1)
    temp = jax.jit(grad).lower(*args).compile().memory_analysis().temp_size_in_bytes
    mb = f"{temp / 1e6:.1f} MB"
    print(f"{name or 'block':20} {', '.join(stacked(grad)):52}", say(f"XLA temporaries {mb}", f"XLA 临时内存 {mb}"))

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
import collections
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** `jax.grad(func1)` differentiates with respect to `first` only. Which primitives does
# its jaxpr contain that the jaxpr of `func1` does not? Answer with a list of primitive names, in order.
#
# `jax.grad(func1)` 只对 `first` 求导。它的 jaxpr 比 `func1` 的 jaxpr 多出哪些原语？按顺序用原语名列表作答。

# %% tags=["exercise-1"]
def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

args = (jnp.zeros(8), jnp.ones(8))
answer_1 = None  # a list of str / 字符串列表

# %% tags=["check-1"]
before = collections.Counter(e.primitive.name for e in make_jaxpr(func1)(*args).jaxpr.eqns)
added = []
for e in make_jaxpr(jax.grad(func1))(*args).jaxpr.eqns:
    if before[e.primitive.name] > 0:
        before[e.primitive.name] -= 1
    else:
        added.append(e.primitive.name)
check(answer_1, added,
      "The forward equations are all kept. Going backwards, d(sum)/d(temp) is a vector of ones and "
      "d(temp)/d(first) is the identity, so what is new is only what builds that vector.",
      "前向方程全部保留。反向时 d(sum)/d(temp) 是全 1 向量，d(temp)/d(first) 是恒等映射，新增的只是构造这个向量的"
      "方程。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# The transpose of reduce_sum broadcasts the cotangent 1.0 back to f32[8]; the add passes it on unchanged.
# reduce_sum 的转置把余切 1.0 广播回 f32[8]；add 原样传递它。
answer_1 = ["broadcast_in_dim"]


# %% [markdown]
# **Exercise 2 / 练习 2.** How many `scan` equations does the jaxpr of `jax.grad` of a scan contain? Answer with
# an int.
#
# 对一个 scan 求 `jax.grad`，得到的 jaxpr 中有几个 `scan` 方程？用整数作答。

# %% tags=["exercise-2"]
def total(xs):
    return lax.scan(lambda c, x: (c + jnp.sin(x) * c, None), 1., xs)[0]

answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
scans = [e for e in make_jaxpr(jax.grad(total))(jnp.ones(5)).jaxpr.eqns if e.primitive.name == "scan"]
check(answer_2, len(scans),
      "Reverse mode needs the forward loop (to save what the backward pass needs) and then the transposed loop, "
      "run in reverse.",
      "反向模式需要前向循环（保存反向过程所需的值），然后是倒着运行的转置循环。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = 2


# %% [markdown]
# **Exercise 3 / 练习 3.** How many arrays does the function returned by `jax.vjp(wavy, x)` hold (its
# residuals)? Partially evaluate in your head: which values of the forward pass does the derivative of
# `jnp.sum(jnp.cos(x) * 2.)` need? Answer with an int.
#
# `jax.vjp(wavy, x)` 返回的函数保存了几个数组（也就是它的残差）？在脑中做一次部分求值：
# `jnp.sum(jnp.cos(x) * 2.)` 的导数需要前向过程中的哪些值？用整数作答。

# %% tags=["exercise-3"]
def wavy(x):
    return jnp.sum(jnp.cos(x) * 2.)

answer_3 = None  # an int / 一个整数

# %% tags=["check-3"]
_, wavy_vjp = jax.vjp(wavy, jnp.ones(4))
check(answer_3, len(jax.tree_util.tree_leaves(wavy_vjp)),
      "The tangent of cos(x) is -sin(x) * t, so sin(x) is one residual. The other is the 2.: the linear part "
      "multiplies by it, and linearizing keeps it as a 0-d array, a constvar like the 3.0 of func1 above.",
      "cos(x) 的切向量是 -sin(x) * t，所以 sin(x) 是一个残差。另一个是 2.：线性部分要乘以它，线性化把它保存成 0 维"
      "数组，和上面 func1 的 3.0 一样是一个 constvar。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# sin(x) and the 0-d array 2.0 (linearize keeps the constant as a constvar).
# sin(x) 和 0 维数组 2.0（线性化把这个常量保存为 constvar）。
answer_3 = 2

# %% [markdown]
# **Exercise 4 / 练习 4.** `two` is two `tanh` layers that share one weight `W`. How many arrays does the function
# returned by `jax.vjp` hold when `two` is checkpointed with `policy=jax.checkpoint_policies.dots_saveable`? Say
# first what the policy lets it keep, then what it must recompute. Answer with an int.
#
# `two` 是共用一个权重 `W` 的两层 `tanh`。用 `policy=jax.checkpoint_policies.dots_saveable` 对 `two` 做 checkpoint 后，
# `jax.vjp` 返回的函数保存了几个数组？先说出这个策略允许它保存什么，再说出它必须重新计算什么。用整数作答。

# %% tags=["exercise-4"]
def two(x, W):
    return jnp.sum(jnp.tanh(jnp.tanh(x @ W) @ W))

answer_4 = None  # an int / 一个整数

# %% tags=["check-4"]
saving_dots = jax.checkpoint(two, policy=jax.checkpoint_policies.dots_saveable)
_, two_vjp = jax.vjp(saving_dots, jnp.ones((64, 128)), jnp.full((128, 128), 0.01))
check(answer_4, len(jax.tree_util.tree_leaves(two_vjp)),
      "The inputs x and W are always kept, and dots_saveable adds the result of each of the two products; "
      "tanh and 1 - tanh² are recomputed from them. Without a checkpoint it keeps five, with no policy two.",
      "输入 x 和 W 总会保存，dots_saveable 再加上两个矩阵乘各自的结果；tanh 和 1 - tanh² 由它们重新计算。不做 checkpoint "
      "时保存五个，不带策略时保存两个。")

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# x, W, x @ W and tanh(x @ W) @ W (jax.ad_checkpoint.print_saved_residuals lists them).
# x、W、x @ W 和 tanh(x @ W) @ W（jax.ad_checkpoint.print_saved_residuals 会列出它们）。
answer_4 = 4

# %% [markdown]
# **Takeaway / 小结**: transformations apply their rules while tracing, and `make_jaxpr` of the transformed
# function shows what they emitted. `grad` = `linearize` + `transpose`. The model of `linearize` is JVP + partial
# evaluation: the known part computes the primal and the residuals, the unknown part is linear. JAX 0.12 gets the
# same residuals in one run on `LinearizeTracer`s, each rule emitting its tangent equations directly. The
# residuals are what the backward pass keeps in memory; `jax.checkpoint` trades them for recomputation, and saves
# memory in XLA's program only where the recomputation can wait until the backward pass needs it (a checkpointed
# loop body). Its `policy`, a parameter of the `remat2` equation, decides which values are kept after all
# (`dots_saveable`: the products), trading some of that memory back for time.
#
# 变换在 trace 过程中施加规则，对变换后的函数做 `make_jaxpr` 就能看到它们产生了什么。`grad` = `linearize` + `transpose`，
# `linearize` 的模型是 JVP + 部分求值：已知部分计算原值和残差，未知部分是线性的。JAX 0.12 在 `LinearizeTracer` 上运行一次
# 就得到同样的残差，每条规则直接产生它的切向量方程。残差就是反向过程留在内存里的东西；`jax.checkpoint` 用重新计算换掉它们，
# 而只有当重新计算可以等到反向过程需要时才进行（例如做了 checkpoint 的循环体），XLA 的程序才真正省下内存。它的 `policy`
# 是 `remat2` 方程的一个参数，决定哪些值仍然保存下来（`dots_saveable`：矩阵乘的结果），用一部分内存换回时间。
