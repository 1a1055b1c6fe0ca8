/* The graph's script, run only where the output is trusted: each drawing (an <img> of the SVG, what untrusted
   pages show) becomes the live SVG in a port: drag pans, Ctrl/Cmd+wheel or a pinch zooms (a plain wheel scrolls
   the page), fit / 1:1 / - / + buttons; a click on a folded call opens its drawing, the breadcrumb goes back.
   The default zoom fits the drawing but never below MIN (no text under 9 px), unless the drawing's whole width
   fits at WHOLE or more: a small graph in a narrow notebook (a side panel open in a laptop's window) shows every
   node and its legend, as its picture does, rather than a middle cut at both sides. A drawing still wider than
   its port starts centred, moved just enough that its legend (what the colours and borders say) is whole in
   view: the reader pans to the rest, but needs the key to read what is shown. */
import { el, word } from "./dom.js";

const MIN = 0.75, WHOLE = 0.6, PAD = 8;   // PAD: px between the legend and the port's edge

function inline(img) {   // the picture's SVG, parsed once and put in its place (the SVG travels once: in the img)
  const b64 = img.getAttribute("src").split(",", 2)[1];
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const doc = new DOMParser().parseFromString(new TextDecoder().decode(bytes), "image/svg+xml");
  const svg = document.importNode(doc.documentElement, true);
  img.replaceWith(svg);
  return svg;
}

function viewer(box, view) {
  const img = view.querySelector(".jl-port>img");
  if (!img) return;
  const svg = inline(img), port = svg.parentNode;
  const z = { w: svg.width.baseVal.value || 1, h: svg.height.baseVal.value || 1, s: 1, x: 0, y: 0 };
  const more = el("p", "jl-gmore", word(box, "more", "more below"));     // not a .jl-hint: the port's one hint stays one
  port.after(more);
  const apply = () => {   // a drawing that goes on below the port says so (a fade at the edge, a line under it)
    svg.style.transform = "translate(" + z.x + "px," + z.y + "px) scale(" + z.s + ")";
    const below = z.y + z.h * z.s - port.clientHeight > 2;
    port.classList.toggle("jl-clipped", below);
    more.hidden = !below;
  };
  const span = (g) => {   // where g lies across the drawing, in its own px (null while the view is not laid out)
    const a = svg.getBoundingClientRect(), b = g ? g.getBoundingClientRect() : null;
    if (!b || !a.width || !b.width) return null;
    const k = z.w / a.width;
    return { left: (b.left - a.left) * k, right: (b.right - a.left) * k };
  };
  let moved = false;      // once the reader zooms or pans, a change of the box's size keeps their view
  const fit = (floor) => {
    moved = false;
    const W = port.clientWidth || 970, H = Math.max(200, window.innerHeight * 0.85);
    let s = Math.min(1, W / z.w, H / z.h);
    if (floor) s = Math.max(W / z.w >= WHOLE ? Math.min(MIN, W / z.w) : MIN, s);
    // wider than the port: its middle shows (a call's inputs and title), not a corner of empty boxes, moved
    // so that the legend (where dot put it: most often the right end) is whole; one wider than the port, its start
    z.s = s; port.style.height = Math.min(z.h * s, H) + "px"; z.x = (W - z.w * s) / 2; z.y = 0;
    const key = z.w * s > W ? span(svg.querySelector("g#legend")) : null;
    if (key) z.x = Math.max(PAD - key.left * s, Math.min(z.x, W - key.right * s - PAD));
    apply();
  };
  const zoomAt = (f, cx, cy) => {
    moved = true;
    const s = Math.min(4, Math.max(0.05, z.s * f));
    z.x = cx - (cx - z.x) * s / z.s; z.y = cy - (cy - z.y) * s / z.s; z.s = s;
    apply();
    view.setAttribute("data-zoom", s.toFixed(3));
  };
  const bar = el("span", "jl-zoom");
  [["fit", word(box, "fit", "fit"), () => fit(false)],
   ["one", word(box, "one", "1:1"), () => { moved = true; z.s = 1; z.x = 0; z.y = 0; apply(); }],
   ["out", "\u2212", () => zoomAt(1 / 1.25, port.clientWidth / 2, port.clientHeight / 2)],
   ["in", "+", () => zoomAt(1.25, port.clientWidth / 2, port.clientHeight / 2)]].forEach(([key, text, act]) => {
    const b = el("button", "jl-z-" + key, text);
    b.type = "button";
    b.addEventListener("click", act);
    bar.appendChild(b);
  });
  view.querySelector(".jl-crumbs").appendChild(bar);
  port.addEventListener("wheel", (e) => {   // a plain wheel is the page's; Ctrl/Cmd (and a pinch) zoom
    if (!(e.ctrlKey || e.metaKey)) return;
    e.preventDefault();
    const r = port.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.002), e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  let drag = null, dragged = false;
  port.addEventListener("pointerdown", (e) => { if (!e.button) drag = { x: e.clientX, y: e.clientY, moved: false }; });
  port.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!drag.moved) {
      drag.moved = true;
      port.classList.add("jl-drag");
      if (port.setPointerCapture) port.setPointerCapture(e.pointerId);
    }
    moved = true;
    z.x += dx; z.y += dy; drag.x = e.clientX; drag.y = e.clientY;
    apply();
  });
  port.addEventListener("pointerup", () => {
    if (drag && drag.moved) dragged = true;
    drag = null;
    port.classList.remove("jl-drag");
  });
  port.addEventListener("click", (e) => {   // the click that ends a drag opens nothing
    if (dragged) { dragged = false; e.stopPropagation(); e.preventDefault(); }
  }, true);
  fit(true);
  // the box changes width (a narrowed window, a side panel, a slide, a print layout): fit again, unless the
  // reader has moved the view; a hidden view (another call's drawing) is fitted when it is shown
  let width = port.clientWidth;
  if (window.ResizeObserver) {
    new ResizeObserver(() => {
      const w = port.clientWidth;
      if (w && w !== width && !moved) { width = w; fit(true); }
    }).observe(port);
  }
}

export function enhance(box) {
  if (box.getAttribute("data-jl-ready")) return;
  box.setAttribute("data-jl-ready", "1");
  box.classList.add("jl-live");
  const hint = box.querySelector(":scope>.jl-hint");
  if (hint) hint.textContent = word(box, "hint", hint.textContent);
  const views = Array.from(box.querySelectorAll(":scope>.jl-gview")), live = new Set();
  const show = (view) => {
    views.forEach((v) => { v.hidden = v !== view; });
    if (!live.has(view)) { live.add(view); viewer(box, view); }
  };
  const say = (view, text) => {   // a line above the drawing: why a click showed nothing new
    let note = view.querySelector(".jl-gnote");
    if (!note) { note = el("p", "jl-hint jl-gnote"); view.insertBefore(note, view.querySelector(".jl-port")); }
    note.textContent = text;
    note.hidden = !text;
  };
  const open = (key, clicked) => {   // the drawing of a call, or of the nearest enclosing call drawn ahead of time
    let pick = null;
    const asked = key;
    while (pick === null) {
      pick = views.find((v) => v.getAttribute("data-group") === key) || null;
      if (pick === null) {
        if (!key) { pick = views[0]; break; }
        const i = key.lastIndexOf("/");
        key = i > 0 ? key.slice(0, i) : "";
      }
    }
    if (!pick) return;
    show(pick);
    const missed = clicked && pick.getAttribute("data-group") !== asked;
    say(pick, missed ? word(box, "notdrawn", "{path}: not drawn ahead of time").split("{path}").join(asked) : "");
  };
  if (views.length) show(views.find((v) => !v.hidden) || views[0]);
  box.addEventListener("click", (e) => {
    const t = e.target.closest ? e.target : null;
    const c = t && t.closest(".jl-crumb");
    if (c) { open(c.getAttribute("data-open")); return; }
    const g = t && t.closest("g.jl-grp");
    if (g && g.id.startsWith("grp-")) { open(g.id.slice(4), true); return; }
    const c2 = t && t.closest("g.cluster");
    if (c2 && c2.id.startsWith("grpbox-")) open(c2.id.slice(7));
  });
}

/* Graph nodes and table rows of one output (--table --graph) that share an eqn id light up together;
   a click pins one and scrolls its partner into view. */
export function link(host) {
  if (!host.querySelector(".jl-graph") || host.getAttribute("data-jl-linked")) return;
  host.setAttribute("data-jl-linked", "1");
  let pinned = null;
  const rows = (id) => host.querySelectorAll('tr[data-eqn="' + CSS.escape(id) + '"]');
  const nodes = (id) => host.querySelectorAll('g[id="eqn-' + CSS.escape(id) + '"]');
  const mark = (id, on) => [rows(id), nodes(id)].forEach((l) => l.forEach((e) => e.classList.toggle("jl-hl", on)));
  const idOf = (t) => {
    if (!t || !t.closest) return null;
    const g = t.closest("g.node");
    if (g && g.id.startsWith("eqn-")) return g.id.slice(4);
    const r = t.closest("tr[data-eqn]");
    return r ? r.getAttribute("data-eqn") : null;
  };
  host.addEventListener("mouseover", (e) => { const id = idOf(e.target); if (id) mark(id, true); });
  host.addEventListener("mouseout", (e) => { const id = idOf(e.target); if (id && id !== pinned) mark(id, false); });
  host.addEventListener("click", (e) => {
    const id = idOf(e.target);
    if (!id) return;
    if (pinned) mark(pinned, false);
    pinned = pinned === id ? null : id;
    if (!pinned) return;
    mark(id, true);
    const target = e.target.closest("tr") ? nodes(id)[0] : rows(id)[0];
    if (target && target.scrollIntoView) target.scrollIntoView({ block: "nearest" });
  });
}
