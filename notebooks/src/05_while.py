# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 5 · `while`: loops at run time / 第 5 讲 · `while`：运行时的循环
#
# A Python loop is unrolled while tracing. To loop at run time use `lax.while_loop`, or `lax.fori_loop`, a
# helper that builds a `while` when a bound is a runtime value, and a `scan` when both bounds are known while
# tracing (exercise 2). `C` is the type of the loop **carry**.
#
# Python 循环在 trace 时被展开。要在运行时循环，须使用 `lax.while_loop`，或辅助函数 `lax.fori_loop`：上下界中有运行时的值时
# 它生成 `while`，上下界在 trace 时都已知时它生成 `scan`（练习 2）。`C` 是循环**携带值**的类型。
#
# ```
# lax.while_loop(cond_fun: (C -> bool), body_fun: (C -> C), init: C) -> C
# lax.fori_loop(start: int, end: int, body: (int -> C -> C), init: C) -> C
# ```
#
# **Goal.** Account for every operand of a `while` (cond consts, body consts, carry) and step through its
# iterations. **Time:** 35 minutes.
#
# **目标**：说清 `while` 的每个操作数（条件常量、循环体常量、携带值），并单步执行它的迭代。
# **时长**：35 分钟。

# %%
%load_ext jaxprlens

# %%
%%jaxpr
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr

def count_up(x):
    return lax.while_loop(lambda c: c < 10., lambda c: c + 1.5, x)

count_up(0.)

# %% [markdown]
# ## `fori_loop` (`func10`)
#
# `n` is a runtime integer, so the loop cannot be unrolled: `fori_loop` becomes a `while` whose carry is
# `(i, n, x)`.
#
# `n` 是运行时整数，循环无法静态展开：`fori_loop` 变成一个 `while`，其携带值为 `(i, n, x)`。

# %%
%%jaxpr
def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant. / 一个常量。
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

func10(np.ones(16), 5)

# %%
print(make_jaxpr(func10)(np.ones(16), 5).pretty_print(use_color=False))

# %% [markdown]
# `while` takes five operands, `c a 0 b d`:
# - 0 constants for `cond_jaxpr` (`cond_nconsts=0`);
# - 2 constants for `body_jaxpr` (`body_nconsts=2`): `c` (`ones`) and `a` (`arg`), captured by the body;
# - 3 carry values: the counter `0`, the bound `b` (`n`) and `d` (`arg + ones`).
#
# The first two results (counter and bound) are dropped, printed `_`. Inside `body_jaxpr` the two body consts
# are its first binders, `f` and `g`, after the `;`: ordinary inputs, not constvars of the body (the article
# calls them constvars; lecture 3 shows why that is outdated).
#
# `while` 共有 5 个操作数 `c a 0 b d`：`cond_jaxpr` 的常量 0 个（`cond_nconsts=0`）；`body_jaxpr` 的常量 2 个
# （`body_nconsts=2`）：被循环体捕获的 `c`（`ones`）与 `a`（`arg`）；携带值初值 3 个：计数器 `0`、上界 `b`（`n`）
# 与 `d`（`arg + ones`）。前两个结果（计数器与上界）不再使用，打印为 `_`。在 `body_jaxpr` 内部，这两个循环体常量是
# 分号之后的前两个绑定变量 `f`、`g`，是普通输入而不是循环体的 constvars（原文称其为 constvar，第 3 讲说明了为何已过时）。

# %%
import jaxprlens
from jaxprlens.present.i18n import role_summary

program = jaxprlens.trace(func10, np.ones(16), 5)
loop = program.eqns[2]
print(loop.primitive, "|", loop.roles.groups)
print(role_summary(loop.roles, "en"), "|", role_summary(loop.roles, "zh"))

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
# ## Step through it / 单步执行
#
# The stepper runs the equations with real values. `step_into()` on the `while` enters its cond jaxpr, then
# its body, iteration by iteration.
#
# 单步执行器用真实的值执行方程。在 `while` 上 `step_into()` 会进入它的 cond jaxpr，然后逐次进入循环体。

# %% tags=["needs-feature"] needs=["jaxprlens.engine.stepper"]
from jaxprlens import path_text   # where the stepper is, in the notebook's language / 单步执行器停在哪里，用笔记本的语言显示

stepper = program.stepper()
stepper.step()        # c = broadcast_in_dim 1.0 / 执行方程 c = broadcast_in_dim 1.0
stepper.step()        # d = add a c / 执行方程 d = add a c
stepper.step_into()   # enter the while / 进入 while
for _ in range(8):
    stepper.step_into()
print(path_text(stepper))
print({name: np.asarray(val).ravel()[:3] for name, val in stepper.env_names.items()})
stepper.run()
print(stepper.outputs[:3], jax.jit(func10)(np.ones(16), 5)[:3])

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.views.debugger.debugger"]
# The debugger widget does the same with buttons (Step, Step into, Step out, Back, Continue).
#
# 调试器小部件用按钮完成同样的操作（「单步」「进入」「跳出」「后退」「继续」）。

# %% tags=["needs-feature"]
%%jaxpr --debug
func10(np.ones(16), 5)

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
from jax import lax, make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** How many operands will the `while` of `grow` have, and in which groups? Answer with
# a dict `{"cond_consts": ..., "body_consts": ..., "carry": ...}`.
#
# `grow` 中的 `while` 有多少个操作数，分成哪几组？用字典 `{"cond_consts": ..., "body_consts": ..., "carry": ...}`
# 作答。

# %% tags=["exercise-1"]
w = np.array([1., 2., 3.], dtype=np.float32)

def grow(limit, x):
    return lax.while_loop(lambda c: c[0] < limit,
                          lambda c: (c[0] + 1, c[1] * w),
                          (0, x))

answer_1 = None  # a dict of three ints / 含三个整数的字典

# %% tags=["check-1"]
loop = make_jaxpr(grow)(3, jnp.ones(3)).jaxpr.eqns[-1]
cn, bn = loop.params["cond_nconsts"], loop.params["body_nconsts"]
check(answer_1, {"cond_consts": cn, "body_consts": bn, "carry": len(loop.invars) - cn - bn},
      "A value captured by cond_fun is a cond const, one captured by body_fun a body const, and each leaf of "
      "init is one carry.",
      "被 cond_fun 捕获的值是条件常量，被 body_fun 捕获的是循环体常量，init 的每个叶子是一个携带值。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# limit is read by cond_fun, w by body_fun; the carry is the pair (counter, x).
# limit 被 cond_fun 读取，w 被 body_fun 读取；携带值是二元组（计数器，x）。
answer_1 = {"cond_consts": 1, "body_consts": 1, "carry": 2}


# %% [markdown]
# **Exercise 2 / 练习 2.** `fori_loop` with **static** bounds `0, 5`: which loop primitive will the jaxpr
# contain? Answer with its name.
#
# 上下界是**静态**的 `0, 5` 时，`fori_loop` 在 jaxpr 中变成哪个循环原语？用原语名作答。

# %% tags=["exercise-2"]
def five_times(x):
    return lax.fori_loop(0, 5, lambda i, c: c * 2., x)

answer_2 = None  # a str / 一个字符串

# %% tags=["check-2"]
loops = [e.primitive.name for e in make_jaxpr(five_times)(1.).jaxpr.eqns if e.primitive.name in ("while", "scan")]
check(answer_2, loops[0],
      "When the trip count is known while tracing, fori_loop builds a loop of static length (the kind that "
      "reverse-mode can differentiate); only a runtime bound needs while.",
      "迭代次数在 trace 时已知时，fori_loop 生成静态长度的循环（可以反向求导）；只有运行时的上界才需要 while。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = "scan"

# %% [markdown]
# **Takeaway / 小结**: `while` = cond consts + body consts + carry; the trip count is a runtime value.
#
# `while` = 条件常量 + 循环体常量 + 携带值；迭代次数是运行时的值。
