# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lecture 9 · Exercise: write your own `eval_jaxpr` / 第 9 讲 · 练习：自己写一个 `eval_jaxpr`
#
# In the spirit of JAX's *autodidax* and its guide "Writing custom interpreters": a jaxpr is data, so an
# interpreter for it is a short loop. Keep an environment from variables to values; write the constants and the
# inputs; for each equation read its inputs, apply its primitive, write its outputs; finally read the outputs.
# You work on JAX's own objects, the ones `jax.make_jaxpr` returns.
#
# 仿照 JAX 的 *autodidax* 与指南《Writing custom interpreters》：jaxpr 是数据，它的解释器只是一个简短的循环。维护一个
# 从变量到值的环境：先写入常量和输入；对每个方程读出输入、执行原语、写入输出；最后读出结果。你操作的是 JAX 自己的对象，
# 也就是 `jax.make_jaxpr` 返回的那些。
#
# **Goal.** Write an interpreter of jaxprs on JAX's own objects, then make it recurse into sub-jaxprs. **Time:**
# 45 minutes.
#
# **目标**：在 JAX 自己的对象上写一个 jaxpr 解释器，再让它递归进入子 jaxpr。
# **时长**：45 分钟。

# %%
%load_ext jaxprlens

# %% [markdown]
# ## What you work with / 可用的材料
#
# From `jax.extend.core`:
# - `Jaxpr`: `constvars`, `invars`, `eqns`, `outvars`; `jax.make_jaxpr(f)(*args)` returns one whose `consts`
#   are the values of its constvars (on JAX ≤ 0.10 a `ClosedJaxpr` wrapping it; `closed.jaxpr` and
#   `closed.consts` work on every version, lecture 3).
# - `JaxprEqn`: `primitive`, `params`, `invars`, `outvars`.
# - An atom (an equation's input, or an output of the jaxpr) is a `Var` (hashable: use it as a dict key) or a
#   `Literal`, whose value is `lit.val`.
# - `prim.bind(*values, **prim.get_bind_params(eqn.params))` applies a primitive; it returns a list when
#   `prim.multiple_results` is true. Before JAX 0.9.2 `get_bind_params` returned a pair `(subfuns, params)`:
#   there write `subfuns, params = prim.get_bind_params(eqn.params)` and
#   `prim.bind(*subfuns, *values, **params)`.
#
# 来自 `jax.extend.core`：`Jaxpr` 有 `constvars`、`invars`、`eqns`、`outvars`；`jax.make_jaxpr(f)(*args)` 返回的
# jaxpr 的 `consts` 是其 constvars 的值（JAX ≤ 0.10 中是包装它的 `ClosedJaxpr`；`closed.jaxpr` 与 `closed.consts`
# 在各版本上都可用，见第 3 讲）。`JaxprEqn` 有 `primitive`、`params`、`invars`、`outvars`。原子（方程的输入或 jaxpr
# 的输出）要么是 `Var`（可哈希，可直接作为字典键），要么是 `Literal`（其值为 `lit.val`）。用
# `prim.bind(*values, **prim.get_bind_params(eqn.params))` 执行原语；当 `prim.multiple_results` 为真时返回列表。
# JAX 0.9.2 之前 `get_bind_params` 返回二元组 `(subfuns, params)`：那时要写
# `subfuns, params = prim.get_bind_params(eqn.params)` 与 `prim.bind(*subfuns, *values, **params)`。

# %%
import numpy as np
import jax
import jax.numpy as jnp
import jax.extend.core as jcore
from jax import lax, make_jaxpr

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

closed = make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8))
print(closed.pretty_print(use_color=False))
eqn = closed.jaxpr.eqns[1]
print(type(eqn).__name__, eqn.primitive, [type(a).__name__ for a in eqn.invars], eqn.invars[1].val)

# %% [markdown]
# ## The programs your interpreter must run / 你的解释器要运行的程序
#
# Plain arithmetic, a hoisted constant, `switch`, `fori_loop` (a `while`), `scan` and a nested `jit`. The check
# cells compare your results with `jax.jit`'s.
#
# 普通算术、被提升的常量、`switch`、`fori_loop`（即 `while`）、`scan` 以及嵌套的 `jit`。检查单元格会把你的结果与
# `jax.jit` 的结果比较。

# %% tags=["checks"]
import os
import sys

import numpy as np
import jax
import jax.numpy as jnp
import jax.extend.core as jcore
from jax import lax, make_jaxpr
from jaxprlens.exercise import fail, passed, pending

def func1(first, second):
    temp = first + jnp.sin(second) * 3.
    return jnp.sum(temp)

weights = np.array([1., 2., 3.], dtype=np.float32)

def scaled(x):
    return jnp.sum(x * weights) * 2.

def one_of_three(index, arg):
    return lax.switch(index, [lambda x: x + 1., lambda x: x - 2., lambda x: x + 3.], arg)

def func10(arg, n):
    ones = jnp.ones(arg.shape)
    return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)

def func11(arr, extra):
    ones = jnp.ones(arr.shape)

    def body(carry, aelems):
        ae1, ae2 = aelems
        return (carry + ae1 * ae2 + extra, carry)
    return lax.scan(body, 0., (arr, ones))

def func12(arg):
    @jax.jit
    def inner(x):
        return x + arg * jnp.ones(1)
    return arg + inner(arg - 2.)

CASES = [(func1, (jnp.zeros(8), jnp.ones(8))), (scaled, (jnp.ones(3),)), (one_of_three, (2, 5.)),
         (func10, (np.ones(16), 5)), (func11, (np.ones(16), 5.)), (func12, (1.,))]
HIGHER_ORDER = ("cond", "while", "jit", "pjit")
# JAX's own interpreters of a jaxpr: calling one is not writing yours.
# JAX 自己的 jaxpr 解释器：调用它们不等于自己写了一个。
THEIRS = {"eval_jaxpr", "jaxpr_as_fun"}
THEIR_FUNCTIONS = [f for f in (getattr(jax.core, "eval_jaxpr", None), getattr(jcore, "jaxpr_as_fun", None)) if f]


def used_names(code, scope=None, seen=None):
    # The global and attribute names a function's code uses, its nested functions' included, and with `scope`
    # (its globals) those of the global functions it calls, so that a helper's names count as its own.
    # 函数代码用到的全局名和属性名，包括其嵌套函数用到的；给出 `scope`（它的全局名字空间）时，还包括它调用的全局函数
    # 用到的，这样辅助函数里的名字也算数。
    seen = set() if seen is None else seen
    if code in seen:
        return set()
    seen.add(code)
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= used_names(const, scope, seen)
    for name in code.co_names:
        helper = (scope or {}).get(name)
        if hasattr(helper, "__code__") and helper.__globals__ is scope:
            names |= used_names(helper.__code__, scope, seen)
    return names


def reads_the_jaxpr(evaluate):
    # Fail unless `evaluate` walks the equations itself, instead of handing the jaxpr to JAX's interpreter.
    # 除非 `evaluate` 自己逐个遍历方程，而不是把 jaxpr 交给 JAX 的解释器，否则判为不通过。
    name, names = evaluate.__name__, used_names(evaluate.__code__, evaluate.__globals__)
    calls_theirs = names & THEIRS or any(evaluate.__globals__.get(n) is f for n in names for f in THEIR_FUNCTIONS)
    if calls_theirs or "eqns" not in names:
        fail(f"{name} must interpret the jaxpr itself, not hand it to JAX's own eval_jaxpr.",
             f"{name} 必须自己解释 jaxpr，而不是把它交给 JAX 自己的 eval_jaxpr。",
             "Walk jaxpr.eqns: read each equation's inputs, bind its primitive, write its outputs.",
             "遍历 jaxpr.eqns：读入每个方程的输入，bind 它的原语，写入它的输出。")


def why(error, evaluate):
    # What to look at for an error the evaluator raised: an unhandled Literal, the pair `get_bind_params` returned
    # before JAX 0.9.2, or a variable read before it was written.
    # 求值器抛出的错误该从哪里查：没有处理的 Literal、JAX 0.9.2 之前 `get_bind_params` 返回的二元组，或者先读后写的变量。
    key = error.args[0] if isinstance(error, KeyError) and error.args else None
    if isinstance(key, jcore.Literal) or "unhashable type: 'Literal'" in str(error):
        return ("A Literal (a constant written into its equation, such as 3.0) is not in env: read must return "
                "atom.val when atom is a jcore.Literal.",
                "Literal（直接写在方程里的常量，例如 3.0）不在 env 里：atom 是 jcore.Literal 时，read 要返回 atom.val。")
    if "get_bind_params" in used_names(evaluate.__code__) and isinstance(error, (ValueError, TypeError)):
        return ("Since JAX 0.9.2 get_bind_params returns the params alone: write "
                "prim.bind(*values, **prim.get_bind_params(eqn.params)); the pair (subfuns, params) was older JAX's.",
                "自 JAX 0.9.2 起 get_bind_params 只返回参数：写成 prim.bind(*values, **prim.get_bind_params(eqn.params))；"
                "二元组 (subfuns, params) 是更早的 JAX 的写法。")
    if isinstance(key, jcore.Var):
        return ("A variable was read before it was written: write the constvars and the invars before the first "
                "equation, and every outvar of each equation.",
                "有变量在写入之前就被读取了：在第一个方程之前写入 constvars 与 invars，并写入每个方程的每个 outvar。")
    return ("Print the jaxpr and find the equation your evaluator was running when the error came.",
            "打印这个 jaxpr，找出出错时你的求值器正在运行哪个方程。")


JAX_FILES = os.path.dirname(jax.__file__)


def bound_by_you(run):
    # Run `run()` and list the higher-order primitives bound from code outside JAX (yours); JAX binding `while`
    # inside its own `scan` does not count.
    # 运行 `run()`，列出从 JAX 之外的代码（你的代码）bind 的高阶原语；JAX 在自己的 `scan` 内部 bind 的 `while` 不算。
    bound, before = [], sys.getprofile()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name == "bind":
            prim, caller = frame.f_locals.get("self"), frame.f_back
            if (getattr(prim, "name", None) in HIGHER_ORDER and caller is not None
                    and not caller.f_code.co_filename.startswith(JAX_FILES)):
                bound.append(prim.name)
    sys.setprofile(profile)
    try:
        return run(), bound
    finally:
        sys.setprofile(before)


def check_evaluator(evaluate, recursive=False):
    # Run `evaluate(jaxpr, consts, *args)` on every case and compare with jax.jit. With `recursive`, `evaluate`
    # must run the sub-jaxprs of cond, while and jit itself (directly or through helpers) instead of binding them.
    # 在每个用例上运行 `evaluate(jaxpr, consts, *args)`，并与 jax.jit 的结果比较。给出 `recursive` 时，
    # `evaluate` 还必须自己（直接或通过辅助函数）运行 cond、while 和 jit 的子 jaxpr，而不是 bind 这些原语。
    name = evaluate.__name__
    for f, args in CASES:
        closed = make_jaxpr(f)(*args)
        expected = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        try:
            ours, bound = bound_by_you(lambda: evaluate(closed.jaxpr, closed.consts, *jax.tree_util.tree_leaves(args)))
        except NotImplementedError:
            pending(f"write {name}", f"写好 {name}")
            return
        except Exception as e:  # the student's code: say which program broke it and how / 学生的代码：说明是哪个程序、出了什么错
            error = f"{type(e).__name__}: {e}"
            fail(f"{name} raised {error} while running {f.__name__}.",
                 f"{name} 在运行 {f.__name__} 时出错（{error}）。", *why(e, evaluate))
        ok = len(ours) == len(expected) and all(np.allclose(a, b) for a, b in zip(ours, expected))
        if not ok:
            got, want = [np.asarray(o).tolist() for o in ours], [np.asarray(o).tolist() for o in expected]
            fail(f"{name} gives {got} for {f.__name__}, jax.jit gives {want}.",
                 f"{name} 对 {f.__name__} 的结果是 {got}，jax.jit 的结果是 {want}。")
        if recursive and bound:
            fail(f"the values are right, but for {f.__name__} {name} bound {bound[0]} instead of running its "
                 "sub-jaxprs itself.",
                 f"结果正确，但对 {f.__name__}，{name} 直接 bind 了 {bound[0]}，而不是自己运行它的子 jaxpr。")
    reads_the_jaxpr(evaluate)
    passed()


# %% [markdown]
# ## Exercise 1: `my_eval_jaxpr` / 练习 1
#
# Fill in `my_eval_jaxpr(jaxpr, consts, *args)`, then run the check cell. Sub-jaxprs need no special care in
# this first version: `bind` of `cond`, `while`, `scan` and `jit` runs them for you. Write the loop over
# `jaxpr.eqns` yourself: the check refuses an evaluator that hands the jaxpr to JAX's own `eval_jaxpr`.
#
# 补全 `my_eval_jaxpr(jaxpr, consts, *args)`，然后运行检查单元格。第一个版本无需专门处理子 jaxpr：对 `cond`、
# `while`、`scan`、`jit` 调用 `bind` 会替你执行它们。对 `jaxpr.eqns` 的循环要自己写：把 jaxpr 交给 JAX 自己的
# `eval_jaxpr` 的解释器通不过检查。

# %% tags=["exercise-1"]
def my_eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(atom):
        ...  # a Literal's value, or the value written for a Var / Literal 的值，或为 Var 写入的值

    def write(var, value):
        ...  # remember value for var / 记下 var 的值

    # 1. write constvars <- consts and invars <- args
    # 2. for each eqn: read its inputs, bind its primitive with its params, write its outputs
    # 3. return the values of the outvars (a list)
    # 1. 把 consts 写入各个 constvar，把 args 写入各个 invar
    # 2. 对每个方程：读入它的输入，用它的参数 bind 它的原语，写入它的输出
    # 3. 返回 outvars 的值（一个列表）
    raise NotImplementedError  # your turn / 轮到你了


# %% tags=["check-1"]
check_evaluator(my_eval_jaxpr)


# %% tags=["solution-1"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
def my_eval_jaxpr(jaxpr, consts, *args):
    env = {}

    def read(atom):
        return atom.val if isinstance(atom, jcore.Literal) else env[atom]

    def write(var, value):
        env[var] = value

    for v, c in zip(jaxpr.constvars, consts):
        write(v, c)
    for v, a in zip(jaxpr.invars, args):
        write(v, a)
    for eqn in jaxpr.eqns:
        prim = eqn.primitive
        outs = prim.bind(*[read(a) for a in eqn.invars], **prim.get_bind_params(eqn.params))
        for v, out in zip(eqn.outvars, outs if prim.multiple_results else [outs]):
            write(v, out)
    return [read(a) for a in jaxpr.outvars]


# %% [markdown]
# ## Exercise 2: recurse into sub-jaxprs / 练习 2：递归进入子 jaxpr
#
# Now run `cond`, `while` and `jit` yourself, the way autodidax does, instead of binding them. Their sub-jaxprs
# are in their params, each with its own `jaxpr` and `consts`:
# - `cond`: operands `index, *ops`; run `params["branches"][index]` on `ops` (`cond` expects an index in range,
#   and `lax.switch` has clamped it already, lecture 4);
# - `while`: operands are `cond_nconsts` cond consts, `body_nconsts` body consts, then the carry; run
#   `params["cond_jaxpr"]` on cond consts + carry, and while it returns true, replace the carry by
#   `params["body_jaxpr"]` run on body consts + carry (lecture 5);
# - `jit`: run `params["jaxpr"]` on the operands (lecture 7).
#
# Recurse by calling `my_eval_recursive` itself; every other primitive (`scan` included) may still be bound.
#
# 现在像 autodidax 那样自己执行 `cond`、`while` 与 `jit`，而不是 bind 它们。它们的子 jaxpr 在参数里，各自带有 `jaxpr`
# 与 `consts`：`cond` 的操作数是 `index, *ops`，用 `ops` 运行 `params["branches"][index]`（`cond` 要求索引不越界，
# `lax.switch` 已经钳制过它，第 4 讲）；`while` 的操作数依次是 `cond_nconsts` 个条件常量、`body_nconsts` 个循环体常量和携带值：用条件常量 +
# 携带值运行 `params["cond_jaxpr"]`，只要结果为真，就用循环体常量 + 携带值运行 `params["body_jaxpr"]` 得到新的携带值
# （第 5 讲）；`jit` 用操作数运行 `params["jaxpr"]`（第 7 讲）。递归时调用 `my_eval_recursive` 本身；其余原语（包括
# `scan`）仍可以 bind。

# %% tags=["exercise-2"]
def my_eval_recursive(jaxpr, consts, *args):
    raise NotImplementedError  # your turn / 轮到你了


# %% tags=["check-2"]
check_evaluator(my_eval_recursive, recursive=True)


# %% tags=["solution-2"] jupyter={"source_hidden": true}
# Solution: click to open
# 参考答案：点击展开
def run_sub(closed, *args):
    return my_eval_recursive(closed.jaxpr, closed.consts, *args)


def cond_rule(params, index, *ops):
    branches = params["branches"]
    return run_sub(branches[int(index)], *ops)  # in range: lax.switch clamped it / 不越界：lax.switch 已钳制


def while_rule(params, *operands):
    cn, bn = params["cond_nconsts"], params["body_nconsts"]
    cond_consts, body_consts, carry = operands[:cn], operands[cn:cn + bn], operands[cn + bn:]
    while run_sub(params["cond_jaxpr"], *cond_consts, *carry)[0]:
        carry = run_sub(params["body_jaxpr"], *body_consts, *carry)
    return list(carry)


def jit_rule(params, *operands):
    return run_sub(params["jaxpr"], *operands)


sub_rules = {"cond": cond_rule, "while": while_rule, "jit": jit_rule, "pjit": jit_rule}


def my_eval_recursive(jaxpr, consts, *args):
    env = {}

    def read(atom):
        return atom.val if isinstance(atom, jcore.Literal) else env[atom]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        prim, values = eqn.primitive, [read(a) for a in eqn.invars]
        if prim.name in sub_rules:
            outs = sub_rules[prim.name](eqn.params, *values)
        else:
            outs = prim.bind(*values, **prim.get_bind_params(eqn.params))
            outs = outs if prim.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [read(a) for a in jaxpr.outvars]

# %% [markdown]
# **Going further / 延伸**: add a rule for `scan` (slice the xs, run the body `length` times, stack the ys), or
# count how many times each primitive runs. jaxprlens's own stepper (`jaxprlens.trace(f, *args).stepper()`,
# lecture 8) is such an interpreter, one equation at a time.
#
# 为 `scan` 加一条规则（切片 xs、运行循环体 `length` 次、堆叠 ys），或者统计每个原语执行了多少次。jaxprlens 自己的单步
# 执行器（`jaxprlens.trace(f, *args).stepper()`，第 8 讲）就是这样一个逐方程执行的解释器。
