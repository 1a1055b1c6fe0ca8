/* The loader of one output: called with the output's key and its front end (base64 deflate-raw: the CSS, a NUL,
   the ES module), both in this script's own text.  It finds the output by its key (data-jl-out), not through
   document.currentScript: JupyterLab keeps the script in the output, but jQuery (nbclassic) runs a copy in the
   page's head and VS Code's renderer a copy without data-* attributes.  Every copy of the output on the page
   that no loader has claimed yet (data-jl-on) gets the stylesheet and is booted.  Runs only where trusted. */
(async (key, z) => {
const sel = '[data-jl-out="' + key + '"]:not([data-jl-on])', me = document.currentScript;
const hosts = new Set(document.querySelectorAll(sel));
const own = me && me.closest && me.closest(sel);
if (own) hosts.add(own);
if (!hosts.size) return;
hosts.forEach((h) => h.setAttribute("data-jl-on", ""));
const t = await new Response(new Response(Uint8Array.from(atob(z), (c) => c.charCodeAt(0))).body
.pipeThrough(new DecompressionStream("deflate-raw"))).text(), i = t.indexOf("\0");
const m = await import(URL.createObjectURL(new Blob([t.slice(i + 1)], { type: "text/javascript" })));
hosts.forEach((h) => {
h.insertBefore(document.createElement("style"), h.firstChild).textContent = t.slice(0, i);
m.boot(h);
});
})
