"""A table's signature (its constants, inputs and results), as HTML rows and as text lines; past ``TREE_AT``
values a side is one row, a tree folded by path (issue 19)."""
from __future__ import annotations

from jaxprlens.model.program import Var, path_id
from jaxprlens.present.display import array_text
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import t
from jaxprlens.present.nouns import atom_text, var_text
from jaxprlens.present.rows import LEFT, atom_html, binder_html, explain_html
from jaxprlens.present.words import program_title, seen_through_note

# a path tree without bullets (the ▸ of each <details> marks it), kept inline: the sanitizer keeps it untrusted
TREE = ' style="list-style:none;margin:0;padding-left:1.2em"'


# ------------------------------------------------------------------ the signature's pytrees (issue 19)
# A train step's inputs are every leaf of its params and optimizer state: hundreds of rows before the first
# equation.  Past TREE_AT values they are one row each side, a tree folded by path (``<details>``: opens
# with scripts stripped too), each level with its count of values and their bytes.

TREE_AT = 6
SIG_ITEMS = 500       # entries (levels and values) one tree stores: a 100k-equation model's 4,121 inputs were 1.3 MB
SIG_LINES = 200       # values per side the text form lists


class _Node:
    def __init__(self):
        self.kids: dict = {}
        self.leaves: list = []       # (path, atom) ending here
        self._tally = None

    def first(self):
        """The first ``(path, atom)`` at or below this node."""
        return self.leaves[0] if self.leaves else next(iter(self.kids.values())).first()

    def tally(self) -> tuple:
        """``(values, bytes)`` at or below this node (counted once: every level of the tree shows it)."""
        if self._tally is None:
            kids = [k.tally() for k in self.kids.values()]
            self._tally = (len(self.leaves) + sum(n for n, _ in kids),
                           sum(_nbytes(a) for _, a in self.leaves) + sum(b for _, b in kids))
        return self._tally


def _nbytes(a) -> int:
    from jaxprlens.engine.cost import nbytes
    return nbytes(getattr(a, "aval", None))


def _key_text(k) -> str:
    return f"[{k}]" if isinstance(k, int) else str(k)


def sig_tree(cls: str, word: str, items: list, lang: str, consts=()) -> str:
    """One signature row holding ``items`` (``(path, atom)``) as a folded tree by path:
    ``state ▸ [0] ▸ blocks ▸ [0] ▸ attn ▸ …``, each level ``name · 12 values · 3.1 kB``."""
    body = _tree_items(sig_entries(items), lang, consts, [SIG_ITEMS])
    return (f'<tr class="{cls} jl-sigtree"><td>{word}</td>'
            f'<td colspan="2"><ul class="jl-tree"{TREE}>{body}</ul></td></tr>')


def sig_entries(items: list) -> list:
    """The first level of the signature tree of ``items`` (``(path, atom)``): ``[(label, node)]``, e.g.
    ``model`` and ``optimizer`` (below a chain of single keys such as ``out``), values without a path first."""
    from jaxprlens.model.paths import path_tokens
    root = _Node()
    for path, a in items:
        node = root
        keys = path_tokens(path)
        for k in keys[:-1] if keys[-1:] == ("value",) else keys:      # flax.nnx's Variable.value
            node = node.kids.setdefault(k, _Node())
        node.leaves.append((path, a))
    head = []
    while len(root.kids) == 1 and not root.leaves:      # ``out`` of every result: start below it
        k, root = next(iter(root.kids.items()))
        head.append(k)
    entries = [("".join(_key_text(k) if i else str(k) for i, k in enumerate(head)), root)] if not root.kids else [
        ("".join(_key_text(x) if i else str(x) for i, x in enumerate(head + [k])), n) for k, n in root.kids.items()]
    if root.kids and root.leaves:
        entries.insert(0, ("", _Node()))
        entries[0][1].leaves = root.leaves
    return entries


def sig_lines(word: str, items: list, lang: str) -> list[str]:
    """The signature tree as text, its first level a line each: ``input: model · 36 values · 61 kB`` (what the
    HTML tree shows folded), a value alone as itself: ``input: a:i32[2,8]  (tokens)``."""
    from jaxprlens.present.i18n import si
    colon, lines = t("colon", lang), []

    def paren(x: str) -> str:
        return "" if not x else f"（{x}）" if lang == "zh" else f"  ({x})"
    entries = sig_entries(items)
    if len(entries) > SIG_LINES + 1:          # past SIG_LINES lines: how many values are left
        rest = sum(node.tally()[0] for _, node in entries[SIG_LINES:])
        entries = entries[:SIG_LINES]
    else:
        rest = 0
    for label, node in entries:
        for path, a in node.leaves if not label else ():
            lines.append(f"{word}{colon}{var_text(a)}{paren(path)}")
        if not label:
            continue
        count, nbytes = node.tally()
        if count == 1:
            path, a = node.first()
            lines.append(f"{word}{colon}{var_text(a)}{paren(path)}")
        else:
            lines.append(f"{word}{colon}{label} · {t('n_values', lang, n=count)} · {si(nbytes, 'B')}")
    return lines + ([t("sig_more", lang, n=rest)] if rest else [])


def _tree_items(entries: list, lang: str, consts, left: list) -> str:
    """One level of the tree (``(label, node)`` each), depth first, while ``left[0]`` entries are left to
    store; past that, one line says how many entries and values the level has that are not stored."""
    out = []
    for i, (label, node) in enumerate(entries):
        if left[0] <= 0:
            rest = entries[i:]
            text = t("sig_cut", lang, k=len(rest), n=sum(nd.tally()[0] for _, nd in rest))
            out.append(f'<li class="jl-more-note">{html(text)}</li>')
            break
        left[0] -= 1
        out.append(_tree_item(label, node, lang, consts, left))
    return "".join(out)


def _tree_item(label: str, node: _Node, lang: str, consts, left: list) -> str:
    from jaxprlens.present.i18n import si
    count, nbytes = node.tally()
    if count == 1:
        path, a = node.first()
        return f'<li class="jl-leaf">{binder_html(a, consts)} <span class="jl-path">{html(path)}</span></li>'
    size = t("n_values", lang, n=count) + " · " + si(nbytes, "B")
    inner = _tree_items([("", _leaf(x)) for x in node.leaves] + [(_key_text(k), n) for k, n in node.kids.items()],
                        lang, consts, left)
    return (f'<li><details><summary><b>{html(label)}</b> <span class="jl-type">{html(size)}</span></summary>'
            f'<ul class="jl-tree"{TREE}>{inner}</ul></details></li>')


def _leaf(x) -> _Node:
    n = _Node()
    n.leaves.append(x)
    return n


# ------------------------------------------------------------------ the signature as rows and as lines

PREVIEW = 6        # array elements shown in a constant's preview


class Entry:
    """One entry of a signature, as ``signature_of`` walks it once: ``kind`` ``const`` (``var`` and its
    ``value``'s preview), ``input`` (``var``, its Python ``path``, ``bound``: in a sub-jaxpr, the outer operand
    and its role word it is bound from, or None), ``result`` (``var``, ``path``), or ``inputs`` / ``results``: a
    side past ``TREE_AT`` values as one tree by path (``items``: ``(path, atom)``)."""
    __slots__ = ("kind", "var", "path", "text", "bound", "items")

    def __init__(self, kind: str, var=None, path: str = "", text: str = "", bound=None, items=None):
        self.kind, self.var, self.path, self.text, self.bound, self.items = kind, var, path, text, bound, items


def signature_of(p, lang: str, binding: list | None = None) -> list[Entry]:
    """The signature of ``p`` as entries, in the order it is shown: its constants, its inputs (one tree past
    ``TREE_AT`` values at the top level), its results (the same); ``binding`` (a sub-jaxpr's): for each input,
    ``(outer operand, role word)`` it is bound from, or None.  ``signature_html`` and ``signature_lines``
    render it."""
    out = [Entry("const", v, text=array_text(value, PREVIEW, lang=lang)) for v, value in zip(p.constvars, p.consts)]
    if binding is None and len(p.invars) > TREE_AT:       # pytrees of arguments: folded by path
        out.append(Entry("inputs", items=[(v.path or "", v) for v in p.invars]))
    else:
        out.extend(Entry("input", v, v.path or "", bound=binding[i] if binding is not None else None)
                   for i, v in enumerate(p.invars))
    paths = [p.out_paths[i] if i < len(p.out_paths) else "" for i in range(len(p.outvars))]
    if binding is None and len(p.outvars) > TREE_AT:
        out.append(Entry("results", items=list(zip(paths, p.outvars))))
    else:
        out.extend(Entry("result", v, path) for v, path in zip(p.outvars, paths))
    return out


def signature_html(p, lang: str, count: str, binding: list | None = None) -> str:
    """The caption (``count``: the program's equations) and the signature table of ``p`` (``signature_of``
    as HTML rows, every value listed)."""
    rows = []
    consts = set(p.constvars)
    inputs, results = t("inputs_title", lang), t("results", lang)     # said once, on every row
    for e in signature_of(p, lang, binding):
        v, kind = e.var, e.kind
        if kind == "const":
            rows.append(f'<tr class="jl-constvar"><td>{t("constvar", lang)}</td><td{LEFT}>{binder_html(v)}</td>'
                        f"<td{LEFT}>= {html(e.text)}</td></tr>")
        elif kind == "inputs":
            rows.append(sig_tree("jl-invar", inputs, e.items, lang))
        elif kind == "results":
            rows.append(sig_tree("jl-outvar", results, e.items, lang, consts))
        elif kind == "input":
            where, bound = html(e.path), binder_html(v)
            if e.bound:
                outer, role = e.bound
                role_html = f"（{html(role)}）" if lang == "zh" else f" ({html(role)})"
                where = f"{t('bound_from', lang)} {atom_html(outer)}{role_html}" + (
                    f' <span class="jl-path">{html(e.path)}</span>' if e.path else "")
                if isinstance(outer, Var):     # the script follows the value into the sub-jaxpr
                    bound = binder_html(v, came_from=outer)
            rows.append(f'<tr class="jl-invar"><td>{inputs}</td><td{LEFT}>{bound}</td><td{LEFT}>{where}</td></tr>')
        else:
            rows.append(f'<tr class="jl-outvar"><td>{results}</td><td{LEFT}>{binder_html(v, consts)}</td>'
                        f"<td{LEFT}>{html(e.path)}</td></tr>")
    title = f"{html(program_title(p, lang))} — " if p.title else ""
    seen = seen_through_note(p, lang) if binding is None else ""
    seen = f'<div class="jl-seen">{explain_html(seen)}</div>' if seen else ""
    return (f'{seen}<div class="jl-cap">{title}{t("signature", lang)}{t("colon", lang)}{html(count)}</div>'
            f'<table class="jl-sig" data-path="{html(path_id(p.path))}">{"".join(rows)}</table>')


def signature_lines(p, lang: str, pad: str, binding: list | None = None) -> list[str]:
    """``signature_of`` as text lines, each side listing at most ``SIG_LINES`` values (then how many more)."""
    colon, inputs, results = t("colon", lang), t("inputs_title", lang), t("results", lang)

    def paren(x: str) -> str:
        return f"（{x}）" if lang == "zh" else f"  ({x})"

    entries = signature_of(p, lang, binding)
    lines: list[str] = []
    total = {k: sum(1 for e in entries if e.kind == k) for k in ("input", "result")}
    said = dict.fromkeys(total, 0)
    for e in entries:
        v, kind = e.var, e.kind
        if kind in said and total[kind] > SIG_LINES + 1:     # a model's thousands of parameters: the first
            said[kind] += 1                                   # SIG_LINES, then how many more
            if said[kind] > SIG_LINES:
                if said[kind] == SIG_LINES + 1:
                    lines.append(f"{pad}{t('sig_more', lang, n=total[kind] - SIG_LINES)}")
                continue
        if kind == "const":
            lines.append(f"{pad}{t('constvar', lang)}{colon}{var_text(v)} = {e.text}")
        elif kind in ("inputs", "results"):      # pytrees: a line per subtree
            lines.extend(pad + x for x in sig_lines(inputs if kind == "inputs" else results, e.items, lang))
        elif kind == "input":
            if e.bound:
                outer, role = e.bound
                where = f"  {t('bound_from', lang)} {atom_text(outer)}" + paren(role).lstrip() + (
                    f"  {e.path}" if e.path else "")
            else:
                where = paren(e.path) if e.path else ""
            lines.append(f"{pad}{inputs}{colon}{var_text(v)}{where}")
        else:
            lines.append(f"{pad}{results}{colon}{var_text(v)}" + (paren(e.path) if e.path else ""))
    return lines
