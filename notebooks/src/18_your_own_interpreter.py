# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 18 · Your own interpreter / 第 18 讲 · 你自己的解释器
#
# Lecture 9's evaluator gave a jaxpr its ordinary meaning: bind each primitive, get the values JAX gets. A
# **non-standard interpreter** walks the same equations and gives them another meaning: the inverse of the
# function, or the FLOPs it costs. This is how JAX's own transposition works, and how tools built on
# JAX add new transformations. And because such an interpreter is ordinary Python calling `jax.numpy`, it is
# itself traceable: `jax.jit`, `jax.grad` and `jax.vmap` of your interpreter just work.
#
# 第 9 讲的求值器按通常的含义解读 jaxpr：bind 每个原语，得到与 JAX 相同的值。**非标准解释器**走过同样的方程，却赋予
# 它们另一种含义：函数的逆，或函数的 FLOPs。JAX 自己的转置就是这样工作的，基于 JAX 的工具也是这样加入新的
# 变换的。而且，这样的解释器只是调用 `jax.numpy` 的普通 Python 代码，所以它本身也能被 trace：对你的解释器做
# `jax.jit`、`jax.grad`、`jax.vmap` 都能直接工作。
#
# **Goal.** Write two non-standard interpreters of jaxprs, and see `jit`, `grad` and `vmap` compose with them.
# **Time:** 40 minutes.
#
# **目标**：写出两个 jaxpr 的非标准解释器，并看到 `jit`、`grad`、`vmap` 能与它们组合。
# **时长**：40 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## An inverse interpreter / 求逆解释器
#
# A chain of invertible steps, `y = exp(2x + 1)`, can be run backwards: start from `y` at the output and walk the
# equations from last to first, undoing each one. Each equation has one unknown operand (the value coming
# down the chain) and maybe a known one (a literal or a constvar). The rules are tables keyed by primitive,
# like the evaluator's `bind`: `inverse_unary["exp"]` is `log`, and `inverse_binary["sub"]` knows which side
# the unknown was on.
#
# 一串可逆的步骤 `y = exp(2x + 1)` 可以倒着运行：从输出处的 `y` 出发，从最后一个方程走到第一个，逐个撤销。每个方程
# 有一个未知操作数（沿链传下来的值），也许还有一个已知操作数（字面量或 constvar）。规则是按原语索引的表，和求值器的
# `bind` 一样：`inverse_unary["exp"]` 是 `log`，`inverse_binary["sub"]` 知道未知数在哪一边。

# %% tags=["setup"]
import numpy as np
import jax
import jax.numpy as jnp
import jax.extend.core as jcore
from jax import lax, make_jaxpr

inverse_unary = {"exp": jnp.log, "log": jnp.exp, "tanh": jnp.arctanh, "neg": jnp.negative,
                 "convert_element_type": lambda y: y}
# y = x OP c (the unknown x at position 0) or y = c OP x (position 1): the x that gives y
# y = x OP c（未知数 x 在位置 0）或 y = c OP x（位置 1）：求出得到 y 的那个 x
inverse_binary = {
    "add": lambda y, c, pos: y - c,
    "mul": lambda y, c, pos: y / c,
    "sub": lambda y, c, pos: y + c if pos == 0 else c - y,
    "div": lambda y, c, pos: y * c if pos == 0 else c / y,
}


def inverse(f):
    # The inverse of a one-argument chain of invertible primitives, as a function of y.
    # 由可逆原语组成的单参数链的逆，作为 y 的函数。
    def f_inv(y):
        closed = make_jaxpr(f)(jax.ShapeDtypeStruct(jnp.shape(y), jnp.result_type(y)))
        jaxpr = closed.jaxpr
        known = dict(zip(jaxpr.constvars, closed.consts))

        def const(a):                                   # a known operand's value, or None / 已知操作数的值，否则为 None
            return a.val if isinstance(a, jcore.Literal) else known.get(a)

        value = {jaxpr.outvars[0]: y}
        for eqn in reversed(jaxpr.eqns):
            out = value.pop(eqn.outvars[0])
            (pos,) = [i for i, a in enumerate(eqn.invars) if const(a) is None]
            name = eqn.primitive.name
            if name in inverse_unary:
                x = inverse_unary[name](out)
            else:
                x = inverse_binary[name](out, const(eqn.invars[1 - pos]), pos)
            value[eqn.invars[pos]] = x
        return value[jaxpr.invars[0]]
    return f_inv

# %%
def f(x):
    return jnp.exp(x * 2. + 1.)

f_inv = inverse(f)
x = jnp.array([0.1, 0.5, 1.0])
print("f_inv(f(x)):", f_inv(f(x)))

# %% [markdown]
# ## The interpreter vanishes when traced / trace 时解释器消失了
#
# Trace `f_inv` itself. The interpreter's loop, its dictionaries and `make_jaxpr(f)` all run at trace time, like
# any Python (lecture 2); only the `jax.numpy` calls it made remain. The jaxpr of the inverse is `f`'s jaxpr
# read backwards with each step undone: `log`, `sub`, `div`.
#
# 对 `f_inv` 本身做 trace。解释器的循环、它的字典以及 `make_jaxpr(f)` 都在 trace 时执行，就像任何 Python 代码一样
# （第 2 讲）；只有它调用过的 `jax.numpy` 运算留了下来。逆函数的 jaxpr 就是倒着读 `f` 的 jaxpr、逐步撤销：`log`、
# `sub`、`div`。

# %%
%%jaxpr
f_inv(f(x))

# %% [markdown]
# The source column points into the interpreter: each equation was made by the rule that undid one step of `f`.
#
# 源码列指向解释器内部：每个方程都是由撤销 `f` 某一步的那条规则产生的。

# %% [markdown]
# So everything JAX can do to a function it can do to your interpreter. `jit` compiles the inverse, `vmap`
# batches it, and `grad` differentiates it; the derivative of an inverse is one over the derivative of the
# function (inverse function theorem), which we can check:
#
# 所以 JAX 能对函数做的一切，都能对你的解释器做。`jit` 编译逆函数，`vmap` 给它加上批处理轴，`grad` 对它求导；逆函数的导数
# 等于原函数导数的倒数（反函数定理），可以验证一下：

# %%
y = f(x)
print("jit: ", jax.jit(f_inv)(y))
print("vmap:", jax.vmap(f_inv)(y[:, None]).ravel())
print("grad(f_inv):", jax.vmap(jax.grad(f_inv))(y))
print("1 / f'(x):  ", 1. / jax.vmap(jax.grad(f))(x))

# %%
%%jaxpr --transform grad
f_inv(y[0])

# %% [markdown]
# > **Where JAX does the same / JAX 中的同类做法** — JAX's transposition (`jax.linear_transpose`, the backward
# > pass of `grad`) is an interpreter of exactly this shape: it walks a linear jaxpr from the last equation to
# > the first, with a transpose rule per primitive, keyed by primitive. The guide "Writing custom interpreters
# > in JAX" builds the same inverse interpreter as its example. Our version handles one chain; a real one would
# > also need rules for primitives with several unknown operands and for sub-jaxprs (`cond`, `scan`, `jit`).
# >
# > JAX 的转置（`jax.linear_transpose`、`grad` 的反向过程）正是这种结构的解释器：它从最后一个方程走到第一个，
# > 每个原语一条转置规则，按原语索引。JAX 文档中讲如何自己编写 jaxpr 解释器的指南，举的例子也是同样的求逆解释器。
# > 我们的版本只处理一条链；真正的实现还需要为有多个未知操作数的原语以及子 jaxpr（`cond`、`scan`、`jit`）写规则。

# %% [markdown]
# ## A FLOP counter / FLOP 计数器
#
# A second meaning for the same equations: what they cost. `flop_rules` counts one FLOP per element for
# elementwise primitives, `2·K` per output element for `dot_general` (K multiply-adds), and recurses into
# sub-jaxprs: a `scan` body costs `length` times, a `jit` once, a `cond` its dearest branch. A `while` has no
# count known at trace time, so it counts zero: a limit of any interpreter that does not run the program.
#
# 对同样的方程的第二种解读：它们的开销。`flop_rules` 对逐元素原语每个元素计 1 次 FLOP，对 `dot_general` 每个输出元素计
# `2·K` 次（K 次乘加），并递归进入子 jaxpr：`scan` 的循环体计 `length` 次，`jit` 计一次，`cond` 取最贵的分支。`while`
# 的次数在 trace 时未知，所以计为零：这是任何不运行程序的解释器都有的局限。

# %% tags=["setup"]
ELEMENTWISE = {"add", "sub", "mul", "div", "max", "min", "neg", "exp", "log", "tanh", "sin", "cos", "logistic"}


def count_flops(jaxpr):
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)      # a closed jaxpr or its inner jaxpr / 带常量的 jaxpr 或其内部 jaxpr
    return sum(flop_rules.get(eqn.primitive.name, lambda eqn: 0)(eqn) for eqn in jaxpr.eqns)


def dot_flops(eqn):
    (contracted, _), _ = eqn.params["dimension_numbers"]
    k = int(np.prod([eqn.invars[0].aval.shape[d] for d in contracted]))
    return 2 * k * eqn.outvars[0].aval.size


flop_rules = {name: (lambda eqn: eqn.outvars[0].aval.size) for name in ELEMENTWISE}
flop_rules["dot_general"] = dot_flops
flop_rules["reduce_sum"] = lambda eqn: eqn.invars[0].aval.size
flop_rules["scan"] = lambda eqn: eqn.params["length"] * count_flops(eqn.params["jaxpr"])
flop_rules["jit"] = lambda eqn: count_flops(eqn.params["jaxpr"])
flop_rules["cond"] = lambda eqn: max(count_flops(b) for b in eqn.params["branches"])

# %% [markdown]
# Lecture 10's `layer`: the product's `2·128·256·256` plus one FLOP per element for `tanh`, `mul` and `add`.
#
# 第 10 讲的 `layer`：矩阵乘的 `2·128·256·256`，加上 `tanh`、`mul`、`add` 每个元素各 1 次 FLOP。

# %%
from jaxprlens.exercise import say

def layer(w, x):
    return jnp.tanh(x @ w) * 2. + 1.

w, xs = jnp.ones((256, 256)), jnp.ones((128, 256))
print(count_flops(make_jaxpr(layer)(w, xs)), "=", 2 * 128 * 256 * 256 + 3 * 128 * 256)
print(count_flops(make_jaxpr(jax.jit(layer))(w, xs)), say("(through jit)", "（经过 jit）"))

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth with the interpreters above, or with JAX itself. The folded cell after each check holds a
# solution; run it, then the check again, to see it pass.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都用上面的解释器或 JAX 本身算出正确结果。
# 每个检查之后折叠的单元格是参考答案；运行它，再运行一次检查，即可看到通过。

# %% tags=["checks"]
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr
from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** Which primitives, in order, will the jaxpr of `inverse(h)` hold? Answer with a list
# of primitive names.
#
# `inverse(h)` 的 jaxpr 依次包含哪些原语？用原语名组成的列表作答。

# %% tags=["exercise-1"]
def h(x):
    return 3. - jnp.tanh(x) / 2.

answer_1 = None  # a list of str / 字符串列表

# %% tags=["check-1"]
check(answer_1, [e.primitive.name for e in make_jaxpr(inverse(h))(jnp.ones(3)).jaxpr.eqns],
      "Undo the last step first: 3. - u gives u = 3. - y (sub), u = t / 2. gives t = u * 2. (mul), "
      "t = tanh(x) gives x = atanh(t).",
      "先撤销最后一步：3. - u 得 u = 3. - y（sub），u = t / 2. 得 t = u * 2.（mul），t = tanh(x) 得 x = atanh(t)。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_1 = ["sub", "mul", "atanh"]

# %% [markdown]
# **Exercise 2 / 练习 2.** How many FLOPs will `count_flops` give for `running`, a `scan` of ten steps over
# `f32[4]` rows with a `4×4` matrix? Answer with an int.
#
# `running` 是对 `f32[4]` 行做十步 `scan`，每步用一个 `4×4` 矩阵。`count_flops` 会给出多少 FLOPs？用整数作答。

# %% tags=["exercise-2"]
def running(xs, w):
    def body(c, x):
        c = jnp.tanh(c @ w + x)
        return c, c
    return lax.scan(body, jnp.zeros(4), xs)

answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
check(answer_2, count_flops(make_jaxpr(running)(jnp.ones((10, 4)), jnp.ones((4, 4)))),
      "Per step: the product is 4 outputs of 4 multiply-adds (32), then add (4) and tanh (4); the body runs "
      "length=10 times. The broadcast that makes the zeros costs nothing here.",
      "每一步：矩阵乘有 4 个输出，每个 4 次乘加（32），再加上 add（4）和 tanh（4）；循环体运行 length=10 次。生成零向量的"
      "broadcast 在这里不计开销。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# 10 * (2*4*4 + 4 + 4)
answer_2 = 400

# %% [markdown]
# **Exercise 3 / 练习 3.** `jax.jit` of the inverse is called on four arrays. How many times will the
# interpreter's Python run (the list `runs` grows once per trace)? Answer with an int.
#
# 对逆函数做 `jax.jit` 之后，在四个数组上调用它。解释器的 Python 代码会运行几次（每 trace 一次，列表 `runs` 就多一项）？
# 用整数作答。

# %% tags=["exercise-3"]
calls = [jnp.ones(3), jnp.ones(3) * 2., jnp.ones(5), jnp.ones(3) + 1.]
answer_3 = None  # an int / 一个整数

# %% tags=["check-3"]
runs = []

def counted(y):
    runs.append(y.shape)
    return inverse(h)(y)

fast = jax.jit(counted)
for y in calls:
    fast(y)
check(answer_3, len(runs),
      "jit traces once per new input type (shape and dtype), then reuses the compiled program: f32[3] once, f32[5] "
      "once. The values do not matter.",
      "jit 对每种新的输入类型（形状与 dtype）trace 一次，之后复用编译好的程序：f32[3] 一次，f32[5] 一次。值是多少无关紧要。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_3 = 2

# %% [markdown]
# **Takeaway / 小结**: an interpreter of jaxprs is a table of rules keyed by primitive and a walk over the
# equations; give the rules another meaning and you have a new transformation. Written with `jax.numpy`, it is
# traced away like any Python, so `jit`, `grad` and `vmap` compose with it.
#
# jaxpr 解释器就是一张按原语索引的规则表，加上对方程的一次遍历；给规则换一种含义，就得到一个新的变换。用 `jax.numpy`
# 写成的解释器会像任何 Python 代码一样在 trace 时消失，所以 `jit`、`grad`、`vmap` 都能与它组合。
