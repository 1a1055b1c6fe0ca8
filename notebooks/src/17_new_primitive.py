# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 17 · A primitive of your own / 第 17 讲 · 自己定义一个原语
#
# The article ends by suggesting the next step: define a primitive yourself. A primitive is a name plus a
# set of rules, one per thing JAX may do with it: **evaluate** it (impl), find its result's **type** (abstract
# eval), **compile** it (lowering), **differentiate** it forwards (JVP) and backwards (transpose), and
# **batch** it (vmap). We build `running_sum` (a running total along the last axis) one rule at a time, and
# after each rule we look at what it made possible in jaxprlens's views.
#
# 原文最后建议的下一步是：自己定义一个原语。原语就是一个名字加上一组规则，JAX 可能对它做的每件事各对应一条：
# **求值**（impl）、求结果的**类型**（abstract eval）、**编译**（lowering）、前向**求导**（JVP）与反向求导（转置），
# 以及**批处理**（vmap）。我们逐条规则地构建 `running_sum`（沿最后一维的累计和），每加一条规则，就在 jaxprlens 的
# 各个视图里看看它带来了什么。
#
# **Goal.** Define a primitive with all six rules and read each rule at work in the table, the debugger and
# the grad and vmap views. **Time:** 60 minutes.
#
# **目标**：为一个原语定义全部六条规则，并在表格、调试器以及 grad 和 vmap 视图中看到每条规则的作用。
# **时长**：60 分钟。

# %%
%load_ext jaxprlens

# %% tags=["setup"]
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir
# show_error prints an error's type and first line, not a traceback.
# show_error 只打印错误类型和第一行，不打印回溯信息。
from jaxprlens.exercise import show_error

# %% [markdown]
# ## The primitive and its impl rule / 原语与求值规则
#
# `Primitive("running_sum")` makes the name. The user-facing function only **binds** it: `bind` asks the
# current trace what to do, and with no trace around, the impl rule runs on concrete arrays. Any code may
# serve as impl; here it is `jnp.cumsum`.
#
# `Primitive("running_sum")` 创建这个名字。面向用户的函数只负责 **bind** 它：`bind` 询问当前的 trace 该怎么做；
# 没有任何 trace 时，就在具体数组上运行求值规则。求值规则可以是任何代码，这里用 `jnp.cumsum`。

# %% tags=["setup"]
running_sum_p = Primitive("running_sum")


def running_sum(x):
    """Running total along the last axis: out[..., i] = x[..., 0] + ... + x[..., i]."""
    # The table's explanation of running_sum reads this docstring (below).
    # 下面，表格对 running_sum 的英文解释读的就是这个文档字符串。
    return running_sum_p.bind(x)


def running_sum_impl(x):
    return jnp.cumsum(x, axis=-1)


_ = running_sum_p.def_impl(running_sum_impl)

# %%
x = jnp.arange(1., 5.)
print(running_sum(x))

# %% [markdown]
# ## Abstract evaluation: the result's type / 抽象求值：结果的类型
#
# Tracing never computes values, so `make_jaxpr` needs a rule from input types to output types. Without one
# it fails:
#
# trace 从不计算值，因此 `make_jaxpr` 需要一条从输入类型到输出类型的规则。没有这条规则时它会失败：

# %%
show_error(make_jaxpr(running_sum), x)

# %% tags=["setup"]
_ = running_sum_p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))

# %% [markdown]
# Now it is an equation like any other. The table explains each primitive in one line; for a primitive of
# our own, we give it that line from the function's docstring (and a translation), in the table's own
# registry of explanations, `explain_rules`.
#
# 现在它和其他方程一样了。表格用一行话解释每个原语；对我们自己的原语，我们从函数的 docstring 取出这行话（再配上
# 译文），登记到表格自己的解释表 `explain_rules` 中。

# %% tags=["setup"]
from jaxprlens.model.explain import explain_rules

explain_rules["running_sum"] = (running_sum.__doc__.split(":")[0] + ".", "沿最后一维求累计和。")

# %%
%%jaxpr
def loss(x):
    return jnp.sum(running_sum(x) ** 2)

loss(x)

# %% [markdown]
# ## Lowering: compiling it / lowering：编译它
#
# `jax.jit` turns the jaxpr into StableHLO, one lowering rule per primitive. `mlir.lower_fun` makes one
# from any JAX function: it lowers that function's own jaxpr in place of our equation.
#
# `jax.jit` 把 jaxpr 转换成 StableHLO，每个原语一条 lowering 规则。`mlir.lower_fun` 可以把任意 JAX 函数变成一条
# lowering 规则：它把该函数自己的 jaxpr lower 下去，代替我们的方程。

# %%
show_error(jax.jit(running_sum), x)

# %% tags=["setup"]
mlir.register_lowering(running_sum_p, mlir.lower_fun(running_sum_impl, multiple_results=False))

# %%
print(jax.jit(loss)(x), loss(x))

# %% [markdown]
# ## The debugger steps it / 调试器单步执行它
#
# The stepper runs one equation at a time by binding its primitive, so our impl rule runs at our equation,
# and the values can be compared with `jax.jit`'s.
#
# 单步执行器通过 bind 每个方程的原语来逐个执行方程，所以在我们的方程处运行的正是我们的求值规则，其结果可以与
# `jax.jit` 的结果比较。

# %%
import jaxprlens

stepper = jaxprlens.trace(loss, x).stepper()
stepper.step()
print(stepper.last_eqn.primitive, np.asarray(stepper.last_outputs[0]))
stepper.run()
print(stepper.outputs, jax.jit(loss)(x))

# %% tags=["needs-feature"]
%%jaxpr --debug
loss(x)

# %% [markdown]
# ## The JVP rule: forward derivatives / JVP 规则：前向求导
#
# A running sum is **linear**: the tangent of `running_sum(x)` is `running_sum(t)`. The JVP rule returns the
# primal result and the tangent result; a symbolic zero tangent is made concrete first.
#
# 累计和是**线性**的：`running_sum(x)` 的切向量就是 `running_sum(t)`。JVP 规则返回原值和切向量；
# 符号零切向量先被实体化。

# %% tags=["setup"]
def running_sum_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return running_sum(x), running_sum(ad.instantiate_zeros(t))


ad.primitive_jvps[running_sum_p] = running_sum_jvp

# %%
%%jaxpr --transform jvp
loss(x)

# %% [markdown]
# ## The transpose rule: reverse mode / 转置规则：反向模式
#
# `jax.grad` linearises, then runs the linear part **backwards**: each linear primitive needs a transpose
# rule that maps the cotangent of its output to the cotangent of its input. Without it:
#
# `jax.grad` 先线性化，再把线性部分**倒过来**运行：每个线性原语都需要一条转置规则，把输出的余切映射为输入的余切。
# 没有这条规则时：

# %%
show_error(jax.grad(loss), x)

# %% [markdown]
# The output `i` sums inputs `0..i`, so input `j` reaches outputs `j..n-1`: the transpose is the running sum
# taken from the other end, `rev`, `running_sum`, `rev`.
#
# 输出 `i` 是输入 `0..i` 的和，所以输入 `j` 会影响输出 `j..n-1`：转置就是从另一端求累计和，即 `rev`、
# `running_sum`、`rev`。

# %% tags=["setup"]
def running_sum_transpose(ct, x):
    assert ad.is_undefined_primal(x)  # x is the linear input / x 是线性输入
    ct = ad.instantiate_zeros(ct)
    last = (ct.ndim - 1,)
    return [lax.rev(running_sum(lax.rev(ct, last)), last)]


ad.primitive_transposes[running_sum_p] = running_sum_transpose

# %%
%%jaxpr --transform grad
loss(x)

# %%
print(jax.grad(loss)(x), jax.grad(lambda x: jnp.sum(jnp.cumsum(x) ** 2))(x))

# %% [markdown]
# ## The batching rule: vmap / 批处理规则：vmap
#
# `vmap` hands the rule the operand with its batch axis `d`. The running sum works on the last axis, so any
# other axis may carry the batch: moving it to the front is enough, and the result's batch axis is `0`.
#
# `vmap` 把带有批处理轴 `d` 的操作数交给规则。累计和作用在最后一维上，所以批处理轴可以是其他任何一维：把它移到最前面
# 就够了，结果的批处理轴是 `0`。

# %% tags=["setup"]
def running_sum_batch(args, dims):
    (x,), (d,) = args, dims
    return running_sum(jnp.moveaxis(x, d, 0)), 0


batching.primitive_batchers[running_sum_p] = running_sum_batch

# %% [markdown]
# Mapped over axis 1 of an `f32[4,2]`, the rule's `moveaxis` shows up as a `transpose` equation in front of
# `running_sum`:
#
# 在 `f32[4,2]` 的第 1 维上做映射时，规则中的 `moveaxis` 表现为 `running_sum` 之前的一个 `transpose` 方程：

# %%
%%jaxpr --transform vmap --in-axes 1 --batched
running_sum(jnp.ones((4, 2)))

# %% tags=["needs-feature"]
%%jaxpr --graph --transform grad
loss(x)

# %% [markdown]
# ## Your turn: a rule of your own / 轮到你了：自己写一条规则
#
# `smooth_abs(x) = sqrt(x² + 1)` is a second primitive, with impl, abstract eval and lowering already given.
# It is not linear, so its JVP rule must multiply the tangent by the derivative at `x`. The check runs
# `jax.test_util.check_grads`, which compares your rule's forward and reverse derivatives with finite
# differences; reverse mode works without a transpose rule of yours, because your tangent is built from
# `mul` and `div`, which JAX already knows how to transpose.
#
# `smooth_abs(x) = sqrt(x² + 1)` 是第二个原语，求值、抽象求值和 lowering 都已给出。它不是线性的，所以它的 JVP 规则
# 必须把切向量乘上 `x` 处的导数。检查用 `jax.test_util.check_grads` 把你的规则给出的前向与反向导数和有限差分比较；
# 反向模式不需要你写转置规则，因为你的切向量由 `mul` 和 `div` 构成，JAX 已经知道如何转置它们。

# %% tags=["setup"]
from jax.test_util import check_grads
from jaxprlens.exercise import fail, passed, pending

smooth_abs_p = Primitive("smooth_abs")


def smooth_abs(x):
    # sqrt(x**2 + 1): like abs, but smooth at 0.
    # sqrt(x**2 + 1)：与 abs 相似，但在 0 处光滑。
    return smooth_abs_p.bind(x)


def smooth_abs_impl(x):
    return jnp.sqrt(x * x + 1.)


_ = smooth_abs_p.def_impl(smooth_abs_impl)
_ = smooth_abs_p.def_abstract_eval(lambda x: jax.core.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(smooth_abs_p, mlir.lower_fun(smooth_abs_impl, multiple_results=False))


def check_jvp_rule(rule):
    # Register `rule` as smooth_abs's JVP rule and compare its derivatives with finite differences.
    # 把 `rule` 注册为 smooth_abs 的 JVP 规则，并把它给出的导数与有限差分比较。
    ad.primitive_jvps[smooth_abs_p] = rule
    points = jnp.array([-2., -0.5, 0.3, 1.5])
    try:
        check_grads(lambda x: jnp.sum(smooth_abs(x) * x), (points,), order=1, modes=("fwd", "rev"),
                    eps=1e-2, atol=1e-2, rtol=1e-2)     # float32: a coarser step / float32：步长放大一些
    except NotImplementedError:
        pending("write smooth_abs_jvp", "写好 smooth_abs_jvp")
    except AssertionError:
        fail("your rule's derivative differs from the finite differences.",
             "你的规则给出的导数与有限差分不符。",
             "d/dx sqrt(x² + 1) = x / sqrt(x² + 1): multiply the tangent by that.",
             "d/dx sqrt(x² + 1) = x / sqrt(x² + 1)：把切向量乘上它。")
    except Exception as e:  # the student's code / 学生的代码
        fail(f"the rule raised {type(e).__name__}: {e}.", f"规则出错（{type(e).__name__}：{e}）。",
             "Return a pair: the primal result and the tangent result.", "返回一对值：原值与切向量。")
    else:
        passed()

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth from JAX itself. The folded cell after each check holds a solution.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都用 JAX 本身算出正确结果。
# 每个检查之后折叠的单元格是参考答案。

# %% tags=["checks"]
from jaxprlens.exercise import check

# %% [markdown]
# **Exercise 1 / 练习 1.** How many `running_sum` equations does the jaxpr of `jax.grad(loss)` have?
#
# `jax.grad(loss)` 的 jaxpr 中有几个 `running_sum` 方程？

# %% tags=["exercise-1"]
def loss(x):
    return jnp.sum(running_sum(x) ** 2)

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
grad_eqns = make_jaxpr(jax.grad(loss))(jnp.arange(1., 5.)).jaxpr.eqns
check(answer_1, sum(e.primitive is running_sum_p for e in grad_eqns),
      "The JVP rule binds running_sum twice, for the primal and for the tangent; grad keeps the primal one and "
      "transposes the tangent one, and the transpose rule binds running_sum again.",
      "JVP 规则 bind 了两次 running_sum：一次算原值，一次算切向量；grad 保留前者并转置后者，而转置规则会再 bind 一次 "
      "running_sum。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# One in the forward pass (the primal) and one in the transposed tangent, between two rev equations.
# 前向过程一个（原值），转置后的切向量中一个（夹在两个 rev 方程之间）。
answer_1 = 2

# %% [markdown]
# **Exercise 2 / 练习 2.** In the jaxpr of `jax.vmap(running_sum, in_axes=1)` on an `f32[3,5]`, what is the
# shape of the operand of `running_sum`? Answer with a tuple of ints.
#
# 对 `f32[3,5]` 求 `jax.vmap(running_sum, in_axes=1)` 的 jaxpr，其中 `running_sum` 的操作数形状是什么？用整数元组
# 作答。

# %% tags=["exercise-2"]
xs = jnp.ones((3, 5))

answer_2 = None  # a tuple of ints, e.g. (2, 7) / 整数元组，例如 (2, 7)

# %% tags=["check-2"]
mapped_eqns = make_jaxpr(jax.vmap(running_sum, in_axes=1))(xs).jaxpr.eqns
operand = next(e for e in mapped_eqns if e.primitive is running_sum_p).invars[0]
check(answer_2, tuple(operand.aval.shape),
      "The batching rule moves the batch axis (axis 1, of size 5) to the front before binding running_sum.",
      "批处理规则在 bind running_sum 之前，把批处理轴（第 1 维，大小为 5）移到最前面。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# The batch axis (size 5) moves to the front: f32[5,3]; each example's running sum runs along its 3 values.
# 批处理轴（大小 5）被移到最前面：f32[5,3]；每个样本沿自己的 3 个值求累计和。
answer_2 = (5, 3)

# %% [markdown]
# **Exercise 3 / 练习 3.** What does the transpose rule give for a cotangent of ones? Predict
# `jax.vjp(running_sum, x)[1](jnp.ones(4))[0]` for `x = jnp.arange(1., 5.)`, as a list of floats.
#
# 余切全为 1 时，转置规则给出什么？对 `x = jnp.arange(1., 5.)`，预测 `jax.vjp(running_sum, x)[1](jnp.ones(4))[0]`，
# 用浮点数列表作答。

# %% tags=["exercise-3"]
answer_3 = None  # a list of floats / 浮点数列表

# %% tags=["check-3"]
_, pull_back = jax.vjp(running_sum, jnp.arange(1., 5.))
check(answer_3, np.asarray(pull_back(jnp.ones(4))[0]).tolist(),
      "Input j appears in outputs j, j+1, ..., n-1, so its cotangent sums those outputs' cotangents.",
      "输入 j 出现在输出 j、j+1、……、n-1 中，所以它的余切是这些输出的余切之和。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# The running sum from the other end: 4, 3, 2, 1 (it does not depend on x: the primitive is linear).
# 从另一端求累计和：4、3、2、1（与 x 无关：这个原语是线性的）。
answer_3 = [4.0, 3.0, 2.0, 1.0]

# %% [markdown]
# **Exercise 4 / 练习 4.** Write `smooth_abs_jvp(primals, tangents)`: return `smooth_abs(x)` and the tangent of
# the result. Make a symbolic zero tangent concrete first, as `running_sum_jvp` does.
#
# 写出 `smooth_abs_jvp(primals, tangents)`：返回 `smooth_abs(x)` 以及结果的切向量。像 `running_sum_jvp` 那样，先把
# 符号零切向量实体化。

# %% tags=["exercise-4"]
def smooth_abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    raise NotImplementedError  # your turn / 轮到你了

# %% tags=["check-4"]
check_jvp_rule(smooth_abs_jvp)

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
def smooth_abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    y = smooth_abs(x)
    return y, ad.instantiate_zeros(t) * (x / y)

# %% [markdown]
# **Takeaway / 小结**: a primitive is a name plus rules: impl, abstract eval, lowering, JVP, transpose and
# batching. Every view of jaxprlens reads the same equation, so each rule shows up where it acts: a row in
# the table, a step in the debugger, new equations in the grad and vmap views.
#
# 原语 = 名字 + 规则：求值、抽象求值、lowering、JVP、转置与批处理。jaxprlens 的每个视图读的是同一个方程，因此每条规则
# 都在它起作用的地方现身：表格中的一行、调试器中的一步、grad 与 vmap 视图中新出现的方程。
