package inmem_test

import (
	"context"
	"testing"
	"time"

	"redirects"
	"redirects/inmem"
)

// usageStore is a fake Store for the limiter's usage calls only.
type usageStore struct {
	redirects.Store
	usage map[string]map[string]int64
	fail  error
}

func (s *usageStore) FindUsage(_ context.Context, period string) (map[string]int64, error) {
	out := map[string]int64{}
	for k, v := range s.usage[period] {
		out[k] = v
	}
	return out, nil
}

func (s *usageStore) AddUsage(_ context.Context, period string, counts map[string]int64) error {
	if s.fail != nil {
		return s.fail
	}
	if s.usage[period] == nil {
		s.usage[period] = map[string]int64{}
	}
	for k, v := range counts {
		s.usage[period][k] += v
	}
	return nil
}

func limitPtr(l redirects.Limit) *redirects.Limit { return &l }

func TestLimiterRateWindow(t *testing.T) {
	store := &usageStore{usage: map[string]map[string]int64{}}
	now := time.Date(2026, 3, 10, 12, 30, 15, 500e6, time.UTC)
	l, err := inmem.NewLimiter(context.Background(), store, now)
	if err != nil {
		t.Fatal(err)
	}
	org := &redirects.Org{ID: "org_a", Tier: redirects.TierFree, RateLimitOverride: limitPtr(3)}
	for i := 1; i <= 3; i++ {
		d := l.Take(context.Background(), redirects.Usage{Org: org, Lookup: true, Now: now})
		if d.Refused != redirects.NotRefused || d.RateRemaining != redirects.Limit(3-i) || d.RateLimit != 3 {
			t.Fatalf("request %d: %+v, want admitted with %d remaining", i, d, 3-i)
		}
		if want := time.Date(2026, 3, 10, 12, 31, 0, 0, time.UTC); !d.RateReset.Equal(want) {
			t.Fatalf("rate reset %v, want %v", d.RateReset, want)
		}
		if want := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC); !d.QuotaReset.Equal(want) {
			t.Fatalf("quota reset %v, want %v", d.QuotaReset, want)
		}
		if d.QuotaLimit != 10000 || d.QuotaRemaining != redirects.Limit(10000-i) {
			t.Fatalf("request %d quota: %+v", i, d)
		}
	}
	d := l.Take(context.Background(), redirects.Usage{Org: org, Lookup: true, Now: now})
	if d.Refused != redirects.RateLimitExceeded || d.RetryAfter != 45 || d.RateRemaining != 0 {
		t.Fatalf("4th request: %+v, want RATE_LIMIT_EXCEEDED, Retry-After 45 (44.5 s rounded up)", d)
	}
	if d.QuotaRemaining != 10000-3 {
		t.Fatalf("a refused request consumed quota: %+v", d)
	}
	// Test keys have their own window, so live traffic's refusal does not touch them.
	if d := l.Take(context.Background(), redirects.Usage{Org: org, Test: true, Lookup: true, Now: now}); d.Refused != redirects.NotRefused || d.RateLimit != 3 || d.RateRemaining != 2 {
		t.Fatalf("test key: %+v, want its own window with the org's lower limit 3", d)
	}
	// The next minute starts afresh.
	next := now.Add(45 * time.Second)
	if d := l.Take(context.Background(), redirects.Usage{Org: org, Lookup: true, Now: next}); d.Refused != redirects.NotRefused || d.RateRemaining != 2 {
		t.Fatalf("next minute: %+v", d)
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := store.usage["2026-03"]["org_a"]; got != 4 {
		t.Fatalf("flushed usage %d, want 4 (refused requests and test keys consume none)", got)
	}
}

func TestLimiterQuota(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC)
	store := &usageStore{usage: map[string]map[string]int64{"2026-01": {"org_q": 8}}}
	l, err := inmem.NewLimiter(ctx, store, now)
	if err != nil {
		t.Fatal(err)
	}
	org := &redirects.Org{ID: "org_q", Tier: redirects.TierPro, QuotaOverride: limitPtr(10)}
	for i := 0; i < 2; i++ {
		if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
			t.Fatalf("lookup %d within quota refused: %+v", i, d)
		}
	}
	d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now})
	if d.Refused != redirects.QuotaExceeded || d.RetryAfter != 60 || d.QuotaRemaining != 0 {
		t.Fatalf("lookup over quota: %+v, want QUOTA_EXCEEDED with Retry-After 60 (to Feb 1)", d)
	}
	if d.RateRemaining != 1000-3 {
		t.Fatalf("a quota refusal must still count in the minute window: %+v", d)
	}
	if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: false, Now: now}); d.Refused != redirects.NotRefused {
		t.Fatalf("export refused for quota: %+v", d)
	}
	if d := l.Take(ctx, redirects.Usage{Org: org, Test: true, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
		t.Fatalf("test key refused for quota: %+v", d)
	}
	// A new month starts from zero.
	if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now.Add(time.Minute)}); d.Refused != redirects.NotRefused || d.QuotaRemaining != 9 {
		t.Fatalf("first lookup of February: %+v", d)
	}
	store.fail = context.DeadlineExceeded
	if err := l.Flush(ctx); err == nil {
		t.Fatal("Flush hid a store failure")
	}
	store.fail = nil
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if store.usage["2026-01"]["org_q"] != 10 || store.usage["2026-02"]["org_q"] != 1 {
		t.Fatalf("usage after a failed then a good flush: %v, want January 10 and February 1", store.usage)
	}
}

// TestHandoverCountsWhatWasAdmitted checks what a shared limiter adds to
// the shared counters on its return: the lookups admitted since the last
// handover (not the month's whole usage, which other nodes' counters hold
// in part), once; and again after Unhand, if they could not be added.
func TestHandoverCountsWhatWasAdmitted(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	store := &usageStore{usage: map[string]map[string]int64{"2026-01": {"org_h": 5}}}
	l, err := inmem.NewLimiter(ctx, store, now)
	if err != nil {
		t.Fatal(err)
	}
	l.Raise("2026-01", map[string]int64{"org_h": 7})
	org := &redirects.Org{ID: "org_h", Tier: redirects.TierPro, QuotaOverride: limitPtr(10)}
	for i := 0; i < 4; i++ {
		l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now}) // 3 admitted, 1 refused
	}
	c := l.Handover(now)
	if len(c) != 1 || c[0].Alone != 3 || c[0].Used != 10 || c[0].Live != 4 {
		t.Fatalf("handover %+v, want 3 admitted alone, 10 used, 4 in the window", c)
	}
	if again := l.Handover(now); len(again) != 1 || again[0].Alone != 0 || again[0].Live != 0 {
		t.Fatalf("second handover %+v, want nothing new", again)
	}
	l.Unhand(c[0])
	if again := l.Handover(now); len(again) != 1 || again[0].Alone != 3 || again[0].Live != 4 {
		t.Fatalf("handover after Unhand %+v, want the 3 and the 4 again", again)
	}
}

// TestLimiterLateRequests checks requests stamped before the window the
// limiter is in (another event loop's earlier wake-up, counted after a
// later one): they count in the current minute and month, which they
// neither empty nor take back, and the earlier window is not started
// again.
func TestLimiterLateRequests(t *testing.T) {
	ctx := context.Background()
	late := time.Date(2026, 1, 31, 23, 59, 59, 999e6, time.UTC) // January's last minute
	early := late.Add(2 * time.Millisecond)                     // February's first
	store := &usageStore{usage: map[string]map[string]int64{"2026-01": {"org_l": 50}}}
	l, err := inmem.NewLimiter(ctx, store, late)
	if err != nil {
		t.Fatal(err)
	}
	org := &redirects.Org{ID: "org_l", Tier: redirects.TierPro, RateLimitOverride: limitPtr(2), QuotaOverride: limitPtr(50)}
	// January's quota is spent: the last minute of January refuses.
	if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: late}); d.Refused != redirects.QuotaExceeded {
		t.Fatalf("lookup over January's quota: %+v", d)
	}
	var admitted int
	for i := range 20 {
		now := early
		if i%2 == 1 {
			now = late
		}
		if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
			admitted++
		}
	}
	if admitted != 2 {
		t.Fatalf("%d of 20 lookups at February's first minute and, late, January's last admitted, want 2 (the rate limit)", admitted)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if store.usage["2026-01"]["org_l"] != 50 || store.usage["2026-02"]["org_l"] != 2 {
		t.Fatalf("usage %v, want January's 50 untouched and February 2", store.usage)
	}
}

// TestLimiterClockSetBack checks a time further back than the minute
// before: the system clock set back, whose minute starts from zero, as a
// later one does (held to the later minute, the limit would refuse until
// the clock caught up).
func TestLimiterClockSetBack(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 12, 30, 15, 0, time.UTC)
	l, err := inmem.NewLimiter(ctx, &usageStore{usage: map[string]map[string]int64{}}, now)
	if err != nil {
		t.Fatal(err)
	}
	org := &redirects.Org{ID: "org_b", Tier: redirects.TierFree, RateLimitOverride: limitPtr(1)}
	if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
		t.Fatalf("first lookup: %+v", d)
	}
	if d := l.Take(ctx, redirects.Usage{Org: org, Lookup: true, Now: now.Add(-10 * time.Minute)}); d.Refused != redirects.NotRefused || d.RateRemaining != 0 {
		t.Fatalf("lookup after the clock went back ten minutes: %+v, want admitted in a window of its own", d)
	}
}
