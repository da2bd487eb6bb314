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
  window.avbReady = true;
  document.documentElement.setAttribute("data-avb-ready", "1");
})();
