package edge

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
)

// TestMissSketchExact checks that a sketch counts exactly while it sees no
// more distinct paths than it holds, and that take empties it.
func TestMissSketchExact(t *testing.T) {
	var m MissSketch
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
	var m MissSketch
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
	var m MissSketch
	now := time.Now()
	m.add("/a", now)
	if n := testing.AllocsPerRun(100, func() { m.add("/a", now) }); n != 0 {
		t.Errorf("counting a known miss allocates %v times", n)
	}
	// Under settings, a known miss in another spelling is counted under
	// its key without allocating.
	both := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	m.addKey("", "/Docs/Page/", both, now)
	if n := testing.AllocsPerRun(100, func() { m.addKey("", "/DOCS/page/", both, now) }); n != 0 {
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
