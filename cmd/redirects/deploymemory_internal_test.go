package main

import (
	"testing"

	"redirects"
	"redirects/internal/rulegen"
)

// TestDeployBuilderStreams checks that the builder every deploy of the
// binary uses (the CLI's, and the one serve hands the management API, the
// dashboard and the edge) renders the export files one at a time: none at
// once, all seven through Each. Build, which renders and holds all seven,
// took a million-rule deploy to 1.9 GB (BENCHMARKS.md, "Deploy memory").
func TestDeployBuilderStreams(t *testing.T) {
	c, err := builder(rulegen.Rules(200, 0.5, 1), redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exports) != 0 || c.Each == nil {
		t.Fatalf("the deploy's builder returned %d files at once (Each %v): want none, each rendered when the store writes it", len(c.Exports), c.Each != nil)
	}
	n := 0
	if err := c.Range(func(*redirects.Export) error { n++; return nil }); err != nil || n != len(redirects.Formats) {
		t.Fatalf("ranged over %d files, %v; want %d", n, err, len(redirects.Formats))
	}
}
