import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import marimo as mo

    return (mo,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    # Lecture 1 · What a jaxpr is

    A **jaxpr** is JAX's internal intermediate representation (IR). It is **explicitly typed**, **functional**,
    **first-order** and in **A-normal form** (ANF: every intermediate value is bound to a variable, and every
    operand is a variable or a literal). `jax.jit` and `jax.make_jaxpr` *trace* your Python function into this
    small, well-behaved language. `jax.grad` and `jax.vmap` do **not** first build a jaxpr of your function and
    then interpret it: their JVP and batching rules are applied *while* the function is being traced (`grad` then
    transposes the linear part it recorded). When you see the jaxpr of a gradient, it is because `make_jaxpr`
    traced the transformed function `jax.grad(f)` (lecture 12).

    **Goal.** Read a jaxpr's parts (inputs, equations, outputs, types) and say what tracing and A-normal form mean.
    **Time:** 30 minutes.
    """)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    *In marimo:* marimo has no cell magics, so each `%%jaxpr OPTIONS` cell of this lecture is written with its last call as `jaxprlens.show(fn, *args, option=value)`: `%%jaxpr --graph` over `f(x)` is `jaxprlens.show(f, x, graph=True)`.
    """)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    > **Errata** — the article expands ANF as "Algebraic Normal Form" (「代数正规形式」), and so do JAX's
    > own jaxpr notes. ANF is **A-normal form** (「A 范式」, Flanagan, Sabry, Duba and Felleisen, 1993): a program
    > in which the arguments of every operation are atoms. It has nothing to do with algebra.
    > The article also says transformations "first trace the function into a jaxpr, then interpret it with
    > transformation-specific rules". That is how to *picture* it, not what `jax.grad`/`jax.vmap` do: their rules
    > run during tracing, and no intermediate jaxpr of `f` is built.
    """)
    return


@app.cell
def _():
    import jaxprlens

    return (jaxprlens,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## A first jaxpr

    The `%%jaxpr` cell magic runs the cell as usual and traces its **last call** with `jax.make_jaxpr`.
    The table shows one row per equation, the source line it came from, and what the primitive does.
    """)
    return


@app.cell
def _(jaxprlens):
    import jax.numpy as jnp

    def func1(first, second):
        temp = first + jnp.sin(second) * 3.
        return jnp.sum(temp)

    jaxprlens.show(func1, jnp.zeros(8), jnp.ones(8))
    return func1, jnp


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## The grammar

    The term grammar of the article: a jaxpr is a `let` expression with explicitly bound, typed variables.

    ```
    jaxpr   ::= { lambda binder , ... . let eqn ... in ( atom , ... ) }
    binder  ::= var:array_type
    var     ::= a | b | c | ...
    atom    ::= var | literal
    literal ::= int32 | int64 | float32 | float64
    eqn     ::= binder , ... = primitive [ params ] atom , ...
    ```

    `jax.make_jaxpr` prints `{ lambda constvars ; invars . let eqns in (outs) }`: the variables before the `;` are
    hoisted constants (constvars), those after it are the inputs (invars). Each equation applies one primitive to
    atoms (variables or literals); parameters are printed in square brackets as `name=value`. A program that uses
    one sub-jaxpr more than once is printed after `let name = { lambda ... } in`, that sub-jaxpr printed once and
    named first (lecture 0, before exercise 2).
    """)
    return


@app.cell
def _(func1, jnp):
    from jax import make_jaxpr

    print(make_jaxpr(func1)(jnp.zeros(8), jnp.ones(8)).pretty_print(use_color=False))
    return (make_jaxpr,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    Reading it row by row: there are no constvars; `a` and `b` are `first` and `second`; the scalar literal
    `3.0` is inlined into `mul` (today JAX prints its type too, `3.0:f32[]`); `reduce_sum` has the parameter
    `axes=(0,)`. Since JAX 0.8 it also prints `out_sharding=None` (this course is recorded on 0.12.0.1); the
    article's much older JAX printed `input_shape=(8,)` there instead.
    """)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    `--text` shows exactly what JAX prints; `--lang zh` writes the table in Chinese.
    """)
    return


@app.cell
def _(func1, jaxprlens, jnp):
    jaxprlens.show(func1, jnp.zeros(8), jnp.ones(8), text=True)
    return


@app.cell
def _(func1, jaxprlens, jnp):
    jaxprlens.show(func1, jnp.zeros(8), jnp.ones(8), lang='zh')
    return


@app.cell(hide_code=True)
def _(mo):
    # Cell tags: needs-feature
    mo.md(r"""
    The same program as a dataflow graph: inputs at the top, one node per equation, edges named like the table.
    """)
    return


@app.cell
def _(func1, jaxprlens, jnp):
    # Cell tags: needs-feature
    jaxprlens.show(func1, jnp.zeros(8), jnp.ones(8), graph=True)
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## `make_jaxpr`'s own parameters

    `jax.make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False)` takes three parameters besides the
    function. `static_argnums` marks arguments that are not traced: their Python values are read while tracing,
    so `n` below unrolls the loop and is not an input of the jaxpr (it has one input, `a`; this short jaxpr prints
    on one line). `return_shape=True` returns the jaxpr together with the shape and dtype of the output, as
    `jax.ShapeDtypeStruct`s. `axis_env` names mapped axes and their sizes, so that a collective such as `psum`
    over the axis `"batch"` can be traced outside `shard_map` or `vmap` (without it, JAX raises a `NameError`).
    """)
    return


@app.cell
def _(func1, jnp, make_jaxpr):
    import jax


    def power(x, n):
        for _ in range(n - 1):
            x = x * x
        return x


    print(make_jaxpr(power, static_argnums=1)(2., 3).pretty_print(use_color=False))
    closed, shape = make_jaxpr(func1, return_shape=True)(jnp.zeros(8), jnp.ones(8))
    print(shape)
    print(make_jaxpr(lambda x: jax.lax.psum(x, "batch"), axis_env=[("batch", 4)])(1.).pretty_print(use_color=False))
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    ## Exercises

    Predict first, then check: replace `None` with your answer and run the check cell below it. Each check
    computes the truth from JAX itself. The folded cell after each check holds a solution; run it, then the
    check again, to see it pass.
    """)
    return


@app.cell
def _():
    # Cell tags: checks
    from jaxprlens.exercise import check

    return (check,)


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    **Exercise 1.** How many equations will `make_jaxpr` print for `g`?
    """)
    return


@app.cell
def _(jnp):
    # Cell tags: exercise-1
    def g(x, y):
        return jnp.sum(jnp.cos(x) * y + 2.)

    answer_1 = None  # an int
    return answer_1, g


@app.cell
def _(answer_1, check, g, jnp, make_jaxpr):
    # Cell tags: check-1
    eqns = make_jaxpr(g)(jnp.ones(4), jnp.ones(4)).jaxpr.eqns
    check(answer_1, len(eqns),
          "Count one equation per primitive applied; a scalar literal such as 2. is an operand, not an equation.",
          "每施加一个原语就有一个方程；2. 这样的标量字面量只是操作数，不是方程。")
    return


@app.cell(hide_code=True)
def _():
    # Cell tags: solution-1
    # Solution: click to open
    # cos, mul, add (2.0 is a literal operand of add), reduce_sum.
    answer_1_1 = 4
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    **Exercise 2.** Which primitives does `h` bind, in order? Answer with a list of primitive names as
    the jaxpr prints them (`jnp.sum` prints as `reduce_sum`, `*` as `mul`).
    """)
    return


@app.cell
def _(jnp):
    # Cell tags: exercise-2
    def h(x):
        return jnp.sum(x * x) - 1.

    answer_2 = None  # a list of str, e.g. ["sin", "add"]
    return answer_2, h


@app.cell
def _(answer_2, check, h, jnp, make_jaxpr):
    # Cell tags: check-2
    prims = [e.primitive.name for e in make_jaxpr(h)(jnp.ones(4)).jaxpr.eqns]
    check(answer_2, prims,
          "Read h from the inside out: the product comes first, then the sum, then the subtraction; a jaxpr is in "
          "A-normal form, so each becomes its own equation.",
          "从里往外读 h：先乘，再求和，最后减；jaxpr 是 A 范式，每一步各成一个方程。")
    return


@app.cell(hide_code=True)
def _():
    # Cell tags: solution-2
    # Solution: click to open
    answer_2_1 = ['mul', 'reduce_sum', 'sub']
    return


@app.cell(hide_code=True)
def _(mo):
    mo.md(r"""
    **Takeaway**: a jaxpr is a flat list of typed equations over inputs, constants and literals.
    """)
    return


if __name__ == "__main__":
    app.run()
