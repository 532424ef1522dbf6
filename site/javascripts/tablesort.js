// Sortable tables (Material's recipe, with tablesort vendored instead of loaded from a CDN).
// Page weight: the sorter (~4 KB) loads when a reader first points at, focuses or clicks a table's
// header row, not with the page; a click that arrives before it has loaded sorts once it has.
(function () {
  var SEL = "article div.db-table table:not([data-db-nosort]), article table:not([class])";
  var base = (document.currentScript && document.currentScript.src) || "";
  var vendor = base ? new URL("../assets/vendor/tablesort/", base).href : "assets/vendor/tablesort/";
  var loading = null;

  function script(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }
  function load() {
    loading = loading || script(vendor + "tablesort.min.js").then(function () {
      return script(vendor + "tablesort.number.min.js");
    }).then(init);
    return loading;
  }
  function init() {
    document.querySelectorAll(SEL).forEach(function (table) {
      if (table.dataset.sortable) return;
      table.dataset.sortable = "1";
      new Tablesort(table);
    });
  }
  function header(e) {
    var th = e.target && e.target.closest && e.target.closest("thead th");
    var table = th && th.closest("table");
    return table && table.matches(SEL) ? th : null;
  }
  function cue() {
    // the sortable cue (pointer cursor) before the sorter has loaded; Tablesort sets the same role
    document.querySelectorAll(SEL).forEach(function (table) {
      var row = table.tHead && table.tHead.rows[0];
      if (!row) return;
      Array.prototype.forEach.call(row.cells, function (th) {
        if (th.getAttribute("data-sort-method") !== "none") th.setAttribute("role", "columnheader");
      });
    });
  }
  ["pointerover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (e) { if (header(e)) load(); }, true);
  });
  document.addEventListener("click", function (e) {
    var th = header(e);
    if (!th || th.closest("table").dataset.sortable) return;
    load().then(function () { th.click(); });
  }, true);
  function focusable() {
    // the theme wraps each Markdown table in a scrolling box; one that scrolls must take keyboard focus
    // (axe: scrollable-region-focusable), as our own tables' `div.db-scroll` boxes do
    document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach(function (box) {
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", "Table (scrolls sideways when wider than the page)");
    });
  }
  function ready() { cue(); setTimeout(focusable, 0); }
  if (typeof document$ !== "undefined") { document$.subscribe(ready); }
  else { document.addEventListener("DOMContentLoaded", ready); }
})();
