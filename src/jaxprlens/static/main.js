/* The one entry of the front end: boot(host) enhances every view in an output (data-jl-view names its
   module) and links a graph with a table beside it; render is anywidget's: the debugger widget's, or a live
   table's (live.js; a widget's bundle holds one of them).
   An output carries only the modules its views need: a module left out is an empty namespace here. */
import * as table from "./table.js";
import * as graph from "./graph.js";
import * as debug from "./debugger.js";
import * as live from "./live.js";

const VIEWS = { table: table.enhance, graph: graph.enhance, replay: debug.replay };

export function boot(host) {
  host.querySelectorAll("[data-jl-view]").forEach((root) => {
    const enhance = VIEWS[root.getAttribute("data-jl-view")];
    if (enhance) enhance(root);
  });
  if (graph.link) graph.link(host);
}

export const render = debug.render || live.render;
