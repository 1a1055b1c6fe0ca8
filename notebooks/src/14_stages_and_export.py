# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 14 · Below the jaxpr: jit's stages, caches and export / 第 14 讲 · jaxpr 之下：jit 的各个阶段、缓存与导出
#
# `jax.jit(f)(x)` does three things in a row, and each can be done and looked at on its own: **trace** `f` to a
# jaxpr, **lower** the jaxpr to a StableHLO module, **compile** the module with XLA into an executable. jit
# keeps what it traced in a **cache** keyed by the function and the types of its arguments, so a second call of
# the same function with the same types neither traces nor compiles again. On the way down, equations whose results nobody reads are dropped
# (**dead-code elimination**), unless they have an **effect** such as printing. And `jax.export` stores the
# lowered program so that another process can run it without your Python code. This lecture reads each stage,
# and checks a jaxpr with JAX's own type checker.
#
# `jax.jit(f)(x)` 依次做三件事，每一件都可以单独执行、单独查看：把 `f` **trace** 成 jaxpr，把 jaxpr **lower** 成 StableHLO
# 模块，再用 XLA 把模块**编译**成可执行程序。jit 把 trace 的结果存进一个以函数及其实参类型为键的**缓存**，所以用同样类型的
# 实参再次调用同一个函数时，既不重新 trace 也不重新编译。在往下的过程中，结果没有被任何方程读取的方程会被删掉（**死代码消除**），
# 除非它带有**副作用**，例如打印。`jax.export` 则把 lower 之后的程序保存下来，让另一个进程不需要你的 Python 代码也能运行它。
# 本讲逐个查看这些阶段，并用 JAX 自己的类型检查器检查一个 jaxpr。
#
# **Goal.** Walk `jit` through its stages (`.trace()`, `.lower()`, `.compile()`), predict when it traces again,
# tell which equations dead-code elimination drops and why effects stay, check a jaxpr with `check_jaxpr`, and
# read what `jax.export` keeps. **Time:** 45 minutes.
#
# **目标**：让 `jit` 逐个阶段地走一遍（`.trace()`、`.lower()`、`.compile()`），预测它何时重新 trace，指出死代码消除会删掉哪些
# 方程以及带副作用的方程为什么留下，用 `check_jaxpr` 检查 jaxpr，并读懂 `jax.export` 保存了什么。
# **时长**：45 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## Three stages, three objects / 三个阶段，三个对象
#
# `jax.jit(f).trace(*args)` returns a `Traced` whose `.jaxpr` is the jaxpr `make_jaxpr` prints. Its `.lower()`
# returns a `Lowered`, whose `.as_text()` is the StableHLO module: one op per equation, or a few (`mul` by the
# literal `3.0` becomes a `constant`, a `broadcast_in_dim` and a `multiply`). `.compile()` returns a `Compiled`:
# it runs, and it knows XLA's estimates of its cost and memory.
#
# `jax.jit(f).trace(*args)` 返回一个 `Traced`，它的 `.jaxpr` 就是 `make_jaxpr` 打印的那个 jaxpr。它的 `.lower()` 返回一个
# `Lowered`，其 `.as_text()` 是 StableHLO 模块：每个方程对应一个或几个算子（乘以字面量 `3.0` 的 `mul` 变成一个 `constant`、
# 一个 `broadcast_in_dim` 和一个 `multiply`）。`.compile()` 返回一个 `Compiled`：它可以运行，并且知道 XLA 对它的计算量和
# 内存的估算。

# %%
import re
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr
from jaxprlens.exercise import say, show_error

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

x, y = jnp.zeros(8), jnp.ones(8)
traced = jax.jit(func1).trace(x, y)
print(type(traced).__name__, traced.jaxpr.pretty_print(use_color=False), sep="\n")
lowered = traced.lower()
print(type(lowered).__name__)
print("\n".join(ln for ln in lowered.as_text().split("\n") if "stablehlo." in ln))
compiled = lowered.compile()
print(type(compiled).__name__, compiled(x, y))
cost = compiled.cost_analysis()
print(say("XLA's estimate:", "XLA 的估算："), {k: cost[k] for k in ("flops", "transcendentals", "bytes accessed")})

# %% [markdown]
# The compiled text is XLA's optimized HLO. Its entry computation is now a single `fusion`: XLA fused the
# `sin`, the `mul`, the `add` and the `reduce_sum` into one kernel (`kind=kLoop`), so the intermediate arrays
# `c`, `d`, `e` are never written to memory.
#
# 编译后的文本是 XLA 优化过的 HLO。它的入口计算现在只有一个 `fusion`：XLA 把 `sin`、`mul`、`add` 和 `reduce_sum`
# 融合成了一个计算内核（`kind=kLoop`），所以中间数组 `c`、`d`、`e` 从来不会写进内存。

# %%
for line in compiled.as_text().split("\n"):
    if line.lstrip().startswith("ROOT") and "fusion(" in line:
        print(re.sub(r", metadata=\{.*?\}", "", line).strip())

# %% [markdown]
# `--lower` shows the same StableHLO module with each equation linked to the ops it lowered to (matched by source
# line and primitive), and `--compiled` adds XLA's optimized HLO beside it:
#
# `--lower` 显示同一个 StableHLO 模块，并把每个方程链接到它 lower 成的算子（按源码行与原语匹配）；`--compiled`
# 再在旁边显示 XLA 优化后的 HLO：

# %%
%%jaxpr --lower --compiled
func1(jnp.zeros(8), jnp.ones(8))

# %% [markdown]
# ## The tracing cache: when jit traces again / trace 缓存：jit 什么时候重新 trace
#
# Python code in a jitted function runs only while it is traced. Count the traces with a Python list: jit traces
# once per **abstract signature** of its arguments (shape, dtype, weak type, and the value of each static
# argument), not once per call. `2.0` after `1.0` reuses the trace; a `f32[3]` array, an `i32[3]` array and a
# new value of the static `n` each trace again (and compile again).
#
# jit 函数中的 Python 代码只在 trace 时运行。用一个 Python 列表数一数 trace 的次数：jit 对实参的每一种**抽象签名**
# （形状、dtype、弱类型，以及每个静态实参的值）trace 一次，而不是每次调用都 trace。`1.0` 之后的 `2.0` 沿用已有的 trace；
# `f32[3]` 数组、`i32[3]` 数组以及静态实参 `n` 的新值都会各自重新 trace（并重新编译）。

# %%
from functools import partial

traces = []

@partial(jax.jit, static_argnums=1)
def power(x, n):
    traces.append(f"{jax.typeof(x)} n={n}")
    for _ in range(n - 1):
        x = x * x
    return x

for args in [(1., 2), (2., 2), (jnp.ones(3), 2), (jnp.ones(3) * 5, 2), (jnp.ones(3, jnp.int32), 2),
             (jnp.ones(3), 3)]:
    power(*args)
print(len(traces), traces)

# %% [markdown]
# The function is part of the key too. `jax.jit(f)` made twice from the same `f` shares one trace; a `lambda` made
# again on each round is a new function each time and traces each time, though its code is the same.
#
# 函数本身也是键的一部分。对同一个 `f` 调用两次 `jax.jit(f)`，两者共用一次 trace；每轮重新创建的 `lambda` 每次都是一个新的
# 函数，所以每次都重新 trace，尽管它的代码完全相同。

# %%
seen = []

def double(x):
    seen.append("double")
    return x * 2

jax.jit(double)(1.)
jax.jit(double)(1.)
for _ in range(2):
    jax.jit(lambda x: (seen.append("lambda"), x * 2)[1])(1.)
print(seen)

# %% [markdown]
# ## Effects and dead-code elimination / 副作用与死代码消除
#
# `make_jaxpr` keeps every equation that tracing recorded, even one whose result nobody reads: JAX prints its
# binder as `_`. Lowering runs **dead-code elimination** (DCE) and drops such equations, but not an equation
# with an **effect**: `jax.debug.print` binds `debug_print`, which returns nothing and is kept because it prints.
# A jaxpr lists the effects of its equations in `jaxpr.effects`. `jax.interpreters.partial_eval.dce_jaxpr`
# is the pass itself: given which outputs are used, it returns the jaxpr without the dead equations.
#
# `make_jaxpr` 保留 trace 记下的每一个方程，即使它的结果没有被任何方程读取：JAX 把这种方程的绑定变量打印为 `_`。
# lower 时会做**死代码消除**（DCE），删掉这样的方程，但不会删掉带**副作用**的方程：`jax.debug.print` bind 的是
# `debug_print`，它不返回任何值，却因为会打印而被保留。jaxpr 在 `jaxpr.effects` 中列出其方程的副作用。
# `jax.interpreters.partial_eval.dce_jaxpr` 就是这一遍处理本身：告诉它哪些输出被用到，它返回删掉死方程之后的 jaxpr。

# %%
from jax.interpreters import partial_eval as pe

def noisy(x):
    unused = jnp.cos(x)  # nobody reads it / 没有方程读取它
    jax.debug.print("x = {}", x)
    return jnp.sin(x)

closed = make_jaxpr(noisy)(1.)
print("\n".join(ln for ln in closed.pretty_print(use_color=False).split("\n")
                if not ln.startswith("      ")))       # the equations, without debug_print's long params / 方程本身，不含 debug_print 的长参数
print(say("effects:", "副作用："), [type(e).__name__ for e in closed.jaxpr.effects])
kept, used_inputs = pe.dce_jaxpr(closed.jaxpr, [True])
print(say("after DCE:", "DCE 之后："), [e.primitive.name for e in kept.eqns])
hlo = jax.jit(noisy).lower(1.).as_text()
print(say("StableHLO has cosine:", "StableHLO 中有 cosine："), "cosine" in hlo,
      say("sine:", "sine："), "sine" in hlo, say("a callback:", "回调："), "callback" in hlo)

# %% [markdown]
# ## Checking a jaxpr / 检查 jaxpr
#
# A jaxpr you build or edit yourself (lectures 9, 17 and 18 do) can be wrong in ways the printer does not show.
# `jax.extend.core.check_jaxpr` is JAX's type checker: it checks that every variable is defined before it is
# read, that every equation's types agree with its primitive's rule, and the sub-jaxprs in params. It returns
# `None` when all is well. (Older JAX had it as `jax.core.check_jaxpr`; JAX 0.12's `jax.core` has no such name.)
# Drop the first equation of `func1`'s jaxpr and `d` is read but never defined:
#
# 自己构造或修改的 jaxpr（第 9、17、18 讲都会这样做）可能有打印看不出来的错误。`jax.extend.core.check_jaxpr` 是 JAX
# 的类型检查器：它检查每个变量在被读取之前都已定义，每个方程的类型与其原语的规则相符，也检查参数中的子 jaxpr。一切正常时
# 它返回 `None`。（旧版 JAX 中它叫 `jax.core.check_jaxpr`；JAX 0.12 的 `jax.core` 里已没有这个名字。）删掉 `func1` 的 jaxpr 的
# 第一个方程，`d` 就被读取却从未定义：

# %%
from jax.extend.core import check_jaxpr

good = make_jaxpr(func1)(x, y).jaxpr
print(check_jaxpr(good))
broken = good.replace(eqns=good.eqns[1:])
show_error(check_jaxpr, broken)

# %% [markdown]
# ## `jax.export`: a function without its Python / `jax.export`：不带 Python 代码的函数
#
# `jax.export.export(jax.jit(f))(*args)` stages `f` all the way to StableHLO and returns an `Exported`: the input
# and output types, the platforms it was lowered for and the StableHLO module (`mlir_module()`). `exp.call` runs it.
# Trace a call of it and the jaxpr holds one `call_exported` equation, wrapped in a `custom_vjp_call` that
# gives it a derivative (`jax.grad(exp.call)` works): the equations of `func1` are gone, because what was
# exported is the lowered module, not the jaxpr. `exp.serialize()` turns it into bytes and
# `jax.export.deserialize` back, for another process or a later JAX; the bytes keep derivatives only up to the
# `vjp_order` given to `serialize`. Serializing needs the `flatbuffers` package, which this course does not
# install, so it is not run here. A dimension may be symbolic (`export.symbolic_shape("n")`): one export then
# serves every length.
#
# `jax.export.export(jax.jit(f))(*args)` 把 `f` 一直处理到 StableHLO，返回一个 `Exported`：其中有输入与输出的类型、
# lower 时针对的平台，以及 StableHLO 模块（`mlir_module()`）。`exp.call` 运行它。trace 对它的一次调用，jaxpr 中只有一个
# `call_exported` 方程，外面包着一个 `custom_vjp_call`，给它提供导数（`jax.grad(exp.call)` 可以运行）：`func1` 的方程都不见了，
# 因为导出的是 lower 之后的模块，而不是 jaxpr。`exp.serialize()` 把它变成字节，`jax.export.deserialize` 再变回来，供另一个
# 进程或以后的 JAX 使用；字节中只保留到 `serialize` 的 `vjp_order` 为止的导数。序列化需要 `flatbuffers` 包，本课程没有安装它，
# 所以这里不运行。维度可以是符号（`export.symbolic_shape("n")`）：这样一次导出
# 就能用于任何长度。

# %%
from jax import export

exp = export.export(jax.jit(func1))(x, y)
print(exp.fun_name, exp.in_avals, exp.out_avals, exp.platforms)
print(exp.call(x, y), jax.grad(exp.call)(x, y))
outer = make_jaxpr(exp.call)(x, y)
print([e.primitive.name for e in outer.jaxpr.eqns],
      [e.primitive.name for e in outer.jaxpr.eqns[0].params["call_jaxpr"].eqns])
print(sum("stablehlo." in ln for ln in exp.mlir_module().split("\n")), say("StableHLO ops", "个 StableHLO 算子"))

(n,) = export.symbolic_shape("n")
spec = jax.ShapeDtypeStruct((n,), jnp.float32)
any_length = export.export(jax.jit(func1))(spec, spec)
print(any_length.in_avals, any_length.call(jnp.zeros(3), jnp.ones(3)))

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
import jax
import jax.numpy as jnp
from jax import make_jaxpr
from jax.interpreters import partial_eval as pe

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** `scale` is jitted and called five times. How many times is it traced? Answer with an
# int.
#
# `scale` 经过 jit，被调用了五次。它被 trace 了几次？用整数作答。

# %% tags=["exercise-1"]
def scale(x, factor):
    return x * factor

calls = [(jnp.ones(4), 2.), (jnp.zeros(4), 3.), (jnp.ones(5), 2.), (jnp.ones(4), jnp.float32(2.)),
         (jnp.ones(4, jnp.int32), 2)]
answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
seen = []

@jax.jit
def counted(x, factor):
    seen.append(1)
    return scale(x, factor)

for args in calls:
    counted(*args)
check(answer_1, len(seen),
      "jit traces once per abstract signature: the first two calls share f32[4] and a weak f32[]; f32[5] is a "
      "new shape; jnp.float32(2.) is a strong f32[], not a weak one; the int32 array and the int 2 are new dtypes.",
      "jit 对每种抽象签名 trace 一次：前两次调用都是 f32[4] 和弱类型 f32[]；f32[5] 是新形状；jnp.float32(2.) 是强类型的 "
      "f32[]，不是弱类型；int32 数组和整数 2 是新的 dtype。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# Calls 1 and 2 share a trace; calls 3, 4 and 5 each trace again.
# 第 1、2 次调用共用一次 trace；第 3、4、5 次调用各自重新 trace。
answer_1 = 4


# %% [markdown]
# **Exercise 2 / 练习 2.** Which primitives are left in the jaxpr of `messy` after dead-code elimination (only its
# output used)? Answer with a list of primitive names, in order.
#
# 对 `messy` 的 jaxpr 做死代码消除（只用到它的输出）之后，还剩哪些原语？按顺序用原语名列表作答。

# %% tags=["exercise-2"]
def messy(x):
    a = jnp.exp(x)
    b = jnp.log(a) * 2.
    jax.debug.print("{}", a)
    c = jnp.sin(x)
    return c + 1.

answer_2 = None  # a list of str / 字符串列表

# %% tags=["check-2"]
dced, _ = pe.dce_jaxpr(make_jaxpr(messy)(1.).jaxpr, [True])
check(answer_2, [e.primitive.name for e in dced.eqns],
      "b is read by nobody, so its log and mul go; a is read by debug_print, which has an effect and stays, so "
      "the exp that makes a stays too.",
      "b 没有被任何方程读取，所以它的 log 和 mul 被删掉；a 被 debug_print 读取，而 debug_print 带副作用会留下，所以产生 a 的 "
      "exp 也留下。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = ["exp", "debug_print", "sin", "add"]


# %% [markdown]
# **Exercise 3 / 练习 3.** Trace a call of an exported function: how many equations does the body of its
# `custom_vjp_call` hold? Answer with an int.
#
# trace 对一个导出函数的调用：它的 `custom_vjp_call` 的函数体里有几个方程？用整数作答。

# %% tags=["exercise-3"]
def two_layers(x, w):
    return jnp.tanh(jnp.tanh(x @ w) @ w).sum()

answer_3 = None  # an int / 一个整数

# %% tags=["check-3"]
from jax import export

args = (jnp.ones((2, 3)), jnp.ones((3, 3)))
exported = export.export(jax.jit(two_layers))(*args)
body = make_jaxpr(exported.call)(*args).jaxpr.eqns[0].params["call_jaxpr"]
check(answer_3, len(body.eqns),
      "An exported function is its StableHLO module, not its jaxpr: however many equations two_layers had, the "
      "call is one opaque call_exported equation.",
      "导出的函数是它的 StableHLO 模块，而不是它的 jaxpr：不论 two_layers 原来有多少个方程，调用都只是一个不透明的 "
      "call_exported 方程。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_3 = 1

# %% [markdown]
# **Takeaway / 小结**: `jit` = trace (a jaxpr, cached per abstract signature) + lower (StableHLO, dead code dropped,
# effects kept) + compile (XLA's fused executable), and each stage is an object you can read. `check_jaxpr`
# checks a jaxpr's types; `jax.export` keeps the lowered module, so the jaxpr is gone from what it stores.
#
# `jit` = trace（得到 jaxpr，按抽象签名缓存）+ lower（得到 StableHLO，死代码被删掉，副作用保留）+ 编译（XLA 融合后的
# 可执行程序），每个阶段都是一个可以查看的对象。`check_jaxpr` 检查 jaxpr 的类型；`jax.export` 保存的是 lower 之后的模块，
# 所以它保存的东西里已经没有 jaxpr 了。
