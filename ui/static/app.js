// The dashboard's script. Every page works without it; it adds
// copy-to-clipboard on [data-copy] buttons, "/" to focus the search box,
// and a busy bar while an import file uploads and is checked.
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
  document.addEventListener("submit", function (e) {
    var f = e.target;
    if (f.id !== "import-form") return;
    var bar = document.getElementById("import-progress");
    var b = f.querySelector("button[type=submit]");
    if (bar) { bar.removeAttribute("value"); bar.hidden = false; }
    if (b) { b.disabled = true; b.textContent = "Uploading and checking…"; }
  });
})();
