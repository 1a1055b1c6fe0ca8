# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 7 · `jit` inside a traced function / 第 7 讲 · 被 trace 函数中的 `jit`
#
# A function decorated with `jax.jit` and called while tracing appears as one **call primitive** whose
# `jaxpr` parameter is the callee's sub-jaxpr, compiled as one unit.
#
# 在 trace 过程中调用被 `jax.jit` 装饰的函数，会在 jaxpr 中留下一个 **call 原语**，其参数 `jaxpr` 是被调函数的子 jaxpr，
# 作为一个整体编译。
#
# **Goal.** Read a nested `jit` call: its sub-jaxpr, its explicit operands and the names the printer gives them.
# **Time:** 25 minutes.
#
# **目标**：读懂嵌套的 `jit` 调用：它的子 jaxpr、显式的操作数，以及打印器给它们起的名字。
# **时长**：25 分钟。

# %% [markdown]
# > **Outdated in the article / 原文已过时**
# > - `pjit` was renamed `jit` in **JAX 0.7.0** (`jax.extend.core.primitives.pjit_p` became `jit_p`, printed
# >   `jit`). The article's printout says `pjit[...]`.
# > - The article says the call primitive carries parameters naming the **backend and device** to run on. Those
# >   were parameters of the old `xla_call` primitive, gone since `jit` was merged into `pjit` (JAX 0.4.4,
# >   2023; `xla_call_p` removed in 0.4.11). Today's `jit` equation carries `name`, `jaxpr`, `in_shardings`,
# >   `out_shardings`, `donated_invars`, `inline`, `keep_unused`, ... (printed only when not the default).
# > - The article says `jnp.ones(1)` enters the sub-jaxpr **as a constvar**. Today it is built inside the
# >   callee by a `broadcast_in_dim` equation, and the callee has no constvars (see the printout below).
# > - Very old printouts (JAX before 0.3.10, May 2022) show `*` for a *unit*, a placeholder value; units were
# >   removed from JAX then, and no jaxpr prints `*` today.
# >
# > - `pjit` 在 **JAX 0.7.0** 中更名为 `jit`（`jax.extend.core.primitives.pjit_p` 变为 `jit_p`，打印为 `jit`）。原文的
# >   输出仍写作 `pjit[...]`。
# > - 原文称 call 原语带有指定运行**后端（backend）与设备（device）**的参数。那是旧的 `xla_call` 原语的参数，自 `jit`
# >   并入 `pjit`（JAX 0.4.4，2023 年；`xla_call_p` 于 0.4.11 删除）后已不存在。如今的 `jit` 方程带有 `name`、`jaxpr`、
# >   `in_shardings`、`out_shardings`、`donated_invars`、`inline`、`keep_unused` 等参数（取默认值时不打印）。
# > - 原文称 `jnp.ones(1)` **以 constvar 的形式**进入子 jaxpr。如今它在被调函数内部由 `broadcast_in_dim` 方程构造，
# >   被调函数没有 constvars（见下面的输出）。
# > - 很旧的输出（JAX 0.3.10 之前，2022 年 5 月）用 `*` 表示 *unit*（占位值）；JAX 当时已删除 unit，如今的 jaxpr
# >   不会再打印 `*`。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import jax
import jax.numpy as jnp
from jax import make_jaxpr

def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)  # Include a constant in the inner function. / 内层函数里用到一个常量。
    return arg + inner(arg - 2.)

func12(1.)

# %%
print(make_jaxpr(func12)(1.).pretty_print(use_color=False))

# %% [markdown]
# `inner` closes over `arg`: the closure becomes an explicit operand, so the call passes two values,
# `a` (`arg`) and `b` (`arg - 2.`), and the sub-jaxpr has two inputs. `jnp.ones(1)` is built inside the
# sub-jaxpr (`broadcast_in_dim`).
#
# How the printer names things: it does **not** restart names inside the sub-jaxpr. `jit`'s printing rule
# *suggests* the caller's names for the callee's binders and results: the binders are printed `a` and `b` because
# the operands are `a` and `b`, and the callee's result is printed `c` because the equation binds `c`. Every
# other variable continues the one sequence (`d`, `e`, `f`, `g` inside, then `h`, `i` after the call). `cond`,
# `while` and `scan` bodies get no suggestion: their binders simply continue the sequence (lectures 4-6).
# jaxprlens keeps one name per value everywhere.
#
# `inner` 捕获了 `arg`：闭包变成显式操作数，所以调用传入两个值 `a`（`arg`）与 `b`（`arg - 2.`），子 jaxpr 有两个输入。
# `jnp.ones(1)` 在子 jaxpr 内部构造（`broadcast_in_dim`）。
#
# 打印器如何命名：它**不会**在子 jaxpr 中重新开始命名。`jit` 的打印规则让被调函数的绑定变量和结果沿用调用方的名字：
# 因为操作数是 `a`、`b`，绑定变量就打印为 `a`、`b`；因为方程绑定的是 `c`，被调函数的结果也打印为 `c`。其余变量沿同一个
# 序列继续（内部是 `d`、`e`、`f`、`g`，调用之后是 `h`、`i`）。`cond`、`while`、`scan` 的子 jaxpr 不沿用名字，它们的
# 绑定变量直接沿序列继续编号（第 4–6 讲）。jaxprlens 则让同一个值在各处保持同一个名字。
#
# **Weak types again / 再谈弱类型**: `convert_element_type[new_dtype=float32 weak_type=False]` on `a` and `b`
# turns the weakly typed Python scalar `arg` (and `arg - 2.`) into a strong `f32` before it meets the strong
# `f32[1]` from `jnp.ones(1)` (lecture 6).
#
# `a`、`b` 上的 `convert_element_type[new_dtype=float32 weak_type=False]` 把弱类型的 Python 标量 `arg`（以及
# `arg - 2.`）先变成强类型 `f32`，再与 `jnp.ones(1)` 产生的强类型 `f32[1]` 运算（见第 6 讲）。

# %%
import jaxprlens

program = jaxprlens.trace(func12, 1.)
call = program.eqns[1]
sub = call.subs[0]
from jaxprlens.exercise import say

print(say("primitive:", "原语："), call.primitive, "| name:", call.params["name"], say("| sub-jaxpr:", "| 子 jaxpr："), sub.label)
print(say("sub-jaxpr inputs:", "子 jaxpr 的输入："), [f"{v.name}:{v.type}" for v in sub.program.invars],
      say("<- operands", "<- 操作数"), [a.name for a in call.invars])

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.graph.graph"]
# The graph draws the sub-jaxpr as a cluster labelled with the function's name.
#
# 图中子 jaxpr 画成一个以函数名标注的簇。

# %% tags=["needs-feature"]
%%jaxpr --graph
func12(1.)

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
import re
import jax
from jax import make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** In JAX's printout of `outer`, which names will the two binders of `inner`'s
# sub-jaxpr get? Answer with a list of two names.
#
# 在 JAX 打印的 `outer` 中，`inner` 子 jaxpr 的两个绑定变量叫什么名字？用两个名字组成的列表作答。

# %% tags=["exercise-1"]
def outer(x, y):
    z = x * 2.

    @jax.jit
    def inner(u):
        return u + y
    return inner(z)

answer_1 = None  # a list of two str / 两个字符串组成的列表

# %% tags=["check-1"]
printed = make_jaxpr(outer)(1., 2.).pretty_print(use_color=False)
binders = re.search(r"jaxpr=\{ lambda ; (.*?)\. let", printed).group(1)
check(answer_1, [b.split(":")[0] for b in binders.split()],
      "jit's printing rule gives the callee's binders the names of the operands passed to it; read the operands "
      "after the closing ']' of the jit equation.",
      "jit 的打印规则让被调函数的绑定变量沿用传入的操作数的名字；看 jit 方程右方括号之后的操作数。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# a is x, b is y, c is z; the call passes b (the captured y) and c (z), so the binders print as b and c.
# a 是 x，b 是 y，c 是 z；调用传入 b（被捕获的 y）与 c（z），所以绑定变量打印为 b、c。
answer_1 = ["b", "c"]

# %% [markdown]
# **Exercise 2 / 练习 2.** Which operand of the `jit` equation in `outer` comes first: the captured `"y"` or
# the argument `"z"`?
#
# `outer` 中 `jit` 方程的操作数谁在前：被捕获的 `"y"` 还是实参 `"z"`？

# %% tags=["exercise-2"]
answer_2 = None  # "y" or "z" / "y" 或 "z"

# %% tags=["check-2"]
closed_outer = make_jaxpr(outer)(1., 2.)
x_var, y_var = closed_outer.jaxpr.invars
call = closed_outer.jaxpr.eqns[-1]
check(answer_2, "y" if call.invars[0] is y_var else "z",
      "Closed-over values become explicit operands, and they are passed before the function's own arguments.",
      "被闭包捕获的值变成显式操作数，并排在函数自身的实参之前。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = "y"

# %% [markdown]
# **Takeaway / 小结**: a nested `jit` is a call primitive carrying its own sub-jaxpr.
#
# 嵌套的 `jit` 是一个 call 原语，被调函数的子 jaxpr 就在它的参数里。
