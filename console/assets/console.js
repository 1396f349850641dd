// bloomcrawl console: live status over server-sent events, and the chart.
// No framework; uPlot draws the chart.
(function () {
  "use strict";
  var nf = new Intl.NumberFormat("en-US");
  var nf1 = new Intl.NumberFormat("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  function bytes(n) {
    if (n < 0) return "–";
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return i === 0 ? nf.format(Math.round(n)) + " B" : nf1.format(n) + " " + u[i];
  }
  function secs(s) {
    if (s <= 0) return "0s";
    if (s < 1) return Math.round(s * 1000) + " ms";
    if (s < 60) return nf1.format(s) + " s";
    var m = Math.floor(s / 60), h = Math.floor(m / 60);
    if (s < 3600) return m + "m " + String(Math.floor(s) % 60).padStart(2, "0") + "s";
    if (h < 48) return h + "h " + String(m % 60).padStart(2, "0") + "m";
    return Math.floor(h / 24) + "d " + String(h % 24).padStart(2, "0") + "h";
  }
  function pct(f) {
    if (f === 0) return "0%";
    if (f >= 0.01) return nf1.format(f * 100) + "%";
    return (f * 100).toPrecision(2) + "%";
  }
  var fmt = {
    num: function (v) { return nf.format(v); },
    rate: function (v) { return nf1.format(v); },
    bytes: bytes,
    secs: secs,
    pct: pct,
    eta: function (v) { return v < 0 ? "– (queue not shrinking)" : secs(v); },
    clock: function (v) { return new Date(v).toLocaleTimeString(); },
    fp: function (v, s) {
      if (v === undefined || v === null) return "not counted (turn on dedup.verify or --audit)";
      var n = v + s.filter_keys;
      return nf.format(v) + (n ? " (" + pct(v / n) + " of new URLs)" : "");
    }
  };

  function apply(s) {
    document.querySelectorAll("[data-k]").forEach(function (el) {
      var k = el.getAttribute("data-k"), f = el.getAttribute("data-f");
      var v = s[k];
      var text = f && fmt[f] ? fmt[f](v, s) : String(v);
      if (el.textContent !== text) el.textContent = text;
      if (k === "state") el.className = "state state-" + v;
    });
  }

  function chart(el, series, colors, data) {
    if (!window.uPlot || !el) return null;
    var opts = {
      width: el.clientWidth || 600, height: el.classList.contains("small") ? 180 : 260,
      series: [{}].concat(series.map(function (name, i) {
        return { label: name, stroke: colors[i], width: 2, value: function (u, v) { return v == null ? "–" : nf.format(v); } };
      })),
      axes: [{}, { values: function (u, vals) { return vals.map(function (v) { return nf.format(v); }); }, size: 70 }],
      scales: { x: { time: true } }
    };
    var u = new uPlot(opts, data, el);
    window.addEventListener("resize", function () { u.setSize({ width: el.clientWidth, height: opts.height }); });
    return u;
  }

  if (!document.getElementById("state")) return; // not the status view
  var main = document.getElementById("chart");
  var refresh = document.getElementById("refresh-chart");
  var cols = null, mainPlot = null, refreshPlot = null;
  if (main) {
    fetch("/console/history.json", { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (h) {
      cols = h;
      mainPlot = chart(main, ["queued", "fetched", "stored"], ["#1f5fbf", "#1e7b34", "#9a6700"], [h.t, h.queued, h.fetched, h.stored]);
      refreshPlot = chart(refresh, ["refreshed", "not modified", "changed", "behind schedule"], ["#1f5fbf", "#5b6673", "#1e7b34", "#b3261e"],
        [h.t, h.refreshed, h.not_modified, h.changed, h.behind_schedule]);
    });
  }
  var es = new EventSource("/console/events");
  es.onmessage = function (ev) {
    var s = JSON.parse(ev.data);
    apply(s);
    if (!cols || s.state === "store") return;
    var t = Date.parse(s.time) / 1000;
    if (cols.t.length && t <= cols.t[cols.t.length - 1]) return;
    cols.t.push(t); cols.queued.push(s.queued); cols.fetched.push(s.fetched); cols.stored.push(s.stored);
    cols.refreshed.push(s.refreshed); cols.not_modified.push(s.not_modified); cols.changed.push(s.changed); cols.behind_schedule.push(s.behind_schedule);
    if (mainPlot) mainPlot.setData([cols.t, cols.queued, cols.fetched, cols.stored]);
    if (refreshPlot) refreshPlot.setData([cols.t, cols.refreshed, cols.not_modified, cols.changed, cols.behind_schedule]);
  };
  window.addEventListener("pagehide", function () { es.close(); });
})();
