package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/sqlite"
)

// bothSides runs the same commands on two databases made alike: one with
// --db, one through the management API of a real serve.
type bothSides struct {
	t                 *testing.T
	dbLocal, dbServed string
	pLocal, pServed   string
	api, token        string
}

func newBothSides(t *testing.T) *bothSides {
	t.Helper()
	dir := t.TempDir()
	b := &bothSides{t: t, dbLocal: "sqlite:" + filepath.Join(dir, "local.db"), dbServed: "sqlite:" + filepath.Join(dir, "served.db")}
	setup := func(db string) (org, project string) {
		org, _ = runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
		org = strings.TrimSpace(org)
		project, _ = runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
		return org, strings.TrimSpace(project)
	}
	_, b.pLocal = setup(b.dbLocal)
	org, pServed := setup(b.dbServed)
	b.pServed = pServed
	token, _ := runCLI(t, b.dbServed, 0, "token", "create", "--org", org, "--role", "owner", "--name", "cli")
	b.token = strings.TrimSpace(token)
	addr := freeAddr(t)
	start(t, b.dbServed, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	b.api = "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(b.api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	return b
}

var bothTimes = regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`)

// run runs args (P: the side's project) on both sides, requires the same
// exit code, stdout and stderr of both (times and project IDs aside), and
// returns the --db side's.
func (b *bothSides) run(args ...string) (stdout, stderr string) {
	b.t.Helper()
	argsFor := func(p string) []string {
		out := make([]string, len(args))
		for i, a := range args {
			if a == "P" {
				a = p
			}
			out[i] = a
		}
		return out
	}
	lo, le, lc := inProcess(b.t, b.dbLocal, "", argsFor(b.pLocal)...)
	m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
	ro, re, rc := runMain(b.t, m, append([]string{"--api", b.api, "--token", b.token}, argsFor(b.pServed)...))
	what := strings.Join(args, " ")
	clean := func(s, p string) string { return bothTimes.ReplaceAllString(strings.ReplaceAll(s, p, "P"), "T") }
	if lc != rc {
		b.t.Errorf("%s: exit %d with --db, %d through the API\n--db: %s%s\n--api: %s%s", what, lc, rc, lo, le, ro, re)
	}
	if x, y := clean(lo, b.pLocal), clean(ro, b.pServed); x != y {
		b.t.Errorf("%s: stdout differs\n--db:\n%s\n--api:\n%s", what, x, y)
	}
	if x, y := clean(le, b.pLocal), clean(re, b.pServed); x != y {
		b.t.Errorf("%s: stderr differs\n--db:\n%s\n--api:\n%s", what, x, y)
	}
	return clean(lo, b.pLocal), clean(le, b.pLocal)
}

// store calls fn with each side's store and project.
func (b *bothSides) store(fn func(s redirects.Store, project string)) {
	b.t.Helper()
	for _, side := range []struct{ db, p string }{{b.dbLocal, b.pLocal}, {b.dbServed, b.pServed}} {
		s, err := sqlite.Open(context.Background(), strings.TrimPrefix(side.db, "sqlite:"))
		if err != nil {
			b.t.Fatalf("open %s: %v", side.db, err)
		}
		fn(s, side.p)
		s.Close()
	}
}

func wantHas(t *testing.T, what, got string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Errorf("%s: %q does not hold %q", what, got, p)
		}
	}
}

// wantLine requires a line of got matching each of res, whole.
func wantLine(t *testing.T, what, got string, res ...string) {
	t.Helper()
	for _, re := range res {
		if !regexp.MustCompile(`(?m)^` + re + ` *$`).MatchString(got) {
			t.Errorf("%s: no line matches %q in\n%s", what, re, got)
		}
	}
}

func wantHasNot(t *testing.T, what, got string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(got, p) {
			t.Errorf("%s: %q holds %q", what, got, p)
		}
	}
}

// TestDeployCountsKindsBoth checks that deploy, deployments and promote
// count pattern and regex rules apart from starts_with rules, with --db and
// through the API alike, and that a project without them prints as before.
func TestDeployCountsKindsBoth(t *testing.T) {
	b := newBothSides(t)
	b.run("rule", "add", "--project", "P", "--source", "/old", "--destination", "/new")
	b.run("rule", "add", "--project", "P", "--source", "/blog", "--destination", "/b", "--match", "starts_with")
	_, errs := b.run("deploy", "--project", "P")
	wantHas(t, "deploy without patterns", errs, "1 exact and 1 prefix rules")
	out, _ := b.run("deployments", "--project", "P")
	wantLine(t, "deployments without patterns", out, `VERSION +CREATED +EXACT +PREFIX +MESSAGE`)
	wantHasNot(t, "deployments without patterns", out, "PATTERN", "REGEX")
	out, _ = b.run("deployments", "--project", "P", "--json")
	wantHasNot(t, "deployments --json without patterns", out, "patternRules", "regexRules")

	b.run("rule", "add", "--project", "P", "--match", "pattern", "--source", "/:lang/docs/*", "--destination", "/:lang/guide/:splat")
	b.run("rule", "add", "--project", "P", "--match", "pattern", "--source", "/v/:n", "--destination", "/version/:n")
	b.run("rule", "add", "--project", "P", "--match", "regex", "--source", `^/p/(\d+)$`, "--destination", "/posts/$1")
	_, errs = b.run("deploy", "--project", "P", "--stage")
	wantHas(t, "deploy --stage with patterns", errs, "1 exact, 1 prefix, 2 pattern and 1 regex rules")
	_, errs = b.run("promote", "--project", "P", "--version", "2")
	wantHas(t, "promote", errs, "1 exact, 1 prefix, 2 pattern and 1 regex rules")
	out, _ = b.run("deployments", "--project", "P")
	wantLine(t, "deployments with patterns", out, `VERSION +CREATED +EXACT +PREFIX +PATTERN +REGEX +MESSAGE`)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !regexp.MustCompile(`^1 +T +1 +1 +0 +0 *$`).MatchString(lines[1]) ||
		!regexp.MustCompile(`^2 +T +1 +1 +2 +1 *$`).MatchString(lines[2]) {
		t.Errorf("deployments with patterns: want version 1 with 0 pattern and 0 regex rules, version 2 with 2 and 1:\n%s", out)
	}
	out, _ = b.run("deployments", "--project", "P", "--json")
	wantHas(t, "deployments --json with patterns", out, `"prefixRules": 1,
    "patternRules": 2,
    "regexRules": 1,`)
	if n := strings.Count(out, "patternRules"); n != 1 {
		t.Errorf("deployments --json: patternRules %d times, want once (left out of version 1):\n%s", n, out)
	}
}

// TestMissesAndHitsHostsBoth checks that misses and hits carry the host:
// a HOST column (and "host" with --json) when a miss or a rule has one,
// none before, with --db and through the API alike; that hits count per
// host; and that a rule made of a miss through the API takes its host.
func TestMissesAndHitsHostsBoth(t *testing.T) {
	b := newBothSides(t)
	b.run("rule", "add", "--project", "P", "--source", "/moved", "--destination", "/here")
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	b.store(func(s redirects.Store, p string) {
		if err := s.AddMisses(context.Background(), []redirects.Miss{{ProjectID: p, Path: "/gone", Count: 5, FirstSeen: t0, LastSeen: t0}}); err != nil {
			t.Fatalf("AddMisses: %v", err)
		}
		if err := s.AddHits(context.Background(), []redirects.RuleHits{{ProjectID: p, MatchType: redirects.Exact, Source: "/moved", Hits: 4, LastHit: t0}}); err != nil {
			t.Fatalf("AddHits: %v", err)
		}
	})
	out, _ := b.run("misses", "--project", "P")
	wantLine(t, "misses without hosts", out, `COUNT +FIRST SEEN +LAST SEEN +PATH`, `5 +T +T +/gone`)
	wantHasNot(t, "misses without hosts", out, "HOST")
	out, _ = b.run("misses", "--project", "P", "--json")
	wantHasNot(t, "misses --json without hosts", out, `"host"`)
	out, _ = b.run("hits", "--project", "P")
	wantLine(t, "hits without hosts", out, `HITS +LAST HIT +MATCH +SOURCE +DESTINATION`, `4 +T +exact +/moved +/here`)
	wantHasNot(t, "hits without hosts", out, "HOST")

	b.run("rule", "add", "--project", "P", "--source", "/moved", "--destination", "/shop", "--host", "shop.example.com")
	b.store(func(s redirects.Store, p string) {
		if err := s.AddMisses(context.Background(), []redirects.Miss{{ProjectID: p, Host: "shop.example.com", Path: "/gone", Count: 7, FirstSeen: t0, LastSeen: t0}}); err != nil {
			t.Fatalf("AddMisses: %v", err)
		}
		if err := s.AddHits(context.Background(), []redirects.RuleHits{{ProjectID: p, MatchType: redirects.Exact, Host: "shop.example.com", Source: "/moved", Hits: 9, LastHit: t0}}); err != nil {
			t.Fatalf("AddHits: %v", err)
		}
	})
	out, _ = b.run("misses", "--project", "P")
	if !regexp.MustCompile(`(?m)^COUNT +FIRST SEEN +LAST SEEN +HOST +PATH\n7 +T +T +shop\.example\.com +/gone\n5 +T +T +- +/gone$`).MatchString(out) {
		t.Errorf("misses with a host: want a HOST column, the shop's 7 first, then 5 without a host:\n%s", out)
	}
	out, _ = b.run("misses", "--project", "P", "--json")
	if n := strings.Count(out, `"host": "shop.example.com"`); n != 1 || strings.Count(out, `"host"`) != 1 {
		t.Errorf("misses --json: want the one miss with a host to name it:\n%s", out)
	}
	out, _ = b.run("hits", "--project", "P")
	if !regexp.MustCompile(`(?m)^HITS +LAST HIT +MATCH +HOST +SOURCE +DESTINATION$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^4 +T +exact +- +/moved +/here$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^9 +T +exact +shop\.example\.com +/moved +/shop$`).MatchString(out) {
		t.Errorf("hits with a host: want 4 hits for the rule of every host and 9 for the shop's:\n%s", out)
	}
	out, _ = b.run("hits", "--project", "P", "--json")
	wantHas(t, "hits --json", out, `"hits": 9,`, `"host": "shop.example.com"`)

	// A rule made of the shop's miss, through the API, is the shop's.
	body, _ := json.Marshal(map[string]any{"path": "/gone", "destination": "/found", "host": "SHOP.example.com"})
	req, _ := http.NewRequest("POST", b.api+"/manage/v1/projects/"+b.pServed+"/misses/rule", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+b.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var made struct {
		Host string `json:"host"`
	}
	json.NewDecoder(res.Body).Decode(&made)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || made.Host != "shop.example.com" {
		t.Fatalf("POST misses/rule with a host = %d, host %q; want 201, shop.example.com", res.StatusCode, made.Host)
	}
}

// TestRuleDeleteHostBoth checks that rule delete --all-matching --host
// deletes the same rules with --db and through the API: those of that host
// only, whatever their match type, and that rule list orders rules that
// share a source on several hosts alike on both sides.
func TestRuleDeleteHostBoth(t *testing.T) {
	b := newBothSides(t)
	var out string
	for _, r := range [][]string{
		{"--source", "/same", "--destination", "/b", "--host", "b.example.com"},
		{"--source", "/same", "--destination", "/none"},
		{"--source", "/same", "--destination", "/wild", "--host", "*.example.com"},
		{"--source", "/same", "--destination", "/a", "--host", "a.example.com"},
		{"--source", "/other", "--destination", "/a2", "--host", "a.example.com"},
		{"--source", "/docs/:x", "--destination", "/d/:x", "--match", "pattern", "--host", "a.example.com"},
		{"--source", "/other", "--destination", "/o"},
		{"--source", "/same", "--destination", "/c", "--host", "c.example.com", "--match", "starts_with"},
	} {
		b.run(append([]string{"rule", "add", "--project", "P"}, r...)...)
	}
	out, _ = b.run("rule", "list", "--project", "P")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 9 {
		t.Fatalf("rule list: %d lines, want a header and 8 rules:\n%s", len(lines), out)
	}
	b.run("rule", "list", "--project", "P", "--json")
	b.run("rule", "list", "--project", "P", "--limit", "3", "--json")
	b.run("rule", "list", "--project", "P", "--search", "/same")
	b.run("rule", "list", "--project", "P", "--sort", "-source")
	b.run("rule", "list", "--project", "P", "--sort", "priority", "--limit", "4")
	b.run("rule", "list", "--project", "P", "--host", "a.example.com")

	out, errs := b.run("rule", "delete", "--project", "P", "--all-matching", "--host", "A.Example.com", "--yes")
	wantHas(t, "rule delete --host", out+errs, "3")
	out, _ = b.run("rule", "list", "--project", "P")
	wantHasNot(t, "rule list after deleting a.example.com's rules", out, "a.example.com", "/a2", "/docs/:x")
	wantHas(t, "rule list after deleting a.example.com's rules", out, "b.example.com", "*.example.com", "c.example.com", "/none", "/o")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 6 {
		t.Errorf("rule list after the delete: %d lines, want a header and 5 rules:\n%s", len(lines), out)
	}
	b.run("rule", "delete", "--project", "P", "--all-matching", "--host", "*.example.com", "--search", "/same", "--yes")
	out, _ = b.run("rule", "list", "--project", "P")
	wantHasNot(t, "rule list after deleting *.example.com's rule", out, "*.example.com", "/wild")
	wantHas(t, "rule list after deleting *.example.com's rule", out, "b.example.com", "c.example.com", "/none", "/o")
}
