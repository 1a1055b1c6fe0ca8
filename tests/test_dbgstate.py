"""The debugger's state as data and text (``views.debugger.state``), and the recorded replay's bounds
(``views.debugger.replay``): its text names what its panel names, and recording holds the program's live values, not
every value it made."""
import re
from html import unescape
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxprlens
from jaxprlens.engine.memory import memory, stepping_bytes
from jaxprlens.engine.stepper import Stepper
from jaxprlens.model import trace
from jaxprlens.views.debugger import replay
from jaxprlens.views.debugger.panel import pieces
from jaxprlens.views.debugger.state import TEXT_RESULTS, StateView


def panel_names(view: StateView) -> list:
    """The names the value panel's HTML shows, in order."""
    html = pieces(view.state(jit=False), view.lang, False, True)["values"]
    return [unescape(n) for n in re.findall(r'<td class="jl-vname"[^>]*><var>([^<]*)</var>', html)]


# ---------------------------------------------------------------- text/plain says what the panel says

def jax_names(n: int, first: int = 1) -> list:
    """The names JAX's printer gives a jaxpr's variables, from the ``first``-th: ``b c ... z ba bb ...``."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    out = []
    for i in range(first, first + n):
        name = ""
        while True:
            name = letters[i % 26] + name
            i = i // 26
            if not i:
                break
        out.append(name)
    return out


def scalar_html(title: str, name: str, x: int) -> str:
    """A float32 scalar's rows in the value panel (the snapshot's, no script)."""
    return (f'<tr class="jl-value" data-var="{name}"><td class="jl-vtitle">{title}</td><td class="jl-vname">'
            f'<var>{name}</var></td><td>()</td><td>float32</td></tr><tr class="jl-value-data"><td class="jl-vcell" '
            f'colspan="4"><div class="jl-stats">min {x}  max {x}  mean {x}  NaN 0</div><div class="jl-vrow">'
            f'<pre class="jl-val">{x}.0</pre></div></td></tr>')


PANEL_HEAD = ('<table class="jl-values"><thead><tr><th></th><th>name</th><th>shape</th><th>dtype</th></tr></thead>'
              "<tbody>")


def panel_html(view: StateView) -> str:
    return pieces(view.state(jit=False), view.lang, False)["values"]


def test_a_from_jaxpr_programs_two_results_are_named_alike_in_the_text_and_the_panel():
    program = jaxprlens.from_jaxpr(jax.make_jaxpr(lambda x: (x + 1, x * 2))(jnp.float32(1)))
    st = program.stepper(jnp.float32(3))
    st.run()
    view = StateView(st)
    assert view.text() == textwrap.dedent("""\
        jaxprlens debugger: finished
          last: 1 (mul)
            c = 6.0
          b = 4.0
          c = 6.0""")
    assert panel_html(view) == (PANEL_HEAD + scalar_html("output of 1 (mul)", "c", 6) + scalar_html("result", "b", 4)
                                + scalar_html("result", "c", 6) + "</tbody></table>")


def test_120_results_the_panel_lists_every_one_and_the_text_the_first_and_how_many_more():
    n = 120
    program = jaxprlens.from_jaxpr(jax.make_jaxpr(lambda x: tuple(x + i for i in range(n)))(jnp.float32(0)))
    st = program.stepper(jnp.float32(0))
    st.run()
    view = StateView(st)
    names = jax_names(n)                               # b ... z, ba ... eq: the jaxpr's own names
    last = names[-1]
    assert view.text() == "\n".join(
        ["jaxprlens debugger: finished", f"  last: {n - 1} (add)", f"    {last} = {n - 1}.0"]
        + [f"  {name} = {i}.0" for i, name in enumerate(names[:TEXT_RESULTS])]
        + [f"  +{n - TEXT_RESULTS} more results (the value panel lists every one)"])
    assert panel_html(view) == (PANEL_HEAD + scalar_html(f"output of {n - 1} (add)", last, n - 1)
                                + "".join(scalar_html("result", name, i) for i, name in enumerate(names))
                                + "</tbody></table>")
    zh = StateView(st, "zh").text().splitlines()[-1]
    assert zh == f"  另有 {n - TEXT_RESULTS} 个结果（值面板列出全部）"


def test_text_names_results_by_their_python_paths():
    program = trace(lambda x: {"loss": x.sum(), "grads": (x * 2, x - 1)}, jnp.arange(3.))
    st = program.stepper()
    st.run()
    view = StateView(st)
    assert view.text().splitlines()[-3:] == ["  out['grads'][0] = [0., 2., 4.]",
                                              "  out['grads'][1] = [-1., 0., 1.]", "  out['loss'] = 3.0"]
    assert panel_names(view)[-3:] == ["out['grads'][0]", "out['grads'][1]", "out['loss']"]


# ---------------------------------------------------------------- a forward-only stepper holds the live values

def chain(x, w):
    y = jnp.tanh(x * 2.0 + w)
    z = jnp.sin(y) * jnp.cos(x)
    for _ in range(6):
        z = z * 0.9 + y

    def body(i, c):
        return c * 0.5 + jnp.exp(-c)
    z = jax.lax.fori_loop(0, 3, body, z)
    return z.sum(), z - y


N = 1 << 18                  # 1 MB a float32 value


def held(st: Stepper) -> int:
    """The bytes of the distinct arrays the stepper's frames hold."""
    seen = {}
    for f in st.frames:
        for x in f.env.values():
            if isinstance(x, jax.Array):
                seen[id(x)] = x.nbytes
    return sum(seen.values())


def test_a_forward_only_stepper_holds_its_frames_live_values_and_computes_the_same():
    x, w = jnp.linspace(0., 1., N, dtype=jnp.float32), jnp.float32(0.5)
    program = trace(chain, x, w)
    st = Stepper(program, x, w, forward_only=True)
    most = 0
    while not st.done:
        st.step_into()
        st.forget()
        most = max(most, held(st))
        assert not st.can_back and not st.history_truncated
    lean = st.outputs
    full = Stepper(program, x, w)
    full.run()
    assert held(full) >= 15 * 4 * N                      # every value of the top level kept
    assert most <= memory(program).peak + 2 * 4 * N       # the live values, and a loop body's carry
    for a, b, c in zip(*(jax.tree_util.tree_leaves(v) for v in (lean, full.outputs, jax.jit(chain)(x, w)))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))          # the very eager operations
        np.testing.assert_allclose(np.asarray(a), np.asarray(c), rtol=1e-5, atol=1e-6)


def test_recording_holds_no_more_than_the_live_values(monkeypatch):
    x, w = jnp.linspace(0., 1., N, dtype=jnp.float32), jnp.float32(0.5)
    program = trace(chain, x, w)
    most, forget = [0], Stepper.forget

    def measured(st):
        gone = forget(st)
        most[0] = max(most[0], held(st))
        return gone
    monkeypatch.setattr(Stepper, "forget", measured)
    data = replay.record(program, x, w)
    assert not data["capped"] and len(data["steps"]) > 20
    assert 0 < most[0] <= memory(program).peak + 2 * 4 * N


# ---------------------------------------------------------------- the size check before recording

@pytest.mark.parametrize("lang, words", [("en", "call it on smaller inputs"), ("zh", "请用更小的输入")])
def test_a_recording_that_would_not_fit_is_not_started_and_says_what_to_do(monkeypatch, lang, words):
    x, w = jnp.linspace(0., 1., N, dtype=jnp.float32), jnp.float32(0.5)
    program = trace(chain, x, w)
    need = stepping_bytes(program)
    assert need >= memory(program).peak + 3 * 4 * N
    monkeypatch.setattr(replay, "free_bytes", lambda: need)          # 80% of it may be taken: too little
    data = replay.record(program, x, w, lang=lang)
    assert data["capped"] and len(data["steps"]) == 1
    assert words in data["note"]
    assert "9.4 MB" in data["note"] or f"{need / 1e6:.1f} MB" in data["note"]
    monkeypatch.setattr(replay, "free_bytes", lambda: 2 * need)
    assert not replay.record(program, x, w, lang=lang)["capped"]
