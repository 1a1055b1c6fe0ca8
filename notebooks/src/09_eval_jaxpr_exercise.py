# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 9 · Exercise: write your own `eval_jaxpr` / 第 9 讲 · 练习：自己写一个 `eval_jaxpr`
#
# In the spirit of JAX's *autodidax*: a jaxpr is data, so an interpreter for it is a short loop. Keep an
# environment from variables to values; write the constants and the inputs; for each equation read its
# inputs, apply its primitive, write its outputs; finally read the outputs.
#
# 仿照 JAX 的 *autodidax*：jaxpr 是数据，它的解释器只是一个简短的循环。维护一个从变量到值的环境：先写入常量和输入；
# 对每个方程读出输入、执行原语、写入输出；最后读出结果。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## What you work with / 可用的材料
#
# `jaxprlens.trace(f, *args)` returns a `Program` with `constvars`, `consts`, `invars`, `eqns` and `outvars`.
# An atom is a `Var` (one object per variable: use it as a dict key) or a `Lit` (its value is `lit.val`).
# Each `Eqn` has `invars`, `outvars` and `raw`, JAX's own equation; a primitive is applied with
# `prim.bind(*values, **prim.get_bind_params(params))`, which returns a list when
# `prim.multiple_results` is true.
#
# `jaxprlens.trace(f, *args)` 返回一个 `Program`，含 `constvars`、`consts`、`invars`、`eqns`、`outvars`。
# 原子要么是 `Var`（每个变量一个对象，可直接作为字典键），要么是 `Lit`（其值为 `lit.val`）。每个 `Eqn` 有 `invars`、
# `outvars` 以及 JAX 自身的方程 `raw`；用 `prim.bind(*values, **prim.get_bind_params(params))` 执行原语，
# 当 `prim.multiple_results` 为真时返回列表。

# %%
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
import jaxprlens
from jaxprlens import Lit

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

program = jaxprlens.trace(func1, jnp.zeros(8), jnp.ones(8))
print(program)
eqn = program.eqns[1]
print(eqn.primitive, [type(a).__name__ for a in eqn.invars], eqn.invars[1].val)

# %% [markdown]
# ## Your turn / 动手练习
#
# Fill in `my_eval_jaxpr`, then run the check cell below. (Sub-jaxprs need no special care in a first
# version: `bind` of `cond`, `while`, `scan` and `jit` runs them for you.)
#
# 补全 `my_eval_jaxpr`，然后运行下面的检查单元格。（第一个版本无需专门处理子 jaxpr：对 `cond`、`while`、
# `scan`、`jit` 调用 `bind` 会替你执行它们。）

# %%
def my_eval_jaxpr(program, *args):
    env = {}

    def read(atom):
        ...  # a Lit's value, or the value written for a Var

    def write(var, value):
        ...

    # 1. write constvars <- consts and invars <- args
    # 2. for each eqn: read inputs, bind the primitive, write outputs
    # 3. return the values of the outvars
    raise NotImplementedError("your turn / 轮到你了")

# %% [markdown]
# ## Solution / 参考答案

# %%
def eval_program(program, *args):
    env = {}

    def read(atom):
        return atom.val if isinstance(atom, Lit) else env[atom]

    def write(var, value):
        env[var] = value

    for v, c in zip(program.constvars, program.consts):
        write(v, c)
    for v, a in zip(program.invars, args):
        write(v, a)
    for eqn in program.eqns:
        prim = eqn.raw.primitive
        values = [read(a) for a in eqn.invars]
        outs = prim.bind(*values, **prim.get_bind_params(eqn.raw.params))
        if not prim.multiple_results:
            outs = [outs]
        for v, out in zip(eqn.outvars, outs):
            write(v, out)
    return [read(a) for a in program.outvars]

# %% [markdown]
# ## Check / 检查
#
# Compare with `jax.jit` on programs from the course: plain arithmetic, a hoisted constant, `switch`,
# `fori_loop`, `scan` and a nested `jit`. Swap `eval_program` for `my_eval_jaxpr` to check your own.
#
# 与 `jax.jit` 的结果比较，覆盖课程中的几个程序：普通算术、被提升的常量、`switch`、`fori_loop`、`scan` 以及嵌套的
# `jit`。把 `eval_program` 换成 `my_eval_jaxpr` 即可检查你自己的实现。

# %%
def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1.,
                              lambda x: x - 2.,
                              lambda x: x + 3.],
                      arg)

def func10(arg, n):
    ones = jnp.ones(arg.shape)  # A constant.
    return lax.fori_loop(0, n,
                         lambda i, carry: carry + ones * 3. + arg,
                         arg + ones)

def func11(arr, extra):
    ones = jnp.ones(arr.shape)  # A constant.

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)

weights = np.array([1., 2., 3.], dtype=np.float32)

def scaled(x):
    return jnp.sum(x * weights) * 2.

cases = [(func1, (jnp.zeros(8), jnp.ones(8))), (scaled, (jnp.ones(3),)), (one_of_three, (2, 5.)),
         (func10, (np.ones(16), 5)), (func11, (np.ones(16), 5.)), (func12, (1.,))]
for f, args in cases:
    program = jaxprlens.trace(f, *args)
    ours = eval_program(program, *program.args)
    expected = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    ok = all(np.allclose(a, b) for a, b in zip(ours, expected)) and len(ours) == len(expected)
    print(f"{f.__name__:13} {'ok' if ok else 'MISMATCH'}")

# %% [markdown]
# **Going further / 延伸**: make `eval_program` recurse into `eqn.subs` instead of calling `bind` on
# higher-order primitives (autodidax does this for `cond` and `while`), or count how many times each
# primitive runs. 让 `eval_program` 对高阶原语递归进入 `eqn.subs` 而不是直接 `bind`（autodidax 对 `cond`、`while`
# 正是这样做的），或者统计每个原语执行了多少次。
