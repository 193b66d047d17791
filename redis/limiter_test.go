package redis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/internal/testproxy"
	"redirects/internal/testreport"
	"redirects/redis"
	"redirects/sqlite"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// redisURL returns the test Redis, or skips.
func redisURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("REDIRECTS_TEST_REDIS")
	if u == "" {
		testreport.Skip(t, testreport.Redis, "set REDIRECTS_TEST_REDIS=redis://127.0.0.1:6379/0 to run the Redis tests (.ci/run does)")
	}
	testreport.Ran(t, testreport.Redis)
	return u
}

// prefix returns a key prefix of this test's own, and deletes its keys at
// the end.
// redisTarget is the host:port of the Redis at url, for a proxy in front
// of it.
func redisTarget(t *testing.T, url string) string {
	t.Helper()
	target, err := redis.Addr(url)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

func prefix(t *testing.T, url string) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	p := "redirects-test:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() { deleteKeys(t, url, p) })
	return p
}

func deleteKeys(t *testing.T, url, prefix string) {
	t.Helper()
	if err := redis.DeleteKeys(context.Background(), url, prefix); err != nil {
		t.Errorf("deleting test keys %s*: %v", prefix, err)
	}
}

func openStore(t *testing.T) redirects.Store {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func org(t *testing.T, s redirects.Store, rate, quota redirects.Limit) *redirects.Org {
	t.Helper()
	o := &redirects.Org{Name: "o", Tier: redirects.TierFree, RateLimitOverride: &rate, QuotaOverride: &quota}
	if err := s.CreateOrg(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return o
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func open(t *testing.T, url, prefix string, s redirects.Store, now time.Time) *redis.Limiter {
	t.Helper()
	l, err := redis.Open(context.Background(), url, prefix, s, quiet, fixedClock{now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// threeNodes opens three limiters sharing a fresh key prefix and store,
// and an organization with the limits given.
func threeNodes(t *testing.T, url string, now time.Time, rate, quota redirects.Limit) (*redirects.Org, []*redis.Limiter) {
	t.Helper()
	p := prefix(t, url)
	s := openStore(t)
	o := org(t, s, rate, quota)
	return o, []*redis.Limiter{open(t, url, p, s, now), open(t, url, p, s, now), open(t, url, p, s, now)}
}

func TestSharedWindowAcrossNodes(t *testing.T) {
	url := redisURL(t)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	unlessFellBack(t, func() ([]*redis.Limiter, error) {
		o, nodes := threeNodes(t, url, now, 10, redirects.Unlimited)
		admitted := 0
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := 0; i < 30; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				d := nodes[i%3].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
				if d.Refused == redirects.NotRefused {
					mu.Lock()
					admitted++
					mu.Unlock()
				} else if d.Refused != redirects.RateLimitExceeded || d.RetryAfter != 55 {
					t.Errorf("refusal %+v, want RATE_LIMIT_EXCEEDED with Retry-After 55", d)
				}
			}(i)
		}
		wg.Wait()
		// A request Redis did not answer within redis.MaxWait (a loaded
		// machine) is decided by what its node last heard from Redis: with
		// 10 a minute, never admitted (a node admits on its own at most a
		// sixteenth of what was left), so the limit holds. The units it
		// asked for may sit with its node, unspent: one fewer admitted each.
		if extra := timeouts(nodes); admitted > 10 || admitted < 10-extra || localAdmits(nodes) != 0 {
			return nodes, fmt.Errorf("%d of 30 requests admitted across three nodes, want 10 (at least %d: %d decided without Redis, %d of them admitted)", admitted, 10-extra, extra, localAdmits(nodes))
		}
		// Test keys count in their own window.
		if d := promptly(nodes[0], redirects.Usage{Org: o, Test: true, Lookup: true, Now: now}); d.Refused != redirects.NotRefused || d.RateRemaining != 9 {
			return nodes, fmt.Errorf("test key after the live window filled: %+v", d)
		}
		// The next minute is a new window.
		if d := promptly(nodes[1], redirects.Usage{Org: o, Lookup: true, Now: now.Add(time.Minute)}); d.Refused != redirects.NotRefused || d.RateRemaining != 9 {
			return nodes, fmt.Errorf("next minute: %+v", d)
		}
		return nodes, nil
	})
}

// promptly takes u from l as Redis decides it: a request that l decided
// alone because Redis answered late (a loaded machine) is asked again, up
// to five times. With a limit under 16 a late answer means a refusal
// (decideLocally), which is not what the caller tests.
func promptly(l *redis.Limiter, u redirects.Usage) redirects.Decision {
	for i := 0; ; i++ {
		before := l.Stats().Timeouts
		d := l.Take(context.Background(), u)
		if l.Stats().Timeouts == before || i == 4 {
			return d
		}
	}
}

func TestQuotaSurvivesLostRedisMemory(t *testing.T) {
	url := redisURL(t)
	p := prefix(t, url)
	s := openStore(t)
	o := org(t, s, redirects.Unlimited, 5)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	a, b := open(t, url, p, s, now), open(t, url, p, s, now)
	for i := 0; i < 3; i++ {
		if d := []*redis.Limiter{a, b}[i%2].Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused != redirects.NotRefused {
			t.Fatalf("lookup %d: %+v", i, d)
		}
	}
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := b.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	used, err := s.FindUsage(context.Background(), "2026-05")
	if err != nil || used[o.ID] != 3 {
		t.Fatalf("store usage %v (%v), want 3 for %s", used, err, o.ID)
	}
	// Redis loses everything; a node that starts now seeds from the store.
	deleteKeys(t, url, p)
	c := open(t, url, p, s, now)
	for i := 0; i < 2; i++ {
		if d := c.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused != redirects.NotRefused || d.QuotaRemaining != redirects.Limit(1-i) {
			t.Fatalf("lookup %d after the loss: %+v, want quota remaining %d (stats %+v %+v %+v)", i, d, 1-i, a.Stats(), b.Stats(), c.Stats())
		}
	}
	if d := a.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}); d.Refused != redirects.QuotaExceeded {
		t.Fatalf("6th lookup of a 5 quota: %+v, want QUOTA_EXCEEDED (stats %+v, %+v, %+v)", d, a.Stats(), b.Stats(), c.Stats())
	}
	if d := a.Take(context.Background(), redirects.Usage{Org: o, Lookup: false, Now: now}); d.Refused != redirects.NotRefused {
		t.Fatalf("export over quota: %+v, want admitted", d)
	}
}

func TestFallbackWhileRedisIsDown(t *testing.T) {
	url := redisURL(t)
	pfx := prefix(t, url)
	target := redisTarget(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, 3, redirects.Unlimited)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, "redis://"+px.Addr(), pfx, s, now)
	var mu sync.Mutex
	var events []bool
	l.OnFallback = func(down bool) { mu.Lock(); events = append(events, down); mu.Unlock() }
	take := func() redirects.Decision {
		return l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
	}
	take()
	take()
	px.Close()
	// Down: the limiter answers at once, counting per node, from what
	// the cluster had taken of the minute (2 of 3): one more is admitted.
	if d := take(); d.Refused != redirects.NotRefused {
		t.Fatalf("request 1 while Redis is down: %+v, want admitted by the per-node window", d)
	}
	if d := take(); d.Refused != redirects.RateLimitExceeded {
		t.Fatalf("4th request of the minute: %+v, want the limit of 3 to hold per node from what the cluster had taken", d)
	}
	testproxy.Start(t, px.Addr(), target)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("fallback events %v, want [true false] within 10 s of Redis returning", events)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !events[0] || events[1] {
		t.Fatalf("fallback events %v, want [true false]", events)
	}
	// Shared counting resumes with what the node admitted alone added to
	// the shared window: 2 before, 1 during, so nothing is left this
	// minute.
	if d := take(); d.Refused != redirects.RateLimitExceeded {
		t.Fatalf("after Redis returned: %+v, want refused: the window's 3 were used before and during the fallback", d)
	}
	// The next minute is shared again.
	now = now.Add(time.Minute)
	if d := take(); d.Refused != redirects.NotRefused || d.RateRemaining != 2 {
		t.Fatalf("next minute after Redis returned: %+v, want admitted with 2 remaining", d)
	}
}

// TestQuotaHoldsThroughFallback uses up a quota through Redis, then cuts
// Redis off: the per-node counting must start from the usage the node knew,
// not from what the store held when the node started.
func TestQuotaHoldsThroughFallback(t *testing.T) {
	url := redisURL(t)
	pfx := prefix(t, url)
	target := redisTarget(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	o := org(t, s, redirects.Unlimited, 3)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	l := open(t, "redis://"+px.Addr(), pfx, s, now)
	take := func() redirects.Decision {
		return l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now})
	}
	for i := 0; i < 3; i++ {
		if d := take(); d.Refused != redirects.NotRefused {
			t.Fatalf("lookup %d within the quota: %+v", i, d)
		}
	}
	px.Close()
	if d := take(); d.Refused != redirects.QuotaExceeded || !l.Down() {
		t.Fatalf("first lookup after Redis went away: %+v (down %v), want QUOTA_EXCEEDED from the per-node count", d, l.Down())
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	used, err := s.FindUsage(context.Background(), "2026-05")
	if err != nil || used[o.ID] != 3 {
		t.Fatalf("store usage %v (%v), want exactly the 3 admitted lookups", used, err)
	}
}

// TestQuotaAcrossNodesThroughOutage has two nodes share a quota of 10,
// lose Redis half-way and get it back: what each node admitted alone is
// added to the shared month, so over the whole run the two nodes admit
// exactly the quota, no more.
func TestQuotaAcrossNodesThroughOutage(t *testing.T) {
	url := redisURL(t)
	pfx := prefix(t, url)
	target := redisTarget(t, url)
	px := testproxy.Start(t, "127.0.0.1:0", target)
	s := openStore(t)
	const quota = 10
	o := org(t, s, redirects.Unlimited, quota)
	now := time.Date(2026, 5, 5, 10, 0, 5, 0, time.UTC)
	nodes := []*redis.Limiter{open(t, "redis://"+px.Addr(), pfx, s, now), open(t, "redis://"+px.Addr(), pfx, s, now)}
	admitted := 0
	take := func(l *redis.Limiter) {
		if l.Take(context.Background(), redirects.Usage{Org: o, Lookup: true, Now: now}).Refused == redirects.NotRefused {
			admitted++
		}
	}
	// 2 each through Redis, then 2 each alone: 8, within the quota on
	// every node's count.
	for _, l := range nodes {
		take(l)
		take(l)
	}
	px.Close()
	for _, l := range nodes {
		take(l)
		take(l)
		if !l.Down() {
			t.Fatal("a node did not fall back with Redis away")
		}
	}
	if admitted != 8 {
		t.Fatalf("admitted %d before Redis returned, want 8", admitted)
	}
	testproxy.Start(t, px.Addr(), target)
	waitFor(t, 15*time.Second, "the return of both nodes to shared limits", func() bool {
		return !nodes[0].Down() && !nodes[1].Down()
	})
	for i := 0; i < 20; i++ {
		take(nodes[i%2])
	}
	if admitted != quota {
		t.Fatalf("admitted %d over the whole run, want exactly the quota of %d", admitted, quota)
	}
}
