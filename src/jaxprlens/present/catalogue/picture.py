"""Values as pictures (present/picture.py): a heatmap, strip or facets of a value, its axes and its marks.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    "pic_value": ("value", "值"),
    "pic_alt": ("heatmap of {name}: {type}, {h}×{w} cells", "{name} 的热图：{type}，{h}×{w} 个格子"),
    "pic_strip": ("axis 0 left to right ({n}, {per} per cell)", "轴 0 从左到右（{n} 个，每格 {per} 个）"),
    "pic_rows": ("rows: axis {axis} ({n}, {per} per cell)", "行：轴 {axis}（{n} 个，每格 {per} 个）"),
    "pic_cols": ("columns: axis {axis} ({n}, {per} per cell)", "列：轴 {axis}（{n} 个，每格 {per} 个）"),
    "pic_facets": ("{n} of {total} 2-D slices drawn (of the last two axes)",
                   "绘制了 {total} 个二维切片中的 {n} 个（最后两个轴）"),
    "pic_facets_all": ("{n} 2-D slices (of the last two axes)", "{n} 个二维切片（最后两个轴）"),
    "pic_mean": ("a cell is the mean of its finite elements", "每格是其中有限值的均值"),
    "pic_map": ("colour map (viridis) from the minimum to the maximum", "颜色映射：从最小值到最大值"),
    "pic_abs": ("|x| ", "|x| "),
    "pic_nan": ("magenta: NaN ({n})", "品红：NaN（{n} 个）"),
    "pic_posinf": ("cyan: +Inf ({n})", "青色：+Inf（{n} 个）"),
    "pic_neginf": ("black: −Inf ({n})", "黑色：−Inf（{n} 个）"),
    "pic_edited": ("dark red: edited ({n})", "深红：已编辑（{n} 个）"),
    "pic_key": ("no picture: a PRNG key's data are random bits", "不绘图：PRNG 密钥的数据是随机位"),
}
