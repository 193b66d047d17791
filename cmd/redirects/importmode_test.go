package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportModesCLI runs rule import in each mode, with and without
// --dry-run, and --replace as the alias of --mode replace.
func TestImportModesCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("rule", "add", "--project", p, "--source", "/gone", "--destination", "/x")
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.csv")
	// A spreadsheet's file: byte order mark, ';', CRLF, spaced header names.
	os.WriteFile(file, []byte("\uFEFFSource;Destination;Status Code;Match Type\r\n/old;/newer;302;Exact\r\n/shop;/store;301;Starts With\r\n"), 0o644)
	before := c.ok("rule", "list", "--project", p, "--json")

	r := c.exec("", "rule", "import", "--project", p, "--mode", "upsert", "--dry-run", file)
	if r.code != 0 || !strings.Contains(r.stderr, "dry run of an upsert import: nothing written") {
		t.Fatalf("upsert --dry-run: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// Each mode's dry run takes its article, from the CSV and from another
	// format alike.
	fresh := filepath.Join(dir, "fresh.csv")
	os.WriteFile(fresh, []byte("source,destination,statusCode,matchType\n/fresh,/x,301,exact\n"), 0o644)
	redirectsFile := filepath.Join(dir, "_redirects")
	os.WriteFile(redirectsFile, []byte("/shop /store 301\n"), 0o644)
	for _, tc := range []struct{ want, mode, from string }{
		{"dry run of an append import: nothing written", "append", ""},
		{"dry run of a replace import: nothing written", "replace", ""},
		{"dry run of an append import: nothing written", "append", "netlify"},
		{"dry run of an upsert import: nothing written", "upsert", "netlify"},
	} {
		args := []string{"rule", "import", "--project", p, "--mode", tc.mode, "--dry-run", fresh}
		if tc.from != "" {
			args = []string{"rule", "import", "--project", p, "--mode", tc.mode, "--from", tc.from, "--dry-run", redirectsFile}
		}
		if r := c.exec("", args...); r.code != 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d stderr %q; want 0 and %q", strings.Join(args, " "), r.code, r.stderr, tc.want)
		}
	}
	if want := "added      1\nupdated    1\nunchanged  0\nremoved    0\n"; r.stdout != want {
		t.Fatalf("upsert --dry-run printed %q, want %q", r.stdout, want)
	}
	var rep struct {
		Mode                               string
		DryRun                             bool
		Added, Updated, Unchanged, Removed int
	}
	c.jsonOf(&rep, "rule", "import", "--project", p, "--replace", "--dry-run", "--json", file)
	if rep.Mode != "replace" || !rep.DryRun || rep.Added != 1 || rep.Updated != 1 || rep.Removed != 1 {
		t.Fatalf("--replace --dry-run --json = %+v", rep)
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("dry runs changed the draft:\n%s\n%s", before, after)
	}

	c.fail(1, "already exists", "rule", "import", "--project", p, "--mode", "append", file)
	c.fail(2, "not one of append, upsert, replace", "rule", "import", "--project", p, "--mode", "merge", file)
	c.fail(2, "--replace is --mode replace", "rule", "import", "--project", p, "--mode", "upsert", "--replace", file)

	if out := c.ok("rule", "import", "--project", p, "--mode", "upsert", file); out != "added      1\nupdated    1\nunchanged  0\nremoved    0" {
		t.Fatalf("upsert printed %q", out)
	}
	list := c.ok("rule", "list", "--project", p)
	if !strings.Contains(list, "302     /old    /newer") || !strings.Contains(list, "/shop") || !strings.Contains(list, "/gone") {
		t.Fatalf("rules after upsert:\n%s", list)
	}
	if n := c.ok("rule", "import", "--project", p, "--mode", "replace", file); n != "2" {
		t.Fatalf("--mode replace printed %q, want 2", n)
	}
	if list := c.ok("rule", "list", "--project", p); strings.Contains(list, "/gone") {
		t.Fatalf("replace kept /gone:\n%s", list)
	}
	// The import is audited with its actor: the OS user (through the API,
	// the management token).
	var entries []struct {
		Actor struct{ Kind string }
		After map[string]any
	}
	c.jsonOf(&entries, "audit", "--project", p, "--action", "rule.import", "--json")
	if len(entries) != 2 || entries[0].Actor.Kind != c.actorKind() || entries[0].After["mode"] != "replace" || entries[1].After["mode"] != "upsert" {
		t.Fatalf("audit of the two imports: %+v", entries)
	}
}

// TestImportAppendAgainCLI imports a file twice in the default mode: the
// second finds every rule unchanged and succeeds; a file that changes a
// rule is refused with a line that names --mode upsert, not a bad line.
func TestImportAppendAgainCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	file := filepath.Join(t.TempDir(), "rules.csv")
	os.WriteFile(file, []byte("source,destination,statusCode,matchType\n/a,/b,301,exact\n/c,/d,302,exact\n"), 0o644)
	if n := c.ok("rule", "import", "--project", p, file); n != "2" {
		t.Fatalf("first import printed %q, want 2", n)
	}
	before := c.ok("rule", "list", "--project", p, "--json")
	r := c.exec("", "rule", "import", "--project", p, file)
	if r.code != 0 || r.stdout != "2\n" || !strings.Contains(r.stderr, "0 added; 2 the draft already had as they are were left unchanged") {
		t.Fatalf("the same file again: exit %d stdout %q stderr %q, want exit 0, 2 and both rules unchanged", r.code, r.stdout, r.stderr)
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("importing the same file again changed the draft:\n%s\n%s", before, after)
	}
	if out := c.ok("rule", "import", "--project", p, "--dry-run", file); out != "added      0\nupdated    0\nunchanged  2\nremoved    0" {
		t.Fatalf("--dry-run of the same file printed %q", out)
	}

	os.WriteFile(file, []byte("source,destination,statusCode,matchType\n/a,/elsewhere,301,exact\n/c,/d,302,exact\n/e,/f,301,exact\n"), 0o644)
	errs := filepath.Join(t.TempDir(), "errors.txt")
	r = c.exec("", "rule", "import", "--project", p, "--errors-file", errs, file)
	if r.code != 1 || !strings.Contains(r.stderr, "line 2: ") || !strings.Contains(r.stderr, "--mode upsert") ||
		strings.Contains(r.stderr, "line 3:") || strings.Contains(r.stderr, "bad line") {
		t.Fatalf("a file that changes /a: exit %d stderr %q, want exit 1, line 2 alone and --mode upsert named", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(errs); !strings.HasPrefix(string(b), "line 2: ") || !strings.Contains(string(b), "--mode upsert") {
		t.Fatalf("--errors-file holds %q", b)
	}
	if out := c.ok("rule", "import", "--project", p, "--mode", "upsert", file); out != "added      1\nupdated    1\nunchanged  1\nremoved    0" {
		t.Fatalf("upsert printed %q", out)
	}
}

// TestProjectHostsCLI declares a project's hosts and imports full-URL
// sources on them.
func TestProjectHostsCLI(t *testing.T) {
	c := newCLI(t)
	org, p := c.setup()
	file := filepath.Join(t.TempDir(), "urls.csv")
	os.WriteFile(file, []byte("source,destination,statusCode,matchType\nhttps://www.example.com/old,/new,301,exact\n"), 0o644)
	c.fail(1, "host www.example.com, and the project declares no hosts", "rule", "import", "--project", p, file)

	r := c.exec("", "project", "update", "--project", p, "--host", "WWW.example.com", "--host", "example.com")
	// The project as it now is, on standard output: what the command did.
	if r.code != 0 || !strings.Contains(r.stdout, "hosts www.example.com example.com") || r.stderr != "" {
		t.Fatalf("project update --host: exit %d stdout %q stderr %q; want 0, the hosts on stdout and nothing on stderr", r.code, r.stdout, r.stderr)
	}
	if n := c.ok("rule", "import", "--project", p, file); n != "1" {
		t.Fatalf("import of a URL source printed %q", n)
	}
	if list := c.ok("rule", "list", "--project", p); !strings.Contains(list, " /old ") {
		t.Fatalf("URL source stored as:\n%s", list)
	}
	var projects []struct {
		ID    string
		Hosts []string
	}
	c.jsonOf(&projects, "project", "list", "--org", org, "--json")
	if len(projects) != 1 || strings.Join(projects[0].Hosts, ",") != "www.example.com,example.com" {
		t.Fatalf("project list --json = %+v", projects)
	}
	c.fail(1, "host", "project", "update", "--project", p, "--host", "exa_mple.com")
	c.fail(2, "at least one of", "project", "update", "--project", p)
	c.fail(2, "not both", "project", "update", "--project", p, "--host", "a.example", "--clear-hosts")
	c.ok("project", "update", "--project", p, "--clear-hosts", "--name", "renamed")
	c.jsonOf(&projects, "project", "list", "--org", org, "--json")
	if len(projects[0].Hosts) != 0 {
		t.Fatalf("hosts after --clear-hosts = %q", projects[0].Hosts)
	}
}

// TestLintFollowsDeclaredHosts checks that lint, without --host, follows
// absolute destinations on the hosts the project declares.
func TestLintFollowsDeclaredHosts(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/a", "--destination", "https://www.example.com/b")
	c.ok("rule", "add", "--project", p, "--source", "/b", "--destination", "/a")
	var before, after struct{ Errors int }
	r := c.exec("", "lint", "--project", p, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &before); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, r.stdout)
	}
	c.ok("project", "update", "--project", p, "--host", "www.example.com")
	r = c.exec("", "lint", "--project", p, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &after); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, r.stdout)
	}
	if before.Errors != 0 || after.Errors == 0 || r.code != 1 || !strings.Contains(r.stdout, "loop") {
		t.Fatalf("lint errors %d without hosts, %d with them (exit %d): %s", before.Errors, after.Errors, r.code, r.stdout)
	}
}
