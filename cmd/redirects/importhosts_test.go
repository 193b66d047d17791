package main_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestImportHostsSuggestionCLI: the import report suggests the hosts the
// file's rules are scoped to that the project does not declare, in text
// with the command that declares them and in --json; the command, run as
// printed, declares them, and the report then suggests none.
func TestImportHostsSuggestionCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("project", "update", "--project", p, "--host", "www.example.org")
	file := filepath.Join(t.TempDir(), "_redirects")
	os.WriteFile(file, []byte("https://old.example.org/* https://www.example.org/:splat 301!\n"+
		"https://www.example.org/x /y 301\n"+
		"https://Blog.Example.net/a /b 301\n"+
		"https://old.example.org/c /d 301\n"+
		"/plain /elsewhere 301\n"), 0o644)

	r := c.exec("", "rule", "import", "--project", p, "--from", "netlify", "--dry-run", file)
	if r.code != 0 {
		t.Fatalf("dry run: exit %d: %s", r.code, r.stderr)
	}
	const cmd = `redirects project update --host www.example.org --host old.example.org --host blog.example.net`
	want := `suggestion: the file's rules answer on 2 hosts the project does not declare (old.example.org, blog.example.net): "` + cmd + `" would declare them`
	if !strings.Contains(r.stdout, want+"\n") {
		t.Fatalf("report lacks %q:\n%s", want, r.stdout)
	}
	var rep struct {
		Migration struct {
			Suggestion     *struct{ Why string }
			HostSuggestion *struct {
				Hosts, Declare []string
				Why            string
			}
		}
	}
	c.jsonOf(&rep, "rule", "import", "--project", p, "--from", "netlify", "--dry-run", "--json", file)
	hs := rep.Migration.HostSuggestion
	if hs == nil || !reflect.DeepEqual(hs.Hosts, []string{"old.example.org", "blog.example.net"}) ||
		!reflect.DeepEqual(hs.Declare, []string{"www.example.org", "old.example.org", "blog.example.net"}) || !strings.Contains(hs.Why, cmd) {
		t.Fatalf("--json hostSuggestion %+v", hs)
	}

	// The command as printed, with the project named, declares the hosts.
	args := append(strings.Fields(cmd)[1:], "--project", p)
	c.ok(args...)
	r = c.exec("", "rule", "import", "--project", p, "--from", "netlify", "--dry-run", file)
	if r.code != 0 || strings.Contains(r.stdout, "hosts the project does not declare") {
		t.Fatalf("after declaring: exit %d, report still suggests hosts:\n%s%s", r.code, r.stdout, r.stderr)
	}
	rep.Migration.HostSuggestion = nil
	c.jsonOf(&rep, "rule", "import", "--project", p, "--from", "netlify", "--dry-run", "--json", file)
	if rep.Migration.HostSuggestion != nil {
		t.Fatalf("after declaring: --json hostSuggestion %+v", rep.Migration.HostSuggestion)
	}
}
