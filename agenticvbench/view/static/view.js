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
  window.avbReady = true;
  document.documentElement.setAttribute("data-avb-ready", "1");
})();
