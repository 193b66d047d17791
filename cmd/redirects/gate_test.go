package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deploymentCount returns the number of deployments of project p.
func (c *cli) deploymentCount(p string) int {
	c.t.Helper()
	var ds []struct{ Version int }
	c.jsonOf(&ds, "deployments", "--project", p, "--json")
	return len(ds)
}

// TestDeployGateLoopAndCases: a loop and a failing stored case block a
// deploy, which changes nothing and says why; forced with a reason it goes
// through.
func TestDeployGateLoopAndCases(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/a", "--destination", "/b")
	c.ok("deploy", "--project", p)
	c.ok("rule", "add", "--project", p, "--source", "/b", "--destination", "/a")

	r := c.mustExit(1, "deploy", "--project", p)
	if !strings.Contains(r.stderr, "error    loop        redirect loop of 2 rules: /a -> /b -> /a") ||
		!strings.Contains(r.stderr, "deploy of the draft blocked, nothing changed: 1 lint error: pass --force --reason TEXT to deploy anyway") {
		t.Fatalf("blocked deploy stderr:\n%s", r.stderr)
	}
	if r.stdout != "" {
		t.Fatalf("a blocked deploy printed %q on stdout", r.stdout)
	}
	if n := c.deploymentCount(p); n != 1 {
		t.Fatalf("deployments after a blocked deploy = %d, want 1", n)
	}

	c.fail(2, "--force needs --reason", "deploy", "--project", p, "--force")
	c.fail(2, "--force needs --reason", "deploy", "--project", p, "--force", "--reason", "  ")
	c.fail(2, "--reason is only taken with --force", "deploy", "--project", p, "--reason", "why")

	// A stored test file that the draft fails blocks as well.
	cases := filepath.Join(t.TempDir(), "cases.csv")
	if err := os.WriteFile(cases, []byte("path,status,destination\n/a,301,/b\n/b,301,/c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("test", "set", "--project", p, cases)
	c.ok("rule", "delete", "--project", p, "2")
	r = c.mustExit(1, "deploy", "--project", p, "--message", "no loop")
	if !strings.Contains(r.stderr, "FAIL  line 3: /b: answered no redirect, want 301 /c") ||
		!strings.Contains(r.stderr, "1 failing expected-outcome case: pass --force") {
		t.Fatalf("deploy with a failing case, stderr:\n%s", r.stderr)
	}
	// test without FILE runs the stored file.
	r = c.mustExit(1, "test", "--project", p)
	if !strings.Contains(r.stdout, "FAIL  line 3: /b") || !strings.Contains(r.stderr, "2 cases, 1 failed") {
		t.Fatalf("test with the stored file:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}

	r = c.exec("", "deploy", "--project", p, "--force", "--reason", "the /b page ships tomorrow")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" || !strings.Contains(r.stderr, "forced past 1 failing expected-outcome case") {
		t.Fatalf("forced deploy: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	var entries []struct {
		After map[string]any `json:"after"`
	}
	c.jsonOf(&entries, "audit", "--project", p, "--action", "deployment.create", "--json")
	if len(entries) == 0 || entries[0].After["reason"] != "the /b page ships tomorrow" || entries[0].After["forced"] != true {
		t.Fatalf("the forced deploy's audit entry does not show the reason: %+v", entries)
	}
}

// TestDeployGateShrink: the shrink guard at the project's limit, at none
// left, and with --allow-shrink; a rollback passes it.
func TestDeployGateShrink(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	dir := t.TempDir()
	// rules writes a file of the rules /old/0 to /old/n-1.
	rules := func(n int) string {
		var csv strings.Builder
		csv.WriteString("source,destination,statusCode,matchType\n")
		for i := range n {
			fmt.Fprintf(&csv, "/old/%d,/new/%d,301,exact\n", i, i)
		}
		file := filepath.Join(dir, fmt.Sprintf("rules-%d.csv", n))
		if err := os.WriteFile(file, []byte(csv.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	c.ok("rule", "import", "--project", p, rules(200))
	c.ok("deploy", "--project", p)

	// 20 of 200 is 10 %: not more than the limit.
	c.ok("rule", "import", "--project", p, "--replace", rules(180))
	c.ok("deploy", "--project", p)
	// 19 of 180 is 10.5 %.
	c.ok("rule", "import", "--project", p, "--replace", rules(161))
	r := c.mustExit(1, "deploy", "--project", p)
	want := "this deploy removes 19 of 180 live rules (10.5 %); the project's limit is 10 %: pass --allow-shrink to deploy anyway"
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("shrink stderr:\n%s\nwant %q", r.stderr, want)
	}
	// Forcing is not confirming a shrink.
	c.mustExit(1, "deploy", "--project", p, "--force", "--reason", "x")
	if n := c.deploymentCount(p); n != 2 {
		t.Fatalf("deployments after blocked deploys = %d, want 2", n)
	}
	c.ok("project", "update", "--project", p, "--shrink-limit", "20")
	c.ok("deploy", "--project", p)

	c.ok("rule", "delete", "--project", p, "--all-matching", "--yes")
	r = c.mustExit(1, "deploy", "--project", p)
	if !strings.Contains(r.stderr, "this deploy removes all 161 live rules and leaves the project with none: pass --allow-shrink") {
		t.Fatalf("none-left stderr:\n%s", r.stderr)
	}
	r = c.exec("", "deploy", "--project", p, "--allow-shrink")
	if r.code != 0 || !strings.Contains(r.stderr, "allowed to shrink") {
		t.Fatalf("deploy --allow-shrink: exit %d, stderr %s", r.code, r.stderr)
	}
	// A rollback to version 2 needs no confirmation.
	if out := c.ok("deploy", "--project", p, "--from-version", "2"); out != "5" {
		t.Fatalf("rollback printed %q, want version 5", out)
	}

	c.fail(1, "shrink limit 101 is not a percentage", "project", "update", "--project", p, "--shrink-limit", "101")
	c.fail(2, "--shrink-limit", "project", "update", "--project", p)
}

// TestTestSet: storing a test file, refusing a bad one with line numbers,
// and test without FILE when none is stored.
func TestTestSet(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	dir := t.TempDir()
	c.fail(2, "test takes FILE: project "+p+" has no stored test file", "test", "--project", p)

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("path,status,destination\n/a,301,\nb,302,/x\n"), 0o644)
	r := c.mustExit(1, "test", "set", "--project", p, bad)
	if !strings.Contains(r.stderr, "line 2: status 301 needs a destination") || !strings.Contains(r.stderr, "line 3: path \"b\" must start with /") {
		t.Fatalf("test set of a bad file, stderr:\n%s", r.stderr)
	}
	c.fail(2, "test takes FILE: project "+p+" has no stored test file", "test", "--project", p)
	c.fail(2, "test set takes FILE", "test", "set", "--project", p)

	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte("path,status,destination\n/a,none,\n"), 0o644)
	r = c.exec("", "test", "set", "--project", p, good)
	if r.code != 0 || !strings.Contains(r.stderr, "1 case") {
		t.Fatalf("test set: exit %d, stderr %s", r.code, r.stderr)
	}
	junit := filepath.Join(dir, "junit.xml")
	c.ok("test", "--project", p, "--junit", junit)
	if b, err := os.ReadFile(junit); err != nil || !strings.Contains(string(b), `tests="1" failures="0"`) {
		t.Fatalf("JUnit of the stored file: %s, %v", b, err)
	}
	r = c.exec("path,status,destination\n/a,301,/b\n/c,none,\n", "test", "set", "--project", p, "-")
	if r.code != 0 || !strings.Contains(r.stderr, "2 cases") {
		t.Fatalf("test set -: exit %d, stderr %s", r.code, r.stderr)
	}
	c.fail(1, "nope", "test", "set", "--project", "prj_nope", good)
}

// TestDeployCapsWarnings: a deploy prints at most 3 warnings, with
// --verbose at most 20, then how many more there are; lint lists them all.
func TestDeployCapsWarnings(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	var csv strings.Builder
	csv.WriteString("source,destination,statusCode,matchType\n")
	for i := range 25 {
		// /chain-i -> /hop-i -> /end: 25 chains, each a warning.
		fmt.Fprintf(&csv, "/chain-%d,/hop-%d,301,exact\n/hop-%d,/end,301,exact\n", i, i, i)
	}
	if r := c.exec(csv.String(), "rule", "import", "--project", p, "-"); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	// The few lines that need attention by default (the point of
	// --verbose, which the rest of this test passes).
	r := c.exec("", "deploy", "--project", p, "--message", "one")
	if r.code != 0 {
		t.Fatalf("deploy: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "warning  chain"); n != 3 || !strings.Contains(r.stderr, `... and 22 more warnings (--verbose lists up to 20; "redirects lint" lists every finding)`) {
		t.Fatalf("deploy printed %d chain warnings, want 3 and how many more:\n%s", n, r.stderr)
	}
	c.ok("rule", "add", "--project", p, "--source", "/another", "--destination", "/end")
	r = c.exec("", "deploy", "--project", p, "--verbose")
	if r.code != 0 {
		t.Fatalf("deploy: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "warning  chain"); n != 20 {
		t.Fatalf("deploy printed %d chain warnings, want 20:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, `... and 5 more warnings ("redirects lint" lists every finding)`) {
		t.Fatalf("deploy does not say how many warnings it left out:\n%s", r.stderr)
	}
	if out := c.exec("", "lint", "--project", p); strings.Count(out.stdout+out.stderr, "chain") < 25 {
		t.Fatalf("lint does not list every chain:\n%s%s", out.stdout, out.stderr)
	}
}
