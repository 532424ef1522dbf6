// Sortable tables (Material's recipe, with tablesort vendored instead of loaded from a CDN). At load, each sortable
// header's text goes into a real button (Tab reaches it; Enter and Space sort) and the header cell gets
// aria-sort="none". Page weight: the sorter (~4 KB) and sort-aria.js (aria-sort and an announcement after each
// sort) load when a reader first points at, focuses or clicks a header; a click before then sorts once loaded.
(function () {
  var SEL = window.dbSortable = "article div.db-table table:not([data-db-nosort]), article table:not([class])";
  var base = (document.currentScript && document.currentScript.src) || document.baseURI;
  var loading = null;
  var each = function (list, fn) { Array.prototype.forEach.call(list, fn); };

  function script(rel) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = new URL(rel, base).href;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + rel)); };
      document.head.appendChild(s);
    });
  }
  function load() {
    var v = "../assets/vendor/tablesort/tablesort.";
    loading = loading || script(v + "min.js").then(function () { return script(v + "number.min.js"); })
      .then(function () { return script("sort-aria.js"); });
    return loading;
  }
  function header(e) {
    var th = e.target.closest && e.target.closest("thead th");
    return th && th.closest("table").matches(SEL) && th.getAttribute("data-sort-method") !== "none" ? th : null;
  }
  function buttons() {
    document.querySelectorAll(SEL).forEach(function (table) {
      var row = table.tHead && table.tHead.rows[0];
      if (!row || row.dataset.dbButtons) return;
      row.dataset.dbButtons = "1";
      each(row.cells, function (th) {
        if (th.getAttribute("data-sort-method") === "none") return;
        if (!th.textContent.trim()) return th.setAttribute("data-sort-method", "none");  // nothing to name a button
        th.setAttribute("role", "columnheader");
        th.setAttribute("aria-sort", "none");
        var b = document.createElement("button");
        b.type = "button";
        b.className = "db-sort";
        while (th.firstChild) b.appendChild(th.firstChild);
        th.appendChild(b);
      });
    });
  }
  ["pointerover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (e) { if (header(e)) load(); }, true);
  });
  document.addEventListener("click", function (e) {
    var th = header(e);
    if (th && !th.closest("table").dataset.sortable) load().then(function () { th.click(); });
  }, true);
  function focusable() {
    // the theme wraps each Markdown table in a scrolling box; one that scrolls must take keyboard focus (axe:
    // scrollable-region-focusable), as our tables' `div.db-scroll` boxes do, inside which the theme's box never
    // scrolls (driftboard.css). Each region's name is its own (axe: landmark-unique).
    var n = 0;
    document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach(function (box) {
      if (box.closest(".db-scroll")) return;
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table " + ++n + " (scrolls sideways)");
    });
  }
  // the theme's copy-button bar of a code block is a <nav>, all alike (axe: landmark-unique): a few buttons, not a
  // landmark; the theme adds some late, so new ones are watched for
  new MutationObserver(function () {
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach(function (n) { n.setAttribute("role", "none"); });
  }).observe(document.body, { childList: true, subtree: true });
  function ready() { buttons(); setTimeout(focusable); }
  if (typeof document$ !== "undefined") document$.subscribe(ready);
  else document.addEventListener("DOMContentLoaded", ready);
})();
