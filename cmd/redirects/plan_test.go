package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanApply: a project file applied twice changes nothing the second
// time (plan exits 0); an edit in the dashboard shows up in the next plan
// (exit 2) and the next apply undoes it; a file that fails lint or a test
// exits 1 from plan and apply, and apply changes nothing.
func TestPlanApply(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	p, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	p = strings.TrimSpace(p)
	dir := t.TempDir()
	file := filepath.Join(dir, "redirects.json")
	write := func(rules, tests string) {
		t.Helper()
		body := fmt.Sprintf(`{
  "project": %q,
  "settings": {"caseSensitive": false, "trailingSlash": "ignore"},
  "hosts": ["www.example.com"],
  "shrinkLimit": 50,
  "rules": [%s],
  "tests": [%s]
}`, p, rules, tests)
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const rules = `{"source": "/old", "destination": "/new"},
    {"source": "/docs/", "destination": "https://docs.example.com/", "matchType": "starts_with", "statusCode": 308, "preservePath": true},
    {"source": "/gone", "statusCode": 410}`
	const tests = `{"path": "/OLD", "statusCode": 301, "destination": "/new"}, {"path": "/docs/a/b", "statusCode": 308, "destination": "https://docs.example.com/a/b"}`
	write(rules, tests)

	out, _ := runCLI(t, db, 2, "plan", "-f", file)
	for _, want := range []string{"~ settings: caseSensitive=true trailingSlash=exact -> caseSensitive=false trailingSlash=ignore",
		"~ hosts: [] -> [www.example.com]", "~ shrinkLimit: 10 -> 50", "~ tests: 0 cases -> 2 cases",
		"draft: 3 to add, 0 to remove", "+ exact /old -> 301 /new", "deploy: nothing deployed -> a new version",
		"path /OLD: no redirect -> 301 /new", "tests: 2 cases, 0 failing"} {
		if !strings.Contains(out, want) {
			t.Errorf("first plan lacks %q:\n%s", want, out)
		}
	}
	if v, _ := runCLI(t, db, 0, "apply", "-f", file); !strings.HasSuffix(strings.TrimSpace(v), "\n1") && strings.TrimSpace(v) != "1" && !strings.Contains(v, "\n1\n") {
		t.Fatalf("apply printed %q, want version 1", v)
	}
	if got, _ := runCLI(t, db, 0, "lookup", "--project", p, "--path", "/DOCS/x"); !strings.Contains(got, "https://docs.example.com/x") {
		t.Fatalf("after apply, lookup of /DOCS/x: %s", got)
	}
	// Applied twice: nothing changes, and plan says so with exit 0.
	_, stderr := runCLI(t, db, 0, "apply", "-f", file)
	if !strings.Contains(stderr, "no changes") || deploymentCount(t, db, p) != 1 {
		t.Fatalf("second apply: %q, %d deployments", stderr, deploymentCount(t, db, p))
	}
	_, stderr = runCLI(t, db, 0, "plan", "-f", file)
	if !strings.Contains(stderr, "no changes") {
		t.Fatalf("plan after apply: %q", stderr)
	}
	var pj struct {
		Changes bool
		Draft   struct{ Unchanged int }
	}
	js, _ := runCLI(t, db, 0, "plan", "-f", file, "--json")
	if err := json.Unmarshal([]byte(js), &pj); err != nil || pj.Changes || pj.Draft.Unchanged != 3 {
		t.Fatalf("plan --json: %v %+v\n%s", err, pj, js)
	}

	// An edit in the dashboard (its form, over HTTP) shows up in the plan.
	base, client, csrf := signedIn(t, db, org)
	res, err := client.PostForm(base+"/projects/"+p+"/rules", url.Values{"csrf": {csrf}, "source": {"/manual"},
		"destination": {"/elsewhere"}, "status": {"302"}, "match": {"exact"}, "priority": {"100"}})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("dashboard rule create: %v %v", err, res)
	}
	res.Body.Close()
	out, _ = runCLI(t, db, 2, "plan", "-f", file)
	if !strings.Contains(out, "draft: 0 to add, 1 to remove, 0 to change, 3 unchanged") || !strings.Contains(out, "- exact /manual -> 302 /elsewhere") ||
		!strings.Contains(out, "deploy: none needed") {
		t.Fatalf("plan after the dashboard edit:\n%s", out)
	}
	runCLI(t, db, 0, "apply", "-f", file)
	if list, _ := runCLI(t, db, 0, "rule", "list", "--project", p); strings.Contains(list, "/manual") {
		t.Fatalf("apply kept the dashboard's rule:\n%s", list)
	}
	runCLI(t, db, 0, "plan", "-f", file)

	// A loop (lint error) and a failing test: exit 1, nothing applied.
	draftBefore, _ := runCLI(t, db, 0, "rule", "list", "--project", p, "--json")
	write(rules+`, {"source": "/a", "destination": "/b"}, {"source": "/b", "destination": "/a"}`, tests)
	out, stderr = runCLI(t, db, 1, "plan", "-f", file)
	if !strings.Contains(out, "lint: 2 errors") && !strings.Contains(out, "lint: 1 error") || !strings.Contains(stderr, "apply would refuse it") {
		t.Fatalf("plan of a loop:\n%s\n%s", out, stderr)
	}
	_, stderr = runCLI(t, db, 1, "apply", "-f", file)
	if !strings.Contains(stderr, "refused, nothing changed") {
		t.Fatalf("apply of a loop: %s", stderr)
	}
	write(rules, tests+`, {"path": "/old", "statusCode": 302, "destination": "/new"}`)
	out, _ = runCLI(t, db, 1, "plan", "-f", file)
	if !strings.Contains(out, "tests: 3 cases, 1 failing") || !strings.Contains(out, "FAIL  line 4: /old") {
		t.Fatalf("plan of a failing test:\n%s", out)
	}
	runCLI(t, db, 1, "apply", "-f", file)
	if after, _ := runCLI(t, db, 0, "rule", "list", "--project", p, "--json"); after != draftBefore || deploymentCount(t, db, p) != 1 {
		t.Fatalf("a refused apply changed the project: %d deployments", deploymentCount(t, db, p))
	}
	if tests, _ := runCLI(t, db, 0, "test", "--project", p); strings.Contains(tests, "302") {
		t.Fatalf("a refused apply stored its tests:\n%s", tests)
	}

	// Bad files name the problem and change nothing.
	os.WriteFile(file, []byte(`{"project": "`+p+`", "rules": [{"source": "no-slash", "destination": "/x"}], "extra": 1}`), 0o644)
	_, stderr = runCLI(t, db, 1, "plan", "-f", file)
	if !strings.Contains(stderr, `unknown field "extra"`) {
		t.Fatalf("unknown field: %s", stderr)
	}
	os.WriteFile(file, []byte(`{"project": "`+p+`", "rules": [{"source": "no-slash", "destination": "/x"}, {"source": "/y", "destination": "/z", "statusCode": 299}]}`), 0o644)
	_, stderr = runCLI(t, db, 1, "apply", "-f", file)
	if !strings.Contains(stderr, `rules[0] (source "no-slash")`) || !strings.Contains(stderr, "rules[1]") {
		t.Fatalf("bad rules: %s", stderr)
	}
	os.WriteFile(file, []byte("{\"project\": \""+p+"\",\n \"rules\": [,]}"), 0o644)
	_, stderr = runCLI(t, db, 1, "plan", "-f", file)
	if !strings.Contains(stderr, "line 2, column") {
		t.Fatalf("broken JSON: %s", stderr)
	}
	// rulesFile: the draft CSV beside the file.
	os.WriteFile(filepath.Join(dir, "rules.csv"), []byte("source,destination,statusCode,matchType\n/old,/new,301,exact\n"), 0o644)
	os.WriteFile(file, []byte(`{"project": "`+p+`", "rulesFile": "rules.csv", "tests": [], "deploy": false}`), 0o644)
	out, _ = runCLI(t, db, 2, "plan", "-f", file)
	if !strings.Contains(out, "draft: 0 to add, 2 to remove, 0 to change, 1 unchanged") || !strings.Contains(out, `deploy: none, the file says "deploy": false`) ||
		!strings.Contains(out, "~ tests: 2 cases -> 0 cases") {
		t.Fatalf("plan of rulesFile with deploy false:\n%s", out)
	}
	runCLI(t, db, 0, "apply", "-f", file)
	if n := deploymentCount(t, db, p); n != 1 {
		t.Fatalf("deploy false deployed: %d deployments", n)
	}

	// A project that requires staged deploys: a plan of a deploy without
	// --stage exits 1, and apply without it changes nothing.
	runCLI(t, db, 0, "project", "update", "--project", p, "--require-stage")
	os.WriteFile(file, []byte(`{"project": "`+p+`", "shrinkLimit": 30, "rules": [{"source": "/old", "destination": "/newest"}]}`), 0o644)
	out, stderr = runCLI(t, db, 1, "plan", "-f", file)
	if !strings.Contains(out, "blocked: the project requires staged deploys") || !strings.Contains(stderr, "apply would refuse it") {
		t.Fatalf("plan on a require-stage project:\n%s\n%s", out, stderr)
	}
	runCLI(t, db, 2, "plan", "-f", file, "--stage")
	draftBefore, _ = runCLI(t, db, 0, "rule", "list", "--project", p, "--json")
	runCLI(t, db, 1, "apply", "-f", file)
	if after, _ := runCLI(t, db, 0, "rule", "list", "--project", p, "--json"); after != draftBefore || deploymentCount(t, db, p) != 1 {
		t.Fatalf("a refused apply on a require-stage project changed the project")
	}
	if out, _ := runCLI(t, db, 2, "plan", "-f", file, "--stage"); !strings.Contains(out, "~ shrinkLimit: 50 -> 30") {
		t.Fatalf("a refused apply changed the shrink limit:\n%s", out)
	}
	runCLI(t, db, 0, "apply", "-f", file, "--stage")
	if n := deploymentCount(t, db, p); n != 2 {
		t.Fatalf("apply --stage: %d deployments, want 2", n)
	}
}

// TestApplyStage: apply --stage stages its deploy; the live version is
// unchanged until promote, after which plan shows no changes.
func TestApplyStage(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	p, _ := runCLI(t, db, 0, "project", "create", "--org", strings.TrimSpace(org), "--name", "www")
	p = strings.TrimSpace(p)
	runCLI(t, db, 0, "rule", "add", "--project", p, "--source", "/old", "--destination", "/v1")
	runCLI(t, db, 0, "deploy", "--project", p)
	file := filepath.Join(t.TempDir(), "redirects.json")
	body := fmt.Sprintf(`{"project": %q, "rules": [{"source": "/old", "destination": "/v2"}]}`, p)
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr := runCLI(t, db, 0, "apply", "-f", file, "--stage")
	if !strings.Contains(out, "2") || !strings.Contains(stderr, "staged version 2") {
		t.Fatalf("apply --stage: stdout %q, stderr %q", out, stderr)
	}
	if got, _ := runCLI(t, db, 0, "lookup", "--project", p, "--path", "/old"); !strings.Contains(got, "/v1") {
		t.Fatalf("after apply --stage the live answer changed: %s", got)
	}
	if got, _ := runCLI(t, db, 0, "lookup", "--project", p, "--path", "/old", "--version", "2"); !strings.Contains(got, "/v2") {
		t.Fatalf("the staged version answers %s", got)
	}
	runCLI(t, db, 2, "plan", "-f", file)
	runCLI(t, db, 0, "promote", "--project", p, "--version", "2")
	if _, stderr := runCLI(t, db, 0, "plan", "-f", file); !strings.Contains(stderr, "no changes") {
		t.Fatalf("plan after the promote: %q", stderr)
	}
}
