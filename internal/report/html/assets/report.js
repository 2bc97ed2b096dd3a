"use strict";
// The page is complete without this script: every app is a <details>
// already. The script adds the filter, expand/collapse all, and opens the
// app a link points at.
(function () {
  var doc = document;
  var $ = function (id) { return doc.getElementById(id); };
  var all = function (sel, root) { return Array.prototype.slice.call((root || doc).querySelectorAll(sel)); };
  var lower = function (s) { return (s || "").toLowerCase(); };

  // Big diffs come as JSON rows [kind, old, new, text], drawn when their
  // app or shared change is opened; until then their text is searched in
  // the data.
  var rowsOf = function (data) { return JSON.parse(data.textContent); };
  function draw(data) {
    var tbody = doc.createElement("tbody"), table = doc.createElement("table"), res = data.parentElement;
    rowsOf(data).forEach(function (r) {
      var tr = tbody.appendChild(doc.createElement("tr"));
      tr.className = r[0];
      for (var i = 1; i < 4; i++) { tr.appendChild(doc.createElement("td")).textContent = r[i]; }
    });
    table.className = "diff";
    table.appendChild(tbody);
    res.replaceChild(table, res.querySelector("p.lazy"));
    res.removeChild(data);
  }
  var drawIn = function (el) { all("script.rows", el).forEach(draw); };

  // Diff text is read (and lower-cased) on the first text search only.
  var textOf = function (el) {
    if (el._text === undefined) {
      var t = el.textContent;
      all("script.rows", el).forEach(function (data) {
        t = t.replace(data.textContent, "") + "\n" + rowsOf(data).map(function (r) { return r[3]; }).join("\n");
      });
      el._text = lower(t);
    }
    return el._text;
  };
  var groups = {};
  all("details.group").forEach(function (g) {
    groups[g.id] = { el: g, res: g.querySelector(".res"), apps: g.getAttribute("data-apps").split(" ") };
  });
  var entry = function (el) {
    return {
      el: el, label: lower(el.getAttribute("data-app")), status: el.getAttribute("data-status"),
      res: all(".res", el).map(function (r) {
        var g = groups[r.getAttribute("data-group")];
        return { el: r, kind: lower(r.getAttribute("data-kind")), name: lower(r.getAttribute("data-name")), body: g ? g.res : r };
      })
    };
  };
  var apps = all("details.app").map(entry);
  // an app's live comparison (--live): filtered like an app, not counted as one
  var lives = all("details.live").map(entry);
  var quiet = all("details.unchanged li").map(function (el) {
    return { el: el, label: lower(el.getAttribute("data-app")), status: el.getAttribute("data-status") };
  });
  var count = $("f-count");
  // an app with changes of its own and mechanical ones has an entry in
  // each part, under one data-app: the count is of apps, not entries
  var distinct = function (list) {
    var seen = {};
    list.forEach(function (a) { seen[a.el.getAttribute("data-app")] = true; });
    return Object.keys(seen).length;
  };
  var total = distinct(apps) + quiet.length;
  var inputs = ["f-app", "f-kind", "f-name", "f-text", "f-status"].map($);

  var resMatches = function (r, q) {
    return (!q.kind || r.kind.indexOf(q.kind) >= 0) && (!q.name || r.name.indexOf(q.name) >= 0) &&
      (!q.text || textOf(r.body).indexOf(q.text) >= 0);
  };

  function apply() {
    var q = { app: lower(inputs[0].value.trim()), kind: lower(inputs[1].value.trim()), name: lower(inputs[2].value.trim()),
      text: lower(inputs[3].value.trim()), status: inputs[4].value };
    var inner = q.kind || q.name || q.text;
    var shown, visibleApps = {};
    var filter = function (a) {
      var ok = a.label.indexOf(q.app) >= 0 && (!q.status || a.status === q.status), any = false;
      a.res.forEach(function (r) {
        var m = ok && resMatches(r, q);
        any = any || m;
        r.el.hidden = !m && !!inner;
      });
      if (ok && inner && !any) {
        // an app without a matching resource still matches on its error or note
        ok = !q.kind && !q.name && textOf(a.el).indexOf(q.text) >= 0;
      }
      a.el.hidden = !ok;
      return ok;
    };
    apps.forEach(function (a) {
      if (filter(a)) { visibleApps[a.el.getAttribute("data-app")] = true; }
    });
    shown = Object.keys(visibleApps).length;
    lives.forEach(filter);
    quiet.forEach(function (a) {
      var ok = !inner && a.label.indexOf(q.app) >= 0 && (!q.status || a.status === q.status);
      a.el.hidden = !ok;
      if (ok) { shown++; }
    });
    Object.keys(groups).forEach(function (id) {
      var g = groups[id];
      g.el.hidden = !g.apps.some(function (l) { return visibleApps[l]; }) || !!(inner && !resMatches(
        { kind: lower(g.res.getAttribute("data-kind")), name: lower(g.res.getAttribute("data-name")), body: g.res }, q));
    });
    all("details.unchanged").forEach(function (d) { d.hidden = !d.querySelector("li:not([hidden])"); });
    all("section.env, #shared").forEach(function (s) {
      s.hidden = !s.querySelector("details.app:not([hidden]), details.group:not([hidden]), details.unchanged:not([hidden])");
    });
    var any = q.app || q.status || inner;
    all("section.live-env").forEach(function (s) { s.hidden = any && !s.querySelector("details.live:not([hidden])"); });
    all("#live").forEach(function (s) { s.hidden = !s.querySelector("section.live-env:not([hidden])"); });
    count.setAttribute("data-shown", shown);
    var noun = total === 1 ? " app" : " apps";
    count.textContent = shown === total ? total + noun : shown + " of " + total + noun;
  }

  var timer = 0;
  var schedule = function () { clearTimeout(timer); timer = setTimeout(apply, 80); };
  inputs.forEach(function (i) { i.addEventListener("input", schedule); });

  doc.addEventListener("toggle", function (e) { if (e.target.open) { drawIn(e.target); } }, true);
  all("details[open]").forEach(drawIn);

  var setOpen = function (open) {
    all("details.app:not([hidden]), details.group:not([hidden]), details.live:not([hidden])").forEach(function (d) { d.open = open; });
  };
  $("expand-all").addEventListener("click", function () { setOpen(true); });
  $("collapse-all").addEventListener("click", function () { setOpen(false); });

  // A link into the page (from the merge request note) opens its target
  // and every <details> around it, clearing a filter that would hide it.
  function reveal() {
    var id = "";
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
    var el = id && $(id);
    if (!el) { return; }
    if (el.closest("[hidden]")) {
      inputs.forEach(function (i) { i.value = ""; });
      apply();
    }
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") { p.open = true; }
    }
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  reveal();

  // The marker the browser tests and the benchmark wait for: set once
  // the first frame with the whole report is laid out.
  requestAnimationFrame(function () {
    setTimeout(function () { doc.documentElement.setAttribute("data-rendered", performance.now().toFixed(1)); }, 0);
  });
})();
