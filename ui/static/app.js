// The dashboard's script. Every page works without it; it adds
// copy-to-clipboard on [data-copy] buttons, "/" to focus the search box,
// a busy bar while an import file uploads and is checked, and on rule
// forms ([data-rule-form]) shows only the options that apply: "keep the
// rest of the path" for starts_with rules, no option and no destination
// for a 410 (the server refuses them either way, naming the field), and
// makes Enter in the preview's sample fields preview rather than save.
(function () {
  "use strict";
  function ruleForm(f) {
    var status = f.elements.namedItem("status"), match = f.elements.namedItem("match");
    var dest = f.elements.namedItem("destination");
    var gone = status && status.value === "410";
    var prefix = match && match.value === "starts_with";
    if (dest) {
      if (!dest.hasAttribute("data-placeholder")) dest.setAttribute("data-placeholder", dest.placeholder);
      dest.disabled = gone;
      dest.required = !gone;
      dest.placeholder = gone ? dest.getAttribute("data-placeholder-gone") : dest.getAttribute("data-placeholder");
    }
    option(f, "path", !gone && prefix);
    option(f, "query", !gone);
    option(f, "fragment", !gone);
    option(f, "merge", !gone);
    var box = f.querySelector("fieldset.options");
    if (box) box.hidden = gone;
  }
  function option(f, name, on) {
    var l = f.querySelector('[data-option="' + name + '"]');
    if (!l) return;
    l.hidden = !on;
    l.querySelector("input").disabled = !on;
  }
  function allRuleForms() {
    document.querySelectorAll("form[data-rule-form]").forEach(ruleForm);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", allRuleForms);
  else allRuleForms();
  document.addEventListener("change", function (e) {
    var f = e.target.form;
    if (f && f.hasAttribute("data-rule-form") && (e.target.name === "status" || e.target.name === "match")) ruleForm(f);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Enter" || !e.target.hasAttribute || !e.target.hasAttribute("data-preview-input")) return;
    var b = e.target.form && e.target.form.querySelector("[data-preview-button]");
    if (b) { e.preventDefault(); b.click(); }
  });
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
