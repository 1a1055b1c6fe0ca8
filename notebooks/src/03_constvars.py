# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 3 · Constant variables and the data model / 第 3 讲 · 常量变量与数据模型
#
# Python and NumPy scalars are inlined as literals (`3.0:f32[]`). An array becomes a *constvar* when it
# **already exists as a concrete value** while the function is traced: a NumPy array, a `jax.Array` made before
# the call (of any shape, a 0-d one too), `jnp.array([1., 2., 3.])` built from Python data. Such arrays are
# **hoisted**: printed before the `;`, their values travel with the jaxpr in its `consts`. An array that
# `jax.numpy` *computes* inside the function is an equation instead, even when it depends on no argument:
# `jnp.ones(3)` traces to a `broadcast_in_dim`, `jnp.arange(3.)` to an `iota`.
#
# Python 标量与 NumPy 标量以字面量形式内联（`3.0:f32[]`）。一个数组只有在 trace 时**已经作为具体值存在**，才会成为
# *constvar*：NumPy 数组、调用之前就建好的 `jax.Array`（任意形状，0 维的也算）、由 Python 数据构造的
# `jnp.array([1., 2., 3.])`。这样的数组被**提升**：
# 打印在分号之前，它们的值保存在 jaxpr 的 `consts` 中，随 jaxpr 一起携带。而在函数内部由 `jax.numpy` **计算**出的
# 数组是方程，即使它不依赖任何输入：`jnp.ones(3)` 被 trace 成 `broadcast_in_dim`，`jnp.arange(3.)` 被 trace 成
# `iota`。
#
# **Goal.** Tell literals, hoisted constants and inputs apart, and use the data model of JAX 0.11 and later.
# **Time:** 30 minutes.
#
# **目标**：区分字面量、提升的常量与输入，并会使用 JAX 0.11 及之后版本的数据模型。
# **时长**：30 分钟。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import make_jaxpr

weights = np.array([1., 2., 3.], dtype=np.float32)  # an array constant, hoisted / 数组常量，被提升

def scaled(x):
    return jnp.sum(x * weights) * 2.  # 2. is a Python scalar: inlined / 2. 是 Python 标量：内联

scaled(jnp.ones(3))

# %%
print(make_jaxpr(scaled)(jnp.ones(3)).pretty_print(use_color=False))

# %% [markdown]
# Three `f32[3]` arrays that depend on no argument, `jnp.ones(3)` (`[1, 1, 1]`), `jnp.arange(3.)` (`[0, 1, 2]`)
# and `jnp.array([1., 2., 3.])` (`[1, 2, 3]`), give three different jaxprs: only the array that exists as a
# value before tracing reaches it, the one built from Python data, is a constvar; the other two are computed,
# so they are equations.
#
# 三个不依赖任何输入的 `f32[3]` 数组：`jnp.ones(3)`（`[1, 1, 1]`）、`jnp.arange(3.)`（`[0, 1, 2]`）与
# `jnp.array([1., 2., 3.])`（`[1, 2, 3]`），得到三个不同的 jaxpr：只有在 trace 之前就已经有值的那个数组
# （由 Python 数据构造的那个）才是 constvar；另外两个是计算出来的，所以是方程。

# %%
for make in (lambda: jnp.ones(3), lambda: jnp.arange(3.), lambda: jnp.array([1., 2., 3.])):
    print(make_jaxpr(lambda x: x + make())(jnp.ones(3)).pretty_print(use_color=False))

# %% [markdown]
# `a:f32[3]` before the `;` is the constvar holding `weights`; `b` is `x`. Constvars and invars differ only
# by bookkeeping: inside JAX both are input variables, and the first `len(consts)` of them get their values
# from `consts`.
#
# 分号前的 `a:f32[3]` 就是存放 `weights` 的 constvar，`b` 是 `x`。constvars 与 invars 的区别只是簿记惯例：
# 在 JAX 内部两者都是输入变量，前 `len(consts)` 个的值来自 `consts`。

# %% [markdown]
# **By kind of value / 按值的种类.** Whether a value that is not an input becomes a literal or a constvar
# depends on what kind of value it is, not on its shape:
# - a Python scalar, a NumPy scalar (`np.float32(2.)`) or a 0-d NumPy array (`np.array(2.)`) is a
#   **literal**, inlined in its equation (`2.0:f32[]`);
# - a `jax.Array` that already exists is a **constvar**, **whatever its shape**: a 0-d one too, such as
#   `jnp.float32(2.)` or `jnp.array(2.)` made before the call, printed `a:f32[]` before the `;`; so is a NumPy
#   array of one or more dimensions;
# - inside the function, a scalar that `jax.numpy` makes from a Python number (`jnp.float32(2.)` written in the
#   body) is a literal again, an array built from Python data (`jnp.array([1., 2., 3.])`) a constvar, and an
#   array `jax.numpy` computes (`jnp.ones(3)`) an equation.
#
# Predict each of the six jaxprs below before you run the cell: literal or constvar?
#
# **按值的种类**：一个不是输入的值成为字面量还是 constvar，取决于它是哪一种值，而不是它的形状。Python 标量、NumPy
# 标量（`np.float32(2.)`）或 0 维 NumPy 数组（`np.array(2.)`）是**字面量**，直接内联在方程中（`2.0:f32[]`）；
# 已经存在的 `jax.Array` **不论形状**都是 **constvar**：0 维的也一样，例如调用之前建好的 `jnp.float32(2.)` 或
# `jnp.array(2.)`，打印为分号之前的 `a:f32[]`；一维及以上的 NumPy 数组也是 constvar。在函数内部，`jax.numpy` 由
# Python 数构造的标量（函数体里写的 `jnp.float32(2.)`）则是字面量，由 Python 数据构造的数组
# （`jnp.array([1., 2., 3.])`）是 constvar，`jax.numpy` 计算出的数组（`jnp.ones(3)`）是方程。
#
# 运行下面的单元格之前，先逐个预测这六个 jaxpr：字面量还是 constvar？

# %%
made_before = [2., np.float32(2.), np.array(2.), jnp.float32(2.), jnp.array(2.), np.full(3, 2., np.float32)]
for c in made_before:
    print(make_jaxpr(lambda x: x * c)(jnp.ones(3)).pretty_print(use_color=False))

# %% [markdown]
# ## `Jaxpr`, `consts` and `JaxprEqn` / 代码中的数据模型
#
# Since JAX 0.11 a jaxpr is one class, `Jaxpr`, and it carries the values of its constvars itself:
# `jax.make_jaxpr` returns a `Jaxpr` whose `consts` are those values. Its inputs are `all_invars`; the first
# `num_consts` of them (one per value in `consts`) are `constvars`, and the rest are `invars`.
# `ClosedJaxpr` survives as another name for `Jaxpr`, and the legacy accessors keep old code working:
# `closed.jaxpr` returns the jaxpr itself, `literals` is an old name for `consts`, and
# `ClosedJaxpr(jaxpr, consts)` attaches consts to a jaxpr. The public names live in `jax.extend.core`.
#
# 从 JAX 0.11 起，jaxpr 只有一个类 `Jaxpr`，它自己携带 constvars 的值：`jax.make_jaxpr` 返回一个 `Jaxpr`，
# 其 `consts` 就是这些值。它的全部输入是 `all_invars`：前 `num_consts` 个（`consts` 中每个值对应一个）是 `constvars`，
# 其余是 `invars`。`ClosedJaxpr` 仍作为 `Jaxpr` 的别名保留，旧的访问方式也照常可用：`closed.jaxpr` 返回 jaxpr
# 自身，`literals` 是 `consts` 的旧名，`ClosedJaxpr(jaxpr, consts)` 把常量值附加到 jaxpr 上。这些类型的公共入口在
# `jax.extend.core`。

# %% [markdown]
# > **Older JAX (≤ 0.10) / 旧版 JAX（≤ 0.10）** — `ClosedJaxpr` was a separate wrapper: `closed.jaxpr` was an inner
# > `Jaxpr` (constvars, invars, eqns, outvars, but no values) and `closed.consts` held the values. The article
# > describes the merged class from JAX's source of its day, which first shipped in JAX 0.11.0. Code that reads
# > `closed.jaxpr.constvars` and `closed.consts`, as the cells below do, runs on both.
# >
# > 当时 `ClosedJaxpr` 是一个单独的包装类：`closed.jaxpr` 是内部的 `Jaxpr`（有 constvars、invars、
# > eqns、outvars，但不带值），`closed.consts` 保存值。原文描述的是当时源码中合并后的类，它首次随 JAX 0.11.0 发布。
# > 像下面的单元格这样读取 `closed.jaxpr.constvars` 与 `closed.consts` 的代码在两种版本上都能运行。

# %%
import jax.extend.core as jcore
from jaxprlens.exercise import say

closed = make_jaxpr(scaled)(jnp.ones(3))
print(say("one class:", "是同一个类："), jcore.ClosedJaxpr is jcore.Jaxpr,
      say("| closed.jaxpr is closed:", "| closed.jaxpr 就是 closed："), closed.jaxpr is closed)
print("consts:", [np.asarray(c) for c in closed.consts])
print("constvars:", len(closed.jaxpr.constvars), " invars:", len(closed.jaxpr.invars),
      " eqns:", len(closed.jaxpr.eqns), " outvars:", len(closed.jaxpr.outvars))

# %% [markdown]
# Each equation is a `JaxprEqn` with `invars` (atoms), `outvars`, `primitive`, `params` and `effects`
# (plus `source_info` and `ctx` for debugging).
#
# 每个方程是一个 `JaxprEqn`，字段有 `invars`（原子）、`outvars`、`primitive`、`params`、`effects`
# （以及调试用的 `source_info` 与 `ctx`）。

# %%
eqn = closed.jaxpr.eqns[1]
print(isinstance(eqn, jcore.JaxprEqn))
print("primitive:", eqn.primitive, " params:", eqn.params, " effects:", set(eqn.effects))
print("invars:", [str(v.aval) for v in eqn.invars], " outvars:", [str(v.aval) for v in eqn.outvars])

# %% [markdown]
# JAX's own `Var` objects print with an identity number that changes every run. `jaxprlens.trace` gives the
# same data with the printer's names (`a`, `b`, ...) and the Python path of each input:
#
# JAX 的 `Var` 对象打印时带有每次运行都不同的标识号。`jaxprlens.trace` 给出同样的数据，但使用打印器的名字
# （`a`、`b`……）以及每个输入对应的 Python 路径：

# %%
import jaxprlens

program = jaxprlens.trace(scaled, jnp.ones(3))
print(program)
print("constvars:", [f"{v.name}:{v.type}" for v in program.constvars], "consts:", [np.asarray(c) for c in program.consts])
print("invars:", [f"{v.name}:{v.type} ({v.path})" for v in program.invars])
for e in program.eqns:
    print(e.index, [v.name for v in e.outvars], "=", e.primitive, [a.name for a in e.invars], e.params)

# %% [markdown]
# ## A constant inside a branch / 分支中的常量
#
# An array constant captured inside a sub-jaxpr is hoisted to the **outer** jaxpr. In the article's `func8`,
# `jnp.array([1])` in the false branch becomes the outer constvar `a:i32[1]`; `cond` receives it as an
# ordinary operand and **every** branch binds it with an ordinary binder, after the `;` (lecture 4). The
# branches themselves have no constvars.
#
# 子 jaxpr 中捕获的数组常量会被提升到**外层** jaxpr。文章的 `func8` 中，false 分支里的 `jnp.array([1])` 变成外层的
# constvar `a:i32[1]`；`cond` 把它当作普通操作数接收，**每个**分支都用分号之后的普通绑定变量接住它（见第 4 讲）。
# 分支本身没有 constvars。

# %%
from jax import lax

def func8(arg1, arg2):  # Where `arg2` is a pair. / 其中 `arg2` 是一个二元组。
    return lax.cond(arg1 >= 0.,
                    lambda xtrue: xtrue[0],
                    lambda xfalse: jnp.array([1]) + xfalse[1],
                    arg2)

closed8 = make_jaxpr(func8)(5., (jnp.zeros(1), 2.))
print(say("outer constvars:", "外层的 constvars："), [f"{v.aval}" for v in closed8.jaxpr.constvars], [np.asarray(c) for c in closed8.consts])
branches = closed8.jaxpr.eqns[-1].params["branches"]
print(say("constvars per branch:", "每个分支的 constvars："), [len(b.jaxpr.constvars) for b in branches],
      say("| binders per branch:", "| 每个分支的绑定变量："), [len(b.jaxpr.invars) for b in branches])

# %% [markdown]
# > **Outdated in the article / 原文已过时** — the article says a constant captured in a sub-jaxpr "appears as a
# > constvar before the `;` of the sub-jaxpr's `lambda`", and reads its `func8` printout that way. In the JAX
# > this course is recorded on (0.12.0.1, and 0.10 and 0.11 alike: `lax.cond` binds
# > `cond_p.bind(index, *consts, *args)`) the constant is a constvar of the *outer* jaxpr and an operand of `cond`; inside each branch it is an
# > ordinary binder. The same holds for `while` and `scan` bodies (lectures 5 and 6).
# >
# > 原文称子 jaxpr 中捕获的常量“以 constvar 的形式出现在该子 jaxpr 的 `lambda` 分号之前”，并据此解读 `func8` 的输出。
# > 在本课程录制所用的 JAX 中（0.12.0.1，0.10 与 0.11 也一样：`lax.cond` 调用 `cond_p.bind(index, *consts, *args)`），
# > 该常量是**外层** jaxpr 的 constvar、`cond` 的操作数，在各分支内部则是普通的绑定变量。`while` 与 `scan`
# > 的循环体也是如此（第 5、6 讲）。

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
import jax.numpy as jnp
import jax.extend.core as jcore
from jax import lax, make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** How many constvars will the jaxpr of `shift` have, and how many literal operands
# will its equations use? Answer with a pair `(constvars, literals)`.
#
# `shift` 的 jaxpr 有多少个 constvar？它的方程一共用到多少个字面量操作数？用二元组 `(constvars 数, 字面量数)` 作答。

# %% tags=["exercise-1"]
def shift(x):
    return x + np.arange(4.) * 2. + 1.

answer_1 = None  # a pair of ints / 两个整数组成的二元组

# %% tags=["check-1"]
closed_shift = make_jaxpr(shift)(jnp.ones(4))
n_literals = sum(isinstance(a, jcore.Literal) for e in closed_shift.jaxpr.eqns for a in e.invars)
check(answer_1, (len(closed_shift.jaxpr.constvars), n_literals),
      "NumPy work on NumPy arrays runs at trace time: np.arange(4.) * 2. is one array constant (hoisted), while "
      "the Python scalar 1. stays a literal.",
      "NumPy 数组上的 NumPy 运算在 trace 时就算完：np.arange(4.) * 2. 是一个数组常量（被提升），Python 标量 1. 仍"
      "是字面量。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# np.arange(4.) * 2. is computed by NumPy while tracing: one f32[4] constvar. Then two adds; only 1. is a literal.
# np.arange(4.) * 2. 在 trace 时由 NumPy 算出：一个 f32[4] constvar。之后是两个 add，只有 1. 是字面量。
answer_1 = (1, 1)

# %% [markdown]
# **Exercise 2 / 练习 2.** `pick` captures the array `w` in its true branch. How many constvars will the
# outer jaxpr have, and how many will the true branch (`branches[1]`) have? Answer `(outer, true_branch)`.
#
# `pick` 的 true 分支捕获了数组 `w`。外层 jaxpr 有多少个 constvar？true 分支（`branches[1]`）有多少个？
# 用 `(外层, true 分支)` 作答。

# %% tags=["exercise-2"]
w = np.array([1., 2., 3.], dtype=np.float32)

def pick(p, x):
    return lax.cond(p, lambda x: x * w, lambda x: x, x)

answer_2 = None  # a pair of ints / 两个整数组成的二元组

# %% tags=["check-2"]
closed_pick = make_jaxpr(pick)(True, jnp.ones(3))
true_branch = closed_pick.jaxpr.eqns[-1].params["branches"][1]
check(answer_2, (len(closed_pick.jaxpr.constvars), len(true_branch.jaxpr.constvars)),
      "A captured array is hoisted all the way out: it is a constvar of the outer jaxpr and an ordinary operand "
      "of cond, bound after the ';' in every branch.",
      "被捕获的数组一路提升到最外层：它是外层 jaxpr 的 constvar，是 cond 的普通操作数，在每个分支中由分号之后的变"
      "量接住。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = (1, 0)

# %% [markdown]
# **Exercise 3 / 练习 3.** `mix` uses four arrays that depend on no argument. How many constvars and how many
# equations will its jaxpr have? Answer `(constvars, equations)`.
#
# `mix` 用到四个不依赖任何输入的数组。它的 jaxpr 有多少个 constvar、多少个方程？用 `(constvar 数, 方程数)` 作答。

# %% tags=["exercise-3"]
W = jnp.ones(3)       # made before tracing / 在 trace 之前建好

def mix(x):
    return x * jnp.ones(3) + jnp.arange(3.) * jnp.array([1., 2., 3.]) + W

answer_3 = None  # a pair of ints / 两个整数组成的二元组

# %% tags=["check-3"]
closed_mix = make_jaxpr(mix)(jnp.ones(3))
check(answer_3, (len(closed_mix.jaxpr.constvars), len(closed_mix.jaxpr.eqns)),
      "Only arrays that exist as values when tracing reaches them are constvars: W and jnp.array([1., 2., 3.]). "
      "jnp.ones(3) and jnp.arange(3.) are computed, so they are equations (broadcast_in_dim, iota), and so are "
      "the two muls and two adds.",
      "只有 trace 到达时已作为值存在的数组才是 constvar：W 和 jnp.array([1., 2., 3.])。jnp.ones(3) 和 "
      "jnp.arange(3.) 是计算出来的，所以是方程（broadcast_in_dim、iota），两个 mul 和两个 add 也是方程。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# constvars: jnp.array([1., 2., 3.]) and W. Equations: broadcast_in_dim, mul, iota, mul, add, add.
# constvar：jnp.array([1., 2., 3.]) 和 W。方程：broadcast_in_dim、mul、iota、mul、add、add。
answer_3 = (2, 6)

# %% [markdown]
# **Exercise 4 / 练习 4.** `scale_all` multiplies by a Python scalar, a NumPy scalar and a 0-d `jax.Array` made
# before the call, then adds a `jnp.float32` made inside. How many constvars will its jaxpr have, and how many
# literal operands will its equations use? Answer `(constvars, literals)`.
#
# `scale_all` 先乘以一个 Python 标量、一个 NumPy 标量和一个调用之前建好的 0 维 `jax.Array`，再加上一个在函数内部
# 构造的 `jnp.float32`。它的 jaxpr 有多少个 constvar？它的方程一共用到多少个字面量操作数？用
# `(constvar 数, 字面量数)` 作答。

# %% tags=["exercise-4"]
two = jnp.float32(2.)   # a 0-d jax.Array, made before tracing / 0 维 jax.Array，在 trace 之前建好
half = np.float32(0.5)  # a NumPy scalar / NumPy 标量

def scale_all(x):
    return x * 3. * half * two + jnp.float32(1.)

answer_4 = None  # a pair of ints / 两个整数组成的二元组

# %% tags=["check-4"]
closed_all = make_jaxpr(scale_all)(jnp.ones(3))
n_literals = sum(isinstance(a, jcore.Literal) for e in closed_all.jaxpr.eqns for a in e.invars)
check(answer_4, (len(closed_all.jaxpr.constvars), n_literals),
      "The kind of value decides, not the shape: 3., the NumPy scalar half and the jnp.float32(1.) made inside "
      "are literals; two is a jax.Array that already exists, so it is a constvar even though it is 0-d.",
      "决定的是值的种类，而不是形状：3.、NumPy 标量 half 以及函数内部构造的 jnp.float32(1.) 是字面量；two 是已经存在的 "
      "jax.Array，所以即使是 0 维的也是 constvar。")

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# two is a constvar (a:f32[] before the ;); 3., half (0.5) and 1. are literals of mul, mul and add.
# two 是 constvar（分号之前的 a:f32[]）；3.、half（0.5）和 1. 分别是 mul、mul、add 的字面量。
answer_4 = (1, 3)

# %% [markdown]
# **Takeaway / 小结**: Python and NumPy scalars inline as literals; a `jax.Array` that already exists when tracing
# meets it (0-d included) and a NumPy array hoist to the outermost jaxpr as constvars; arrays that `jax.numpy`
# computes are equations; a jaxpr carries its `consts`.
#
# Python 标量与 NumPy 标量以字面量内联；trace 遇到时已经存在的 `jax.Array`（包括 0 维的）与 NumPy 数组作为 constvar
# 提升到最外层 jaxpr；由 `jax.numpy` 计算出的数组是方程；jaxpr 自己携带 `consts`。
