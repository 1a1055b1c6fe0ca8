# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 11 · Transformations and their jaxprs / 第 11 讲 · 变换与它们的 jaxpr
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
# re-traced equation by equation. The scan and while examples of this lecture are exactly that case.
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
# 再运行一遍，于是这些子 jaxpr 被逐个方程地重新 trace。本讲的 scan 与 while 示例正是这种情形。`%%jaxpr --transform NAME` 显示变换后函数的 jaxpr，`--compare` 把它与原程序按源码行对齐
# 并排显示，让你看到原程序的哪些方程产生了导数程序中的哪些方程。
#
# **Goal.** Read the jaxprs of `grad`, `vmap` and the other transformations, and tell which equations each rule
# added. **Time:** 55 minutes.
#
# **目标**：读懂 `grad`、`vmap` 等变换的 jaxpr，并指出每条规则加入了哪些方程。
# **时长**：55 分钟。

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
# `jax.grad` = `linearize` (a JVP, partially evaluated: only the *linear* tangent equations remain) followed
# by `transpose` (the linear function run backwards). The linearized `func1` multiplies the tangent of
# `second` by `cos(second)` (computed once and kept as a constant) and by `3.0`, adds the tangent of `first`,
# and sums. Here `3.0` is not a literal but the constvar `b:f32[]`: linearizing stored it as a 0-d `jax.Array`,
# and an existing `jax.Array` is a constvar whatever its shape (lecture 3).
#
# `jax.grad` 等于 `linearize`（对 JVP 做部分求值，只留下**线性**的切向量方程）再接 `transpose`（把这个线性函数
# 反过来运行）。线性化后的 `func1` 把 `second` 的切向量乘以 `cos(second)`（只算一次，作为常量保存）和 `3.0`，
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
# `func11` returns `(carry, ys)`; `grad` differentiates the scalar carry and keeps `ys` as auxiliary output
# (`has_aux=True`). The gradient has two `scan`s from the same source line: the forward scan and, after it,
# its transpose with `reverse=True`.
#
# `func11` 返回 `(carry, ys)`；`grad` 对标量携带值求导，并把 `ys` 作为辅助输出（`has_aux=True`）。
# 梯度程序里有两个来自同一行源码的 `scan`：先是前向 scan，然后是它的转置，`reverse=True`。

# %%
%%jaxpr --transform grad --compare
from jax import lax

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant. / 一个常量。

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

func11(jnp.ones(16), 5.)

# %% [markdown]
# ## jvp of a while loop: tangent carries / while 循环的 jvp：携带值带上切向量
#
# Forward mode adds a tangent for every floating-point carry. The `while` of `func10` now carries the
# primal and its tangent side by side; the integer counter has no tangent.
#
# 前向模式给每个浮点携带值都加上一个切向量。`func10` 的 `while` 现在同时携带原值和它的切向量；
# 整数计数器没有切向量。

# %%
%%jaxpr --transform jvp
def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant. / 一个常量。
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

func10(jnp.ones(16), 5)

# %% [markdown]
# ## vmap: a batched `cond` becomes `select_n` / vmap：批处理后的 `cond` 变成 `select_n`
#
# Under `vmap` the predicate of `func7`'s `cond` is a vector, one entry per batch element, so JAX cannot
# pick one branch: it runs **both** branches and selects elementwise with `select_n`. This happens **only when
# the predicate is batched**. If only the operands are batched and the predicate is the same for the whole batch,
# the `cond` stays a `cond` whose branches work on the whole batch (exercise 2 below). (The view batches each
# mapped argument by stacking two copies.)
#
# 在 `vmap` 下，`func7` 中 `cond` 的谓词是一个向量，每个批元素一个值，JAX 无法只选一个分支：它**两个分支都执行**，
# 再用 `select_n` 逐元素选择。**只有谓词被批处理时**才会这样。如果只有操作数被批处理、谓词对整批相同，`cond` 仍然是
# `cond`，只是分支处理整批数据（见下面的练习 2）。（该视图把每个被映射的实参复制两份堆叠起来作为批。）

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
from jaxprlens.views.diff import diff

p11 = jaxprlens.trace(func11, jnp.ones(16), 5.)
diff(p11.transform("vmap", in_axes="0,None"), p11.transform("vmap", in_axes="None,0"),
     labels=("vmap over arr", "vmap over extra"), context=False)

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# A transformed program is an ordinary program: step through the gradient of `func1` and compare with `jax.jit`.
#
# 变换后的程序也是普通程序：单步执行 `func1` 的梯度，并与 `jax.jit` 的结果比较。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
g = p.transform("grad")
print(g.stepper().run().outputs)
print(jax.jit(jax.grad(func1))(jnp.zeros(8), jnp.ones(8)))

# %% [markdown]
# ## Rules you write: `custom_jvp_call` and `custom_vjp_call` / 你写的规则：`custom_jvp_call` 与 `custom_vjp_call`
#
# Trace `jax.nn.relu` and the first equation is not `max` but `custom_jvp_call`. `relu` is a
# `jax.custom_jvp` function: its body (`call_jaxpr`, here a `jit` of `max`) says what it computes, and its
# `jvp_jaxpr_fun` param (JAX's printer shows it as `jvp=jvp`) is a derivative rule its author wrote. Without transformations the body runs. Under `grad`,
# JAX ignores the body's own rules and traces the custom rule instead.
#
# trace `jax.nn.relu`，第一个方程不是 `max`，而是 `custom_jvp_call`。`relu` 是一个 `jax.custom_jvp` 函数：它的函数体
# （`call_jaxpr`，这里是对 `max` 的一个 `jit`）说明它计算什么，参数 `jvp_jaxpr_fun`（JAX 的打印器显示为 `jvp=jvp`）
# 是作者写的求导规则。没有变换时执行的是函数体。
# 在 `grad` 之下，JAX 不用函数体中各原语自己的规则，而是 trace 这条自定义规则。

# %%
%%jaxpr
def relu_sum(x):
    return jnp.sum(jax.nn.relu(x))

relu_sum(jnp.array([-1., 0., 2.]))

# %% tags=["needs-feature"]
%%jaxpr --graph
relu_sum(jnp.array([-1., 0., 2.]))

# %% [markdown]
# The gradient keeps `custom_jvp_call` for the forward value and adds the equations of relu's rule: `gt`
# builds the mask `x > 0`, `select_n` picks 1 or 0. `max`'s own JVP rule would split the tie at 0 and give 0.5
# there; relu's rule gives 0. The rule is visible in the jaxpr, not only in the numbers:
#
# 梯度保留 `custom_jvp_call` 来算前向值，并加入 relu 规则的方程：`gt` 生成掩码 `x > 0`，`select_n` 选出 1 或 0。
# `max` 自己的 JVP 规则在 0 处会平分，给出 0.5；relu 的规则给出 0。规则在 jaxpr 中看得见，而不只是体现在数值上：

# %%
%%jaxpr --transform grad
relu_sum(jnp.array([-1., 0., 2.]))

# %%
print(jax.grad(relu_sum)(jnp.array([-1., 0., 2.])),
      jax.grad(lambda x: jnp.sum(jnp.maximum(x, 0.)))(jnp.array([-1., 0., 2.])))

# %% [markdown]
# In the debugger, Step into on `custom_jvp_call` enters its body (`call_jaxpr`), and the `jit` inside it
# opens in turn:
#
# 在调试器中，对 `custom_jvp_call` 按「进入」会进入它的函数体（`call_jaxpr`），其中的 `jit` 也可以再进入：

# %% tags=["needs-feature"]
%%jaxpr --debug
relu_sum(jnp.array([-1., 0., 2.]))

# %% [markdown]
# `jax.custom_vjp` is the reverse-mode twin: a forward function `fwd` that saves residuals and a backward
# function `bwd` that maps output cotangents to input cotangents. `clip_gradient` is the identity going forward
# and clips the cotangent going back. Its jaxpr shows `custom_vjp_call` with `fwd` and `bwd` params; the jaxpr
# of its gradient has no `custom_vjp_call` at all, only what `bwd` did (a `jit` of `clip`).
#
# `jax.custom_vjp` 是反向模式的对应物：前向函数 `fwd` 保存残差，反向函数 `bwd` 把输出的余切映射为输入的余切。
# `clip_gradient` 前向是恒等映射，反向时裁剪余切。它的 jaxpr 中是带 `fwd`、`bwd` 参数的 `custom_vjp_call`；它的梯度的
# jaxpr 里根本没有 `custom_vjp_call`，只有 `bwd` 做过的事（对 `clip` 的一个 `jit`）。

# %%
@jax.custom_vjp
def clip_gradient(x):
    return x

def clip_fwd(x):
    return x, None

def clip_bwd(_, g):
    return (jnp.clip(g, -1., 1.),)

clip_gradient.defvjp(clip_fwd, clip_bwd)

def scaled_loss(x):
    return jnp.sum(clip_gradient(x) * 3.)

print(jax.make_jaxpr(scaled_loss)(jnp.ones(3)).pretty_print(use_color=False))
print(jax.grad(scaled_loss)(jnp.ones(3)))

# %%
%%jaxpr --transform grad
scaled_loss(jnp.ones(3))

# %% [markdown]
# ## Below the jaxpr: StableHLO / jaxpr 之下：StableHLO
#
# `--lower` shows the StableHLO module that `jax.jit(f).lower(...)` produces, with each equation linked to
# the ops it lowered to (matched by source line and primitive). `--compiled` adds XLA's optimized HLO, where
# the ops of `func1` are fused into a single kernel.
#
# `--lower` 显示 `jax.jit(f).lower(...)` 生成的 StableHLO 模块，并把每个方程链接到它 lower 成的算子
# （按源码行与原语匹配）。`--compiled` 再显示 XLA 优化后的 HLO，可以看到 `func1` 的算子被融合成一个计算内核。

# %%
%%jaxpr --lower --compiled
func1(jnp.zeros(8), jnp.ones(8))

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
# **Exercise 2 / 练习 2.** Map `shifted` over `x` only (`in_axes=(None, 0)`): the predicate `p >= 0.` is the
# same for the whole batch. Will the vmapped jaxpr still contain a `cond`? Answer `True` or `False`.
#
# 只对 `x` 做映射（`in_axes=(None, 0)`）：谓词 `p >= 0.` 对整批相同。vmap 之后的 jaxpr 里还有 `cond` 吗？用 `True`
# 或 `False` 作答。

# %% tags=["exercise-2"]
def shifted(p, x):
    return lax.cond(p >= 0., lambda x: x + 3., lambda x: x - 3., x)

answer_2 = None  # True or False / 填 True 或 False

# %% tags=["check-2"]
mapped = make_jaxpr(jax.vmap(shifted, in_axes=(None, 0)))(1., jnp.arange(4.))
check(answer_2, any(e.primitive.name == "cond" for e in mapped.jaxpr.eqns),
      "vmap turns a cond into select_n only when the predicate itself is batched; an unbatched predicate still "
      "picks one branch for the whole batch.",
      "只有谓词本身被批处理时，vmap 才把 cond 变成 select_n；未被批处理的谓词仍为整批选择一个分支。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = True


# %% [markdown]
# **Exercise 3 / 练习 3.** How many `scan` equations does the jaxpr of `jax.grad` of a scan contain? Answer with
# an int.
#
# 对一个 scan 求 `jax.grad`，得到的 jaxpr 中有几个 `scan` 方程？用整数作答。

# %% tags=["exercise-3"]
def total(xs):
    return lax.scan(lambda c, x: (c + jnp.sin(x) * c, None), 1., xs)[0]

answer_3 = None  # an int / 一个整数

# %% tags=["check-3"]
scans = [e for e in make_jaxpr(jax.grad(total))(jnp.ones(5)).jaxpr.eqns if e.primitive.name == "scan"]
check(answer_3, len(scans),
      "Reverse mode needs the forward loop (to save what the backward pass needs) and then the transposed loop, "
      "run in reverse.",
      "反向模式需要前向循环（保存反向过程所需的值），然后是倒着运行的转置循环。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_3 = 2

# %% [markdown]
# **Exercise 4 / 练习 4.** Does the jaxpr of `jax.grad(soft)` contain a `max` equation at its top level (outside
# the `custom_jvp_call`)? Answer with a bool.
#
# `jax.grad(soft)` 的 jaxpr 在顶层（`custom_jvp_call` 之外）有没有 `max` 方程？用布尔值作答。

# %% tags=["exercise-4"]
def soft(x):
    return jnp.sum(jax.nn.relu(x) * x)

answer_4 = None  # a bool / 一个布尔值

# %% tags=["check-4"]
top = [e.primitive.name for e in make_jaxpr(jax.grad(soft))(jnp.ones(3)).jaxpr.eqns]
check(answer_4, "max" in top,
      "relu's custom JVP rule replaces the rules of the equations in its body: the derivative is a gt and a "
      "select_n; the max stays inside custom_jvp_call, which computes the forward value.",
      "relu 的自定义 JVP 规则取代了它函数体中各方程的规则：导数由 gt 和 select_n 给出；max 留在 custom_jvp_call 里面，"
      "只用来计算前向值。")

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_4 = False

# %% [markdown]
# **Takeaway / 小结**: transformations apply their rules while tracing, and `make_jaxpr` of the transformed
# function shows what they emitted: `grad` = `linearize` + `transpose`, `vmap` of a `cond` with a batched
# predicate becomes data (`select_n`), and `jit` lowers the final jaxpr to StableHLO.
#
# 变换在 trace 过程中施加规则，对变换后的函数做 `make_jaxpr` 就能看到它们产生了什么：`grad` = `linearize` +
# `transpose`；谓词被批处理时，`vmap` 把 `cond` 变成数据（`select_n`）；`jit` 再把最终的 jaxpr lower 成 StableHLO。
