# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 15 · Calls are inlined, and how to get them back / 第 15 讲 · 函数调用被内联，以及如何把它们找回来
#
# Lecture 2 showed that a Python function call leaves no trace in the jaxpr: tracing runs the call and keeps
# only the JAX operations it performed, one flat list of equations. That is why the jaxpr of a real model is
# hard to read. But JAX remembers more than it prints: every equation keeps the Python stack that made it
# (`attention` line 4 ← `block` line 12 ← `model_loss` line 16). jaxprlens uses that stack to fold the flat list
# back into the calls that tracing inlined.
#
# 第 2 讲说过，Python 函数调用不会在 jaxpr 中留下痕迹：trace 时调用照常执行，只留下它做过的 JAX 运算，成为一张扁平的
# 方程列表。这正是真实模型的 jaxpr 难以阅读的原因。但 JAX 记住的比它打印出来的多：每个方程都保存着产生它的 Python
# 调用栈（`attention` 第 4 行 ← `block` 第 12 行 ← `model_loss` 第 16 行）。jaxprlens 利用这个调用栈，把扁平的列表
# 重新折叠成 trace 时被内联的那些调用。
#
# **Goal.** See the calls a jaxpr has lost, fold a program by them, and open one call at a time.
# **Time:** 40 minutes.
#
# **目标**：看到 jaxpr 丢失的函数调用，按调用折叠一个程序，并逐个展开调用。
# **时长**：40 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## Two helpers, one flat list / 两个辅助函数，一张扁平列表
#
# `predict` calls `normalize` and then `dense` twice. The jaxpr has no trace of these three calls: every
# equation stands in one list, in the order tracing performed them. Only the source column still says which
# line of which helper made each equation.
#
# `predict` 先调用 `normalize`，再调用两次 `dense`。jaxpr 里没有这三次调用的痕迹：所有方程按 trace 执行的顺序排成
# 一张列表。只有源码列还能看出每个方程来自哪个辅助函数的哪一行。

# %%
%%jaxpr
import jax
import jax.numpy as jnp
import numpy as np

def normalize(x):
    m = jnp.mean(x)
    return (x - m) / jnp.std(x)

def dense(x, w):
    return jnp.tanh(x @ w)

def predict(w1, w2, x):
    h = dense(normalize(x), w1)
    return dense(h, w2).sum()

w1, w2, x = np.ones((4, 3), "f4"), np.ones((3, 2), "f4"), np.arange(4.0, dtype="f4")
predict(w1, w2, x)

# %% [markdown]
# The graph of the same program draws every equation: it is small enough to read flat.
#
# 同一个程序的图画出了每一个方程：它足够小，可以平铺着读。

# %%
%%jaxpr --graph
predict(w1, w2, x)

# %% [markdown]
# ## Folded by its calls / 按调用折叠
#
# With room for only a few nodes (`--max-nodes 4`), the graph is drawn by the calls that tracing inlined: one
# node per call of `normalize` and `dense`, labelled with the functions they call and their size, and edges
# for the values that cross from one call to the next. The two calls of `dense` come from two different lines:
# they are `dense (call 1 of 2)` and `dense (call 2 of 2)`. In a notebook you can click a call to open it,
# drag to pan and use the wheel to zoom; the breadcrumb above the drawing leads back.
#
# 只给几个节点的空间（`--max-nodes 4`）时，图按 trace 时被内联的调用来画：`normalize` 和 `dense` 的每次调用各是一个
# 节点，标出它调用的函数和大小；边表示从一次调用流到下一次调用的值。两次 `dense` 调用来自不同的行，分别是
# `dense（第 1 次调用，共 2 次）` 和 `dense（第 2 次调用，共 2 次）`。在 notebook 中可以点击一个调用把它展开，
# 拖动来平移，用滚轮缩放；图上方的路径可以带你回去。

# %%
%%jaxpr --graph --max-nodes 4
predict(w1, w2, x)

# %% [markdown]
# `--path` opens one call on its own: its equations, the values that come in (and from which call) and the
# values that leave (and to which call).
#
# `--path` 单独展开一次调用：它的方程、流入的值（以及来自哪次调用）和流出的值（以及去往哪次调用）。

# %%
%%jaxpr --graph --path predict/dense.2
predict(w1, w2, x)

# %% [markdown]
# The same tree is plain data. `call_tree(program)` gives the calls in order, each with its function, its call
# site, its equations and the values that cross its border.
#
# 同一棵树也是普通的数据。`call_tree(program)` 按顺序给出每次调用，以及它的函数、调用位置、方程和跨越边界的值。

# %%
from jaxprlens import trace
from jaxprlens.model.calls import call_tree
from jaxprlens.exercise import say
from jaxprlens.present.words import group_label

program = trace(predict, w1, w2, x)
for call in call_tree(program).root.walk():
    if call.parent is not None:
        ins = " ".join(v.name for v in call.inputs)
        outs = " ".join(v.name for v in call.outputs)
        n = len(call.eqns)
        print(f"{'  ' * call.depth}{group_label(call)}"
              + say(f": {n} eqns, in {ins} -> out {outs}", f"：{n} 个方程，输入 {ins} -> 输出 {outs}"))

# %% [markdown]
# **Three counts, one call / 同一个调用的三种计数.** The views count `normalize` as 5 and as 20 equations, and the
# table's caption says `10 equations (25 in all)`: each counts at a different depth. The call tree counts the
# equations a call made at its own level: `normalize` made 5, and `jnp.std` is one of them, a `jit` equation. The
# folded graph counts every equation inside the call at every depth: those 5 plus the 15 inside `jnp.std`'s `jit`
# (its own `jit`s, `_var` and `_where`, with their bodies), 20 in all. The caption counts the whole program both
# ways: 10 equations at the top level, 25 with every sub-jaxpr's.
#
# **同一个调用的三种计数**：各个视图把 `normalize` 记为 5 个方程或 20 个方程，而表格标题写的是 `10 equations (25 in all)`：
# 它们在不同的深度上计数。调用树统计调用在自己这一层产生的方程：`normalize` 产生了 5 个，`jnp.std` 就是其中之一，是一个 `jit`
# 方程。折叠后的图统计调用内部所有深度上的方程：这 5 个，加上 `jnp.std` 的 `jit` 内部的 15 个（包括它自己的 `jit`，即
# `_var` 和 `_where`，以及它们的函数体），一共 20 个。表格标题对整个程序两种都算：顶层 10 个方程，连同所有子 jaxpr 的一共 25 个。

# %% [markdown]
# ## Forward and backward / 前向与反向
#
# `jax.grad` linearizes `predict`: it traces it with `LinearizeTracer`s (direct linearization, the default
# since JAX 0.7; before 0.7 it used JVP tracers), so each equation of the forward pass comes with the linear
# equations of its tangent, under the name scope `jvp(...)`, a name kept from the JVP days. It then
# *transposes* that linear (tangent) part: what runs backwards is the tangent jaxpr, not `predict`'s own
# equations. The transposed equations carry the same Python stack as the forward ones, inside a
# `transpose(jvp(...))` name scope, so each call appears twice: once forward, once backward, and the backward
# pass meets the calls in reverse order.
#
# `jax.grad` 对 `predict` 做线性化：它用 `LinearizeTracer` trace `predict`（直接线性化，自 JAX 0.7 起为默认；0.7
# 之前用的是 JVP tracer），所以前向的每个方程都伴随着其切向量的线性方程，处在名字作用域 `jvp(...)` 里（这个名字沿用自
# JVP 的时代）。
# 然后它**转置**这个线性（切向量）部分：反向执行的是切向量 jaxpr，而不是 `predict` 自己的方程。转置得到的方程带着与前向
# 相同的 Python 调用栈，只是处在 `transpose(jvp(...))` 名字作用域里，所以每次调用都出现两次：一次前向，一次反向，
# 而且反向过程以相反的顺序遇到这些调用。

# %%
%%jaxpr --graph --max-nodes 12
jax.grad(predict)(w1, w2, x)

# %% [markdown]
# ## At model size / 模型规模
#
# Past 60 equations the graph folds by itself. Here is the gradient of a toy transformer with six blocks
# (layer norm, attention and an MLP in each): more than a thousand equations in one flat list, drawn as the six
# blocks of the forward pass and the six of the backward pass. A table of a program this size shows a row per
# call and opens a call when you click it.
#
# In your notebook, `%%jaxpr --graph` on the last line draws this graph with the blocks drawn ahead of time, so
# a click opens one even without a kernel. That is some 800 kB of pictures; to keep this notebook light enough
# for GitHub's preview, the cell below stores only the top level: `ahead=False` draws no call ahead of time.
#
# 超过 60 个方程时，图会自动折叠。下面是一个有六个 block（每个包含 layer norm、attention 和 MLP）的玩具 transformer 的
# 梯度：一千多个方程排成一张扁平列表，画出来是前向的六个 block 和反向的六个 block。这样规模的程序，表格为每次调用显示
# 一行，点击即可展开。
#
# 在你自己的 notebook 里，对最后一行用 `%%jaxpr --graph` 会画出这张图，并预先画好各个 block，即使没有内核也能点击展开。
# 那样的图片约有 800 kB；为了让本 notebook 足够轻，能在 GitHub 上预览，下面的单元格只保存顶层：`ahead=False` 不预先
# 绘制任何调用。

# %%
def layer_norm(x, g):
    m = jnp.mean(x, -1, keepdims=True)
    v = jnp.mean((x - m) ** 2, -1, keepdims=True)
    return g * (x - m) / jnp.sqrt(v + 1e-5)

def attention(x, p):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    s = jax.nn.softmax(q @ k.T / 4.0)
    return (s @ v) @ p["wo"]

def mlp(x, p):
    return jax.nn.gelu(x @ p["w1"]) @ p["w2"]

def block(x, p):
    x = x + attention(layer_norm(x, p["g1"]), p)
    return x + mlp(layer_norm(x, p["g2"]), p)

def model_loss(params, x):
    for p in params:
        x = block(x, p)
    return jnp.mean(x ** 2)

rng = np.random.RandomState(0)
params = [{k: rng.randn(*s).astype("f4") * 0.1 for k, s in
           [("wq", (16, 16)), ("wk", (16, 16)), ("wv", (16, 16)), ("wo", (16, 16)), ("w1", (16, 32)),
            ("w2", (32, 16)), ("g1", (16,)), ("g2", (16,))]} for _ in range(6)]
big = trace(jax.grad(model_loss), params, np.ones((8, 16), "f4"))
top = big.graph(ahead=False)
print(top.summary())
top

# %% [markdown]
# **Try it / 动手试试.** Predict how many calls of `layer_norm` the backward pass of one block holds, then look
# with `--path model_loss~bwd/block.3~bwd`.
#
# **动手试试**：先预测一个 block 的反向过程中有几次 `layer_norm` 调用，再用 `--path model_loss~bwd/block.3~bwd` 看一看。

# %%
%%jaxpr --graph --path model_loss~bwd/block.3~bwd
jax.grad(model_loss)(params, np.ones((8, 16), "f4"))

# %% [markdown] tags=["needs-feature"] needs=["jaxprlens.engine.cost"]
# ## Where a transformer's cost goes / transformer 的开销花在哪里
#
# `--graph --cost` colours every call and equation by its share of the estimated FLOPs (lecture 10), and says
# the share in its label. At the top level of this program the forward pass holds about 35% and the backward
# pass 65%: reverse mode costs about twice the forward pass. Each forward block is about 6%, each backward one
# about 11%. Open one forward block: the attention's products and the MLP's two products take nearly all of it,
# the layer norms and the softmax almost nothing.
#
# `--graph --cost` 按估算 FLOPs 中所占的份额给每个调用和方程着色（第 10 讲），并在标签里写出份额。在这个程序的顶层，
# 前向约占 35%，反向约占 65%：反向模式的开销约为前向的两倍。每个前向 block 约占 6%，每个反向 block 约占 11%。展开一个
# 前向 block：attention 中的矩阵乘与 MLP 的两次矩阵乘几乎占了全部，layer norm 和 softmax 几乎不占。

# %% tags=["needs-feature"]
%%jaxpr --graph --cost --path model_loss/block.1
jax.grad(model_loss)(params, np.ones((8, 16), "f4"))

# %% [markdown]
# **Limits / 局限.** Tracing does not record where one call ends and the next call of the same function from
# the same line begins (a `for` loop calling `block`). jaxprlens starts a new call when the position inside the
# function goes back to where the current call began, which splits a loop inside a function into several
# calls when that loop is the first thing the function does.
#
# **局限**：trace 不会记录同一行对同一函数的一次调用在哪里结束、下一次调用从哪里开始（例如 `for` 循环里调用 `block`）。
# jaxprlens 在函数内的位置回到本次调用开始处时认为开始了一次新调用；如果函数一开头就是一个循环，这个循环会被拆成几次调用。

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth from the traced program. The folded cell after each check holds a solution; run it, then
# the check again, to see it pass.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都从 trace 得到的程序算出正确结果。
# 每个检查之后折叠的单元格是参考答案；运行它，再运行一次检查，即可看到通过。

# %% tags=["checks"]
import jax
import jax.numpy as jnp
import numpy as np

from jaxprlens import trace
from jaxprlens.model.calls import call_tree
from jaxprlens.exercise import check


# %% [markdown]
# **Exercise 1 / 练习 1.** In the program of `jax.grad(predict)`, how many calls of `dense` does the call tree
# hold? Answer with an int.
#
# 在 `jax.grad(predict)` 的程序里，调用树中有几次 `dense` 调用？用整数作答。

# %% tags=["exercise-1"]
def normalize(x):
    m = jnp.mean(x)
    return (x - m) / jnp.std(x)

def dense(x, w):
    return jnp.tanh(x @ w)

def predict(w1, w2, x):
    h = dense(normalize(x), w1)
    return dense(h, w2).sum()

w1, w2, x = np.ones((4, 3), "f4"), np.ones((3, 2), "f4"), np.arange(4.0, dtype="f4")
answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
tree = call_tree(trace(jax.grad(predict), w1, w2, x))
check(answer_1, sum(g.function == "dense" for g in tree.root.walk()),
      "Each call is traced once forward (with its tangent equations); grad then transposes the linear tangent "
      "equations, and the transposed ones keep the stack of the call that made them, in a transpose scope: "
      "every call appears once more, backward.",
      "每次调用在前向 trace 一次（连同它的切向量方程）；grad 再转置这些线性的切向量方程，转置得到的方程保留着产生它们的"
      "调用栈，只是处在 transpose 作用域里：每次调用都会以反向的形式再出现一次。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# Two calls forward (two lines call dense), the same two backward.
# 前向两次（两行调用了 dense），反向同样两次。
answer_1 = 4


# %% [markdown]
# **Exercise 2 / 练习 2.** `net` calls `layer` four times in a loop. The backward pass of `jax.grad(net)` meets
# these calls in some order: which call (1 to 4) comes first? Answer with an int.
#
# `net` 在循环中调用 `layer` 四次。`jax.grad(net)` 的反向过程以某种顺序遇到这些调用：最先遇到的是第几次调用（1 到 4）？
# 用整数作答。

# %% tags=["exercise-2"]
def norm(x):
    return x / jnp.sqrt(jnp.mean(x * x))

def layer(x, w):
    return norm(jnp.tanh(x @ w))

def net(ws, x):
    for w in ws:
        x = layer(x, w)
    return jnp.sum(x)

ws = [np.full((3, 3), 0.1, "f4")] * 4
answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
tree = call_tree(trace(jax.grad(net), ws, np.ones(3, "f4")))
backward = [g for g in tree.root.walk() if g.function == "layer" and g.phase == "backward"]
check(answer_2, backward[0].call,
      "The backward pass starts from the result and walks the equations in reverse: the last call made is the "
      "first one undone.",
      "反向过程从结果出发，倒着走过方程：最后做的调用最先被反向处理。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = 4

# %% [markdown]
# **Takeaway / 小结**: tracing inlines Python calls into one flat list, but every equation keeps the stack that
# made it. Folding by that stack gives back the calls: a node or a row per call, the values that cross between
# calls, forward and backward apart, one call opened at a time.
#
# trace 把 Python 调用内联成一张扁平列表，但每个方程都保留着产生它的调用栈。按这个调用栈折叠，就能找回这些调用：
# 每次调用一个节点或一行，调用之间流动的值，前向与反向分开，一次展开一个调用。
