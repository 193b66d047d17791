package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestRemoteCLI runs one scenario of commands twice, on two databases
// made alike: once with --db, once through the management API of a real
// serve (--api and --token), and requires the same output, errors and
// exit codes from both, IDs, secrets and times aside.
func TestRemoteCLI(t *testing.T) {
	dir := t.TempDir()
	dbLocal := "sqlite:" + filepath.Join(dir, "local.db")
	dbServed := "sqlite:" + filepath.Join(dir, "served.db")
	setup := func(db string) (org, project string) {
		org, _ = runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
		org = strings.TrimSpace(org)
		project, _ = runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
		return org, strings.TrimSpace(project)
	}
	orgL, projL := setup(dbLocal)
	orgS, projS := setup(dbServed)
	token, _ := runCLI(t, dbServed, 0, "token", "create", "--org", orgS, "--role", "owner", "--name", "cli")
	token = strings.TrimSpace(token)
	addr := freeAddr(t)
	start(t, dbServed, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	api := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	tests := filepath.Join(dir, "tests.csv")
	os.WriteFile(tests, []byte("path,status,destination\n/a,307,/bb\n/nowhere,none,\n"), 0o644)
	projectFile := func(name, project string) string {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(`{"project": "`+project+`", "rules": [{"source": "/a", "destination": "/bb", "statusCode": 307}, {"source": "/new", "destination": "/x"}]}`), 0o644)
		return f
	}
	fileL, fileS := projectFile("local.json", projL), projectFile("served.json", projS)
	csv := filepath.Join(dir, "rules.csv")
	os.WriteFile(csv, []byte("source,destination,statusCode,matchType\n/imported,/here,302,exact\n/a,/b,301,exact\n"), 0o644)

	// Each step: the arguments, with P for the project and O for the org.
	steps := [][]string{
		{"rule", "add", "--project", "P", "--source", "/a", "--destination", "/b"},
		{"rule", "add", "--project", "P", "--source", "/docs/", "--destination", "https://docs.example.com/", "--match", "starts_with", "--status", "308", "--preserve-path", "--preserve-query"},
		{"rule", "add", "--project", "P", "--source", "/gone", "--status", "410"},
		{"rule", "add", "--project", "P", "--source", "/a", "--destination", "/c"},
		{"rule", "add", "--project", "P", "--source", "no-slash", "--destination", "/c"},
		{"rule", "list", "--project", "P"},
		{"rule", "list", "--project", "P", "--json"},
		{"rule", "list", "--project", "P", "--search", "/d*", "--limit", "1", "--json"},
		{"rule", "update", "--project", "P", "1", "--destination", "/bb", "--status", "307"},
		{"rule", "update", "--project", "P", "99", "--destination", "/x"},
		{"rule", "import", "--project", "P", "--mode", "upsert", "--dry-run", csv},
		{"rule", "import", "--project", "P", csv},
		{"rule", "import", "--project", "P", "--mode", "upsert", "--json", csv},
		{"rule", "import", "--project", "P", "--from", "auto", "--mode", "upsert", csv},
		{"rule", "import", "--project", "P", "--from", "auto", "--mode", "replace", csv},
		{"rule", "undo-import", "--project", "P", "--import", "3"},
		{"rule", "undo-import", "--project", "P", "--import", "3"},
		{"rule", "delete", "--project", "P", "3"},
		{"rule", "list", "--project", "P", "--json"},
		{"project", "update", "--project", "P", "--case-sensitive=false", "--host", "www.example.com"},
		{"project", "list", "--org", "O", "--json"},
		{"deploy", "--project", "P", "--message", "first"},
		{"rule", "add", "--project", "P", "--source", "/loop1", "--destination", "/loop2"},
		{"rule", "add", "--project", "P", "--source", "/loop2", "--destination", "/loop1"},
		{"deploy", "--project", "P", "--message", "loop"},
		{"deploy", "--project", "P", "--message", "forced", "--force", "--reason", "testing"},
		{"deployments", "--project", "P", "--json"},
		{"key", "create", "--project", "P", "--name", "edge"},
		{"key", "list", "--project", "P", "--json"},
		{"rule", "export", "--project", "P"},
		{"rule", "delete", "--project", "P", "--all-matching", "--search", "/loop*", "--yes"},
		{"rule", "list", "--project", "P"},
		{"lookup", "--project", "P", "--path", "/DOCS/a/b?x=1"},
		{"lookup", "--project", "P", "--path", "/a", "--version", "1"},
		{"lookup", "--project", "P", "--path", "/a", "--version", "9"},
		{"lint", "--project", "P", "--version", "live"},
		{"lint", "--project", "P"},
		{"diff", "--project", "P"},
		{"diff", "--project", "P", "--from", "1", "--to", "2", "--json"},
		{"explain", "--project", "P", "--path", "/gone"},
		{"test", "set", "--project", "P", tests},
		{"test", "--project", "P"},
		{"test", "--project", "P", "--version", "1", "--json"},
		{"plan", "-f", "F"},
		{"apply", "-f", "F"},
		{"plan", "-f", "F"},
		{"deployments", "--project", "P"},
		{"rule", "add", "--project", "P", "--source", "/staged", "--destination", "/s"},
		{"deploy", "--project", "P", "--stage", "--message", "staged"},
		{"lookup", "--project", "P", "--path", "/staged"},
		{"deployments", "--project", "P", "--json"},
		{"promote", "--project", "P", "--version", "4"},
		{"lookup", "--project", "P", "--path", "/staged"},
		{"promote", "--project", "P", "--version", "3"},
		{"deploy", "--project", "P", "--stage", "--message", "staged again"},
		{"discard", "--project", "P", "--version", "5"},
		{"discard", "--project", "P", "--version", "4"},
		{"project", "update", "--project", "P", "--require-stage"},
		{"deploy", "--project", "P"},
		{"deployments", "--project", "P"},
	}
	norm := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|redir_(live|test)_[A-Za-z0-9]+|key_[A-Za-z0-9]+|\.\.\.\.?[A-Za-z0-9]{4}\b|"last4": "[^"]*"`)
	clean := func(s, org, project string) string {
		s = strings.ReplaceAll(strings.ReplaceAll(s, project, "P"), org, "O")
		s = strings.ReplaceAll(strings.ReplaceAll(s, "local.json", "F"), "served.json", "F")
		return norm.ReplaceAllString(s, "X")
	}
	for _, step := range steps {
		argsFor := func(org, project, file string) []string {
			out := make([]string, len(step))
			for i, a := range step {
				switch a {
				case "P":
					a = project
				case "O":
					a = org
				case "F":
					a = file
				}
				out[i] = a
			}
			return out
		}
		lo, le, lc := inProcess(t, dbLocal, "", argsFor(orgL, projL, fileL)...)
		// Through the API: no database at all, the address and token in
		// the global flags.
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Clock: nil,
			Getenv: func(string) string { return "" }}
		ro, re, rc := runMain(t, m, append([]string{"--api", api, "--token", token}, argsFor(orgS, projS, fileS)...))
		what := strings.Join(step, " ")
		if lc != rc {
			t.Errorf("%s: exit %d with --db, %d through the API\n--db stderr: %s\n--api stderr: %s", what, lc, rc, le, re)
			continue
		}
		if a, b := clean(lo, orgL, projL), clean(ro, orgS, projS); a != b {
			t.Errorf("%s: stdout differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
		if a, b := clean(le, orgL, projL), clean(re, orgS, projS); a != b {
			t.Errorf("%s: stderr differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
	}

	// What needs the database says so, and a bad token is refused.
	m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
	_, errs, code := runMain(t, m, []string{"--api", api, "--token", token, "serve"})
	if code != 1 || !strings.Contains(errs, "serve needs the database") {
		t.Errorf("serve through the API: exit %d, %q", code, errs)
	}
	_, errs, code = runMain(t, m, []string{"--api", api, "--token", "redir_mgmt_wrong", "rule", "list", "--project", projS})
	if code != 1 || !strings.Contains(errs, "redirects: ") {
		t.Errorf("a bad token: exit %d, %q", code, errs)
	}
	_, errs, code = runMain(t, m, []string{"--api", api, "rule", "list", "--project", projS})
	if code != 1 || !strings.Contains(errs, "needs a management token") {
		t.Errorf("--api without a token: exit %d, %q", code, errs)
	}

	// login saves a profile (mode 0600) that later commands use.
	home := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	}
	m = &Main{Stdin: strings.NewReader(token + "\n"), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	if _, errs, code := runMain(t, m, []string{"login", "--api", api}); code != 0 {
		t.Fatalf("login: exit %d: %s", code, errs)
	}
	fi, err := os.Stat(filepath.Join(home, "redirects", "profile.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the profile: %v, mode %v", err, fi.Mode())
	}
	m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	out, errs, code := runMain(t, m, []string{"deployments", "--project", projS})
	if code != 0 || !strings.Contains(out, "forced") {
		t.Fatalf("deployments with the saved login: exit %d\n%s\n%s", code, out, errs)
	}
	m = &Main{Stdin: strings.NewReader("redir_mgmt_nope\n"), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	if _, _, code := runMain(t, m, []string{"login", "--api", api}); code != 1 {
		t.Fatalf("login with a bad token: exit %d", code)
	}
	m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	runMain(t, m, []string{"logout"})
	if _, err := os.Stat(filepath.Join(home, "redirects", "profile.json")); !os.IsNotExist(err) {
		t.Fatalf("logout left the profile: %v", err)
	}
}

// runMain runs m on args and returns its output and exit code.
func runMain(t *testing.T, m *Main, args []string) (string, string, int) {
	t.Helper()
	if m.Clock == nil {
		m.Clock = redirects.SystemClock{}
	}
	done := make(chan int, 1)
	go func() { done <- m.Run(t.Context(), args) }()
	select {
	case code := <-done:
		return m.Stdout.(*syncBuffer).String(), m.Stderr.(*syncBuffer).String(), code
	case <-time.After(60 * time.Second):
		t.Fatalf("redirects %s did not end within 60 s", strings.Join(args, " "))
		return "", "", 0
	}
}
