"""python -m jaxprlens.to_marimo: a lecture's %%jaxpr cells as jaxprlens.show calls, then marimo's own convert; the
shipped marimo lecture is what the converter writes today, and marimo exports it with every view."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jaxprlens import to_marimo

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "notebooks" / "marimo" / "01_what_is_a_jaxpr.py"
SOURCE = ROOT / "notebooks" / "en" / "01_what_is_a_jaxpr.ipynb"


def test_options_become_keywords():
    assert to_marimo.keywords(" --graph --cost bytes --max-nodes 12") == {"graph": True, "cost": "bytes",
                                                                         "max_nodes": 12}
    assert to_marimo.keywords(" --cost") == {"cost": "flops"}          # an optional value written alone
    assert to_marimo.keywords("--transform=grad --argnums 0,1") == {"transform": "grad", "argnums": "0,1"}
    with pytest.raises(ValueError, match="not an option"):
        to_marimo.keywords(" --graph f(x)")


def test_a_cell_becomes_plain_python():
    code, lang = to_marimo.cell(textwrap.dedent("""\
        %%jaxpr --graph
        import jax.numpy as jnp
        def f(x, *, k):
            return jnp.sin(x) * k
        f(
            jnp.ones(3), k=2.)"""), None)
    assert code.splitlines()[-1] == "jaxprlens.show(f, jnp.ones(3), kwargs={'k': 2.}, graph=True)"
    assert lang is None
    code, lang = to_marimo.cell("%load_ext jaxprlens\n%jaxpr_config --lang zh", None)
    assert code == "import jaxprlens\nimport jaxprlens" and lang == "zh"
    code, _ = to_marimo.cell("%%jaxpr --text\nf(x)", lang)
    assert code == "jaxprlens.show(f, x, lang='zh', text=True)"        # the notebook's language on every view
    code, _ = to_marimo.cell("y = 1\n%jaxpr --cost bytes f(x)", None)
    assert code == "y = 1\njaxprlens.show(f, x, cost='bytes')"
    with pytest.raises(ValueError, match="last line"):
        to_marimo.cell("%%jaxpr\nx = f(1)", None)


@pytest.mark.slow
def test_the_shipped_marimo_lecture_is_the_converters(tmp_path):
    pytest.importorskip("marimo", reason="marimo is in the dev extras: pip install -e '.[dev]'")
    out = to_marimo.convert(SOURCE, tmp_path / SHIPPED.name)
    assert out.read_text(encoding="utf-8") == SHIPPED.read_text(encoding="utf-8")


@pytest.mark.slow
def test_marimo_exports_the_lecture_with_every_view(tmp_path):
    pytest.importorskip("marimo")
    page = tmp_path / "lecture.html"
    lecture = tmp_path / SHIPPED.name                                   # marimo writes its session cache beside it
    lecture.write_text(SHIPPED.read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "marimo", "export", "html", str(lecture), "-o", str(page)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    text = page.read_text(encoding="utf-8")
    assert "vnd.marimo+error" not in text                             # every cell ran
    assert text.count("jl-table") >= 2 and "jl-graph" in text and "marimo-anywidget" in text
