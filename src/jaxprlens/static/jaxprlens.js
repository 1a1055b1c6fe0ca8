/* jaxprlens front end: enhances a stored table (search, all params, def/use highlight, hover help).
   The HTML it enhances is complete without it: untrusted notebooks, GitHub and nbviewer show the same rows. */
(function () {
  "use strict";
  if (window.jaxprlens && window.jaxprlens.version === 2) return;

  function data(root) {
    var el = root.querySelector("script.jl-data");
    if (!el) return {};
    try { return JSON.parse(el.textContent); } catch (e) { return {}; }
  }

  function vars(root, name) {
    return Array.prototype.filter.call(root.querySelectorAll("var"), function (v) { return v.textContent === name; });
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

  function enhance(root) {
    if (!root || root.getAttribute("data-jl-ready")) return;
    root.setAttribute("data-jl-ready", "1");
    var d = data(root), explain = d.explain || {};
    if (root.classList.contains("jl-table")) tools(root);
    root.addEventListener("click", function (e) {
      var v = e.target.closest && e.target.closest("var");
      if (v && root.contains(v)) select(root, v.textContent);
    });
    root.addEventListener("mouseover", function (e) {
      var p = e.target.closest && e.target.closest(".jl-prim");
      if (p && !p.title) {
        var tr = p.closest("tr.jl-row"), text = tr && explain[tr.getAttribute("data-primitive")];
        if (text) p.title = text;
      }
    });
  }

  window.jaxprlens = { version: 2, enhance: enhance, select: select, search: search };
})();
