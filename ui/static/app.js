// The dashboard's script. Every page works without it; it adds
// copy-to-clipboard on [data-copy] buttons and "/" to focus the search box.
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var b = e.target.closest("[data-copy]");
    if (!b) return;
    var el = document.getElementById(b.getAttribute("data-copy"));
    if (!el || !navigator.clipboard) return;
    navigator.clipboard.writeText(el.textContent.trim()).then(function () {
      b.textContent = "Copied";
    });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target.tagName;
    if (t === "INPUT" || t === "TEXTAREA" || t === "SELECT" || e.target.isContentEditable) return;
    var s = document.querySelector("[data-search]");
    if (s) { e.preventDefault(); s.focus(); s.select(); }
  });
})();
