package storetest

import (
	"fmt"
	"testing"
	"time"

	"redirects"
)

func testHits(t *testing.T, e *env) {
	a := e.org("A")
	p, q := e.project(a.ID, "p"), e.project(a.ID, "q")
	t1 := Start.Add(time.Minute)
	t2 := Start.Add(2 * time.Minute)
	add := func(hits ...redirects.RuleHits) {
		t.Helper()
		if err := e.s.AddHits(e.ctx, hits); err != nil {
			t.Fatalf("AddHits: %v", err)
		}
	}
	add(
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 3, LastHit: t2},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.StartsWith, Source: "/a", Hits: 1, LastHit: t1},
		redirects.RuleHits{ProjectID: q.ID, MatchType: redirects.Exact, Source: "/a", Hits: 7, LastHit: t1},
		redirects.RuleHits{ProjectID: "prj_nope", MatchType: redirects.Exact, Source: "/x", Hits: 7, LastHit: t1},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/zero", Hits: 0, LastHit: t1},
	)
	// Another node's flush adds up; an older last hit keeps the newer one,
	// and the same rule twice in one batch adds up too.
	add(
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 2, LastHit: t1},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.StartsWith, Source: "/a", Hits: 4, LastHit: t2},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.StartsWith, Source: "/a", Hits: 1, LastHit: t1},
	)
	got, err := e.s.FindHits(e.ctx, p.ID, nil)
	if err != nil {
		t.Fatalf("FindHits: %v", err)
	}
	want := []redirects.RuleHits{
		{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 5, LastHit: t2},
		{ProjectID: p.ID, MatchType: redirects.StartsWith, Source: "/a", Hits: 6, LastHit: t2},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FindHits(p) = %v\nwant %v", got, want)
	}
	if got, err := e.s.FindHits(e.ctx, p.ID, []string{"/a", "/nope"}); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FindHits(p, /a) = %v, %v; want both rules of /a", got, err)
	}
	if got, err := e.s.FindHits(e.ctx, p.ID, []string{}); err != nil || len(got) != 0 {
		t.Errorf("FindHits(p, no sources) = %v, %v; want none", got, err)
	}
	if got, _ := e.s.FindHits(e.ctx, q.ID, nil); len(got) != 1 || got[0].Hits != 7 {
		t.Errorf("FindHits(q) = %v, want the one rule with 7 hits", got)
	}
	// Bad input changes nothing.
	err = e.s.AddHits(e.ctx, []redirects.RuleHits{
		{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 100, LastHit: t2},
		{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/b", Hits: -1, LastHit: t2},
	})
	if redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("AddHits(negative) = %v, want EINVALID", err)
	}
	if got, _ := e.s.FindHits(e.ctx, p.ID, nil); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a refused AddHits: %v, want %v", got, want)
	}
	// Rules that differ only in their host count apart (docs/contract.md#keys),
	// and pattern and regex rules count.
	add(
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Pattern, Host: "www.example.com", Source: "/:lang/*", Hits: 2, LastHit: t1},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Pattern, Source: "/:lang/*", Hits: 5, LastHit: t1},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Pattern, Host: "www.example.com", Source: "/:lang/*", Hits: 1, LastHit: t2},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Regex, Host: "*.example.com", Source: `/(\d+)`, Hits: 4, LastHit: t2},
	)
	byKey := redirects.HitIndex(mustHits(t, e, p.ID))
	for k, n := range map[redirects.HitKey]int64{
		{MatchType: redirects.Pattern, Host: "www.example.com", Source: "/:lang/*"}: 3,
		{MatchType: redirects.Pattern, Source: "/:lang/*"}:                          5,
		{MatchType: redirects.Regex, Host: "*.example.com", Source: `/(\d+)`}:       4,
		{MatchType: redirects.Exact, Source: "/a"}:                                  5,
	} {
		if byKey[k].Hits != n {
			t.Errorf("hits of %+v: %d, want %d", k, byKey[k].Hits, n)
		}
	}
	// Hits go with their project.
	if err := e.s.DeleteProject(e.ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := e.s.FindHits(e.ctx, q.ID, nil); err != nil || len(got) != 0 {
		t.Errorf("FindHits(deleted project) = %v, %v; want none", got, err)
	}
	// A node that flushed q's rule before its deletion flushes it again:
	// the hits are dropped, and p's, in the same flush, count.
	add(
		redirects.RuleHits{ProjectID: q.ID, MatchType: redirects.Exact, Source: "/a", Hits: 2, LastHit: t2},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 2, LastHit: t2},
	)
	if got, err := e.s.FindHits(e.ctx, q.ID, nil); err != nil || len(got) != 0 {
		t.Errorf("FindHits(deleted project) after a flush naming it = %v, %v; want none", got, err)
	}
	if got := redirects.HitIndex(mustHits(t, e, p.ID))[redirects.HitKey{MatchType: redirects.Exact, Source: "/a"}].Hits; got != 7 {
		t.Errorf("hits of p's exact /a after a flush beside a deleted project: %d, want 7", got)
	}
}

func mustHits(t *testing.T, e *env, projectID string) []redirects.RuleHits {
	t.Helper()
	got, err := e.s.FindHits(e.ctx, projectID, nil)
	if err != nil {
		t.Fatalf("FindHits: %v", err)
	}
	return got
}

func testMisses(t *testing.T, e *env) {
	a := e.org("A")
	p, q := e.project(a.ID, "p"), e.project(a.ID, "q")
	at := func(m int) time.Time { return Start.Add(time.Duration(m) * time.Minute) }
	add := func(misses ...redirects.Miss) {
		t.Helper()
		if err := e.s.AddMisses(e.ctx, misses); err != nil {
			t.Fatalf("AddMisses: %v", err)
		}
	}
	add(
		redirects.Miss{ProjectID: p.ID, Path: "/old", Count: 2, FirstSeen: at(2), LastSeen: at(3)},
		redirects.Miss{ProjectID: p.ID, Path: "/new", Count: 5, FirstSeen: at(1), LastSeen: at(1)},
		redirects.Miss{ProjectID: q.ID, Path: "/old", Count: 1, FirstSeen: at(1), LastSeen: at(1)},
		redirects.Miss{ProjectID: "prj_nope", Path: "/x", Count: 1, FirstSeen: at(1), LastSeen: at(1)},
	)
	add(
		redirects.Miss{ProjectID: p.ID, Path: "/old", Count: 4, FirstSeen: at(1), LastSeen: at(2)},
		redirects.Miss{ProjectID: p.ID, Path: "/b", Count: 6, FirstSeen: at(4), LastSeen: at(5)},
	)
	got, err := e.s.FindMisses(e.ctx, p.ID, 10)
	if err != nil {
		t.Fatalf("FindMisses: %v", err)
	}
	want := []redirects.Miss{
		{ProjectID: p.ID, Path: "/b", Count: 6, FirstSeen: at(4), LastSeen: at(5)},
		{ProjectID: p.ID, Path: "/old", Count: 6, FirstSeen: at(1), LastSeen: at(3)},
		{ProjectID: p.ID, Path: "/new", Count: 5, FirstSeen: at(1), LastSeen: at(1)},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FindMisses = %v\nwant %v", got, want)
	}
	if got, _ := e.s.FindMisses(e.ctx, p.ID, 1); len(got) != 1 || got[0].Path != "/b" {
		t.Errorf("FindMisses(limit 1) = %v, want /b alone", got)
	}
	// Bad input changes nothing.
	err = e.s.AddMisses(e.ctx, []redirects.Miss{
		{ProjectID: p.ID, Path: "/b", Count: 1, FirstSeen: at(6), LastSeen: at(6)},
		{ProjectID: p.ID, Path: "no-slash", Count: 1, FirstSeen: at(6), LastSeen: at(6)},
	})
	if redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("AddMisses(bad path) = %v, want EINVALID", err)
	}
	if err := e.s.DeleteMiss(e.ctx, p.ID, "/b"); err != nil {
		t.Fatalf("DeleteMiss: %v", err)
	}
	if err := e.s.DeleteMiss(e.ctx, p.ID, "/never"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("DeleteMiss(absent) = %v, want ENOTFOUND", err)
	}
	if err := e.s.DeleteMiss(e.ctx, "prj_nope", "/b"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("DeleteMiss(unknown project) = %v, want ENOTFOUND", err)
	}
	if got := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditMissDelete}); len(got) != 1 || got[0].ObjectID != "/b" {
		t.Errorf("audit of DeleteMiss = %v, want one miss.delete of /b", got)
	}
	if got, _ := e.s.FindMisses(e.ctx, p.ID, 10); fmt.Sprint(got) != fmt.Sprint(want[1:]) {
		t.Errorf("after DeleteMiss: %v, want %v", got, want[1:])
	}
	if got, _ := e.s.FindMisses(e.ctx, q.ID, 10); len(got) != 1 || got[0].Count != 1 {
		t.Errorf("FindMisses(q) = %v, want /old once", got)
	}
	// A miss is recorded under the lookup's host: one path on two hosts is
	// two misses; forgetting the path forgets both.
	h := e.project(a.ID, "h")
	add(
		redirects.Miss{ProjectID: h.ID, Path: "/new", Count: 2, FirstSeen: at(1), LastSeen: at(1)},
		redirects.Miss{ProjectID: h.ID, Host: "www.example.com", Path: "/new", Count: 9, FirstSeen: at(6), LastSeen: at(7)},
		redirects.Miss{ProjectID: h.ID, Host: "www.example.com", Path: "/new", Count: 1, FirstSeen: at(8), LastSeen: at(8)},
	)
	hosted := []redirects.Miss{
		{ProjectID: h.ID, Host: "www.example.com", Path: "/new", Count: 10, FirstSeen: at(6), LastSeen: at(8)},
		{ProjectID: h.ID, Path: "/new", Count: 2, FirstSeen: at(1), LastSeen: at(1)},
	}
	if got, _ := e.s.FindMisses(e.ctx, h.ID, 10); fmt.Sprint(got) != fmt.Sprint(hosted) {
		t.Errorf("misses on a host: %v\nwant %v", got, hosted)
	}
	if err := e.s.DeleteMiss(e.ctx, h.ID, "/new"); err != nil {
		t.Fatalf("DeleteMiss(/new): %v", err)
	}
	if got, _ := e.s.FindMisses(e.ctx, h.ID, 10); len(got) != 0 {
		t.Errorf("after DeleteMiss(/new) on two hosts: %v, want none", got)
	}
	// The store keeps the MaxStoredMisses most frequent paths per project.
	var many []redirects.Miss
	for i := range redirects.MaxStoredMisses + 5 {
		many = append(many, redirects.Miss{ProjectID: q.ID, Path: fmt.Sprintf("/m/%05d", i), Count: int64(10 + i), FirstSeen: at(1), LastSeen: at(1)})
	}
	add(many...)
	all, err := e.s.FindMisses(e.ctx, q.ID, 2*redirects.MaxStoredMisses)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != redirects.MaxStoredMisses {
		t.Fatalf("a project keeps %d misses, want %d", len(all), redirects.MaxStoredMisses)
	}
	if last := all[len(all)-1]; last.Count != 15 {
		t.Errorf("least frequent kept: %v, want count 15 (the 6 least frequent went)", last)
	}
	// A full table still takes a path that keeps being missed: it inherits
	// the least count held (15), so it gets in at once, and stays.
	for i := range 3 {
		add(redirects.Miss{ProjectID: q.ID, Path: "/new-broken-link", Count: 1, FirstSeen: at(2 + i), LastSeen: at(2 + i)})
	}
	all, err = e.s.FindMisses(e.ctx, q.ID, 2*redirects.MaxStoredMisses)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range all {
		if m.Path == "/new-broken-link" {
			found = true
			if m.Count != 18 || !m.FirstSeen.Equal(at(2)) || !m.LastSeen.Equal(at(4)) {
				t.Errorf("the new path in a full table: %+v, want count 15+3 and seen from 2 to 4", m)
			}
		}
	}
	if !found || len(all) != redirects.MaxStoredMisses {
		t.Errorf("a full table of %d paths, the new one kept: %v; want %d paths with it", len(all), found, redirects.MaxStoredMisses)
	}
	if got, _ := e.s.FindMisses(e.ctx, p.ID, 10); len(got) != 2 {
		t.Errorf("pruning q touched p: %v", got)
	}
}
