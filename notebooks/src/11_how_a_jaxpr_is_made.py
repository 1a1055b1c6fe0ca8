# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 11 · How a jaxpr is made / 第 11 讲 · jaxpr 是怎样造出来的
#
# Every lecture so far read jaxprs that `jax.make_jaxpr` made. This one opens the machine. `make_jaxpr` calls
# your Python function with **tracers**: objects that stand in for arrays, with a shape and a dtype but no
# values. Every `jax.numpy` function ends in `bind` on a **primitive**, and `bind` hands the primitive to the
# **current trace**, which writes one equation and returns a new tracer for its result. You will build a
# `make_jaxpr` of your own in about 60 lines, run it on the article's programs, and compare it with JAX's.
#
# 之前的各讲读的都是 `jax.make_jaxpr` 造出的 jaxpr。这一讲拆开来看它是怎样工作的。`make_jaxpr` 用 **tracer** 调用你的 Python
# 函数：tracer 是代替数组的对象，有形状和 dtype，但没有值。每个 `jax.numpy` 函数最后都对某个**原语**调用 `bind`，
# `bind` 把原语交给**当前 trace**，由它写下一个方程，并为结果返回一个新的 tracer。你将用大约 60 行代码写出自己的
# `make_jaxpr`，在文章的程序上运行它，并与 JAX 的结果比较。
#
# **Goal.** Explain what a tracer, a trace and `bind` do, build a small `make_jaxpr` that agrees with JAX's on
# the article's first programs, watch a JVP trace apply its rules while tracing, and say how `cond` and `scan`
# trace their bodies. The transformations (lectures 12 and 13) build on this. **Time:** 90 minutes, in two
# sessions: up to the article's programs, then from the JVP trace on.
#
# **目标**：说清 tracer、trace 与 `bind` 各做什么，写出一个小小的 `make_jaxpr`，在文章开头的几个程序上与 JAX 的结果一致；
# 看 JVP trace 怎样在 trace 过程中施加规则；说清 `cond` 与 `scan` 怎样 trace 它们的函数体。后面的变换（第 12、13 讲）
# 都建立在这些之上。
# **时长**：90 分钟，分两次上：先讲到“文章的程序，各跑两遍”为止，再从 JVP trace 讲起。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## Tracers stand in for values / tracer 代替值
#
# Print what your function receives while it is traced. Under `make_jaxpr` it is a tracer of the jaxpr trace;
# under `vmap` inside `make_jaxpr` it is a batching tracer whose value is itself a tracer of the jaxpr
# trace below it. Transformations nest: each one is a trace, and the current one sits on top of the others.
#
# 打印函数在 trace 时收到的东西。在 `make_jaxpr` 之下，它是 jaxpr trace 的 tracer；在 `make_jaxpr` 里面的 `vmap`
# 之下，它是批处理 tracer，其值本身又是下面那一层 jaxpr trace 的 tracer。变换是层层嵌套的：每个变换都是一个
# trace，当前 trace 位于其他 trace 之上。

# %%
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax, make_jaxpr
from jaxprlens.exercise import say

def peek(x):
    print(type(x).__name__, x.shape, x.dtype)
    return jnp.sin(x)

make_jaxpr(peek)(jnp.ones(3))
make_jaxpr(jax.vmap(peek))(jnp.ones((2, 3)))

def peek_grad(x):
    print(type(x).__name__, say("holding", "内含原值"), type(x.primal).__name__)
    return jnp.sin(x)

print(make_jaxpr(jax.grad(peek_grad))(1.).pretty_print(use_color=False))

# %% [markdown]
# The shapes are known (`(3,)`, and `(3,)` again for one example of the batch), the values are not. That is
# why a Python `if` on a tracer fails (lecture 16) while an `if` on its shape works (lecture 2).
#
# 形状是已知的（`(3,)`，对批中的一个样本也是 `(3,)`），值却未知。这就是为什么对 tracer 写 Python `if` 会失败
# （第 16 讲），而对它的形状写 `if` 没有问题（第 2 讲）。

# %% [markdown]
# ## `bind`: every primitive goes to the current trace / `bind`：每个原语都交给当前 trace
#
# `jnp.sin(x)` checks its argument, then calls `lax.sin`, which calls `sin_p.bind(x, accuracy=None)`. `sin_p`
# is a `Primitive`, and you can bind it yourself. A bare `sin_p.bind(x)` *prints* the same line, but it is not
# the same equation: an equation is its primitive, its operands **and its params**. The printer hides
# `accuracy=None` because it is the default; the bare equation has no params at all, and `jit` or `grad` of it
# fail, because the rules that lower and differentiate `sin` read `accuracy`. Bind with the params:
#
# `jnp.sin(x)` 先检查实参，再调用 `lax.sin`，后者调用 `sin_p.bind(x, accuracy=None)`。`sin_p` 是一个
# `Primitive`，你也可以自己 bind 它。不带参数的 `sin_p.bind(x)` *打印*出来是同一行，却不是同一个方程：方程由原语、
# 操作数**以及参数**组成。打印器隐藏了 `accuracy=None`，因为它是默认值；自己 bind 出的方程根本没有参数，对它做
# `jit` 或 `grad` 都会失败，因为 `sin` 的 lowering 规则和求导规则要读取 `accuracy`。bind 时要带上参数：

# %%
from jaxprlens.exercise import show_error

print(type(lax.sin_p).__name__, lax.sin_p)
bare = make_jaxpr(lambda x: lax.sin_p.bind(x))(1.)
print(bare.pretty_print(use_color=False))
print(bare.jaxpr.eqns[0].params, make_jaxpr(jnp.sin)(1.).jaxpr.eqns[0].params)
show_error(jax.jit(lambda x: lax.sin_p.bind(x)), 1.)
print(jax.jit(lambda x: lax.sin_p.bind(x, accuracy=None))(1.))

# %% [markdown]
# What `bind` does with the primitive depends on the current trace. With no transformation active, the
# evaluation trace computes the value. Under `make_jaxpr` the jaxpr trace records an equation. Under `grad` or
# `vmap` the trace applies the primitive's JVP or batching rule, which binds other primitives on the trace
# below it. That is all a transformation is: a trace with a rule per primitive.
#
# `bind` 如何处理原语，取决于当前 trace。没有任何变换时，求值 trace 直接算出值。在 `make_jaxpr` 之下，jaxpr trace
# 记下一个方程。在 `grad` 或 `vmap` 之下，trace 施加该原语的 JVP 规则或批处理规则，这些规则又在下面一层 trace 上
# bind 别的原语。变换无非如此：一个 trace，加上每个原语的一条规则。

# %% [markdown]
# ## A `make_jaxpr` in 60 lines / 60 行写一个 `make_jaxpr`
#
# Our own little JAX knows eight primitives and computes each with `lax` (`IMPL`). A `Tracer` holds a variable
# of the jaxpr being built and overloads `+`, `-`, `*`. `bind` looks at the trace stack: empty, it computes;
# otherwise the top trace records the equation. Operands that are not tracers of that trace become literals
# (Python scalars) or constvars (arrays that already exist, lecture 3). The result's shape and dtype come from
# `jax.eval_shape` of the `lax` function: our abstract evaluation, borrowed.
#
# 我们自己的小 JAX 认识八个原语，每个都用 `lax` 来计算（`IMPL`）。`Tracer` 保存正在构造的 jaxpr 中的一个变量，并重载
# `+`、`-`、`*`。`bind` 查看 trace 栈：栈为空就直接计算；否则由栈顶的 trace 记下方程。不是该 trace 的 tracer 的
# 操作数变成字面量（Python 标量）或 constvar（已经存在的数组，第 3 讲）。结果的形状和 dtype 来自对 `lax` 函数做
# `jax.eval_shape`：这是我们借来的抽象求值。

# %% tags=["setup"]
import itertools
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

IMPL = {"add": lax.add, "sub": lax.sub, "mul": lax.mul, "neg": lax.neg, "sin": lax.sin, "cos": lax.cos,
        "exp": lax.exp, "reduce_sum": lambda x, *, axes: jnp.sum(x, axis=axes)}
TRACE_STACK = []            # the traces now active, the current one last / 正在进行的 trace，当前的在最后


class Var:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)


class Tracer:
    __array_ufunc__ = None  # `numpy_array * tracer` must call Tracer.__rmul__ / `numpy_array * tracer` 必须调用 Tracer.__rmul__
    def __init__(self, trace, var):
        self.trace, self.var, self.shape, self.dtype = trace, var, var.shape, var.dtype
    def __add__(self, other): return bind("add", self, other)
    def __radd__(self, other): return bind("add", other, self)
    def __sub__(self, other): return bind("sub", self, other)
    def __rsub__(self, other): return bind("sub", other, self)
    def __mul__(self, other): return bind("mul", self, other)
    def __rmul__(self, other): return bind("mul", other, self)
    def __neg__(self): return bind("neg", self)
    def __bool__(self): raise TypeError("a tracer has no value to branch on while tracing")


class JaxprTrace:
    def __init__(self):
        self.eqns, self.consts = [], {}          # consts: id(array) -> (Var, array) / 常量表：id(array) -> (Var, array)

    def atom(self, x):
        if isinstance(x, Tracer) and x.trace is self:
            return x.var
        if isinstance(x, (int, float)):
            return x                             # a literal, written into the equation / 字面量，直接写进方程
        if id(x) not in self.consts:             # an array that exists already: a constvar / 已经存在的数组：成为 constvar
            self.consts[id(x)] = (Var(np.shape(x), jnp.result_type(x)), x)
        return self.consts[id(x)][0]

    def process(self, prim, args, params):
        types = [jax.ShapeDtypeStruct(a.shape, a.dtype) if isinstance(a, Tracer) else a for a in args]
        out = jax.eval_shape(partial(IMPL[prim], **params), *types)
        self.eqns.append((prim, [self.atom(a) for a in args], Var(out.shape, out.dtype), params))
        return Tracer(self, self.eqns[-1][2])


def bind(prim, *args, **params):
    if any(isinstance(a, Tracer) and a.trace not in TRACE_STACK for a in args):
        raise RuntimeError(f"{prim}: a tracer escaped from a trace that has ended (a leaked tracer)")
    if not TRACE_STACK:
        return IMPL[prim](*args, **params)       # nothing traced: compute / 没有被 trace 的值：直接计算
    return TRACE_STACK[-1].process(prim, args, params)


def sin(x): return bind("sin", x)
def cos(x): return bind("cos", x)
def exp(x): return bind("exp", x)
def reduce_sum(x, axes=(0,)): return bind("reduce_sum", x, axes=axes)


def mini_make_jaxpr(f):
    def traced(*args):
        leaves, tree = jax.tree_util.tree_flatten(args)
        trace = JaxprTrace()
        invars = [Var(np.shape(x), jnp.result_type(x)) for x in leaves]
        TRACE_STACK.append(trace)
        try:
            out = f(*jax.tree_util.tree_unflatten(tree, [Tracer(trace, v) for v in invars]))
        finally:
            TRACE_STACK.pop()
        return MiniJaxpr(trace, invars, [trace.atom(o) for o in jax.tree_util.tree_leaves(out)])
    return traced

# %% [markdown]
# A `MiniJaxpr` prints itself the way JAX does: constvars, then invars, then one line per equation, names
# given in that order.
#
# `MiniJaxpr` 按 JAX 的方式打印自己：先 constvars，再 invars，然后每个方程一行，名字也按这个顺序分配。

# %% tags=["setup"]
SHORT = {"float32": "f32", "int32": "i32", "bool": "bool"}


class MiniJaxpr:
    def __init__(self, trace, invars, outvars):
        self.constvars = [v for v, _ in trace.consts.values()]
        self.consts = [c for _, c in trace.consts.values()]
        self.invars, self.eqns, self.outvars = invars, trace.eqns, outvars

    def primitives(self):
        return [prim for prim, *_ in self.eqns]

    def __str__(self):
        names = {}
        letters = ("".join(p) for n in itertools.count(1) for p in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=n))

        def typed(v):           # a binder: name it (the next free letters) and write its type / 绑定变量：取下一个空闲的字母作名字，并写上类型
            names[v] = next(letters)
            return f"{names[v]}:{SHORT[v.dtype.name]}{list(v.shape)}".replace(" ", "")

        atom = lambda a: f"{float(a)}:f32[]" if isinstance(a, (int, float)) else names[a]
        head = " ".join(map(typed, self.constvars)) + "; " + " ".join(map(typed, self.invars))
        lines = []
        for prim, ins, out, params in self.eqns:
            args = " ".join(map(atom, ins))
            shown = f"[{' '.join(f'{k}={v}' for k, v in params.items())}]" if params else ""
            lines.append(f"    {typed(out)} = {prim}{shown} {args}")
        return "{ lambda " + head + ". let\n" + "\n".join(lines) + f"\n  in ({', '.join(map(atom, self.outvars))},) }}"

# %% [markdown]
# ## The article's programs, twice / 文章的程序，各跑两遍
#
# `func1` written with our `sin` and `reduce_sum`. With no trace active they compute with `lax`, so
# `jax.make_jaxpr` traces the very same function too: one program, two tracing machines.
#
# 用我们的 `sin` 和 `reduce_sum` 写成的 `func1`。没有 trace 时它们用 `lax` 计算，所以 `jax.make_jaxpr` 也能 trace
# 同一个函数：同一个程序，两套 trace 机制。

# %%
def func1(first, second):
    temp = first + sin(second) * 3.
    return reduce_sum(temp)

x, y = jnp.zeros(8), jnp.ones(8)
print(mini_make_jaxpr(func1)(x, y))
print(make_jaxpr(func1)(x, y).pretty_print(use_color=False))
print(say("computed:", "计算结果："), func1(x, y))

# %% [markdown]
# Python calls and Python `if`s on shapes run at trace time and leave no equation (`func3`, lecture 2); a pair
# of arguments is flattened into two invars (`func4`); an array that exists before tracing is a constvar
# (`scaled`, lecture 3). We compare the list of primitives and the constvar count with JAX's.
#
# Python 调用以及基于形状的 Python `if` 都在 trace 时执行，不留下方程（`func3`，第 2 讲）；一对实参被展平成两个
# invar（`func4`）；trace 之前就已存在的数组是 constvar（`scaled`，第 3 讲）。我们把原语列表和 constvar 个数与 JAX
# 的结果比较。

# %%
def func2(inner, first, second):
    temp = first + inner(second) * 3.
    return reduce_sum(temp)

def inner(second):
    if second.shape[0] > 4:
        return sin(second)
    else:
        assert False

def func3(first, second):
    return func2(inner, first, second)

def func4(arg):  # The arg is a pair. / 实参是一个二元组。
    temp = arg[0] + sin(arg[1]) * 3.
    return reduce_sum(temp)

weights = np.array([1., 2., 3.], dtype=np.float32)

def scaled(x):
    return reduce_sum(x * weights) * 2.

for f, args in [(func3, (x, y)), (func4, ((x, y),)), (scaled, (jnp.ones(3),))]:
    mine, theirs = mini_make_jaxpr(f)(*args), make_jaxpr(f)(*args)
    same = (mine.primitives() == [e.primitive.name for e in theirs.jaxpr.eqns]
            and len(mine.constvars) == len(theirs.jaxpr.constvars))
    print(f"{f.__name__}: {mine.primitives()} constvars={len(mine.constvars)}", say("same as JAX:", "与 JAX 相同："), same)
print(mini_make_jaxpr(scaled)(jnp.ones(3)))

# %% [markdown]
# A tracer kept after its trace has ended is a **leaked tracer**: it stands for a value of a program that
# no longer runs. Our `bind` refuses it, as JAX's does (lecture 16):
#
# trace 结束后仍被留住的 tracer 是**泄漏的 tracer**：它代表一个已经不再运行的程序中的值。我们的 `bind` 会拒绝它，
# JAX 的 `bind` 也一样（第 16 讲）：

# %%
kept = []

def leak(x):
    kept.append(x)
    return sin(x)

mini_make_jaxpr(leak)(jnp.ones(2))
try:
    sin(kept[0])
except RuntimeError as e:
    print("RuntimeError:", e)

# %% [markdown]
# ## A JVP trace on the mini JAX: rules run while tracing / 小 JAX 上的 JVP trace：规则在 trace 过程中运行
#
# Lecture 12 says that `jax.jvp` and `jax.grad` apply their rules *while tracing*, not on a finished jaxpr. Here
# is that sentence as code (Autodidax, part 1, does the same at length). A `JVPTracer` carries a primal and a
# tangent (`None` for a tangent known to be zero). A `JVPTrace` handles each primitive with its JVP rule, and the
# rule's own `sin`, `cos`, `*` bind on the trace **below** it: the JVP trace steps off the stack while its rule
# runs. Each rule prints its name when it runs, so you can watch the order.
#
# 第 12 讲说，`jax.jvp` 和 `jax.grad` 是在 **trace 过程中**施加规则的，而不是作用在一个已经造好的 jaxpr 上。下面把这句话写成代码
# （Autodidax 第 1 部分详细地做了同样的事）。`JVPTracer` 携带一个原值和一个切向量（已知为零的切向量记作 `None`）。
# `JVPTrace` 用每个原语的 JVP 规则处理它，规则里的 `sin`、`cos`、`*` 都在它**下面一层**的 trace 上 bind：规则运行期间，
# JVP trace 暂时离开栈顶。每条规则运行时打印自己的名字，你可以看到它们的顺序。

# %% tags=["setup"]
from jaxprlens.exercise import say


def add_t(a, b):            # tangents add; None is a zero / 切向量相加；None 表示零
    return b if a is None else a if b is None else a + b

def scale_t(t, c):
    return None if t is None else t * c

JVP_RULES = {
    "add": lambda x, y, tx, ty: (x + y, add_t(tx, ty)),
    "sub": lambda x, y, tx, ty: (x - y, add_t(tx, scale_t(ty, -1.))),
    "mul": lambda x, y, tx, ty: (x * y, add_t(scale_t(tx, y), scale_t(ty, x))),
    "neg": lambda x, tx: (-x, scale_t(tx, -1.)),
    "sin": lambda x, tx: (sin(x), scale_t(tx, cos(x))),
    "cos": lambda x, tx: (cos(x), scale_t(tx, -sin(x))),
    "exp": lambda x, tx: (exp(x), scale_t(tx, exp(x))),
    "reduce_sum": lambda x, tx, *, axes: (reduce_sum(x, axes), None if tx is None else reduce_sum(tx, axes)),
}
SHOW_RULES = [False]        # print each rule as it runs / 每条规则运行时打印出来


class JVPTracer(Tracer):
    def __init__(self, trace, primal, tangent):
        self.trace, self.primal, self.tangent = trace, primal, tangent
        self.shape = np.shape(primal)
        self.dtype = primal.dtype if hasattr(primal, "dtype") else jnp.result_type(primal)


class JVPTrace:
    def process(self, prim, args, params):
        mine = [isinstance(a, JVPTracer) and a.trace is self for a in args]
        primals = [a.primal if m else a for a, m in zip(args, mine)]
        tangents = [a.tangent if m else None for a, m in zip(args, mine)]   # a constant's tangent is zero / 常量的切向量为零
        if SHOW_RULES[0]:
            print(say(f"jvp rule of {prim}", f"{prim} 的 JVP 规则"))
        TRACE_STACK.pop()                         # the rule binds on the trace below / 规则在下面一层 trace 上 bind
        try:
            primal, tangent = JVP_RULES[prim](*primals, *tangents, **params)
        finally:
            TRACE_STACK.append(self)
        return JVPTracer(self, primal, tangent)


def mini_jvp(f, primals, tangents):
    trace = JVPTrace()
    TRACE_STACK.append(trace)
    try:
        out = f(*[JVPTracer(trace, p, t) for p, t in zip(primals, tangents)])
    finally:
        TRACE_STACK.pop()
    return (out.primal, out.tangent) if isinstance(out, JVPTracer) and out.trace is trace else (out, None)

# %% [markdown]
# With no other trace active, `mini_jvp` computes numbers, and they agree with `jax.jvp`. Under
# `mini_make_jaxpr` the JVP trace sits on top of the jaxpr trace: each rule runs as `func1` reaches its primitive,
# and the equations the rule binds land in the jaxpr in that order. No jaxpr of `func1` alone is ever built.
#
# 没有别的 trace 时，`mini_jvp` 直接算出数值，与 `jax.jvp` 一致。在 `mini_make_jaxpr` 之下，JVP trace 位于 jaxpr trace
# 之上：`func1` 每执行到一个原语，对应的规则就运行，规则 bind 的方程按这个顺序落进 jaxpr。从头到尾都没有单独造出
# `func1` 本身的 jaxpr。

# %%
tx, ty = jnp.zeros(8), jnp.ones(8)
print(mini_jvp(func1, (x, y), (tx, ty)), jax.jvp(func1, (x, y), (tx, ty)))
SHOW_RULES[0] = True
jvp_jaxpr = mini_make_jaxpr(lambda x, y, tx, ty: mini_jvp(func1, (x, y), (tx, ty)))(x, y, tx, ty)
SHOW_RULES[0] = False
print(jvp_jaxpr)
theirs = make_jaxpr(lambda x, y, tx, ty: jax.jvp(func1, (x, y), (tx, ty)))(x, y, tx, ty)
print(say("same primitives as JAX's jvp:", "原语与 JAX 的 jvp 相同："),
      jvp_jaxpr.primitives() == [e.primitive.name for e in theirs.jaxpr.eqns])

# %% [markdown]
# ## How `cond` and `scan` trace their bodies / `cond` 与 `scan` 怎样 trace 它们的函数体
#
# A Python loop runs at trace time, once per round, and leaves its equations once per round (exercise 1 below).
# `lax.scan` instead calls its body **once**, with tracers of a new sub-trace whose types are those of the carry
# and of one slice of `xs`, and binds a single `scan` equation that holds the body's jaxpr (`jaxpr=`). That is
# why the body must return the carry with the shape and dtype it was given (the one jaxpr must fit every round;
# JAX raises a `TypeError` otherwise), and why a `print` in the body runs once however long the loop is. A change
# of weak type alone is accepted: in lecture 6 the carry starts as the weakly typed Python scalar `0.` and comes
# back a strong `f32`. `lax.cond` traces **every** branch the same way, before it knows which one will run, and binds one
# `cond` equation with all of them in `branches` (the false branch first: a bool becomes index 0 or 1). This is
# also how a transformation reaches a body: its rule for `scan` or `cond` re-traces the body's jaxpr under its
# own tracers (lecture 12).
#
# Python 循环在 trace 时执行，每轮执行一次，每轮都留下一份方程（见下面的练习 1）。`lax.scan` 则只调用它的循环体
# **一次**：用一个新的子 trace 的 tracer 调用，其类型就是携带值和 `xs` 的一个切片的类型；然后只 bind 一个 `scan`
# 方程，方程中保存循环体的 jaxpr（`jaxpr=`）。所以循环体返回的携带值必须保持传入时的形状和 dtype（同一个 jaxpr 要适用于
# 每一轮；否则 JAX 抛出 `TypeError`），循环体里的 `print` 不论循环多长也都只运行一次。只有弱类型变化是允许的：第 6 讲中
# 携带值从弱类型的 Python 标量 `0.` 开始，返回时是强类型的 `f32`。`lax.cond` 用同样的方式 trace **每一个**分支，此时它还不知道会执行哪一个；然后 bind 一个
# `cond` 方程，所有分支都放在 `branches` 里（假分支在前：布尔值被转换成索引 0 或 1）。变换也是这样进入函数体的：它对 `scan` 或 `cond` 的规则在自己的
# tracer 下把函数体的 jaxpr 重新 trace 一遍（第 12 讲）。

# %%
def noisy_scan(xs):
    def body(carry, x):
        print(say("tracing the scan body:", "trace scan 循环体："), type(carry).__name__, carry.shape)
        return carry + x, None
    return lax.scan(body, 0., xs)[0]

def noisy_cond(p, x):
    def yes(x):
        print(say("tracing the true branch", "trace 真分支"))
        return x + 1.
    def no(x):
        print(say("tracing the false branch", "trace 假分支"))
        return x - 1.
    return lax.cond(p, yes, no, x)

print(make_jaxpr(noisy_scan)(jnp.ones(1000)).pretty_print(use_color=False))
print(make_jaxpr(noisy_cond)(True, 2.).pretty_print(use_color=False))

# %% [markdown]
# > **Where the real JAX differs / 与真正的 JAX 的不同** — JAX's `Primitive.bind` does not search a list: the
# > current trace lives in a context (`trace_ctx` in `jax/_src/core.py`), and each trace knows its parent, so the
# > "stack" is a chain. `bind` takes the current trace and calls its `process_primitive`; a JVP or batching
# > trace applies its rule and binds on its parent. Each primitive has its own abstract evaluation rule (we
# > borrowed `eval_shape`), types carry a *weak type* flag and a sharding, equations keep their source line and
# > name stack (lecture 15), and `make_jaxpr` traces with `DynamicJaxprTrace`, which also handles
# > higher-order primitives by tracing their bodies into sub-jaxprs. `grad` in JAX 0.12 traces with a
# > `LinearizeTracer` (the print above): direct linearization, the default since JAX 0.7; before 0.7 it used a
# > `JVPTracer`.
# >
# > JAX 的 `Primitive.bind` 并不搜索一个列表：当前 trace 保存在一个上下文中（`jax/_src/core.py` 里的 `trace_ctx`），
# > 每个 trace 都知道自己的上一层，所以“栈”其实是一条链。`bind` 取出当前 trace 并调用它的 `process_primitive`；JVP 或
# > 批处理 trace 施加自己的规则，再在上一层 trace 上 bind。每个原语都有自己的抽象求值规则（我们借用了 `eval_shape`），
# > 类型带有**弱类型**标记和分片信息，方程保留它的源码行和名字栈（第 15 讲），`make_jaxpr` 用 `DynamicJaxprTrace`
# > 做 trace，它还会把高阶原语的分支与循环体 trace 成子 jaxpr。JAX 0.12 的 `grad` 用 `LinearizeTracer` 做 trace（见上面的打印）：
# > 这是直接线性化，自 JAX 0.7 起为默认；0.7 之前用的是 `JVPTracer`。

# %% [markdown]
# ## Exercises / 练习
#
# Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
# computes the truth with the mini `make_jaxpr` above, or with JAX itself. The folded cell after each check
# holds a solution; run it, then the check again, to see it pass.
#
# 先预测，再检查：把 `None` 换成你的答案，运行其后的检查单元格。每个检查都用上面的小 `make_jaxpr` 或 JAX 本身算出
# 正确结果。每个检查之后折叠的单元格是参考答案；运行它，再运行一次检查，即可看到通过。

# %% tags=["checks"]
import jax
import jax.numpy as jnp
from jax import make_jaxpr
from jaxprlens.exercise import check, fail, passed, pending


# %% [markdown]
# **Exercise 1 / 练习 1.** `horner` evaluates a polynomial with a Python loop. How many equations will
# `mini_make_jaxpr(horner)` record? (JAX's `make_jaxpr` records the same.) Answer with an int.
#
# `horner` 用 Python 循环求多项式的值。`mini_make_jaxpr(horner)` 会记下多少个方程？（JAX 的 `make_jaxpr` 记下的
# 也一样。）用整数作答。

# %% tags=["exercise-1"]
def horner(x):
    y = 0. * x
    for c in [1., 2., 3.]:
        y = y * x + c
    return y

answer_1 = None  # an int / 一个整数

# %% tags=["check-1"]
mine = mini_make_jaxpr(horner)(jnp.ones(4))
assert mine.primitives() == [e.primitive.name for e in make_jaxpr(horner)(jnp.ones(4)).jaxpr.eqns]
check(answer_1, len(mine.eqns),
      "The Python loop runs at trace time: three rounds of one mul and one add, plus the first mul by 0.",
      "Python 循环在 trace 时执行：三轮，每轮一个 mul 和一个 add，再加上开头乘以 0. 的那个 mul。")

# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# mul (0. * x), then (mul, add) three times.
# mul（0. * x），然后 (mul, add) 三次。
answer_1 = 7

# %% [markdown]
# **Exercise 2 / 练习 2.** `shifted` uses the NumPy array `offset` twice and the fresh array
# `np.ones(3, np.float32)` once. How many constvars will `mini_make_jaxpr(shifted)` have? (JAX agrees.)
# Answer with an int.
#
# `shifted` 两次用到 NumPy 数组 `offset`，还用到一次新建的数组 `np.ones(3, np.float32)`。
# `mini_make_jaxpr(shifted)` 会有多少个 constvar？（JAX 的结果相同。）用整数作答。

# %% tags=["exercise-2"]
offset = np.array([1., 2., 3.], dtype=np.float32)

def shifted(x):
    return (x + offset) * offset + np.ones(3, np.float32)

answer_2 = None  # an int / 一个整数

# %% tags=["check-2"]
mine = mini_make_jaxpr(shifted)(jnp.ones(3))
assert len(mine.constvars) == len(make_jaxpr(shifted)(jnp.ones(3)).jaxpr.constvars)
check(answer_2, len(mine.constvars),
      "A constvar is made once per array object: offset is one array used twice, np.ones(3) another one.",
      "每个数组对象只生成一个 constvar：offset 是同一个数组用了两次，np.ones(3) 是另一个数组。")

# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_2 = 2

# %% [markdown]
# **Exercise 3 / 练习 3.** Inside `jax.make_jaxpr(jax.vmap(who))`, what is the type name of the value that the
# batching tracer `x` holds (`x.val`)? Answer with a str.
#
# 在 `jax.make_jaxpr(jax.vmap(who))` 内部，批处理 tracer `x` 所持有的值（`x.val`）的类型名是什么？用字符串作答。

# %% tags=["exercise-3"]
seen = []

def who(x):
    seen.append(type(x.val).__name__)
    return jnp.sin(x)

answer_3 = None  # a str / 一个字符串

# %% tags=["check-3"]
seen.clear()
make_jaxpr(jax.vmap(who))(jnp.ones((2, 3)))
check(answer_3, seen[-1],
      "vmap's trace sits on top of make_jaxpr's: a batching tracer wraps a tracer of the jaxpr trace below it, "
      "and its rules bind primitives on that trace.",
      "vmap 的 trace 位于 make_jaxpr 的 trace 之上：批处理 tracer 包着下面那层 jaxpr trace 的 tracer，它的规则在那一层"
      "上 bind 原语。")

# %% tags=["solution-3"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
answer_3 = "DynamicJaxprTracer"

# %% [markdown]
# **Exercise 4 / 练习 4.** Teach the mini JAX a new primitive, `tanh`: give it an entry in `IMPL` and write the
# function `tanh(x)` that binds it. The check traces `reduce_sum(tanh(x) * 2.)` with both machines and compares
# the primitives, then computes it with no trace active.
#
# 教小 JAX 认识一个新原语 `tanh`：在 `IMPL` 中为它加一项，并写出 bind 它的函数 `tanh(x)`。检查会用两台机器 trace
# `reduce_sum(tanh(x) * 2.)` 并比较原语，然后在没有 trace 的情况下计算它。

# %% tags=["exercise-4"]
def tanh(x):
    raise NotImplementedError  # your turn / 轮到你了

# %% tags=["check-4"]
def doubled(x):
    return reduce_sum(tanh(x) * 2.)

try:
    mine = mini_make_jaxpr(doubled)(jnp.ones(3)).primitives()
except NotImplementedError:
    pending("write tanh", "写好 tanh")
except Exception as e:  # the student's code / 学生的代码
    fail(f"tracing raised {type(e).__name__}: {e}.", f"trace 时出错（{type(e).__name__}：{e}）。",
         "tanh must call bind, and bind needs an IMPL entry for the primitive it records.",
         "tanh 必须调用 bind，而 bind 需要 IMPL 中有它所记录的原语。")
else:
    theirs = [e.primitive.name for e in make_jaxpr(doubled)(jnp.ones(3)).jaxpr.eqns]
    if mine != theirs:
        fail(f"the mini jaxpr holds {mine}, JAX's {theirs}.", f"小 jaxpr 中是 {mine}，JAX 的是 {theirs}。",
             "Bind a primitive named as JAX names it, and compute it with the lax function of that name.",
             "bind 一个与 JAX 同名的原语，并用同名的 lax 函数计算它。")
    elif not jnp.allclose(doubled(jnp.arange(3.)), 2. * jnp.sum(jnp.tanh(jnp.arange(3.)))):
        fail("with no trace active, tanh computes a wrong value.", "没有 trace 时，tanh 算出的值不对。",
             "IMPL['tanh'] is what computes it.", "计算它的是 IMPL['tanh']。")
    else:
        passed()

# %% tags=["solution-4"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
IMPL["tanh"] = lax.tanh

def tanh(x):
    return bind("tanh", x)

# %% [markdown]
# **Exercise 5 / 练习 5.** Trace the JVP of `wiggle` with the mini JAX: how many equations will the JVP rules
# bind on the jaxpr trace below them? Go through `wiggle` primitive by primitive and write down what each rule
# binds (a tangent known to be zero binds nothing). Answer with an int.
#
# 用小 JAX trace `wiggle` 的 JVP：各条 JVP 规则会在下面一层 jaxpr trace 上 bind 多少个方程？逐个原语地走一遍 `wiggle`，
# 写下每条规则 bind 了什么（已知为零的切向量不 bind 任何东西）。用整数作答。

# %% tags=["exercise-5"]
def wiggle(x):
    return sin(x) * x + 2.

answer_5 = None  # an int / 一个整数

# %% tags=["check-5"]
xs = jnp.arange(3.)
recorded = mini_make_jaxpr(lambda x, t: mini_jvp(wiggle, (x,), (t,)))(xs, jnp.ones(3))
want = make_jaxpr(lambda x, t: jax.jvp(wiggle, (x,), (t,)))(xs, jnp.ones(3))
named = [e.primitive.name for e in want.jaxpr.eqns]
assert [{"add_any": "add"}.get(n, n) for n in named] == recorded.primitives()
check(answer_5, len(recorded.eqns),
      "sin's rule binds sin, cos and the mul of the tangent by cos (3); the mul's rule binds the product and two "
      "tangent products and adds them (4); adding the constant 2. binds one add and leaves the tangent as it is (1).",
      "sin 的规则 bind 了 sin、cos 以及切向量乘 cos 的 mul（3 个）；mul 的规则 bind 了乘积、两个切向量乘积以及把它们相加的 "
      "add（4 个）；加上常量 2. 只 bind 一个 add，切向量保持不变（1 个）。")

# %% tags=["solution-5"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
# sin, cos, mul (tangent of sin); mul, mul, mul, add (product rule); add (the + 2.). JAX binds the same, and
# writes the sum of two tangents as add_any.
# sin、cos、mul（sin 的切向量）；mul、mul、mul、add（乘积法则）；add（+ 2.）。JAX bind 的也一样，只是把两个切向量之和
# 写成 add_any。
answer_5 = 8

# %% [markdown]
# **Takeaway / 小结**: a jaxpr is what a trace writes down while your Python runs on tracers. Every primitive
# goes through `bind` to the current trace; a trace that records equations makes a jaxpr, a trace with rules
# makes a transformation, and they stack.
#
# jaxpr 是你的 Python 代码在 tracer 上运行时由 trace 记下的东西。每个原语都经由 `bind` 交给当前 trace；记录方程的
# trace 造出 jaxpr，带规则的 trace 构成变换，而且它们可以层层叠加。
