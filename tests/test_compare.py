"""The script-less views (compare, diff, lower) read right where their <style> is stripped: an untrusted notebook
in JupyterLab keeps only inline styles without var(). Structure, not whole strings; the browser half is
tests/browser/test_front_end.py::test_untrusted_views_without_script_stay_readable."""
from __future__ import annotations

import re

import pytest
from bs4 import BeautifulSoup

import jaxprlens
from seeds import SEEDS
from jaxprlens.views.compiled.compare import Compare
from jaxprlens.views.compiled.diff import diff
from jaxprlens.views.compiled.lower import lowering_view


def program(seed):
    fn, args = SEEDS[seed]
    return jaxprlens.trace(fn, *args)


def _views():
    p1, p11 = program("func1"), program("func11")
    return {"compare": Compare(p11, p11.transform("grad", has_aux=True), label="grad(func11)"),
            "diff": diff(p11.transform("vmap", in_axes="0,None"), p11.transform("vmap", in_axes="None,0")),
            "lower": lowering_view(p1)}


@pytest.fixture(scope="module")
def views():
    return {k: BeautifulSoup(v._repr_mimebundle_()["text/html"], "html.parser") for k, v in _views().items()}


def _decls(tag) -> list[tuple[str, str]]:
    return [tuple(x.strip() for x in d.split(":", 1)) for d in tag.get("style", "").split(";") if ":" in d]


@pytest.mark.parametrize("kind", ["compare", "diff", "lower"])
def test_every_cell_is_left_and_top_aligned_inline(views, kind):
    soup = views[kind]
    root = soup.select_one(".jaxprlens")
    assert _decls(root)[0] == ("font-family", "monospace")          # what survives the sanitizer comes first
    cells = soup.select(".jaxprlens td, .jaxprlens th")
    assert cells
    for cell in cells:
        if cell.get_text(strip=True):
            assert ("text-align", "left") in _decls(cell), str(cell)[:120]
    assert ("table-layout", "fixed") in _decls(soup.select_one(".jaxprlens > table"))


@pytest.mark.parametrize("kind", ["compare", "diff", "lower"])
def test_a_var_is_never_the_only_declaration_of_a_property(views, kind):
    """JupyterLab's sanitizer drops a declaration that uses var(): a plain one of the same property precedes it."""
    for tag in views[kind].select("[style]"):
        seen = set()
        for prop, value in _decls(tag):
            if "var(" in value:
                assert prop in seen, f"{prop} only as var() in {tag.name}: {tag['style']}"
            seen.add(prop)


def test_equations_keep_their_indentation_untrusted(views):
    for kind in ("compare", "diff", "lower"):
        for eq in views[kind].select(".jl-eq"):
            assert ("white-space", "pre-wrap") in _decls(eq)


def test_stablehlo_lines_are_lines_without_css():
    """Each StableHLO line ends in a newline of its own, so the pane reads line by line without display:block."""
    view = lowering_view(program("func1"))
    soup = BeautifulSoup(view._repr_mimebundle_()["text/html"], "html.parser")
    pre = soup.select_one("pre.jl-hlo")
    lines = pre.get_text().rstrip("\n").split("\n")
    assert len(lines) == len(view.hlo.lines)
    assert [re.sub(r"^\s*\d+  ", "", x) for x in lines] == view.hlo.lines


def test_diff_columns_share_the_width(views):
    widths = [dict(_decls(c)).get("width") for c in views["diff"].select("colgroup col")]
    assert widths == ["2em", "40%", "40%", None]


def test_lower_never_breaks_a_stablehlo_token_and_keeps_the_jaxpr_in_its_pane(views):
    """JupyterLab's ``pre`` breaks anywhere (``tensor<f3`` / ``2>``): the StableHLO pane says ``word-break:normal``
    inline; the jaxpr's long tokens break rather than run over the StableHLO column, and a nested id breaks after
    its slashes."""
    page = views["lower"]
    assert "word-break:normal" in page.select_one("pre.jl-hlo")["style"]
    assert all("overflow-wrap:anywhere" in td["style"] for td in page.select("td.jl-eq"))
    import jax
    import jax.numpy as jnp
    nested = lowering_view(jaxprlens.trace(lambda x: jax.nn.relu(x) * 2., jnp.ones(3))).html()   # custom_jvp > jit
    ids = [td.decode_contents() for td in BeautifulSoup(nested, "html.parser").select("tr[data-eqn] > td:first-child")]
    assert "0/<wbr/>call/<wbr/>0" in ids and all("/" not in i.replace("/<wbr/>", "") for i in ids)


def test_a_lit_stablehlo_line_keeps_its_number_readable_in_the_dark_theme():
    """A line that an equation lowers to is lit (layout-color2); its dim number fell to ~4.5:1 in the dark theme
    (``L9``), so on lit and targeted lines the number takes the line's own colour."""
    from jaxprlens.present.front import css
    sheet = css(frozenset({"compiled"}))
    assert ".jaxprlens .jl-hlo-line[data-eqns]>.jl-ln,.jaxprlens .jl-hlo-line:target>.jl-ln{color:inherit}" in sheet
    assert 'class="jl-hlo-line" data-line="3" data-eqns=' in lowering_view(program("func1")).html()
