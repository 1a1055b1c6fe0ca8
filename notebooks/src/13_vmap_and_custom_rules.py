# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 13 · jvp, vmap and the rules you write / 第 13 讲 · jvp、vmap 与你写的规则
#
# Lecture 12 read reverse mode. This lecture reads the other transformations the same way: `make_jaxpr` of
# `jax.jvp(f)` or `jax.vmap(f)` shows what their rules emitted while tracing. Forward mode adds a tangent to
# every floating-point value that depends on the input, a loop's carry included (a tangent known to be zero stays
# symbolic and costs nothing); batching adds a batch axis and, where a branch depends on
# batched data, turns control flow into data. Last come the rules you write yourself, `jax.custom_jvp` and
# `jax.custom_vjp`, which take the place of the rules of the equations in their bodies.
#
# 第 12 讲读的是反向模式。本讲用同样的方法读其他变换：对 `jax.jvp(f)` 或 `jax.vmap(f)` 做 `make_jaxpr`，就能看到它们
# 的规则在 trace 过程中产生了什么。前向模式给每个依赖输入的浮点值加上一个切向量，循环的携带值也不例外（已知为零的切向量
# 只以符号形式存在，不占任何方程）；批处理加上一个批处理轴，
# 当分支依赖被批处理的数据时，还会把控制流变成数据。最后是你自己写的规则：`jax.custom_jvp` 与 `jax.custom_vjp`，
# 它们取代函数体中各方程自己的规则。
#
# **Goal.** Read the jaxprs of `jvp` and `vmap` (a loop's tangent carry, a batched `cond`), and find a custom
# rule at work in a gradient's jaxpr. **Time:** 35 minutes.
#
# **目标**：读懂 `jvp` 与 `vmap` 的 jaxpr（循环中带切向量的携带值、被批处理的 `cond`），并在梯度的 jaxpr 中找到自定义规则的作用。
# **时长**：35 分钟。

# %%
%load_ext jaxprlens


# %%
import jax
import jax.numpy as jnp
from jax import lax
import jaxprlens

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant. / 一个常量。

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

# %% [markdown]
# ## jvp of a while loop: tangent carries / while 循环的 jvp：携带值带上切向量
#
# Forward mode adds a tangent carry for each floating-point carry whose tangent can be nonzero. A tangent known to
# be zero stays symbolic (JAX's `Zero`: no array, no equation), and the `while` rule finds which carries can get a
# nonzero tangent by running the body's JVP until that set stops growing. The one float carry of `func10` starts
# from `arg + ones`, so it gains a tangent: the `while` now carries the primal and its tangent side by side. The
# integer counter has no tangent.
#
# 前向模式只给切向量可能非零的浮点携带值加上切向量携带值。已知为零的切向量只以符号形式存在（JAX 的 `Zero`：没有数组，也没有
# 方程）；`while` 的规则反复对循环体做 JVP，直到“切向量可能非零的携带值”这个集合不再增大，以此找出哪些携带值需要切向量。`func10`
# 唯一的浮点携带值从 `arg + ones` 开始，所以它得到一个切向量：`while` 现在同时携带原值和它的切向量。整数计数器没有切向量。

# %%
%%jaxpr --transform jvp
def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant. / 一个常量。
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

func10(jnp.ones(16), 5)

# %% [markdown]
# `two` has two float carries; only `a` ever meets the input `x`, `b` only doubles a constant. Its JVP's `while`
# gains one tangent carry, not two: four carries where the original has three.
#
# `two` 有两个浮点携带值；只有 `a` 与输入 `x` 打交道，`b` 只是把一个常量翻倍。它的 JVP 中的 `while` 只多了一个切向量携带值，
# 而不是两个：原程序有三个携带值，JVP 有四个。

# %%
def two(x):
    def body(c):
        i, a, b = c
        return i + 1, a * x, b * 2.
    return lax.while_loop(lambda c: c[0] < 3, body, (0, x, 1.))

def while_carries(closed):
    loop = next(e for e in closed.jaxpr.eqns if e.primitive.name == "while")
    return [str(v.aval) for v in loop.outvars]

print(while_carries(jax.make_jaxpr(two)(2.)))
print(while_carries(jax.make_jaxpr(lambda x, t: jax.jvp(two, (x,), (t,)))(2., 1.)))

# %% [markdown]
# ## vmap: a batched `cond` becomes `select_n` / vmap：批处理后的 `cond` 变成 `select_n`
#
# Under `vmap` the predicate of `func7`'s `cond` is a vector, one entry per batch element, so JAX cannot
# pick one branch: it runs **both** branches and selects elementwise with `select_n`. This happens **only when
# the predicate is batched**. If only the operands are batched and the predicate is the same for the whole batch,
# the `cond` stays a `cond` whose branches work on the whole batch (exercise 1 below). (The view batches each
# mapped argument by stacking two copies.)
#
# 在 `vmap` 下，`func7` 中 `cond` 的谓词是一个向量，每个批元素一个值，JAX 无法只选一个分支：它**两个分支都执行**，
# 再用 `select_n` 逐元素选择。**只有谓词被批处理时**才会这样。如果只有操作数被批处理、谓词对整批相同，`cond` 仍然是
# `cond`，只是分支处理整批数据（见下面的练习 1）。（该视图把每个被映射的实参复制两份堆叠起来作为批。）

# %%
%%jaxpr --transform vmap --in-axes 0 --compare
def func7(arg):
    return lax.cond(arg >= 0.,
                    lambda xtrue: xtrue + 3.,
                    lambda xfalse: xfalse - 3.,
                    arg)

func7(5.)

# %% [markdown]
# `diff` compares two programs equation by equation. Mapping `arr` or mapping `extra` of `func11` (lecture 12's
# scan, defined again above) gives
# different programs: mapping `arr` adds a `transpose` before the scan (the scanned axis must come first),
# while mapping `extra` changes which equations of the scan body carry the batch dimension.
#
# `diff` 逐个方程比较两个程序。对 `func11`（第 12 讲的 scan，上面重新定义了一次）的 `arr` 做映射与对 `extra` 做映射得到的程序不同：映射 `arr`
# 需要在 scan 之前加一次 `transpose`（被扫描的轴必须在最前面），而映射 `extra` 改变了 scan 循环体中
# 哪些方程带有批维度。

# %%
from jaxprlens.views.compiled.diff import diff

p11 = jaxprlens.trace(func11, jnp.ones(16), 5.)
diff(p11.transform("vmap", in_axes="0,None"), p11.transform("vmap", in_axes="None,0"),
     labels=("vmap over arr", "vmap over extra"), context=False)


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
from jax import lax, make_jaxpr

from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** Map `shifted` over `x` only (`in_axes=(None, 0)`): the predicate `p >= 0.` is the
# same for the whole batch. Will the vmapped jaxpr still contain a `cond`? Answer `True` or `False`.
#
# 只对 `x` 做映射（`in_axes=(None, 0)`）：谓词 `p >= 0.` 对整批相同。vmap 之后的 jaxpr 里还有 `cond` 吗？用 `True`
# 或 `False` 作答。

# %% tags=["exercise-1"]
def shifted(p, x):
    return lax.cond(p >= 0., lambda x: x + 3., lambda x: x - 3., x)

answer_1 = None  # True or False / 填 True 或 False

# %% tags=["check-1"]
mapped = make_jaxpr(jax.vmap(shifted, in_axes=(None, 0)))(1., jnp.arange(4.))
check(answer_1, any(e.primitive.name == "cond" for e in mapped.jaxpr.eqns),
      "vmap turns a cond into select_n only when the predicate itself is batched; an unbatched predicate still "
      "picks one branch for the whole batch.",
      "只有谓词本身被批处理时，vmap 才把 cond 变成 select_n；未被批处理的谓词仍为整批选择一个分支。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_1 = True


# %% [markdown]
# **Exercise 2 / 练习 2.** Does the jaxpr of `jax.grad(soft)` contain a `max` equation at its top level (outside
# the `custom_jvp_call`)? Answer with a bool.
#
# `jax.grad(soft)` 的 jaxpr 在顶层（`custom_jvp_call` 之外）有没有 `max` 方程？用布尔值作答。

# %% tags=["exercise-2"]
def soft(x):
    return jnp.sum(jax.nn.relu(x) * x)

answer_2 = None  # a bool / 一个布尔值

# %% tags=["check-2"]
top = [e.primitive.name for e in make_jaxpr(jax.grad(soft))(jnp.ones(3)).jaxpr.eqns]
check(answer_2, "max" in top,
      "relu's custom JVP rule replaces the rules of the equations in its body: the derivative is a gt and a "
      "select_n; the max stays inside custom_jvp_call, which computes the forward value.",
      "relu 的自定义 JVP 规则取代了它函数体中各方程的规则：导数由 gt 和 select_n 给出；max 留在 custom_jvp_call 里面，"
      "只用来计算前向值。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = False


# %% [markdown]
# **Takeaway / 小结**: `jvp` adds a tangent beside every floating-point value that depends on the input, loop
# carries included (a tangent known to be zero stays symbolic); `vmap` adds a
# batch axis, and a `cond` whose predicate is batched becomes data (`select_n`). A `custom_jvp` or `custom_vjp`
# rule replaces the rules of its body's equations, and the gradient's jaxpr shows the rule, not the body.
#
# `jvp` 给每个依赖输入的浮点值配上一个切向量，循环的携带值也不例外（已知为零的切向量只以符号形式存在）；`vmap` 加上一个批处理轴，谓词被批处理的 `cond` 变成数据
# （`select_n`）。`custom_jvp` 或 `custom_vjp` 的规则取代函数体中各方程的规则，梯度的 jaxpr 里看到的是这条规则，
# 而不是函数体。
