/* jaxprlens front end: enhances a stored table (search, all params, def/use highlight, hover help).
   The HTML it enhances is complete without it: untrusted notebooks, GitHub and nbviewer show the same rows. */
(function () {
  "use strict";
  if (window.jaxprlens && window.jaxprlens.version === 3) return;

  function data(root) {
    var el = root.querySelector("script.jl-data");
    if (!el) return {};
    try { return JSON.parse(el.textContent); } catch (e) { return {}; }
  }

  function vars(root, name) {   // the value's name, and the binders of sub-jaxprs bound from it, and so on
    var all = root.querySelectorAll("var"), names = {}, grew = true;
    names[name] = true;
    while (grew) {
      grew = false;
      all.forEach(function (v) {
        var from = v.getAttribute("data-from");
        if (from && names[from] && !names[v.textContent]) { names[v.textContent] = true; grew = true; }
      });
    }
    return Array.prototype.filter.call(all, function (v) { return names[v.textContent]; });
  }

  function isDef(v) {   // a binder: an equation's output or a signature row, the only places a type follows
    var next = v.nextElementSibling;
    return !!(next && next.classList.contains("jl-type"));
  }

  function select(root, name) {
    root.querySelectorAll(".jl-vsel, .jl-vdef").forEach(function (e) { e.classList.remove("jl-vsel", "jl-vdef"); });
    if (!name || root.jlSelected === name) { root.jlSelected = null; return; }
    root.jlSelected = name;
    vars(root, name).forEach(function (e) {
      e.classList.add("jl-vsel");
      if (isDef(e)) e.classList.add("jl-vdef");
    });
  }

  function search(root, q, counter) {
    q = q.trim().toLowerCase();
    if (q && root.jlAll) root.jlAll();      // search looks at every row, drawn or not
    var rows = root.querySelectorAll("tr.jl-row"), n = 0;
    rows.forEach(function (r) {
      var hit = !q || (r.getAttribute("data-primitive") || "") === q || r.textContent.toLowerCase().indexOf(q) >= 0;
      r.classList.toggle("jl-miss", !hit);
      if (hit && q) n++;
    });
    root.querySelectorAll("tr.jl-nested").forEach(function (r) {
      var hit = !q || r.querySelector("tr.jl-row:not(.jl-miss)");
      r.classList.toggle("jl-miss", !hit);
      if (hit && q) {
        var parent = root.querySelector('tr.jl-row[data-eqn="' + r.getAttribute("data-parent") + '"]');
        if (parent) parent.classList.remove("jl-miss");
      }
    });
    counter.textContent = q ? n + " " + (root.getAttribute("data-l-matches") || "matches") : "";
  }

  function tools(root) {
    var bar = document.createElement("div");
    bar.className = "jl-tools";
    var box = document.createElement("input");
    box.type = "search";
    box.placeholder = root.getAttribute("data-l-search") || "search";
    var counter = document.createElement("span");
    counter.className = "jl-note-js";
    box.addEventListener("input", function () { search(root, box.value, counter); });
    bar.appendChild(box);
    bar.appendChild(counter);
    if (root.querySelector(".jl-param.jl-default")) {
      var label = document.createElement("label"), check = document.createElement("input");
      check.type = "checkbox";
      check.addEventListener("change", function () { root.classList.toggle("jl-allparams", check.checked); });
      label.appendChild(check);
      label.appendChild(document.createTextNode(" " + (root.getAttribute("data-l-allparams") || "all params")));
      bar.appendChild(label);
    }
    root.insertBefore(bar, root.firstChild);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function dataRow(r, frame) {   // [id, primitive, depth, outs, params, ins, source], with textContent only;
    var tr = el("tr", "jl-row"), eq = el("td", "jl-eq"), note = el("td", "jl-note");   // frame: one level
    tr.setAttribute("data-eqn", r[0]);
    tr.setAttribute("data-primitive", r[1]);
    tr.appendChild(el("td", "", frame ? r[0].split("/").pop() : r[0]));
    if (!frame) eq.style.paddingLeft = (4 + 18 * r[2]) + "px";
    r[3].forEach(function (b) {
      var i = b.indexOf(":");
      eq.appendChild(el("var", "", b.slice(0, i)));
      eq.appendChild(el("span", "jl-type", b.slice(i)));
      eq.appendChild(document.createTextNode(" "));
    });
    if (r[3].length) eq.appendChild(document.createTextNode("= "));
    eq.appendChild(el("b", "jl-prim", r[1]));
    if (r[4]) { eq.appendChild(document.createTextNode("[")); eq.appendChild(el("span", "jl-param", r[4]));
                eq.appendChild(document.createTextNode("]")); }
    r[5].forEach(function (a) {
      eq.appendChild(document.createTextNode(" "));
      eq.appendChild(a.indexOf(":") > 0 ? el("span", "jl-lit", a) : el("var", "", a));
    });
    if (r[6]) note.appendChild(el("div", "jl-src", r[6]));
    tr.appendChild(eq);
    tr.appendChild(note);
    return tr;
  }

  function drawMore(root, rows, count) {   // the next ``count`` data rows, before the note row
    var more = root.querySelector("tbody.jl-more");
    if (!more || root.jlDrawn >= rows.length) return;
    var body = el("tbody", "jl-chunk"), end = Math.min(rows.length, root.jlDrawn + count);
    for (var i = root.jlDrawn; i < end; i++) body.appendChild(dataRow(rows[i]));
    root.jlDrawn = end;
    more.parentNode.insertBefore(body, more);
    if (end >= rows.length) more.remove();
  }

  function lazy(root, rows) {
    root.jlDrawn = 0;
    var note = root.querySelector("tbody.jl-more td");
    if (!note) return;
    note.textContent = "…";
    var io = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) drawMore(root, rows, 400);
      if (root.jlDrawn >= rows.length) io.disconnect();
    }, { rootMargin: "800px" });
    io.observe(note);
    root.jlAll = function () { drawMore(root, rows, rows.length); };
  }

  /* ---- folding by inlined calls (issue 12): a row per call; its rows are built the first time it opens ---- */
  function groupRow(g) {   // ["g", id, label, count, call site, crossing values, depth]: textContent only
    var tr = el("tr", "jl-grow"), eq = el("td", "jl-eq"), note = el("td", "jl-note");
    tr.setAttribute("data-group", g[1]);
    tr.appendChild(el("td", "", "\u25b8"));
    eq.appendChild(el("b", "jl-gname", g[2]));
    eq.appendChild(document.createTextNode(" "));
    eq.appendChild(el("span", "jl-type", g[3]));
    if (g[4]) note.appendChild(el("div", "jl-src", g[4]));
    note.appendChild(el("div", "jl-cross", g[5]));
    tr.appendChild(eq);
    tr.appendChild(note);
    return tr;
  }

  function toggleGroup(root, tr, groups, open) {
    var id = tr.getAttribute("data-group"), indent = tr.jlIndent || 0;
    tr.classList.toggle("jl-open", open);
    tr.firstChild.textContent = open ? "\u25be" : "\u25b8";
    if (open && !tr.jlBuilt) {
      tr.jlBuilt = true;
      var after = tr;
      (groups[id] || []).forEach(function (item) {
        var call = item[0] === "g", row = call ? groupRow(item) : dataRow(item);
        row.setAttribute("data-in", id);
        row.jlIndent = indent + 1;
        row.children[1].style.paddingLeft = (4 + 18 * (indent + 1 + (call ? 0 : item[2]))) + "px";
        after.parentNode.insertBefore(row, after.nextSibling);
        after = row;
      });
    }
    root.querySelectorAll("tr[data-in]").forEach(function (r) {
      var parent = r.getAttribute("data-in");
      if (parent === id) r.hidden = !open;
      else if (!open && parent.indexOf(id + "/") === 0) r.hidden = true;
      if (!open && (parent === id || parent.indexOf(id + "/") === 0) && r.classList.contains("jl-open")) {
        r.classList.remove("jl-open");
        r.firstChild.textContent = "\u25b8";
      }
    });
  }

  function folding(root, groups) {
    root.addEventListener("click", function (e) {
      var tr = e.target.closest && e.target.closest("tr.jl-grow");
      if (tr && root.contains(tr)) toggleGroup(root, tr, groups, !tr.classList.contains("jl-open"));
    });
    root.jlAll = function () {     // search looks at every row: open every call
      var closed;
      while ((closed = root.querySelector("tr.jl-grow:not(.jl-open)"))) toggleGroup(root, closed, groups, true);
    };
  }

  function enhance(root) {
    if (!root || root.getAttribute("data-jl-ready")) return;
    root.setAttribute("data-jl-ready", "1");
    var d = data(root), explain = d.explain || {};
    if (root.classList.contains("jl-table")) tools(root);
    if (d.rows && d.rows.length) lazy(root, d.rows);
    if (d.groups) folding(root, d.groups);
    root.addEventListener("click", function (e) {
      var v = e.target.closest && e.target.closest("var");
      if (v && root.contains(v)) select(root, v.textContent);
    });
    root.addEventListener("mouseover", function (e) {
      var v = e.target.closest && e.target.closest("var");
      if (v && !v.title) {     // a name's hover: its type, from the binder that defines it
        var def = vars(root, v.textContent).filter(isDef)[0];
        if (def) v.title = v.textContent + def.nextElementSibling.textContent;
      }
      var p = e.target.closest && e.target.closest(".jl-prim");
      if (p && !p.title) {
        var tr = p.closest("tr.jl-row"), text = tr && explain[tr.getAttribute("data-primitive")];
        if (text) p.title = text;
      }
    });
  }

  window.jaxprlens = { version: 3, enhance: enhance, select: select, search: search, dataRow: dataRow };
})();
