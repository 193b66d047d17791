package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestREADMEScreenshotsComeFromTheSuite: every screenshot the README and
// docs/dashboard.md show is one the browser suite writes (readmeShots),
// docs/dashboard.md shows them all, and docs/screenshots holds no other, so
// none can go stale unnoticed: running the suite with
// REDIRECTS_README_SCREENSHOTS rewrites them all. The README shows at least
// one.
func TestREADMEScreenshotsComeFromTheSuite(t *testing.T) {
	shownIn := func(file, prefix string) []string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var shown []string
		for _, m := range regexp.MustCompile(`\]\(`+regexp.QuoteMeta(prefix)+`([^)]+)\)`).FindAllStringSubmatch(string(b), -1) {
			shown = append(shown, m[1])
		}
		return shown
	}
	inREADME := shownIn("../../README.md", "docs/screenshots/")
	if len(inREADME) == 0 {
		t.Error("the README shows no screenshot")
	}
	shown := shownIn("../../docs/dashboard.md", "screenshots/")
	for _, f := range inREADME {
		if !slices.Contains(shown, f) {
			t.Errorf("the README shows %s, which docs/dashboard.md does not", f)
		}
	}
	var written []string
	for _, f := range readmeShots {
		written = append(written, f)
	}
	files, _ := filepath.Glob("../../docs/screenshots/*")
	var stored []string
	for _, f := range files {
		stored = append(stored, filepath.Base(f))
	}
	slices.Sort(shown)
	slices.Sort(written)
	slices.Sort(stored)
	if !slices.Equal(shown, written) || !slices.Equal(stored, written) {
		t.Fatalf("docs/dashboard.md shows %v, the browser suite writes %v, docs/screenshots holds %v: they must be the same", shown, written, stored)
	}
}
