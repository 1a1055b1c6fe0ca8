"""Values as pictures: a heatmap of an array (a 1-D value as a strip, an N-D value as facets of its 2-D slices),
NaN, +Inf, -Inf and edited elements marked, the colour map's range and the marks said in words, and a histogram
of the finite values.  Used by the debugger's value panel (``views.debugger.state``) and ``--run``'s outputs
(``views.compiled.run``).

Each picture is a PNG written here (zlib + struct, a palette image: no dependency) shown as ``<img src="data:
image/png;base64,...">`` with alt text: JupyterLab's sanitizer strips ``<svg>`` and ``<style>`` from untrusted
HTML but keeps such an image, and its transparent background takes the theme's.  A value past ``CELLS`` cells a
side is averaged in blocks (a block holding a NaN, an Inf or an edited element is marked as such, so one NaN in
16M elements still shows), so a picture stays a few kB whatever the value.  The bytes are deterministic (no
time or text chunk) for one zlib; another deflate (zlib-ng) may write other bytes of the same pixels, so
nbval's sanitizer (``nbval_sanitize.cfg``) masks the PNG data and compares the alt text, which says the type,
the cells and the marks.

Numbers come from ``engine.values`` (``summarize`` for the range and histogram, ``numbers`` for a float32 copy
of any dtype: bfloat16, float8_*, int4); a PRNG key array gets no picture, with the reason said."""
from __future__ import annotations

import base64
import functools
import math
import struct
import zlib

import numpy as np

from jaxprlens.engine import values
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import t

CELLS = 64          # a 2-D value's cells a side at most (past it, blocks of elements are averaged)
STRIP = 128         # a 1-D value's cells at most
FACETS = 16         # an N-D value's 2-D slices drawn at most
FACET_CELLS = 32    # cells a side of one slice when several are drawn
SMALL_CELLS = 16    # a recorded replay's pictures (its values are summarised small: views/replay)
PX = 192            # a picture's width in pixels, about: cells are squares of whole pixels, 1 to 16 a side
LEVELS = 64         # colours of the map

# viridis (perceptually uniform, readable in grey and by colour-blind readers) at 9 even steps, interpolated
VIRIDIS = ("440154", "472d7b", "3b528b", "2c728e", "21918c", "28ae80", "5ec962", "addc30", "fde725")
# marks: chosen as >= 25 CIELAB units from every viridis colour and from each other, for normal vision and as
# protan, deutan and tritan readers see them (Machado et al. 2009's simulation)
MARKS = {"nan": "ff00ff", "posinf": "00ffff", "neginf": "000000", "edited": "a00000"}
MARK_INDEX = {name: LEVELS + i for i, name in enumerate(MARKS)}
GROUND = LEVELS + len(MARKS)       # a histogram's baseline: mid grey, seen on light and dark backgrounds
CLEAR = GROUND + 1                 # the transparent index (a histogram's background)


def _rgb(hexes) -> np.ndarray:
    return np.array([[int(h[i:i + 2], 16) for i in (0, 2, 4)] for h in hexes], dtype=np.float64)


@functools.cache
def palette() -> bytes:
    """The PLTE chunk's data: ``LEVELS`` map colours, the marks, the baseline's grey, the transparent colour."""
    anchors = _rgb(VIRIDIS)
    at = np.linspace(0, 1, len(VIRIDIS))
    ramp = np.stack([np.interp(np.linspace(0, 1, LEVELS), at, anchors[:, k]) for k in range(3)], 1)
    table = np.vstack([ramp, _rgb(MARKS.values()), [[128, 128, 128], [255, 255, 255]]])
    return np.round(table).astype(np.uint8).tobytes()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(index: np.ndarray, scale: int = 1) -> bytes:
    """A palette PNG of a 2-D array of palette indices, each drawn as a ``scale`` × ``scale`` square.  Its
    palette holds only the colours used (a swatch carries one, not all ``CLEAR + 1``); a transparency chunk
    only when the background is used."""
    index = np.asarray(index, np.uint8)
    used, inverse = np.unique(index, return_inverse=True)
    px = np.repeat(np.repeat(inverse.reshape(index.shape).astype(np.uint8), scale, 0), scale, 1)
    h, w = px.shape
    raw = np.hstack([np.zeros((h, 1), np.uint8), px]).tobytes()       # filter byte 0 before each row
    colours = np.frombuffer(palette(), np.uint8).reshape(-1, 3)[used]
    clear = b"" if used[-1] != CLEAR else _chunk(b"tRNS", bytes([255] * (len(used) - 1) + [0]))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
            + _chunk(b"PLTE", colours.tobytes()) + clear
            + _chunk(b"IDAT", zlib.compress(raw, 3)) + _chunk(b"IEND", b""))   # level 3: 8x faster than 9


@functools.cache
def _ramp() -> bytes:
    return png(np.arange(LEVELS, dtype=np.uint8)[None, :].repeat(2, 0), 2)


@functools.cache
def _swatch(name: str) -> bytes:
    return png(np.full((5, 5), MARK_INDEX[name], np.uint8), 2)


def uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


# a grey frame (3.9:1 on white, 5.3:1 on a dark theme's #111): viridis' dark end and the -Inf mark would
# else melt into a dark page; inline, so a sanitizer keeps it
_IMG_STYLE = "vertical-align:middle;border:1px solid #808080"


def _img(data: bytes, alt: str, cls: str, title: bool = True) -> str:
    w, h = struct.unpack(">II", data[16:24])
    tip = f' title="{html(alt)}"' if title and alt else ""
    return (f'<img class="{cls}" alt="{html(alt)}"{tip} width="{w}" height="{h}" '
            f'style="{_IMG_STYLE}" src="{uri(data)}">')


# ---------------------------------------------------------------- cells


def _starts(n: int, m: int) -> np.ndarray:
    """Where each of ``m`` near-equal blocks of ``n`` elements starts (``m <= n``)."""
    return (np.arange(m) * n) // m


def _blocks(a: np.ndarray, rows: np.ndarray, cols: np.ndarray, op=np.add, dtype=None) -> np.ndarray:
    """Sums (``op``: or another reduction) of ``a``'s blocks over its last two axes (along rows first: the
    contiguous axis is 20 times faster to reduce)."""
    return op.reduceat(op.reduceat(a, cols, axis=-1, dtype=dtype), rows, axis=-2, dtype=dtype)


def cells(data: np.ndarray, lo: float, hi: float, side: int, edited: np.ndarray | None = None,
          finite: bool = False) -> np.ndarray:
    """Palette indices of ``data`` (``[..., H, W]``, float) at most ``side`` cells a side per 2-D slice: the
    mean of each block's finite elements on the map from ``lo`` to ``hi``; a block holding an edited element,
    else a NaN, else +Inf, else -Inf, is that mark.  ``finite``: the caller knows every element is finite."""
    h, w = data.shape[-2:]
    rows, cols = _starts(h, min(h, side)), _starts(w, min(w, side))
    if finite:
        total = _blocks(data, rows, cols, dtype=np.float64)
        count = np.outer(np.diff(rows, append=h), np.diff(cols, append=w))
    else:
        ok = np.isfinite(data)
        total = _blocks(np.where(ok, data, 0), rows, cols, dtype=np.float64)
        count = _blocks(ok, rows, cols, dtype=np.int64)
    mean = total / np.maximum(count, 1)
    span = hi - lo
    level = np.round((mean - lo) / span * (LEVELS - 1)) if span > 0 else np.full(mean.shape, LEVELS // 2)
    out = np.clip(level, 0, LEVELS - 1).astype(np.uint8)
    marks = () if finite else (("neginf", np.isneginf), ("posinf", np.isposinf), ("nan", np.isnan))
    for name, test in marks + (("edited", None),):        # later marks win: edited over NaN over Inf
        mask = edited if test is None else test(data)
        if mask is not None and mask.any():
            out[_blocks(mask, rows, cols, np.logical_or)] = MARK_INDEX[name]
    return out


# ---------------------------------------------------------------- the picture of one value


def edited_mask(value, edits) -> np.ndarray | None:
    """Which elements of ``value`` an edit (``Stepper.edits``: ``.old``, ``.new``) set to another number, when
    ``value`` is an edit's new value; else None."""
    for e in reversed(tuple(edits or ())):
        if e.new is value:
            try:
                old, new = values.numbers(values.host(e.old)), values.numbers(values.host(e.new))
            except Exception:  # noqa: BLE001 - a value that is no array: nothing to mark element by element
                return None
            if old.shape != new.shape:
                return np.ones(new.shape, bool)
            return ~((old == new) | (np.isnan(old) & np.isnan(new)))
    return None


def _data(s: values.Summary) -> tuple[np.ndarray, float, float]:
    """The float32 copy the picture is made of, and the map's range."""
    if s.kind == "complex":
        data = np.abs(np.asarray(s.data).astype(np.complex64))
    else:
        data = values.numbers(s.data, np.float32)
    if s.kind == "bool":
        return data, 0.0, 1.0
    return data, (s.min if s.min is not None else 0.0), (s.max if s.max is not None else 0.0)


def _per_cell(n: int, m: int) -> str:
    return str(n // m) if n % m == 0 else f"≈{n / m:.3g}"


def axes_text(shape: tuple, side: tuple, lang: str) -> str:
    """What the picture's axes are: ``rows: axis 0 (4096, 64 per cell) · columns: axis 1 (...)``."""
    nd = len(shape)
    if nd == 1:
        text = t("pic_strip", lang, n=shape[0], per=_per_cell(shape[0], side[1]))
        return text + (t("sep", lang) + t("pic_mean", lang) if shape[0] > side[1] else "")
    bits = [t(key, lang, axis=nd - 2 + i, n=shape[-2 + i], per=_per_cell(shape[-2 + i], side[i]))
            for i, key in enumerate(("pic_rows", "pic_cols"))]
    if shape[-2] > side[0] or shape[-1] > side[1]:
        bits.append(t("pic_mean", lang))
    return t("sep", lang).join(bits)


def _facet_name(index: tuple, nd: int) -> str:
    return "[" + ", ".join([str(i) for i in index] + [":"] * (nd - len(index))) + "]"


def _legend(s: values.Summary, counts: dict, lang: str) -> str:
    lo, hi = ("False", "True") if s.kind == "bool" else (f"{s.min:.4g}", f"{s.max:.4g}") \
        if s.min is not None else ("", "")
    parts = []
    if lo:
        what = t("pic_abs", lang) if s.kind == "complex" else ""
        ramp = _img(_ramp(), t("pic_map", lang), "jl-pic-ramp", False)
        parts.append(f'<span class="jl-pic-map">{what}{html(lo)} {ramp} {html(hi)}</span>')
    for name, n in counts.items():
        if n:
            word = t(f"pic_{name}", lang, n=n)
            parts.append(f'<span class="jl-pic-mark" data-mark="{name}">{_img(_swatch(name), "", "jl-pic-swatch")} '
                         f"{html(word)}</span>")
    return '<div class="jl-pic-legend">' + "  ".join(parts) + "</div>"


def histogram_png(counts: list, height: int = 24, bar: int = 6) -> bytes:
    """The histogram's bars, each coloured as the map colours its bin's middle, on a transparent ground above
    a grey baseline (a bar of the map's darkest colours is faint on a dark theme: the baseline spans them)."""
    n = len(counts)
    top = max(counts) or 1
    out = np.full((height + 1, n * bar), CLEAR, np.uint8)
    out[height] = GROUND
    for i, c in enumerate(counts):
        hh = max(2, round(c / top * height)) if c else 0
        level = round((i + 0.5) / n * (LEVELS - 1))
        out[height - hh:height, i * bar:(i + 1) * bar - 1] = level
    return png(out)


def no_picture(s: values.Summary, lang: str) -> str | None:
    """Why ``s`` gets no picture, in the reader's words (a PRNG key); None when it gets one or needs none (a
    scalar, an empty array, a token)."""
    if s.kind == "key":
        return t("pic_key", lang)
    return None


def picture_html(value, lang: str = "en", edits=(), side: int = CELLS, name: str = "") -> str:
    """The picture of one value as an HTML fragment that reads untrusted (``""`` for a value that needs none)."""
    return summary_html(values.summarize(value), lang, edited_mask(value, edits), side, name)


def summary_html(s: values.Summary, lang: str = "en", edited: np.ndarray | None = None, side: int = CELLS,
                 name: str = "") -> str:
    """``picture_html`` of a ``values.Summary``."""
    why = s.size > 1 and no_picture(s, lang)
    if why:
        return f'<div class="jl-pic jl-pic-none">{html(why)}</div>'
    if s.data is None or s.kind not in ("bool", "int", "float", "complex") or s.size < 2:
        return ""
    data, lo, hi = _data(s)
    shape, nd = data.shape, data.ndim
    if edited is not None and edited.shape != shape:
        edited = None
    counts = {"nan": s.nan, "posinf": int(np.isposinf(data).sum()) if s.inf else 0,
              "neginf": int(np.isneginf(data).sum()) if s.inf else 0,
              "edited": int(edited.sum()) if edited is not None else 0}
    n = math.prod(shape[:-2])
    if nd == 1:
        data, edited = data[None, None, :], None if edited is None else edited[None, None, :]
        side2 = (1, min(shape[0], STRIP * side // CELLS))
    else:
        side = side if n == 1 else min(side, FACET_CELLS)
        drawn = min(n, FACETS)
        data = data.reshape((n,) + shape[-2:])[:drawn]
        edited = None if edited is None else edited.reshape((n,) + shape[-2:])[:drawn]
        side2 = (min(shape[-2], side), min(shape[-1], side))
    index = cells(data, lo, hi, max(side2), edited, finite=not (s.nan or s.inf))     # [facets, h, w]
    h, w = index.shape[-2:]
    scale = max(1, min(16, PX // w, PX // h))
    if h == 1:                                               # a strip: at least 12 pixels tall
        index = np.repeat(index, -(-12 // scale), axis=-2)
    elif w == 1:                                             # a column: at least 12 pixels wide
        index = np.repeat(index, -(-12 // scale), axis=-1)
    marks = t("sep", lang).join(t(f"pic_{k}", lang, n=v) for k, v in counts.items() if v)
    label = name or t("pic_value", lang)

    def alt(title):
        return t("pic_alt", lang, name=title, type=s.type, h=h, w=w) + (t("sep", lang) + marks if marks else "")

    if nd <= 2:
        facets = [_img(png(index[0], scale), alt(label), "jl-pic-img")]
        more = ""
    else:
        facets = []
        for k in range(index.shape[0]):
            where = _facet_name(tuple(int(i) for i in np.unravel_index(k, shape[:-2])), nd)
            facets.append(f'<span class="jl-pic-facet" style="display:inline-block;margin:0 6px 4px 0">'
                          f'{_img(png(index[k], scale), alt(label + where), "jl-pic-img")}'
                          f"<br><code>{html(where)}</code></span>")
        said = t("pic_facets" if len(facets) < n else "pic_facets_all", lang, n=len(facets), total=n)
        more = f'<div class="jl-pic-more">{html(said)}</div>'
    shown = len(facets)
    hist = ""
    if s.hist:
        hist = _img(histogram_png(s.hist), t("histogram", lang) + t("colon", lang) + " ".join(map(str, s.hist)),
                    "jl-pic-hist")
    return (f'<div class="jl-pic" data-cells="{h}x{w}" data-facets="{shown}">'
            f'<div class="jl-pic-facets">{"".join(facets)}</div>{more}'
            f'<div class="jl-pic-axes">{html(axes_text(shape, side2, lang))}</div>'
            f"{_legend(s, counts, lang)}{hist}</div>")
