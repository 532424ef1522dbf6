// The cell page's "Copy citation" (loaded by leaderboard.js only on a page with such a button): copies the exact
// text of the citation block, what `driftboard cite` prints. Where the clipboard is refused, the citation is opened
// and selected for the reader to copy.
(function () {
  document.querySelectorAll("button.db-copy[data-copy]").forEach(function (b) {
    var box = document.getElementById(b.dataset.copy);
    var status = b.parentNode.querySelector(".db-copy-status");
    b.addEventListener("click", function () {
      var code = box.querySelector("code") || box;
      function said(m) { status.textContent = m; }
      function select() {
        var details = box.closest("details");
        if (details) details.open = true;
        window.getSelection().selectAllChildren(code);
        said("Could not copy: the citation is selected, copy it with your keyboard.");
      }
      if (navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(function () { said("Citation copied."); }, select);
      else select();
    });
  });
})();
