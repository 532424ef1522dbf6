// Leaderboard tables: facet filters (those whose value varies: board, model, ranked, real/synthetic, profile) and a visible cue when a table is
// wider than the page (it scrolls sideways; the rank and cell columns stay in view).
(function () {
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
  function names() {
    // the theme's search dialog has no accessible name (axe: aria-dialog-name)
    document.querySelectorAll('[role="dialog"]:not([aria-label])').forEach(function (el) {
      el.setAttribute("aria-label", "Search this site");
    });
  }
  function copies() {
    // the cell page's "Copy citation": the exact text of the citation block (what `driftboard cite` prints)
    document.querySelectorAll("button.db-copy[data-copy]").forEach(function (b) {
      if (b.dataset.ready) return;
      b.dataset.ready = "1";
      b.addEventListener("click", function () {
        var box = document.getElementById(b.dataset.copy);
        var code = box && (box.querySelector("code") || box);
        var text = code ? code.textContent : "";
        var status = b.parentNode.querySelector(".db-copy-status");
        function said(m) { if (status) status.textContent = m; }
        function fallback() {
          var ta = document.createElement("textarea");
          ta.value = text;
          ta.setAttribute("readonly", "");
          ta.style.position = "fixed";
          ta.style.opacity = "0";
          document.body.appendChild(ta);
          ta.select();
          var ok = false;
          try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
          document.body.removeChild(ta);
          said(ok ? "Citation copied." : "Could not copy: open \u201cShow the citation\u201d and select it.");
        }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { said("Citation copied."); }, fallback);
        } else { fallback(); }
      });
    });
  }
  function init() { names(); facets(); overflow(); copies(); }
  window.addEventListener("resize", overflow);
  if (typeof document$ !== "undefined") { document$.subscribe(init); }
  else { document.addEventListener("DOMContentLoaded", init); }
})();
