# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 19 · Reading a real training step / 第 19 讲 · 读懂一个真实的训练步
#
# Every lecture so far read a small program written for it. This one reads the program people actually run: one
# training step of a flax `nnx` model with an `optax` optimizer, under `jax.jit`. Nothing in it is new; each
# view answers one question the earlier lectures taught you to ask. What does the `jit` hide (lecture 7)? Which
# Python calls made which equations (lecture 15)? What does `grad` keep for the backward pass (lecture 12)? What
# does XLA fuse (lecture 10)? And when a step diverges, which equation made the first NaN (lectures 8 and 16)?
#
# 之前的每一讲读的都是为它专门写的小程序。这一讲读的是人们真正在运行的程序：一个 flax `nnx` 模型配上 `optax` 优化器、
# 在 `jax.jit` 下的一个训练步。这里没有新东西；每个视图回答一个前面各讲教你提出的问题。`jit` 把什么藏起来了（第 7 讲）？
# 哪些 Python 调用产生了哪些方程（第 15 讲）？`grad` 为反向过程保留了什么（第 12 讲）？XLA 融合了什么（第 10 讲）？
# 训练步发散时，第一个 NaN 是哪个方程产生的（第 8、16 讲）？
#
# **Goal.** Read a flax `nnx` + `optax` training step end to end: its body seen through the `jit`, the calls it
# folds into, its residuals (`--memory`), its kernels (`--fusion`), and the first NaN of a diverging step, found
# with the stepper and with the debugger's conditions. **Time:** 70 minutes.
#
# **目标**：从头到尾读懂一个 flax `nnx` + `optax` 训练步：透过 `jit` 看到的函数体、它折叠成的调用、它的残差
# （`--memory`）、它的计算内核（`--fusion`），以及一个发散的训练步中的第一个 NaN：用单步执行器找，也用调试器的条件找。
# **时长**：70 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## The training step / 训练步
#
# A two-layer MLP, Adam, and the step in its functional form: `nnx.split` turns the model and the optimizer into
# one pytree of arrays (`state`) and a static description (`graphdef`); the step merges them back, takes the
# gradient of the loss with `nnx.value_and_grad`, updates the parameters in place with `optimizer.update`, and
# returns the loss and the new state. `jax.jit` compiles the whole step.
#
# 一个两层 MLP、Adam 优化器，以及函数式写法的训练步：`nnx.split` 把模型和优化器变成一个由数组组成的 pytree（`state`）
# 和一个静态描述（`graphdef`）；训练步把它们重新合并，用 `nnx.value_and_grad` 求损失的梯度，用 `optimizer.update`
# 就地更新参数，再返回损失和新的状态。`jax.jit` 编译整个训练步。

# %% tags=["setup"]
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class MLP(nnx.Module):
    def __init__(self, rngs):
        self.hidden = nnx.Linear(4, 16, rngs=rngs)
        self.out = nnx.Linear(16, 3, rngs=rngs)

    def __call__(self, x):
        return self.out(nnx.relu(self.hidden(x)))


def loss_fn(model, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()


def make_step(learning_rate):
    model = MLP(nnx.Rngs(0))
    optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)
    graphdef, state = nnx.split((model, optimizer))

    @jax.jit
    def train_step(state, x, y):
        model, optimizer = nnx.merge(graphdef, state)
        loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    return train_step, state


train_step, state = make_step(1e-2)
x = jax.random.normal(jax.random.key(1), (8, 4))
y = jnp.array([0, 1, 2, 0, 1, 2, 0, 1])

# %% [markdown]
# ## Seen through the `jit` / 透过 `jit` 看
#
# `make_jaxpr` of a jitted function is one `jit` equation (lecture 7). The table shows its body instead, and says
# so in its first line. `state` is one input of 14 arrays, each named by its path in the pytree
# (`state[0]['hidden']['kernel'].value` is the hidden layer's kernel, `state[1]` the optimizer's arrays). The
# source column reads your code through flax and optax: `self.out(nnx.relu(self.hidden(x)))` made the first
# equations, `optax.softmax_cross_entropy_with_integer_labels` the next.
#
# 对 jit 过的函数做 `make_jaxpr`，得到的是一个 `jit` 方程（第 7 讲）。表格改为显示它的函数体，并在第一行说明这一点；每个
# `state` 是一个由 14 个数组组成的输入，每个数组以它在 pytree 中的路径命名（`state[0]['hidden']['kernel'].value` 是
# 隐藏层的权重，`state[1]` 是优化器的数组）。源码列穿过 flax 和 optax 读到你的代码：`self.out(nnx.relu(self.hidden(x)))` 产生了
# 最前面的方程，`optax.softmax_cross_entropy_with_integer_labels` 产生了随后的方程。

# %%
%%jaxpr
train_step(state, x, y)

# %% [markdown]
# ## The calls it folds into / 它折叠成的调用
#
# More than a hundred equations are too many to read flat. Lecture 15's call tree groups them by the Python call
# that made them, and the training step falls into three parts: the forward pass, the backward pass (the
# transposed tangent equations, lecture 12) and the optimizer's update. The update is the largest: Adam touches
# every parameter several times (two moments, their bias correction, the step).
#
# 一百多个方程平铺着读太多了。第 15 讲的调用树按产生它们的 Python 调用把方程分组，训练步分成三部分：前向过程、
# 反向过程（转置后的切向量方程，第 12 讲）和优化器的更新。更新部分最大：Adam 对每个参数都要处理好几次（两个矩、
# 它们的偏差修正、更新步）。

# %%
import jaxprlens
from jaxprlens.exercise import say
from jaxprlens.model.calls import call_tree
from jaxprlens.present.words import group_label

program = jaxprlens.trace(train_step, state, x, y)
print(say(f"{len(program.eqns)} equations", f"{len(program.eqns)} 个方程"))
for call in call_tree(program).root.walk():
    if call.parent is not None and call.depth <= 4:
        print(f"{'  ' * call.depth}{group_label(call)}" + say(f": {len(call.eqns)} eqns", f"：{len(call.eqns)} 个方程"))

# %% [markdown]
# Is the update still the largest part once the equations inside the calls' own `jit`s are counted too? The
# graph answers it: it draws the same tree, with room for only a few nodes as three, the forward pass, the backward
# pass and the update, each a node you can open in a notebook, and counts every equation at every depth (those
# inside `relu`'s and optax's own `jit`s too), so its numbers are larger than the call tree's top-level ones
# (lecture 15). The update stays the largest: 77 of 165 equations. `%%jaxpr --graph --max-nodes 8` draws it with every call drawn ahead of time, so that a click
# opens one without a kernel; to keep this notebook light enough for GitHub's preview, the cell below stores the
# top level alone (`ahead=False`, as in lecture 15).
#
# 把各个调用自己的 `jit` 内部的方程也算上，更新还是最大的部分吗？图回答了这个问题：它画的是同一棵树，只能画少数几个节点时
# 画出三个：前向过程、反向过程和更新，在笔记本里可以点开每个节点；它统计所有深度上的方程（包括 `relu` 和 optax 自己的 `jit`
# 内部的方程），所以它的数字比调用树只算顶层的数字大（第 15 讲）。更新仍然最大：165 个方程中占 77 个。
# `%%jaxpr --graph --max-nodes 8` 画图时会预先画好每个调用，没有内核也能点击展开；为了让本 notebook 足够轻、能在 GitHub 上
# 预览，下面的单元格只保存顶层（`ahead=False`，与第 15 讲相同）。

# %%
folded = program.graph(max_nodes=8, ahead=False)
print(folded.summary())
folded

# %% [markdown]
# ## What grad keeps: `--memory` / grad 保留了什么：`--memory`
#
# The backward pass reads values the forward pass made: the residuals (lecture 12). `--memory` lists them with
# the equation that made each. Here they are what the derivative of each layer needs: the input `x` (for the
# hidden kernel's gradient), the hidden activations after `relu` and the `relu` mask (`bool`, for its
# derivative), the output kernel (to send the cotangent back through the output layer), and what the softmax
# cross-entropy's derivative reads. The parameters and both Adam moments are inputs and results, live from the
# first equation to the last: on a model this small they, not the residuals, set the peak.
#
# 反向过程要读取前向过程产生的值：残差（第 12 讲）。`--memory` 列出这些残差以及产生每个残差的方程。这里它们就是每一层
# 求导所需要的：输入 `x`（用于隐藏层权重的梯度）、`relu` 之后的隐藏层激活值和 `relu` 的掩码（`bool`，用于它的导数）、
# 输出层的权重（把余切传回输出层），以及 softmax 交叉熵的导数要读的值。参数和 Adam 的两个矩既是输入也是结果，从第一个
# 方程一直存活到最后一个：模型这么小，决定峰值的是它们，而不是残差。

# %%
%%jaxpr --memory
train_step(state, x, y)

# %% [markdown]
# ## What XLA fuses: `--fusion` / XLA 融合了什么：`--fusion`
#
# XLA does not run these equations one by one (lecture 10). `--fusion` maps each kernel of the compiled step back
# to the equations it holds: the two products of the forward pass stay kernels of their own, and the many
# elementwise equations of Adam's update collapse into a few loop fusions whose intermediate values never reach
# memory.
#
# XLA 不会逐个运行这些方程（第 10 讲）。`--fusion` 把编译后训练步的每个计算内核对应回它包含的方程：前向过程的两个矩阵乘
# 各自是独立的计算内核，而 Adam 更新中大量的逐元素方程合并成少数几个循环融合，它们的中间值从不写入内存。

# %%
%%jaxpr --fusion
train_step(state, x, y)

# %% [markdown]
# ## The first NaN of a diverging step / 发散的训练步中的第一个 NaN
#
# With a learning rate of `1e38`, the first step runs and returns a finite loss, but Adam moves every weight by
# about `1e38`. The second step returns `nan`. Which equation made it? `break_on_nan=True` runs the second step's
# jaxpr equation by equation and stops right after the first one whose result holds a NaN (lecture 16). The
# hidden layer's product only overflows to `inf`, and `relu` keeps it; the NaN is born in the output layer's
# product, where an `inf` meets weights of both signs and the sum is `inf - inf`.
#
# 学习率为 `1e38` 时，第一步照常运行并返回有限的损失，但 Adam 把每个权重都移动了大约 `1e38`。第二步返回 `nan`。是哪个
# 方程产生的？`break_on_nan=True` 逐个方程地运行第二步的 jaxpr，并在第一个结果中含有 NaN 的方程之后立即停下（第 16 讲）。
# 隐藏层的矩阵乘只是溢出为 `inf`，`relu` 保留了它；NaN 诞生在输出层的矩阵乘里：`inf` 遇到正负号都有的权重，求和得到
# `inf - inf`。

# %%
import numpy as np

diverging_step, bad_state = make_step(1e38)
first_loss, bad_state = diverging_step(bad_state, x, y)
second_loss, _ = diverging_step(bad_state, x, y)
print(say("losses:", "损失："), float(first_loss), float(second_loss))

stepper = jaxprlens.trace(diverging_step, bad_state, x, y).stepper(break_on_nan=True)
stepper.run()
stop = stepper.stop.eqn
print(stepper.stop.kind, stop.id, stop.primitive, [v.name for v in stop.invars], "->", [v.name for v in stop.outvars])
for v in stop.invars:
    value = np.asarray(stepper.env_names[v.name])
    print(v.name, say("inf:", "inf："), bool(np.isinf(value).any()), say("nan:", "nan："), bool(np.isnan(value).any()))

# %% [markdown]
# The same stop in the debugger, where you can also ask where the first `inf` came from. The cell below opens it
# on the second step (`%%jaxpr --debug`, lecture 8): run the cell to step it live, or, in a trusted notebook with
# no kernel, use the run recorded when the cell ran. Tick **stop on NaN** and press **Continue**: it stops after
# equation 6, and the value panel shows the `inf` in `t` and the weights of both signs in `d`. Then untick it, type
# `any Inf` in **stop when a value has**, press **Reset** and **Continue**: it stops after equation 0, the hidden
# layer's product `q`. The step was doomed before it began: the state it received holds weights near `1e38`, and
# their very first product overflows. Exercise 3 finds the equation of the first step that put them there.
#
# 调试器里也能看到同一处停止，还能进一步问：第一个 `inf` 从哪里来？下面的单元格在第二步上打开调试器（`%%jaxpr --debug`，
# 第 8 讲）：运行该单元格即可实时单步执行；在没有内核、但已信任的笔记本里，则可以使用单元格运行时录制的回放。勾选
# **遇到 NaN 时停止**，按**继续**：它停在方程 6 之后，值面板显示 `t` 中的 `inf` 和 `d` 中正负号都有的权重。然后取消勾选，
# 在**当某个值满足时停止**中输入 `any Inf`，按**重置**再按**继续**：它停在方程 0 之后，也就是隐藏层的矩阵乘 `q`。这一步
# 在开始之前就注定失败了：它收到的状态里权重已接近 `1e38`，第一个矩阵乘就溢出了。练习 3 要找出第一步中把权重推到这里的方程。

# %%
%%jaxpr --debug
diverging_step(bad_state, x, y)

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
import numpy as np
from flax import nnx

import jaxprlens
from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** The table counts `state` as 14 arrays, the model's and the optimizer's. How many of
# them are the Adam optimizer's? Count the MLP's parameters first (two `nnx.Linear` layers, each a kernel and a
# bias), then what Adam keeps per parameter, then the counters. Answer with an int.
#
# 表格把 `state` 计为 14 个数组，包括模型的和优化器的。其中有多少个属于 Adam 优化器？先数 MLP 的参数（两个 `nnx.Linear`
# 层，每层一个权重、一个偏置），再数 Adam 为每个参数保存什么，最后数计数器。用整数作答。

# %% tags=["exercise-1"]
answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
_, optimizer_state = nnx.split(nnx.Optimizer(MLP(nnx.Rngs(0)), optax.adam(1e-2), wrt=nnx.Param))
check(answer_1, len(jax.tree_util.tree_leaves(optimizer_state)),
      "Four parameters; Adam keeps two moments of each (mu and nu), eight arrays; and two counters: Adam's own "
      "count of updates and the optimizer's step.",
      "四个参数；Adam 为每个参数保存两个矩（mu 和 nu），共八个数组；再加上两个计数器：Adam 自己的更新计数和优化器的 step。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# mu and nu for hidden.kernel, hidden.bias, out.kernel, out.bias (8), Adam's count, the optimizer's step.
# 两层各自的权重和偏置（4 个参数）各有 mu 与 nu（8 个），再加上 Adam 的计数和优化器的 step。
answer_1 = 10


# %% [markdown]
# **Exercise 2 / 练习 2.** Less damage: with a learning rate of `1e19` instead of `1e38`, each weight moves by
# about `1e19` in the first step, and the hidden layer's products stay finite. The second step still returns
# `nan`. Which primitive makes its first NaN now? Answer with the primitive's name as the jaxpr prints it.
#
# 破坏小一些：学习率用 `1e19` 而不是 `1e38`，第一步中每个权重移动约 `1e19`，隐藏层的矩阵乘保持有限。第二步仍然返回
# `nan`。现在它的第一个 NaN 由哪个原语产生？用 jaxpr 打印的原语名作答。

# %% tags=["exercise-2"]
answer_2 = None  # a str / 一个字符串

# %% tags=["check-2"]
step_19, state_19 = make_step(1e19)
_, state_19 = step_19(state_19, x, y)
nan_finder = jaxprlens.trace(step_19, state_19, x, y).stepper(break_on_nan=True)
nan_finder.run()
check(answer_2, nan_finder.stop.eqn.primitive,
      "The output layer's product now overflows to inf without making a NaN, so the logits are inf. optax's "
      "cross-entropy replaces a max that is not finite (is_finite, select_n), so its log-sum-exp is inf too, and "
      "the first inf - inf is its last line: log_normalizers - label_logits.",
      "输出层的矩阵乘这次溢出为 inf，但没有产生 NaN，所以 logits 是 inf。optax 的交叉熵会替换不是有限值的最大值（is_finite、"
      "select_n），所以它的 log-sum-exp 也是 inf；第一个 inf - inf 出现在它的最后一行：log_normalizers - label_logits。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# log_normalizers - label_logits in optax: inf - inf.
# optax 中的 log_normalizers - label_logits：inf - inf。
answer_2 = "sub"


# %% [markdown]
# **Exercise 3 / 练习 3.** The first step with a learning rate of `1e38` returns a finite loss, and none of its
# values holds a NaN or an Inf, yet it is the step that does the damage. Write a condition in the debugger's grammar
# (`any NaN`, `any Inf`, `max > 1e3`, `min < -1`, `abs max >= 10`) that stops that first step right after the
# equation that does it. Try it on `first_step` below, in the debugger (`%%jaxpr --debug` on
# `fresh_step(fresh_state, x, y)`) or with `stepper.add_condition`. Answer with the condition's text.
#
# 学习率为 `1e38` 时，第一步返回有限的损失，它的值里也没有 NaN 或 Inf，可造成破坏的正是这一步。用调试器的条件语法
# （`any NaN`、`any Inf`、`max > 1e3`、`min < -1`、`abs max >= 10`）写一个条件，让第一步恰好停在造成破坏的那个方程之后。
# 可以在下面的 `first_step` 上试：用调试器（对 `fresh_step(fresh_state, x, y)` 使用 `%%jaxpr --debug`），或者用
# `stepper.add_condition`。用条件的文本作答。

# %% tags=["exercise-3"]
fresh_step, fresh_state = make_step(1e38)
first_step = jaxprlens.trace(fresh_step, fresh_state, x, y)
answer_3 = None  # a str / 一个字符串

# %% tags=["check-3"]
def stop_of(condition):
    finder = first_step.stepper()
    finder.add_condition(condition)
    finder.run()
    return None if finder.stop is None else finder.stop.eqn.id

check(answer_3, stop_of("abs max > 1e30"),
      "The new weights, near 1e38, are still below float32's largest number (about 3.4e38), so nothing in this "
      "step is NaN or Inf: ask for size instead. The first value above 1e30 is where optax multiplies Adam's update (about ±1 per weight) by "
      "the learning rate: step_size * g, a mul by the literal -1e38.",
      "新的权重约为 1e38，仍小于 float32 的最大数（约 3.4e38），所以这一步里既没有 NaN 也没有 Inf：应该按大小来问。第一个超过 1e30 的值出现在"
      "optax 把 Adam 的更新量（每个权重约 ±1）乘以学习率的地方：step_size * g，一个乘以字面量 -1e38 的 mul。",
      compare=lambda answer, truth: stop_of(answer) == truth)

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# It stops after eqn 122, mul -1e38 · Adam's update, made by optax's `step_size * g` (max > 1e30 works too).
# 它停在方程 122 之后：-1e38 乘以 Adam 的更新量，由 optax 的 `step_size * g` 产生（max > 1e30 也行）。
answer_3 = "abs max > 1e30"


# %% [markdown]
# **Takeaway / 小结**: a real training step is read with the same tools as a toy: see through the `jit`, fold the
# equations by the calls that made them, ask `--memory` what the backward pass keeps and `--fusion` what XLA
# merges, and let the stepper find the first NaN instead of guessing; where the NaN is only a consequence, a
# condition on size (`abs max > 1e30`) finds the step that caused it.
#
# 读真实的训练步与读玩具程序用的是同一套工具：透过 `jit` 看函数体，按产生方程的调用折叠它们，用 `--memory` 问反向过程
# 保留了什么，用 `--fusion` 问 XLA 合并了什么，让单步执行器找出第一个 NaN，而不是去猜；当 NaN 只是后果时，按大小设的条件
# （`abs max > 1e30`）能找到造成它的那一步。
