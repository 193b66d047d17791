package redirects

import (
	"context"
	"sync"
	"time"
)

// LocalLimiter is the Limiter of a single node: counters in the process,
// monthly usage loaded from and flushed to the Store in batches, so a
// restart loses at most the requests counted since the last flush (Flush
// runs every FlushInterval and on Close).
type LocalLimiter struct {
	store Store

	mu      sync.Mutex
	minute  time.Time
	windows map[windowKey]int64
	period  string
	used    map[string]int64 // org ID -> usage this period, stored and pending

	// pending has its own lock, so Flush writes to the store without
	// holding mu.
	pending UsageBuffer
}

type windowKey struct {
	org  string
	test bool
}

// NewLocalLimiter returns a limiter whose monthly usage starts from what
// store holds for the current period.
func NewLocalLimiter(ctx context.Context, store Store, now time.Time) (*LocalLimiter, error) {
	l := &LocalLimiter{store: store, windows: map[windowKey]int64{}}
	l.period, _ = BillingPeriod(now)
	used, err := store.FindUsage(ctx, l.period)
	if err != nil {
		return nil, err
	}
	l.used = used
	return l, nil
}

var _ Limiter = (*LocalLimiter)(nil)

// Take counts one request and decides it, as Decide says.
func (l *LocalLimiter) Take(ctx context.Context, u Usage) Decision {
	start, _ := MinuteWindow(u.Now)
	period, _ := BillingPeriod(u.Now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !start.Equal(l.minute) {
		l.minute = start
		clear(l.windows)
	}
	if period != l.period {
		// A new month starts from zero; what is pending for the old one is
		// still flushed under the old period's name.
		l.period = period
		l.used = map[string]int64{}
	}
	k := windowKey{u.Org.ID, u.Test}
	l.windows[k]++
	d, consume := Decide(u, l.windows[k], l.used[u.Org.ID])
	if consume {
		l.used[u.Org.ID]++
		l.pending.Add(period, u.Org.ID)
	}
	return d
}

// Flush writes the usage counted since the last flush to the store. On
// failure the counts stay pending for the next try.
func (l *LocalLimiter) Flush(ctx context.Context) error {
	return l.pending.Flush(ctx, l.store)
}
