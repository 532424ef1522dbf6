// Draw every Vega-Lite chart on the page with the vendored vega-embed (no network beyond this site).
// Material's document$ fires on the first load and after each instant navigation.
(function () {
  function draw() {
    document.querySelectorAll("div.vega-chart[data-spec]").forEach(function (el) {
      if (el.dataset.rendered) return;
      el.dataset.rendered = "1";
      var url = new URL(el.dataset.spec, window.location.href).href;
      vegaEmbed(el, url, { actions: false, renderer: "svg" })
        .then(function () { el.dataset.drawn = "1"; })
        .catch(function (e) { el.textContent = "Chart could not be drawn (" + e + "); see the data table below."; });
    });
  }
  if (typeof document$ !== "undefined") { document$.subscribe(draw); }
  else { document.addEventListener("DOMContentLoaded", draw); }
})();
