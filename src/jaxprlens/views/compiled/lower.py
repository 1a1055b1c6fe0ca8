"""The StableHLO a program lowers to (and XLA's optimized HLO), linked to the jaxpr's equations by the
source locations JAX writes into the module."""
from __future__ import annotations

import hashlib
import re

import jax

from jaxprlens.present.display import View
from jaxprlens.present.escape import html
from jaxprlens.present.front import style
from jaxprlens.present.i18n import resolve as resolve_lang, t
from jaxprlens.model.program import Program
from jaxprlens.model.marimocells import notebook
from jaxprlens.model.sources import located, where_label
from jaxprlens.views.compiled.compare import CELL, EQ, FIXED, ROOT

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
_PATH = re.compile(r'"(?:[^"\n]*/)([^"/\n]+)"')                 # "/abs/dir/file.py" -> "file.py"
_FRAME_TABLES = re.compile(r"^(?:FileNames|FunctionNames|FileLocations|StackFrames)\n(?:.+\n)*\n*", re.M)
_FRAME_REF = re.compile(r"\s*\bstack_frame_id=\d+")
_FINGERPRINT = re.compile(r",?\s*\b\w*fingerprint\w*\s*[=:]\s*\"?[0-9a-fA-F]+\"?")


# ---------------------------------------------------------------- lowering

def lowered(program: Program):
    """``jax.jit(fn).lower(*args)`` for a traced program (its static arguments and held leaves as the call had
    them); the jaxpr itself when there is no call to rebuild (``from_jaxpr``) or the program is a ``jit``'s body."""
    from jaxprlens.engine.transform import rebuilt
    if program.call is not None and program.outer is None:
        fn, args, kwargs = rebuilt(program)
        return jax.jit(fn).lower(*args, **kwargs)
    fn = jax.extend.core.jaxpr_as_fun(program.jaxpr)
    specs = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in program.invars]
    return jax.jit(fn).lower(*specs)


def stablehlo(program: Program) -> HloText:
    """The StableHLO module with locations removed from the text and kept per line for linking."""
    return parse_stablehlo(lowered(program).as_text(debug_info=True))


def compiled_hlo(program: Program) -> str:
    """XLA's optimized HLO, with absolute paths cut to file names and fingerprints/addresses removed."""
    return clean_compiled(lowered(program).compile().as_text())


def clean_compiled(text: str) -> str:
    # The stack-frame tables list every Python frame of the tracing call (IPython's, ours), whose
    # paths and line numbers vary between machines and versions: drop them and their references.
    text = _FRAME_TABLES.sub("", text)
    text = _FRAME_REF.sub("", text)
    text = _PATH.sub(r'"\1"', text)
    text = _FINGERPRINT.sub("", text)
    return _ADDRESS.sub("0x…", text).rstrip() + "\n"


# ---------------------------------------------------------------- MLIR locations

_LOC = re.compile(r"(?<![\w.])loc\(")
# the StableHLO pane as the stylesheet draws it, kept untrusted: long lines wrap (each starts at its number),
# a long module scrolls inside the pane; lines break between tokens (JupyterLab's `pre` breaks anywhere)
HLO = (' style="white-space:pre-wrap;word-break:normal;overflow-wrap:normal;overflow:auto;max-height:36em;'
       'max-width:100%;margin:0"')
COMPILED = HLO.replace("36em", "24em")          # XLA's optimized HLO under the panes, the same way
# a StableHLO line that wraps goes on right of its number (every line after the first of each: the number and
# its two spaces are 6 characters); untrusted, JupyterLab's sanitizer drops it (it keeps a plain length only)
HLO = HLO[:-1] + ';text-indent:6ch hanging each-line"'
# the panes' rows keep the page's own background: JupyterLab tints a hovered table row with a translucent blue,
# twice over a jaxpr row inside the panes' row, where the dark theme's link blue read at 4.47:1 (``L9``).  A link
# colour cannot help untrusted (the sanitizer keeps only a plain colour, and none reads on both themes' rows)
ROW = ' style="background-color:transparent"'
# the jaxpr's cells padded as the stylesheet pads them (JupyterLab's roomier padding untrusted pushed a long
# token's row further over the StableHLO column); a token wider than the column breaks rather than run over it,
# and a nested id breaks after its slashes (``5/call/0/<wbr>call/0``), so the equations keep the pane's width
TIGHT, EQ_TIGHT = (x[:-1] + ';padding:1px 5px' + w + '"' for x, w in ((CELL, ""), (EQ, ";overflow-wrap:anywhere")))
# the links to StableHLO lines two to a line (``L10 L17``): a program's many links no longer take the equations' room
LINKS = TIGHT[:-1] + ';width:5.5em"'


def _close(text: str, k: int) -> int:
    """Index of the parenthesis closing the one at ``k`` (quotes respected)."""
    depth, quoted = 0, False
    while k < len(text):
        c = text[k]
        if c == '"' and text[k - 1] != "\\":
            quoted = not quoted
        elif not quoted and c == "(":
            depth += 1
        elif not quoted and c == ")":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return len(text)


def _take_locs(line: str) -> tuple[str, list[str]]:
    """Remove every ``loc(...)`` from a line; return the clean line and the locations' contents."""
    out, locs, i = [], [], 0
    while (m := _LOC.search(line, i)):
        k = _close(line, m.end() - 1)
        out.append(line[i:m.start()].rstrip(" "))
        locs.append(line[m.end():k])
        i = k + 1
    out.append(line[i:])
    return "".join(out).rstrip(), locs


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, quoted, start, k = [], 0, False, 0, 0
    while k < len(text):
        c = text[k]
        if c == '"' and (k == 0 or text[k - 1] != "\\"):
            quoted = not quoted
        elif not quoted and c in "([":
            depth += 1
        elif not quoted and c in ")]":
            depth -= 1
        elif not quoted and depth == 0 and text.startswith(sep, k):
            parts.append(text[start:k])
            start = k = k + len(sep)
            continue
        k += 1
    parts.append(text[start:])
    return parts


def resolve(expr: str, defs: dict, depth: int = 0) -> tuple:
    """``(name, file, line)`` of an MLIR location: the outermost name, the innermost (callee) file:line."""
    expr = expr.strip()
    if depth > 50 or not expr or expr == "unknown":
        return (None, None, None)
    if expr.startswith("#loc"):
        return resolve(defs.get(expr, ""), defs, depth + 1)
    if expr.startswith("callsite(") and expr.endswith(")"):
        return resolve(_split_top(expr[9:-1], " at ")[0], defs, depth + 1)
    if expr.startswith("fused[") and expr.endswith("]"):
        for part in _split_top(expr[6:-1], ", "):
            found = resolve(part, defs, depth + 1)
            if found[2] is not None:
                return found
        return (None, None, None)
    m = re.match(r'"((?:[^"\\]|\\.)*)"', expr)
    if not m:
        return (None, None, None)
    text, rest = m.group(1), expr[m.end():]
    if rest.startswith(":"):
        line = re.match(r":(\d+)", rest)
        return (None, text, int(line.group(1)) if line else None)
    if rest.startswith("(") and rest.endswith(")"):
        _, file, line = resolve(rest[1:-1], defs, depth + 1)
        return (text, file, line)
    return (text, None, None)


class HloText:
    """StableHLO text without locations; ``lines[i]`` with ``where[i] = (primitive, where, line)`` (``where`` and
    ``line`` as a ``Source`` says them: ``cell``, a line within the cell) and ``cells[i]`` its marimo cell's place."""

    def __init__(self, lines: list[str], where: list[tuple], cells: list | None = None):
        self.lines, self.where = lines, where
        self.cells = cells if cells is not None else [None] * len(where)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def parse_stablehlo(debug_text: str) -> HloText:
    defs, body = {}, []
    for raw in debug_text.splitlines():
        m = re.match(r"^(#loc\d*)\s*=\s*loc\((.*)\)\s*$", raw)
        if m:
            defs[m.group(1)] = m.group(2)
        else:
            body.append(raw)
    lines, where, cells, here = [], [], [], notebook()
    for raw in body:
        clean, locs = _take_locs(raw)
        if not clean.strip() and not locs:
            continue
        lines.append(_ADDRESS.sub("0x…", clean))
        name, file, line = resolve(locs[-1], defs) if locs else (None, None, None)
        prim = name.rsplit("/", 1)[-1] if name else None
        at, cell = (where_label(file) if file else None), None
        if file and line:
            at, line, cell = located(file, line, here)
        where.append((prim, at, line))
        cells.append(cell)
    return HloText(lines, where, cells)


def links(program: Program, hlo: HloText) -> dict[str, list[int]]:
    """``{eqn id: [StableHLO line numbers, 1-based]}``: same source line, same primitive where possible."""
    out = {}
    for eqn in program.walk():
        if not eqn.source:
            continue
        key = (eqn.source.where, eqn.source.line, eqn.source.cell)
        same_line = [i + 1 for i, (w, c) in enumerate(zip(hlo.where, hlo.cells)) if (w[1], w[2], c) == key]
        same_prim = [i for i in same_line if hlo.where[i - 1][0] == eqn.primitive]
        if same_prim or same_line:
            out[eqn.id] = same_prim or same_line
    return out


# ---------------------------------------------------------------- the view

class Lowering(View):
    """``--lower``: the jaxpr beside its StableHLO, each equation linked to its ops; ``--compiled`` adds
    XLA's optimized HLO."""

    def __init__(self, program: Program, compiled: bool = False, lang: str | None = None):
        self.program, self.lang = program, resolve_lang(lang)
        self.hlo = stablehlo(program)
        self.links = links(program, self.hlo)
        self.compiled = compiled_hlo(program) if compiled else None
        self._id = "jl" + hashlib.sha1(self.hlo.text.encode()).hexdigest()[:8]

    def _eqn_lines(self):
        from jaxprlens.present.nouns import eqn_text as eqn_line
        for eqn in self.program.walk():
            pad = "  " * sum(1 for x in eqn.path if isinstance(x, str))
            yield eqn, pad, eqn_line(eqn)

    def text(self) -> str:
        out = [t("lower_head", self.lang)]
        for eqn, pad, line in self._eqn_lines():
            to = ", ".join(f"L{n}" for n in self.links.get(eqn.id, []))
            out.append(f"{eqn.id:>10}  {pad}{line}" + (f"   → {to}" if to else ""))
        out.append("")
        out.append(t("stablehlo_head", self.lang))
        out.extend(f"{i:>4}  {line}" for i, line in enumerate(self.hlo.lines, 1))
        if self.compiled is not None:
            out.append("")
            out.append(t("optimized_hlo", self.lang) + t("colon", self.lang).rstrip())
            out.append(self.compiled.rstrip())
        return "\n".join(out)

    def html(self) -> str:
        back: dict = {}
        for eid, nums in self.links.items():
            for n in nums:
                back.setdefault(n, []).append(eid)
        rows = []
        for eqn, pad, line in self._eqn_lines():
            to = " ".join(f'<a href="#{self._id}-L{n}">L{n}</a>' for n in self.links.get(eqn.id, []))
            rows.append(f'<tr data-eqn="{html(eqn.id)}"{ROW}><td{TIGHT}>{html(eqn.id).replace("/", "/<wbr>")}</td>'
                        f'<td class="jl-eq"{EQ_TIGHT}>{pad}{html(line)}</td>'
                        f'<td class="jl-hlo-links"{LINKS}>{to}</td></tr>')
        hlo = []
        for n, line in enumerate(self.hlo.lines, 1):
            eqns = " ".join(back.get(n, []))
            attr = f' data-eqns="{html(eqns)}" title="{html(t("from_eqn", self.lang, ids=eqns))}"' if eqns else ""
            hlo.append(f'<span id="{self._id}-L{n}" class="jl-hlo-line" data-line="{n}"{attr}>'
                       f'<span class="jl-ln">{n:>4}</span>  {html(line)}\n</span>')   # a line untrusted too
        compiled = ""
        if self.compiled is not None:
            compiled = (f'<details open class="jl-compiled"><summary>{t("optimized_hlo", self.lang)}</summary>'
                        f'<pre class="jl-hlo"{COMPILED}>{html(self.compiled)}</pre></details>')
        return (f'{style()}<div class="jaxprlens jl-lowering" lang="{self.lang}"{ROOT}><table{FIXED}><thead><tr>'
                f'<th style="text-align:left;width:42%">jaxpr</th><th{CELL}>StableHLO</th></tr></thead><tbody><tr{ROW}>'
                f'<td{CELL}><table class="jl-eqns">{"".join(rows)}</table></td>'
                f'<td{CELL}><pre class="jl-hlo"{HLO}>{"".join(hlo)}</pre></td></tr></tbody></table>{compiled}</div>')


def lowering_view(program: Program, compiled: bool = False, lang: str | None = None) -> Lowering:
    return Lowering(program, compiled=compiled, lang=lang)


def part(cell) -> Lowering:
    """``--lower`` / ``--compiled``: one part, the StableHLO and (``--compiled``) XLA's optimized HLO."""
    return lowering_view(cell.program, compiled=cell.opts.compiled, lang=cell.opts.lang)
