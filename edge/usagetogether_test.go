package edge

import (
	"context"
	"errors"
	"testing"
	"time"

	"redirects"
)

// togetherStore records AddUsageTogether calls and fails while down; any
// separate usage write fails the test.
type togetherStore struct {
	CatalogStore
	t       *testing.T
	down    bool
	monthly int64
	daily   int64
	calls   int
}

func (s *togetherStore) AddUsageTogether(_ context.Context, monthly map[string]map[string]int64, daily []redirects.DailyUsage) error {
	s.calls++
	if s.down {
		return errors.New("the store is down")
	}
	for _, m := range monthly {
		for _, n := range m {
			s.monthly += n
		}
	}
	for _, d := range daily {
		s.daily += d.Count
	}
	return nil
}

func (s *togetherStore) AddKeyUsage(context.Context, []redirects.DailyUsage) error {
	s.t.Fatal("the keys' usage was written apart from the monthly usage")
	return nil
}
func (s *togetherStore) AddHits(context.Context, []redirects.RuleHits) error { return nil }
func (s *togetherStore) AddMisses(context.Context, []redirects.Miss) error   { return nil }

// takerLimiter is a limiter's usage as redirects.UsageTaker sees it.
type takerLimiter struct{ pending int64 }

func (l *takerLimiter) Flush(context.Context) error {
	panic("the monthly usage was flushed apart from the keys' usage")
}
func (l *takerLimiter) TakeUsage() map[string]map[string]int64 {
	if l.pending == 0 {
		return nil
	}
	m := map[string]map[string]int64{"2026-03": {"org_a": l.pending}}
	l.pending = 0
	return m
}
func (l *takerLimiter) ReturnUsage(m map[string]map[string]int64) { l.pending += m["2026-03"]["org_a"] }

// TestUsageFlushWritesBothInOneTransaction (finding 8): the limiter's
// monthly usage and the keys' daily usage go to the store in one call
// (one transaction); while the store fails, both are kept for the next
// flush, so what is stored always adds up.
func TestUsageFlushWritesBothInOneTransaction(t *testing.T) {
	store := &togetherStore{t: t, down: true}
	cat := &Catalog{store: store}
	lim := &takerLimiter{}
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	count := func(n int) {
		c := cat.usage.counter("key_a")
		for range n {
			c.add(unixDay(now))
			lim.pending++
		}
	}
	count(7)
	if err := cat.Flush(context.Background(), lim, now); err == nil {
		t.Fatal("a flush to a store that is down succeeded")
	}
	if store.monthly != 0 || store.daily != 0 || lim.pending != 7 {
		t.Fatalf("after a failed flush: stored %d monthly, %d daily; %d pending in the limiter; want 0, 0, 7", store.monthly, store.daily, lim.pending)
	}
	count(5)
	store.down = false
	if err := cat.Flush(context.Background(), lim, now); err != nil {
		t.Fatal(err)
	}
	if store.monthly != 12 || store.daily != 12 {
		t.Fatalf("after the store returned: %d monthly, %d daily; want 12 and 12", store.monthly, store.daily)
	}
	// Monthly usage with no key counts is written alone, still through
	// the one call.
	lim.pending = 3
	calls := store.calls
	if err := cat.Flush(context.Background(), lim, now); err != nil || store.calls != calls+1 || store.monthly != 15 {
		t.Fatalf("monthly usage alone: %v, %d calls, %d monthly", err, store.calls-calls, store.monthly)
	}
}
