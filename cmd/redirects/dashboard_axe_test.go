package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"
)

// axeSource is axe-core's axe.min.js, read once from REDIRECTS_TEST_AXE
// (.ci/run installs axe-core from npm and sets it); empty when unset.
var axeSource = sync.OnceValues(func() (string, error) {
	p := os.Getenv("REDIRECTS_TEST_AXE")
	if p == "" {
		return "", nil
	}
	b, err := os.ReadFile(p)
	return string(b), err
})

// axeRun runs axe-core on the page with the WCAG 2.x A and AA rules and
// the best practices, plus label-content-name-mismatch (experimental in
// axe, and a WCAG 2.1 A criterion), and answers the serious and critical
// violations.
const axeRun = `axe.run(document, {
  resultTypes: ['violations'],
  rules: {'label-content-name-mismatch': {enabled: true}},
}).then(r => JSON.stringify(r.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical')
  .map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' ' + n.html.slice(0, 160))}))))`

// overflowing lists the elements that reach past the viewport's right
// edge when the page is wider than its viewport (sideways scrolling).
const overflowing = `(() => {
  const w = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= w) return "";
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > w + 1 && out.length < 6) out.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' right=' + Math.round(r.right));
  }
  return 'page ' + document.documentElement.scrollWidth + ' px wide in a ' + w + ' px viewport: ' + out.join(', ');
})()`

// checkPage fails the test when the page at width px scrolls sideways, or,
// with REDIRECTS_TEST_AXE set, when axe-core finds a serious or critical
// violation.
func (b *browser) checkPage(name string, width int64) {
	b.t.Helper()
	if msg := get(b, chromedp.Evaluate[string](overflowing)); msg != "" {
		b.t.Errorf("%s at %d px: %s", name, width, msg)
	}
	src, err := axeSource()
	if err != nil {
		b.t.Fatalf("REDIRECTS_TEST_AXE: %v", err)
	}
	if src == "" {
		return
	}
	if !get(b, chromedp.Evaluate[bool]("typeof axe !== 'undefined'")) {
		get(b, chromedp.Evaluate[bool](src+";true"))
	}
	out := get(b, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	var vs []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		b.t.Fatalf("axe-core's answer: %v: %s", err, out)
	}
	for _, v := range vs {
		b.t.Errorf("%s at %d px: axe-core %s (%s): %s\n    %s", name, width, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n    "))
	}
}

// readmeShots names the screenshots of the browser suite the README
// shows, by the name the suite gives the page and the file under
// docs/screenshots. Run the suite with REDIRECTS_README_SCREENSHOTS set to
// docs/screenshots (an absolute path, or relative to cmd/redirects) to
// write them again:
//
//	REDIRECTS_README_SCREENSHOTS=$PWD/docs/screenshots go test -run 'TestDashboard' ./cmd/redirects
var readmeShots = map[string]string{
	"rules-hits":           "rules.png",
	"rule-preview-pattern": "rule-preview.png",
	"deploy-blocked":       "deploy.png",
	"import-errors":        "import.png",
	"misses":               "misses.png",
	"usage":                "usage.png",
	"settings":             "settings.png",
}

// readmeShot writes the full page, at 1280 px, to the README's screenshot
// of name, if it has one and REDIRECTS_README_SCREENSHOTS is set.
func (b *browser) readmeShot(name string) {
	b.t.Helper()
	dir, file := os.Getenv("REDIRECTS_README_SCREENSHOTS"), readmeShots[name]
	if dir == "" || file == "" {
		return
	}
	png := get(b, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, file), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
