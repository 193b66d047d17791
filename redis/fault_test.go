package redis_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
	"redirects/internal/testproxy"
	"redirects/redis"
)

// waitFor polls cond every 20 ms for up to limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMalformedReplies has a Redis answer with replies a broken or hostile
// server could send: oversized lengths, nesting without end, an error
// inside an array. The process must not panic, the request is still
// decided (by the node's own counts), and once Redis answers properly the
// limits are shared again on a connection in step with its replies.
func TestMalformedReplies(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	deep := strings.Repeat("*1\r\n", 100000)
	for _, tt := range []struct{ name, reply string }{
		{"a string longer than memory", "$9223372036854775807\r\n"},
		{"an array longer than memory", "*9223372036854775807\r\n"},
		{"a map longer than memory", "%4611686018427387904\r\n"},
		{"nesting without end", deep},
		{"a length that is no number", "$12x\r\nabc\r\n"},
		{"an error inside an array", "*4\r\n-ERR boom\r\n:1\r\n:1\r\n:1\r\n"},
		{"a reply of another shape", "*2\r\n:1\r\n:2\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pfx := prefix(t, url)
			px := testproxy.Start(t, "127.0.0.1:0", target)
			s := openStore(t)
			o := org(t, s, 100, redirects.Unlimited)
			now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
			l := open(t, "redis://"+px.Addr(), pfx, s, now)
			take := func(at time.Time) redirects.Decision {
				return l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: at})
			}
			if d := take(now); d.Refused != redirects.NotRefused || l.Down() {
				t.Fatalf("before the fault: %+v (down %v)", d, l.Down())
			}
			// A new minute needs a round trip, which gets the bad reply
			// (or, if the client's own keep-alive PING takes it first, the
			// next one does).
			later := now
			for i := 0; i < 5 && !l.Down(); i++ {
				px.ReplaceNextReply([]byte(tt.reply))
				later = later.Add(time.Minute)
				if d := take(later); d.Refused != redirects.NotRefused {
					t.Fatalf("the request that met the bad reply: %+v, want admitted by the node's own counts", d)
				}
			}
			if !l.Down() {
				t.Fatal("the limiter did not fall back after bad replies")
			}
			// Redis answers properly again: shared counting resumes, and
			// its replies are the right ones (a connection out of step
			// would hand one command's reply to the next).
			waitFor(t, 15*time.Second, "the return to shared limits", func() bool { return !l.Down() })
			evenLater := later.Add(time.Minute)
			for i := 1; i <= 3; i++ {
				d := take(evenLater)
				if d.Refused != redirects.NotRefused || d.RateRemaining != redirects.Limit(100-i) {
					t.Fatalf("request %d after the return: %+v, want %d remaining", i, d, 100-i)
				}
			}
		})
	}
}

// TestSlowRedis puts 700 ms before every reply of Redis. Requests go on
// being decided at once or after at most redis.MaxWait (the limiter counts
// those that stopped waiting), the limiter falls back after a few, and
// returns once Redis is fast again, with nothing admitted twice.
func TestSlowRedis(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	pfx := prefix(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, 20, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, "redis://"+px.Addr(), pfx, s, now)
	var mu sync.Mutex
	var events []bool
	l.OnFallback = func(down bool) { mu.Lock(); events = append(events, down); mu.Unlock() }
	take := func() redirects.Decision {
		return l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
	}
	take()
	px.SetDelay(700 * time.Millisecond)
	// Requests that need Redis stop waiting for it after MaxWait: more
	// timeouts than round trips prove that they did not wait for the
	// replies (each reply takes 700 ms).
	admitted := 1
	for i := 0; i < 100 && !l.Down(); i++ {
		if take().Refused == redirects.NotRefused {
			admitted++
		}
	}
	st := l.Stats()
	if !l.Down() || st.Timeouts == 0 {
		t.Fatalf("after slow replies: down %v, stats %+v; want a fallback and requests that stopped waiting", l.Down(), st)
	}
	// In fallback no request waits.
	waitsBefore := l.Stats().Waits
	for i := 0; i < 5; i++ {
		take()
	}
	if l.Stats().Waits != waitsBefore {
		t.Fatalf("requests waited for Redis during the fallback: %+v", l.Stats())
	}
	px.SetDelay(0)
	waitFor(t, 15*time.Second, "the return to shared limits", func() bool { return !l.Down() })
	mu.Lock()
	got := append([]bool(nil), events...)
	mu.Unlock()
	if len(got) != 2 || !got[0] || got[1] {
		t.Fatalf("fallback events %v, want [true false]", got)
	}
	// What the node admitted alone this minute went into the shared
	// window: the rest of the 20 (and no more) is admitted now.
	for i := 0; i < 30; i++ {
		if take().Refused == redirects.NotRefused {
			admitted++
		}
	}
	if admitted > 20 {
		t.Fatalf("%d admitted in one minute with a limit of 20 around a slow spell", admitted)
	}
}

// TestNoFlapping cuts Redis off and brings it back every 0.4 s for 4 s:
// the limiter falls back once and does not switch on every change.
func TestNoFlapping(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	pfx := prefix(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, 1000, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, "redis://"+px.Addr(), pfx, s, now)
	var transitions atomic.Int64
	l.OnFallback = func(bool) { transitions.Add(1) }
	stop := time.Now().Add(4 * time.Second)
	slow := false
	for i := 0; time.Now().Before(stop); i++ {
		if i%20 == 0 {
			slow = !slow
			if slow {
				px.SetDelay(700 * time.Millisecond)
			} else {
				px.SetDelay(0)
			}
		}
		// A new minute each time: every request needs Redis.
		l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now.Add(time.Duration(i) * time.Minute)})
		time.Sleep(20 * time.Millisecond)
	}
	if n := transitions.Load(); n > 2 {
		t.Fatalf("%d fallback transitions in 4 s of Redis changing every 0.4 s, want at most 2", n)
	}
}

// TestRedisLosesItsMemory empties Redis in the middle of a minute, with
// FLUSHALL and with a restart that the nodes notice: the window goes on
// from what the nodes had taken, so the minute's limit holds.
func TestRedisLosesItsMemory(t *testing.T) {
	for _, how := range []string{"FLUSHALL", "restart"} {
		t.Run(how, func(t *testing.T) {
			srv := startServer(t, false)
			url := "redis://127.0.0.1:" + srv.port
			s := openStore(t)
			o := org(t, s, 60, redirects.Unlimited)
			now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
			nodes := []*redis.Limiter{open(t, url, "m:", s, now), open(t, url, "m:", s, now)}
			admitted := 0
			take := func(n int) {
				for i := 0; i < n; i++ {
					if d := nodes[i%2].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
						admitted++
					}
				}
			}
			take(20)
			if how == "FLUSHALL" {
				srv.cli("FLUSHALL")
			} else {
				srv.stop()
				take(4) // per node: the nodes notice
				for _, n := range nodes {
					waitFor(t, 5*time.Second, "the fallback", n.Down)
				}
				srv.start()
				for _, n := range nodes {
					waitFor(t, 15*time.Second, "the return", func() bool { return !n.Down() })
				}
			}
			take(200)
			if admitted > 60 || admitted < 60-2 {
				t.Fatalf("%d admitted in a minute of 60 after Redis lost its memory (%s)", admitted, how)
			}
		})
	}
}

// TestReturnWithManyOrganizations has a node count 2,000 organizations
// alone while Redis is away, then get Redis back a millisecond away: the
// handover of all of them must not keep the node in fallback.
func TestReturnWithManyOrganizations(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	pfx := prefix(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, "redis://"+px.Addr(), pfx, s, now)
	rate, quota := redirects.Limit(100), redirects.Limit(1000)
	orgs := make([]*redirects.Org, 2000)
	for i := range orgs {
		orgs[i] = &redirects.Org{ID: fmt.Sprintf("org-%d", i), Name: "o", Tier: redirects.TierFree, RateLimitOverride: &rate, QuotaOverride: &quota}
	}
	px.Close()
	for _, o := range orgs {
		if d := l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
			t.Fatalf("lookup while Redis is away: %+v, want admitted by the node's own counts", d)
		}
	}
	if !l.Down() {
		t.Fatal("the limiter did not fall back with Redis away")
	}
	px = testproxy.Start(t, px.Addr(), target)
	px.SetDelay(time.Millisecond)
	waitFor(t, 30*time.Second, "the return to shared limits", func() bool { return !l.Down() })
	// Every organization's lookup reached the shared counters: the next
	// one is the second of the minute and of the month.
	for _, o := range []*redirects.Org{orgs[0], orgs[999], orgs[1999]} {
		d := l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
		if d.Refused != redirects.NotRefused || d.RateRemaining != rate-2 || d.QuotaRemaining != quota-2 {
			t.Fatalf("%s after the return: %+v, want %d and %d remaining", o.ID, d, rate-2, quota-2)
		}
	}
}

// TestNoReturnToAnotherIncarnation has a node hold an idle share of a
// window when Redis loses its memory (FLUSHALL): another node then spends
// the whole window of the new counter, and the first node's unspent units,
// which that counter never had, must not go back to it on shutdown.
func TestNoReturnToAnotherIncarnation(t *testing.T) {
	srv := startServer(t, false)
	url := "redis://127.0.0.1:" + srv.port
	s := openStore(t)
	o := org(t, s, 60, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	a, err := redis.Open(context.Background(), url, "m:", s, quiet, fixedClock{now})
	if err != nil {
		t.Fatal(err)
	}
	b := open(t, url, "m:", s, now)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	// a takes a share of 3 (60/16) and spends one.
	if d := a.Take(context.Background(), u); d.Refused != redirects.NotRefused || d.RateRemaining != 59 {
		t.Fatalf("first request: %+v, want admitted with 59 remaining", d)
	}
	srv.cli("FLUSHALL")
	admitted := 0
	for i := 0; i < 100; i++ {
		if b.Take(context.Background(), u).Refused == redirects.NotRefused {
			admitted++
		}
	}
	if admitted != 60 {
		t.Fatalf("%d admitted by the other node after FLUSHALL, want the new window's 60", admitted)
	}
	a.Close()
	// Past the node's own 0.1 s of refusing without asking.
	time.Sleep(300 * time.Millisecond)
	for i := 0; i < 10; i++ {
		if d := b.Take(context.Background(), u); d.Refused != redirects.RateLimitExceeded {
			t.Fatalf("request %d after the first node closed: %+v, want refused: it gave back units the new counter never had", i, d)
		}
	}
}

// TestLateAnswersAreCharged has Redis answer one round trip late while it
// is otherwise healthy: the request that stopped waiting is admitted from
// what the node last heard, and charged to Redis, so the two nodes still
// admit exactly the window; once the node's last count leaves nothing, a
// late answer means a refusal, with the usual headers.
func TestLateAnswersAreCharged(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	pfx := prefix(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, 60, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	a, err := redis.Open(context.Background(), "redis://"+px.Addr(), pfx, s, quiet, fixedClock{now})
	if err != nil {
		t.Fatal(err)
	}
	b := open(t, url, pfx, s, now)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	admitted := 0
	take := func(l *redis.Limiter) redirects.Decision {
		d := l.Take(context.Background(), u)
		if d.Refused == redirects.NotRefused {
			admitted++
		}
		return d
	}
	// a takes a share of 3 (60/16) and spends it.
	for i := 0; i < 3; i++ {
		take(a)
	}
	px.SetDelay(300 * time.Millisecond)
	if d := take(a); d.Refused != redirects.NotRefused || a.Stats().Timeouts != 1 {
		t.Fatalf("request with a late answer: %+v, %d timeouts; want admitted from the node's last count after one timeout", d, a.Stats().Timeouts)
	}
	waitFor(t, 5*time.Second, "the late answer", func() bool { return a.Stats().RoundTrips >= 2 })
	px.SetDelay(0)
	if a.Down() {
		t.Fatal("one late answer made the node fall back")
	}
	// a closes: what it holds goes back, what it owes is added; b then
	// gets exactly the rest of the window.
	a.Close()
	for i := 0; i < 100; i++ {
		take(b)
	}
	if admitted != 60 {
		t.Fatalf("%d admitted in a window of 60 with one late answer", admitted)
	}

	// A node whose last count from Redis leaves nothing refuses when the
	// answer is late.
	c, err := redis.Open(context.Background(), "redis://"+px.Addr(), pfx, s, quiet, fixedClock{now})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := c.Take(context.Background(), u); d.Refused != redirects.RateLimitExceeded {
		t.Fatalf("a third node in the full window: %+v, want refused", d)
	}
	time.Sleep(200 * time.Millisecond) // past the node's 0.1 s without asking
	px.SetDelay(300 * time.Millisecond)
	d := c.Take(context.Background(), u)
	if d.Refused != redirects.RateLimitExceeded || d.RateRemaining != 0 || d.RetryAfter != 55 || c.Stats().Timeouts != 1 {
		t.Fatalf("late answer in a full window: %+v (%d timeouts), want RATE_LIMIT_EXCEEDED, 0 remaining, Retry-After 55", d, c.Stats().Timeouts)
	}
}

// TestLateRedisBudget has 100 requests wait at once for a round trip that
// Redis answers 700 ms late. Each is decided by its node alone after
// redis.MaxWait: with a limit of 1,000 and nothing taken, 62 are admitted
// (a sixteenth of what was left) and the rest refused; with a limit of
// 15, none (near a limit, a node admits nothing without Redis). What was
// admitted is charged to Redis once it answers again.
func TestLateRedisBudget(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	for _, tt := range []struct {
		limit  redirects.Limit
		budget uint64
	}{{1000, 62}, {15, 0}} {
		t.Run(strconv.Itoa(int(tt.limit)), func(t *testing.T) {
			pfx := prefix(t, url)
			px := testproxy.Start(t, "127.0.0.1:0", target)
			s := openStore(t)
			o := org(t, s, tt.limit, redirects.Unlimited)
			l := open(t, "redis://"+px.Addr(), pfx, s, now)
			u := redirects.Usage{Org: o, Lookup: true, Now: now}
			px.SetDelay(700 * time.Millisecond)
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for i := 0; i < 100; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					switch d := l.Take(context.Background(), u); {
					case d.Refused == redirects.NotRefused:
						admitted.Add(1)
					case d.Refused != redirects.RateLimitExceeded || d.RetryAfter != 55 || d.RateRemaining != 0:
						t.Errorf("refused alone: %+v, want RATE_LIMIT_EXCEEDED, Retry-After 55, none remaining", d)
					}
				}()
			}
			wg.Wait()
			st := l.Stats()
			if st.Fallbacks > 0 {
				// 100 requests timing out at once fall back only if the
				// machine stalled them past 3 x MaxWait: what was decided
				// alone before still holds the budget.
				t.Logf("the node fell back during the wave (a loaded machine): %+v", st)
			} else if st.LocalAdmits != tt.budget || admitted.Load() != int64(tt.budget) || st.Timeouts != 100 {
				t.Fatalf("%d admitted, stats %+v; want %d admitted alone of 100 decided without Redis", admitted.Load(), st, tt.budget)
			}
			if st.LocalAdmits > tt.budget {
				t.Fatalf("%d admitted without Redis, want at most %d", st.LocalAdmits, tt.budget)
			}
			// Once Redis answers promptly, the next round trip adds what
			// was admitted alone to the shared window.
			px.SetDelay(0)
			waitFor(t, 15*time.Second, "prompt answers", func() bool { return !l.Down() })
			waitFor(t, 5*time.Second, "the late round trip", func() bool { return l.Stats().RoundTrips >= 1 })
			rest := 0
			for i := 0; i < int(tt.limit)+50; i++ {
				if l.Take(context.Background(), u).Refused == redirects.NotRefused {
					rest++
				}
			}
			if got := admitted.Load() + int64(rest); got != int64(tt.limit) {
				t.Fatalf("%d admitted in the minute (%d without Redis), want the limit, %d", got, admitted.Load(), tt.limit)
			}
		})
	}
}

// TestLateNearTheLimit: a node whose last count from Redis leaves fewer
// than 16 units of a minute's 100 refuses a request whose answer from
// Redis is late, although the count leaves room: another node may be
// taking the rest. Once Redis answers, the rest is admitted.
func TestLateNearTheLimit(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	pfx := prefix(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, 100, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	a := open(t, "redis://"+px.Addr(), pfx, s, now)
	b := open(t, url, pfx, s, now)
	admitted := 0
	take := func(l *redis.Limiter) redirects.Decision {
		d := l.Take(context.Background(), u)
		if d.Refused == redirects.NotRefused {
			admitted++
		}
		return d
	}
	// b takes 88 of the window; a then takes what Redis grants it near
	// the limit (a unit at a time) and spends it: its last count is 89.
	for admitted < 88 {
		if d := take(b); d.Refused != redirects.NotRefused {
			t.Fatalf("b, request %d: %+v", admitted+1, d)
		}
	}
	b.Close() // b gives back what it holds
	if d := take(a); d.Refused != redirects.NotRefused || d.RateRemaining != 11 {
		t.Fatalf("a near the limit: %+v, want admitted with 11 remaining", d)
	}
	px.SetDelay(300 * time.Millisecond)
	if d := take(a); d.Refused != redirects.RateLimitExceeded || d.RetryAfter != 55 || a.Stats().Timeouts != 1 || a.Stats().LocalAdmits != 0 {
		t.Fatalf("a late answer 11 units from the limit: %+v, stats %+v; want refused alone", d, a.Stats())
	}
	px.SetDelay(0)
	if a.Down() {
		t.Fatal("one late answer made the node fall back")
	}
	time.Sleep(400 * time.Millisecond) // the late answer's units arrive
	for i := 0; i < 30; i++ {
		take(a)
	}
	if admitted != 100 {
		t.Fatalf("%d admitted in a window of 100 around a late answer, want 100", admitted)
	}
}

// TestOutageAfterTheMinuteIsSpent (#24 finding 7): two nodes spend a
// minute's limit through Redis; Redis stops, the nodes count alone for the
// rest of the minute, and Redis comes back empty. The nodes start their
// windows from what the cluster had taken, and hand over only what they
// admitted alone, so the minute's admissions stay near the limit, not the
// limit plus nodes x limit.
func TestOutageAfterTheMinuteIsSpent(t *testing.T) {
	srv := startServer(t, false)
	url := "redis://127.0.0.1:" + srv.port
	s := openStore(t)
	const limit = 60
	o := org(t, s, limit, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	nodes := []*redis.Limiter{open(t, url, "spent:", s, now), open(t, url, "spent:", s, now)}
	admitted := 0
	take := func(n int) {
		for i := 0; i < n; i++ {
			if d := nodes[i%2].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
				admitted++
			}
		}
	}
	take(100)
	before := admitted
	srv.stop()
	// Another organization's requests make the nodes notice: this one's
	// are refused without a round trip while its window is full.
	other := org(t, s, 1000, redirects.Unlimited)
	for _, n := range nodes {
		for range 3 {
			n.Take(context.Background(), redirects.Usage{Org: other, Lookup: true, Now: now})
		}
		waitFor(t, 5*time.Second, "the fallback", n.Down)
	}
	take(200)
	alone := admitted - before
	srv.start()
	for _, n := range nodes {
		waitFor(t, 15*time.Second, "the return", func() bool { return !n.Down() })
	}
	take(200)
	t.Logf("admitted %d through Redis, %d alone, %d in all, for a limit of %d on 2 nodes", before, alone, admitted, limit)
	if before != limit || admitted > limit+limit/8 {
		t.Fatalf("admitted %d in the minute (%d before the outage, %d alone during it); want the limit %d before and at most %d in all", admitted, before, alone, limit, limit+limit/8)
	}
}
