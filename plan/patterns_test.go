package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/api"
	"redirects/internal/rulegen"
)

// TestProjectFileRoundTripAnyKind: random rules of every kind, host, query
// condition, capture, status and option, written into a project file as
// api.RuleFileOf writes them (defaults left out), are read back equal, in
// order.
func TestProjectFileRoundTripAnyKind(t *testing.T) {
	dir := t.TempDir()
	kinds := map[redirects.MatchType]int{}
	rapid.Check(t, func(rt *rapid.T) {
		drawn := rapid.SliceOfN(rulegen.AnyKind(), 0, 25).Draw(rt, "rules")
		type key struct {
			mt           redirects.MatchType
			host, source string
		}
		seen := map[key]bool{}
		var rules []redirects.Rule
		files := []api.RuleFile{}
		for _, r := range drawn {
			if r.Validate() != nil || seen[key{r.MatchType, r.Host, r.Source}] {
				continue
			}
			seen[key{r.MatchType, r.Host, r.Source}] = true
			rules = append(rules, r)
			files = append(files, api.RuleFileOf(&r))
			kinds[r.MatchType]++
		}
		body, err := json.Marshal(map[string]any{"project": "prj_x", "rules": files})
		if err != nil {
			rt.Fatal(err)
		}
		path := filepath.Join(dir, "redirects.json")
		if err := os.WriteFile(path, body, 0o644); err != nil {
			rt.Fatal(err)
		}
		d, err := Read(path)
		if err != nil {
			rt.Fatalf("Read: %v\n%s", err, body)
		}
		if len(d.Rules) != len(rules) {
			rt.Fatalf("read %d rules of %d\n%s", len(d.Rules), len(rules), body)
		}
		for i, want := range rules {
			got := d.Rules[i]
			if got.Source != want.Source || got.Destination != want.Destination || got.StatusCode != want.StatusCode ||
				got.MatchType != want.MatchType || got.Priority != want.Priority || got.Host != want.Host ||
				got.PreservePath != want.PreservePath || got.PreserveQuery != want.PreserveQuery || got.QueryAfterFragment != want.QueryAfterFragment ||
				got.MergeQuery != want.MergeQuery {
				rt.Fatalf("rule %d came back as %+v, want %+v\n%s", i, got, want, body)
			}
		}
	})
	for _, mt := range redirects.MatchTypes {
		if kinds[mt] == 0 {
			t.Errorf("no valid %s rule was drawn: the round trip did not try that kind", mt)
		}
	}
}

// TestReadPatternsAndHosts: a project file's rules take host and the
// pattern and regex match types; a bad pattern is refused with its
// position, a bad host naming the field, and two rules of one match type,
// host and source as a repeat, while one source on two hosts is two rules.
func TestReadPatternsAndHosts(t *testing.T) {
	d, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [
		{"source": "/moved", "destination": "/a", "host": "Old.Example.COM"},
		{"source": "/moved", "destination": "/b"},
		{"source": "/:lang/docs/*", "destination": "/:lang/guide/:splat", "matchType": "pattern", "host": "*.example.org"},
		{"source": "^/p/(\\d+)$", "destination": "/posts/$1", "matchType": "regex", "statusCode": 308}]}`})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Rules) != 4 || d.Rules[0].Host != "old.example.com" || d.Rules[1].Host != "" ||
		d.Rules[2].MatchType != redirects.Pattern || d.Rules[2].Host != "*.example.org" || d.Rules[3].MatchType != redirects.Regex {
		t.Fatalf("rules = %+v", d.Rules)
	}
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [
		{"source": "/:a:b", "destination": "/x", "matchType": "pattern"},
		{"source": "/a", "destination": "/b", "host": "not a host"},
		{"source": "/e", "destination": "/f", "host": "example.com"},
		{"source": "/e", "destination": "/g", "host": "EXAMPLE.com."},
		{"source": "/e", "destination": "/h", "matchType": "glob"}]}`})
	wantRefused(t, err, `rules[0] (source "/:a:b"): `, "byte", `rules[1] (source "/a"): `, "host",
		`rules[3]: a exact rule for source "/e" on host example.com is already rules[2]`,
		`rules[4] (source "/e"): matchType "glob" is not one of exact, starts_with, pattern, regex`)
}
