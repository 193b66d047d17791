package ui

import (
	"context"
	"net/http"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/service"
)

// TestPrunedExportIsRenderedAgain (finding 9): the export of a version
// whose files the retention pruned downloads from the dashboard as the
// CLI and the edge render it (redirects.FindExport), byte for byte the
// file it had, not 404.
func TestPrunedExportIsRenderedAgain(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.db.SetExportRetention(ctx, e.project.ID, 1); err != nil {
		t.Fatal(err)
	}
	var first string
	for i, dest := range []string{"/a", "/b"} {
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/r" + dest, Destination: dest, StatusCode: 301, MatchType: redirects.Exact, Priority: 100}); err != nil {
			t.Fatal(err)
		}
		if _, err := service.DeployUnchecked(ctx, e.db, e.project.ID, redirects.DeployOptions{Message: "v"}, export.Build); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			res, body := e.do("GET", "/projects/"+e.project.ID+"/versions/1/exports/nginx", nil, true)
			if res.StatusCode != 200 {
				t.Fatalf("version 1's export before pruning: %d", res.StatusCode)
			}
			first = body
		}
	}
	if _, _, err := e.db.FindExport(ctx, e.project.ID, 1, "nginx"); !redirects.IsExportsPruned(err) {
		t.Fatalf("version 1's files were not pruned: %v", err)
	}
	res, body := e.do("GET", "/projects/"+e.project.ID+"/versions/1/exports/nginx", nil, true)
	if res.StatusCode != http.StatusOK || body != first {
		t.Fatalf("a pruned version's export: %d %q, want 200 and the file it had %q", res.StatusCode, body, first)
	}
}
