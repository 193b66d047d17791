package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestREADMEScreenshotsComeFromTheSuite: every screenshot the README shows
// is one the browser suite writes (readmeShots), and docs/screenshots holds
// no other, so none can go stale unnoticed: running the suite with
// REDIRECTS_README_SCREENSHOTS rewrites them all.
func TestREADMEScreenshotsComeFromTheSuite(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, m := range regexp.MustCompile(`\]\(docs/screenshots/([^)]+)\)`).FindAllStringSubmatch(string(readme), -1) {
		shown = append(shown, m[1])
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
		t.Fatalf("the README shows %v, the browser suite writes %v, docs/screenshots holds %v: they must be the same", shown, written, stored)
	}
}
