// avb view: seek a player from a frame or an item, and keep synchronised players together. No network use.
"use strict";
(function () {
  function seek(video, t) {
    if (!video) return;
    video.currentTime = t;
  }
  document.addEventListener("click", function (e) {
    var el = e.target.closest("[data-seek]");
    if (!el) return;
    var video = document.getElementById(el.getAttribute("data-target"));
    seek(video, parseFloat(el.getAttribute("data-seek")) || 0);
    if (video) video.scrollIntoView({block: "nearest"});
  });
  var groups = {};
  document.querySelectorAll("video[data-sync]").forEach(function (v) {
    var g = v.getAttribute("data-sync");
    (groups[g] = groups[g] || []).push(v);
  });
  Object.keys(groups).forEach(function (g) {
    var vids = groups[g];
    var busy = false;
    function follow(src, fn) {
      if (busy) return;
      busy = true;
      vids.forEach(function (o) { if (o !== src) fn(o); });
      busy = false;
    }
    vids.forEach(function (v) {
      v.addEventListener("play", function () { follow(v, function (o) { o.currentTime = v.currentTime; o.play().catch(function () {}); }); });
      v.addEventListener("pause", function () { follow(v, function (o) { o.pause(); }); });
      v.addEventListener("seeked", function () {
        follow(v, function (o) { if (Math.abs(o.currentTime - v.currentTime) > 0.05) o.currentTime = v.currentTime; });
      });
    });
  });
  // The repair timeline: a playhead follows the fixed video; a click on the timeline seeks it.
  document.querySelectorAll("svg.timeline[data-target]").forEach(function (svg) {
    var video = document.getElementById(svg.getAttribute("data-target"));
    var head = svg.querySelector(".playhead");
    var x0 = parseFloat(svg.getAttribute("data-x0"));
    var xend = parseFloat(svg.getAttribute("data-xend"));
    var span = parseFloat(svg.getAttribute("data-span")) || 1;
    if (!video || !head) return;
    video.addEventListener("timeupdate", function () {
      var x = x0 + (xend - x0) * Math.min(1, video.currentTime / span);
      head.setAttribute("x1", x.toFixed(1));
      head.setAttribute("x2", x.toFixed(1));
    });
    svg.addEventListener("click", function (e) {
      var box = svg.getBoundingClientRect();
      var x = (e.clientX - box.left) * (svg.viewBox.baseVal.width / box.width);
      seek(video, Math.max(0, Math.min(span, (x - x0) / (xend - x0) * span)));
    });
  });
  // The overview's grid: filter by family, status and flag (of one run, or any), sort by score or by the
  // difference between two runs, search by task id; j/k move between rows, Enter opens. The rows left visible,
  // in their order, are what next/previous follow on the task pages. That order travels in the links
  // themselves (`task-0-37.html#order=37.38.65&view=<the overview's filters>`), so it works where storage is
  // blocked (file:// pages in some browsers); sessionStorage, when the browser has it, only adds that a task
  // page opened without that fragment still follows the last filtered order.
  var ORDER_KEY = "avb-view-order";
  var ORDER = /^[0-9]{1,6}(\.[0-9]{1,6}){0,999}$/, VIEW = /^[\w=&%.!~*-]{0,2000}$/;
  var PAGE_LINK = /^((task|stack|compare)-[0-9]+(-[0-9]+)?\.html|index\.html)(#.*)?$/;
  function store(key, value) {
    try { if (value === null) sessionStorage.removeItem(key); else sessionStorage.setItem(key, value); } catch (e) { /* blocked */ }
  }
  function load(key) {
    try { return sessionStorage.getItem(key); } catch (e) { return null; }
  }
  // "#order=...&view=..." for a filtered order (ids) and the overview's filter state, or "" for neither.
  function fragment(ids, view) {
    return ids ? "#order=" + ids.join(".") + (view ? "&view=" + encodeURIComponent(view) : "") : "";
  }
  // The page links inside `root` (task, stack and compare pages) carry `frag` (or none, when it is "").
  function carry(root, frag) {
    root.querySelectorAll("a[href]").forEach(function (a) {
      var m = PAGE_LINK.exec(a.getAttribute("href"));
      if (m && m[1] !== "index.html") a.setAttribute("href", m[1] + frag);
    });
  }
  var grid = document.getElementById("grid");
  var controls = document.getElementById("controls");
  if (grid && controls) {
    controls.hidden = false;
    var rows = Array.prototype.slice.call(grid.querySelectorAll("tr.task-row"));
    var tbody = rows.length ? rows[0].parentNode : null;
    var byId = function (id) { return document.getElementById(id); };
    var current = -1;
    var cellOf = function (row, run) { return row.querySelector("td.cell[data-run='" + run + "']"); };
    var cellsOf = function (row, run) {
      return run === "" ? Array.prototype.slice.call(row.querySelectorAll("td.cell")) : [cellOf(row, run)].filter(Boolean);
    };
    var scoreOf = function (cell) {
      var v = cell ? cell.getAttribute("data-score") : "";
      return v === "" || v === null ? NaN : parseFloat(v);
    };
    var matches = function (cell, status, flag) {
      var st = cell.getAttribute("data-status");
      if (status === "!scored" && st === "scored") return false;
      if (status && status !== "!scored" && st !== status) return false;
      var flags = +cell.getAttribute("data-flags"), warn = +cell.getAttribute("data-warn");
      var outcome = cell.getAttribute("data-outcome");
      if (flag === "flag") return flags > 0;
      if (flag === "warn") return warn > 0;
      if (flag === "outcome") return outcome !== "";
      if (flag.indexOf("o:") === 0) return outcome === flag.slice(2);
      if (flag === "none") return !flags && !warn && !outcome;
      return true;
    };
    var sortKey = function (row, sort, run) {
      if (sort.indexOf("score") === 0) {
        var cells = cellsOf(row, run), sum = 0, n = 0;
        cells.forEach(function (c) { var v = scoreOf(c); if (!isNaN(v)) { sum += v; n += 1; } });
        return n ? sum / n : NaN;
      }
      if (sort.indexOf("diff") === 0) return scoreOf(cellOf(row, byId("f-a").value)) - scoreOf(cellOf(row, byId("f-b").value));
      return 0;
    };
    var visible = function () {  // in the page's (sorted) order
      return Array.prototype.slice.call(grid.querySelectorAll("tr.task-row:not(.hidden)"));
    };
    var mark = function (k) {
      var vis = visible();
      rows.forEach(function (r) { r.classList.remove("current"); });
      if (!vis.length) { current = -1; return; }
      current = Math.max(0, Math.min(k, vis.length - 1));
      vis[current].classList.add("current");
      vis[current].scrollIntoView({block: "nearest"});
    };
    var apply = function () {
      var fam = byId("f-family").value, run = byId("f-run").value, status = byId("f-status").value;
      var flag = byId("f-flag").value, sort = byId("f-sort").value, q = byId("f-search").value.trim();
      rows.forEach(function (r) {
        var ok = (!fam || r.getAttribute("data-family") === fam) &&
          (!q || r.getAttribute("data-task").indexOf(q) === 0) &&
          (!status && !flag || cellsOf(r, run).some(function (c) { return matches(c, status, flag); }));
        r.classList.toggle("hidden", !ok);
      });
      var order = rows.slice();
      if (sort) {
        var desc = /-desc$/.test(sort);
        order.sort(function (a, b) {
          var x = sortKey(a, sort, run), y = sortKey(b, sort, run);
          if (isNaN(x) && isNaN(y)) return rows.indexOf(a) - rows.indexOf(b);
          if (isNaN(x)) return 1;
          if (isNaN(y)) return -1;
          return (desc ? y - x : x - y) || rows.indexOf(a) - rows.indexOf(b);
        });
      }
      order.forEach(function (r) { tbody.appendChild(r); });
      var vis = order.filter(function (r) { return !r.classList.contains("hidden"); });
      byId("f-count").textContent = vis.length + " of " + rows.length + " tasks";
      var filtered = fam || run || status || flag || sort || q;
      var ids = filtered ? vis.map(function (r) { return r.getAttribute("data-task"); }) : null;
      store(ORDER_KEY, ids ? JSON.stringify(ids) : null);
      var keys = ["family", "run", "status", "flag", "sort", "search"].concat(/^diff/.test(sort) ? ["a", "b"] : []);
      var state = keys.map(function (k) {
        var el = byId("f-" + k);
        return el && el.value ? k + "=" + encodeURIComponent(el.value) : "";
      }).filter(Boolean).join("&");
      if (history.replaceState) history.replaceState(null, "", state ? "#" + state : location.pathname + location.search);
      store(ORDER_KEY + "-hash", state ? "#" + state : null);
      carry(grid, ids && ORDER.test(ids.join(".")) ? fragment(ids, state) : "");
      mark(0);
    };
    (location.hash.slice(1) ? location.hash.slice(1).split("&") : []).forEach(function (kv) {
      var i = kv.indexOf("="), el = byId("f-" + kv.slice(0, i));
      if (el && i > 0) el.value = decodeURIComponent(kv.slice(i + 1));
    });
    ["f-family", "f-run", "f-status", "f-flag", "f-sort", "f-a", "f-b"].forEach(function (id) {
      var el = byId(id);
      if (el) el.addEventListener("change", apply);
    });
    byId("f-search").addEventListener("input", apply);
    apply();
    document.addEventListener("keydown", function (e) {
      var tag = e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
        if (e.key === "Escape") e.target.blur();
        if (e.key === "Enter" && e.target.id === "f-search") { e.target.blur(); open(); }
        return;
      }
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "/") { byId("f-search").focus(); }
      else if (e.key === "j" || e.key === "ArrowDown") { mark(current + 1); }
      else if (e.key === "k" || e.key === "ArrowUp") { mark(current - 1); }
      else if (e.key === "Enter" || e.key === "o") { open(); }
      else return;
      e.preventDefault();
    });
    var open = function () {
      var row = visible()[Math.max(current, 0)];
      if (!row) return;
      var run = byId("f-run").value;
      var a = (run !== "" ? cellOf(row, run) : row.querySelector("td.cell"));
      a = a && a.querySelector("a");
      if (a) location.href = a.getAttribute("href");
    };
  }
  // The previous/next bar of a task, stack or compare page: keys click its links; next/previous task follow the
  // overview's filtered order when there is one and it holds this task: from this page's fragment (the link
  // followed carried it), else from sessionStorage when the browser allows it. Every page link of the page then
  // carries the order on, and the overview link the filters.
  var nav = document.getElementById("nav");
  if (nav) {
    var order = null, view = null;
    location.hash.slice(1).split("&").forEach(function (kv) {
      var i = kv.indexOf("="), name = kv.slice(0, i), value = kv.slice(i + 1);
      if (name === "order" && ORDER.test(value)) order = value.split(".");
      if (name === "view") { try { value = decodeURIComponent(value); } catch (e) { value = ""; } if (VIEW.test(value)) view = value; }
    });
    if (!order) {
      var saved = load(ORDER_KEY), hash = load(ORDER_KEY + "-hash");
      try { order = saved ? JSON.parse(saved) : null; } catch (e) { order = null; }
      if (!Array.isArray(order) || !ORDER.test(order.join("."))) order = null;
      view = hash && VIEW.test(hash.slice(1)) ? hash.slice(1) : null;
    }
    var here = nav.getAttribute("data-task"), pattern = nav.getAttribute("data-pattern");
    var k = order ? order.indexOf(here) : -1;
    if (k >= 0) carry(document, fragment(order, view));
    ["nav-home", "home"].forEach(function (id) {  // back to the same filters
      var home = document.getElementById(id);
      if (home && view) home.setAttribute("href", "index.html#" + view);
    });
    if (k >= 0 && pattern) {
      [["nav-prev-task", order[k - 1]], ["nav-next-task", order[k + 1]]].forEach(function (p) {
        var el = document.getElementById(p[0]);
        if (!el) return;
        if (p[1] === undefined) { el.removeAttribute("href"); el.classList.add("off"); return; }
        if (el.tagName !== "A") {
          var a = document.createElement("a");
          a.id = el.id; a.textContent = el.textContent; a.setAttribute("data-key", p[0] === "nav-prev-task" ? "k" : "j");
          el.parentNode.replaceChild(a, el); el = a;
        }
        el.classList.remove("off");
        el.setAttribute("href", pattern.replace("{}", p[1]) + fragment(order, view));
        el.title = "in the overview's filtered order";
      });
    }
    document.addEventListener("keydown", function (e) {
      var tag = e.target.tagName;
      if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || e.metaKey || e.ctrlKey || e.altKey) return;
      var link = nav.querySelector("a[data-key='" + (e.key === "ArrowRight" ? "j" : e.key === "ArrowLeft" ? "k" : e.key) + "'][href]");
      if (!link) return;
      e.preventDefault();
      location.href = link.getAttribute("href");
    });
  }
  window.avbReady = true;
  document.documentElement.setAttribute("data-avb-ready", "1");
})();
