package redirects

import (
	"context"
	"sync/atomic"
	"time"
)

// Refusal says why a request was refused by the limits, if it was.
type Refusal uint8

// Refusals, in the order docs/contract.md#order-of-checks checks them.
const (
	NotRefused Refusal = iota
	QuotaExceeded
	RateLimitExceeded
)

// Usage is the question a Limiter answers for one authenticated request.
type Usage struct {
	Org *Org
	// Test is true for test-mode keys: their own per-minute window, no quota.
	Test bool
	// Lookup is true for /v1/lookup (quota applies), false for /v1/export.
	Lookup bool
	Now    time.Time
}

// Decision is a Limiter's answer and the values of the rate and quota
// headers.
type Decision struct {
	Refused        Refusal
	RateLimit      Limit
	RateRemaining  Limit
	RateReset      time.Time
	QuotaLimit     Limit
	QuotaRemaining Limit
	QuotaReset     time.Time
	// RetryAfter is the whole seconds to wait, when Refused.
	RetryAfter int64
}

// Limiter counts requests against per-minute windows and monthly quotas,
// as docs/contract.md#limits-and-counting defines them. Implementations:
// inmem.Limiter for a single node and redis.Limiter, shared, for many.
type Limiter interface {
	// Take counts one request and decides it.
	Take(ctx context.Context, u Usage) Decision
}

// span is a window of time: a minute or a month.
type span struct {
	start, end time.Time
	name       string
}

// lastMinute and lastPeriod cache the windows of the latest request: every
// request of a minute shares them, and computing a month's name costs a
// formatting and an allocation.
var lastMinute, lastPeriod atomic.Pointer[span]

func (s *span) holds(t time.Time) bool {
	return s != nil && !t.Before(s.start) && t.Before(s.end)
}

// MinuteWindow returns the start and end of the fixed UTC minute holding t.
func MinuteWindow(t time.Time) (start, end time.Time) {
	if s := lastMinute.Load(); s.holds(t) {
		return s.start, s.end
	}
	start = t.UTC().Truncate(time.Minute)
	lastMinute.Store(&span{start: start, end: start.Add(time.Minute)})
	return start, start.Add(time.Minute)
}

// BillingPeriod returns the calendar month (UTC) holding t, as "2006-01",
// and its end.
func BillingPeriod(t time.Time) (period string, end time.Time) {
	if s := lastPeriod.Load(); s.holds(t) {
		return s.name, s.end
	}
	t = t.UTC()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	s := &span{start: start, end: start.AddDate(0, 1, 0), name: start.Format("2006-01")}
	lastPeriod.Store(s)
	return s.name, s.end
}

// Decide applies the counting rules of docs/contract.md#limits-and-counting
// to counts already taken: the request's count in its minute window (this
// request included) and the organization's monthly usage before this
// request. It returns the decision
// and whether the request consumes quota. Limiters share it so that every
// implementation decides alike.
func Decide(u Usage, minuteCount, monthUsed int64) (Decision, bool) {
	_, minuteEnd := MinuteWindow(u.Now)
	_, periodEnd := BillingPeriod(u.Now)
	rate := u.Org.RateLimit()
	if u.Test {
		rate = u.Org.TestRateLimit()
	}
	quota := u.Org.MonthlyQuota()
	d := Decision{
		RateLimit: rate, RateRemaining: Unlimited, RateReset: minuteEnd,
		QuotaLimit: quota, QuotaRemaining: Unlimited, QuotaReset: periodEnd,
	}
	if !rate.IsUnlimited() {
		d.RateRemaining = max(0, rate-Limit(minuteCount))
	}
	if !quota.IsUnlimited() {
		d.QuotaRemaining = max(0, quota-Limit(monthUsed))
	}
	switch {
	case u.Lookup && !u.Test && !quota.IsUnlimited() && Limit(monthUsed) >= quota:
		d.Refused = QuotaExceeded
		d.RetryAfter = ceilSeconds(periodEnd.Sub(u.Now))
	case !rate.IsUnlimited() && Limit(minuteCount) > rate:
		d.Refused = RateLimitExceeded
		d.RetryAfter = ceilSeconds(minuteEnd.Sub(u.Now))
	}
	consume := d.Refused == NotRefused && u.Lookup && !u.Test
	if consume && !quota.IsUnlimited() {
		d.QuotaRemaining = max(0, d.QuotaRemaining-1)
	}
	return d, consume
}

func ceilSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// BlockingLimiter is a Limiter whose Take may wait on the network, as a
// limiter shared through Redis does when it holds no share of a limit. The
// edge answers from event loops that must never wait: it asks TryTake
// there, and moves the whole answer off the loop, to Take, only when
// TryTake cannot decide.
type BlockingLimiter interface {
	Limiter
	// TryTake counts one request and decides it if it can without
	// waiting; ok is false, and nothing was counted, when only Take can.
	TryTake(u Usage) (d Decision, ok bool)
}

// UsageFlusher is implemented by limiters that count usage in memory and
// write it to the store in batches, so the hot path never writes to the
// store. The server calls Flush every flush interval and once more on
// shutdown, so a restart loses at most one interval's counts.
type UsageFlusher interface {
	Flush(ctx context.Context) error
}

// UsageTaker is implemented by limiters whose monthly usage the server
// writes itself, with the keys' daily usage, in one transaction
// (Store.AddUsageTogether), so the two add up whatever ends the process.
type UsageTaker interface {
	// TakeUsage empties the unwritten monthly usage and returns it:
	// period ("2006-01") -> organization ID -> lookups.
	TakeUsage() map[string]map[string]int64
	// ReturnUsage gives back what TakeUsage returned and could not be
	// written, for the next flush.
	ReturnUsage(map[string]map[string]int64)
}
