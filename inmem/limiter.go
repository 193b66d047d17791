// Package inmem holds the in-process adapters of the domain: the limiter of
// a single node and the buffer that batches its usage writes to the store.
package inmem

import (
	"context"
	"sync"
	"time"

	"redirects"
)

// UsageStore is what a limiter reads and writes of a store: the
// organizations' monthly usage (see redirects.Store). The Redis limiter
// takes the same.
type UsageStore interface {
	// FindUsage returns the monthly usage of every organization that has
	// some in period ("2006-01", UTC).
	FindUsage(ctx context.Context, period string) (map[string]int64, error)
	// AddUsage adds counted live lookups to organizations' monthly usage.
	AddUsage(ctx context.Context, period string, counts map[string]int64) error
}

// Limiter is the redirects.Limiter of a single node: counters in the process,
// monthly usage loaded from and flushed to the store in batches,
// so a restart loses at most the requests counted since the last flush (the
// server calls Flush every http.Config.FlushInterval and on Close).
type Limiter struct {
	store UsageStore

	mu     sync.Mutex
	period string
	orgs   map[string]*orgCounts // by org ID, this period
	stored map[string]int64      // usage the store held for the period at start

	// buffer has its own lock, so Flush writes to the store without
	// holding mu.
	buffer UsageBuffer
}

// orgCounts is one organization's counters: one map lookup per request
// finds them all.
type orgCounts struct {
	minute     int64 // the Unix time of the minute live and test count in
	live, test int64
	// baseLive and baseTest are the part of live and test that the
	// window started from (RaiseMinute): what the cluster had taken when
	// a shared limiter fell back. Handover does not hand them over.
	baseLive, baseTest int64
	used               int64 // this period, stored and pending
	pending            int64 // this period, not yet moved to the buffer
	// alone is what this limiter admitted of the period since the last
	// Handover: what a shared limiter adds to the shared month on its
	// return.
	alone int64
}

// NewLimiter returns a limiter whose monthly usage starts from what
// store holds for the current period.
func NewLimiter(ctx context.Context, store UsageStore, now time.Time) (*Limiter, error) {
	l := &Limiter{store: store, orgs: map[string]*orgCounts{}}
	l.period, _ = redirects.BillingPeriod(now)
	stored, err := store.FindUsage(ctx, l.period)
	if err != nil {
		return nil, err
	}
	l.stored = stored
	return l, nil
}

var (
	_ redirects.Limiter      = (*Limiter)(nil)
	_ redirects.UsageFlusher = (*Limiter)(nil)
)

// Take counts one request and decides it, as redirects.Decide says.
func (l *Limiter) Take(ctx context.Context, u redirects.Usage) redirects.Decision {
	start, _ := redirects.MinuteWindow(u.Now)
	period, _ := redirects.BillingPeriod(u.Now)
	minute := start.Unix()
	l.mu.Lock()
	defer l.mu.Unlock()
	// A request stamped in the minute before the one the limiter is in,
	// or within a minute before its month (it came on another event loop,
	// or waited on a lock, while a later one was counted), counts in the
	// current one: going back would start the earlier window from zero
	// and then the current one again. A time further back is the clock
	// set back, and starts its window as a later one does.
	if period != l.period {
		if next, _ := redirects.BillingPeriod(u.Now.Add(time.Minute)); next != l.period {
			// A new month starts from zero; what is pending for the old
			// one is still flushed under the old period's name.
			l.movePending()
			l.period, l.orgs, l.stored = period, map[string]*orgCounts{}, nil
		}
	}
	c := l.orgs[u.Org.ID]
	if c == nil {
		c = &orgCounts{used: l.stored[u.Org.ID]}
		l.orgs[u.Org.ID] = c
	}
	if minute != c.minute && minute != c.minute-60 {
		c.minute, c.live, c.test, c.baseLive, c.baseTest = minute, 0, 0, 0, 0
	}
	n := &c.live
	if u.Test {
		n = &c.test
	}
	*n++
	d, consume := redirects.Decide(u, *n, c.used)
	if consume {
		c.used++
		c.pending++
		c.alone++
	}
	return d
}

// Raise lifts the month's usage of the given organizations to at least the
// given counts (a shared limiter falling back to per-node counting hands over
// what it knew). Counts of another period than the limiter's are ignored.
func (l *Limiter) Raise(period string, used map[string]int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if period != l.period {
		l.movePending()
		l.period, l.orgs, l.stored = period, map[string]*orgCounts{}, nil
	}
	for org, n := range used {
		c := l.orgs[org]
		if c == nil {
			c = &orgCounts{used: l.stored[org]}
			l.orgs[org] = c
		}
		c.used = max(c.used, n)
	}
}

// RaiseMinute lifts the minute window of start, per organization, to at
// least what the cluster had taken of it (live and test requests): a
// shared limiter falling back to per-node counting in the middle of a
// minute hands over what it last heard from Redis, so a node does not
// admit the whole minute again on its own when the cluster had spent it.
func (l *Limiter) RaiseMinute(start time.Time, live, test map[string]int64) {
	minute := start.Unix()
	l.mu.Lock()
	defer l.mu.Unlock()
	lift := func(n int64, count, base *int64) {
		if n > *base {
			*count += n - *base
			*base = n
		}
	}
	get := func(org string) *orgCounts {
		c := l.orgs[org]
		if c == nil {
			if l.orgs == nil {
				l.orgs = map[string]*orgCounts{}
			}
			c = &orgCounts{used: l.stored[org]}
			l.orgs[org] = c
		}
		if c.minute != minute {
			c.minute, c.live, c.test, c.baseLive, c.baseTest = minute, 0, 0, 0, 0
		}
		return c
	}
	for org, n := range live {
		c := get(org)
		lift(n, &c.live, &c.baseLive)
	}
	for org, n := range test {
		c := get(org)
		lift(n, &c.test, &c.baseTest)
	}
}

// movePending hands the counts not yet flushed to the buffer; l.mu is held.
func (l *Limiter) movePending() {
	for org, c := range l.orgs {
		if c.pending > 0 {
			l.buffer.AddN(l.period, org, c.pending)
			c.pending = 0
		}
	}
}

// Flush writes the usage counted since the last flush to the store. On
// failure the counts stay pending for the next try.
func (l *Limiter) Flush(ctx context.Context) error {
	l.mu.Lock()
	l.movePending()
	l.mu.Unlock()
	return l.buffer.Flush(ctx, l.store)
}

// TakeUsage empties the limiter's unwritten monthly usage and returns it,
// period -> org ID -> count, for the server to write with the keys' daily
// usage in one transaction (see redirects.UsageTaker).
func (l *Limiter) TakeUsage() map[string]map[string]int64 {
	l.mu.Lock()
	l.movePending()
	l.mu.Unlock()
	return l.buffer.Take()
}

// ReturnUsage gives back usage TakeUsage returned that could not be
// written, for the next flush.
func (l *Limiter) ReturnUsage(pending map[string]map[string]int64) { l.buffer.Requeue(pending) }

// Counted is what a node counted by itself for one organization: requests
// in the current minute's live and test windows, the month's lookups it
// admitted since the last Handover (Alone), and the month's usage as it
// knows it (Used: what it started from plus everything it admitted).
type Counted struct {
	Org        string
	Live, Test int64
	Alone      int64
	Used       int64
}

// Handover returns what the limiter counted in the minute and month of now
// and forgets the minute's counts and the month's admissions, so that a
// shared limiter returning to Redis adds them to the shared counters once.
// Unhand puts counts back that could not be added.
func (l *Limiter) Handover(now time.Time) []Counted {
	start, _ := redirects.MinuteWindow(now)
	period, _ := redirects.BillingPeriod(now)
	l.mu.Lock()
	defer l.mu.Unlock()
	if period != l.period {
		return nil
	}
	var out []Counted
	for org, c := range l.orgs {
		k := Counted{Org: org, Used: c.used, Alone: c.alone}
		c.alone = 0
		if c.minute == start.Unix() {
			// The base was the cluster's already: only what this node
			// counted on top is handed over.
			k.Live, k.Test = max(c.live-c.baseLive, 0), max(c.test-c.baseTest, 0)
			c.live, c.test = c.baseLive, c.baseTest
		}
		if k.Live > 0 || k.Test > 0 || k.Alone > 0 || k.Used > 0 {
			out = append(out, k)
		}
	}
	return out
}

// Unhand puts back the minute's counts and the month's admissions of c,
// which Handover returned.
func (l *Limiter) Unhand(c Counted) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o := l.orgs[c.Org]; o != nil {
		o.live += c.Live
		o.test += c.Test
		o.alone += c.Alone
	}
}
