"""Finding a renderer: graphviz-pure's binary beside Python, through its installed package (a venv, or
``pip install --target`` with the binary outside PATH) or on PATH; without any, a graph says what to install
and keeps its DOT source."""
import os
import subprocess
import sys
from importlib import metadata

import jax.numpy as jnp
import pytest

from jaxprlens import model
from jaxprlens.views.graph import render

REAL = render._pure_binary()


def _target_install(root, record_points_outside: bool = True):
    """The layout ``pip install --target root graphviz-pure`` leaves: root/bin/graphviz-pure and a dist-info
    whose RECORD names the binary relative to pip's temporary prefix (outside ``root``)."""
    (root / "bin").mkdir(parents=True)
    exe = root / "bin" / "graphviz-pure"
    exe.symlink_to(REAL)
    info = root / "graphviz_pure-0.2.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: graphviz-pure\nVersion: 0.2.2\n")
    where = "../../bin/graphviz-pure" if record_points_outside else "bin/graphviz-pure"
    (info / "RECORD").write_text(f"{where},,\ngraphviz_pure-0.2.2.dist-info/METADATA,,\n")
    return exe


@pytest.fixture
def hidden(monkeypatch, tmp_path):
    """No graphviz-pure beside Python, on PATH or in any package on sys.path; no dot either."""
    if REAL is None:
        pytest.skip("graphviz-pure is not installed here")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python" / "python3"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    installed = metadata.distributions
    monkeypatch.setattr(metadata, "distributions", lambda **kw: [     # the venv's own install is not there
        d for d in installed(**kw) if "site-packages" not in str(d.locate_file(""))])
    monkeypatch.delenv(render.ENV, raising=False)
    return tmp_path


def test_hidden_binary_is_not_found(hidden):
    assert render._pure_binary() is None
    with pytest.raises(render.RenderError, match=r"^graphviz-pure is not installed; pip install graphviz-pure"):
        render.find_renderer()


@pytest.mark.parametrize("record_points_outside", [True, False])
def test_found_through_its_package_after_pip_install_target(hidden, monkeypatch, record_points_outside):
    exe = _target_install(hidden / "target", record_points_outside)
    monkeypatch.syspath_prepend(str(hidden / "target"))
    assert render.find_renderer() == ("graphviz-pure", str(exe))
    assert render.render("digraph { a -> b }", "svg").startswith(b"<?xml")


def test_found_on_path(hidden, monkeypatch):
    (hidden / "bin").mkdir()
    (hidden / "bin" / "graphviz-pure").symlink_to(REAL)
    monkeypatch.setenv("PATH", str(hidden / "bin"))
    assert render.find_renderer() == ("graphviz-pure", str(hidden / "bin" / "graphviz-pure"))


def test_a_graph_without_a_renderer_says_what_to_install_and_keeps_its_dot(hidden):
    p = model.trace(lambda x: jnp.sin(x) * 2.0, jnp.ones(3))
    g = p.graph()
    bundle = g._repr_mimebundle_()
    text = bundle["text/plain"]
    assert text.splitlines()[:2] == [
        "No SVG for this graph: graphviz-pure is not installed; pip install graphviz-pure (jaxprlens depends on "
        "it), or install Graphviz and set JAXPRLENS_RENDERER=dot",
        "To get SVG: pip install graphviz-pure (or install Graphviz and set JAXPRLENS_RENDERER=dot)."]
    assert text.endswith(g.source) and g.source.startswith("digraph")
    assert "pip install graphviz-pure" in bundle["text/html"] and "<details>" in bundle["text/html"]
    zh = p.graph(lang="zh")
    assert zh._repr_mimebundle_()["text/plain"].splitlines()[:2] == [          # why, in the reader's language
        "这张图没有 SVG：未安装 graphviz-pure；请运行 pip install graphviz-pure（jaxprlens 依赖它），"
        "或安装 Graphviz 并设置 "
        "JAXPRLENS_RENDERER=dot",
        "要得到 SVG：pip install graphviz-pure（或安装 Graphviz 并设置 JAXPRLENS_RENDERER=dot）。"]
    assert "未安装 graphviz-pure" in zh._repr_mimebundle_()["text/html"]
    assert zh._repr_mimebundle_()["text/plain"].endswith(zh.source)


def test_the_layout_limit_is_the_renderer_s_cpu_time():
    """A layout is stopped after ``timeout`` seconds of the renderer's CPU time (a loaded machine slows it without
    stopping it), one that idles after ``STUCK`` times that of the clock; the renderer reads its source from a file
    named last on its command line."""
    from jaxprlens.views.graph.render import _cpu_seconds, _run
    assert _cpu_seconds(os.getpid()) is None or _cpu_seconds(os.getpid()) > 0
    with pytest.raises(subprocess.TimeoutExpired):
        _run([sys.executable, "-c", "while True: pass"], b"", 0.5)
    with pytest.raises(subprocess.TimeoutExpired):
        _run([sys.executable, "-c", "import time; time.sleep(60)"], b"", 0.2)
    data = bytes(range(256)) * 8192                           # 2 MB: more than a pipe holds
    echo = "import sys, time; time.sleep(1.5); sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())"
    assert _run([sys.executable, "-c", echo], data, 30) == (0, data, b"")
