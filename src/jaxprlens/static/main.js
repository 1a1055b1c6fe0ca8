/* The one entry of the front end: boot(host) enhances every view in an output (data-jl-view names its
   module) and links a graph with a table beside it; render is anywidget's: the debugger widget's, a live
   table's (live.js; a widget's bundle holds one of them), or else an output's HTML booted as the loader does.
   An output carries only the modules its views need: a module left out is an empty namespace here. */
import * as table from "./table.js";
import * as graph from "./graph.js";
import * as debug from "./debugger.js";
import * as live from "./live.js";

const VIEWS = { table: table.enhance, fold: table.enhance, graph: graph.enhance, replay: debug.replay };

export function boot(host) {
  host.querySelectorAll("[data-jl-view]").forEach((root) => {
    const enhance = VIEWS[root.getAttribute("data-jl-view")];
    if (enhance) enhance(root);
  });
  if (graph.link) graph.link(host);
}

/* An output's HTML drawn as a widget (views/table/live.py shown_class: marimo runs no script of an HTML output). */
function show({ model, el }) {
  const host = document.createElement("div");
  host.innerHTML = model.get("html");     // the output's own HTML, escaped once by the kernel (present/escape.py)
  el.appendChild(host);
  boot(host);
}

export const render = debug.render || live.render || show;
