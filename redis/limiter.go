package redis

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/inmem"
)

// takeScript counts one request in one atomic round trip: the minute
// window (KEYS[1]) and, for a request that may consume quota, the month
// (KEYS[2]). A missing month counter (Redis restarted or flushed) starts
// from ARGV[4], the usage the store holds. It decides as redirects.Decide
// does, so the month is only incremented for a request that is admitted.
// ARGV: rate limit, quota (-1 = unlimited), 1 if the request may consume
// quota, seed, month key lifetime in seconds.
const takeScript = `
local m = redis.call('INCR', KEYS[1])
if m == 1 then redis.call('EXPIRE', KEYS[1], 120) end
local used = redis.call('GET', KEYS[2])
if not used then
  redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[5], 'NX')
  used = redis.call('GET', KEYS[2])
end
used = tonumber(used)
local rate, quota = tonumber(ARGV[1]), tonumber(ARGV[2])
local eligible = ARGV[3] == '1'
local refused = 0
if eligible and quota >= 0 and used >= quota then
  refused = 1
elseif rate >= 0 and m > rate then
  refused = 2
end
if refused == 0 and eligible then redis.call('INCR', KEYS[2]) end
return {m, used, refused}
`

var takeSHA = func() string {
	sum := sha1.Sum([]byte(takeScript))
	return hex.EncodeToString(sum[:])
}()

// Limiter is a redirects.Limiter whose counters live in Redis, shared by
// every node that uses the same Redis and key prefix. Admitted lookups are
// also counted per node and written to the store (Flush), so the store
// holds the month's usage even if Redis loses its memory; a month counter
// that Redis lost starts again from the store's figure.
//
// If Redis cannot be reached, the limiter falls back to per-node counting
// (an inmem.Limiter: each node then admits up to the whole limit), logs it,
// reports it through OnFallback, and returns to Redis once it answers.
type Limiter struct {
	// OnFallback, if set, is called with true when the limiter falls back
	// to per-node limits and with false when Redis answers again.
	OnFallback func(down bool)

	cl     *client
	clock  redirects.Clock
	prefix string
	store  redirects.Store
	local  *inmem.Limiter
	logger *slog.Logger

	down atomic.Bool

	// seen holds, per organization, the month's usage as Redis last
	// reported it to this node.
	seenMu     sync.Mutex
	seenPeriod string
	seen       map[string]int64

	pending inmem.UsageBuffer // admitted, not yet in the store
	seeds   atomic.Pointer[usageSeed]

	stop chan struct{}
	wg   sync.WaitGroup
}

// usageSeed is the store's usage of one period, refreshed in the background.
type usageSeed struct {
	period string
	used   map[string]int64
}

var _ redirects.Limiter = (*Limiter)(nil)

// Open connects to the Redis at url (redis://[user:password@]host:port[/db])
// and returns a limiter whose keys start with prefix. If Redis does not
// answer, it starts in fallback and keeps trying.
func Open(ctx context.Context, url, prefix string, store redirects.Store, logger *slog.Logger, clock redirects.Clock) (*Limiter, error) {
	now := clock.Now()
	cl, err := parseURL(url)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINVALID, "%v", err)
	}
	local, err := inmem.NewLimiter(ctx, store, now)
	if err != nil {
		return nil, err
	}
	l := &Limiter{cl: cl, clock: clock, prefix: prefix, store: store, local: local, logger: logger,
		stop: make(chan struct{})}
	if err := l.refreshSeeds(ctx, now); err != nil {
		return nil, err
	}
	if _, err := cl.do(ctx, "PING"); err != nil {
		l.setDown(true, err)
	}
	l.wg.Add(1)
	go l.watch()
	return l, nil
}

// Take counts one request in Redis, or per node while Redis is down.
func (l *Limiter) Take(ctx context.Context, u redirects.Usage) redirects.Decision {
	if l.down.Load() {
		return l.local.Take(ctx, u)
	}
	minute, _ := redirects.MinuteWindow(u.Now)
	period, periodEnd := redirects.BillingPeriod(u.Now)
	mode := "live"
	rate := u.Org.RateLimit()
	if u.Test {
		mode, rate = "test", u.Org.TestRateLimit()
	}
	eligible := "0"
	if u.Lookup && !u.Test {
		eligible = "1"
	}
	// A month counter that Redis lost starts from the freshest figure this
	// node has: the store's, or the last one Redis told it.
	seed := int64(0)
	if s := l.seeds.Load(); s != nil && s.period == period {
		seed = s.used[u.Org.ID]
	}
	l.seenMu.Lock()
	if l.seenPeriod == period {
		seed = max(seed, l.seen[u.Org.ID])
	}
	l.seenMu.Unlock()
	ttl := int64(periodEnd.Sub(u.Now)/time.Second) + 7*24*3600
	keys := [2]string{
		l.prefix + "m:" + u.Org.ID + ":" + mode + ":" + strconv.FormatInt(minute.Unix(), 10),
		l.prefix + "q:" + u.Org.ID + ":" + period,
	}
	args := []string{"EVALSHA", takeSHA, "2", keys[0], keys[1],
		strconv.FormatInt(int64(rate), 10), strconv.FormatInt(int64(u.Org.MonthlyQuota()), 10), eligible,
		strconv.FormatInt(seed, 10), strconv.FormatInt(ttl, 10)}
	v, err := l.cl.do(ctx, args...)
	var rerr redisError
	if errors.As(err, &rerr) && len(rerr) >= 8 && rerr[:8] == "NOSCRIPT" {
		args[0], args[1] = "EVAL", takeScript
		v, err = l.cl.do(ctx, args...)
	}
	reply, ok := v.([]any)
	if err != nil || !ok || len(reply) != 3 {
		if err == nil {
			err = errors.New("unexpected reply to the limit script")
		}
		l.setDown(true, err)
		return l.local.Take(ctx, u)
	}
	m, _ := reply[0].(int64)
	used, _ := reply[1].(int64)
	d, consume := redirects.Decide(u, m, used)
	if consume {
		l.pending.Add(period, u.Org.ID)
		used++
	}
	l.seenMu.Lock()
	if l.seenPeriod != period {
		l.seenPeriod, l.seen = period, map[string]int64{}
	}
	l.seen[u.Org.ID] = max(l.seen[u.Org.ID], used)
	l.seenMu.Unlock()
	return d
}

// Blocking reports whether Take waits on the network (while Redis is
// reachable), so callers on an event loop run it elsewhere.
func (l *Limiter) Blocking() bool { return !l.down.Load() }

var (
	_ redirects.BlockingLimiter = (*Limiter)(nil)
	_ redirects.UsageFlusher    = (*Limiter)(nil)
)

// Down reports whether the limiter is counting per node because Redis
// cannot be reached.
func (l *Limiter) Down() bool { return l.down.Load() }

// Flush writes the usage admitted since the last flush, through Redis or
// per node, to the store.
func (l *Limiter) Flush(ctx context.Context) error {
	if err := l.pending.Flush(ctx, l.store); err != nil {
		return err
	}
	return l.local.Flush(ctx)
}

// Close stops the background work and closes the connections. Call Flush
// first.
func (l *Limiter) Close() {
	close(l.stop)
	l.wg.Wait()
	l.cl.close()
}

func (l *Limiter) setDown(down bool, err error) {
	if down {
		// The per-node counting starts from the month's usage as far as this
		// node knows it, so a quota used up before Redis went away stays
		// used up.
		now := l.clock.Now()
		period, _ := redirects.BillingPeriod(now)
		used := map[string]int64{}
		if s := l.seeds.Load(); s != nil && s.period == period {
			for org, n := range s.used {
				used[org] = n
			}
		}
		l.seenMu.Lock()
		if l.seenPeriod == period {
			for org, n := range l.seen {
				used[org] = max(used[org], n)
			}
		}
		l.seenMu.Unlock()
		l.local.Raise(period, used)
	}
	if l.down.Swap(down) == down {
		return
	}
	if down {
		l.logger.Error("Redis unreachable: limits fall back to per-node counting", "addr", l.cl.addr, "err", err)
	} else {
		l.logger.Info("Redis answers again: limits are shared across nodes", "addr", l.cl.addr)
	}
	if l.OnFallback != nil {
		l.OnFallback(down)
	}
}

// watch pings Redis while it is down and refreshes the store's usage.
func (l *Limiter) watch() {
	defer l.wg.Done()
	ping := time.NewTicker(500 * time.Millisecond)
	defer ping.Stop()
	seeds := time.NewTicker(time.Second)
	defer seeds.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ping.C:
			if l.down.Load() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				if _, err := l.cl.do(ctx, "PING"); err == nil {
					l.setDown(false, nil)
				}
				cancel()
			}
		case <-seeds.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := l.refreshSeeds(ctx, l.clock.Now()); err != nil {
				l.logger.Warn("cannot read monthly usage from the store", "err", err)
			}
			cancel()
		}
	}
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
