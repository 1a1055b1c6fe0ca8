"""The nbval sanitizer shipped with the package: the same file as notebooks/sanitize.cfg, found by
``python -m jaxprlens.nbval_sanitize``, and its patterns replace what differs from run to run."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from nbval.plugin import get_sanitize_patterns

from jaxprlens import nbval_sanitize

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_file_is_the_courses():
    shipped = Path(nbval_sanitize.path())
    assert shipped.name == "nbval_sanitize.cfg" and shipped.parent.name == "jaxprlens"
    assert shipped.read_bytes() == (ROOT / "notebooks" / "sanitize.cfg").read_bytes()


def test_python_m_prints_the_path():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "jaxprlens.nbval_sanitize"], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out == nbval_sanitize.path() + "\n" and Path(out.strip()).is_file()


def sanitize(text: str) -> str:
    """``text`` as nbval sanitizes it: the file read by nbval's own reader, each regex replaced in order."""
    patterns = get_sanitize_patterns(Path(nbval_sanitize.path()).read_text(encoding="utf-8"))
    assert len(patterns) == 11
    for regex, replace in patterns:
        text = re.sub(regex, replace, text)
    return text


def test_the_patterns_replace_timings_and_the_inlined_front_end():
    assert sanitize("compile 31.2 ms, run median 4.1 µs ± 0.3 µs") == "compile TIME, run median TIME +- TIME"
    assert sanitize("measured 2.5 ms (40% of sum); run on their own 7 ms") == \
        "measured TIME (N% of sum); run on their own TIME"
    assert sanitize("编译 12 ms，运行中位数 3 µs ± 1 µs") == "编译 TIME，运行中位数 TIME +- TIME"
    assert sanitize("<style>.a{}</style><b>row</b><script>x()</script>") == \
        "<style>FRONT-END CSS</style><b>row</b><script>FRONT-END SCRIPT</script>"
    assert sanitize("3 equations, 14 params") == "3 equations, 14 params"
    assert sanitize('<img alt="heatmap of a: f32[2, 2]" src="data:image/png;base64,iVBORw0K+/9=">') == \
        '<img alt="heatmap of a: f32[2, 2]" src="data:image/png;base64,PICTURE">'      # the alt text is compared
