package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// rulePage is the --json shape of a rule page.
type rulePage struct {
	Rules []struct {
		ID                             int64
		Source, Destination, MatchType string
		StatusCode, Priority           int
		Revision                       int64
	}
	Next  *string
	Total int
}

func (p *rulePage) sources() []string {
	var out []string
	for _, r := range p.Rules {
		out = append(out, r.Source)
	}
	return out
}

// importRules imports sources (a trailing * makes a starts_with rule) with
// destinations /to<source>.
func (c *cli) importRules(project string, sources ...string) {
	c.t.Helper()
	var b strings.Builder
	b.WriteString("source,destination,statusCode,matchType\n")
	for _, s := range sources {
		m := "exact"
		if strings.HasSuffix(s, "*") {
			s, m = strings.TrimSuffix(s, "*"), "starts_with"
		}
		fmt.Fprintf(&b, "%s,/to%s,301,%s\n", s, s, m)
	}
	f := filepath.Join(c.t.TempDir(), "rules.csv")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.ok("rule", "import", "--project", project, f)
}

func TestRuleListPages(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.importRules(p, "/c", "/a", "/b", "/blog/x", "/blog*", "/shop")

	// Without the new flags: the full listing, as it always was.
	full := c.ok("rule", "list", "--project", p)
	if lines := strings.Split(full, "\n"); len(lines) != 7 || !strings.HasPrefix(lines[0], "ID  ") || strings.Contains(lines[0], "REVISION") {
		t.Fatalf("rule list =\n%s\nwant the header and 6 rules, without revisions", full)
	}

	// Pages of 2, by source, visit every rule once; the cursor is on stderr.
	var seen []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages of 2 for 6 rules: %v", seen)
		}
		args := []string{"rule", "list", "--project", p, "--limit", "2"}
		if after != "" {
			args = append(args, "--after", after)
		}
		r := c.exec("", args...)
		if r.code != 0 {
			t.Fatalf("rule list --limit 2: exit %d: %s", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if !strings.Contains(lines[0], "REVISION") || len(lines) != 3 {
			t.Fatalf("page %d =\n%s\nwant a header with REVISION and 2 rules", pages, r.stdout)
		}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			seen = append(seen, f[5])
		}
		_, next, ok := strings.Cut(strings.TrimSpace(r.stderr), "next page: --after ")
		if !ok {
			if !strings.Contains(r.stderr, "2 of 6 rules; last page") {
				t.Fatalf("last page stderr %q, want the count and \"last page\"", r.stderr)
			}
			break
		}
		after = next
	}
	if want := []string{"/a", "/b", "/blog", "/blog/x", "/c", "/shop"}; !slices.Equal(seen, want) {
		t.Fatalf("pages gave %v, want %v", seen, want)
	}

	var page rulePage
	c.jsonOf(&page, "rule", "list", "--project", p, "--search", "/blog", "--json")
	if page.Total != 2 || page.Next != nil || !slices.Equal(page.sources(), []string{"/blog", "/blog/x"}) || page.Rules[0].Revision != 1 {
		t.Fatalf("--search /blog = %+v, want /blog and /blog/x at revision 1, total 2, next null", page)
	}
	c.jsonOf(&page, "rule", "list", "--project", p, "--search", "/b*", "--match", "exact", "--sort", "-source", "--limit", "1", "--json")
	if page.Total != 2 || page.Next == nil || !slices.Equal(page.sources(), []string{"/blog/x"}) {
		t.Fatalf("--search /b* --match exact --sort -source --limit 1 = %+v, want /blog/x of 2 and a cursor", page)
	}
	c.jsonOf(&page, "rule", "list", "--project", p, "--search", "/b*", "--match", "exact", "--sort", "-source", "--limit", "1", "--after", *page.Next, "--json")
	if page.Total != 2 || page.Next != nil || !slices.Equal(page.sources(), []string{"/b"}) {
		t.Fatalf("second page = %+v, want /b and no cursor", page)
	}

	c.fail(1, "cursor", "rule", "list", "--project", p, "--limit", "2", "--after", "garbage!")
	c.fail(1, "sort", "rule", "list", "--project", p, "--sort", "destination")
	c.fail(1, "limit", "rule", "list", "--project", p, "--limit", "5000")
	c.fail(1, "matchType", "rule", "list", "--project", p, "--match", "glob")
	c.fail(1, "not found", "rule", "list", "--project", "prj_nope", "--limit", "2")
}

func TestRuleUpdateAndDelete(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	id := c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	other := c.ok("rule", "add", "--project", p, "--source", "/taken", "--destination", "/x")

	if rev := c.ok("rule", "update", "--project", p, id, "--destination", "/newer", "--status", "302", "--revision", "1"); rev != "2" {
		t.Fatalf("rule update printed %q, want the new revision 2", rev)
	}
	if rev := c.ok("rule", "update", "--project", p, id, "--priority", "7"); rev != "3" {
		t.Fatalf("rule update without --revision printed %q, want 3", rev)
	}
	c.fail(1, "revision 3", "rule", "update", "--project", p, id, "--destination", "/lost", "--revision", "2")
	c.fail(1, other, "rule", "update", "--project", p, id, "--source", "/taken")
	c.fail(1, "source", "rule", "update", "--project", p, id, "--source", "no-slash")
	c.fail(2, "at least one", "rule", "update", "--project", p, id)
	c.fail(1, "not found", "rule", "update", "--project", p, "99999", "--priority", "1")

	var page rulePage
	c.jsonOf(&page, "rule", "list", "--project", p, "--search", "/old", "--json")
	if len(page.Rules) != 1 || page.Rules[0].Destination != "/newer" || page.Rules[0].StatusCode != 302 || page.Rules[0].Priority != 7 || page.Rules[0].Revision != 3 {
		t.Fatalf("after the updates: %+v, want /newer 302 priority 7 at revision 3", page.Rules)
	}

	c.fail(1, "revision 3", "rule", "delete", "--project", p, id, "--revision", "1")
	if out := c.ok("rule", "delete", "--project", p, id, "--revision", "3"); out != "" {
		t.Fatalf("rule delete printed %q", out)
	}
	c.fail(1, "not found", "rule", "delete", "--project", p, id)

	// Bulk delete by filter needs --yes and deletes only what it selects.
	c.importRules(p, "/blog/a", "/blog/b", "/blog*", "/shop")
	c.fail(2, "--yes", "rule", "delete", "--project", p, "--all-matching", "--search", "/blog*")
	c.fail(2, "RULE_ID", "rule", "delete", "--project", p, "--search", "/blog*", "--yes")
	if n := c.ok("rule", "delete", "--project", p, "--all-matching", "--search", "/blog*", "--match", "exact", "--yes"); n != "2" {
		t.Fatalf("rule delete --all-matching printed %q, want 2", n)
	}
	c.jsonOf(&page, "rule", "list", "--project", p, "--sort", "source", "--json")
	if want := []string{"/blog", "/shop", "/taken"}; !slices.Equal(page.sources(), want) {
		t.Fatalf("after the bulk delete: %v, want %v", page.sources(), want)
	}
	if n := c.ok("rule", "delete", "--project", p, "--all-matching", "--yes"); n != "3" {
		t.Fatalf("rule delete --all-matching (no filter) printed %q, want 3", n)
	}
}

func TestProjectAndOrgDelete(t *testing.T) {
	c := newCLI(t)
	org, p, key := deployed(t, c)
	kept := c.ok("project", "create", "--org", org, "--name", "kept")
	c.ok("rule", "add", "--project", kept, "--source", "/k", "--destination", "/kk")
	c.ok("deploy", "--project", kept)
	keptKey := c.ok("key", "create", "--project", kept)
	e := startEdge(t, c)
	if r := e.get(lookupURL(p, "/old"), key); r.status != 200 {
		t.Fatalf("lookup before the delete: %d %s", r.status, r.body)
	}

	c.ok("project", "rename", "--project", p, "--name", "doomed")
	var projects []struct{ ID, Name string }
	c.jsonOf(&projects, "project", "list", "--org", org, "--json")
	if len(projects) != 2 || projects[0].Name != "doomed" {
		t.Fatalf("after the rename: %+v", projects)
	}
	c.fail(1, "name", "project", "rename", "--project", p, "--name", "bad\x01name")

	// The guard: a wrong name deletes nothing.
	c.fail(1, "nothing was deleted", "project", "delete", "--project", p, "--confirm", "www")
	c.fail(2, "--confirm", "project", "delete", "--project", p)
	c.ok("rule", "list", "--project", p)
	c.ok("project", "delete", "--project", p, "--confirm", "doomed")
	c.fail(1, "not found", "rule", "list", "--project", p)
	c.fail(1, "not found", "deployments", "--project", p)

	// The edge drops the project: its keys are gone (401, checked before the
	// project), and any other key is told the project is not found.
	within(t, 10*time.Second, "the edge dropping the deleted project", func() bool {
		return e.get(lookupURL(p, "/old"), key).status == 401
	})
	wantError(t, e.get(lookupURL(p, "/old"), keptKey), 404, "NOT_FOUND", "Project not found")
	if r := e.get(lookupURL(kept, "/k"), keptKey); r.status != 200 {
		t.Fatalf("lookup in the kept project: %d %s", r.status, r.body)
	}

	c.fail(1, "nothing was deleted", "org", "delete", org, "--confirm", "Wrong")
	c.ok("org", "delete", org, "--confirm", "Acme")
	c.fail(1, "not found", "project", "list", "--org", org)
	c.fail(1, "not found", "rule", "list", "--project", kept)
	within(t, 10*time.Second, "the edge dropping the deleted organization", func() bool {
		return e.get(lookupURL(kept, "/k"), keptKey).status == 401
	})
}
