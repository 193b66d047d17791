package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"redirects"
)

// TestRuleUpdate410SendsWhatTheRuleHas: rule update --status 410 through
// the management API (a real serve, a recording proxy in front of it)
// turns off only the options the rule has, so a server older than an
// option is never sent a field it does not know; each rule ends a 410
// without a destination or an option.
func TestRuleUpdate410SendsWhatTheRuleHas(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "served.db")
	org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	project, _ := runCLI(t, db, 0, "project", "create", "--org", strings.TrimSpace(org), "--name", "www")
	project = strings.TrimSpace(project)
	token, _ := runCLI(t, db, 0, "token", "create", "--org", strings.TrimSpace(org), "--role", "owner", "--name", "cli")
	token = strings.TrimSpace(token)
	rules := []struct {
		args []string
		want []string // the fields the PATCH sends
	}{
		{[]string{"--source", "/plain", "--destination", "/b"}, []string{"destination", "statusCode"}},
		{[]string{"--source", "/q", "--destination", "/b", "--preserve-query"}, []string{"destination", "preserveQuery", "statusCode"}},
		{[]string{"--source", "/m", "--destination", "/items?n=1", "--preserve-query", "--merge-query"}, []string{"destination", "mergeQuery", "preserveQuery", "statusCode"}},
		{[]string{"--source", "/f", "--destination", "/doc#top", "--preserve-query", "--query-after-fragment"}, []string{"destination", "preserveQuery", "queryAfterFragment", "statusCode"}},
		{[]string{"--source", "/p/", "--destination", "/n/", "--match", "starts_with", "--preserve-path"}, []string{"destination", "preservePath", "statusCode"}},
		{[]string{"--source", "/g", "--status", "410"}, []string{"statusCode"}},
	}
	var ids []string
	for _, r := range rules {
		out, _ := runCLI(t, db, 0, append([]string{"rule", "add", "--project", project}, r.args...)...)
		ids = append(ids, strings.TrimSpace(out))
	}
	addr := freeAddr(t)
	start(t, db, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get("http://" + addr + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	var mu sync.Mutex
	var patches []map[string]any
	target, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			b, _ := io.ReadAll(r.Body)
			var body map[string]any
			if err := json.Unmarshal(b, &body); err != nil {
				t.Errorf("a PATCH body that is not JSON: %q", b)
			}
			mu.Lock()
			patches = append(patches, body)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		proxy.ServeHTTP(w, r)
	}))
	defer rec.Close()
	for i, r := range rules {
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
		if _, errs, code := runMain(t, m, []string{"--api", rec.URL, "--token", token, "rule", "update", "--project", project, ids[i], "--status", "410"}); code != 0 {
			t.Fatalf("rule update %v --status 410: exit %d: %s", r.args, code, errs)
		}
		mu.Lock()
		body := patches[len(patches)-1]
		mu.Unlock()
		var got []string
		for k := range body {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, r.want) {
			t.Errorf("rule %v: the PATCH sent %v, want %v", r.args, got, r.want)
		}
	}
	out, _ := runCLI(t, db, 0, "rule", "list", "--project", project, "--json")
	var stored []struct {
		Source, Destination                                         string
		StatusCode                                                  int
		PreservePath, PreserveQuery, QueryAfterFragment, MergeQuery bool
	}
	if err := json.Unmarshal([]byte(out), &stored); err != nil {
		t.Fatalf("rule list --json: %v\n%s", err, out)
	}
	for _, r := range stored {
		if r.StatusCode != redirects.StatusGone || r.Destination != "" || r.PreservePath || r.PreserveQuery || r.QueryAfterFragment || r.MergeQuery {
			t.Errorf("after --status 410: %+v", r)
		}
	}
	if len(stored) != len(rules) {
		t.Fatalf("%d rules listed, want %d", len(stored), len(rules))
	}
}
