# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 20 · Many devices / 第 20 讲 · 多设备
#
# Every program so far ran on one device. Past one device, the first thing you cannot see is where your program
# talks: XLA's partitioner splits each array over a mesh of devices and inserts all-reduces and all-gathers that no
# line of your code names. This lecture reads a jaxpr on a mesh: where the shardings live in the types, which
# equation made each collective, how to move or remove one, and `shard_map`, where the collectives are equations
# you wrote yourself.
#
# 到目前为止，每个程序都只在一个设备上运行。一旦超过一个设备，你首先看不到的就是程序在哪里通信：XLA 的分区器把每个数组
# 切分到一个设备网格上，并插入你的代码里没有任何一行提到的 `all-reduce` 和 `all-gather`。这一讲读设备网格上的 jaxpr：分片写在
# 类型的哪里，哪个方程产生了哪个集合通信，怎样移动或消除它，以及 `shard_map`：在那里，集合通信是你自己写下的方程。
#
# **Goal.** Read where each value of a jaxpr lives on a mesh (explicit sharding in the types, auto sharding from
# the partitioner), find the equation behind each collective with `%%jaxpr --sharding`, and read `psum` and
# `ppermute` as equations of a `shard_map` body.
# **Time:** 45 minutes.
#
# **目标**：读懂 jaxpr 的每个值在设备网格上的位置（显式分片写在类型里，自动分片由分区器决定），用 `%%jaxpr --sharding`
# 找到每个集合通信背后的方程，并把 `psum` 和 `ppermute` 当作 `shard_map` 函数体中的方程来读。
# **时长**：45 分钟。

# %%
import os

# Eight CPU devices, set before anything imports jax / 八个 CPU 设备，必须在任何代码导入 jax 之前设置
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
%load_ext jaxprlens

# %% [markdown]
# ## Eight devices on any machine / 任何机器上都有八个设备
#
# The cell above gives this notebook eight devices, so that it runs anywhere, on a laptop as on a pod. XLA's flag
# `--xla_force_host_platform_device_count=8` splits the CPU into eight devices; XLA reads it once, when JAX starts
# its backend, so it must be set before anything imports `jax` (`%load_ext jaxprlens` imports it). In a kernel
# that already imported JAX, restart the kernel. The eight devices share one CPU: the programs are real SPMD
# programs, with the same partitioning and the same collectives as on eight accelerators, only not faster.
#
# 上面的单元格给这个 notebook 八个设备，这样它在任何地方都能运行，笔记本电脑上和 TPU pod 上一样。XLA 的选项
# `--xla_force_host_platform_device_count=8` 把 CPU 分成八个设备；XLA 只在 JAX 启动后端时读一次，所以必须在任何代码导入
# `jax` 之前设置（`%load_ext jaxprlens` 会导入它）。如果内核已经导入了 JAX，请重启内核。八个设备共用一个 CPU：程序是真正的
# SPMD 程序，分区方式和集合通信与八个加速器上相同，只是不会更快。

# %%
import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

print(jax.device_count(), jax.devices()[:2])

# %% [markdown]
# ## Shardings in the types / 类型中的分片
#
# A mesh names the devices' axes: `jax.make_mesh((4, 2), ("data", "model"))` arranges the eight devices in a grid
# of 4 × 2. On JAX 0.12 its axes are **Explicit** by default: an array put on it carries its sharding in its type.
# `f32[16@data,8]` is a 16 × 8 array whose first dimension is split over `data`, each device holding 4 rows.
# `make_jaxpr` under `jax.set_mesh(mesh)` prints those types, and the rule of each primitive computes the sharding
# of its result, as it computes the shape: `x @ w1` is split over `data` and `model`.
#
# 设备网格给排列设备的各个轴命名：`jax.make_mesh((4, 2), ("data", "model"))` 把八个设备排成 4 × 2 的设备网格。在 JAX 0.12 中，它的轴默认是
# **Explicit**（显式）的：放到它上面的数组在类型中带着自己的分片。`f32[16@data,8]` 是一个 16 × 8 的数组，第一维切分在 `data`
# 上，每个设备持有 4 行。在 `jax.set_mesh(mesh)` 下，`make_jaxpr` 打印出这些类型；每个原语的规则像计算形状一样计算结果的分片：
# `x @ w1` 切分在 `data` 和 `model` 上。

# %%
mesh = jax.make_mesh((4, 2), ("data", "model"))
print(mesh.axis_types)


def put(array, mesh, *spec):
    return jax.device_put(array, NamedSharding(mesh, P(*spec)))


x = put(jnp.linspace(0, 1, 16 * 8).reshape(16, 8), mesh, "data", None)      # the batch over data / 批次切分在 data 上
w1 = put(jnp.linspace(-1, 1, 8 * 32).reshape(8, 32), mesh, None, "model")   # columns over model / 列切分在 model 上
w2 = put(jnp.linspace(-1, 1, 32 * 32).reshape(32, 32), mesh, "model", None)  # rows over model / 行切分在 model 上
print(jax.typeof(x), jax.typeof(w1), jax.typeof(w2))

with jax.set_mesh(mesh):
    print(jax.make_jaxpr(lambda x, w1: jnp.tanh(x @ w1))(x, w1).pretty_print(use_color=False))

# %% [markdown]
# The second product, `h @ w2`, contracts over the dimension both operands split over `model`: each device can
# only compute a partial sum. In explicit mode JAX refuses to guess where the sum should live and asks you to say
# it. `out_sharding=P("data", None)` says: sum over `model`, keep the batch split over `data`. The jaxpr then
# holds that decision in the type of `f`, `f32[16@data,32]`, and the communication it costs is yours, written in
# the program.
#
# 第二个矩阵乘 `h @ w2` 沿着两个操作数都切分在 `model` 上的那一维缩并：每个设备只能算出部分和。在显式模式下，JAX 拒绝猜测
# 这个和应该放在哪里，而是要你说明。`out_sharding=P("data", None)` 表示：沿 `model` 求和，批次仍切分在 `data` 上。jaxpr 于是
# 在 `f` 的类型 `f32[16@data,32]` 中记下这个决定，它带来的通信是你在程序中写下的。

# %%
def mlp(x, w1, w2):
    return jnp.mean((jnp.tanh(x @ w1) @ w2) ** 2)


def explicit_mlp(x, w1, w2):
    h = jnp.tanh(x @ w1)
    return jnp.mean(jnp.matmul(h, w2, out_sharding=P("data", None)) ** 2)


with jax.set_mesh(mesh):
    try:
        jax.make_jaxpr(mlp)(x, w1, w2)
    except Exception as error:
        print(type(error).__name__, str(error).split(".")[0])
    print(jax.make_jaxpr(explicit_mlp)(x, w1, w2).pretty_print(use_color=False))

# %% [markdown]
# `jax.lax.with_sharding_constraint` does not move data on Explicit axes: there it only asserts that the value
# already has the sharding you name, and fails otherwise, pointing to `jax.sharding.reshard`, which moves it.
#
# 在 Explicit 轴上，`jax.lax.with_sharding_constraint` 不会移动数据：它只断言值已经具有你给出的分片，否则报错，并指向会移动数据的
# `jax.sharding.reshard`。

# %%
with jax.set_mesh(mesh):
    try:
        jax.jit(lambda x: jax.lax.with_sharding_constraint(x, P(None, "data")))(x)
    except Exception as error:
        print(type(error).__name__, str(error).split(".")[0])
    moved = jax.jit(lambda x: jax.sharding.reshard(x, P(None, "data")))(x)
    print(jax.typeof(moved))

# %% [markdown]
# ## Auto axes: the partitioner decides / Auto 轴：由分区器决定
#
# With `axis_types=(AxisType.Auto,) * 2` the types carry no sharding: the arguments are still split, but every
# decision in between is left to XLA's SPMD partitioner, which runs after the jaxpr, on the compiled program.
# Nothing in the jaxpr says where it talks. `%%jaxpr --sharding` compiles the program, reads the partitioned HLO
# and ties each collective back to the equation that made it. The same MLP now compiles without a word from you,
# and the view shows the price: an all-reduce over `model` at equation 2, the second product, which contracts over
# a dimension split over `model` (each device holds a partial sum of the whole `[4,32]` block), and a 4-byte
# all-reduce over `data` at equation 4, the `reduce_sum` of the mean, which sums over the batch split over `data`.
#
# 用 `axis_types=(AxisType.Auto,) * 2` 时，类型中不带分片：实参仍然是切分的，但中间的每个决定都交给 XLA 的 SPMD 分区器；它在
# jaxpr 之后、在编译的程序上运行。jaxpr 中没有任何地方说明程序在哪里通信。`%%jaxpr --sharding` 编译程序，读取分区之后的
# HLO，并把每个集合通信对应回产生它的方程。同一个 MLP 这次不用你说明就能编译，视图则显示出开销：方程 2（第二个矩阵乘）上一个
# 沿 `model` 的 `all-reduce`，因为它沿切分在 `model` 上的维度缩并（每个设备持有整个 `[4,32]` 块的部分和）；方程 4（求均值的
# `reduce_sum`）上一个沿 `data` 的 4 字节 `all-reduce`，因为它对切分在 `data` 上的批次求和。

# %%
auto = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Auto,) * 2)
ax, aw1, aw2 = put(x, auto, "data", None), put(w1, auto, None, "model"), put(w2, auto, "model", None)

# %%
%%jaxpr --sharding
mlp(ax, aw1, aw2)

# %% [markdown]
# ## Moving and removing communication / 移动和消除通信
#
# Each collective has a cause in one equation, so each can be changed there. Return the loss per example
# (`mean(axis=1)`) and the batch never meets: the all-reduce over `data` is gone, the result stays split over
# `data`. Split `w2` by columns instead of rows (`P(None, "model")`) and the second product no longer contracts
# over a split dimension; the partitioner now gathers `tanh`'s result over `model` before it, an all-gather of the
# same 512 bytes at equation 1, and the result stays split over `model`, so the mean sums over `model` too (one more
# 4-byte all-reduce): the communication moved, it did not vanish. `program.sharding()` gives the same reading as
# data.
#
# 每个集合通信都起因于一个方程，所以可以在那里改变它。按样本返回损失（`mean(axis=1)`），批次就不再相遇：沿 `data` 的
# `all-reduce` 消失了，结果仍切分在 `data` 上。把 `w2` 改为按列切分（`P(None, "model")`），第二个矩阵乘就不再沿切分的维度
# 缩并；分区器改为在它之前沿 `model` 收集 `tanh` 的结果，在方程 1 上做一次同样 512 字节的 `all-gather`；结果仍切分在 `model`
# 上，所以求均值时也要沿 `model` 求和（多一个 4 字节的 `all-reduce`）：通信移动了，而没有消失。`program.sharding()` 以数据的形式
# 给出同样的结果。

# %%
import jaxprlens
from jaxprlens.exercise import say


def per_example(x, w1, w2):
    return jnp.mean((jnp.tanh(x @ w1) @ w2) ** 2, axis=1)


by_columns = put(w2, auto, None, "model")
for name, fn, args in [("mlp", mlp, (ax, aw1, aw2)), ("per_example", per_example, (ax, aw1, aw2)),
                       (say("mlp, w2 by columns", "mlp，w2 按列切分"), mlp, (ax, aw1, by_columns))]:
    reading = jaxprlens.trace(fn, *args).sharding()
    print(name + say(":", "："), [(c.kind, c.eqn, c.axes, c.bytes) for c in reading.collectives])

# %% [markdown]
# ## `shard_map`: collectives you write / `shard_map`：你自己写的集合通信
#
# `jax.shard_map` turns the partitioner off inside its body: the body runs once per device, on that device's
# shard, and any talking is an equation you wrote. In the table the body's input is `f32[2]`, one device's slice
# of 16 values over 8 devices; `psum` prints as `psum_invariant` (its result is the same on every device, so its
# type loses the `{V:i}` mark of a value that varies over `i`), `pvary` marks it varying again so that it can be
# added to the `ppermute`'s result, which passes each device's slice to its neighbour on the ring.
#
# `jax.shard_map` 在它的函数体内关闭分区器：函数体在每个设备上对该设备的分片运行一次，任何通信都是你写下的方程。在表格里，
# 函数体的输入是 `f32[2]`，即 16 个值分到 8 个设备上后一个设备的那一片；`psum` 打印为 `psum_invariant`（它的结果在每个设备上
# 都相同，所以类型中没有了表示"沿 `i` 变化"的 `{V:i}` 标记），`pvary` 再把它标为变化的，以便与 `ppermute` 的结果相加；
# `ppermute` 把每个设备的那一片传给环上的下一个设备。

# %%
ring_mesh = jax.make_mesh((8,), ("i",))


def ring(x):
    def per_device(b):
        total = jax.lax.psum(b, "i")
        return jax.lax.ppermute(b, "i", [(j, (j + 1) % 8) for j in range(8)]) + total
    return jax.shard_map(per_device, mesh=ring_mesh, in_specs=P("i"), out_specs=P("i"))(x)


xs = put(jnp.arange(16.0), ring_mesh, "i")

# %%
%%jaxpr
ring(xs)

# %% [markdown]
# `--sharding` finds the two collectives inside the body, named by the body's equations (`0/call/0` is the
# `psum`, an all-reduce; `0/call/1` the `ppermute`, a collective-permute), and `pvary`, which costs nothing, with
# no instruction of its own. Here the collectives are exactly the ones the program names; outside a `shard_map`,
# they are the ones the partitioner chose.
#
# `--sharding` 在函数体内找到两个集合通信，用函数体中的方程命名（`0/call/0` 是 `psum`，一个 `all-reduce`；`0/call/1` 是
# `ppermute`，一个 `collective-permute`）；`pvary` 不花任何开销，没有自己的指令。这里的集合通信恰好就是程序写下的那些；在
# `shard_map` 之外，则是分区器选择的那些。

# %%
%%jaxpr --sharding
ring(xs)

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
from jax.sharding import AxisType, AbstractMesh, NamedSharding, PartitionSpec as P

from jaxprlens.exercise import check

# A mesh of the same shape without devices: types and jaxprs only / 同样形状、不含真实设备的抽象设备网格：只用于类型和 jaxpr
shape_only = AbstractMesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)


def typed(shape, *spec):
    return jax.ShapeDtypeStruct(shape, jnp.float32, sharding=NamedSharding(shape_only, P(*spec)))


# %% [markdown]
# **Exercise 1 / 练习 1.** On the explicit mesh, `x` is `f32[16@data,8]` and `w1` is `f32[8,32@model]`. What
# sharding does the type of `(x @ w1).T` carry? Answer with its `PartitionSpec` as a tuple of axis names, one per
# dimension (`None` for a dimension not split), or as a `P(...)`.
#
# 在显式设备网格上，`x` 是 `f32[16@data,8]`，`w1` 是 `f32[8,32@model]`。`(x @ w1).T` 的类型带着什么分片？用它的 `PartitionSpec`
# 作答：每一维一个轴名组成的元组（没有切分的维度写 `None`），或者写成 `P(...)`。

# %% tags=["exercise-1"]
answer_1 = None  # a tuple of axis names / 轴名组成的元组

# %% tags=["check-1"]
with jax.sharding.use_abstract_mesh(shape_only):
    transposed = jax.make_jaxpr(lambda x, w1: (x @ w1).T)(typed((16, 8), "data", None), typed((8, 32), None, "model"))
answer_1 = tuple(answer_1) if isinstance(answer_1, P) else answer_1  # P("a", "b") is an answer too / P("a", "b") 也算作答
check(answer_1, tuple(transposed.out_avals[0].sharding.spec),
      "The product keeps the batch dimension's data and w1's column dimension's model: f32[16@data,32@model]. "
      "A transpose moves the dimensions, and each carries its mesh axis with it.",
      "矩阵乘保留批次维的 data 和 w1 列维的 model：f32[16@data,32@model]。转置交换维度，每一维带着自己的设备网格轴一起移动。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# x @ w1 is f32[16@data,32@model]; .T swaps the dimensions with their axes: f32[32@model,16@data].
# x @ w1 是 f32[16@data,32@model]；.T 连同轴一起交换维度：f32[32@model,16@data]。
answer_1 = ("model", "data")

# %% [markdown]
# **Exercise 2 / 练习 2.** A `shard_map` over the 4 × 2 mesh takes a `f32[16,32]` array with
# `in_specs=P("data", "model")`. What shape does its body's input have, the block each device holds? Answer with
# a tuple of ints.
#
# 一个在 4 × 2 设备网格上的 `shard_map` 接收 `f32[16,32]` 数组，`in_specs=P("data", "model")`。它函数体的输入，即每个设备持有的块，
# 形状是什么？用整数元组作答。

# %% tags=["exercise-2"]
answer_2 = None  # a tuple of ints, e.g. (2, 5) / 整数元组

# %% tags=["check-2"]
def per_block(block):
    return jax.lax.psum(block, "model")


with jax.sharding.use_abstract_mesh(shape_only):
    mapped = jax.make_jaxpr(jax.shard_map(per_block, in_specs=P("data", "model"), out_specs=P("data", None)))(
        typed((16, 32), "data", "model"))
check(answer_2, mapped.eqns[0].params["jaxpr"].invars[0].aval.shape,
      "Each dimension is divided by the size of the mesh axis it is split over: 16 rows over data (4 devices), "
      "32 columns over model (2 devices).",
      "每一维除以它所切分的设备网格轴的大小：16 行切分在 data 上（4 个设备），32 列切分在 model 上（2 个设备）。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# 16 / 4 rows and 32 / 2 columns.
# 16 / 4 行，32 / 2 列。
answer_2 = (4, 16)

# %% [markdown]
# **Takeaway / 小结**: on a mesh a jaxpr is the same program with a layout for every value. With Explicit axes
# the layout is in the types and you say where a sum lives (`out_sharding`, `reshard`); with Auto axes the
# partitioner decides after the jaxpr, and `--sharding` ties each collective it inserted back to its equation,
# where you can move or remove it. In `shard_map` the collectives are equations.
#
# 在设备网格上，jaxpr 还是同一个程序，只是每个值都有一个布局。用 Explicit 轴时，布局写在类型里，求和的结果放在哪里由你说明（`out_sharding`、
# `reshard`）；用 Auto 轴时，分区器在 jaxpr 之后做决定，`--sharding` 把它插入的每个集合通信对应回产生它的方程，你可以在那里
# 移动或消除它。在 `shard_map` 中，集合通信就是方程。
