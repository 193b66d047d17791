package storetest

import "testing"

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
