package redis

// The limiter's health: waits that end in a local decision, the fallback to
// per-node counts and the return to Redis, the watcher that probes Redis
// and gives idle shares back.

import (
	"context"
	"errors"
	"time"

	"github.com/redis/rueidis"

	"redirects"
	"redirects/inmem"
)

// timedOut records a request that stopped waiting for f: once per round
// trip, as a slow answer; a round trip still unanswered after
// slowToFallback times MaxWait is enough to fall back.
func (l *Limiter) timedOut(f *flight) {
	l.timeouts.Add(1)
	first := !f.timedOut.Swap(true)
	if first && l.slow.Add(1) >= slowToFallback || time.Since(f.start) >= slowToFallback*MaxWait {
		l.fallBack(errSlow)
	}
}

var errSlow = errors.New("Redis answered slower than " + MaxWait.String() + " several times in a row")

// report takes the outcome of a round trip into the limiter's health.
func (l *Limiter) report(err error, took time.Duration, f *flight) {
	switch {
	case err != nil:
		l.fallBack(err)
	case took > MaxWait:
		if f == nil || !f.timedOut.Load() {
			if l.slow.Add(1) >= slowToFallback {
				l.fallBack(errSlow)
			}
		}
	default:
		l.slow.Store(0)
	}
}

// decideLocally decides a request that could not wait for Redis. Fallen
// back, the node's own counts decide it. Otherwise a unit the node holds
// is spent as spend would (spend gave up for the other limit), and a limit
// of which it holds none is decided by what the node last heard from
// Redis, as if Redis had granted the node a sixteenth of what was left
// then (localBudget): admitted while the node has admitted on its own
// fewer than that since, and owed to Redis, which the next round trip for
// the organization adds to the shared counters; refused past it, and so
// always near the limit (fewer than 16 units left), with the per-minute
// limit's 429 for either limit (the node cannot know that the quota is
// used up; Retry-After says when the minute ends). A node that has not
// heard from Redis in the minute counts the window from zero. Other nodes
// may have taken what was left meanwhile: what a node admits this way is
// the most it can add to a limit, counted in localAdmits.
func (l *Limiter) decideLocally(u redirects.Usage, ol *orgLease) redirects.Decision {
	if l.down.Load() {
		return l.local.Take(context.Background(), u)
	}
	if d, ok := l.spend(ol, u); ok {
		// The round trip came back meanwhile.
		return d
	}
	start, minuteEnd := redirects.MinuteWindow(u.Now)
	period, _ := redirects.BillingPeriod(u.Now)
	minute := start.Unix()
	rate := u.Org.RateLimit()
	if u.Test {
		rate = u.Org.TestRateLimit()
	}
	quota := u.Org.MonthlyQuota()
	needRate, needQuota := !rate.IsUnlimited(), u.Lookup && !u.Test && !quota.IsUnlimited()
	seed := l.seed(period, ol.id)
	ol.mu.Lock()
	defer ol.mu.Unlock()
	sh := ol.current(u.Test, minute, period)
	rateInHand, quotaInHand := needRate && sh.left > 0, needQuota && ol.quota.left > 0
	// What the cluster had taken when Redis last answered, and what this
	// node took on its own since.
	var count int64
	switch {
	case rateInHand:
		sh.left--
		sh.spent++
		count = sh.granted - sh.left
	case needRate:
		count = sh.granted + sh.owed + 1
		if sh.owed >= localBudget(int64(rate), sh.granted) {
			count = int64(rate) + 1
		}
	}
	known := max(seed, ol.quota.granted)
	used := known - ol.quota.left + ol.quota.owed
	if quotaInHand {
		used = ol.quota.granted - ol.quota.left
	}
	d, consume := redirects.Decide(u, count, used)
	if d.Refused != redirects.NotRefused {
		return d
	}
	if consume && needQuota && !quotaInHand && ol.quota.owed >= localBudget(int64(quota), known) {
		d.Refused = redirects.RateLimitExceeded
		d.RetryAfter = max(int64((minuteEnd.Sub(u.Now)+time.Second-1)/time.Second), 1)
		return d
	}
	local := false
	if needRate && !rateInHand {
		sh.owed++
		local = true
	}
	if consume {
		switch {
		case quotaInHand:
			ol.quota.left--
			ol.quota.spent++
		case needQuota:
			ol.quota.owed++
			local = true
		}
		l.countAdmitted(ol, period)
	}
	if local {
		l.localAdmits.Add(1)
	}
	ol.lastUse = l.mono()
	return d
}

// localBudget is how many requests a node may admit on its own, without
// Redis's answer, against a limit of which the cluster had taken `taken`
// units when Redis last answered: a sixteenth of what was left.
func localBudget(limit, taken int64) int64 { return max(limit-taken, 0) / 16 }

// fallBack switches to per-node counting, if not already.
func (l *Limiter) fallBack(err error) {
	l.downMu.Lock()
	defer l.downMu.Unlock()
	if l.down.Load() || l.closing.Load() {
		return
	}
	// The per-node counting starts from the month's usage as far as this
	// node knows it, so a quota used up before Redis went away stays used
	// up.
	period, _ := redirects.BillingPeriod(l.clock.Now())
	used := map[string]int64{}
	if s := l.seeds.Load(); s != nil && s.period == period {
		for org, n := range s.used {
			used[org] = n
		}
	}
	// The minute's windows start from what the cluster had taken of them
	// as far as this node heard, so that a window spent before Redis went
	// away stays spent: without this each node would admit a whole limit
	// on its own, the cluster the limit plus nodes x limit in that minute.
	start, _ := redirects.MinuteWindow(l.clock.Now())
	live, test := map[string]int64{}, map[string]int64{}
	if m := l.leases.Load(); m != nil {
		for _, ol := range *m {
			ol.mu.Lock()
			if ol.period == period {
				used[ol.id] = max(used[ol.id], ol.quota.granted+ol.quota.owed)
			}
			// Taken: the counter at the last grant, less the units this
			// node holds unspent, plus what it admitted on its own.
			if ol.live.window == start.Unix() {
				live[ol.id] = max(ol.live.granted-ol.live.left, 0) + ol.live.owed
			}
			if ol.test.window == start.Unix() {
				test[ol.id] = max(ol.test.granted-ol.test.left, 0) + ol.test.owed
			}
			ol.mu.Unlock()
		}
	}
	l.local.Raise(period, used)
	l.local.RaiseMinute(start, live, test)
	l.handed = nil
	l.downSince = time.Now()
	l.down.Store(true)
	l.fallbacks.Add(1)
	if errors.Is(err, errSlow) {
		l.slowFallbacks.Add(1)
	}
	l.logger.Error("Redis unreachable: limits fall back to per-node counting", "addr", l.addr, "err", redact(err.Error(), l.password))
	if l.OnFallback != nil {
		l.OnFallback(true)
	}
}

// owedUnits is what a node owes Redis for one organization (share.owed).
type owedUnits struct{ live, test, quota int64 }

// handoverChunk is how many organizations one pipelined batch of the
// handover carries, and handoverWait how long a batch may take: a batch
// that fails or times out leaves the ones before it handed over.
const (
	handoverChunk = 512
	handoverWait  = 2 * time.Second
)

// recover adds what the node counted alone to the shared counters and
// shares limits again. It hands organizations over in pipelined batches
// (one round trip per handoverChunk); if a batch fails, what it carried is
// counted again and added on the next try, and the organizations handed
// over before it are not redone.
func (l *Limiter) recover() error {
	l.downMu.Lock()
	defer l.downMu.Unlock()
	now := l.clock.Now()
	start, _ := redirects.MinuteWindow(now)
	period, periodEnd := redirects.BillingPeriod(now)
	ttl := strconvI(int64(periodEnd.Sub(now)/time.Second) + 7*24*3600)
	// Every organization the node counted alone, or holds shares of.
	counted := map[string]inmem.Counted{}
	for _, c := range l.local.Handover(now) {
		counted[c.Org] = c
	}
	if m := l.leases.Load(); m != nil {
		for _, ol := range *m {
			if _, ok := counted[ol.id]; !ok {
				counted[ol.id] = inmem.Counted{Org: ol.id}
			}
		}
	}
	if l.handed == nil {
		l.handed = map[string]bool{}
	}
	var todo []inmem.Counted
	var owed []owedUnits
	var execs []rueidis.LuaExec
	for org, c := range counted {
		ol := l.lease(org)
		ol.mu.Lock()
		for _, sh := range []*share{&ol.live, &ol.test} {
			if sh.window != start.Unix() {
				*sh = share{window: start.Unix()}
			}
		}
		// What the node admitted on its own before it fell back (decideLocally)
		// and Redis has not counted yet goes with what it counted alone.
		o := owedUnits{live: ol.live.owed, test: ol.test.owed}
		if ol.period == period {
			o.quota = ol.quota.owed
		}
		args := []string{randomName(), strconvI(c.Live + o.live), strconvI(c.Test + o.test), strconvI(c.Alone + o.quota), ttl,
			ol.live.run, ol.test.run, strconvI(ol.live.mine), strconvI(ol.test.mine), strconvI(c.Used)}
		ol.mu.Unlock()
		// Nothing new to add, and handed over already (or never shared):
		// the counters in Redis hold this node's part.
		if c.Live == 0 && c.Test == 0 && c.Alone == 0 && o == (owedUnits{}) && (l.handed[org] || c.Used == 0 && args[5] == "" && args[6] == "") {
			continue
		}
		owed = append(owed, o)
		keys := []string{l.runKey(), l.windowKey(org, false, start.Unix()), l.windowKey(org, true, start.Unix()), l.monthKey(org, period)}
		todo = append(todo, c)
		execs = append(execs, rueidis.LuaExec{Keys: keys, Args: args})
	}
	var err error
	for i := 0; i < len(todo); i += handoverChunk {
		j := min(i+handoverChunk, len(todo))
		if err != nil {
			// What was not added yet is counted again, and added on the
			// next try.
			for _, c := range todo[i:j] {
				l.local.Unhand(c)
			}
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), handoverWait)
		res := handoverScript.ExecMulti(ctx, l.rc(), execs[i:j]...)
		cancel()
		l.roundTrips.Add(1)
		for k, c := range todo[i:j] {
			o := owed[i+k]
			run, rerr := res[k].ToString()
			if rerr != nil {
				err = rerr
				l.local.Unhand(c)
				continue
			}
			l.handed[c.Org] = true
			ol := l.lease(c.Org)
			ol.mu.Lock()
			ol.live.mine += c.Live + o.live
			ol.test.mine += c.Test + o.test
			ol.live.owed -= o.live
			ol.test.owed -= o.test
			if ol.period == period {
				ol.quota.owed -= o.quota
			}
			ol.live.run, ol.test.run = run, run
			ol.mu.Unlock()
		}
	}
	if err != nil {
		return err
	}
	l.handed = nil
	l.slow.Store(0)
	l.down.Store(false)
	l.logger.Info("Redis answers again: limits are shared across nodes", "addr", l.addr)
	if l.OnFallback != nil {
		l.OnFallback(false)
	}
	return nil
}

// watch probes Redis while the limiter has fallen back, gives idle shares
// back, and refreshes the store's usage.
func (l *Limiter) watch() {
	defer l.wg.Done()
	tick := time.NewTicker(probeEvery / 2)
	defer tick.Stop()
	var goodSince, lastProbe, lastSeeds time.Time
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
		}
		now := time.Now()
		if l.down.Load() && now.Sub(lastProbe) >= probeEvery {
			lastProbe = now
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			rc := l.rc()
			pong, err := rc.Do(ctx, rc.B().Ping().Build()).ToString()
			cancel()
			if err == nil && pong != "PONG" || rueidis.IsParseErr(err) {
				// Another command's reply: the connection is out of step.
				l.redial()
				err = errUnexpected
			}
			switch {
			case err != nil || time.Since(now) > MaxWait:
				goodSince = time.Time{}
			case goodSince.IsZero():
				goodSince = now
			}
			l.downMu.Lock()
			since := l.downSince
			l.downMu.Unlock()
			if !goodSince.IsZero() && now.Sub(goodSince) >= holdFallback && now.Sub(since) >= holdFallback {
				if err := l.recover(); err != nil {
					goodSince = time.Time{}
				}
			}
		}
		if !l.down.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			l.giveBack(ctx, false)
			cancel()
		}
		if now.Sub(lastSeeds) >= time.Second {
			lastSeeds = now
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := l.refreshSeeds(ctx, l.clock.Now()); err != nil {
				l.logger.Warn("cannot read monthly usage from the store", "err", err)
			}
			cancel()
		}
	}
}
