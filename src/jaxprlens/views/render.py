"""How the graph looks (colour kinds, node styles, the HTML hover hook) and how it is rendered.

Find a Graphviz renderer and turn DOT into SVG/PNG/PDF.

By default a system ``dot`` on PATH renders (it also writes PDF); without one, the ``graphviz-pure``
binary that pip installs with jaxprlens does (a static port of Graphviz: same output everywhere; it
is not named ``dot``, so we run it by path and never touch the user's PATH).
``JAXPRLENS_RENDERER`` chooses explicitly: ``dot``, ``graphviz-pure``, or a path to an executable
with ``dot``'s command line.  Stored notebook outputs come from one pinned renderer: ``make test``
and ``scripts/build_notebooks.py`` set ``JAXPRLENS_RENDERER=graphviz-pure``.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from jaxprlens.model.taxonomy import graph_kind
from jaxprlens.present.escape import html
from jaxprlens.present.i18n import t

ENV = "JAXPRLENS_RENDERER"
PURE = "graphviz-pure"
TIMEOUT = 60.0          # seconds; a layout that takes longer is reported, not waited for
HOW_TO = ("pip install graphviz-pure (jaxprlens depends on it), or install Graphviz and set "
          f"{ENV}=dot")

# graphviz-pure writes these (``graphviz-pure -T?``); no pdf/ps yet.
PURE_FORMATS = ("svg", "png", "jpeg", "jpg", "dot", "xdot", "json", "plain", "canon")


class RenderError(RuntimeError):
    """No renderer, or the renderer failed; the message says what to do."""


def _runnable(path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _installed_binaries(exe: str):
    """Where the ``graphviz-pure`` distribution on ``sys.path`` put its binary: as its RECORD says (a venv,
    ``pip install --user``), or in ``bin/`` beside the dist-info, where ``pip install --target DIR`` moves it
    (its RECORD then points outside ``DIR``)."""
    from importlib import metadata
    for dist in metadata.distributions(name=PURE, path=sys.path):
        for f in dist.files or ():
            if f.name == exe:
                yield Path(os.path.normpath(dist.locate_file(f)))
        home = Path(dist.locate_file(""))
        yield from (home / d / exe for d in ("bin", "Scripts"))


def _pure_binary() -> str | None:
    """graphviz-pure's binary: beside this Python, where its Python package installed it, or on PATH."""
    exe = "graphviz-pure.exe" if os.name == "nt" else "graphviz-pure"
    beside = Path(sys.executable).parent / exe
    if _runnable(beside):
        return str(beside)
    found = next((p for p in _installed_binaries(exe) if _runnable(p)), None)
    return str(found) if found is not None else shutil.which(PURE)


def find_renderer() -> tuple[str, str]:
    """``(name, executable)`` of the renderer to use; raises ``RenderError`` when there is none."""
    choice = os.environ.get(ENV, "").strip()
    if choice == "dot":
        exe = shutil.which("dot")
        if exe is None:
            raise RenderError(f"{ENV}=dot, but no `dot` is on PATH; unset {ENV} to use graphviz-pure")
        return "dot", exe
    if choice == "" and shutil.which("dot"):
        return "dot", shutil.which("dot")
    if choice in ("", PURE):
        exe = _pure_binary()
        if exe is not None:
            return PURE, exe
        raise RenderError(f"graphviz-pure is not installed; {HOW_TO}")
    path = Path(choice).expanduser()
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise RenderError(f"{ENV}={choice!r} is not an executable file "
                          f"(must be 'dot', '{PURE}' or a path to one); {HOW_TO}")
    return path.name, str(path)


def render(source: str, fmt: str = "svg", timeout: float = TIMEOUT) -> bytes:
    """Lay out DOT ``source`` and return the ``fmt`` output bytes (``svg``, ``png``, ...)."""
    name, exe = find_renderer()
    if name.startswith(PURE) and fmt not in PURE_FORMATS:
        raise RenderError(f"graphviz-pure cannot write {fmt!r} (it writes {', '.join(PURE_FORMATS)}); "
                          f"save as .svg or .png, or install Graphviz and set {ENV}=dot")
    try:
        done = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"), capture_output=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(f"{name} took more than {timeout:.0f} s to lay out this graph; "
                          "fold more of it (depth=, max_nodes=) or show one nested path (path=)") from None
    except OSError as e:
        raise RenderError(f"could not run {name} ({e.strerror or e}); {HOW_TO}") from None
    if done.returncode != 0 or not done.stdout:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RenderError(f"{name} failed (exit {done.returncode}): {' '.join(err[-3:]) or 'no output'}")
    return done.stdout


def svg_many(sources: list) -> list:
    """Lay out several DOT graphs in one run of the renderer (a page draws a dozen views ahead of time):
    the SVG text of each, in order."""
    out = svg_text(render("\n".join(sources), "svg"))
    docs = [d for d in re.split(r"(?=<\?xml )", out) if d.strip()]
    if len(docs) != len(sources):
        raise RenderError(f"the renderer wrote {len(docs)} drawings for {len(sources)} graphs")
    return docs


_PROLOG = re.compile(r"\A(?:<\?xml[^>]*\?>\s*)?(?:<!DOCTYPE[^>]*>\s*)?", re.S)
_COMMENT = re.compile(r"<!--.*?-->\s*", re.S)


def svg_text(data: bytes) -> str:
    """The SVG as text with line endings normalised (graphviz-pure's output is otherwise stable)."""
    return data.decode("utf-8").replace("\r\n", "\n")


def inline_svg(svg: str) -> str:
    """The SVG without XML prolog, DOCTYPE and comments, for embedding in HTML."""
    return _COMMENT.sub("", _PROLOG.sub("", svg)).strip()


# ---------------------------------------------------------------- appearance

MID = "#888888"       # strokes and edge text: readable on light and dark backgrounds
INK = "#1a1a1a"       # text on the light fills

# Colour kinds of primitives come from the one taxonomy (taxonomy.graph_kind).
KIND_COLORS = {   # kind: (fill, stroke); light fills with dark text, mid-tone strokes
    "elementwise": ("#cfe3fa", "#4a7fc1"),
    "reduction": ("#fde2b8", "#c98a2b"),
    "contraction": ("#f7c9c9", "#c25050"),
    "control flow": ("#e0d4f7", "#8062c4"),
    "data movement": ("#cdeed6", "#4b9a62"),
    "other": ("#e4e4e4", "#8a8a8a"),
}
STYLES = {        # the non-equation nodes
    "input": dict(shape="box", style="rounded,filled,bold", fillcolor="#d6f0f5", color="#3b8ea5"),
    "constant": dict(shape="note", style="filled,dashed", fillcolor="#f3ecc2", color="#a8962e"),
    "output": dict(shape="box", style="rounded,filled,bold", fillcolor="#d9f2cf", color="#56a03c"),
    "binder": dict(shape="ellipse", style="filled", fillcolor="#eef6f8", color="#3b8ea5", fontsize="10",
                   height="0.25", margin="0.03,0.02"),
    "literal": dict(shape="plaintext", style="", fontsize="9", fontcolor=MID, height="0.2", margin="0"),
    "unused": dict(shape="plaintext", style="", fontsize="9", fontcolor=MID, height="0.2", margin="0"),
    "ref": dict(shape="plaintext", style="", fontsize="9", fontcolor="#3b8ea5", height="0.2", margin="0"),
    "folded": dict(shape="folder", style="filled,dashed", fillcolor="#eeeeee", color="#8062c4"),
    "run": dict(shape="box3d", style="filled", fillcolor="#e4e4e4", color="#8a8a8a"),
    "group": dict(shape="box", style="rounded,filled,bold", fillcolor="#efe8fb", color="#8062c4"),
}


def kind_of(primitive: str, has_subs: bool = False) -> str:
    return graph_kind(primitive, has_subs)


def missing_text(error: str, source: str, lang: str = "en") -> str:
    """What a graph says in text when nothing can draw it: why, what to install, then its DOT source."""
    how = t("get_svg", lang, pip="pip install graphviz-pure", env=f"{ENV}=dot")
    return f"{t('no_svg', lang, error=error)}\n{how}\n\n{source}"


def missing_html(error: str, source: str, lang: str = "en") -> str:
    # Catalogue texts are ours (no markup characters); only the error and the DOT source are escaped.
    how = t("get_svg", lang, pip="<code>pip install graphviz-pure</code>", env=f"<code>{ENV}=dot</code>")
    return (f'<div class="jaxprlens jl-graph-missing"><p>{t("no_svg", lang, error=html(error))}</p>'
            f"<p>{how}</p><details><summary>{t('dot_source', lang)}</summary>"
            f"<pre>{html(source)}</pre></details></div>")


# Plain JS, run only where the output is trusted; it links graph nodes and table rows that share an
# eqn id within one output (``--table --graph``), using the table's ``jl-hl`` class.  Static text,
# so stored outputs stay deterministic.
LINK_HOOK = """<style>
.jaxprlens .jl-untrusted{display:none;}
.jl-graph svg text[fill="#888888"]{fill:var(--jp-content-font-color2,#555);}
.jl-graph{overflow:auto;}
.jl-graph g.node[id^="eqn-"]{cursor:pointer;}
.jl-graph g.jl-hl polygon,.jl-graph g.jl-hl ellipse,.jl-graph g.jl-hl path{stroke:#e0a000;stroke-width:3px;}
</style>
<script>
(function(s){
var box=s&&s.parentNode;if(!box||box.jlLinked)return;box.jlLinked=1;var pinned=null;
function rows(id){return box.querySelectorAll('tr[data-eqn="'+id+'"]');}
function nodes(id){return box.querySelectorAll('g[id="eqn-'+id+'"]');}
function mark(id,on){[rows(id),nodes(id)].forEach(function(l){l.forEach(function(e){
 if(on)e.classList.add('jl-hl');else e.classList.remove('jl-hl');});});}
function idOf(t){if(!t||!t.closest)return null;var g=t.closest('g.node');
 if(g&&g.id.indexOf('eqn-')===0)return g.id.slice(4);var r=t.closest('tr[data-eqn]');
 return r?r.getAttribute('data-eqn'):null;}
box.addEventListener('mouseover',function(e){var id=idOf(e.target);if(id)mark(id,true);});
box.addEventListener('mouseout',function(e){var id=idOf(e.target);if(id&&id!==pinned)mark(id,false);});
box.addEventListener('click',function(e){var id=idOf(e.target);if(!id)return;if(pinned)mark(pinned,false);
 pinned=pinned===id?null:id;if(!pinned)return;mark(id,true);
 var t=e.target.closest('tr')?nodes(id)[0]:rows(id)[0];if(t&&t.scrollIntoView)t.scrollIntoView({block:'nearest'});});
})(document.currentScript);
</script>"""


# Plain JS for every graph output: pan (drag) and zoom (wheel, fit, 1:1, -, +) inside a port, open a
# call drawn ahead of time by clicking its node, go back by the breadcrumb.  The default zoom fits the
# drawing but never below MIN (9 pt at 0.75 of a CSS pixel per point: no text under 9 px).  Static text.
VIEWER = """<style>
.jl-graph .jl-gview[hidden]{display:none;}
.jl-graph .jl-port{overflow:auto;max-height:85vh;position:relative;}
.jl-graph.jl-live .jl-port{overflow:hidden;cursor:grab;touch-action:none;}
.jl-graph.jl-live .jl-port.jl-drag{cursor:grabbing;}
.jl-graph .jl-port>svg{transform-origin:0 0;display:block;max-width:none!important;max-height:none!important;}
.jl-graph .jl-crumbs{font-family:var(--jp-ui-font-family,sans-serif);font-size:12px;margin:2px 0;
 display:flex;gap:6px;align-items:center;flex-wrap:wrap;}
.jl-graph .jl-here{font-weight:bold;}
.jl-graph .jl-crumb{cursor:pointer;text-decoration:underline;color:var(--jp-content-link-color,#1976d2);}
.jl-graph .jl-zoom{margin-left:auto;display:inline-flex;gap:2px;}
.jl-graph .jl-zoom button{font-size:11px;padding:0 6px;cursor:pointer;}
.jl-graph svg a{text-decoration:none;}
.jl-graph g.jl-grp,.jl-graph g.cluster[id^="grpbox-"]>text{cursor:pointer;}
</style>
<script>
(function(s){
var MIN=0.75,host=s&&s.parentNode;if(!host)return;
function size(v){var svg=v.querySelector('.jl-port>svg');
 return svg?{svg:svg,w:svg.width.baseVal.value||1,h:svg.height.baseVal.value||1}:null;}
function apply(v){var z=v.jlZoom;z.svg.style.transform='translate('+z.x+'px,'+z.y+'px) scale('+z.s+')';}
function fit(v,floor){var z=v.jlZoom,port=z.svg.parentNode,W=port.clientWidth||970,
 H=Math.max(200,window.innerHeight*0.85),s=Math.min(1,W/z.w,H/z.h);if(floor)s=Math.max(MIN,s);
 z.s=s;port.style.height=Math.min(z.h*s,H)+'px';z.x=Math.max(0,(W-z.w*s)/2);z.y=0;apply(v);}
function zoomAt(v,f,cx,cy){var z=v.jlZoom,s=Math.min(4,Math.max(0.05,z.s*f));
 z.x=cx-(cx-z.x)*s/z.s;z.y=cy-(cy-z.y)*s/z.s;z.s=s;apply(v);}
function init(v){if(v.jlZoom)return;var n=size(v);if(!n)return;v.jlZoom={svg:n.svg,w:n.w,h:n.h,s:1,x:0,y:0};
 var port=n.svg.parentNode,bar=document.createElement('span'),box=v.closest('.jl-graph');bar.className='jl-zoom';
 [['fit',function(){fit(v,false);}],['one',function(){var z=v.jlZoom;z.s=1;z.x=0;z.y=0;apply(v);}],
  ['-',function(){zoomAt(v,1/1.25,port.clientWidth/2,port.clientHeight/2);}],
  ['+',function(){zoomAt(v,1.25,port.clientWidth/2,port.clientHeight/2);}]].forEach(function(b){
  var e=document.createElement('button');e.type='button';e.className='jl-z-'+(b[0]==='-'?'out':b[0]==='+'?'in':b[0]);
  e.textContent=b[0].length>1?(box.getAttribute('data-l-'+b[0])||b[0]):(b[0]==='-'?'\\u2212':'+');
  e.addEventListener('click',b[1]);bar.appendChild(e);});
 v.querySelector('.jl-crumbs').appendChild(bar);
 port.addEventListener('wheel',function(e){e.preventDefault();var r=port.getBoundingClientRect();
  zoomAt(v,Math.exp(-e.deltaY*0.002),e.clientX-r.left,e.clientY-r.top);},{passive:false});
 var drag=null;
 port.addEventListener('pointerdown',function(e){if(e.button)return;drag={x:e.clientX,y:e.clientY,moved:false};});
 port.addEventListener('pointermove',function(e){if(!drag)return;var dx=e.clientX-drag.x,dy=e.clientY-drag.y;
  if(!drag.moved&&Math.abs(dx)+Math.abs(dy)<4)return;if(!drag.moved){drag.moved=true;port.classList.add('jl-drag');
  port.setPointerCapture&&port.setPointerCapture(e.pointerId);}
  var z=v.jlZoom;z.x+=dx;z.y+=dy;drag.x=e.clientX;drag.y=e.clientY;apply(v);});
 port.addEventListener('pointerup',function(){if(drag&&drag.moved)port.jlDragged=true;drag=null;
  port.classList.remove('jl-drag');});
 port.addEventListener('click',function(e){if(port.jlDragged){port.jlDragged=false;e.stopPropagation();
  e.preventDefault();}},true);
 fit(v,true);}
function open(box,key){var views=box.querySelectorAll(':scope>.jl-gview'),pick=null;
 while(pick===null){views.forEach(function(v){if(pick===null&&v.getAttribute('data-group')===key)pick=v;});
  if(pick===null){if(!key){pick=views[0];break;}var i=key.lastIndexOf('/');key=i>0?key.slice(0,i):'';}}
 views.forEach(function(v){v.hidden=v!==pick;});init(pick);return pick;}
host.querySelectorAll('.jl-graph').forEach(function(box){if(box.jlViewer)return;box.jlViewer=1;
 box.classList.add('jl-live');var first=box.querySelector(':scope>.jl-gview');if(first)init(first);
 box.addEventListener('click',function(e){var c=e.target.closest&&e.target.closest('.jl-crumb');
  if(c){open(box,c.getAttribute('data-open'));return;}
  var g=e.target.closest&&e.target.closest('g.jl-grp');
  if(g&&g.id.indexOf('grp-')===0){open(box,g.id.slice(4));return;}
  var c2=e.target.closest&&e.target.closest('g.cluster');
  if(c2&&c2.id.indexOf('grpbox-')===0)open(box,c2.id.slice(7));});});
})(document.currentScript);
</script>"""
