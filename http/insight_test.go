package http

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"redirects"
)

// TestEdgeCountsHitsAndMisses runs lookups through the edge over a real
// SQLite store and checks what a flush writes: the live key's hits per rule
// and misses per path, nothing of the test key's, and hits on an older
// version under their own rule.
func TestEdgeCountsHitsAndMisses(t *testing.T) {
	f := newFixture(t, nil)
	test := f.newKey(true)
	f.refresh()
	lookup := func(key, path, extra string) int {
		t.Helper()
		return f.handle("GET", "/v1/lookup", f.lookupQuery(path)+extra, key).Status
	}
	for range 3 {
		if s := lookup(f.secret, "/a", ""); s != 200 {
			t.Fatalf("lookup /a: %d", s)
		}
	}
	lookup(f.secret, "/b", "")
	lookup(f.secret, "/b", "&version=1") // a miss in version 1
	lookup(f.secret, "/a", "&version=1")
	lookup(f.secret, "/nope?x=1", "")
	lookup(f.secret, "/caf%C3%A9", "")
	lookup(f.secret, "/caf%C3%A9", "")
	for range 5 {
		lookup(test, "/a", "")
		lookup(test, "/nope", "")
	}
	now := time.Now().UTC()
	f.ok(f.catalog.Flush(f.ctx, nil, now))
	hits, err := f.db.FindHits(f.ctx, f.project.ID, nil)
	f.ok(err)
	want := []redirects.RuleHits{
		{ProjectID: f.project.ID, MatchType: redirects.Exact, Source: "/a", Hits: 4, LastHit: now},
		{ProjectID: f.project.ID, MatchType: redirects.Exact, Source: "/b", Hits: 1, LastHit: now},
	}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Errorf("hits = %v\nwant %v", hits, want)
	}
	misses, err := f.db.FindMisses(f.ctx, f.project.ID, 10)
	f.ok(err)
	var got []string
	for _, m := range misses {
		got = append(got, fmt.Sprintf("%s=%d", m.Path, m.Count))
	}
	if w := []string{"/café=2", "/b=1", "/nope=1"}; !slices.Equal(got, w) {
		t.Errorf("misses = %v, want %v", got, w)
	}
	// A second flush adds what came since, to the same rows.
	lookup(f.secret, "/a", "")
	f.ok(f.catalog.Flush(f.ctx, nil, now.Add(time.Second)))
	hits, _ = f.db.FindHits(f.ctx, f.project.ID, nil)
	if hits[0].Hits != 5 || !hits[0].LastHit.Equal(now.Add(time.Second)) {
		t.Errorf("after a second flush: %+v, want 5 hits, last at the second flush", hits[0])
	}
}

// TestEdgeHitsOfReplacedSnapshot checks that hits counted on a snapshot a
// deploy replaced are still written, once, after it is gone.
func TestEdgeHitsOfReplacedSnapshot(t *testing.T) {
	f := newFixture(t, nil)
	f.refresh()
	f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
	f.addRule("/c", "/to-c")
	f.deploy()
	f.refresh()
	f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
	f.ok(f.catalog.Flush(f.ctx, nil, time.Now()))
	f.ok(f.catalog.Flush(f.ctx, nil, time.Now()))
	hits, err := f.db.FindHits(f.ctx, f.project.ID, nil)
	f.ok(err)
	if len(hits) != 1 || hits[0].Hits != 2 {
		t.Errorf("hits = %+v, want /a twice (once per snapshot)", hits)
	}
}

// TestEdgeDoesNotCountUnholdablePaths checks that a missed path no rule
// could hold (not UTF-8, a control character, an empty segment) is not
// counted, and that a good one beside it still is.
func TestEdgeDoesNotCountUnholdablePaths(t *testing.T) {
	f := newFixture(t, nil)
	for _, p := range []string{"/%FF", "/a%00b", "/x%1b[31m", "//double", "/sp%20ace", "/ok"} {
		if w := f.handle("GET", "/v1/lookup", f.lookupQuery(p), f.secret); w.Status != 204 {
			t.Fatalf("lookup %s: %d", p, w.Status)
		}
	}
	f.ok(f.catalog.Flush(f.ctx, nil, time.Now()))
	misses, err := f.db.FindMisses(f.ctx, f.project.ID, 10)
	f.ok(err)
	if len(misses) != 1 || misses[0].Path != "/ok" {
		t.Fatalf("misses = %+v, want /ok alone", misses)
	}
}

// TestEdgeCountsHitsAndMissesByHost: a live lookup's hit counts for the
// rule that answered, named by its host too, so two rules differing only
// in their host count apart; a miss is recorded under the lookup's host
// key (docs/contract.md#keys).
func TestEdgeCountsHitsAndMissesByHost(t *testing.T) {
	f := newFixture(t, nil)
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: "/a", Destination: "/shop-a", StatusCode: 301, MatchType: redirects.Exact, Host: "shop.example.com"}))
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: "/:lang(en|fr)/*", Destination: "/:lang/d/:splat", StatusCode: 301, MatchType: redirects.Pattern}))
	f.deploy()
	f.refresh()
	for _, q := range []string{"&host=shop.example.com", "&host=SHOP.Example.com:443", "", "&host=www.example.com", "/x"} {
		path, host := "/a", q
		if q == "/x" {
			path, host = "/en/x", ""
		}
		if w := f.handle("GET", "/v1/lookup", f.lookupQuery(path)+host, f.secret); w.Status != 200 {
			t.Fatalf("lookup %s%s: %d %s", path, host, w.Status, w.Body)
		}
	}
	for _, host := range []string{"WWW.example.com.", "www.example.com", ""} {
		if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/nope")+"&host="+host, f.secret); w.Status != 204 {
			t.Fatalf("lookup /nope on %q: %d %s", host, w.Status, w.Body)
		}
	}
	now := time.Now().UTC()
	f.ok(f.catalog.Flush(f.ctx, nil, now))
	hits, err := f.db.FindHits(f.ctx, f.project.ID, nil)
	f.ok(err)
	want := []redirects.RuleHits{
		{ProjectID: f.project.ID, MatchType: redirects.Exact, Source: "/a", Hits: 2, LastHit: now},
		{ProjectID: f.project.ID, MatchType: redirects.Exact, Host: "shop.example.com", Source: "/a", Hits: 2, LastHit: now},
		{ProjectID: f.project.ID, MatchType: redirects.Pattern, Source: "/:lang(en|fr)/*", Hits: 1, LastHit: now},
	}
	if fmt.Sprint(hits) != fmt.Sprint(want) {
		t.Errorf("hits = %v\nwant %v", hits, want)
	}
	misses, err := f.db.FindMisses(f.ctx, f.project.ID, 10)
	f.ok(err)
	var got []string
	for _, m := range misses {
		got = append(got, fmt.Sprintf("%s%s=%d", m.Host, m.Path, m.Count))
	}
	if w := []string{"www.example.com/nope=2", "/nope=1"}; !slices.Equal(got, w) {
		t.Errorf("misses = %v, want %v", got, w)
	}
}
