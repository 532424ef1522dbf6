// Leaderboard tables: facet filters (those whose value varies: board, model, ranked, real/synthetic, profile) and a visible cue when a table is
// wider than the page (it scrolls sideways; the rank and cell columns stay in view).
(function () {
  var base = (document.currentScript && document.currentScript.src) || document.baseURI;
  function facets() {
    document.querySelectorAll("div.db-facets").forEach(function (form) {
      if (form.dataset.ready) return;
      form.dataset.ready = "1";
      var box = document.getElementById(form.dataset.table);
      if (!box) return;
      var rows = box.querySelectorAll("tbody tr");
      var count = form.querySelector(".db-facet-count");
      function apply() {
        var shown = 0;
        var sels = form.querySelectorAll("select[data-facet]");
        rows.forEach(function (tr) {
          var ok = true;
          sels.forEach(function (s) { if (s.value && tr.getAttribute("data-f-" + s.dataset.facet) !== s.value) ok = false; });
          tr.hidden = !ok;
          if (ok) shown += 1;
        });
        if (count) count.textContent = shown + " of " + rows.length + " rows shown";
      }
      form.addEventListener("change", apply);
      apply();
    });
  }
  function overflow() {
    document.querySelectorAll("div.db-scroll").forEach(function (el) {
      var wide = el.scrollWidth > el.clientWidth + 1;
      el.parentElement.classList.toggle("db-overflow", wide);
      var atEnd = el.scrollLeft + el.clientWidth >= el.scrollWidth - 1;
      el.parentElement.classList.toggle("db-overflow-end", wide && atEnd);
      if (!el.dataset.watch) {
        el.dataset.watch = "1";
        el.addEventListener("scroll", overflow, { passive: true });
      }
    });
  }
  function copies() {
    // the cell page's Copy citation button: its script loads only where there is one
    if (!document.querySelector("button.db-copy") || copies.done) return;
    copies.done = 1;
    var s = document.createElement("script");
    s.src = new URL("copy.js", base).href;
    document.head.appendChild(s);
  }
  function init() { facets(); overflow(); copies(); }
  window.addEventListener("resize", overflow);
  if (typeof document$ !== "undefined") { document$.subscribe(init); }
  else { document.addEventListener("DOMContentLoaded", init); }
})();
