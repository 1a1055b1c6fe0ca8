"""The debugger's panel as HTML: the one renderer of its crumbs, notes, value panel and source listing, for the
static snapshot, the live widget and the recorded replay alike (``views/debugger/dbgview.js`` only inserts these
fragments, and wires the buttons they carry by their ``data-*`` attributes).

A panel is four pieces (``PIECES``), each the inner HTML of one box of the debugger: ``pieces(state, lang,
live)`` renders them from ``StateView.state``'s data.  ``live``: the widget (what-if edit buttons, the jit
comparison's button); not live, the snapshot and the replay, which say that an edit needs a kernel instead.
``static``: the snapshot shown where no script (and so none of our CSS) runs: cells say their alignment inline.
Every user string is escaped once, here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from jaxprlens.present.escape import html
from jaxprlens.present.i18n import t
from jaxprlens.present.rows import LEFT

PIECES = ("crumbs", "notes", "values", "source")
# a value's preview untrusted: JupyterLab's `pre` breaks anywhere (`word-break:break-all`), mid-number
NUMS = ' style="word-break:normal"'
_BAD = re.compile(r"(-?\binf\b|\bnan\b)")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$", re.I)      # a value the panel's edit buttons can name
EDIT_BUTTONS = (("nan", "edit_nan", None), ("zero", "edit_zero", None), ("scale", "edit_scale", 2),
                ("eps", "edit_eps", None))


TEXT_CHARS = 80     # a value's text/plain line is cut here


@dataclass(frozen=True, slots=True)
class Item:
    """One value of the panel, built once per state (``dbgstate.value_item``): its HTML (``value_html``) and its
    text line (``value_text``) are two renderings of it, so they name and show the same value.  ``role``: an
    input of the next equation, an output of the last one, or a result (``ROLES``)."""
    role: str
    name: str               # as the table names it (a result: its Python path when the program has them)
    path: str               # its Python path ("" for none)
    shape: str
    dtype: str
    stats: str              # statistics in the reader's words
    preview: str            # the printed value, cut at the panel's length
    line: str               # the printed value on one line, cut at ``TEXT_CHARS`` (a key array's with its type)
    nan: int = 0
    inf: int = 0
    hist: list | None = None
    min: float | None = None
    max: float | None = None
    picture: str = ""       # present.picture's HTML ("" for none)


ROLES = ("input", "output", "result")


def crumbs_html(crumbs: list) -> str:
    """``top › while[eqn 2] › body › eqn 1``: one span per level."""
    return " › ".join(f"<span>{html(c)}</span>" for c in crumbs)


def notes_html(notes: list, lang: str, live: bool) -> str:
    """``[[kind, text], ...]`` as notes; a comparison with jax.jit past its budget is a button, live."""
    out = []
    for kind, text in notes:
        button = ""
        if kind == "jitskip" and live:
            button = (f'<button type="button" class="jl-btn jl-jit-btn" data-act="jit" '
                      f'title="{html(t("tip_jit", lang))}">{html(t("btn_jit", lang))}</button>')
        elif kind == "edit" and not live:       # a replay shows the edits recorded; a new one needs the kernel
            button = f' <span class="jl-edit-kernel">{html(t("edit_needs_kernel", lang))}</span>'
        out.append(f'<div class="jl-note jl-{html(kind)}">{html(text)}{button}</div>')
    return "".join(out)


def preview_html(text: str, static: bool = False) -> str:
    """A value's printed preview, its NaN and Inf marked."""
    parts = _BAD.split(text)
    body = "".join(f'<span class="jl-bad">{html(p)}</span>' if i % 2 else html(p) for i, p in enumerate(parts))
    return f'<pre class="jl-val"{NUMS if static else ""}>{body}</pre>'


def editor_html(name: str, lang: str) -> str:
    """The what-if actions for one value (live: ``press("edit", var=, op=, value=)``), their tip said once."""
    buttons = "".join(
        f'<button type="button" class="jl-btn jl-edit-btn" data-edit="{op}"'
        + (f' data-value="{value}"' if value is not None else "") + f">{html(t(key, lang))}</button>"
        for op, key, value in EDIT_BUTTONS)
    return (f'<span class="jl-edit" data-var="{html(name)}" title="{html(t("tip_edit", lang))}">{buttons}'
            f'<input type="text" class="jl-edit-set" size="6" placeholder="{html(t("edit_set", lang))}"></span>')


def value_text(it: Item) -> str:
    """One value as the text/plain lists it: ``name = value on one line``."""
    return f"{it.name} = {it.line}"


def value_html(it: Item, title: str, lang: str, live: bool, changed: bool, static: bool = False) -> str:
    """One value of the panel: a head row (where from, name and Python path, shape, dtype), then its data
    (statistics, edit actions live, histogram and preview).  The one place a value's HTML is assembled: what
    the panel draws beside a value (a picture) is added here."""
    left = LEFT if static else ""
    cls = "jl-value" + (" jl-nonfinite" if it.nan or it.inf else "") + (" jl-changed" if changed else "")
    tip = f' title="{html(t("changed_by_edit", lang))}"' if changed else ""
    # a space before the path: where a sanitizer strips the stylesheet (its margin), ``b params['w1']`` still
    path = f' <span class="jl-path">{html(it.path)}</span>' if it.path and it.path != it.name else ""
    head = (f'<tr class="{cls}" data-var="{html(it.name)}"{tip}><td class="jl-vtitle"{left}>{html(title)}</td>'
            f'<td class="jl-vname"{left}><var>{html(it.name)}</var>{path}</td>'
            f'<td{left}>{html(it.shape)}</td><td{left}>{html(it.dtype)}</td></tr>')
    stats = f'<div class="jl-stats">{html(it.stats)}</div>' if it.stats else ""
    edit = editor_html(it.name, lang) if live and _NAME.match(it.name) else ""
    pic = it.picture          # present.picture: the value drawn, its legend and its histogram
    pic = f'<div class="jl-vpic">{pic}</div>' if pic else ""
    return (head + f'<tr class="jl-value-data"><td class="jl-vcell" colspan="4"{left}>{stats}{edit}'
            f'<div class="jl-vrow">{preview_html(it.preview, static)}</div>{pic}</td></tr>')


def values_html(groups: list, lang: str, live: bool, changed=(), static: bool = False) -> str:
    """``StateView.values`` as the value panel's table ('' with no value)."""
    changed = set(changed)
    rows = "".join(value_html(it, g["title"], lang, live, it.name in changed, static)
                   for g in groups for it in g["items"])
    if not rows:
        return ""
    left = LEFT if static else ""
    head = "<th></th>" + "".join(f"<th{left}>{html(t(k, lang))}</th>" for k in ("name", "shape", "dtype"))
    return f'<table class="jl-values"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def source_html(src: list | None) -> str:
    """``[where, [[line, text, is_current], ...]]`` as the source listing ('' with none)."""
    if not src:
        return ""
    body = "\n".join(f'<span class="jl-line{" jl-hl" if cur else ""}" data-line="{n}">{n:>4}  {html(text)}</span>'
                     for n, text, cur in src[1])
    return f'<pre class="jl-code" data-where="{html(src[0])}">{body}</pre>'


def pieces(state: dict, lang: str, live: bool, static: bool = False) -> dict:
    """The panel of one state (``StateView.state``) as its four pieces of HTML."""
    return {"crumbs": crumbs_html(state["crumbs"]), "notes": notes_html(state["notes"], lang, live),
            "values": values_html(state["values"], lang, live, state.get("changed", ()), static),
            "source": source_html(state["source"])}


def side_html(p: dict) -> str:
    """The pieces beside the frame in their boxes, as the script keeps them (``views/debugger/dbgview.js``)."""
    return (f'<div class="jl-dbg-side"><div class="jl-dbg-notes">{p["notes"]}</div><div class="jl-dbg-values">'
            f'{p["values"]}</div><div class="jl-dbg-src">{p["source"]}</div></div>')
