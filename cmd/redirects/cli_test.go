package main_test

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOrgsAndProjects(t *testing.T) {
	c := newCLI(t)
	org := c.ok("org", "create", "--name", "Acme Inc", "--tier", "free")
	mustMatch(t, "org ID", `^org_[0-9A-Za-z]{16}$`, org)
	custom := c.ok("org", "create", "--name", "Big", "--tier", "pro", "--rate-limit", "5", "--monthly-quota", "unlimited")

	var orgs []struct {
		ID, Name, Tier, RateLimit, MonthlyQuota string
		RateLimitOverride                       bool
	}
	c.jsonOf(&orgs, "org", "list", "--json")
	if len(orgs) != 2 || orgs[0].ID != org || orgs[1].ID != custom {
		t.Fatalf("org list --json = %+v, want %s then %s", orgs, org, custom)
	}
	if o := orgs[0]; o.Name != "Acme Inc" || o.Tier != "free" || o.RateLimit != "100" || o.MonthlyQuota != "10000" || o.RateLimitOverride {
		t.Fatalf("free org = %+v, want the free tier's 100/min and 10000/month", o)
	}
	if o := orgs[1]; o.RateLimit != "5" || o.MonthlyQuota != "unlimited" || !o.RateLimitOverride {
		t.Fatalf("custom org = %+v, want overrides 5/min and unlimited/month", o)
	}

	if out := c.ok("org", "update", org, "--tier", "enterprise"); out != "" {
		t.Fatalf("org update printed %q on stdout, want nothing", out)
	}
	c.ok("org", "update", custom, "--rate-limit", "default")
	c.jsonOf(&orgs, "org", "list", "--json")
	if orgs[0].Tier != "enterprise" || orgs[0].RateLimit != "unlimited" || orgs[0].MonthlyQuota != "unlimited" {
		t.Fatalf("after update to enterprise: %+v", orgs[0])
	}
	if orgs[1].RateLimit != "1000" || orgs[1].RateLimitOverride || orgs[1].MonthlyQuota != "unlimited" {
		t.Fatalf("after dropping the rate override: %+v, want pro's 1000/min and the quota override kept", orgs[1])
	}
	if table := c.ok("org", "list"); !strings.Contains(table, org) || !strings.Contains(table, "Acme Inc") {
		t.Fatalf("org list table lacks the org:\n%s", table)
	}

	p1 := c.ok("project", "create", "--org", org, "--name", "www")
	mustMatch(t, "project ID", `^prj_[0-9A-Za-z]{16}$`, p1)
	p2 := c.ok("project", "create", "--org", custom, "--name", "shop")
	var projects []struct{ ID, OrgID, Name string }
	c.jsonOf(&projects, "project", "list", "--json")
	if len(projects) != 2 {
		t.Fatalf("project list --json = %+v, want 2 projects", projects)
	}
	c.jsonOf(&projects, "project", "list", "--org", custom, "--json")
	if len(projects) != 1 || projects[0].ID != p2 || projects[0].Name != "shop" || projects[0].OrgID != custom {
		t.Fatalf("project list --org = %+v, want only %s", projects, p2)
	}
}

func TestRulesKeysDeployLookupExport(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()

	id := c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	mustMatch(t, "rule ID", `^[1-9][0-9]*$`, id)
	c.ok("rule", "add", "--project", p, "--source", "/blog", "--destination", "https://blog.example.com/?from=old", "--match", "starts_with", "--status", "302", "--priority", "10")
	c.ok("rule", "add", "--project", p, "--source", "/blog/keep", "--destination", "/kept", "--match", "starts_with", "--priority", "50")
	doomed := c.ok("rule", "add", "--project", p, "--source", "/doomed", "--destination", "/x")
	if out := c.ok("rule", "delete", "--project", p, doomed); out != "" {
		t.Fatalf("rule delete printed %q", out)
	}

	csvFile := filepath.Join(t.TempDir(), "rules.csv")
	os.WriteFile(csvFile, []byte("source,destination,statusCode,matchType,priority\n/a,/b,301,exact,\n/shop,/store,302,starts_with,5\n\"/c,d\",/e,301,exact,\n"), 0o644)
	if n := c.ok("rule", "import", "--project", p, csvFile); n != "3" {
		t.Fatalf("rule import printed %q, want 3", n)
	}
	r := c.exec("source,destination,statusCode,matchType\n/from-stdin,/yes,301,exact\n", "rule", "import", "--project", p, "-")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("rule import - : exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}

	var rules []struct {
		ID                             int64
		Source, Destination, MatchType string
		StatusCode, Priority           int
	}
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	got := map[string]string{}
	for _, r := range rules {
		got[r.Source] = r.MatchType + " " + r.Destination
	}
	want := map[string]string{"/old": "exact /new", "/a": "exact /b", "/c,d": "exact /e", "/from-stdin": "exact /yes",
		"/blog": "starts_with https://blog.example.com/?from=old", "/blog/keep": "starts_with /kept", "/shop": "starts_with /store"}
	if len(got) != len(want) {
		t.Fatalf("rule list = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("rule %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}

	// Keys: the full key once, never again.
	key := c.ok("key", "create", "--project", p, "--name", "edge")
	mustMatch(t, "live key", `^redir_live_[0-9A-Za-z]{32}$`, key)
	test := c.ok("key", "create", "--project", p, "--test")
	mustMatch(t, "test key", `^redir_test_[0-9A-Za-z]{32}$`, test)
	var keys []struct {
		ID, Name, Mode, Last4 string
		RevokedAt             *string
	}
	listing := c.ok("key", "list", "--project", p, "--json")
	if strings.Contains(listing, key[11:]) || strings.Contains(listing, test[11:]) {
		t.Fatalf("key list shows a full key:\n%s", listing)
	}
	c.jsonOf(&keys, "key", "list", "--project", p, "--json")
	if len(keys) != 2 || keys[0].Mode != "live" || keys[0].Last4 != key[len(key)-4:] || keys[0].Name != "edge" || keys[1].Mode != "test" {
		t.Fatalf("key list = %+v", keys)
	}
	c.ok("key", "revoke", "--project", p, keys[0].ID)
	c.ok("key", "revoke", "--project", p, test)
	c.jsonOf(&keys, "key", "list", "--project", p, "--json")
	if keys[0].RevokedAt == nil || keys[1].RevokedAt == nil {
		t.Fatalf("keys after revoking by ID and by full key: %+v", keys)
	}

	// Lookup before any deployment is an error that says so.
	c.fail(1, "no deployment", "lookup", "--project", p, "--path", "/old")

	if v := c.ok("deploy", "--project", p, "--message", "first"); v != "1" {
		t.Fatalf("deploy printed %q, want 1", v)
	}
	for path, want := range map[string]string{
		"/old":            `{"destination":"/new","statusCode":301,"matchType":"exact"}`,
		"/old?utm=x":      `{"destination":"/new","statusCode":301,"matchType":"exact"}`,
		"/blog/2020/a":    `{"destination":"https://blog.example.com/?from=old","statusCode":302,"matchType":"starts_with"}`,
		"/blog/keep/this": `{"destination":"https://blog.example.com/?from=old","statusCode":302,"matchType":"starts_with"}`,
		"/shopping":       `{"destination":"/store","statusCode":302,"matchType":"starts_with"}`,
		"/c,d":            `{"destination":"/e","statusCode":301,"matchType":"exact"}`,
		"/nothing":        ``,
		"/doomed":         ``,
	} {
		if got := c.ok("lookup", "--project", p, "--path", path); got != want {
			t.Errorf("lookup %s = %q, want %q", path, got, want)
		}
	}

	// Drafts change; version 1 does not.
	c.ok("rule", "add", "--project", p, "--source", "/nothing", "--destination", "/something")
	if got := c.ok("lookup", "--project", p, "--path", "/nothing"); got != "" {
		t.Fatalf("an undeployed draft rule answered: %s", got)
	}
	if v := c.ok("deploy", "--project", p); v != "2" {
		t.Fatalf("second deploy printed %q, want 2", v)
	}
	if got := c.ok("lookup", "--project", p, "--path", "/nothing"); !strings.Contains(got, "/something") {
		t.Fatalf("version 2 lookup = %q", got)
	}
	if got := c.ok("lookup", "--project", p, "--path", "/nothing", "--version", "1"); got != "" {
		t.Fatalf("version 1 lookup = %q, want no match", got)
	}
	if v := c.ok("deploy", "--project", p, "--from-version", "1", "--message", "rollback"); v != "3" {
		t.Fatalf("rollback deploy printed %q, want 3", v)
	}
	if got := c.ok("lookup", "--project", p, "--path", "/nothing"); got != "" {
		t.Fatalf("after rollback to v1 the v2 rule still answers: %s", got)
	}
	var deps []struct {
		Version, ExactRules, PrefixRules int
		Message                          string
		FromVersion                      *int
	}
	c.jsonOf(&deps, "deployments", "--project", p, "--json")
	if len(deps) != 3 || deps[0].Version != 1 || deps[0].Message != "first" || deps[0].ExactRules != 4 || deps[0].PrefixRules != 3 ||
		deps[1].ExactRules != 5 || deps[2].FromVersion == nil || *deps[2].FromVersion != 1 || deps[2].ExactRules != 4 {
		t.Fatalf("deployments = %+v", deps)
	}
	if table := c.ok("deployments", "--project", p); !strings.Contains(table, "rollback") {
		t.Fatalf("deployments table:\n%s", table)
	}

	// Export: the CSV of version 2 re-imports into an equal rule set.
	out := strings.ReplaceAll(c.ok("export", "--project", p, "--format", "csv", "--version", "2"), "\r\n", "\n")
	if !strings.HasPrefix(out, "source,destination,statusCode,matchType\n") || !strings.Contains(out, "\"/c,d\",/e,301,exact") {
		t.Fatalf("csv export:\n%s", out)
	}
	_, p2 := c.setup()
	if n := c.exec(out+"\n", "rule", "import", "--project", p2, "-"); strings.TrimSpace(n.stdout) != "8" {
		t.Fatalf("re-import of the csv export: %+v", n)
	}
	// The same rules, priority aside (the spec's CSV has no column for it).
	ruleSet := func(project string) map[string]string {
		var rs []struct {
			Source, Destination, MatchType string
			StatusCode                     int
		}
		c.jsonOf(&rs, "rule", "list", "--project", project, "--json")
		m := map[string]string{}
		for _, r := range rs {
			m[r.MatchType+" "+r.Source] = fmt.Sprintf("%s %d", r.Destination, r.StatusCode)
		}
		return m
	}
	v2 := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		rec, err := csv.NewReader(strings.NewReader(line)).Read()
		if err != nil {
			t.Fatalf("csv export line %q: %v", line, err)
		}
		v2[rec[3]+" "+rec[0]] = rec[1] + " " + rec[2]
	}
	// p's drafts are still version 2's rules (the rollback left them).
	if want := ruleSet(p); !reflect.DeepEqual(v2, want) {
		t.Fatalf("csv export of v2 holds %v, want the rules %v", v2, want)
	}
	if got, want := ruleSet(p2), ruleSet(p); !reflect.DeepEqual(got, want) {
		t.Fatalf("re-imported rules %v, want %v", got, want)
	}
	for _, f := range []string{"nginx", "nginx-map-exact", "nginx-map-prefix", "haproxy", "haproxy-map-exact", "haproxy-map-prefix"} {
		if out := c.ok("export", "--project", p, "--format", f); !strings.Contains(out, "/new") && !strings.Contains(out, "/store") {
			t.Errorf("export %s lacks the rules:\n%s", f, out)
		}
	}
}

func TestDBFlagAndEnvironment(t *testing.T) {
	c := newCLI(t)
	c.ok("org", "create", "--name", "Y", "--tier", "free") // REDIRECTS_DB's database exists
	other := "sqlite:" + filepath.Join(t.TempDir(), "other.db")
	org := c.ok("--db", other, "org", "create", "--name", "X", "--tier", "free")
	if out := c.ok("org", "list"); strings.Contains(out, org) {
		t.Fatalf("--db before the command was ignored: the org is in REDIRECTS_DB's database")
	}
	if out := c.ok("org", "list", "--db", other); !strings.Contains(out, org) {
		t.Fatalf("--db after the command was ignored:\n%s", out)
	}
	c.fail(1, "is neither sqlite:PATH nor postgres://...", "--db", "mysql://x", "org", "list")
}
