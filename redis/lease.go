package redis

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"redirects"
)

// runScript is the prologue of the scripts below: KEYS[1] names the
// incarnation of Redis's memory (a random name the first node to come
// sets). A node remembers the name it last saw for each of its shares; if
// Redis then answers with another, Redis lost its memory (a restart without
// persistence, FLUSHALL) and the node adds what it took from the lost
// window again, so that the new window counts every node's part once.
const runScript = `
local run = redis.call('GET', KEYS[1])
if not run then
  redis.call('SET', KEYS[1], ARGV[1])
  run = ARGV[1]
end
`

// leaseScript grants a node shares of an organization's minute window
// (KEYS[2]) and month (KEYS[3]) in one atomic step. Each counter holds the
// units the cluster has taken (granted to nodes), spent or not, so the sum
// of what nodes admit never exceeds it. A share is a sixteenth of what is
// left, or as many units as the node has requests waiting for them if that
// is more (at most what the node wants and what is left, at least one
// unit): large far from the limit, just what the waiting requests need
// near it, so that a queue of them drains in one round trip. Units the
// node admitted on its own while a round trip was late (owed) are added to
// the counters first, whatever is left. A counter with fewer than 32
// units left is marked short (its key with ":short", for two minutes): the
// nodes that hold idle shares of it give them back (giveBack). A month counter that Redis
// does not hold (it restarted or was flushed) starts from the node's seed:
// the month's usage the store holds, or the total Redis last reported to
// the node, whichever is larger.
//
// ARGV: a name for the run, if none is set; rate limit (-1: no window),
// quota (-1: no month), window units wanted, month units wanted, month
// seed, month key lifetime in seconds, the run the node last saw for the
// window ("" for none), the units the node took of the window, the
// requests waiting, window units owed, month units owed.
// It returns the window's grant and total, the month's, and the run.
var leaseScript = rueidis.NewLuaScript(runScript + `
local rate, quota = tonumber(ARGV[2]), tonumber(ARGV[3])
local need = tonumber(ARGV[10])
local function share(limit, used, want)
  local left = limit - used
  if left <= 0 or want <= 0 then return 0 end
  local s = math.floor(left / 16)
  if s < need then s = need end
  if s < 1 then s = 1 end
  if s > want then s = want end
  if s > left then s = left end
  return s
end
local rg, rt, qg, qt = 0, 0, 0, 0
if rate >= 0 then
  local mine = tonumber(ARGV[9])
  if ARGV[8] ~= '' and ARGV[8] ~= run and mine > 0 then
    redis.call('INCRBY', KEYS[2], mine)
    redis.call('EXPIRE', KEYS[2], 120)
  end
  local owed = tonumber(ARGV[11])
  if owed > 0 then
    redis.call('INCRBY', KEYS[2], owed)
    redis.call('EXPIRE', KEYS[2], 120)
  end
  rt = tonumber(redis.call('GET', KEYS[2]) or '0')
  rg = share(rate, rt, tonumber(ARGV[4]))
  if rg > 0 then
    rt = redis.call('INCRBY', KEYS[2], rg)
    redis.call('EXPIRE', KEYS[2], 120)
  end
  if rate - rt < 32 then redis.call('SET', KEYS[2] .. ':short', 1, 'EX', 120) end
end
if quota >= 0 then
  local cur = redis.call('GET', KEYS[3])
  if cur then
    qt = tonumber(cur)
  else
    qt = tonumber(ARGV[6])
    redis.call('SET', KEYS[3], qt, 'EX', ARGV[7])
  end
  local owed = tonumber(ARGV[12])
  if owed > 0 then qt = redis.call('INCRBY', KEYS[3], owed) end
  qg = share(quota, qt, tonumber(ARGV[5]))
  if qg > 0 then
    qt = redis.call('INCRBY', KEYS[3], qg)
    if redis.call('TTL', KEYS[3]) < 0 then redis.call('EXPIRE', KEYS[3], ARGV[7]) end
  end
  if quota - qt < 32 then redis.call('SET', KEYS[3] .. ':short', 1, 'EX', 120) end
end
return {rg, rt, qg, qt, run}
`)

// returnScript gives unspent units back: ARGV[2i-1] units of KEYS[i+1]
// (negative: units the node admitted on its own and owes are added),
// taken from the incarnation of Redis's memory ARGV[2i] (KEYS[1] names the
// current one, runScript). A counter that is gone (expired, flushed) stays
// gone, none goes below zero, and units taken from another incarnation are
// not given back: the counter Redis holds now never had them.
var returnScript = rueidis.NewLuaScript(`
local run = redis.call('GET', KEYS[1])
for i = 2, #KEYS do
  local n = tonumber(ARGV[2 * i - 3])
  if run and ARGV[2 * i - 2] == run and n ~= 0 then
    local v = tonumber(redis.call('GET', KEYS[i]) or '-1')
    if v >= 0 then
      local nv = v - n
      if nv < 0 then nv = 0 end
      redis.call('SET', KEYS[i], nv, 'KEEPTTL')
    end
  end
end
return 1
`)

// handoverScript adds what a node counted by itself while Redis was away to
// the shared counters, so that the cluster does not admit it again: the
// minute windows (KEYS[2] live, KEYS[3] test) grow by ARGV[2] and ARGV[3]
// (and by what the node had taken of them, ARGV[8] and ARGV[9], if Redis
// lost them: the runs the node saw are ARGV[6] and ARGV[7]); the month
// (KEYS[4]) grows by ARGV[4], the lookups the node admitted alone, or, if
// Redis does not hold it (lost, or never made), starts from ARGV[10], the
// month's usage as the node knows it, which includes them (lifetime
// ARGV[5]). Each node adds only its own part: other nodes add theirs.
var handoverScript = rueidis.NewLuaScript(runScript + `
for i = 1, 2 do
  local n = tonumber(ARGV[1 + i])
  local seen = ARGV[5 + i]
  if seen ~= '' and seen ~= run then n = n + tonumber(ARGV[7 + i]) end
  if n > 0 then
    redis.call('INCRBY', KEYS[1 + i], n)
    redis.call('EXPIRE', KEYS[1 + i], 120)
  end
end
local alone, known = tonumber(ARGV[4]), tonumber(ARGV[10])
if redis.call('EXISTS', KEYS[4]) == 1 then
  if alone > 0 then redis.call('INCRBY', KEYS[4], alone) end
elseif known > 0 then
  redis.call('SET', KEYS[4], known, 'EX', ARGV[5])
end
return run
`)

// A node asks for what it spent in the last shareSpan at the pace it has
// been spending (at least minShare, at most maxShare): enough that the
// next share arrives long before this one runs out, little enough that an
// idle node holds little. At 100,000 requests a second that is a share of
// 25,000 and a round trip every eighth of a second. Redis grants at most a
// sixteenth of what is left, whatever is asked.
const (
	shareSpan = 250 * time.Millisecond
	minShare  = 64
	maxShare  = 1 << 16
)

// want is the share to ask for after sh, at monotonic time now.
func (sh *share) want(now int64) int64 {
	if sh.since == 0 || now <= sh.since {
		return minShare
	}
	w := sh.spent * int64(shareSpan) / (now - sh.since)
	return min(max(w, minShare), maxShare)
}

// share is a node's part of one counter: a minute window or a month.
type share struct {
	window  int64 // the minute (Unix seconds) the units belong to
	left    int64 // units in hand
	granted int64 // the counter's total at the last grant: units the cluster took
	last    int64 // size of the last grant
	since   int64 // monotonic ns of the last grant
	spent   int64 // units spent since
	// mine is what this node took of the window (granted, less what it
	// gave back, plus what it counted alone and handed over), and run the
	// incarnation of Redis's memory it took it from (of a month, only run
	// is kept: units of another incarnation are not given back).
	mine int64
	run  string
	// fullUntil (monotonic ns) says Redis had nothing left: the node
	// refuses without asking again until then.
	fullUntil int64
	// owed is what the node admitted on its own (a round trip was late)
	// and Redis has not counted yet: the next round trip adds it.
	owed int64
}

// orgLease is what a node holds of one organization: shares of its live
// and test minute windows and of its month, and its admitted lookups not
// yet written to the store. Its lock is held for a few instructions, never
// across a round trip.
type orgLease struct {
	id string
	mu sync.Mutex

	live, test share
	period     string // the month quota's units belong to
	quota      share

	pendingPeriod string
	pending       int64 // admitted lookups of pendingPeriod not yet in the buffer

	lastUse int64 // monotonic ns
	waiting int64 // requests waiting in Take for a round trip

	// inflight is closed when the round trip in flight for this
	// organization ends; nil when there is none. ask is what it asks.
	inflight *flight
	ask      ask
}

// shareOf is ol's share of the test or the live window; ol.mu is held.
func (ol *orgLease) shareOf(test bool) *share {
	if test {
		return &ol.test
	}
	return &ol.live
}

// current is ol's share of the test or the live window of minute, after
// the units of an earlier minute or month died with it (the pace of
// spending carries over to the new minute); ol.mu is held.
func (ol *orgLease) current(test bool, minute int64, period string) *share {
	sh := ol.shareOf(test)
	if sh.window != minute {
		*sh = share{window: minute, since: sh.since, spent: sh.spent}
	}
	if ol.period != period {
		ol.period, ol.quota = period, share{}
	}
	return sh
}

// flight is one round trip for an organization's shares.
type flight struct {
	done     chan struct{}
	start    time.Time
	timedOut atomic.Bool // a request stopped waiting for it (counted once)
}

// ask is the question of one round trip.
type ask struct {
	test           bool
	rate, quota    redirects.Limit // -1 for none
	wantRate       int64
	wantQuota      int64
	seed           int64
	run            string
	mine           int64
	minute         int64
	period         string
	periodTTL      int64
	windowKey, key string
}

// windowKey names an organization's minute window in Redis.
func (l *Limiter) windowKey(org string, test bool, minute int64) string {
	mode := ":live:"
	if test {
		mode = ":test:"
	}
	return l.prefix + "m:" + org + mode + strconv.FormatInt(minute, 10)
}

// runKey names the incarnation of Redis's memory (runScript).
func (l *Limiter) runKey() string { return l.prefix + "run" }

// monthKey names an organization's month counter in Redis.
func (l *Limiter) monthKey(org, period string) string {
	return l.prefix + "q:" + org + ":" + period
}

// fetch runs the round trip of f for ol and applies its answer.
func (l *Limiter) fetch(ol *orgLease, f *flight) {
	ol.mu.Lock()
	a := ol.ask
	need := ol.waiting
	var owedRate, owedQuota int64
	if sh := ol.shareOf(a.test); a.rate >= 0 && sh.window == a.minute {
		owedRate = sh.owed
	}
	if a.quota >= 0 && ol.period == a.period {
		owedQuota = ol.quota.owed
	}
	ol.mu.Unlock()
	if a.wantRate > 0 {
		a.wantRate = max(a.wantRate, need)
	}
	if a.wantQuota > 0 {
		a.wantQuota = max(a.wantQuota, need)
	}
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	start := time.Now()
	args := []string{randomName(), strconvI(int64(a.rate)), strconvI(int64(a.quota)), strconvI(a.wantRate), strconvI(a.wantQuota),
		strconvI(a.seed), strconvI(a.periodTTL), a.run, strconvI(a.mine), strconvI(need), strconvI(owedRate), strconvI(owedQuota)}
	var reply [4]int64
	var run string
	vals, err := leaseScript.Exec(ctx, l.rc(), []string{l.runKey(), a.windowKey, a.key}, args).ToArray()
	shape := rueidis.IsParseErr(err)
	if err == nil && len(vals) != 5 {
		shape = true
	}
	for i := 0; err == nil && !shape && i < 4; i++ {
		reply[i], err = vals[i].AsInt64()
		shape = err != nil
	}
	if err == nil && !shape {
		run, err = vals[4].ToString()
		shape = err != nil
	}
	if shape {
		err = errUnexpected
		l.redial()
	}
	l.roundTrips.Add(1)
	took := time.Since(start)
	now := l.mono()
	ol.mu.Lock()
	if err == nil {
		sh := ol.shareOf(a.test)
		if a.rate >= 0 && sh.window == a.minute {
			sh.owed -= owedRate
			sh.left += reply[0]
			sh.mine += reply[0] + owedRate
			sh.run = run
			sh.granted, sh.last, sh.fullUntil = reply[1], reply[0], 0
			sh.since, sh.spent = now, 0
			if reply[0] == 0 && a.wantRate > 0 {
				sh.fullUntil = now + int64(recheck)
			}
		}
		if a.quota >= 0 && ol.period == a.period {
			ol.quota.owed -= owedQuota
			ol.quota.left += reply[2]
			ol.quota.run = run
			ol.quota.granted, ol.quota.last, ol.quota.fullUntil = reply[3], reply[2], 0
			ol.quota.since, ol.quota.spent = now, 0
			if reply[2] == 0 && a.wantQuota > 0 {
				ol.quota.fullUntil = now + int64(recheck)
			}
		}
	}
	ol.inflight = nil
	ol.mu.Unlock()
	// The health first: a request waiting for f then finds the limiter
	// fallen back if this round trip failed.
	l.report(err, took, f)
	close(f.done)
}

// giveBack returns unspent units to Redis: every lease's if all (on
// Close); otherwise those of leases unused for idleAfter whose counters are
// short (other nodes may need the units), and those unused for longIdle
// whatever their counters. Checking the marks of idle leases costs one
// round trip (MGET) a sweep, whatever their number; a lease that is not
// idle costs nothing.
func (l *Limiter) giveBack(ctx context.Context, all bool) {
	m := l.leases.Load()
	if m == nil {
		return
	}
	start, _ := redirects.MinuteWindow(l.clock.Now())
	minute := start.Unix()
	now := l.mono()
	var idle []*orgLease
	var marks []string
	for _, ol := range *m {
		ol.mu.Lock()
		held := ol.live.left > 0 || ol.test.left > 0 || ol.quota.left > 0 ||
			ol.live.owed > 0 || ol.test.owed > 0 || ol.quota.owed > 0
		quiet := now-ol.lastUse >= int64(idleAfter)
		long := now-ol.lastUse >= int64(longIdle)
		busy := ol.inflight != nil
		var keys []string
		if held && quiet && !all && !long && !busy && len(marks) < 4096 {
			if ol.live.left > 0 && ol.live.window == minute {
				keys = append(keys, l.windowKey(ol.id, false, minute)+":short")
			}
			if ol.test.left > 0 && ol.test.window == minute {
				keys = append(keys, l.windowKey(ol.id, true, minute)+":short")
			}
			if ol.quota.left > 0 {
				keys = append(keys, l.monthKey(ol.id, ol.period)+":short")
			}
		}
		ol.mu.Unlock()
		switch {
		case !held || busy && !all:
		case all || long && quiet:
			l.returnShares(ctx, ol, minute, true)
		case len(keys) > 0:
			idle = append(idle, ol)
			marks = append(marks, keys...)
		}
	}
	if len(marks) == 0 {
		return
	}
	rc := l.rc()
	vals, err := rc.Do(ctx, rc.B().Mget().Key(marks...).Build()).ToArray()
	l.roundTrips.Add(1)
	if err != nil || len(vals) != len(marks) {
		return
	}
	short := map[string]bool{}
	for i, v := range vals {
		if !v.IsNil() {
			short[marks[i]] = true
		}
	}
	for _, ol := range idle {
		ol.mu.Lock()
		contested := short[l.windowKey(ol.id, false, minute)+":short"] || short[l.windowKey(ol.id, true, minute)+":short"] ||
			short[l.monthKey(ol.id, ol.period)+":short"]
		ol.mu.Unlock()
		if contested {
			l.returnShares(ctx, ol, minute, false)
		}
	}
}

// returnShares gives ol's unspent units of the current minute and month
// back to Redis, unless (not all) ol was used meanwhile.
func (l *Limiter) returnShares(ctx context.Context, ol *orgLease, minute int64, all bool) {
	ol.mu.Lock()
	if !all && (ol.inflight != nil || l.mono()-ol.lastUse < int64(idleAfter)) {
		ol.mu.Unlock()
		return
	}
	// What goes back is what the node holds less what it owes (admitted
	// on its own, decideLocally): a negative return charges the rest.
	keys, args := []string{l.runKey()}, []string{}
	var owed owedUnits
	for _, t := range []bool{false, true} {
		sh := ol.shareOf(t)
		// Units of a past minute died with its window.
		if n := sh.left - sh.owed; n != 0 && sh.window == minute {
			keys = append(keys, l.windowKey(ol.id, t, sh.window))
			args = append(args, strconv.FormatInt(n, 10), sh.run)
			sh.mine -= n
			if t {
				owed.test = sh.owed
			} else {
				owed.live = sh.owed
			}
		}
		sh.left, sh.fullUntil, sh.owed = 0, 0, 0
	}
	if n := ol.quota.left - ol.quota.owed; n != 0 {
		keys = append(keys, l.monthKey(ol.id, ol.period))
		args = append(args, strconv.FormatInt(n, 10), ol.quota.run)
		owed.quota = ol.quota.owed
	}
	ol.quota.left, ol.quota.fullUntil, ol.quota.owed = 0, 0, 0
	ol.mu.Unlock()
	if len(keys) == 1 {
		return
	}
	err := returnScript.Exec(ctx, l.rc(), keys, args).Error()
	l.roundTrips.Add(1)
	if err != nil {
		// The units held are lost to the cluster until their window or
		// month ends: fewer admitted, never more. What the node owes
		// goes with its next round trip.
		ol.mu.Lock()
		if ol.live.window == minute {
			ol.live.owed += owed.live
		}
		if ol.test.window == minute {
			ol.test.owed += owed.test
		}
		ol.quota.owed += owed.quota
		ol.mu.Unlock()
		l.logger.Debug("cannot give unused shares back to Redis", "org", ol.id, "err", redact(err.Error(), l.password))
	}
}

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }
