package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/internal/rulemodel"
)

// TestDraftCSVRoundTripThroughTheAPI: random drafts that use every status,
// option and fragment, under every combination of the project settings,
// imported on the command line, downloaded as the management API's
// rules.csv and imported back with --replace, come back rule for rule.
func TestDraftCSVRoundTripThroughTheAPI(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, errs, code := inProcess(t, db, stdin, args...)
		if code != 0 {
			t.Fatalf("redirects %s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		return strings.TrimSpace(out)
	}
	org := run("", "org", "create", "--name", "Acme", "--tier", "pro")
	rng := rand.New(rand.NewPCG(20, 2026))
	type project struct {
		id    string
		rules []redirects.Rule
	}
	var projects []project
	for _, s := range []redirects.Settings{{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		p := run("", "project", "create", "--org", org, "--name", "p"+fmt.Sprint(len(projects)))
		run("", "project", "update", "--project", p, fmt.Sprintf("--case-sensitive=%t", s.CaseSensitive()), "--trailing-slash", s.TrailingSlash())
		rules := rulemodel.Rules(rng, 80, s)
		var file bytes.Buffer
		if err := export.WriteCSV(&file, rules); err != nil {
			t.Fatal(err)
		}
		if n := run(file.String(), "rule", "import", "--project", p, "-"); n != fmt.Sprint(len(rules)) {
			t.Fatalf("rule import printed %s, want %d", n, len(rules))
		}
		projects = append(projects, project{p, rules})
	}
	token := run("", "token", "create", "--org", org, "--role", "viewer")

	addr := freeAddr(t)
	start(t, db, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	c := &http.Client{Timeout: 10 * time.Second}
	download := func(p string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://"+addr+"/manage/v1/projects/"+p+"/rules.csv", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET rules.csv: %v", err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET rules.csv: %d %s", res.StatusCode, b)
		}
		return string(b)
	}
	waitFor(t, "the management API answers", func() bool {
		res, err := c.Get("http://" + addr + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})

	// listed returns a project's draft as text, one rule a line, without
	// the IDs and times a replace renews.
	listed := func(p string) []string {
		t.Helper()
		var rules []api.Rule
		if err := json.Unmarshal([]byte(run("", "rule", "list", "--project", p, "--json")), &rules); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rules {
			out = append(out, fmt.Sprintf("%s %s %d %q %d pp=%t pq=%t", r.MatchType, r.Source, r.StatusCode, r.Destination, r.Priority, r.PreservePath, r.PreserveQuery))
		}
		slices.Sort(out)
		return out
	}
	for _, pr := range projects {
		var want []string
		for _, r := range pr.rules {
			want = append(want, fmt.Sprintf("%s %s %d %q %d pp=%t pq=%t", r.MatchType, r.Source, r.StatusCode, r.Destination, r.Priority, r.PreservePath, r.PreserveQuery))
		}
		slices.Sort(want)
		if got := listed(pr.id); !slices.Equal(got, want) {
			t.Fatalf("project %s: the imported draft differs from the file:\ngot  %q\nwant %q", pr.id, got, want)
		}
		file := download(pr.id)
		if header, _, _ := strings.Cut(file, "\r\n"); header != "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery" {
			t.Fatalf("rules.csv of a draft with options starts %q", header)
		}
		if n := run(file, "rule", "import", "--project", pr.id, "--replace", "-"); n != fmt.Sprint(len(pr.rules)) {
			t.Fatalf("rule import --replace of rules.csv printed %s, want %d", n, len(pr.rules))
		}
		if got := listed(pr.id); !slices.Equal(got, want) {
			t.Fatalf("project %s: rules.csv imported back with --replace differs:\ngot  %q\nwant %q", pr.id, got, want)
		}
		if again := download(pr.id); strings.Count(again, "\r\n") != strings.Count(file, "\r\n") {
			t.Fatalf("project %s: rules.csv after the round trip has %d lines, before %d", pr.id, strings.Count(again, "\r\n"), strings.Count(file, "\r\n"))
		}
	}
}
