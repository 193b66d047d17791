package http

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
)

// TestMissSketchExact checks that a sketch counts exactly while it sees no
// more distinct paths than it holds, and that take empties it.
func TestMissSketchExact(t *testing.T) {
	var m missSketch
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	want := map[string]int64{}
	for i := range 5000 {
		p := fmt.Sprintf("/p/%d", (i*7919)%missSketchSize)
		m.add(p, t0.Add(time.Duration(i)*time.Millisecond))
		want[p]++
	}
	got := m.take("prj", nil)
	if len(got) != len(want) {
		t.Fatalf("took %d paths, want %d", len(got), len(want))
	}
	for _, g := range got {
		if g.ProjectID != "prj" || g.Count != want[g.Path] {
			t.Errorf("%+v, want count %d", g, want[g.Path])
		}
		if g.LastSeen.Before(g.FirstSeen) || g.FirstSeen.Before(t0) {
			t.Errorf("%+v: first and last seen out of order", g)
		}
	}
	if again := m.take("prj", nil); len(again) != 0 {
		t.Errorf("a second take found %d paths, want none", len(again))
	}
}

// TestMissSketchHeavyHitters checks the space-saving bound: with far more
// distinct paths than the sketch holds, the frequent ones are kept, and no
// count is below the truth.
func TestMissSketchHeavyHitters(t *testing.T) {
	var m missSketch
	now := time.Now()
	heavy := map[string]int64{}
	for i := range 200_000 {
		var p string
		if i%4 == 0 {
			p = fmt.Sprintf("/heavy/%d", i%40)
			heavy[p]++
		} else {
			p = fmt.Sprintf("/once/%d", i)
		}
		m.add(p, now)
	}
	got := m.take("prj", nil)
	if len(got) != missSketchSize {
		t.Fatalf("kept %d paths, want %d", len(got), missSketchSize)
	}
	kept := map[string]int64{}
	for _, g := range got {
		kept[g.Path] = g.Count
	}
	for p, n := range heavy {
		if kept[p] < n {
			t.Errorf("%s: kept count %d, true count %d", p, kept[p], n)
		}
	}
}

func TestMissSketchAllocs(t *testing.T) {
	var m missSketch
	now := time.Now()
	m.add("/a", now)
	if n := testing.AllocsPerRun(100, func() { m.add("/a", now) }); n != 0 {
		t.Errorf("counting a known miss allocates %v times", n)
	}
	// Under settings, a known miss in another spelling is counted under
	// its key without allocating.
	both := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	m.addKey("/Docs/Page/", both, now)
	if n := testing.AllocsPerRun(100, func() { m.addKey("/DOCS/page/", both, now) }); n != 0 {
		t.Errorf("counting a known miss under settings allocates %v times", n)
	}
	got := map[string]int64{}
	for _, e := range m.take("prj", nil) {
		got[e.Path] = e.Count
	}
	if len(got) != 2 || got["/a"] != 102 || got["/docs/page"] != 102 {
		t.Errorf("counted %v, want /a and /docs/page 102 times each", got)
	}
}

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
	f.ok(f.catalog.FlushUsage(f.ctx, now))
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
	f.ok(f.catalog.FlushUsage(f.ctx, now.Add(time.Second)))
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
	f.ok(f.catalog.FlushUsage(f.ctx, time.Now()))
	f.ok(f.catalog.FlushUsage(f.ctx, time.Now()))
	hits, err := f.db.FindHits(f.ctx, f.project.ID, nil)
	f.ok(err)
	if len(hits) != 1 || hits[0].Hits != 2 {
		t.Errorf("hits = %+v, want /a twice (once per snapshot)", hits)
	}
}

// failingStore is a store whose writes of hits and misses fail until told
// otherwise, and which records what it was given once they succeed.
type failingStore struct {
	redirects.Store
	fail   bool
	hits   []redirects.RuleHits
	misses []redirects.Miss
}

func (s *failingStore) AddHits(_ context.Context, h []redirects.RuleHits) error {
	if s.fail {
		return errors.New("the store is away")
	}
	s.hits = append(s.hits, h...)
	return nil
}

func (s *failingStore) AddMisses(_ context.Context, m []redirects.Miss) error {
	if s.fail {
		return errors.New("the store is away")
	}
	s.misses = append(s.misses, m...)
	return nil
}

// TestInsightKeepsCountsWhileTheStoreIsAway checks that counts a failed
// flush gives back are merged, not piled up, and written whole once the
// store is back.
func TestInsightKeepsCountsWhileTheStoreIsAway(t *testing.T) {
	var in insight
	snap := engine.Compile([]redirects.Rule{{ID: 1, Source: "/a", Destination: "/b", StatusCode: 301}})
	in.track("prj", snap)
	m, _ := snap.Lookup("/a")
	sk := in.sketch("prj")
	st := &failingStore{fail: true}
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 50 {
		snap.CountHit(m)
		sk.add("/gone", t0.Add(time.Duration(i)*time.Second))
		if err := in.flush(context.Background(), st, t0.Add(time.Duration(i)*time.Second)); err == nil {
			t.Fatal("a flush to a failing store reported no error")
		}
	}
	if len(in.pendingHits) != 1 || len(in.pendingMisses) != 1 {
		t.Fatalf("after 50 failed flushes: %d pending hits and %d pending misses, want 1 and 1", len(in.pendingHits), len(in.pendingMisses))
	}
	st.fail = false
	if err := in.flush(context.Background(), st, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if len(st.hits) != 1 || st.hits[0].Hits != 50 || len(st.misses) != 1 || st.misses[0].Count != 50 ||
		!st.misses[0].FirstSeen.Equal(t0) || !st.misses[0].LastSeen.Equal(t0.Add(49*time.Second)) {
		t.Fatalf("written once the store is back: %+v %+v", st.hits, st.misses)
	}
	// Beyond maxPendingMisses paths, new ones are not kept.
	st.fail = true
	for i := range maxPendingMisses + 10 {
		in.giveBack(nil, []redirects.Miss{{ProjectID: "prj", Path: fmt.Sprintf("/p/%d", i), Count: 1, FirstSeen: t0, LastSeen: t0}})
	}
	if len(in.pendingMisses) != maxPendingMisses {
		t.Fatalf("%d pending misses, want the cap %d", len(in.pendingMisses), maxPendingMisses)
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
	f.ok(f.catalog.FlushUsage(f.ctx, time.Now()))
	misses, err := f.db.FindMisses(f.ctx, f.project.ID, 10)
	f.ok(err)
	if len(misses) != 1 || misses[0].Path != "/ok" {
		t.Fatalf("misses = %+v, want /ok alone", misses)
	}
}
