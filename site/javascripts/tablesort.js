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
      // the header's button is the one tab stop (Tablesort makes each header cell focusable too)
      Array.prototype.forEach.call(table.tHead ? table.tHead.rows[0].cells : [], function (th) {
        th.removeAttribute("tabindex");
      });
      table.addEventListener("afterSort", function () { sorted(table); });
    });
  }
  function sorted(table) {
    // aria-sort on every sortable header: the sorted one ascending or descending, the others none; and one
    // polite announcement of what the rows are now ordered by
    var said = "";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      if (!th.querySelector("button.db-sort")) return;
      var s = th.getAttribute("aria-sort");
      if (s === "ascending" || s === "descending") said = "Sorted by " + th.textContent.trim() + ", " + s + ".";
      else th.setAttribute("aria-sort", "none");
    });
    var live = table.parentNode.querySelector(":scope > .db-sort-status");
    if (!live) {
      live = document.createElement("p");
      live.className = "db-sort-status";
      live.setAttribute("aria-live", "polite");
      table.parentNode.appendChild(live);
    }
    live.textContent = said;
  }
  function header(e) {
    var th = e.target && e.target.closest && e.target.closest("thead th");
    var table = th && th.closest("table");
    return table && table.matches(SEL) ? th : null;
  }
  function buttons() {
    // each sortable header's text goes into a real button (Tab reaches it; Enter and Space sort), with
    // aria-sort="none" on the header cell until its column is sorted; an empty header cell sorts nothing
    document.querySelectorAll(SEL).forEach(function (table) {
      var row = table.tHead && table.tHead.rows[0];
      if (!row || row.dataset.dbButtons) return;
      row.dataset.dbButtons = "1";
      Array.prototype.forEach.call(row.cells, function (th) {
        if (th.getAttribute("data-sort-method") === "none") return;
        if (!th.textContent.trim()) { th.setAttribute("data-sort-method", "none"); return; }
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
    if (!th || th.closest("table").dataset.sortable || th.getAttribute("data-sort-method") === "none") return;
    load().then(function () { th.click(); });
  }, true);
  function focusable() {
    // the theme wraps each Markdown table in a scrolling box; one that scrolls must take keyboard focus
    // (axe: scrollable-region-focusable), as our own tables' `div.db-scroll` boxes do. Inside our own box the
    // theme's box never scrolls (driftboard.css): it is no second region. Each region's name is its own
    // (axe: landmark-unique): the heading the table is under, numbered when two share one.
    var seen = {};
    document.querySelectorAll(".md-typeset__scrollwrap:not([tabindex])").forEach(function (box) {
      if (box.closest(".db-scroll")) return;
      var h = box.previousElementSibling;
      while (h && !/^H[1-6]$/.test(h.tagName)) h = h.previousElementSibling;
      var name = "Table" + (h ? " under “" + h.textContent.replace(/\u00b6/g, "").trim() + "”" : "");
      seen[name] = (seen[name] || 0) + 1;
      if (seen[name] > 1) name += " (" + seen[name] + ")";
      box.tabIndex = 0;
      box.setAttribute("role", "region");
      box.setAttribute("aria-label", name + " (scrolls sideways when wider than the page)");
    });
    codeBars();
  }
  function codeBars() {
    // the theme's copy-button bar of each code block is a <nav>, all unnamed alike (axe: landmark-unique): a
    // few buttons, not a landmark. The theme adds some bars late, so new ones are watched for.
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach(function (nav) { nav.setAttribute("role", "none"); });
  }
  if (window.MutationObserver) {
    var pending = false;
    new MutationObserver(function () {
      if (pending) return;
      pending = true;
      setTimeout(function () { pending = false; codeBars(); }, 0);
    }).observe(document.documentElement, { childList: true, subtree: true });
  }
  function ready() { buttons(); setTimeout(focusable, 0); }
  if (typeof document$ !== "undefined") { document$.subscribe(ready); }
  else { document.addEventListener("DOMContentLoaded", ready); }
})();
