// Charts are static SVG drawn at build time: no page loads the charting runtime. A chart's "Interactive
// chart" button (shown only when scripts run) loads the vendored Vega, Vega-Lite and vega-embed (832 KB,
// no network beyond this site) on that press, and draws the chart's Vega-Lite spec in place of the SVG,
// following the light/dark palette toggle from then on.
(function () {
  var base = (document.currentScript && document.currentScript.src) || "";
  var vendor = base ? new URL("../assets/vendor/", base).href : "assets/vendor/";
  var LIBS = ["vega/vega.min.js", "vega-lite/vega-lite.min.js", "vega-embed/vega-embed.min.js"];
  var loading = null;

  function load(i) {
    return new Promise(function (resolve, reject) {
      if (i >= LIBS.length) return resolve();
      var s = document.createElement("script");
      s.src = vendor + LIBS[i];
      s.onload = function () { load(i + 1).then(resolve, reject); };
      s.onerror = function () { reject(new Error("could not load " + LIBS[i])); };
      document.head.appendChild(s);
    });
  }

  function dark() {
    return document.body && document.body.getAttribute("data-md-color-scheme") === "slate";
  }

  function config() {
    var fg = dark() ? "#e6e6e6" : "#222222";
    var grid = dark() ? "#444444" : "#dddddd";
    // aria: false — the chart's container carries role="img" and the text alternative
    return { aria: false, background: null, axis: { labelColor: fg, titleColor: fg, gridColor: grid, domainColor: fg, tickColor: fg },
             legend: { labelColor: fg, titleColor: fg }, text: { color: fg }, title: { color: fg },
             rule: { color: fg } };
  }

  function draw(fig) {
    var el = fig.querySelector("div.vega-chart[data-spec]");
    var still = fig.querySelector("div.db-chart-static");
    var url = new URL(el.dataset.spec, window.location.href).href;
    loading = loading || load(0);
    return loading.then(function () {
      return vegaEmbed(el, url, { actions: false, renderer: "svg", config: config() });
    }).then(function () {
      // the static chart's container keeps role="img" and the text alternative: the drawing is presentation
      el.querySelectorAll("svg").forEach(function (svg) { svg.setAttribute("aria-hidden", "true"); });
      if (still) { still.hidden = true; el.setAttribute("role", "img"); el.setAttribute("aria-label", still.getAttribute("aria-label")); }
      el.hidden = false;
      el.dataset.drawn = "1";
    }).catch(function (e) {
      var p = document.createElement("p");
      p.textContent = "The interactive chart could not be drawn (" + (e && e.message || e) + "); the static chart and the data table stay.";
      fig.appendChild(p);
    });
  }

  function start() {
    document.querySelectorAll("figure.db-chart button.db-chart-interactive").forEach(function (b) {
      b.hidden = false;
      b.onclick = function () {
        var fig = b.closest("figure.db-chart");
        b.disabled = true;
        draw(fig).then(function () { b.hidden = true; });
      };
    });
  }
  if (window.MutationObserver && document.body) {
    new MutationObserver(function () {
      document.querySelectorAll("div.vega-chart[data-drawn]").forEach(function (el) {
        draw(el.closest("figure.db-chart"));
      });
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }
  if (typeof document$ !== "undefined") { document$.subscribe(start); }
  else { document.addEventListener("DOMContentLoaded", start); }
})();
