package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStagedDeploysCLI walks staged deploys through the command line
// (docs/contract.md#staged-deploys): deploy --stage, lookup and export of
// the staged version by number, promote, promote back, discard, and a
// project that requires staging.
func TestStagedDeploysCLI(t *testing.T) {
	c := newCLI(t)
	org := c.ok("org", "create", "--name", "Acme", "--tier", "pro")
	p := c.ok("project", "create", "--org", org, "--name", "www")
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/v1")

	// A project whose only version is staged answers as one with none.
	if v := c.ok("deploy", "--project", p, "--stage"); v != "1" {
		t.Fatalf("first deploy --stage printed %q, want 1", v)
	}
	c.fail(1, "has no deployment", "lookup", "--project", p, "--path", "/old")
	if out := c.ok("lookup", "--project", p, "--path", "/old", "--version", "1"); !strings.Contains(out, "/v1") {
		t.Fatalf("lookup --version 1 of the staged version = %q", out)
	}
	// The diff from the live version to the staged one starts from nothing.
	if r := c.exec("", "diff", "--project", p, "--from", "live", "--to", "1"); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "nothing deployed") {
		t.Fatalf("diff from live with only a staged version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c.ok("promote", "--project", p, "--version", "1")

	// v2 staged: the default answers stay v1's; --version 2 answers v2's.
	c.ok("rule", "add", "--project", p, "--source", "/new", "--destination", "/v2")
	r := c.exec("", "deploy", "--project", p, "--stage", "--message", "try first")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" || !strings.Contains(r.stderr, "staged version 2") || !strings.Contains(r.stderr, "redirects promote") {
		t.Fatalf("deploy --stage: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if out := c.ok("lookup", "--project", p, "--path", "/new"); strings.Contains(out, "/v2") {
		t.Fatalf("lookup of /new without a version answered the staged version: %q", out)
	}
	if out := c.ok("lookup", "--project", p, "--path", "/new", "--version", "2"); !strings.Contains(out, "/v2") {
		t.Fatalf("lookup --version 2 = %q, want the staged /v2", out)
	}
	if out := c.ok("export", "--project", p, "--format", "csv"); strings.Contains(out, "/new") {
		t.Fatalf("export without a version holds the staged rule:\n%s", out)
	}
	if out := c.ok("export", "--project", p, "--format", "csv", "--version", "2"); !strings.Contains(out, "/new") {
		t.Fatalf("export --version 2 lacks the staged rule:\n%s", out)
	}
	// The expected-outcome cases run against the staged version by number.
	cases := filepath.Join(t.TempDir(), "cases.csv")
	if err := os.WriteFile(cases, []byte("path,status,destination\n/new,301,/v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("test", "--project", p, cases, "--version", "2")
	if r := c.exec("", "test", "--project", p, cases, "--version", "live"); r.code != 1 {
		t.Fatalf("test --version live against the staged rule: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	type dep struct {
		Version int  `json:"version"`
		Live    bool `json:"live"`
		Staged  bool `json:"staged"`
	}
	state := func() []dep {
		var ds []dep
		c.jsonOf(&ds, "deployments", "--project", p, "--json")
		return ds
	}
	if ds := state(); len(ds) != 2 || !ds[0].Live || ds[0].Staged || ds[1].Live || !ds[1].Staged {
		t.Fatalf("deployments after staging = %+v, want 1 live and 2 staged", ds)
	}
	if out := c.ok("deployments", "--project", p); !strings.Contains(out, "(staged) try first") {
		t.Fatalf("deployments listing does not mark the staged version:\n%s", out)
	}

	// Promote: v2 is the default; promoting v1 undoes it.
	c.fail(1, "not found", "promote", "--project", p, "--version", "9")
	c.fail(1, "not a positive", "promote", "--project", p, "--version", "0")
	c.fail(2, "--version", "promote", "--project", p)
	c.ok("promote", "--project", p, "--version", "2")
	if out := c.ok("lookup", "--project", p, "--path", "/new"); !strings.Contains(out, "/v2") {
		t.Fatalf("lookup of /new after promote = %q, want /v2", out)
	}
	if ds := state(); ds[0].Live || !ds[1].Live || ds[1].Staged {
		t.Fatalf("deployments after promote = %+v", ds)
	}
	c.ok("promote", "--project", p, "--version", "1")
	if out := c.ok("lookup", "--project", p, "--path", "/new"); strings.Contains(out, "/v2") {
		t.Fatalf("lookup of /new after promoting v1 back = %q", out)
	}
	if out := c.ok("deployments", "--project", p); !strings.Contains(out, "(live)") {
		t.Fatalf("deployments listing does not mark the live version when it is not the newest:\n%s", out)
	}
	if r := c.exec("", "promote", "--project", p, "--version", "1"); r.code != 0 || !strings.Contains(r.stderr, "already live") {
		t.Fatalf("promote of the live version: exit %d, stderr %q", r.code, r.stderr)
	}

	// Discard: only a staged version, never the live one.
	c.fail(1, "is live", "discard", "--project", p, "--version", "1")
	c.fail(1, "not staged", "discard", "--project", p, "--version", "2")
	if v := c.ok("deploy", "--project", p, "--stage"); v != "3" {
		t.Fatalf("deploy --stage printed %q, want 3", v)
	}
	c.ok("discard", "--project", p, "--version", "3")
	c.fail(1, "not found", "lookup", "--project", p, "--path", "/old", "--version", "3")
	if ds := state(); len(ds) != 2 {
		t.Fatalf("deployments after the discard = %+v, want versions 1 and 2", ds)
	}
	if v := c.ok("deploy", "--project", p, "--stage"); v != "4" {
		t.Fatalf("deploy after a discard printed %q, want 4 (numbers are not reused)", v)
	}

	// A project that requires staging refuses a plain deploy, by name.
	c.ok("project", "update", "--project", p, "--require-stage")
	c.fail(1, "requires staged deploys: deploy with --stage", "deploy", "--project", p)
	c.fail(1, "--stage", "deploy", "--project", p, "--from-version", "1")
	if v := c.ok("deploy", "--project", p, "--stage"); v != "5" {
		t.Fatalf("staged deploy of a project that requires it printed %q, want 5", v)
	}
	var projects []struct {
		ID           string `json:"id"`
		LiveVersion  int    `json:"liveVersion"`
		RequireStage bool   `json:"requireStage"`
	}
	c.jsonOf(&projects, "project", "list", "--json")
	if len(projects) != 1 || projects[0].LiveVersion != 1 || !projects[0].RequireStage {
		t.Fatalf("project list = %+v, want live version 1 and requireStage", projects)
	}
	c.ok("project", "update", "--project", p, "--require-stage=false")
	if v := c.ok("deploy", "--project", p); v != "6" {
		t.Fatalf("plain deploy once staging is no longer required printed %q, want 6", v)
	}
	// The audit log has each step.
	out := c.ok("audit", "--project", p)
	for _, a := range []string{"deployment.stage", "deployment.promote", "deployment.discard", "deployment.create", "project.update"} {
		if !strings.Contains(out, a) {
			t.Errorf("audit log lacks %s:\n%s", a, out)
		}
	}
}
