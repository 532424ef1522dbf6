// Sortable tables (Material's recipe, with tablesort vendored instead of loaded from a CDN).
(function () {
  function init() {
    document.querySelectorAll("article div.db-table table:not([data-db-nosort]), article table:not([class])")
      .forEach(function (table) {
        if (table.dataset.sortable) return;
        table.dataset.sortable = "1";
        new Tablesort(table);
      });
  }
  if (typeof document$ !== "undefined") { document$.subscribe(init); }
  else { document.addEventListener("DOMContentLoaded", init); }
})();
