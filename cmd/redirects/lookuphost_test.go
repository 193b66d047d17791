package main_test

import (
	"context"
	"strings"
	"testing"

	"redirects"
	"redirects/postgres"
	"redirects/sqlite"
)

// TestLookupHostRules: `redirects lookup --host` answers host-scoped,
// pattern and conditional rules as the edge does (with the database, and
// through the management API under REDIRECTS_TEST_E2E_STORE=api); without
// --host only rules without a host answer.
func TestLookupHostRules(t *testing.T) {
	c := newCLI(t)
	org := c.ok("org", "create", "--name", "Acme", "--tier", "pro")
	p := c.ok("project", "create", "--org", org, "--name", "www")
	ctx := context.Background()
	var (
		s   redirects.Store
		err error
	)
	if path, ok := strings.CutPrefix(c.db, "sqlite:"); ok {
		s, err = sqlite.Open(ctx, path)
	} else {
		s, err = postgres.Open(ctx, c.db)
	}
	if err != nil {
		t.Fatalf("open %s: %v", c.db, err)
	}
	for _, r := range []redirects.Rule{
		{Source: "/old", Destination: "/new", MatchType: redirects.Exact},
		{Source: "/old", Destination: "/shop-new", MatchType: redirects.Exact, Host: "shop.example.com"},
		{Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", MatchType: redirects.Pattern, PreserveQuery: true},
		{Source: "/index.php?p=:id", Destination: "/posts/:id", MatchType: redirects.Exact},
	} {
		r.ProjectID, r.StatusCode, r.Priority = p, 301, 100
		if err := s.AddRule(ctx, &r); err != nil {
			t.Fatalf("AddRule %+v: %v", r, err)
		}
	}
	s.Close()
	c.ok("deploy", "--project", p)
	for _, tc := range []struct{ host, path, want string }{
		{"", "/old", `{"destination":"/new","statusCode":301,"matchType":"exact"}`},
		{"SHOP.Example.com:443", "/old", `{"destination":"/shop-new","statusCode":301,"matchType":"exact"}`},
		{"www.example.com", "/old", `{"destination":"/new","statusCode":301,"matchType":"exact"}`},
		{"", "/en/guide/a/b?x=1", `{"destination":"/en/docs/a/b?x=1","statusCode":301,"matchType":"pattern"}`},
		{"", "/index.php?p=7", `{"destination":"/posts/7","statusCode":301,"matchType":"exact"}`},
		{"", "/index.php", ``},
	} {
		args := []string{"lookup", "--project", p, "--path", tc.path}
		if tc.host != "" {
			args = append(args, "--host", tc.host)
		}
		if got := c.ok(args...); got != tc.want {
			t.Errorf("lookup %s on %q = %q, want %q", tc.path, tc.host, got, tc.want)
		}
	}
	c.fail(1, `--host "*.example.com" is not a host name`, "lookup", "--project", p, "--path", "/old", "--host", "*.example.com")
}
