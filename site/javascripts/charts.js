// Draw every Vega-Lite chart on the page with the vendored Vega, Vega-Lite and vega-embed (no network
// beyond this site). The three libraries (~850 KB) load only on a page that has a chart: a page
// without charts fetches none of them. Charts follow the light/dark palette toggle.
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

  function drawAll(force) {
    var els = document.querySelectorAll("div.vega-chart[data-spec]");
    if (!els.length) return;
    loading = loading || load(0);
    loading.then(function () {
      els.forEach(function (el) {
        if (el.dataset.rendered && !force) return;
        el.dataset.rendered = "1";
        var url = new URL(el.dataset.spec, window.location.href).href;
        vegaEmbed(el, url, { actions: false, renderer: "svg", config: config() })
          .then(function () {
            // the container is role="img" with the text alternative: the drawing itself is presentation
            el.querySelectorAll("svg").forEach(function (svg) { svg.setAttribute("aria-hidden", "true"); });
            el.dataset.drawn = "1";
          })
          .catch(function (e) { el.textContent = "Chart could not be drawn (" + e + "); see the data table below."; });
      });
    }, function (e) {
      els.forEach(function (el) { el.textContent = "Charts could not be loaded (" + e.message + "); see the data tables."; });
    });
  }

  function start() {
    drawAll(false);
    if (window.MutationObserver && document.body) {
      new MutationObserver(function () { drawAll(true); })
        .observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
    }
  }
  if (typeof document$ !== "undefined") { document$.subscribe(start); }
  else { document.addEventListener("DOMContentLoaded", start); }
})();
