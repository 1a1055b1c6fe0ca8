"""Build the course: each ``notebooks/src/NN_name.py`` (jupytext percent, bilingual) becomes two executed
notebooks, ``notebooks/en/NN_name.ipynb`` and ``notebooks/zh/NN_name.ipynb``, with their outputs stored,
written byte-for-byte reproducibly.

The two editions come from the same source (``editions.py`` says how a bilingual paragraph, label, heading
and comment splits); they have the same code cells, and the Chinese one starts with ``%jaxpr_config --lang
zh`` so that every view, debugger and check speaks Chinese.  Cells get ``slideshow`` metadata for RISE.

Cells tagged ``needs-feature`` use a part of jaxprlens that may not exist yet (graph, debugger, runner,
cost, transforms).  They are kept when every module they need is importable and left out otherwise, so
running this script again once a module lands adds its cells with no other change.  The modules a cell
needs come from its magic flags (``--graph`` needs ``jaxprlens.graph``...) plus an explicit
``needs=["jaxprlens.engine.stepper"]`` in the cell's metadata.

Usage::

    .venv/bin/python scripts/build_notebooks.py            # build every lecture
    .venv/bin/python scripts/build_notebooks.py 01 05      # only lectures whose name starts so
    .venv/bin/python scripts/build_notebooks.py --lang zh  # only one edition
    .venv/bin/python scripts/build_notebooks.py --check    # build into a temp dir, diff against notebooks/
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SOURCES = NOTEBOOKS / "src"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from editions import LANGS, edition  # noqa: E402 - scripts/ on sys.path first
TAG = "needs-feature"
# The kernel every stored notebook names: the one `make lab` registers (Makefile) and ipykernel's own default, so
# opening a lecture there (or on binder) does not rewrite its metadata and mark it modified.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}

# Magic flag -> modules it needs.
FLAG_MODULES = {
    "--graph": ("jaxprlens.views.graph.graph",),
    "--debug": ("jaxprlens.engine.stepper", "jaxprlens.views.debugger.debugger"),
    "--run": ("jaxprlens.engine.runner",),
    "--profile": ("jaxprlens.engine.runner",),
    "--devices": ("jaxprlens.engine.runner",),
    "--device": ("jaxprlens.engine.runner",),
    "--cost": ("jaxprlens.engine.cost",),
    "--transform": ("jaxprlens.engine.transform",),
    "--lower": ("jaxprlens.engine.transform",),
    "--compiled": ("jaxprlens.engine.transform",),
    "--fusion": ("jaxprlens.engine.fusion", "jaxprlens.views.compiled.fusion"),
    "--memory": ("jaxprlens.engine.memory", "jaxprlens.views.compiled.memory"),
}
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)")
_MAGIC_LINE = re.compile(r"^\s*%%?jaxpr\b(.*)$", re.MULTILINE)


def needed_modules(cell) -> set[str]:
    """The jaxprlens modules a ``needs-feature`` cell needs."""
    mods = set(cell.metadata.get("needs", []))
    if cell.cell_type == "code":
        for line in _MAGIC_LINE.findall(cell.source):
            for flag in _FLAG.findall(line):
                mods.update(FLAG_MODULES.get(flag, ()))
    return mods


def available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def select_cells(nb, name: str) -> tuple[list, list]:
    """Keep the cells whose features exist; return (kept cells, descriptions of skipped ones)."""
    kept, skipped = [], []
    for i, cell in enumerate(nb.cells):
        if TAG in cell.metadata.get("tags", []):
            mods = needed_modules(cell)
            if not mods:
                raise SystemExit(f"{name}: cell {i} is tagged {TAG} but names no feature "
                                 "(use a magic flag or needs=[...] metadata)")
            missing = sorted(m for m in mods if not available(m))
            if missing:
                first = cell.source.strip().splitlines()[0] if cell.source.strip() else ""
                skipped.append(f"cell {i} ({cell.cell_type}: {first[:60]!r}) needs {', '.join(missing)}")
                continue
        kept.append(cell)
    return kept, skipped


def _stable_ids(nb, stem: str) -> None:
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{stem[:40]}-{i:02d}"


def _clean(nb, stem: str) -> None:
    """Drop what varies from run to run (timestamps, random widget ids) and what the reader needs not."""
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("jupytext", None)       # built from a bilingual source: not a jupytext pair
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = _coalesce_streams(cell.outputs)
    # Widget model ids are random uuids; renumber them in order of appearance.
    text_ids: dict[str, str] = {}
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view and "model_id" in view:
                old = view["model_id"]
                if old not in text_ids:
                    digest = hashlib.sha1(f"{stem}:{len(text_ids)}".encode()).hexdigest()[:32]
                    text_ids[old] = digest
                view["model_id"] = text_ids[old]


def _coalesce_streams(outputs: list) -> list:
    """Join consecutive stream outputs: how the kernel chunks them depends on timing."""
    merged: list = []
    for out in outputs:
        if (out.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")):
            merged[-1]["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def build_one(src: Path, out_dir: Path, lang: str = "en", timeout: int = 600) -> list[str]:
    """Execute the ``lang`` edition of ``src`` into ``out_dir/lang/``; return the cells left out."""
    import jax
    import jupytext
    import nbformat
    from nbclient import NotebookClient

    nb = jupytext.read(src, fmt="py:percent")
    nb.cells, skipped = select_cells(nb, src.name)
    edition(nb, lang, src.name, sorted(SOURCES.glob("[0-9][0-9]_*.py")))
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["jaxprlens"] = {"edition": lang, "jax": jax.__version__}
    out_dir = out_dir / lang
    out_dir.mkdir(parents=True, exist_ok=True)
    # One pinned renderer for stored SVG, whether or not a system `dot` exists (nbval compares them).
    # no PNG beside each graph (for LaTeX exports): the stored course stays light for GitHub's preview
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAXPRLENS_RENDERER="graphviz-pure", JAXPRLENS_GRAPH_PNG="0",
               PYDEVD_DISABLE_FILE_VALIDATION="1")
    client = NotebookClient(nb, timeout=timeout, kernel_name=KERNELSPEC["name"], record_timing=False,
                            store_widget_state=False, resources={"metadata": {"path": str(out_dir)}})
    client.execute(env=env, cwd=str(out_dir))
    _stable_ids(nb, src.stem)
    _clean(nb, src.stem)
    nbformat.validate(nb)
    target = out_dir / (src.stem + ".ipynb")
    nbformat.write(nb, str(target))
    return skipped


def sanitized(path: Path) -> str:
    """The notebook's text with nbval's sanitize patterns applied (timings differ between runs)."""
    text = path.read_text(encoding="utf-8")
    cfg = NOTEBOOKS / "sanitize.cfg"
    if cfg.exists():
        for regex, replace in re.findall(r"^regex: (.*)$\n^replace: (.*)$", cfg.read_text(), re.MULTILINE):
            text = re.sub(regex, replace, text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("only", nargs="*", help="build only lectures whose file name starts with these")
    parser.add_argument("--check", action="store_true",
                        help="build into a temporary folder and report notebooks that differ from notebooks/")
    parser.add_argument("--lang", choices=LANGS, action="append",
                        help="build only this edition (default: both, notebooks/en and notebooks/zh)")
    opts = parser.parse_args(argv)
    os.environ["JAX_PLATFORMS"] = "cpu"
    sources = sorted(p for p in SOURCES.glob("[0-9][0-9]_*.py")
                     if not opts.only or any(p.name.startswith(o) for o in opts.only))
    if not sources:
        print("no lecture sources matched", file=sys.stderr)
        return 2
    out_dir = Path(tempfile.mkdtemp(prefix="jaxprlens-nb-")) if opts.check else NOTEBOOKS
    differ = []
    try:
        for src in sources:
            for lang in opts.lang or LANGS:
                skipped = build_one(src, out_dir, lang)
                note = f"  (skipped {len(skipped)} cell(s) whose feature is missing)" if skipped else ""
                print(f"built {lang}/{src.stem}.ipynb{note}")
                for s in skipped:
                    print(f"    - {s}")
                if opts.check:
                    name = f"{lang}/{src.stem}.ipynb"
                    ours, theirs = out_dir / name, NOTEBOOKS / name
                    if not theirs.exists() or sanitized(ours) != sanitized(theirs):
                        differ.append(name)
    finally:
        if opts.check:
            shutil.rmtree(out_dir, ignore_errors=True)
    if not opts.check and not opts.only:
        for lang in opts.lang or LANGS:         # a lecture whose source is gone leaves no notebook behind
            for old in (NOTEBOOKS / lang).glob("[0-9][0-9]_*.ipynb"):
                if not (SOURCES / f"{old.stem}.py").exists():
                    old.unlink()
                    print(f"removed {lang}/{old.name} (no source)")
    if opts.check:
        print("identical to notebooks/" if not differ else f"differ from notebooks/: {', '.join(differ)}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
