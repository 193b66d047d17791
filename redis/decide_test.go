package redis

import (
	"testing"
	"time"

	"redirects"
)

// TestDecideLocallyInHand checks decideLocally's arithmetic on a node's
// shares, without Redis: a request that holds a unit of one limit and
// none of the other spends the unit it holds and is decided on the
// node's own budget for the other only; past the budget for the month, it
// is refused as a per-minute refusal, not as a used-up quota.
func TestDecideLocallyInHand(t *testing.T) {
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	start, _ := redirects.MinuteWindow(now)
	period, _ := redirects.BillingPeriod(now)
	limiter := func() *Limiter { return &Limiter{epoch: time.Now()} }
	usage := func(rate, quota redirects.Limit) redirects.Usage {
		return redirects.Usage{Org: &redirects.Org{ID: "o", RateLimitOverride: &rate, QuotaOverride: &quota}, Lookup: true, Now: now}
	}

	// 3 minute units in hand, 95 of 100 taken; the month's share spent.
	l := limiter()
	ol := &orgLease{id: "o", live: share{window: start.Unix(), left: 3, granted: 95}, period: period,
		quota: share{granted: 10}}
	d := l.decideLocally(usage(100, 1000), ol)
	if d.Refused != redirects.NotRefused || ol.live.left != 2 || ol.live.owed != 0 || ol.quota.owed != 1 || l.localAdmits.Load() != 1 {
		t.Fatalf("minute unit in hand: %+v, live %+v, quota %+v, %d local", d, ol.live, ol.quota, l.localAdmits.Load())
	}

	// 3 month units in hand, 95 of 100 taken; the minute's share spent,
	// 10 of 1,000 taken. The headers count as spend does: 92 used before
	// this lookup, 7 remaining after it.
	l = limiter()
	ol = &orgLease{id: "o", live: share{window: start.Unix(), granted: 10}, period: period,
		quota: share{left: 3, granted: 95}}
	d = l.decideLocally(usage(1000, 100), ol)
	if d.Refused != redirects.NotRefused || ol.quota.left != 2 || ol.quota.owed != 0 || ol.live.owed != 1 || d.QuotaRemaining != 7 {
		t.Fatalf("month unit in hand: %+v, live %+v, quota %+v", d, ol.live, ol.quota)
	}

	// Nothing of the month in hand, and its budget (a sixteenth of the 5
	// left: none) spent: refused until the minute ends, not the month.
	l = limiter()
	ol = &orgLease{id: "o", live: share{window: start.Unix(), left: 3, granted: 10}, period: period,
		quota: share{granted: 95}}
	d = l.decideLocally(usage(1000, 100), ol)
	if d.Refused != redirects.RateLimitExceeded || d.RetryAfter != 55 || ol.quota.owed != 0 || l.localAdmits.Load() != 0 {
		t.Fatalf("month budget spent: %+v, quota %+v, want RATE_LIMIT_EXCEEDED with Retry-After 55", d, ol.quota)
	}

	// Far from both limits, with nothing in hand: admitted on the budget
	// (a sixteenth of 990 is 61), then refused.
	l = limiter()
	ol = &orgLease{id: "o", live: share{window: start.Unix(), granted: 10}, period: period, quota: share{granted: 10}}
	admitted := 0
	for i := 0; i < 100; i++ {
		if l.decideLocally(usage(1000, 1000), ol).Refused == redirects.NotRefused {
			admitted++
		}
	}
	if admitted != 61 || ol.live.owed != 61 || ol.quota.owed != 61 || l.localAdmits.Load() != 61 {
		t.Fatalf("%d admitted on the budget (owed %d, %d), want 61", admitted, ol.live.owed, ol.quota.owed)
	}
}
