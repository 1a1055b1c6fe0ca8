"""Lay out the catalogue's entries (src/jaxprlens/present/catalogue/*.py) whose lines pass 120 columns.

    python scripts/format_catalogue.py            # rewrites the entries that are too wide, says which

An entry is ``"key": (en, zh[, en_one]),``; one that does not fit on its line is cut into implicitly
concatenated pieces, each text on its own lines (English at spaces, Chinese between characters), measured
in display columns (a CJK character takes two).  Entries that fit are left as they are; comments too.
Add a key by hand anywhere in its view's module, then run this.
"""
from __future__ import annotations

import ast
import re
import sys
import unicodedata
from pathlib import Path

LIMIT = 120
PARTS = Path(__file__).resolve().parent.parent / "src" / "jaxprlens" / "present" / "catalogue"


def width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"') + '"'


def pieces(text: str, room: int) -> list[str]:
    """``text`` cut where each quoted piece fits ``room`` columns: after an ASCII word and its spaces, or
    between two other characters."""
    out, cur = [], ""
    for token in re.findall(r"[!-~]+ *| +|.", text, re.S):
        if cur and width(quoted(cur + token)) > room:
            out.append(cur)
            cur = token
        else:
            cur += token
    return out + [cur]


def entry(key: str, texts: tuple) -> list[str]:
    """The lines of one entry, on one line when it fits."""
    head = f"    {quoted(key)}: ("
    line = head + ", ".join(quoted(s) for s in texts) + "),"
    if width(line) <= LIMIT:
        return [line]
    indent, out = " " * width(head), []
    if width(head) > 40:                   # a long key: the texts start on the next line
        indent, out = " " * 8, [head]
    for j, text in enumerate(texts):
        end = ")," if j == len(texts) - 1 else ","
        cut = pieces(text, LIMIT - len(indent) - len(end))
        for i, piece in enumerate(cut):
            start = head if not out else indent
            out.append(start + quoted(piece) + (end if i == len(cut) - 1 else ""))
    return out


def format_part(path: Path) -> list[str]:
    """Re-lay the too-wide entries of one module's ``WORDS``; the keys re-laid."""
    source = path.read_text(encoding="utf-8")
    lines = source.split("\n")
    words = next(n.value for n in ast.parse(source).body if isinstance(n, ast.Assign) and n.targets[0].id == "WORDS")
    done = []
    for k, v in reversed(list(zip(words.keys, words.values))):
        first, last = k.lineno - 1, v.end_lineno
        if any(width(line) > LIMIT for line in lines[first:last]):
            if lines[first].strip().startswith(quoted(k.value)) and lines[last - 1].rstrip().endswith("),"):
                lines[first:last] = entry(k.value, ast.literal_eval(v))
                done.append(k.value)
            else:
                print(f"{path.name}: {k.value} shares its lines with another entry; give it lines of its own",
                      file=sys.stderr)
    path.write_text("\n".join(lines), encoding="utf-8")
    return done[::-1]


if __name__ == "__main__":
    for part in sorted(PARTS.glob("*.py")):
        if part.name not in ("__init__.py", "glossary.py"):
            for key in format_part(part):
                print(f"{part.name}: {key}")
