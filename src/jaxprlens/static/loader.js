/* Inflates the output's front end (base64 deflate-raw in data-z: the CSS, a NUL, the ES module), puts the CSS
   in the output and boots the module on it.  Runs only where the output is trusted. */
(async (s, h = s.parentNode) => {
const t = await new Response(new Response(Uint8Array.from(atob(s.dataset.z), (c) => c.charCodeAt(0))).body
.pipeThrough(new DecompressionStream("deflate-raw"))).text(), i = t.indexOf("\0");
h.insertBefore(document.createElement("style"), h.firstChild).textContent = t.slice(0, i);
(await import(URL.createObjectURL(new Blob([t.slice(i + 1)], { type: "text/javascript" })))).boot(h);
})(document.currentScript);
