package engine_test

import (
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
)

// extendedRules is a project mixing literal rules with a pattern, a regex,
// host-scoped and conditional rules, with options.
func extendedRules() []redirects.Rule {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{Source: "/old", Destination: "/new", MatchType: redirects.Exact},
		{Source: "/blog/", Destination: "https://blog.example.com/", MatchType: redirects.StartsWith, PreservePath: true},
		{Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", MatchType: redirects.Pattern, PreserveQuery: true},
		{Source: `/v/(\d+)/(?P<page>[a-z]+)`, Destination: "/version/$1/${page}", MatchType: redirects.Regex},
		{Source: "/*", Destination: "https://example.org/:splat", MatchType: redirects.Pattern, Host: "old.example.org"},
		{Source: "/index.php?p=:id", Destination: "/posts/:id", MatchType: redirects.Exact},
		{Source: "/old", Destination: "/new-on-a", MatchType: redirects.Exact, Host: "a.example.com"},
		{Source: "/gone/", MatchType: redirects.StartsWith, StatusCode: 410},
		{Source: "/go/*", Destination: "/:splat", MatchType: redirects.Pattern},
	}
	for i := range rules {
		rules[i].ID, rules[i].CreatedAt, rules[i].Priority = int64(i+1), t0, 100
		if rules[i].StatusCode == 0 {
			rules[i].StatusCode = 301
		}
	}
	return rules
}

// TestLookupHostAnswers: what a snapshot with extended rules answers, by
// host, through both indexes, with the lookup body the edge sends.
func TestLookupHostAnswers(t *testing.T) {
	snap, err := engine.CompileChecked(extendedRules(), redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.ExtendedLen() != 6 || snap.Len() != 9 {
		t.Fatalf("ExtendedLen %d, Len %d; want 6 and 9", snap.ExtendedLen(), snap.Len())
	}
	for _, c := range []struct{ host, wire, body string }{
		{"", "/old", `{"destination":"/new","statusCode":301,"matchType":"exact"}`},
		{"A.Example.com:443", "/old", `{"destination":"/new-on-a","statusCode":301,"matchType":"exact"}`},
		{"b.example.com", "/old", `{"destination":"/new","statusCode":301,"matchType":"exact"}`},
		{"", "/blog/2024/x?y=1", `{"destination":"https://blog.example.com/2024/x","statusCode":301,"matchType":"starts_with"}`},
		{"", "/en/guide/a/b%20c?x=1", `{"destination":"/en/docs/a/b%20c?x=1","statusCode":301,"matchType":"pattern"}`},
		{"", "/v/7/intro", `{"destination":"/version/7/intro","statusCode":301,"matchType":"regex"}`},
		{"old.example.org", "/any/thing", `{"destination":"https://example.org/any/thing","statusCode":301,"matchType":"pattern"}`},
		{"old.example.org", "/old", `{"destination":"/new","statusCode":301,"matchType":"exact"}`},
		{"", "/index.php?p=12", `{"destination":"/posts/12","statusCode":301,"matchType":"exact"}`},
		{"", "/gone/x", `{"destination":"","statusCode":410,"matchType":"starts_with"}`},
		// No open redirect: a splat's leading slashes are made one.
		{"", "/go//evil.example", `{"destination":"/evil.example","statusCode":301,"matchType":"pattern"}`},
	} {
		m, ok := snap.LookupHost(c.host, c.wire)
		if !ok {
			t.Errorf("host %q, %s: no answer, want %s", c.host, c.wire, c.body)
			continue
		}
		if got := string(m.AppendJSON(nil, c.wire)); got != c.body {
			t.Errorf("host %q, %s: %s, want %s", c.host, c.wire, got, c.body)
		}
		m.Release()
	}
	for _, c := range []struct{ host, wire string }{
		{"", "/any/thing"},            // the host-scoped catch-all needs its host
		{"old.example.org.x", "/any"}, // another host
		{"", "/index.php"},            // the condition does not hold
		{"", "/v/x/intro"},            // the regex does not match
	} {
		if m, ok := snap.LookupHost(c.host, c.wire); ok {
			t.Errorf("host %q, %s: answered %s, want no answer", c.host, c.wire, m.AppendJSON(nil, c.wire))
		}
	}
}

// TestLookupHostDoesNotAllocate: in a snapshot with extended rules, exact
// and prefix hits, pattern hits with placeholders and splats, and misses
// allocate nothing, their bodies rendered into a buffer with room.
func TestLookupHostDoesNotAllocate(t *testing.T) {
	// A pattern rule that puts the request's query after its fragment.
	qaf := redirects.Rule{ID: 100, Source: "/d/:page", Destination: "/manual/:page#top", MatchType: redirects.Pattern, StatusCode: 301,
		Priority: 100, PreserveQuery: true, QueryAfterFragment: true}
	// A host-scoped pattern rule that merges the request's query into its
	// destination's, a capture naming one of its parameters.
	mq := redirects.Rule{ID: 101, Source: "/:path*", Host: "vscode.example.com", Destination: "https://m.example/items?itemName=p.e&:path=1",
		MatchType: redirects.Pattern, StatusCode: 308, Priority: 100, PreserveQuery: true, MergeQuery: true}
	for _, st := range []redirects.Settings{{}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		snap, err := engine.CompileChecked(append(extendedRules(), qaf, mq), st)
		if err != nil {
			t.Fatal(err)
		}
		for wire, want := range map[string]string{
			"/a?itemName=x&&k=v&a=2": "https://m.example/items?itemName=p.e&a=1&k=v",
			"/a?itemName=x&a":        "https://m.example/items?itemName=p.e&a=1",
			"/a":                     "https://m.example/items?itemName=p.e&a=1",
		} {
			if m, ok := snap.LookupHost("vscode.example.com", wire); !ok || string(m.AppendTarget(nil, wire)) != want {
				t.Fatalf("settings %v: %s on vscode.example.com answers %q (%v), want %s", st, wire, m.AppendTarget(nil, wire), ok, want)
			}
		}
		if m, ok := snap.LookupHost("", "/d/intro?k=v"); !ok || string(m.AppendTarget(nil, "/d/intro?k=v")) != "/manual/intro#top?k=v" {
			t.Fatalf("settings %v: /d/intro?k=v answers %q (%v), want /manual/intro#top?k=v", st, m.AppendTarget(nil, "/d/intro?k=v"), ok)
		}
		buf := make([]byte, 0, 512)
		for _, c := range []struct{ host, wire string }{
			{"", "/d/intro?k=v"},
			{"vscode.example.com", "/a?itemName=x&&k=v&a=2"},
			{"vscode.example.com", "/a?itemName=x"},
			{"", "/old"},
			{"a.example.com", "/old"},
			{"", "/blog/2024/x"},
			{"", "/en/guide/a/b%20c?x=1"},
			{"old.example.org", "/any/thing"},
			{"", "/index.php?p=12"},
			{"", "/nothing/here"},
		} {
			if n := testing.AllocsPerRun(200, func() {
				m, ok := snap.LookupHost(c.host, c.wire)
				if ok {
					snap.CountHit(m)
					buf = m.AppendJSON(buf[:0], c.wire)
					m.Release()
				}
			}); n != 0 {
				t.Errorf("settings %v, host %q, %s: %v allocations per lookup, want 0", st, c.host, c.wire, n)
			}
		}
	}
}

// TestLiteralSnapshotHasNoSet: a deployment without extended rules is
// compiled as before, with no pattern set.
func TestLiteralSnapshotHasNoSet(t *testing.T) {
	var literal []redirects.Rule
	for _, r := range extendedRules() {
		if !r.Extended() {
			literal = append(literal, r)
		}
	}
	snap, err := engine.CompileChecked(literal, redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.ExtendedLen() != 0 || snap.Len() != len(literal) {
		t.Fatalf("ExtendedLen %d, Len %d: want 0 and %d", snap.ExtendedLen(), snap.Len(), len(literal))
	}
	m, ok := snap.LookupHost("any.example", "/old")
	if !ok || string(m.JSON()) != `{"destination":"/new","statusCode":301,"matchType":"exact"}` || m.Computed("/old") {
		t.Fatalf("a literal hit on a host: %v %s", ok, m.JSON())
	}
}

// TestCompileCheckedRefusesABadRule: a rule the pattern engine refuses is
// named in the error, not compiled into a snapshot that answers wrongly.
func TestCompileCheckedRefusesABadRule(t *testing.T) {
	rules := extendedRules()
	rules[2].Destination = "/:nope"
	_, err := engine.CompileChecked(rules, redirects.Settings{})
	if err == nil || !strings.Contains(err.Error(), "rule 3 (pattern /:lang/guide/*)") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("err = %v, want one naming rule 3 and the capture", err)
	}
}
