package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	main "redirects/cmd/redirects"
)

// TestHelpShowsAPIFlags: the help of every command that runs through the
// management API lists --api URL and --token TOKEN, and the help of one
// that needs the database does not; the flags work after the command's
// name, as before it.
func TestHelpShowsAPIFlags(t *testing.T) {
	c := &cli{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "redirects.db"), api: &apiServer{tokens: map[string]string{}}}
	names, _ := usageCommands(t, c)
	for _, name := range names {
		if name == "login" {
			continue // its --api is the address it saves
		}
		out := c.ok(append(strings.Fields(name), "--help")...)
		remote := !onDB(name)
		for _, want := range []string{"\n  --api URL ", "\n  --token TOKEN "} {
			if got := strings.Contains(out, want); got != remote {
				t.Errorf("redirects %s --help: lists %q = %v, want %v (runs through the API: %v):\n%s", name, strings.TrimSpace(want), got, remote, remote, out)
			}
		}
	}
	if main.CommandNeedsDB("deploy") {
		t.Fatal("deploy is marked as needing the database")
	}

	org, project := c.setup()
	c.ok("rule", "add", "--project", project, "--source", "/a", "--destination", "/b")
	url, tok := c.apiURL(), c.ownerToken(org)
	// After the name, through the API: a wrong token is refused by the
	// server, the right one lists the rule.
	r := c.execOn(nil, "", "rule", "list", "--project", project, "--api", url, "--token", "rdm_wrong")
	if r.code == 0 || !strings.Contains(strings.ToLower(r.stderr), "token") {
		t.Errorf("rule list --api URL --token WRONG: exit %d, stderr %q; want the API's refusal of the token", r.code, r.stderr)
	}
	r = c.execOn(nil, "", "rule", "list", "--project", project, "--api", url, "--token", tok)
	if r.code != 0 || !strings.Contains(r.stdout, "/a") {
		t.Errorf("rule list --api URL --token TOKEN: exit %d, stdout %q, stderr %q; want the rule /a", r.code, r.stdout, r.stderr)
	}
}
