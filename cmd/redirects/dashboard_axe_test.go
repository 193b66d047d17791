package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

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
// axe, and a WCAG 2.1 A criterion) and target-size (WCAG 2.2 AA, off by
// default in axe), and answers the serious and critical violations.
const axeRun = `axe.run(document, {
  resultTypes: ['violations'],
  rules: {'label-content-name-mismatch': {enabled: true}, 'target-size': {enabled: true}},
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

// tableFits answers, for a table on a narrow screen, what of it does not
// fit: its box scrolling sideways, or its first cell that reaches past
// the screen's edges.
const tableFits = `((t) => {
  const out = [];
  const screen = document.documentElement.clientWidth;
  const w = t.closest('.table-wrap') || t;
  const name = (t.closest('[aria-label]') || t).getAttribute('aria-label') || t.className;
  if (w.scrollWidth > w.clientWidth + 1) out.push('the table (' + name + ') is ' + (w.scrollWidth - w.clientWidth) + ' px wider than its box');
  for (const c of t.querySelectorAll('td')) {
    const r = c.getBoundingClientRect();
    if (r.width > 0 && (r.left < 0 || r.right > screen + 1)) {
      out.push('a cell of the table (' + name + ', ' + (c.dataset.label || c.textContent.slice(0, 20)) + ') spans ' + Math.round(r.left) + ' to ' + Math.round(r.right) + ' px of a ' + screen + ' px screen');
      break;
    }
  }
  return out;
})`

// fits fails the test when the table sel names does not fit the screen
// at width px (tableFits).
func (b *browser) fits(sel string, width int64) {
	b.t.Helper()
	b.run(chromedp.EmulateViewport(width, 800))
	// The page lays out at the new width before it is measured.
	get(b, chromedp.Poll[chromedp.Void](fmt.Sprintf("window.innerWidth === %d", width), chromedp.WithPollingTimeout(10*time.Second)))
	msg := get(b, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const t = document.querySelector(%q); return t ? %s(t).join('; ') : 'no table %s'; })()`, sel, tableFits, sel)))
	if msg != "" {
		b.t.Errorf("at %d px: %s", width, msg)
	}
	b.run(chromedp.EmulateViewport(1280, 800))
}

// designRules checks, on the page as shown, the dashboard's design
// system (ui/static/app.css) and answers what breaks it, one problem a
// line: h1, h2 and h3 each at least 1.2 times the size of the next; at
// most one primary action (a control filled with the primary colour);
// destructive buttons in another colour than the primary one; no link or
// button of the top bar underlined; at 1280 px (wide), no table scrolling
// sideways in its box; narrower, every table shown as cards (table.cards)
// fitting the screen (tableFits).
const designRules = `((wide) => {
  const out = [];
  const shown = e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const size = sel => [...document.querySelectorAll(sel)].filter(shown).map(e => parseFloat(getComputedStyle(e).fontSize));
  // The headings of the page's own levels, not the small ones of side boxes (.syntax).
  const [h1, h2, h3] = [size('h1'), size('h2'), size('main h3:not(.syntax h3)')];
  if (h1.length && h2.length && Math.min(...h1) < 1.2 * Math.max(...h2)) out.push('h1 ' + Math.min(...h1) + ' px is not 1.2 times h2 ' + Math.max(...h2) + ' px');
  if (h2.length && h3.length && Math.min(...h2) < 1.2 * Math.max(...h3)) out.push('h2 ' + Math.min(...h2) + ' px is not 1.2 times h3 ' + Math.max(...h3) + ' px');
  const probe = document.createElement('button');
  probe.className = 'primary';
  document.body.appendChild(probe);
  const primary = getComputedStyle(probe).backgroundColor;
  probe.remove();
  const controls = [...document.querySelectorAll('main button, main a.button, main .actions a')].filter(shown);
  const filled = controls.filter(e => getComputedStyle(e).backgroundColor === primary);
  if (filled.length > 1) out.push(filled.length + ' primary actions: ' + filled.map(e => e.textContent.trim()).join(', '));
  for (const e of controls.filter(e => e.classList.contains('danger'))) {
    const cs = getComputedStyle(e);
    if (cs.backgroundColor === primary || cs.color === primary || cs.borderTopColor === primary) out.push('the destructive ' + e.textContent.trim() + ' has the primary colour');
  }
  for (const e of document.querySelectorAll('header.topbar a, header.topbar button')) {
    if (getComputedStyle(e).textDecorationLine !== 'none') out.push('the top bar underlines ' + e.textContent.trim());
  }
  if (wide) {
    for (const w of document.querySelectorAll('.table-wrap')) {
      if (shown(w) && w.scrollWidth > w.clientWidth + 1) out.push('a table (' + (w.querySelector('caption, table[id], table[class]') || w).textContent.slice(0, 40).trim() + ') is ' + (w.scrollWidth - w.clientWidth) + ' px wider than its box');
    }
  }
  if (!wide) {
    for (const t of [...document.querySelectorAll('table.cards')].filter(shown)) out.push(...(` + tableFits + `)(t));
  }
  return out.join('\n');
})`

// checkPage fails the test when the page at width px scrolls sideways or
// breaks the design rules (designRules), or, with REDIRECTS_TEST_AXE set,
// when axe-core finds a serious or critical violation.
func (b *browser) checkPage(name string, width int64) {
	b.t.Helper()
	if msg := get(b, chromedp.Evaluate[string](overflowing)); msg != "" {
		b.t.Errorf("%s at %d px: %s", name, width, msg)
	}
	if msg := get(b, chromedp.Evaluate[string](fmt.Sprintf("%s(%t)", designRules, width >= 1280))); msg != "" {
		b.t.Errorf("%s at %d px: %s", name, width, strings.ReplaceAll(msg, "\n", "\n    "))
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
