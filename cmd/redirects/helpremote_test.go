package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
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

// TestCIWithoutStoreSuggestsTheVariables: in CI, with neither
// REDIRECTS_API nor REDIRECTS_DB set and no database file, a command says
// to set REDIRECTS_API and REDIRECTS_TOKEN, or REDIRECTS_DB, instead of
// suggesting "redirects org create", and creates no file; outside CI the
// advice is as before.
func TestCIWithoutStoreSuggestsTheVariables(t *testing.T) {
	dir := t.TempDir()
	run := func(env []string, args ...string) result {
		t.Helper()
		cmd := exec.Command(binary(t), args...)
		cmd.Dir = dir
		cmd.Env = append([]string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}, env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("running redirects %s: %v", strings.Join(args, " "), err)
		}
		return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}
	}
	want := "set REDIRECTS_API and REDIRECTS_TOKEN (a management token"
	for _, args := range [][]string{
		{"rule", "add", "--project", "prj_x", "--source", "/a", "--destination", "/b"},
		{"rule", "list", "--project", "prj_x"},
		{"deploy", "--project", "prj_x"},
		{"lookup", "--project", "prj_x", "--path", "/a"},
	} {
		r := run([]string{"CI=true"}, args...)
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "or REDIRECTS_DB") || strings.Contains(r.stderr, "org create") {
			t.Errorf("CI=true redirects %s: exit %d, stderr %q; want 1 and %q ... or REDIRECTS_DB, without org create", strings.Join(args, " "), r.code, r.stderr, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("CI=true redirects %s created %s", strings.Join(args, " "), entries[0].Name())
		}
	}
	// Outside CI, reading a database that does not exist still says how
	// to make one.
	if r := run(nil, "rule", "list", "--project", "prj_x"); r.code != 1 || !strings.Contains(r.stderr, `"redirects org create"`) {
		t.Errorf("redirects rule list outside CI: exit %d, stderr %q; want the advice to create the database", r.code, r.stderr)
	}
	// In CI with REDIRECTS_DB the command runs on it.
	db := "REDIRECTS_DB=sqlite:" + filepath.Join(dir, "ci.db")
	if r := run([]string{"CI=true", db}, "org", "create", "--name", "Acme", "--tier", "free"); r.code != 0 {
		t.Fatalf("CI=true REDIRECTS_DB=... org create: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := run([]string{"CI=true", db}, "org", "list"); r.code != 0 || !strings.Contains(r.stdout, "Acme") {
		t.Errorf("CI=true REDIRECTS_DB=... org list: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
