package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"redirects"
	"redirects/inmem"
)

// Bounds of the shared limiter's waits, in docs/operations.md's words.
const (
	// MaxWait is the longest a request waits for Redis: past it, the
	// request is decided by what the node last heard from Redis
	// (decideLocally).
	MaxWait = 50 * time.Millisecond
	// recheck is how long a node that found a counter exhausted refuses
	// on its own before asking Redis again (other nodes give back what
	// they do not use).
	recheck = 100 * time.Millisecond
	// idleAfter is how long a share may go unused before it goes back if
	// its counter is short; longIdle, whatever the counter.
	idleAfter = 200 * time.Millisecond
	longIdle  = 10 * time.Second
	// slowToFallback round trips in a row slower than MaxWait (or failing)
	// make the node fall back to its own counts.
	slowToFallback = 3
	// holdFallback is how long Redis must answer every probe within
	// MaxWait before the node shares limits again, and the least time a
	// fallback lasts: limits cannot flap faster than that.
	holdFallback = 3 * time.Second
	probeEvery   = 250 * time.Millisecond
)

var errUnexpected = errors.New("redis: unexpected reply to the limit script")

// Limiter is a redirects.Limiter whose counters live in Redis, shared by
// every node that uses the same Redis and key prefix. A node does not ask
// Redis about every request: it takes a share of an organization's minute
// window and month (leaseScript), spends it from memory, and comes back for
// more before it runs out. Shares shrink near a limit to what the requests
// waiting on the node need, so the cluster admits no more than the limit
// from shares (a request that waited MaxWait in vain is decided on the
// node's own small budget, decideLocally); a node gives back what it has
// not used when the counter runs short and the share has been idle for
// idleAfter, when it has been idle for longIdle, and on Close (giveBack).
// Organizations with neither limit never wait for Redis.
//
// Admitted lookups are also counted per node and written to the store
// (Flush), so the store holds the month's usage even if Redis loses its
// memory; a month counter that Redis lost starts again from the store's
// figure, or from what the node last heard, whichever is larger.
//
// If Redis fails or answers slower than MaxWait several times in a row, the
// limiter falls back to per-node counting (an inmem.Limiter: each node then
// admits up to the whole limit), logs it, reports it through OnFallback,
// and shares limits again once Redis has answered promptly for
// holdFallback; what it counted meanwhile is added to the shared counters.
type Limiter struct {
	// OnFallback, if set, is called with true when the limiter falls back
	// to per-node limits and with false when Redis answers again.
	OnFallback func(down bool)

	url      string
	cl       atomic.Pointer[client]
	addr     string // host:port, for the log
	password string
	redialMu sync.Mutex
	redialed time.Time
	clock    redirects.Clock
	prefix   string
	store    inmem.UsageStore
	local    *inmem.Limiter
	logger   *slog.Logger
	epoch    time.Time

	leasesMu sync.Mutex // held to add to leases
	leases   atomic.Pointer[map[string]*orgLease]

	down      atomic.Bool
	closing   atomic.Bool // Close has begun: failures are the shutdown's
	downMu    sync.Mutex  // serialises transitions
	downSince time.Time
	// handed holds the organizations handed over since the fallback
	// (recover), so that a handover cut short does not redo them.
	handed map[string]bool
	slow   atomic.Int64 // round trips in a row slower than MaxWait

	roundTrips, waits, timeouts, localAdmits, fallbacks, slowFallbacks atomic.Uint64

	pending inmem.UsageBuffer // admitted, not yet in the store
	seeds   atomic.Pointer[usageSeed]

	refills chan *orgLease
	stop    chan struct{}
	wg      sync.WaitGroup
}

// usageSeed is the store's usage of one period, refreshed in the background.
type usageSeed struct {
	period string
	used   map[string]int64
}

var (
	_ redirects.BlockingLimiter = (*Limiter)(nil)
	_ redirects.UsageFlusher    = (*Limiter)(nil)
)

// Open connects to the Redis at url (redis://[user:password@]host[:port][/db],
// or rediss:// for TLS) and returns a limiter whose keys start with prefix.
// If Redis does not answer, it starts in fallback and keeps trying.
func Open(ctx context.Context, url, prefix string, store inmem.UsageStore, logger *slog.Logger, clock redirects.Clock) (*Limiter, error) {
	now := clock.Now()
	opt, err := options(url)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%v", err)
	}
	local, err := inmem.NewLimiter(ctx, store, now)
	if err != nil {
		return nil, err
	}
	cl, err := newClient(url)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%v", err)
	}
	l := &Limiter{url: url, addr: cl.addr, password: opt.Password, clock: clock, prefix: prefix, store: store, local: local,
		logger: logger, epoch: time.Now(), refills: make(chan *orgLease, 1024), stop: make(chan struct{})}
	l.cl.Store(cl)
	if err := l.refreshSeeds(ctx, now); err != nil {
		cl.close()
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	err = cl.rc.Do(pctx, cl.rc.B().Ping().Build()).Error()
	cancel()
	if err != nil {
		l.fallBack(err)
	}
	for range 4 {
		l.wg.Add(1)
		go l.refiller()
	}
	l.wg.Add(1)
	go l.watch()
	return l, nil
}

// randomName returns 16 random hex digits: a name for Redis's memory, if
// the script it is sent with is the first to come after Redis lost it
// (runScript). Every script call sends a new one: a name used before could
// not tell one incarnation from the next.
func randomName() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// rc is the Redis client in use.
func (l *Limiter) rc() rueidis.Client { return l.cl.Load().rc }

// redial replaces the client after a reply of the wrong shape: its
// connection may be out of step with its commands (a server or proxy that
// dropped or added a reply), and every later reply would answer the wrong
// command. At most once a second, so a broken server cannot make the node
// churn connections.
func (l *Limiter) redial() {
	l.redialMu.Lock()
	defer l.redialMu.Unlock()
	if time.Since(l.redialed) < time.Second {
		return
	}
	l.redialed = time.Now()
	cl, err := newClient(l.url)
	if err != nil {
		return
	}
	old := l.cl.Swap(cl)
	// Commands in flight on the old client fail, as they would on a lost
	// connection.
	go old.close()
}

// mono is the limiter's monotonic time in nanoseconds.
func (l *Limiter) mono() int64 { return int64(time.Since(l.epoch)) }

// lease returns the organization's lease, made on first use.
func (l *Limiter) lease(org string) *orgLease {
	if m := l.leases.Load(); m != nil {
		if ol := (*m)[org]; ol != nil {
			return ol
		}
	}
	l.leasesMu.Lock()
	defer l.leasesMu.Unlock()
	old := l.leases.Load()
	if old != nil {
		if ol := (*old)[org]; ol != nil {
			return ol
		}
	}
	// Copied on write: the hot path reads the map without a lock, and
	// organizations are added rarely.
	m := make(map[string]*orgLease, 1)
	if old != nil {
		m = make(map[string]*orgLease, len(*old)+1)
		for k, v := range *old {
			m[k] = v
		}
	}
	ol := &orgLease{id: org}
	m[org] = ol
	l.leases.Store(&m)
	return ol
}

// Take counts one request and decides it. With a share in hand it answers
// from memory; otherwise it waits for Redis, at most MaxWait, and past that
// decides by what the node last heard from Redis (decideLocally).
func (l *Limiter) Take(ctx context.Context, u redirects.Usage) redirects.Decision {
	if d, ok := l.TryTake(u); ok {
		return d
	}
	l.waits.Add(1)
	ol := l.lease(u.Org.ID)
	// The round trip asks for as many units as requests wait for them.
	ol.mu.Lock()
	ol.waiting++
	ol.mu.Unlock()
	defer func() {
		ol.mu.Lock()
		ol.waiting--
		ol.mu.Unlock()
	}()
	timer := time.NewTimer(MaxWait)
	defer timer.Stop()
	for {
		f := l.startFetch(ol, u, false)
		select {
		case <-f.done:
		case <-timer.C:
			l.timedOut(f)
			return l.decideLocally(u, ol)
		case <-ctx.Done():
			l.timeouts.Add(1)
			return l.decideLocally(u, ol)
		}
		if l.down.Load() {
			return l.local.Take(ctx, u)
		}
		if d, ok := l.spend(ol, u); ok {
			return d
		}
	}
}

// TryTake decides u from memory if it can: while the node holds a share of
// what u needs, for organizations without limits, and while the limiter has
// fallen back to per-node counts. It never waits and, with a share in
// hand, does not allocate. ok is false when only Take, which may wait for
// Redis, can decide.
func (l *Limiter) TryTake(u redirects.Usage) (redirects.Decision, bool) {
	if l.down.Load() {
		return l.local.Take(context.Background(), u), true
	}
	return l.spend(l.lease(u.Org.ID), u)
}

// spend decides u from ol's shares. Without the shares u needs it asks for
// them (a round trip in the background) and reports false, unless Redis
// said lately that the counter is exhausted: then it refuses.
func (l *Limiter) spend(ol *orgLease, u redirects.Usage) (redirects.Decision, bool) {
	start, _ := redirects.MinuteWindow(u.Now)
	period, _ := redirects.BillingPeriod(u.Now)
	minute := start.Unix()
	rate := u.Org.RateLimit()
	if u.Test {
		rate = u.Org.TestRateLimit()
	}
	quota := u.Org.MonthlyQuota()
	eligible := u.Lookup && !u.Test
	needRate, needQuota := !rate.IsUnlimited(), eligible && !quota.IsUnlimited()
	now := l.mono()

	ol.mu.Lock()
	sh := ol.current(u.Test, minute, period)
	rateOK, rateFull := sh.left > 0, sh.left == 0 && now < sh.fullUntil
	quotaOK, quotaFull := ol.quota.left > 0, ol.quota.left == 0 && now < ol.quota.fullUntil
	if needQuota && !quotaOK && !quotaFull || needRate && !rateOK && !rateFull && !(needQuota && quotaFull) {
		// Take asks Redis and tries again (also after a round trip that
		// gave nothing and said nothing: another mode's, or a share spent
		// meanwhile).
		ol.mu.Unlock()
		return redirects.Decision{}, false
	}
	var count, used int64
	if needRate {
		count = int64(rate) + 1
		if rateOK {
			sh.left--
			sh.spent++
			count = sh.granted - sh.left
		}
	}
	switch {
	case needQuota && quotaOK:
		used = ol.quota.granted - ol.quota.left
	case needQuota:
		used = int64(quota)
	case ol.quota.granted > 0:
		used = ol.quota.granted - ol.quota.left
	default:
		used = l.seed(period, ol.id)
	}
	d, consume := redirects.Decide(u, count, used)
	if consume {
		if needQuota {
			ol.quota.left--
			ol.quota.spent++
		}
		l.countAdmitted(ol, period)
	}
	ol.lastUse = now
	// Far from the limit, ask for the next share before this one runs
	// out, so that requests do not wait for it.
	refill := ol.inflight == nil && (needRate && rateOK && sh.last >= 4 && sh.left <= sh.last/2 ||
		needQuota && quotaOK && ol.quota.last >= 4 && ol.quota.left <= ol.quota.last/2)
	ol.mu.Unlock()
	if refill {
		l.startFetch(ol, u, true)
	}
	return d, true
}

// countAdmitted counts an admitted lookup of period for the store
// (Flush); ol.mu is held.
func (l *Limiter) countAdmitted(ol *orgLease, period string) {
	if ol.pendingPeriod != period {
		if ol.pending > 0 {
			l.pending.AddN(ol.pendingPeriod, ol.id, ol.pending)
		}
		ol.pendingPeriod, ol.pending = period, 0
	}
	ol.pending++
}

// seed is the store's usage of the organization in period, as last read.
func (l *Limiter) seed(period, org string) int64 {
	if s := l.seeds.Load(); s != nil && s.period == period {
		return s.used[org]
	}
	return 0
}

// startFetch asks Redis for shares of what u needs, unless a round trip for
// ol is already in flight, and returns the flight to wait for. From the hot
// path (queued) it hands the round trip to the refillers and allocates
// nothing more than the flight.
func (l *Limiter) startFetch(ol *orgLease, u redirects.Usage, queued bool) *flight {
	ol.mu.Lock()
	if f := ol.inflight; f != nil {
		ol.mu.Unlock()
		return f
	}
	now := l.mono()
	start, _ := redirects.MinuteWindow(u.Now)
	period, periodEnd := redirects.BillingPeriod(u.Now)
	rate := u.Org.RateLimit()
	if u.Test {
		rate = u.Org.TestRateLimit()
	}
	quota := u.Org.MonthlyQuota()
	a := ask{test: u.Test, rate: -1, quota: -1, minute: start.Unix(), period: period,
		periodTTL: int64(periodEnd.Sub(u.Now)/time.Second) + 7*24*3600}
	if !rate.IsUnlimited() {
		a.rate = rate
		sh := &ol.live
		if u.Test {
			sh = &ol.test
		}
		// Both counters are topped up in one round trip, whichever
		// asked for it.
		if sh.window != a.minute || sh.left <= sh.last*3/4 {
			a.wantRate = sh.want(now)
		}
		if sh.window == a.minute {
			a.run, a.mine = sh.run, sh.mine
		}
	}
	if u.Lookup && !u.Test && !quota.IsUnlimited() {
		a.quota, a.wantQuota = quota, 0
		if ol.period != period || ol.quota.left <= ol.quota.last*3/4 {
			a.wantQuota = ol.quota.want(now)
		}
		a.seed = max(l.seed(period, ol.id), ol.quota.granted)
	}
	if ol.ask.windowKey == "" || ol.ask.minute != a.minute || ol.ask.test != a.test {
		a.windowKey = l.windowKey(ol.id, a.test, a.minute)
	} else {
		a.windowKey = ol.ask.windowKey
	}
	if ol.ask.key == "" || ol.ask.period != period {
		a.key = l.monthKey(ol.id, period)
	} else {
		a.key = ol.ask.key
	}
	f := &flight{done: make(chan struct{}), start: time.Now()}
	ol.inflight, ol.ask = f, a
	ol.mu.Unlock()
	if queued {
		select {
		case l.refills <- ol:
			return f
		default:
		}
	}
	go l.fetch(ol, f)
	return f
}

// refiller runs the round trips the hot path asks for.
func (l *Limiter) refiller() {
	defer l.wg.Done()
	for {
		select {
		case <-l.stop:
			return
		case ol := <-l.refills:
			ol.mu.Lock()
			f := ol.inflight
			ol.mu.Unlock()
			if f != nil {
				l.fetch(ol, f)
			}
		}
	}
}

// Down reports whether the limiter is counting per node because Redis
// cannot be reached or is too slow.
func (l *Limiter) Down() bool { return l.down.Load() }

// Stats are the limiter's counters since Open.
type Stats struct {
	// RoundTrips to Redis: shares taken and given back, handovers.
	RoundTrips uint64
	// Waits counts requests that waited for Redis (no share in hand).
	Waits uint64
	// Timeouts counts requests decided without Redis's answer because it
	// did not come within MaxWait (or the request was cancelled first).
	Timeouts uint64
	// LocalAdmits counts those of them that were admitted on the node's
	// own budget (decideLocally): the most the node can have admitted
	// beyond a shared limit.
	LocalAdmits uint64
	// Fallbacks counts the falls back to per-node counting, SlowFallbacks
	// those of them for answers slower than MaxWait (not errors).
	Fallbacks, SlowFallbacks uint64
}

// Stats returns the limiter's counters.
func (l *Limiter) Stats() Stats {
	return Stats{RoundTrips: l.roundTrips.Load(), Waits: l.waits.Load(), Timeouts: l.timeouts.Load(), LocalAdmits: l.localAdmits.Load(), Fallbacks: l.fallbacks.Load(), SlowFallbacks: l.slowFallbacks.Load()}
}

// Flush writes the usage admitted since the last flush, through Redis or
// per node, to the store.
func (l *Limiter) Flush(ctx context.Context) error {
	l.moveLeased()
	if err := l.pending.Flush(ctx, l.store); err != nil {
		return err
	}
	return l.local.Flush(ctx)
}

// TakeUsage empties the limiter's unwritten monthly usage, shared and
// counted alone, and returns it (see redirects.UsageTaker).
func (l *Limiter) TakeUsage() map[string]map[string]int64 {
	l.moveLeased()
	p := l.pending.Take()
	for period, counts := range l.local.TakeUsage() {
		if p == nil {
			p = map[string]map[string]int64{}
		}
		if p[period] == nil {
			p[period] = map[string]int64{}
		}
		for org, n := range counts {
			p[period][org] += n
		}
	}
	return p
}

// ReturnUsage gives back usage TakeUsage returned that could not be
// written, for the next flush.
func (l *Limiter) ReturnUsage(pending map[string]map[string]int64) { l.pending.Requeue(pending) }

// moveLeased moves what the leases admitted into pending.
func (l *Limiter) moveLeased() {
	if m := l.leases.Load(); m != nil {
		for _, ol := range *m {
			ol.mu.Lock()
			if ol.pending > 0 {
				l.pending.AddN(ol.pendingPeriod, ol.id, ol.pending)
				ol.pending = 0
			}
			ol.mu.Unlock()
		}
	}
}

// Close gives the unused shares back, stops the background work and
// closes the connection. Call Flush first. Closing again does nothing.
func (l *Limiter) Close() {
	if l.closing.Swap(true) {
		return
	}
	close(l.stop)
	l.wg.Wait()
	if !l.down.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		l.giveBack(ctx, true)
		cancel()
	}
	l.cl.Load().close()
}

func (l *Limiter) refreshSeeds(ctx context.Context, now time.Time) error {
	period, _ := redirects.BillingPeriod(now)
	used, err := l.store.FindUsage(ctx, period)
	if err != nil {
		return err
	}
	l.seeds.Store(&usageSeed{period: period, used: used})
	return nil
}
