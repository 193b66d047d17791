package redis_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
	"redirects/inmem"
	"redirects/internal/testproxy"
	"redirects/redis"
	"redirects/sqlite"
)

// TestSharesAreExact spreads requests over three nodes, round robin and
// then, after the others took shares, all on one node: the cluster admits
// no more than the limit, and no fewer than the limit minus one per node
// while requests keep coming. (A request that Redis does not answer within
// redis.MaxWait, on a loaded machine, is decided by what its node last
// heard from Redis and charged to Redis. One at a time, nothing else takes
// units meanwhile, so the bound holds; with concurrent requests, the
// cluster can admit beyond the limit only what the nodes admitted that
// way, which the test allows and reports.)
func TestSharesAreExact(t *testing.T) {
	url := redisURL(t)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	for _, tt := range []struct {
		name        string
		rate, quota redirects.Limit
	}{
		{"30 a minute", 30, redirects.Unlimited},
		{"1000 a minute", 1000, redirects.Unlimited},
		{"500 a month", redirects.Unlimited, 500},
	} {
		limit := int(tt.rate)
		if tt.rate.IsUnlimited() {
			limit = int(tt.quota)
		}
		t.Run(tt.name+", round robin", func(t *testing.T) {
			unlessFellBack(t, func() ([]*redis.Limiter, error) {
				o, nodes := threeNodes(t, url, now, tt.rate, tt.quota)
				admitted := 0
				for i := 0; i < 2*limit; i++ {
					if d := nodes[i%3].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
						admitted++
					}
				}
				if extra := timeouts(nodes); admitted > limit || admitted < limit-len(nodes) {
					return nodes, fmt.Errorf("%d admitted of %d round robin over three nodes, want %d (at least %d; %d decided without Redis)", admitted, 2*limit, limit, limit-len(nodes), extra)
				}
				return nodes, nil
			})
		})
		t.Run(tt.name+", concurrent", func(t *testing.T) {
			unlessFellBack(t, func() ([]*redis.Limiter, error) {
				o, nodes := threeNodes(t, url, now, tt.rate, tt.quota)
				var admitted atomic.Int64
				var wg sync.WaitGroup
				for g := 0; g < 12; g++ {
					wg.Add(1)
					go func(g int) {
						defer wg.Done()
						for i := 0; i < limit/4+10; i++ {
							if d := nodes[g%3].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
								admitted.Add(1)
							}
						}
					}(g)
				}
				wg.Wait()
				n, extra, local := int(admitted.Load()), timeouts(nodes), localAdmits(nodes)
				t.Logf("%d admitted of a limit of %d (%d decided without Redis, %d of them admitted)", n, limit, extra, local)
				if n > limit+local {
					return nodes, fmt.Errorf("%d admitted by twelve clients on three nodes, want at most %d (%d decided without Redis, %d of them admitted)", n, limit+local, extra, local)
				}
				return nodes, nil
			})
		})
		t.Run(tt.name+", then all on one node", func(t *testing.T) {
			unlessFellBack(t, func() ([]*redis.Limiter, error) {
				o, nodes := threeNodes(t, url, now, tt.rate, tt.quota)
				admitted := 0
				take := func(n *redis.Limiter) {
					if d := n.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused == redirects.NotRefused {
						admitted++
					}
				}
				// Two nodes take shares and go quiet.
				take(nodes[0])
				take(nodes[1])
				// The third gets every request from now on: it reaches the
				// limit once the others give back what they hold.
				deadline := time.Now().Add(10 * time.Second)
				for admitted < limit && time.Now().Before(deadline) {
					take(nodes[2])
					if admitted >= limit-len(nodes) {
						time.Sleep(5 * time.Millisecond)
					}
				}
				for i := 0; i < 50; i++ {
					take(nodes[2])
				}
				t.Logf("%d admitted of a limit of %d", admitted, limit)
				if extra := timeouts(nodes); admitted > limit || admitted < limit-len(nodes) {
					return nodes, fmt.Errorf("%d admitted, want %d (at least %d; %d decided without Redis)", admitted, limit, limit-len(nodes), extra)
				}
				return nodes, nil
			})
		})
	}
}

// unlessFellBack runs a scenario of nodes sharing a limit, up to three
// times, until a run in which no node fell back to per-node counting, and
// fails the test with that run's error, if any. A machine loaded enough to
// stall a round trip past 3 x redis.MaxWait makes a node fall back by
// design, and the nodes then admit each by itself: what a run asserts of
// the shared limit does not hold then. A fallback for an error (not for
// slow answers), or three runs that all fell back, fail the test.
func unlessFellBack(t *testing.T, run func() ([]*redis.Limiter, error)) {
	t.Helper()
	for i := 1; ; i++ {
		nodes, err := run()
		fell, slow := false, true
		for _, n := range nodes {
			st := n.Stats()
			fell = fell || st.Fallbacks > 0
			slow = slow && st.Fallbacks == st.SlowFallbacks
		}
		switch {
		case fell && !slow:
			t.Fatalf("a node fell back to per-node counting for an error, not for slow answers (%v)", err)
		case !fell && err != nil:
			t.Fatal(err)
		case !fell:
			return
		case i == 3:
			t.Fatalf("a node fell back to per-node counting for slow answers in each of three runs (last: %v)", err)
		}
		t.Logf("run %d: a node fell back to per-node counting for slow answers (a loaded machine), so the limit was not shared: again (%v)", i, err)
		for _, n := range nodes {
			n.Close() // so that it does not load the next run
		}
	}
}

// timeouts counts the requests the nodes decided without Redis.
func timeouts(nodes []*redis.Limiter) int {
	n := 0
	for _, l := range nodes {
		n += int(l.Stats().Timeouts)
	}
	return n
}

// localAdmits counts the requests the nodes admitted without Redis.
func localAdmits(nodes []*redis.Limiter) int {
	n := 0
	for _, l := range nodes {
		n += int(l.Stats().LocalAdmits)
	}
	return n
}

// TestFewRoundTrips counts the round trips of an organization far from its
// limits: one per share, not one per request; and none at all for an
// organization without limits.
func TestFewRoundTrips(t *testing.T) {
	url := redisURL(t)
	p := prefix(t, url)
	s := openStore(t)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, url, p, s, now)
	limited := org(t, s, 10_000_000, 100_000_000)
	const n = 20000
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			// Requests come at most 100,000 a second, as on a busy node:
			// the next share has time to arrive.
			time.Sleep(time.Millisecond)
		}
		if d := l.Take(context.Background(), redirects.Usage{Org: limited, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
			t.Fatalf("request %d far from the limits: %+v", i, d)
		}
	}
	st := l.Stats()
	t.Logf("%d requests far from the limits: %+v", n, st)
	// Only a request that finds the share spent before the next one came
	// waits: the first, and on a loaded machine a few more.
	if float64(st.RoundTrips)/n >= 0.01 || float64(st.Waits)/n >= 0.01 {
		t.Fatalf("%d round trips and %d waits for %d requests far from the limits, want under 1 in 100 of each", st.RoundTrips, st.Waits, n)
	}

	unlimited := &redirects.Org{Name: "e", Tier: redirects.TierEnterprise}
	if err := s.CreateOrg(context.Background(), unlimited); err != nil {
		t.Fatal(err)
	}
	before := l.Stats()
	for i := 0; i < 1000; i++ {
		if d := l.Take(context.Background(), redirects.Usage{Org: unlimited, Lookup: true, Now: now}); d.Refused != redirects.NotRefused || !d.QuotaRemaining.IsUnlimited() {
			t.Fatalf("unlimited organization: %+v", d)
		}
	}
	if after := l.Stats(); after.RoundTrips != before.RoundTrips || after.Waits != before.Waits {
		t.Fatalf("an organization without limits went to Redis: %+v then %+v", before, after)
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	used, err := s.FindUsage(context.Background(), "2026-05")
	if err != nil || used[unlimited.ID] != 1000 || used[limited.ID] != n {
		t.Fatalf("store usage %v (%v), want 1000 for the unlimited and %d for the limited", used, err, n)
	}
}

// TestTakeWithShareDoesNotAllocate: the hot path, with a share in hand.
func TestTakeWithShareDoesNotAllocate(t *testing.T) {
	url := redisURL(t)
	s := openStore(t)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, url, prefix(t, url), s, now)
	o := org(t, s, 10_000_000, 100_000_000)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	// The node learns the pace (100,000 requests a second) and takes
	// shares to match: tens of thousands of units.
	for i := 0; i < 5000; i++ {
		if i%100 == 0 {
			time.Sleep(time.Millisecond)
		}
		l.Take(context.Background(), u)
	}
	// Asking for the next share allocates its round trip: once a share,
	// far less than one allocation in 400 calls.
	allocs := testing.AllocsPerRun(400, func() {
		if _, ok := l.TryTake(u); !ok {
			t.Fatal("TryTake could not decide with a share in hand")
		}
	})
	if allocs != 0 {
		t.Fatalf("TryTake with a share in hand: %v allocations per call, want 0", allocs)
	}
}

// TestSharesGoBack: what a node holds goes back to Redis when it closes;
// an idle node keeps its share while the counter is far from the limit
// (its next requests need no round trip), and gives it back once the
// counter runs short.
func TestSharesGoBack(t *testing.T) {
	url := redisURL(t)
	p := prefix(t, url)
	s := openStore(t)
	o := org(t, s, 1000, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	a, err := redis.Open(context.Background(), url, p, s, quiet, fixedClock{now})
	if err != nil {
		t.Fatal(err)
	}
	b, c := open(t, url, p, s, now), open(t, url, p, s, now)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	if d := a.Take(context.Background(), u); d.RateRemaining != 999 {
		t.Fatalf("first request: %+v, want 999 remaining", d)
	}
	a.Close()
	// a spent one and gave the rest of its share back: b's request is the
	// second of the window. b takes a share of 62 (999/16).
	if d := b.Take(context.Background(), u); d.RateRemaining != 998 && b.Stats().Timeouts == 0 {
		t.Fatalf("after the other node closed: %+v, want 998 remaining", d)
	}
	// Idle, far from the limit: b keeps its share, so its next request
	// does not wait for Redis, and c counts all of it as used.
	time.Sleep(500 * time.Millisecond)
	waits := b.Stats().Waits
	if d := b.Take(context.Background(), u); d.Refused != redirects.NotRefused || b.Stats().Waits != waits {
		t.Fatalf("an idle node's next request: %+v, waits %d then %d; want it decided from the share kept", d, waits, b.Stats().Waits)
	}
	if d := c.Take(context.Background(), u); d.RateRemaining != 1000-2-61-1 && c.Stats().Timeouts == 0 {
		t.Fatalf("a third node while the second holds an idle share far from the limit: %+v, want %d remaining", d, 1000-2-61-1)
	}
	// c spends the rest of the window; the counter runs short, b gives
	// its share back, and c reaches the limit.
	admitted := 4
	deadline := time.Now().Add(5 * time.Second)
	for admitted < 1000 && time.Now().Before(deadline) {
		if d := c.Take(context.Background(), u); d.Refused == redirects.NotRefused {
			admitted++
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if admitted != 1000 {
		t.Fatalf("%d admitted in the window, want 1000: the idle share did not go back", admitted)
	}
}

// BenchmarkTake measures a request decided from a share in hand, against
// the per-node limiter on the same organization.
func BenchmarkTake(b *testing.B) {
	url := os.Getenv("REDIRECTS_TEST_REDIS")
	if url == "" {
		b.Skip("set REDIRECTS_TEST_REDIS=redis://127.0.0.1:6379/0 to run the Redis benchmarks")
	}
	db, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rate, quota := redirects.Limit(1_000_000_000), redirects.Limit(1_000_000_000_000)
	o := &redirects.Org{Name: "o", Tier: redirects.TierPro, RateLimitOverride: &rate, QuotaOverride: &quota}
	if err := db.CreateOrg(context.Background(), o); err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	u := redirects.Usage{Org: o, Lookup: true, Now: now}
	b.Run("shared", func(b *testing.B) {
		p := "redirects-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
		defer redis.DeleteKeys(context.Background(), url, p)
		l, err := redis.Open(context.Background(), url, p, db, quiet, fixedClock{now})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Take(context.Background(), u)
			}
		})
		b.ReportMetric(float64(l.Stats().RoundTrips)/float64(b.N), "trips/op")
	})
	b.Run("per-node", func(b *testing.B) {
		l, err := inmem.NewLimiter(context.Background(), db, now)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Take(context.Background(), u)
			}
		})
	})
}

// TestExactNearTheLimitWithSlowRedis puts 2 ms before every reply of
// Redis and has 128 clients on two nodes race for a small limit: queues of
// requests wait for each round trip, and the cluster still admits no more
// than the limit, and all of it but at most one unit per node.
func TestExactNearTheLimitWithSlowRedis(t *testing.T) {
	url := redisURL(t)
	target := redisTarget(t, url)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	for _, tt := range []struct {
		name        string
		rate, quota redirects.Limit
	}{
		{"200 a minute", 200, redirects.Unlimited},
		{"200 a month", redirects.Unlimited, 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			limit := int64(tt.rate)
			if tt.rate.IsUnlimited() {
				limit = int64(tt.quota)
			}
			unlessFellBack(t, func() ([]*redis.Limiter, error) {
				p := prefix(t, url)
				px := testproxy.Start(t, "127.0.0.1:0", target)
				px.SetDelay(2 * time.Millisecond)
				s := openStore(t)
				o := org(t, s, tt.rate, tt.quota)
				nodes := []*redis.Limiter{open(t, "redis://"+px.Addr(), p, s, now), open(t, "redis://"+px.Addr(), p, s, now)}
				var admitted atomic.Int64
				var wg sync.WaitGroup
				for g := 0; g < 128; g++ {
					wg.Add(1)
					go func(g int) {
						defer wg.Done()
						for i := 0; i < 8; i++ {
							d := nodes[g%2].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
							if d.Refused == redirects.NotRefused {
								admitted.Add(1)
							}
						}
					}(g)
				}
				wg.Wait()
				// Requests Redis did not answer within redis.MaxWait (a loaded
				// machine) are decided by their node alone: those admitted are
				// the most the cluster can admit beyond the limit, and those
				// refused may leave the units their node asked for unspent.
				n, local := admitted.Load(), int64(localAdmits(nodes))
				refused := int64(timeouts(nodes)) - local
				t.Logf("%d admitted (%d decided without Redis, %d of them admitted)", n, local+refused, local)
				if n > limit+local || n < limit-int64(len(nodes))-refused {
					return nodes, fmt.Errorf("%d admitted by 128 clients on two nodes, want at most %d and at least %d (%d decided without Redis, %d of them admitted)",
						n, limit+local, limit-int64(len(nodes))-refused, local+refused, local)
				}
				return nodes, nil
			})
		})
	}
}
