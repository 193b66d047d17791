package storetest

import (
	"slices"
	"testing"

	"redirects"
)

func testUsageAdd(t *testing.T, e *env) {
	a, b := e.org("A"), e.org("B")
	if err := e.s.AddUsage(e.ctx, "2026-03", map[string]int64{a.ID: 5, b.ID: 1}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	if err := e.s.AddUsage(e.ctx, "2026-03", map[string]int64{a.ID: 7, "org_nope": 3}); err != nil {
		t.Fatalf("AddUsage(with an unknown organization): %v", err)
	}
	if err := e.s.AddUsage(e.ctx, "2026-04", map[string]int64{b.ID: 2}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	for period, want := range map[string]map[string]int64{
		"2026-03": {a.ID: 12, b.ID: 1},
		"2026-04": {b.ID: 2},
		"2026-05": {},
	} {
		got, err := e.s.FindUsage(e.ctx, period)
		if err != nil {
			t.Fatalf("FindUsage(%s): %v", period, err)
		}
		if len(got) != len(want) {
			t.Errorf("FindUsage(%s) = %v, want %v", period, got, want)
		}
		for org, n := range want {
			if got[org] != n {
				t.Errorf("FindUsage(%s)[%s] = %d, want %d", period, org, got[org], n)
			}
		}
	}
}

func testUsageDaily(t *testing.T, e *env) {
	a, b := e.org("A"), e.org("B")
	pa, pb := e.project(a.ID, "a"), e.project(b.ID, "b")
	ka1, _ := e.key(pa.ID, false)
	ka2, _ := e.key(pa.ID, false)
	kb, _ := e.key(pb.ID, false)
	if err := e.s.AddKeyUsage(e.ctx, []redirects.DailyUsage{
		{KeyID: ka1.ID, Day: "2026-03-01", Count: 3},
		{KeyID: ka2.ID, Day: "2026-03-01", Count: 1},
		{KeyID: ka1.ID, Day: "2026-03-31", Count: 2},
		{KeyID: kb.ID, Day: "2026-03-02", Count: 9},
		{KeyID: ka1.ID, Day: "2026-04-01", Count: 4},
		{KeyID: "key_nope", Day: "2026-03-01", Count: 5},
		{KeyID: ka2.ID, Day: "2026-03-05", Count: 0},
	}); err != nil {
		t.Fatalf("AddKeyUsage: %v", err)
	}
	// A second flush adds to the same rows; a key twice in one batch adds up.
	if err := e.s.AddKeyUsage(e.ctx, []redirects.DailyUsage{
		{KeyID: ka1.ID, Day: "2026-03-01", Count: 10},
		{KeyID: ka1.ID, Day: "2026-03-01", Count: 1},
	}); err != nil {
		t.Fatalf("AddKeyUsage: %v", err)
	}
	if err := e.s.AddKeyUsage(e.ctx, nil); err != nil {
		t.Fatalf("AddKeyUsage(nothing): %v", err)
	}
	want := func(org, month string, rows ...redirects.DailyUsage) {
		t.Helper()
		got, err := e.s.FindDailyUsage(e.ctx, org, month)
		if err != nil {
			t.Fatalf("FindDailyUsage(%s): %v", month, err)
		}
		if got == nil || !slices.Equal(got, rows) {
			t.Fatalf("FindDailyUsage(%s, %s) = %+v, want %+v", org, month, got, rows)
		}
	}
	// By day, then key ID.
	first, second := ka1.ID, ka2.ID
	n1, n2 := int64(14), int64(1)
	if second < first {
		first, second, n1, n2 = second, first, n2, n1
	}
	want(a.ID, "2026-03",
		redirects.DailyUsage{KeyID: first, Day: "2026-03-01", Count: n1},
		redirects.DailyUsage{KeyID: second, Day: "2026-03-01", Count: n2},
		redirects.DailyUsage{KeyID: ka1.ID, Day: "2026-03-31", Count: 2})
	want(a.ID, "2026-04", redirects.DailyUsage{KeyID: ka1.ID, Day: "2026-04-01", Count: 4})
	want(b.ID, "2026-03", redirects.DailyUsage{KeyID: kb.ID, Day: "2026-03-02", Count: 9})
	want(b.ID, "2026-05")
	want("org_nope", "2026-03")

	// Bad input changes nothing.
	for _, bad := range [][]redirects.DailyUsage{
		{{KeyID: ka1.ID, Day: "2026-3-01", Count: 1}},
		{{KeyID: ka1.ID, Day: "2026-03-32", Count: 1}},
		{{KeyID: "", Day: "2026-03-01", Count: 1}},
		{{KeyID: ka1.ID, Day: "2026-03-01", Count: 1}, {KeyID: ka1.ID, Day: "2026-03-01", Count: -1}},
	} {
		if err := e.s.AddKeyUsage(e.ctx, bad); redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("AddKeyUsage(%+v) = %v, want EINVALID", bad, err)
		}
	}
	if _, err := e.s.FindDailyUsage(e.ctx, a.ID, "2026-3"); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("FindDailyUsage(2026-3) = %v, want EINVALID", err)
	}
	want(b.ID, "2026-03", redirects.DailyUsage{KeyID: kb.ID, Day: "2026-03-02", Count: 9})

	// The usage outlives the key's project and goes with the organization.
	if err := e.s.DeleteProject(e.ctx, pb.ID); err != nil {
		t.Fatal(err)
	}
	want(b.ID, "2026-03", redirects.DailyUsage{KeyID: kb.ID, Day: "2026-03-02", Count: 9})
	if err := e.s.DeleteOrg(e.ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	want(b.ID, "2026-03")
}

// testUsageTogether: AddUsageTogether writes the monthly totals and the
// keys' daily counts at once; a batch with a bad part writes neither.
func testUsageTogether(t *testing.T, e *env) {
	a := e.org("A")
	pa := e.project(a.ID, "a")
	k, _ := e.key(pa.ID, false)
	monthly := map[string]map[string]int64{"2026-03": {a.ID: 9}, "2026-04": {a.ID: 1}}
	daily := []redirects.DailyUsage{{KeyID: k.ID, Day: "2026-03-31", Count: 9}, {KeyID: k.ID, Day: "2026-04-01", Count: 1}}
	if err := e.s.AddUsageTogether(e.ctx, monthly, daily); err != nil {
		t.Fatalf("AddUsageTogether: %v", err)
	}
	bad := []redirects.DailyUsage{{KeyID: k.ID, Day: "2026-13-01", Count: 1}}
	if err := e.s.AddUsageTogether(e.ctx, map[string]map[string]int64{"2026-03": {a.ID: 1}}, bad); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("AddUsageTogether(a bad day) = %v, want EINVALID", err)
	}
	if err := e.s.AddUsageTogether(e.ctx, map[string]map[string]int64{"2026-3": {a.ID: 1}}, daily); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("AddUsageTogether(a bad period) = %v, want EINVALID", err)
	}
	for _, month := range []string{"2026-03", "2026-04"} {
		total, err := e.s.FindUsage(e.ctx, month)
		if err != nil {
			t.Fatal(err)
		}
		days, err := e.s.FindDailyUsage(e.ctx, a.ID, month)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, d := range days {
			sum += d.Count
		}
		if total[a.ID] != sum || sum == 0 {
			t.Errorf("%s: monthly total %d, daily counts add up to %d; want equal and not 0", month, total[a.ID], sum)
		}
	}
}
