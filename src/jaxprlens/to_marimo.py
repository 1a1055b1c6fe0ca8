"""A notebook with ``%%jaxpr`` cells as a marimo notebook: ``python -m jaxprlens.to_marimo LECTURE.ipynb -o
LECTURE.py``.  marimo has no IPython magics (its own ``marimo convert`` comments them out), so each ``%%jaxpr``
cell becomes the same code with its last call written as ``jaxprlens.show(fn, *args, **options)``, the options as
keywords; ``%load_ext jaxprlens`` becomes ``import jaxprlens``, ``%jaxpr_config --lang zh`` a ``lang`` keyword on
every view; then ``marimo convert`` makes the marimo notebook (it needs marimo: ``pip install marimo``)."""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from jaxprlens.present.i18n import t
from jaxprlens.views.options import option_words, split_line

SHOW = "jaxprlens.show"


def keywords(line: str) -> dict:
    """The magic's option line as ``jaxprlens.show`` keywords (``--graph --cost bytes`` -> graph=True, cost="bytes")."""
    out: dict = {}
    for spec, value, start in option_words(line):
        if spec is None:
            if line[start:].strip():
                raise ValueError(f"not an option of %%jaxpr: {line[start:].strip()!r}")
            break
        if not spec.takes_value:
            out[spec.name] = True
        else:
            out[spec.name] = spec.const if value is None else value if spec.parse else spec.value(value)
    return out


def _call(expr: ast.Call, source: str, options: dict) -> str:
    """``f(a, b, k=c)`` as ``jaxprlens.show(f, a, b, kwargs={"k": c}, **options)``, the call's own text kept."""
    text = lambda node: ast.get_source_segment(source, node)       # noqa: E731 - one use, read here
    parts = [text(expr.func)] + [text(a) for a in expr.args]
    named = [(k.arg, text(k.value)) for k in expr.keywords]
    if any(k is None for k, _ in named):                          # f(**kw): passed on as it is
        parts.append("kwargs=dict(" + ", ".join(v if k is None else f"{k}={v}" for k, v in named) + ")")
    elif named:
        parts.append("kwargs={" + ", ".join(f"{k!r}: {v}" for k, v in named) + "}")
    parts += [f"{k}={v!r}" for k, v in options.items()]
    return f"{SHOW}(" + ", ".join(parts) + ")"


def shown(code: str, options: dict) -> str:
    """A ``%%jaxpr`` cell's code (without its magic line) with its last call written as ``jaxprlens.show``."""
    tree = ast.parse(code)
    last = tree.body[-1] if tree.body else None
    if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
        raise ValueError("the last line of a %%jaxpr cell must be a call, e.g. f(x)")
    lines = code.splitlines()
    start, end = last.lineno - 1, last.end_lineno
    return "\n".join(lines[:start] + [_call(last.value, code, options)] + lines[end:])


def cell(source: str, lang: str | None) -> tuple[str, str | None]:
    """``(the cell as plain Python, the notebook's language after it)``."""
    lines = source.splitlines()
    extra = {"lang": lang} if lang else {}
    if lines and lines[0].startswith("%%jaxpr"):
        options = {**extra, **keywords(lines[0][len("%%jaxpr"):])}
        return shown("\n".join(lines[1:]), options), lang
    out = []
    for line in lines:
        bare = line.strip()
        if bare.startswith("%load_ext jaxprlens"):
            out.append(line.replace(bare, "import jaxprlens"))
        elif bare.startswith("%jaxpr_config"):
            lang = keywords(bare[len("%jaxpr_config"):]).get("lang", lang)
            out.append(line.replace(bare, "import jaxprlens"))
        elif bare.startswith("%jaxpr "):
            opts, call = split_line(bare[len("%jaxpr "):])
            out.append(line.replace(bare, shown(call, {**extra, **keywords(opts)})))
        else:
            out.append(line)
    return "\n".join(out), lang


def convert(notebook: Path, out: Path) -> Path:
    """Write ``notebook`` (an .ipynb) as the marimo notebook ``out`` (a .py)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    lang = None
    for c in nb["cells"]:
        c.pop("outputs", None), c.pop("execution_count", None)
        if c["cell_type"] == "code":
            c["source"], lang = cell("".join(c["source"]), lang)
            c["outputs"], c["execution_count"] = [], None
    note = {"cell_type": "markdown", "metadata": {}, "source": t("marimo_note", lang)}
    nb["cells"].insert(1 if nb["cells"] and nb["cells"][0]["cell_type"] == "markdown" else 0, note)
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / notebook.name
        plain.write_text(json.dumps(nb), encoding="utf-8")
        subprocess.run([sys.executable, "-m", "marimo", "convert", str(plain), "-o", str(out)], check=True)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jaxprlens.to_marimo", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", type=Path, help="a notebook (.ipynb) whose %%%%jaxpr cells to convert")
    parser.add_argument("-o", "--output", type=Path, help="the marimo notebook to write (default: NOTEBOOK.py)")
    opts = parser.parse_args(argv)
    out = opts.output or opts.notebook.with_suffix(".py")
    print(convert(opts.notebook, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
