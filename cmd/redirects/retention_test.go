package main_test

import (
	"context"
	"testing"

	"redirects"
)

func TestExportRetention(t *testing.T) { eachEngine(t, testExportRetention) }

// testExportRetention deploys three versions of a project that keeps one
// deployment's export files, and checks that version 1's files, pruned,
// come back from the edge and from `redirects export` with the bytes and
// ETag the deploy produced.
func testExportRetention(t *testing.T, c *cli) {
	_, p, key := deployed(t, c) // version 1
	e := startEdge(t, c)
	exportURL := func(version, format string) string {
		return "/v1/export?project=" + p + "&format=" + format + "&version=" + version
	}
	formats := []string{"csv", "nginx", "haproxy-map-prefix"}
	before := map[string]reply{}
	cli1 := map[string]string{}
	for _, f := range formats {
		r := e.get(exportURL("1", f), key)
		if r.status != 200 || r.header.Get("ETag") == "" {
			t.Fatalf("export of version 1 (%s): %d %s", f, r.status, r.body)
		}
		before[f] = r
		cli1[f] = c.ok("export", "--project", p, "--version", "1", "--format", f)
	}
	c.fail(2, "--keep-exports", "project", "update", "--project", p)
	c.fail(1, "export retention 0 is outside", "project", "update", "--project", p, "--keep-exports", "0")
	c.ok("project", "update", "--project", p, "--keep-exports", "1")
	var projects []struct {
		ID          string
		KeepExports int
	}
	c.jsonOf(&projects, "project", "list", "--json")
	if len(projects) != 1 || projects[0].KeepExports != 1 {
		t.Fatalf("project list --json = %+v", projects)
	}
	c.ok("rule", "add", "--project", p, "--source", "/two", "--destination", "/2")
	c.ok("deploy", "--project", p)
	c.ok("rule", "add", "--project", p, "--source", "/three", "--destination", "/3")
	c.ok("deploy", "--project", p)
	// The store keeps version 3's files only, and every version's rules.
	s := openAccounts(t, c).(redirects.Store)
	ctx := context.Background()
	for v := 1; v <= 3; v++ {
		_, _, err := s.FindExport(ctx, p, v, "csv")
		if pruned := redirects.IsExportsPruned(err); pruned != (v < 3) || (v == 3 && err != nil) {
			t.Fatalf("version %d: FindExport: %v", v, err)
		}
		if _, rules, err := s.FindDeployment(ctx, p, v); err != nil || len(rules) != v+1 {
			t.Fatalf("version %d: %d rules, %v; want %d", v, len(rules), err, v+1)
		}
	}

	// A fresh edge (nothing cached) renders version 1 again.
	e.stop()
	e = startEdge(t, c)
	for _, f := range formats {
		r := e.get(exportURL("1", f), key)
		if r.status != 200 || string(r.body) != string(before[f].body) || r.header.Get("ETag") != before[f].header.Get("ETag") {
			t.Fatalf("export of pruned version 1 (%s): %d, ETag %s (want %s), same bytes %v",
				f, r.status, r.header.Get("ETag"), before[f].header.Get("ETag"), string(r.body) == string(before[f].body))
		}
		if r := e.do("GET", exportURL("1", f), key, map[string]string{"If-None-Match": before[f].header.Get("ETag")}); r.status != 304 {
			t.Fatalf("If-None-Match on pruned version 1 (%s): %d", f, r.status)
		}
		if got := c.ok("export", "--project", p, "--version", "1", "--format", f); got != cli1[f] {
			t.Fatalf("redirects export of pruned version 1 (%s) differs from before pruning", f)
		}
	}
	if r := e.get(exportURL("9", "csv"), key); r.status != 404 {
		t.Fatalf("export of version 9: %d", r.status)
	}
}
