// Loaded with the sorter by tablesort.js: makes each sortable table sortable. The header's button is the one tab
// stop (Tablesort makes each header cell focusable too); after each sort every sortable header's aria-sort says
// ascending, descending or none, and one polite line says what the rows are now ordered by.
(function () {
  document.querySelectorAll(window.dbSortable).forEach(function (table) {
    if (table.dataset.sortable) return;
    table.dataset.sortable = "1";
    new Tablesort(table);
    var cells = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(cells, function (th) { th.removeAttribute("tabindex"); });
    table.addEventListener("afterSort", function () {
      var said = "";
      Array.prototype.forEach.call(cells, function (th) {
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
    });
  });
})();
