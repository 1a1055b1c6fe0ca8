"""present/picture.py: values as pictures.  The PNGs are decoded here (zlib) and their pixels read."""
import base64
import re
import struct
import zlib
from html.parser import HTMLParser
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxprlens.engine.stepper import Stepper
from jaxprlens.model import trace
from jaxprlens.present import picture as P
from jaxprlens.views.debugger.state import StateView, value_item


# ---------------------------------------------------------------- a PNG decoder and the fragment's images

def decode(data: bytes):
    """``(chunk names, RGBA pixels [h, w, 4])`` of one of our palette PNGs (8-bit, filter 0 on every row)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, names, chunks = 8, [], {}
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        names.append(kind.decode())
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 3)
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(h, w + 1)
    assert not raw[:, 0].any()                       # filter type 0 on every row
    plte = np.frombuffer(chunks[b"PLTE"], np.uint8).reshape(-1, 3)
    assert raw[:, 1:].max() < len(plte)
    alpha = np.full(len(plte), 255, np.uint8)
    alpha[:len(chunks.get(b"tRNS", b""))] = np.frombuffer(chunks.get(b"tRNS", b""), np.uint8)
    idx = raw[:, 1:]
    return names, np.concatenate([plte[idx], alpha[idx][..., None]], axis=-1)


class Images(HTMLParser):
    """Every tag of a fragment, and its images' attributes."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.imgs = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "img":
            self.imgs.append(dict(attrs))


def pngs(fragment: str, cls: str = "jl-pic-img") -> list:
    """The decoded pixels of the fragment's images of class ``cls``."""
    out = []
    for a in Images(fragment).imgs:
        if a["class"] == cls:
            out.append(decode(base64.b64decode(a["src"].split(",", 1)[1]))[1])
    return out


def colour(name):
    h = P.MARKS[name]
    return [int(h[i:i + 2], 16) for i in (0, 2, 4)]


def ramp(level):
    return list(np.frombuffer(P.palette(), np.uint8).reshape(-1, 3)[level])


def cell(px, scale, i, j):
    """The colour at the middle of cell ``(i, j)``."""
    return list(px[i * scale + scale // 2, j * scale + scale // 2, :3])


def scale_of(px, cells_w):
    return px.shape[1] // cells_w


# ---------------------------------------------------------------- pixels of known values

def test_a_diagonal_matrix_shows_the_top_colour_on_the_diagonal_and_the_bottom_one_elsewhere():
    x = np.eye(8, dtype=np.float32)
    [px] = pngs(P.picture_html(x))
    s = scale_of(px, 8)
    assert px.shape == (8 * s, 8 * s, 4) and s == 16
    for i in range(8):
        for j in range(8):
            assert cell(px, s, i, j) == ramp(P.LEVELS - 1 if i == j else 0)
    assert ramp(0) == [0x44, 0x01, 0x54] and ramp(P.LEVELS - 1) == [0xfd, 0xe7, 0x25]     # viridis' ends


def test_a_nan_at_one_index_is_the_nan_colour_there_and_only_there():
    x = np.arange(30, dtype=np.float32).reshape(5, 6)
    x[3, 4] = np.nan
    html = P.picture_html(x)
    [px] = pngs(html)
    s = scale_of(px, 6)
    is_nan = (px[..., :3] == colour("nan")).all(-1)
    want = np.zeros((5, 6), bool)
    want[3, 4] = True
    assert (is_nan == np.kron(want, np.ones((s, s), bool))).all()
    assert "magenta: NaN (1)" in html and 'data-mark="nan"' in html


def test_inf_and_minus_inf_have_their_own_colours():
    x = np.zeros((3, 3), np.float32)
    x[0, 1], x[2, 2] = np.inf, -np.inf
    html = P.picture_html(x, "zh")
    [px] = pngs(html)
    s = scale_of(px, 3)
    assert cell(px, s, 0, 1) == colour("posinf") and cell(px, s, 2, 2) == colour("neginf")
    assert cell(px, s, 1, 1) == ramp(P.LEVELS // 2)         # one finite number: the map's middle
    assert "青色：+Inf（1 个）" in html and "黑色：−Inf（1 个）" in html


def test_a_one_d_value_is_a_strip_of_rising_colours():
    html = P.picture_html(np.arange(10.0))
    [px] = pngs(html)
    s = scale_of(px, 10)
    assert px.shape[1] == 10 * s and px.shape[0] >= 12
    levels = [np.frombuffer(P.palette(), np.uint8).reshape(-1, 3).tolist().index(cell(px, s, 0, j)) for j in range(10)]
    assert levels == sorted(levels) and levels[0] == 0 and levels[-1] == P.LEVELS - 1
    assert (px[0] == px[-1]).all()                            # every row of the strip the same
    assert "axis 0 left to right (10, 1 per cell)" in html


def test_an_n_d_value_is_facets_of_its_last_two_axes_each_labelled():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    html = P.picture_html(x, name="h")
    assert html.count('class="jl-pic-facet"') == 6 and 'data-facets="6"' in html
    assert "<code>[1, 2, :, :]</code>" in html and "heatmap of h[0, 1, :, :]: float32[2, 3, 4, 5], 4×5 cells" in html
    assert "rows: axis 2 (4, 1 per cell), columns: axis 3 (5, 1 per cell)<" in html
    assert "6 2-D slices (of the last two axes)" in html
    first, last = pngs(html)[0], pngs(html)[-1]
    s = scale_of(first, 5)
    assert cell(first, s, 0, 0) == ramp(0) and cell(last, s, 3, 4) == ramp(P.LEVELS - 1)
    many = P.picture_html(np.zeros((20, 40, 40)))
    assert many.count('class="jl-pic-facet"') == P.FACETS and "16 of 20 2-D slices drawn" in many
    assert 'data-cells="32x32"' in many                       # several slices: fewer cells each


def test_bfloat16_float8_and_int4_values_are_pictured_from_their_numbers():
    for dtype in (jnp.bfloat16, jnp.float8_e4m3fn, jnp.int4):
        x = jnp.eye(4, dtype=dtype)
        html = P.picture_html(x)
        [px] = pngs(html)
        s = scale_of(px, 4)
        assert cell(px, s, 2, 2) == ramp(P.LEVELS - 1) and cell(px, s, 2, 1) == ramp(0), dtype
        assert f"{jnp.dtype(dtype).name}[4, 4]" in html


def test_bool_and_complex_values():
    [px] = pngs(P.picture_html(np.array([[True, False]])))
    s = scale_of(px, 2)
    assert cell(px, s, 0, 0) == ramp(P.LEVELS - 1) and cell(px, s, 0, 1) == ramp(0)
    z = P.picture_html(np.array([[3 + 4j, 0j]]))
    [px] = pngs(z)
    assert cell(px, scale_of(px, 2), 0, 0) == ramp(P.LEVELS - 1) and "|x| 0" in z


def test_a_key_array_gets_no_picture_and_says_why_scalars_and_tokens_get_none():
    k = jax.random.split(jax.random.key(0), 4)
    assert P.picture_html(k) == ('<div class="jl-pic jl-pic-none">'
                                 'no picture: a PRNG key&#x27;s data are random bits</div>')
    assert "不绘图" in P.picture_html(k, "zh")
    assert P.picture_html(np.float32(3)) == P.picture_html(np.zeros(1)) == P.picture_html(object()) == ""
    assert P.picture_html(jax.random.key(0)) == ""                 # one key: nothing to draw or to explain


def test_a_column_is_drawn_wide_enough_to_see_and_uneven_blocks_say_so():
    html = P.picture_html(np.arange(100.0).reshape(100, 1))
    [px] = pngs(html)
    assert px.shape[1] >= 12 and 'data-cells="64x1"' in html
    assert "rows: axis 0 (100, ≈1.56 per cell), columns: axis 1 (1, 1 per cell), a cell is the mean" in html


def test_edited_elements_are_marked_over_everything_else():
    old = np.zeros((4, 4), np.float32)
    new = old.copy()
    new[1, 2] = np.nan
    new[0, 0] = 5
    edit = SimpleNamespace(old=old, new=new)
    assert P.edited_mask(new, [edit]).sum() == 2 and P.edited_mask(old, [edit]) is None
    html = P.picture_html(new, edits=[edit])
    [px] = pngs(html)
    s = scale_of(px, 4)
    assert cell(px, s, 1, 2) == cell(px, s, 0, 0) == colour("edited") and cell(px, s, 3, 3) == ramp(0)
    assert "dark red: edited (2)" in html and "magenta: NaN (1)" in html


# ---------------------------------------------------------------- bounded, deterministic, untrusted

def test_a_4096_by_4096_value_is_64_cells_a_side_in_a_few_kilobytes_and_its_one_nan_still_shows():
    x = np.random.default_rng(0).random((4096, 4096), dtype=np.float32)
    x[4000, 10] = np.nan
    html = P.picture_html(x)
    [px] = pngs(html)
    assert 'data-cells="64x64"' in html and len(html.encode()) < 16_000
    s = scale_of(px, 64)
    is_nan = (px[..., :3] == colour("nan")).all(-1)
    assert is_nan[62 * s:63 * s, 0:s].all() and is_nan.sum() == s * s      # block (62, 0) holds [4000, 10]
    assert ("rows: axis 0 (4096, 64 per cell), columns: axis 1 (4096, 64 per cell), "
            "a cell is the mean of its finite elements") in html
    worst = P.picture_html(np.random.default_rng(1).random((30, 64, 64), dtype=np.float32))
    assert len(worst.encode()) < 64_000                    # 16 slices of 32×32 random cells
    noise = P.picture_html(np.random.default_rng(3).random((64, 64)))          # the most a 2-D value costs
    assert max(len(base64.b64decode(i["src"].split(",", 1)[1])) for i in Images(noise).imgs) <= 8192


def test_the_bytes_are_deterministic_and_carry_no_time_or_text_chunk():
    x = np.random.default_rng(2).normal(size=(50, 70)).astype(np.float32)
    a, b = P.picture_html(x), P.picture_html(x.copy())
    assert a == b
    src = Images(a).imgs[0]["src"]
    names, _ = decode(base64.b64decode(src.split(",", 1)[1]))
    assert names == ["IHDR", "PLTE", "IDAT", "IEND"]
    hist = [i["src"] for i in Images(a).imgs if i["class"] == "jl-pic-hist"][0]      # transparent: one more chunk
    assert decode(base64.b64decode(hist.split(",", 1)[1]))[0] == ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]


def test_the_fragment_survives_jupyterlabs_sanitizer():
    """Untrusted, JupyterLab drops <svg>, <style> and <script> (and event attributes); an <img> with a data: URI
    and alt text stays."""
    x = np.arange(64.0).reshape(2, 4, 8)
    x[0, 0, 0] = np.nan
    html = P.picture_html(x, name="a<b>")
    doc = Images(html)
    assert not {"svg", "style", "script", "canvas"} & set(doc.tags)
    assert not re.search(r"\son\w+=", html) and "a<b>" not in html and "a&lt;b&gt;" in html
    assert doc.imgs and all(a["src"].startswith("data:image/png;base64,") for a in doc.imgs)
    for a in doc.imgs:
        assert set(a) <= {"class", "alt", "title", "width", "height", "style", "src"}
        assert a["alt"] or a["class"] == "jl-pic-swatch"       # a legend's swatch is decorative: its word follows
    hist = [a for a in doc.imgs if a["class"] == "jl-pic-hist"]
    assert hist and hist[0]["alt"].startswith("histogram of the finite values: ")


def test_the_histogram_stands_on_a_transparent_ground_in_the_maps_colours():
    [px] = pngs(P.picture_html(np.arange(100.0).reshape(10, 10) ** 2), "jl-pic-hist")
    assert px[0, -2, 3] == 0 and px[-2, -2, 3] == 255          # the theme's background shows through
    assert list(px[-2, 0, :3]) == ramp(round(0.5 / 16 * (P.LEVELS - 1))) and px[-2, 0, 3] == 255
    assert (px[-1, :, :3] == 128).all() and (px[-1, :, 3] == 255).all()      # the grey baseline


def _lab(rgb):
    c = np.asarray(rgb, float) / 255
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = lin @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    f = np.cbrt(xyz / np.array([0.9505, 1, 1.089]))
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


SIGHT = {   # Machado, Oliveira & Fernandes 2009, severity 1.0, on linear RGB
    "normal": np.eye(3),
    "protan": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deutan": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritan": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]}


@pytest.mark.parametrize("sight", SIGHT)
def test_the_marks_stand_apart_from_the_map_and_each_other_for_colour_blind_readers(sight):
    def seen(rgb):
        c = np.asarray(rgb, float) / 255
        lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) @ np.asarray(SIGHT[sight]).T
        lin = np.clip(lin, 0, 1)
        return _lab(255 * np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055))
    table = np.frombuffer(P.palette(), np.uint8).reshape(-1, 3)
    cmap, marks = seen(table[:P.LEVELS]), seen(table[P.LEVELS:P.GROUND])
    for i, m in enumerate(marks):
        assert np.linalg.norm(cmap - m, axis=1).min() > 25
        for other in marks[i + 1:]:
            assert np.linalg.norm(m - other) > 25


# ---------------------------------------------------------------- in the debugger's value panel

def test_the_value_panel_draws_each_value_and_marks_an_edit():
    x = jnp.eye(6)
    st = Stepper(trace(lambda x: jnp.sin(x) * 2, x), x)
    st.step()
    name = StateView(st).values()[-1]["items"][0].name         # sin's output
    st.set_value(name, jnp.where(jnp.eye(6, dtype=bool), 7.0, jnp.sin(x)))
    view = StateView(st)
    item = view.values()[-1]["items"][0]
    [px] = pngs(item.picture)
    s = scale_of(px, 6)
    assert cell(px, s, 3, 3) == colour("edited") and cell(px, s, 3, 2) == ramp(0)
    assert "dark red: edited (6)" in item.picture
    assert f'alt="heatmap of {name}: float32[6, 6], 6×6 cells' in item.picture
    assert item.picture in view.html()                         # the static snapshot shows it too
    assert 'data-cells="64x64"' in value_item("x", "", np.zeros((100, 100)), "en").picture
    replayed = StateView(st).values(limit=8)[-1]["items"][0].picture          # views/replay's limits
    assert 'data-cells="6x6"' in replayed
    assert 'data-cells="16x16"' in value_item("x", "", np.zeros((100, 100)), "en", 8, side=P.SMALL_CELLS).picture
