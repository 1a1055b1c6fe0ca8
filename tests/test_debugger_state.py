"""The debugger's state as data and text (``views.debugger.state``), and the recorded replay's bounds
(``views.debugger.replay``): its text names what its panel names, and recording holds the program's live values, not
every value it made."""
import re
import textwrap
from html import unescape

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from seeds import SEEDS

import jaxprlens
from jaxprlens.engine.memory import memory, stepping_bytes
from jaxprlens.engine.stepper import Stepper
from jaxprlens.model import trace
from jaxprlens.views.debugger import replay
from jaxprlens.views.debugger.debugger import describe, sparkline
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


def test_describe_sparkline_histogram():
    big = describe(jnp.linspace(0., 1., 200))
    assert big["shape"] == "(200,)" and big["dtype"] == "float32" and big["device"] == "cpu:0"
    assert big["stats"] == "min 0  max 1  mean 0.5  NaN 0"
    assert "..." in big["value"] and big["spark"].startswith("▁") and big["spark"].endswith("█")
    assert sum(big["hist"]) == 200 and len(big["hist"]) == 16
    small = describe(np.array([1., np.nan, 3., np.inf]))
    assert small["stats"] == "min 1  max 3  mean 2  NaN 1  Inf 1" and small["spark"] == ""
    assert (small["nan"], small["inf"], small["hist"]) == (1, 1, None)
    assert sparkline(np.ones(100)) == "▁" * 32
    assert len(describe(np.arange(10_000.), limit=10_000, chars=50)["value"]) == 50
    # beside the frame at ~970 px the panel holds ~45 columns: an array's rows wrap there, never scroll sideways
    wide = describe(np.linspace(-1.2590712, 1.9602613, 24).reshape(3, 8))["value"]
    assert max(map(len, wide.splitlines())) <= 44 < len(wide.replace("\n", ""))


def test_the_untrusted_snapshot_says_how_to_get_the_replay():
    from bs4 import BeautifulSoup

    from jaxprlens.views.debugger.debugger import StateView
    fn, args = SEEDS["func1"]
    program = trace(fn, *args)
    for lang, said in (("en", "run the cell, or trust the notebook (JupyterLab, Notebook 7: command palette › Trust "
                              "Notebook; nbclassic: File › Trust Notebook; VS Code: trust the folder), to step through "
                              "it"),
                       ("zh", "运行此单元格，或信任此笔记本（JupyterLab、Notebook 7：命令面板 › 信任笔记本；nbclassic：文件 › "  # noqa: E501 - the exact text a reader sees, kept whole
                              "信任笔记本；VS Code：信任该文件夹），即可逐步执行")):
        note = BeautifulSoup(StateView(program.stepper(), lang).html(), "html.parser").select_one(".jl-snapshot")
        assert note.select_one(".jl-snapshot-how").get_text() == said


def test_the_snapshot_of_a_large_frame_makes_only_the_rows_it_shows():
    """The static snapshot shows 100 rows around the current one, built alone but as the whole table's rows
    (a run of one source line shows it once; a primitive is explained at its first row in the program)."""
    from jaxprlens.present.nouns import block
    from jaxprlens.views.debugger.state import window_rows

    def chain(x):
        for i in range(300):
            x = jnp.sin(x) if i % 3 else x + 0.5
        return x

    program = trace(chain, jnp.ones(3))
    whole = block(program, "en").rows
    for lo, hi in ((0, 100), (1, 50), (150, 250), (250, 400)):
        part = window_rows(program, "en", lo, hi)
        assert [(r.eqn, r.same_source, r.explain) for r in part] == \
            [(r.eqn, r.same_source, r.explain) for r in whole[lo:hi]]


def _with_nans(dtype):
    """100 values of ``dtype`` with 8 NaNs and 2 Infs where the dtype has them, and their float32 copy."""
    x = np.linspace(-3., 5., 100).astype(np.float32)
    if jnp.issubdtype(dtype, jnp.floating):
        x[:8] = np.nan
        if dtype is not jnp.float8_e4m3fn:              # e4m3fn has no Inf (it would be a NaN)
            x[8], x[9] = np.inf, -np.inf
    a = jnp.asarray(x).astype(dtype)
    return a, np.asarray(a).astype(np.float32)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16, jnp.float8_e4m3fn, jnp.float8_e5m2, jnp.int4,
                                   jnp.uint4, jnp.int8, jnp.float32])
def test_value_summary_of_narrow_dtypes_matches_numpy_on_a_float32_copy(dtype):
    a, f32 = _with_nans(dtype)
    d = describe(a)
    finite = f32[np.isfinite(f32)]
    nan, inf = int(np.isnan(f32).sum()), int(np.isinf(f32).sum())
    assert (d["shape"], d["dtype"], d["nan"], d["inf"]) == ("(100,)", jnp.dtype(dtype).name, nan, inf)
    if jnp.issubdtype(dtype, jnp.floating):
        assert nan == 8
    want = f"min {finite.min():.6g}  max {finite.max():.6g}  mean {finite.mean():.6g}  NaN {nan}"
    assert d["stats"] == want + (f"  Inf {inf}" if inf else "")
    assert (d["min"], d["max"]) == (float(f"{finite.min():.6g}"), float(f"{finite.max():.6g}"))
    assert d["hist"] == np.histogram(finite.astype(np.float64), 16)[0].tolist()
    assert d["spark"] and set(d["spark"]) <= set("▁▂▃▄▅▆▇█")
    zh = describe(a, "zh")["stats"]
    assert zh.startswith(f"最小值 {finite.min():.6g}") and f"NaN {nan}" in zh


def test_a_bfloat16_value_with_8_nans_says_8_nans_in_the_panel_and_the_snapshot():
    from jaxprlens.views.debugger.debugger import StateView
    x = jnp.linspace(-1., 1., 32).at[:8].set(jnp.nan).astype(jnp.bfloat16)
    st = trace(lambda x: x * 2, x).stepper()
    st.run()
    item = StateView(st).values()[-1]["items"][0]
    assert item.nan == 8 and item.stats.endswith("NaN 8") and item.hist is not None
    assert "NaN 8" in StateView(st).values_html()


def test_key_arrays_show_their_implementation_shape_and_key_data():
    keys = jax.random.split(jax.random.key(0), 3)
    d = describe(keys)
    data = np.asarray(jax.random.key_data(keys))
    assert (d["shape"], d["dtype"]) == ("(3,)", "key<fry>")
    assert d["stats"] == "PRNG key (threefry2x32), key data uint32[3, 2]"
    assert d["value"].replace(" ", "").replace("\n", "") == str(data.tolist()).replace(" ", "")
    assert (d["nan"], d["hist"], d["spark"]) == (0, None, "")
    assert describe(keys, "zh")["stats"] == "PRNG 密钥（threefry2x32），密钥数据 uint32[3, 2]"
    rbg = describe(jax.random.key(1, impl="rbg"))
    assert (rbg["shape"], rbg["dtype"], rbg["stats"]) == ("()", "key<rbg>", "PRNG key (rbg), key data uint32[4]")


def test_complex_and_bool_values_are_summarised():
    z = jnp.array([3 + 4j, -1 - 2j, 0.5j, complex(np.nan, 0)], jnp.complex64)
    d = describe(z)
    assert d["stats"] == "|x| max 5  real [-1, 3]  imag [-2, 4]  NaN 1" and (d["nan"], d["hist"]) == (1, None)
    assert describe(jnp.array([1 + 1j, complex(np.inf, 0)]))["stats"] == "|x| max 1.41421  real [1, 1]  imag [1, 1]  NaN 0  Inf 1"  # noqa: E501 - the exact text a reader sees, kept whole
    b = describe(jnp.arange(10) % 3 == 0)
    assert (b["stats"], b["nan"], b["hist"]) == ("True 4 of 10", 0, None)
    assert describe(jnp.arange(10) > 20, "zh")["stats"] == "10 个中 True 0 个"
    one = describe(jnp.array(True))
    assert (one["stats"], one["value"], one["min"]) == ("", "True", None)    # one bool: its value says it


def test_the_jit_comparison_reads_keys_and_narrow_dtypes():
    from jaxprlens.views.debugger.debugger import StateView

    def f(key):
        k1, k2 = jax.random.split(key)
        y = jax.random.normal(k2, (20,)).at[:4].set(jnp.nan)
        return k1, y.astype(jnp.bfloat16), y.astype(jnp.float8_e4m3fn), (y * 3).astype(jnp.int4), y * 1j
    st = trace(f, jax.random.key(0)).stepper()
    st.run()
    assert st.jit_check().status == "equal" and st.compare_with_jit() is None
    assert StateView(st).notes() == []
    text = StateView(st).text()
    assert f"out[0] = key<fry>[] [{', '.join(map(str, jax.random.key_data(st.outputs[0]).tolist()))}]" in text


# ---------------------------------------------------------------- host functions are not called behind your back


def test_the_snapshot_and_the_slide_keep_values_whole_and_readable():
    """Untrusted, JupyterLab's ``pre`` breaks anywhere (mid-number): the snapshot's previews say
    ``word-break:normal`` inline. In a reveal slide the debugger stacks (its query in em, so a slide's larger text
    counts) and reveal's small, 90%-wide, shadowed ``pre`` is undone for the values and the source."""
    import re

    from bs4 import BeautifulSoup

    from jaxprlens.present.front import css
    from jaxprlens.views.debugger.debugger import StateView
    fn, args = SEEDS["func1"]
    st = trace(fn, *args).stepper(*args)
    pres = BeautifulSoup(StateView(st).values_html(), "html.parser").select("pre.jl-val")
    assert pres and all("word-break:normal" in p.get("style", "") for p in pres)
    sheet = css(frozenset({"debugger"}))
    assert "@container (max-width:800px) or (max-width:64em)" in sheet
    reset = re.search(r"\.jaxprlens pre\.jl-val,\.jaxprlens pre\.jl-code\{([^}]*)\}", sheet).group(1)
    assert {"font-size:inherit", "width:auto", "box-shadow:none"} <= set(reset.split(";"))


# ---------------------------------------------------------------- one renderer of the panel (issue 27 item 1)
