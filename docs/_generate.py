"""Pages of the docs generated from their single source: the magic's help and the executed notebooks of both
editions."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path


def write_options(target: Path) -> None:
    """``options.md``: the ``%%jaxpr`` docstring (its ``%%jaxpr?`` help) and a table of its options."""
    from jaxprlens.magic import JaxprMagics

    fn = JaxprMagics.jaxpr
    rows = []
    for action in fn.parser._actions:
        if not action.option_strings:
            continue
        name = ", ".join(f"`{o}`" for o in action.option_strings)
        value = "" if action.nargs == 0 else f" `{action.dest.upper()}`"
        # argparse's help is a %-template (``%%jaxpr_config`` prints as ``%jaxpr_config``)
        helptext = _code_options((action.help or "").replace("%%", "%").replace("|", "\\|"))
        rows.append(f"| {name}{value} | {helptext} |")
    text = "\n".join([
        "# Magic options",
        "",
        "Generated from the magic's own help (`%%jaxpr --help` in a notebook shows the same text, in the cell's"
        " language; `%%jaxpr?` in English).",
        "",
        "| option | meaning |",
        "| --- | --- |",
        *rows,
        "",
        "## `%%jaxpr?`",
        "",
        "```text",
        _dedent_doc(fn.__doc__ or ""),
        "```",
        "",
    ])
    _write(target, text)


def _code_options(text: str) -> str:
    """``--run`` in help text as code, so Sphinx's smart quotes do not turn its ``--`` into a dash."""
    return re.sub(r"(?<![\w`])(--[a-z][\w-]*)", r"`\1`", text)


def _dedent_doc(doc: str) -> str:
    import inspect
    return inspect.cleandoc(doc).strip()


# What the folded solution's one-click summary says, per edition (the course's own word for a solution).
SOLUTION_PROMPTS = {
    "en": ("Show solution", "Hide solution"),
    "zh": ("显示参考答案", "隐藏参考答案"),
}


def copy_notebooks(src: Path, dest: Path, langs=("en", "zh")) -> None:
    """Copy each edition's ``notebooks/<lang>/NN_*.ipynb`` to ``course/<lang>/`` (Sphinx reads only its source
    dir), dropping copies whose lecture is gone (and the first edition's ``course/NN_*.ipynb``); each copy has
    its solutions folded (:func:`fold_solutions`)."""
    for old in dest.glob("*.ipynb"):
        old.unlink()
    for lang in langs:
        into = dest / lang
        into.mkdir(parents=True, exist_ok=True)
        wanted = {p.name for p in (src / lang).glob("[0-9][0-9]_*.ipynb")}
        for old in into.glob("*.ipynb"):
            if old.name not in wanted:
                old.unlink()
        for name in sorted(wanted):
            nb = json.loads((src / lang / name).read_text(encoding="utf-8"))
            text = json.dumps(fold_solutions(nb, lang), ensure_ascii=False, indent=1) + "\n"
            _write(into / name, text)


def fold_solutions(nb: dict, lang: str) -> dict:
    """Fold every solution cell (tagged ``solution-N``, folded in Jupyter by ``source_hidden``) on the docs page
    as it is in the notebook: myst-nb's ``hide-cell`` wraps the cell in a ``<details>``, one click opens it."""
    show, hide = SOLUTION_PROMPTS[lang]
    for cell in nb["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "code" and any(t.startswith("solution-") for t in tags):
            cell["metadata"]["tags"] = [*tags, "hide-cell"] if "hide-cell" not in tags else tags
            cell["metadata"]["mystnb"] = {"code_prompt_show": show, "code_prompt_hide": hide}
    return nb


def _write(target: Path, text: str) -> None:
    """Write ``target`` only when its text changes (Sphinx then need not reread it), all at once (a build running
    beside this one never reads half a file)."""
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return
    part = target.with_name(f".{target.name}.{os.getpid()}")
    part.write_text(text, encoding="utf-8")
    os.replace(part, target)
