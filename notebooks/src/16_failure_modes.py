# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 16 · When tracing goes wrong / 第 16 讲 · trace 出错的时候
#
# Every error in this lecture comes from one fact: while JAX traces, your Python code runs **once**, on
# *tracers* that know a shape and a dtype but not a value. Python decides `if`, `for`, `range` and `print`
# at that moment; the jaxpr only keeps what JAX primitives did. Read each error as "Python wanted a value the
# tracer does not have", and the fix follows: make the value static, or let a JAX primitive decide at run time.
#
# 本讲的每个错误都源于同一个事实：JAX 做 trace 时，你的 Python 代码只运行**一次**，运行在只知道形状和 dtype、
# 却不知道值的 *tracer* 上。Python 的 `if`、`for`、`range` 和 `print` 都在这一刻求值；jaxpr 只保留 JAX 原语做过的事。
# 把每个错误读作“Python 需要一个 tracer 没有的值”，修复方法随之而来：让这个值成为静态值，或者让一个 JAX 原语在运行时
# 做决定。
#
# **Goal.** Recognise the tracing errors and surprises that every JAX user meets, read them in the jaxpr,
# and fix each one; make a compiled program report its own errors with `checkify`. **Time:** 65 minutes.
#
# **目标**：认出每个 JAX 用户都会遇到的 trace 错误与意外，在 jaxpr 中看清它们，并逐一修复；用 `checkify`
# 让编译好的程序自己报告错误。**时长**：65 分钟。
#
# Cells below that are meant to fail catch the error and print its type and first line, so the notebook
# still runs from top to bottom.
#
# 下面那些注定失败的单元格会捕获错误，只打印错误类型和第一行，因此整个 notebook 仍能从头运行到尾。

# %%
%load_ext jaxprlens

# %%
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax, make_jaxpr
# show_error prints an error's type and first line, not a traceback.
# show_error 只打印错误类型和第一行，不打印回溯信息。
from jaxprlens.exercise import show_error

# %% [markdown]
# ## `if` on a tracer: `TracerBoolConversionError` / 对 tracer 使用 `if`：`TracerBoolConversionError`
#
# `if x > 0` asks Python for a `bool`. Under `jit`, `x > 0` is a traced `bool[]` with no value yet.
#
# `if x > 0` 需要 Python 给出一个 `bool`。在 `jit` 之下，`x > 0` 是一个还没有值的被 trace 的 `bool[]`。

# %%
def relu_if(x):
    if x > 0:
        return x
    return 0. * x

show_error(jax.jit(relu_if), 1.)

# %% [markdown]
# The `%%jaxpr` magic traces too, so it meets the same error; it answers with a message that names the fixes
# instead of a traceback. (The cell is tagged `raises-exception`, Jupyter's mark for a cell that is meant to
# fail, so "Run All" goes on past it.)
#
# `%%jaxpr` 魔法同样要做 trace，所以会遇到同一个错误；它不给出回溯信息，而是给出一条说明修复方法的消息。
# （该单元格带有 `raises-exception` 标签，这是 Jupyter 用来标记“注定失败”的单元格的方式，“全部运行”会越过它继续执行。）

# %% tags=["raises-exception"]
%%jaxpr
relu_if(1.)

# %% [markdown]
# Two fixes. If the decision depends on the **value**, let a primitive take it at run time: `lax.cond` runs one
# branch (lecture 4), `jnp.where` computes both and selects. If it depends on something known before the
# call (a flag, a mode), make that argument **static**: it is then a Python value while tracing, and each
# value gets its own trace.
#
# 两种修复。如果判断取决于**值**，就让一个原语在运行时做决定：`lax.cond` 只执行一个分支（第 4 讲），`jnp.where`
# 把两边都算出来再选择。如果判断取决于调用之前就已知的东西（一个开关、一种模式），就把这个实参设为**静态实参**：
# trace 时它是普通的 Python 值，每个不同的值各 trace 一次。

# %%
%%jaxpr
def relu_cond(x):
    return lax.cond(x > 0, lambda x: x, lambda x: 0. * x, x)

relu_cond(1.)

# %% [markdown]
# ## A traced value as a shape: `ConcretizationTypeError` / 把被 trace 的值当作形状：`ConcretizationTypeError`
#
# A shape must be known while tracing: every variable of a jaxpr has a type such as `f32[3]`. `jnp.arange(n)`
# with a traced `n` has no type to give its result.
#
# 形状必须在 trace 时就已知：jaxpr 中每个变量都有 `f32[3]` 这样的类型。`n` 被 trace 时，`jnp.arange(n)`
# 无法为结果给出类型。

# %%
def ramp(n):
    return jnp.arange(n) * 2

show_error(jax.jit(ramp), 3)

# %% [markdown]
# `static_argnums` makes `n` a Python int while tracing. In the jaxpr it is gone as an input: `3` was
# baked into the types, and calling with `n=4` traces again.
#
# `static_argnums` 让 `n` 在 trace 时是一个 Python 整数。在 jaxpr 里它不再是输入：`3` 被写进了类型，
# 用 `n=4` 调用时会重新 trace。

# %%
%%jaxpr --static-argnums 0
ramp(3)

# %% [markdown]
# ## Python loops are unrolled; `fori_loop` is a loop / Python 循环被展开；`fori_loop` 才是循环
#
# A Python `for` runs while tracing, so the jaxpr holds one copy of the body per iteration: fine for four,
# slow to compile for ten thousand. `lax.fori_loop` records the body once. With bounds known while tracing
# it builds a `scan` of static length (which reverse mode can differentiate); with traced bounds it builds a
# `while`.
#
# Python 的 `for` 在 trace 时执行，因此 jaxpr 中每次迭代都有一份循环体的副本：四次没问题，一万次就会编译得很慢。
# `lax.fori_loop` 只记录一次循环体。上下界在 trace 时已知时，它生成静态长度的 `scan`（可以做反向求导）；
# 上下界被 trace 时，它生成 `while`。

# %%
%%jaxpr
def doubled_python(x):
    for _ in range(4):
        x = x * 2.
    return x

doubled_python(1.)

# %%
%%jaxpr
def doubled_fori(x):
    return lax.fori_loop(0, 4, lambda i, c: c * 2., x)

doubled_fori(1.)

# %%
def doubled_n(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * 2., x)

print([e.primitive.name for e in make_jaxpr(doubled_n)(1., 4).jaxpr.eqns])

# %% [markdown]
# ## Both branches of `cond` are traced / `cond` 的两个分支都会被 trace
#
# `lax.cond` must put **both** branches in the jaxpr, so both Python functions run while tracing, whatever
# the predicate will be. A `print` in each shows it; at run time only one branch executes, and `print` does
# not run at all.
#
# `lax.cond` 必须把**两个**分支都放进 jaxpr，所以不论谓词将来是什么，两个 Python 函数在 trace 时都会执行。
# 在每个分支里放一个 `print` 就能看出来；运行时只执行一个分支，而 `print` 根本不会执行。

# %%
from jaxprlens.exercise import say

def noisy(x):
    def yes(x):
        print(say("trace: yes", "trace 了 yes"))
        return x + 1.
    def no(x):
        print(say("trace: no", "trace 了 no"))
        return x - 1.
    return lax.cond(x > 0, yes, no, x)

noisy_jit = jax.jit(noisy)
print(noisy_jit(1.))
print(noisy_jit(-1.))

# %% [markdown]
# ## `print` versus `jax.debug.print` / `print` 与 `jax.debug.print`
#
# `print` is Python: it runs once, while tracing, and sees a tracer. `jax.debug.print` is a primitive: it
# becomes an equation with an effect, and prints the **value** every time the compiled function runs.
#
# `print` 属于 Python：它只在 trace 时执行一次，看到的是 tracer。`jax.debug.print` 是一个原语：它成为一个带副作用的
# 方程，编译后的函数每运行一次，它就打印一次**值**。

# %%
fmt = say("jax.debug.print sees {}", "jax.debug.print 看到 {}")   # the format string, a param of the equation / 格式串，方程的一个参数

def watched(x):
    print(say("print sees a tracer of type", "print 看到的是 tracer，类型为"), jax.typeof(x))
    jax.debug.print(fmt, x)
    return x * 2.

watched_jit = jax.jit(watched)
watched_jit(1.)
watched_jit(2.)
jax.effects_barrier()

# %%
%%jaxpr
watched(1.)

# %% [markdown]
# ## Reverse mode through `while_loop` / 对 `while_loop` 做反向求导
#
# `jax.grad` transposes the loop it linearised, which needs the number of iterations before running them
# backwards. A `while` with a runtime test has no such number, so reverse mode refuses it; forward mode
# (`jax.jvp`) works.
#
# `jax.grad` 要对线性化后的循环做转置，而倒着运行之前必须知道迭代次数。运行时才判断是否结束的 `while` 没有这个
# 次数，因此反向模式拒绝它；前向模式（`jax.jvp`）则可以。

# %%
def grow(x):
    return lax.while_loop(lambda c: c < 10., lambda c: c * 2., x)

show_error(jax.grad(grow), 1.)
print(jax.jvp(grow, (1.,), (1.,)))

# %% [markdown]
# The fixes: bound the loop (`fori_loop` with static bounds, or `scan`), or keep forward mode. The grad of a
# static-length loop is two scans, forward and transposed (lecture 12):
#
# 修复方法：给循环一个固定次数（静态上下界的 `fori_loop`，或 `scan`），或者坚持用前向模式。静态长度循环的梯度是两个
# `scan`：前向一个，转置一个（第 12 讲）：

# %%
%%jaxpr --transform grad
doubled_fori(1.)

# %% [markdown]
# ## Finding a NaN: `jax_debug_nans` and the debugger / 找出 NaN：`jax_debug_nans` 与调试器
#
# Inside `jit` a NaN is just a value. With `jax_debug_nans` on, JAX checks every output; on a NaN it re-runs
# the function de-optimised, primitive by primitive, and raises `FloatingPointError` at the first one.
#
# 在 `jit` 之内，NaN 只是一个普通的值。打开 `jax_debug_nans` 后，JAX 会检查每个输出；一旦出现 NaN，它就以去优化的
# 方式逐个原语重新运行函数，并在第一个产生 NaN 的原语处抛出 `FloatingPointError`。

# %%
def risky(x):
    return jnp.log(x - 1.) * 2.

with jax.debug_nans(True):
    show_error(jax.jit(risky), jnp.array([2., 0.5]))

# %% [markdown]
# The stepper answers the same question without the config and without an exception: `break_on_nan=True`
# stops right after the first equation that produced a NaN (lecture 8), and `stop` says why and where. The
# debugger widget (`%%jaxpr --debug`, lecture 8) shows the same stop with the equation's inputs and outputs;
# lecture 19 uses it on a training step.
#
# 单步执行器不需要这个配置、也不抛异常就能回答同样的问题：`break_on_nan=True` 会在第一个产生 NaN 的方程之后立即停下
# （第 8 讲），`stop` 说明停下的原因和位置。调试器小部件（`%%jaxpr --debug`，第 8 讲）显示的是同一处停止，并给出该方程的
# 输入和输出；第 19 讲会在一个训练步上使用它。

# %%
import jaxprlens

stepper = jaxprlens.trace(risky, jnp.array([2., 0.5])).stepper(break_on_nan=True)
stepper.run()
print(stepper.stop.kind, stepper.stop.eqn.id, stepper.stop.eqn.primitive)  # why it stopped, where / 为何停下、停在哪里

# %% [markdown]
# ## Leaked tracers: `UnexpectedTracerError` / 泄漏的 tracer：`UnexpectedTracerError`
#
# A tracer belongs to one trace. If your function stores it somewhere that outlives the trace (a global list,
# an attribute of an object), the tracer **leaks**: once `jit` has finished tracing, it stands for a value of
# a program that is no longer being built (lecture 11 builds the same check). Using it raises
# `UnexpectedTracerError`; `jax.checking_leaks()` reports the leak where it happens, at the end of the trace.
#
# tracer 属于某一个 trace。如果函数把它存到比 trace 活得更久的地方（全局列表、某个对象的属性），tracer 就**泄漏**了：
# `jit` 完成 trace 之后，它代表的是一个已不再构造的程序中的值（第 11 讲实现了同样的检查）。使用它会抛出
# `UnexpectedTracerError`；`jax.checking_leaks()` 则在泄漏发生处、也就是 trace 结束时报告它。

# %%
saved = []

def remember(x):
    saved.append(x)         # a side effect: the tracer outlives the trace / 副作用：tracer 比 trace 活得更久
    return x * 2.

jax.jit(remember)(1.)
print(type(saved[0]).__name__)
show_error(lambda: saved[0] + 1.)
with jax.checking_leaks():
    show_error(jax.jit(lambda x: remember(x)), 1.)   # a fresh jit: it traces again / 新的 jit：会重新 trace

# %% [markdown]
# The fix: return what you need instead of storing it, or store concrete values outside the transformed
# function.
#
# 修复方法：把需要的东西作为返回值，而不是存起来；或者在被变换的函数之外保存具体的值。

# %% [markdown]
# ## Retracing and recompilation / 重新 trace 与重新编译
#
# `jit` keeps one compiled program per **input type** (shape, dtype, weak type) and per value of each static
# argument. A new shape, a new dtype or a new static value means a new trace and a new compilation; a new
# value of a traced argument does not. The Python body runs once per trace, so a list it appends to counts
# them. (`jax.config.update("jax_log_compiles", True)` logs each compilation, and `jax_explain_cache_misses`
# says why the cache missed.)
#
# `jit` 为每种**输入类型**（形状、dtype、弱类型）以及每个静态实参的每个值保存一个编译好的程序。新的形状、新的 dtype 或
# 新的静态值都意味着重新 trace、重新编译；被 trace 的实参取新值则不会。Python 函数体每 trace 一次就运行一次，所以它追加
# 的列表可以计数。（`jax.config.update("jax_log_compiles", True)` 会记录每次编译，`jax_explain_cache_misses` 会说明
# 缓存为何未命中。）

# %%
traces = []

def scaled_sum(x, n):
    traces.append((x.shape, str(x.dtype), n))
    return jnp.sum(x) * n

fast = jax.jit(scaled_sum, static_argnums=1)
for x, n in [(jnp.ones(3), 2), (jnp.zeros(3), 2), (jnp.ones(4), 2), (jnp.ones(3), 3), (jnp.ones(3, jnp.int32), 2)]:
    fast(x, n)
print(len(traces), traces)

# %% [markdown]
# Five calls, four traces: only `jnp.zeros(3)` reused a program. In a training loop, a batch whose last size
# differs, or a Python number passed where an array was before, silently compiles again.
#
# 五次调用，四次 trace：只有 `jnp.zeros(3)` 复用了已有的程序。在训练循环中，大小不同的最后一个批次，或者原来传数组、
# 现在传 Python 数，都会悄无声息地再编译一次。

# %% [markdown]
# ## Global state is frozen at trace time / 全局状态在 trace 时被冻结
#
# A global Python number read by the function is a **literal** of the jaxpr, and a global array is a
# **constvar** (lecture 3): both are copied into the program when it is traced. Changing the global later does
# not change the compiled function, until something makes it trace again.
#
# 函数读取的全局 Python 数是 jaxpr 中的**字面量**，全局数组则是 **constvar**（第 3 讲）：两者都在 trace 时被复制进程序。
# 之后再修改这个全局变量，不会改变已编译的函数，直到某种原因使它重新 trace。

# %%
scale = 2.

def times_scale(x):
    return x * scale

times_scale_jit = jax.jit(times_scale)
print(make_jaxpr(times_scale)(1.).pretty_print(use_color=False))
print(times_scale_jit(1.))
scale = 10.
print(times_scale_jit(1.), times_scale_jit(jnp.ones(2)))

# %% [markdown]
# After `scale = 10.` the compiled function still multiplies by the traced `2.0`; only the call with a new shape,
# which traces again, sees `10.`. The fix: pass what changes as an argument (traced, or static if Python must
# see it).
#
# `scale = 10.` 之后，编译好的函数仍然乘以 trace 时的 `2.0`；只有换了新形状、因而重新 trace 的那次调用才看到 `10.`。
# 修复方法：把会变化的东西作为实参传入（被 trace 的实参；如果 Python 必须看到它的值，就用静态实参）。

# %% [markdown]
# ## Out-of-bounds indexing: clamp, fill or drop / 越界索引：钳制、填充或丢弃
#
# An accelerator cannot raise an exception in the middle of a kernel, so an index out of range is never an
# error under `jit`. What happens is written in the jaxpr. `x[i]` with a traced `i` becomes `dynamic_slice`,
# which **clamps** the start into range: `x[10]` of five elements reads `x[4]`. `x.at[i].get(mode="fill")` is a
# `gather` with `mode=GatherScatterMode.FILL_OR_DROP` and gives the fill value; `x.at[i].set(v)` is a `scatter`
# whose out-of-range updates are **dropped**. The `lt`, `add`, `select_n` before them wrap negative indices.
#
# 加速器无法在计算内核执行中途抛出异常，所以在 `jit` 之下，越界索引从来不是错误。会发生什么写在 jaxpr 里。被 trace 的
# `i` 做 `x[i]` 会变成 `dynamic_slice`，它把起始位置**钳制**到范围之内：五个元素的 `x[10]` 读到的是 `x[4]`。
# `x.at[i].get(mode="fill")` 是带 `mode=GatherScatterMode.FILL_OR_DROP` 的 `gather`，返回填充值；`x.at[i].set(v)` 是
# `scatter`，越界的更新被**丢弃**。它们前面的 `lt`、`add`、`select_n` 用来处理负索引。

# %%
def read_three_ways(x, i):
    return x[i], x.at[i].get(mode="fill", fill_value=-1.), x.at[i].set(99.)

print(jax.jit(read_three_ways)(jnp.arange(5.), 10))

# %%
%%jaxpr
read_three_ways(jnp.arange(5.), 10)

# %% [markdown]
# ## Errors as values: `checkify` / 把错误变成值：`checkify`
#
# `jax_debug_nans` runs the function again outside the compiled program, and the debugger steps it on the host.
# Can the *compiled* program itself report a NaN or an index out of range, when a kernel cannot raise? Only by
# returning the error as a value. `jax.experimental.checkify.checkify(f, errors=...)` makes a function that returns
# `(error, result)`, and its jaxpr shows how. After each equation whose primitive is on checkify's list of those
# that can make a NaN (`sub`, `log` and `mul` here), a `ne` compares the result with itself (NaN is the one value not
# equal to itself), a `reduce_or` turns that into one flag, an `or` adds it to the flag so far, and a `select_n`
# keeps the code of the first check that failed. The flag `o` and the code `p` are returned beside the result `l`;
# nothing is raised inside the program.
#
# `jax_debug_nans` 是在编译好的程序之外把函数再运行一遍，调试器则是在主机上单步执行它。既然计算内核不能抛出异常，
# **编译好的程序**本身怎样报告 NaN 或越界索引？只能把错误作为值返回。`jax.experimental.checkify.checkify(f, errors=...)`
# 生成一个返回 `(error, result)` 的函数，它的 jaxpr 说明了做法。checkify 有一份可能产生 NaN 的原语名单，每个用到名单上
# 原语的方程（这里是 `sub`、`log` 和 `mul`）之后，`ne` 把结果与它自己比较（NaN 是唯一不等于自身的值），`reduce_or` 把比较结果
# 合成一个标志，`or` 把它并入此前的标志，`select_n` 记下第一个失败的检查的编号。标志 `o` 和编号 `p` 与结果 `l` 一起返回；
# 程序内部什么异常也不抛。

# %%
%%jaxpr
from jax.experimental import checkify

checked_risky = checkify.checkify(risky, errors=checkify.nan_checks)
checked_risky(jnp.array([2., 0.5]))

# %% [markdown]
# The host reads the error after the call: `err.get()` turns the code into a message (`None` when every check
# passed), and `err.throw()` raises it. `checkify.index_checks` does the same for the out-of-range index of the
# previous section, which is otherwise clamped without a word. `checkify.check(pred, message, *values)` is a check
# you write yourself: traced alone it is a `check` equation, which `jit` cannot compile, so a function that calls
# it must go through `checkify` first.
#
# 主机在调用结束后读取错误：`err.get()` 把编号变成一条消息（所有检查都通过时为 `None`），`err.throw()` 则把它作为异常
# 抛出。`checkify.index_checks` 对上一节的越界索引做同样的事，否则它会被悄悄钳制。`checkify.check(pred, message, *values)`
# 是你自己写的检查：单独 trace 时它是一个 `check` 方程，`jit` 无法编译它，所以调用它的函数必须先经过 `checkify`。

# %%
err, out = jax.jit(checked_risky)(jnp.array([2., 0.5]))
print(out, err.get())
show_error(err.throw)

def pick(x, i):
    return x[i]

err, out = jax.jit(checkify.checkify(pick, errors=checkify.index_checks))(jnp.arange(5.), 10)
print(out, err.get())

def positive_log(x):
    checkify.check(jnp.all(x > 1.), "x must be > 1, got {}", jnp.min(x))
    return jnp.log(x - 1.)

print(make_jaxpr(positive_log)(jnp.ones(2)).pretty_print(use_color=False))
show_error(jax.jit(positive_log), jnp.ones(2))
err, out = jax.jit(checkify.checkify(positive_log))(jnp.array([2., 0.5]))
print(err.get())

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth from JAX itself. The folded cell after each check holds a solution.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都用 JAX 本身算出正确结果。
# 每个检查之后折叠的单元格是参考答案。

# %% tags=["checks"]
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr
from jaxprlens.exercise import check, error_name



# %% [markdown]
# **Exercise 1 / 练习 1.** Which error does `jax.jit(head_sum)(jnp.ones(8), 3)` raise? Answer with its
# class name as a string. (`%%jaxpr` names it too, with a fix.)
#
# `jax.jit(head_sum)(jnp.ones(8), 3)` 会抛出哪个错误？用错误类名（字符串）作答。（`%%jaxpr` 也会说出它的名字，
# 并给出修复方法。）

# %% tags=["exercise-1"]
def head_sum(x, n):
    return sum(x[i] for i in range(n))

answer_1 = None  # a str, e.g. "ValueError" / 字符串，例如 "ValueError"

# %% tags=["check-1"]
check(answer_1, error_name(jax.jit(head_sum), jnp.ones(8), 3),
      "range(n) asks the traced n for a Python int (its __index__ method), which a tracer cannot give: that is "
      "not a bool conversion, and JAX names it after the conversion it refused. Fix: static_argnums=1.",
      "range(n) 要求被 trace 的 n 给出一个 Python 整数（调用它的 __index__ 方法），而 tracer 给不出：这不是布尔转换，"
      "JAX 按它拒绝的那种转换来命名这个错误。修复：static_argnums=1。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# range() converts n to an int; jax.jit(head_sum, static_argnums=1) works.
# range() 把 n 转换为整数；jax.jit(head_sum, static_argnums=1) 就能运行。
answer_1 = "TracerIntegerConversionError"

# %% [markdown]
# **Exercise 2 / 练习 2.** How many lines do the `print` calls in `chatty` write when `jax.jit(chatty)` is
# called three times with float scalars, `1.`, `-1.` and `2.`?
#
# 用浮点标量 `1.`、`-1.`、`2.` 调用 `jax.jit(chatty)` 三次，`chatty` 中的 `print` 一共会输出几行？

# %% tags=["exercise-2"]
lines = []

def chatty(x):
    lines.append("start")            # stands for print("start") / 代表 print("start")
    def up(x):
        lines.append("up")
        return x + 1.
    def down(x):
        lines.append("down")
        return x - 1.
    return lax.cond(x > 0, up, down, x)

answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
lines.clear()
chatty_jit = jax.jit(lambda x: chatty(x))   # a fresh jit each time the check runs / 每次检查都用新的 jit
for value in (1., -1., 2.):
    chatty_jit(value)
check(answer_2, len(lines),
      "Python runs only while tracing, and jit traces once per argument type: every call here has the same "
      "type, so one trace. That trace runs the start line and both branches.",
      "Python 只在 trace 时运行，而 jit 对每种实参类型只 trace 一次：这里每次调用的类型相同，所以只 trace 一次；"
      "这次 trace 执行开头那一行和两个分支。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# One trace: "start", then both branches ("up", "down"); the later calls reuse the compiled function.
# 只 trace 一次："start"，然后两个分支（"up"、"down"）；之后的调用复用已编译的函数。
answer_2 = 3

# %% [markdown]
# **Exercise 3 / 练习 3.** What does `jax.jit(at)(jnp.arange(5), 7)` return? Answer with an int.
#
# `jax.jit(at)(jnp.arange(5), 7)` 返回什么？用整数作答。

# %% tags=["exercise-3"]
def at(x, i):
    return x[i]

answer_3 = None  # an int / 一个整数

# %% tags=["check-3"]
check(answer_3, int(jax.jit(at)(jnp.arange(5), 7)),
      "No error under jit: x[i] with a traced i is a dynamic_slice, which clamps the start into range, so index "
      "7 of five elements reads the last one.",
      "jit 之下不会报错：被 trace 的 i 做 x[i] 是 dynamic_slice，它把起始位置钳制到范围之内，所以五个元素的索引 7 "
      "读到的是最后一个。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_3 = 4

# %% [markdown]
# **Exercise 4 / 练习 4.** `jax.jit(norm, static_argnums=1)` is called on the six argument pairs in `calls`. How
# many times is `norm` traced? Answer with an int.
#
# 在 `calls` 中的六组实参上调用 `jax.jit(norm, static_argnums=1)`。`norm` 会被 trace 几次？用整数作答。

# %% tags=["exercise-4"]
calls = [(jnp.ones(3), 2), (jnp.ones(3) * 5., 2), (jnp.ones(3), 1),
         (jnp.ones((3, 1)), 2), (jnp.ones(3, jnp.int32), 2), (jnp.zeros(3), 2)]
answer_4 = None  # an int / 一个整数

# %% tags=["check-4"]
seen = []

def norm(x, p):          # defined here: a fresh function, so a fresh cache / 在这里定义：新函数，新缓存
    seen.append(1)
    return jnp.sum(jnp.abs(x) ** p) ** (1. / p)

norm_jit = jax.jit(norm, static_argnums=1)
for args in calls:
    norm_jit(*args)
check(answer_4, len(seen),
      "One trace per new (shape, dtype, static value): f32[3] with p=2, f32[3] with p=1, f32[3,1] with p=2 and "
      "i32[3] with p=2. New values of a traced argument reuse the program.",
      "每个新的（形状、dtype、静态值）组合 trace 一次：p=2 的 f32[3]、p=1 的 f32[3]、p=2 的 f32[3,1]、p=2 的 i32[3]。"
      "被 trace 的实参取新值时复用已有程序。")

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_4 = 4

# %% [markdown]
# **Exercise 5 / 练习 5.** How many NaN tests (`ne` equations) does `checkify.checkify(decay,
# errors=checkify.nan_checks)` add to the jaxpr of `decay`? Count the equations of `decay` first, then ask of each
# whether checkify tests its result. Answer with an int.
#
# `checkify.checkify(decay, errors=checkify.nan_checks)` 给 `decay` 的 jaxpr 加了几个 NaN 检查（`ne` 方程）？先数
# `decay` 的方程，再逐个判断 checkify 是否检查它的结果。用整数作答。

# %% tags=["exercise-5"]
def decay(x):
    return jnp.exp(-x) * jnp.sin(x) + 1.

answer_5 = None  # an int / 一个整数

# %% tags=["check-5"]
from jax.experimental import checkify

checked = make_jaxpr(checkify.checkify(decay, errors=checkify.nan_checks))(jnp.ones(3))
check(answer_5, sum(e.primitive.name == "ne" for e in checked.jaxpr.eqns),
      "decay has five equations: neg, exp, sin, mul, add. checkify tests the result of each primitive on its list "
      "of those that can make a NaN (nan_primitives in its source): exp, sin, mul and add are on it, neg is not.",
      "decay 有五个方程：neg、exp、sin、mul、add。checkify 检查的是它名单上那些可能产生 NaN 的原语（源码中的 "
      "nan_primitives）的结果：exp、sin、mul、add 在名单上，neg 不在。")

# %% tags=["solution-5"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# exp, sin, mul and add are tested; neg is not.
# exp、sin、mul、add 都被检查，neg 没有。
answer_5 = 4

# %% [markdown]
# **Takeaway / 小结**: Python runs once, at trace time, on values without values. Use `static_argnums` for
# what is known before the call, `lax.cond`/`jnp.where` and `fori_loop`/`scan` for what is decided at run
# time, `jax.debug.print` to see values, and `break_on_nan` (or `jax_debug_nans`) to find the first NaN. Keep
# tracers inside the function, pass what changes as arguments, watch for new shapes that retrace, and read the
# `mode` of a gather or scatter to know what an index out of range does. To have the compiled program report a
# NaN, an index out of range or a check of your own, `checkify` returns the error as a value.
#
# Python 只在 trace 时运行一次，面对的是没有值的 tracer。调用前已知的东西用 `static_argnums`；运行时才决定的东西用
# `lax.cond`/`jnp.where` 与 `fori_loop`/`scan`；想看值就用 `jax.debug.print`；要找第一个 NaN 就用 `break_on_nan`
# （或 `jax_debug_nans`）。tracer 不要带出函数，会变化的东西作为实参传入，留意会引起重新 trace 的新形状，读 gather 或
# scatter 的 `mode` 就知道越界索引会怎样。要让编译好的程序报告 NaN、越界索引或你自己写的检查，就用 `checkify`
# 把错误作为值返回。
